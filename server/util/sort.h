/* sort: qsort for arrays that may be empty, a typed merge sort for the
 * hot ones, and a typed binary heap. qsort's base must not be NULL even when there is nothing
 * to sort, and an empty growable array often has a NULL base, so every
 * qsort goes through pv_sort. Pure, thread-safe. */
#ifndef PV_UTIL_SORT_H
#define PV_UTIL_SORT_H

#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

static inline void pv_sort(void *base, size_t n, size_t size,
                           int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

/* Elements a merge sort's first pass orders by insertion. */
#define PV_SORT_RUN 16

/* PV_MERGE_SORT(name, type, before) defines
 *     static void name(type *v, size_t n)
 * which sorts v[0..n) by before(const type *a, const type *b), true when
 * a goes strictly first. For small structs with a cheap order, qsort's
 * call per comparison and byte-wise copies cost several times the work;
 * here both are inlined. Stable. Input already in order costs one pass
 * and no allocation (step grouping's keys mostly come that way). Aborts
 * when memory runs out, as pv_xmalloc does. */
#define PV_MERGE_SORT(name, type, before)                                          \
    static void name(type *v, size_t n)                                            \
    {                                                                              \
        size_t i_ = 1;                                                             \
        while (i_ < n && !before(&v[i_], &v[i_ - 1]))                              \
            i_++;                                                                  \
        if (i_ >= n)                                                               \
            return;                                                                \
        for (size_t lo_ = 0; lo_ < n; lo_ += PV_SORT_RUN) {                        \
            size_t hi_ = lo_ + PV_SORT_RUN < n ? lo_ + PV_SORT_RUN : n;            \
            for (size_t k_ = lo_ + 1; k_ < hi_; k_++) {                            \
                type x_ = v[k_];                                                   \
                size_t j_ = k_;                                                    \
                for (; j_ > lo_ && before(&x_, &v[j_ - 1]); j_--)                  \
                    v[j_] = v[j_ - 1];                                             \
                v[j_] = x_;                                                        \
            }                                                                      \
        }                                                                          \
        type *tmp_ = pv_xmalloc(n * sizeof *tmp_);                                 \
        type *src_ = v, *dst_ = tmp_;                                              \
        for (size_t w_ = PV_SORT_RUN; w_ < n; w_ *= 2) {                           \
            for (size_t lo_ = 0; lo_ < n; lo_ += 2 * w_) {                         \
                size_t mid_ = lo_ + w_ < n ? lo_ + w_ : n;                         \
                size_t hi_ = lo_ + 2 * w_ < n ? lo_ + 2 * w_ : n;                  \
                size_t a_ = lo_, b_ = mid_, o_ = lo_;                              \
                while (a_ < mid_ && b_ < hi_)                                      \
                    dst_[o_++] = before(&src_[b_], &src_[a_]) ? src_[b_++] : src_[a_++]; \
                while (a_ < mid_)                                                  \
                    dst_[o_++] = src_[a_++];                                       \
                while (b_ < hi_)                                                   \
                    dst_[o_++] = src_[b_++];                                       \
            }                                                                      \
            type *t_ = src_;                                                       \
            src_ = dst_;                                                           \
            dst_ = t_;                                                             \
        }                                                                          \
        if (src_ != v)                                                             \
            memcpy(v, src_, n * sizeof *v);                                        \
        free(tmp_);                                                                \
    }

/* PV_HEAP(name, type, ctx_type, before) defines, for a binary heap
 * h[0..n) with the least element on top, the least by
 * before(const ctx_type *ctx, const type *a, const type *b) (true when a
 * goes strictly first; ctx is what the order needs besides the elements):
 *     static inline void name_down(const ctx_type *ctx, type *h, size_t n, size_t i)
 *     static inline void name_up(const ctx_type *ctx, type *h, size_t i)
 * which move h[i] down, or up, to its place. A heap is made by moving
 * h[n/2-1] .. h[0] down; pushing is h[n] = x, then up from n; popping is
 * h[0] = h[n-1], then down from 0 in the n-1 left. */
#define PV_HEAP(name, type, ctx_type, before)                                      \
    static inline void name##_down(const ctx_type *ctx_, type *h_, size_t n_, size_t i_) \
    {                                                                              \
        for (;;) {                                                                 \
            size_t l_ = 2 * i_ + 1, r_ = l_ + 1, best_ = i_;                       \
            if (l_ < n_ && before(ctx_, &h_[l_], &h_[best_]))                      \
                best_ = l_;                                                        \
            if (r_ < n_ && before(ctx_, &h_[r_], &h_[best_]))                      \
                best_ = r_;                                                        \
            if (best_ == i_)                                                       \
                return;                                                            \
            type t_ = h_[i_];                                                      \
            h_[i_] = h_[best_];                                                    \
            h_[best_] = t_;                                                        \
            i_ = best_;                                                            \
        }                                                                          \
    }                                                                              \
    static inline void name##_up(const ctx_type *ctx_, type *h_, size_t i_)        \
    {                                                                              \
        while (i_ > 0 && before(ctx_, &h_[i_], &h_[(i_ - 1) / 2])) {               \
            type t_ = h_[i_];                                                      \
            h_[i_] = h_[(i_ - 1) / 2];                                             \
            h_[(i_ - 1) / 2] = t_;                                                 \
            i_ = (i_ - 1) / 2;                                                     \
        }                                                                          \
    }

#endif
