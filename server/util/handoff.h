/* handoff: batches passed from one producer thread to one consumer
 * through a ring of slots. The caller keeps the batches (an array of
 * `slots`, indexed by what these functions return); here are only the
 * counts and the waiting, so the ingest formats that read ahead on a
 * second thread share one protocol:
 *
 *   producer: fill slot pv_handoff_filling, then pv_handoff_put; while it
 *             returns true, empty the new filling slot and go on.
 *   consumer: pv_handoff_take a slot, read it, pv_handoff_give_back it;
 *             pv_handoff_stop when it wants no more, then join the thread.
 *
 * The producer's last put (last true) ends the stream; a stopped consumer
 * makes the producer's next put return false at once. */
#ifndef PV_UTIL_HANDOFF_H
#define PV_UTIL_HANDOFF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_handoff {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t produced;      /* slots handed over (written under lock) */
    uint64_t consumed;      /* slots given back (under lock) */
    size_t slots;
    atomic_bool stop;       /* the consumer wants no more */
} pv_handoff;

void pv_handoff_init(pv_handoff *h, size_t slots);
void pv_handoff_fini(pv_handoff *h);

/* True when the process may run two threads at once (its CPU affinity
 * holds two CPUs or more): reading ahead on a second thread only pays
 * then. */
bool pv_handoff_worth(void);

/* Producer: the slot it fills. */
static inline size_t pv_handoff_filling(const pv_handoff *h)
{
    return (size_t)(h->produced % h->slots);
}
/* Producer: hands the filled slot over (last: the stream ends with it) and
 * waits until the next slot is free. False when nothing more may be
 * filled: that was the last, or the consumer stopped. */
bool pv_handoff_put(pv_handoff *h, bool last);
/* Producer: the slots handed over that the consumer has not given back
 * yet (the one it reads among them): how far ahead the producer is. */
size_t pv_handoff_ahead(pv_handoff *h);
/* Producer, between puts: whether the consumer stopped. */
static inline bool pv_handoff_stopped(pv_handoff *h)
{
    return atomic_load_explicit(&h->stop, memory_order_relaxed);
}

/* Consumer: waits until a slot is handed over and returns it. */
size_t pv_handoff_take(pv_handoff *h);
/* Consumer: gives the slot it took back to be filled again. */
void pv_handoff_give_back(pv_handoff *h);
/* Consumer: wants no more; wakes a producer waiting for room. */
void pv_handoff_stop(pv_handoff *h);

#endif
