/* limit: a counting semaphore with a timed wait (limit.h). */
#include "util/limit.h"

#include <errno.h>
#include <malloc.h>
#include <time.h>

void pv_limit_init(pv_limit *l, unsigned max)
{
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->freed, NULL);
    l->busy = 0;
    l->max = max;
}

void pv_limit_fini(pv_limit *l)
{
    pthread_cond_destroy(&l->freed);
    pthread_mutex_destroy(&l->lock);
}

bool pv_limit_take(pv_limit *l, unsigned wait_ms)
{
    if (l == NULL)
        return true;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)(wait_ms / 1000);
    until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&l->lock);
    int rc = 0;
    while (l->max != 0 && l->busy >= l->max && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&l->freed, &l->lock, &until);
    bool got = l->max == 0 || l->busy < l->max;
    if (got)
        l->busy++;
    pthread_mutex_unlock(&l->lock);
    return got;
}

void pv_limit_give(pv_limit *l)
{
    if (l == NULL)
        return;
    pthread_mutex_lock(&l->lock);
    l->busy--;
    bool idle = l->busy == 0;
    pthread_cond_signal(&l->freed);
    pthread_mutex_unlock(&l->lock);
    /* An expensive answer frees hundreds of megabytes of scratch, in the
     * malloc arena of whichever thread made it; glibc keeps such memory
     * (below its mmap threshold, or in a heap that is not the main one)
     * resident for reuse, so after a few tools on different threads the
     * heap stayed a third of a big profile higher than any one of them
     * needs (docs/big_profiles.md). When none is being made, the free
     * pages of every arena go back to the system. */
    if (idle)
        malloc_trim(0);
}
