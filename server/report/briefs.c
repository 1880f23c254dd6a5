/* briefs: a sorted array of (key, brief), searched by halves; insertion
 * moves the tail, which at the cap's size costs well under a profile's
 * decode (briefs.h). */
#include "report/briefs.h"
#include "util/bsearch.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Past this many briefs the table starts again: each is about a KiB, and a
 * logdir of more runs is read again as it is asked. */
#define MAX_BRIEFS 16384

typedef struct entry {
    char *key;
    pv_brief brief;
} entry;

struct pv_briefs {
    pthread_mutex_t lock;
    entry *v;                  /* sorted by key */
    size_t n, cap;
};

pv_briefs *pv_briefs_new(void)
{
    pv_briefs *t = pv_xcalloc(1, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    return t;
}

static void clear(pv_briefs *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].key);
    t->n = 0;
}

void pv_briefs_free(pv_briefs *t)
{
    if (t == NULL)
        return;
    clear(t);
    free(t->v);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* The first index whose key is not below key. Caller holds the lock. */
static size_t lower(const pv_briefs *t, const char *key)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, t->n, mid, strcmp(t->v[mid].key, key) < 0);
    return lo;
}

bool pv_briefs_get(pv_briefs *t, const char *key, pv_brief *out)
{
    pthread_mutex_lock(&t->lock);
    size_t i = lower(t, key);
    bool found = i < t->n && strcmp(t->v[i].key, key) == 0;
    if (found)
        *out = t->v[i].brief;
    pthread_mutex_unlock(&t->lock);
    return found;
}

void pv_briefs_put(pv_briefs *t, const char *key, const pv_brief *b)
{
    pthread_mutex_lock(&t->lock);
    if (t->n >= MAX_BRIEFS)
        clear(t);
    size_t i = lower(t, key);
    if (i < t->n && strcmp(t->v[i].key, key) == 0) {
        t->v[i].brief = *b;
    } else {
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 64;
            t->v = pv_xrealloc(t->v, t->cap * sizeof *t->v);
        }
        memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof *t->v);
        t->v[i] = (entry){pv_xstrdup(key), *b};
        t->n++;
    }
    pthread_mutex_unlock(&t->lock);
}
