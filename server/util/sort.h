/* sort: qsort for arrays that may be empty. qsort's base must not be NULL
 * even when there is nothing to sort, and an empty growable array often
 * has a NULL base, so every sort goes through here. Pure, thread-safe. */
#ifndef PV_UTIL_SORT_H
#define PV_UTIL_SORT_H

#include <stdlib.h>

static inline void pv_sort(void *base, size_t n, size_t size,
                           int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

#endif
