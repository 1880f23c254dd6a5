/* limit: how many expensive answers are made at once (issue #15). Decoding
 * a profile, writing a whole trace as JSON or searching every event takes a
 * core for seconds; past a few at once, more only share the cores and hold
 * more memory, and a flood of them would pile up threads until the server
 * stops answering anyone. So they take a slot; a request that finds none
 * free within a short wait is answered 503 with Retry-After, and cheap
 * routes (listings, kept answers, tiles, /healthz) never wait.
 * Thread-safe: one mutex. */
#ifndef PV_UTIL_LIMIT_H
#define PV_UTIL_LIMIT_H

#include <pthread.h>
#include <stdbool.h>

typedef struct pv_limit {
    pthread_mutex_t lock;
    pthread_cond_t freed;
    unsigned busy;        /* slots taken */
    unsigned max;         /* slots in all */
} pv_limit;

/* max slots; 0 means no limit. Cannot fail. */
void pv_limit_init(pv_limit *l, unsigned max);
void pv_limit_fini(pv_limit *l);
/* Takes a slot, waiting at most wait_ms for one; false when none came free
 * (nothing taken then). A NULL limit always gives one. */
bool pv_limit_take(pv_limit *l, unsigned wait_ms);
/* Gives back a slot pv_limit_take gave. NULL is fine. */
void pv_limit_give(pv_limit *l);

#endif
