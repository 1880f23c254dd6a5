/* quiet: the counts are atomics, so a request pays two atomic adds and
 * two clock reads; the waiting side polls, being background work that
 * has all the time it needs. */
#include "util/quiet.h"

#include <time.h>

/* How often a wait looks again. */
#define NAP_NS 10000000LL

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void pv_quiet_init(pv_quiet *q, int64_t gap_ns)
{
    atomic_init(&q->busy, 0);
    atomic_init(&q->last_ns, INT64_MIN / 2);
    q->gap_ns = gap_ns;
    atomic_init(&q->off, false);
}

void pv_quiet_enter(pv_quiet *q)
{
    atomic_fetch_add_explicit(&q->busy, 1, memory_order_relaxed);
    atomic_store_explicit(&q->last_ns, mono_ns(), memory_order_relaxed);
}

void pv_quiet_leave(pv_quiet *q)
{
    atomic_store_explicit(&q->last_ns, mono_ns(), memory_order_relaxed);
    atomic_fetch_sub_explicit(&q->busy, 1, memory_order_relaxed);
}

void pv_quiet_off(pv_quiet *q)
{
    atomic_store(&q->off, true);
}

void pv_quiet_wait(pv_quiet *q, int64_t *budget_ns)
{
    if (q == NULL)
        return;
    int64_t start = mono_ns(), now = start;
    while (now - start < *budget_ns && !atomic_load(&q->off) &&
           (atomic_load_explicit(&q->busy, memory_order_relaxed) != 0 ||
            now - atomic_load_explicit(&q->last_ns, memory_order_relaxed) < q->gap_ns)) {
        struct timespec nap = {0, NAP_NS};
        nanosleep(&nap, NULL);
        now = mono_ns();
    }
    *budget_ns -= now - start;
}
