/* prefault: one lock keeps the writer's growing (realloc, which may move
 * a column) and the reader's faulting apart, so the reader never faults
 * at a place the column has left. Both are rare: the writer grows a few
 * dozen times in a decode, the reader asks for tens of thousands of
 * elements at a time. */
#include "util/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

void pv_prefault_init(pv_prefault *pf, uint64_t from)
{
    pthread_mutex_init(&pf->lock, NULL);
    pf->n_cols = 0;
    pf->room = from;
    pf->from = from;
}

void pv_prefault_fini(pv_prefault *pf)
{
    pthread_mutex_destroy(&pf->lock);
}

void pv_prefault_lock(pv_prefault *pf)
{
    pthread_mutex_lock(&pf->lock);
}

void pv_prefault_set(pv_prefault *pf, const pv_prefault_col *cols, size_t n, uint64_t room)
{
    if (n > PV_PREFAULT_COLS)
        n = PV_PREFAULT_COLS;
    for (size_t i = 0; i < n; i++) {
        /* A column that moved took its faulted pages along (realloc
         * remaps or copies them); a new one has none past `from`. */
        if (i >= pf->n_cols || pf->cols[i].base == NULL)
            pf->done[i] = pf->from;
        pf->cols[i] = cols[i];
    }
    pf->n_cols = n;
    pf->room = room;
    pthread_mutex_unlock(&pf->lock);
}

void pv_prefault_upto(pv_prefault *pf, uint64_t n)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    pthread_mutex_lock(&pf->lock);
    if (n > pf->room)
        n = pf->room;
    for (size_t i = 0; i < pf->n_cols; i++) {
        if (pf->cols[i].base == NULL || pf->done[i] >= n)
            continue;
        /* From the page holding the first element not faulted in, to the
         * last whole page below element n: a page past the column's end
         * may be another block's, and the rest of a partial one is
         * faulted in next time, or by the writer. */
        uintptr_t base = (uintptr_t)pf->cols[i].base;
        uintptr_t lo = (base + pf->done[i] * pf->cols[i].elem) & ~(page - 1);
        uintptr_t hi = (base + n * pf->cols[i].elem) & ~(page - 1);
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
        pf->done[i] = n;
    }
    pthread_mutex_unlock(&pf->lock);
#else
    (void)pf;
    (void)n;
#endif
}
