/* sort: qsort for arrays that may be empty, and a typed merge sort for
 * the hot ones. qsort's base must not be NULL even when there is nothing
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

#endif
