/* prefault: fresh memory faulted in on a second thread, ahead of the
 * thread that will write it. A decode appends to columns of hundreds of
 * MB, and the first write to each of their pages stops the writing thread
 * for a fault and the kernel's zeroing of the page: a tenth of the
 * decoding thread's time on two cores (docs/big_profiles.md). The thread
 * that reads the file ahead knows how many elements the writer is going
 * to append, so it faults their pages in first (MADV_POPULATE_WRITE) and
 * the writer finds them there.
 *
 *   writer: pv_prefault_lock before it grows or moves the columns (so the
 *           other thread is not faulting at their old places), then
 *           pv_prefault_set with their new places, which unlocks.
 *   reader: pv_prefault_upto(n) once it knows that the first n elements
 *           will be written.
 *
 * Only whole pages inside a column are faulted, and never past the room
 * the writer gave; faulting in changes no byte, so a page the writer
 * reached first is simply left as it is. Where the kernel has no
 * MADV_POPULATE_WRITE (before Linux 5.14) nothing is faulted ahead. */
#ifndef PV_UTIL_PREFAULT_H
#define PV_UTIL_PREFAULT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* One column: where it starts (NULL: not made yet) and its element's size. */
typedef struct pv_prefault_col {
    void *base;
    size_t elem;
} pv_prefault_col;

#define PV_PREFAULT_COLS 8

typedef struct pv_prefault {
    pthread_mutex_t lock;
    pv_prefault_col cols[PV_PREFAULT_COLS];
    uint64_t done[PV_PREFAULT_COLS];   /* elements of each column faulted in */
    size_t n_cols;
    uint64_t room;          /* elements every column has room for */
    uint64_t from;          /* elements already written when it began */
} pv_prefault;

/* Starts with no columns; the writer has already written `from` elements
 * of each (their pages are in). */
void pv_prefault_init(pv_prefault *pf, uint64_t from);
void pv_prefault_fini(pv_prefault *pf);

/* Writer: before the columns grow or move. */
void pv_prefault_lock(pv_prefault *pf);
/* Writer: the columns' places now (n at most PV_PREFAULT_COLS, in the
 * same order every time), each with room for `room` elements; unlocks. A
 * column that was NULL before starts from `from`. */
void pv_prefault_set(pv_prefault *pf, const pv_prefault_col *cols, size_t n, uint64_t room);

/* Reader: faults in the pages of each column's elements up to n (at most
 * its room) not faulted in yet. */
void pv_prefault_upto(pv_prefault *pf, uint64_t n);

#endif
