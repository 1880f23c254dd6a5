/* progress: how far one piece of long work is, for the page's load bar.
 *
 * The worker sets total (units of its own choosing: bytes, events) and
 * then only raises done, with relaxed atomic stores; any thread reads
 * both at any time. Work that nobody watches is given a NULL meter, which
 * every helper accepts. A reader may see done before the total it belongs
 * to, or done past total for a moment: pv_meter_read clamps, so what it
 * gives never exceeds total. */
#ifndef PV_UTIL_PROGRESS_H
#define PV_UTIL_PROGRESS_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct pv_meter {
    _Atomic uint64_t done;
    _Atomic uint64_t total;
} pv_meter;

/* Sets the units the work will count to. */
static inline void pv_meter_start(pv_meter *m, uint64_t total)
{
    if (m != NULL)
        atomic_store_explicit(&m->total, total, memory_order_relaxed);
}

/* Counts n more units done. */
static inline void pv_meter_add(pv_meter *m, uint64_t n)
{
    if (m != NULL)
        atomic_fetch_add_explicit(&m->done, n, memory_order_relaxed);
}

/* Counts the work done: done reaches total. */
static inline void pv_meter_finish(pv_meter *m)
{
    if (m != NULL)
        atomic_store_explicit(&m->done, atomic_load_explicit(&m->total, memory_order_relaxed),
                              memory_order_relaxed);
}

/* done and total as one reading, done at most total. */
static inline void pv_meter_read(const pv_meter *m, uint64_t *done, uint64_t *total)
{
    uint64_t t = atomic_load_explicit(&m->total, memory_order_relaxed);
    uint64_t d = atomic_load_explicit(&m->done, memory_order_relaxed);
    *total = t;
    *done = d < t ? d : t;
}

#endif
