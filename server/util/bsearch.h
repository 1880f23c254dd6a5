/* bsearch: the server's one binary search, a lower bound over a range of
 * indices whose test is written at the call site.
 *
 * A macro rather than libc's bsearch: the test is compiled into the loop
 * (bsearch calls a comparison through a pointer at every step), it may
 * look at anything an index leads to (a column, a sorted index into
 * another array, two fields at once) rather than one array of keys, and
 * it finds where a missing key would go as well as an existing one.
 * Pure; cannot fail. */
#ifndef PV_UTIL_BSEARCH_H
#define PV_UTIL_BSEARCH_H

/* PV_LOWER_BOUND(type, lo, hi, i, below)
 *   type   an unsigned integer type for the indices (uint32_t, size_t...)
 *   lo     an lvalue of that type: the first index of the range [lo, hi)
 *   hi     the end of the range, evaluated once
 *   i      the name `below` gives the index it tests
 *   below  an expression of i that is true for a prefix of the range and
 *          false for the rest, e.g. `v[i] < key` when v is ascending
 * Leaves in lo the first index of [lo, hi) where below is false, or hi
 * when there is none. below is only evaluated for indices inside the
 * range, about log2(hi - lo) + 1 times. An exact match is then
 * `lo < hi && v[lo] == key`. */
#define PV_LOWER_BOUND(type, lo, hi, i, below)                                   \
    do {                                                                         \
        type pv_hi_ = (hi);                                                      \
        while ((lo) < pv_hi_) {                                                  \
            type i = (lo) + (pv_hi_ - (lo)) / 2;                                 \
            if (below)                                                           \
                (lo) = i + 1;                                                    \
            else                                                                 \
                pv_hi_ = i;                                                      \
        }                                                                        \
    } while (0)

#endif
