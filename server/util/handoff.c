/* handoff: the counts move under one lock and one condition, which both
 * sides broadcast on every change: there are two threads, and a change is
 * once a batch of thousands of events. */
#include "util/handoff.h"

#include <sched.h>

void pv_handoff_init(pv_handoff *h, size_t slots)
{
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->changed, NULL);
    h->produced = h->consumed = 0;
    h->slots = slots;
    atomic_init(&h->stop, false);
}

void pv_handoff_fini(pv_handoff *h)
{
    pthread_cond_destroy(&h->changed);
    pthread_mutex_destroy(&h->lock);
}

bool pv_handoff_worth(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2;
}

bool pv_handoff_put(pv_handoff *h, bool last)
{
    pthread_mutex_lock(&h->lock);
    h->produced++;
    pthread_cond_broadcast(&h->changed);
    while (!last && h->produced - h->consumed == h->slots && !atomic_load(&h->stop))
        pthread_cond_wait(&h->changed, &h->lock);
    pthread_mutex_unlock(&h->lock);
    return !last && !atomic_load(&h->stop);
}

size_t pv_handoff_ahead(pv_handoff *h)
{
    pthread_mutex_lock(&h->lock);
    size_t n = (size_t)(h->produced - h->consumed);
    pthread_mutex_unlock(&h->lock);
    return n;
}

size_t pv_handoff_take(pv_handoff *h)
{
    pthread_mutex_lock(&h->lock);
    while (h->consumed == h->produced)
        pthread_cond_wait(&h->changed, &h->lock);
    size_t slot = (size_t)(h->consumed % h->slots);
    pthread_mutex_unlock(&h->lock);
    return slot;
}

void pv_handoff_give_back(pv_handoff *h)
{
    pthread_mutex_lock(&h->lock);
    h->consumed++;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
}

void pv_handoff_stop(pv_handoff *h)
{
    pthread_mutex_lock(&h->lock);
    atomic_store(&h->stop, true);
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
}
