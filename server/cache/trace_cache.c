/* trace_cache: the trace index as a model store companion, with the
 * answers kept beside it in a hash table under a mutex of its own. */
#include "cache/trace_cache.h"

#include "tools/registry.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/log.h"
#include "util/mem.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One answer kept beside the index. */
typedef struct kept {
    char *key;
    char *body;
    size_t len;
    bool gz;
} kept;

struct pv_trace_hold {
    pv_trace_index *ix;
    pthread_mutex_t lock;   /* guards what follows */
    pv_hashtab by_key;      /* key hash -> index in kept */
    kept *kept;
    size_t n_kept, cap_kept;
    size_t kept_bytes;      /* bodies and keys held */
};

#define KEPT_BYTES_PER_FILE ((size_t)64 << 20)

/* A hold of ix, made or read back (how: for the log). */
static void hold_of(pv_trace_index *ix, const char *how, void **out, size_t *bytes)
{
    pv_trace_hold *h = pv_xcalloc(1, sizeof *h);
    h->ix = ix;
    pthread_mutex_init(&h->lock, NULL);
    pv_log(PV_LOG_INFO, "trace index %s: %zu bytes, %u precomputed levels", how, ix->bytes,
           pv_trace_pyramid_levels(ix->pyramid));
    *out = h;
    *bytes = ix->bytes;
}

static int build(const pv_model *m, pv_meter *meter, void **out, size_t *bytes, pv_error *err)
{
    pv_trace_index *ix = NULL;
    pv_trace_pyramid_opts opts = pv_trace_pyramid_defaults();
    opts.meter = meter;
    int rc = pv_trace_index_new(m, &opts, &ix, err);
    if (rc == 0)
        hold_of(ix, "built", out, bytes);
    return rc;
}

static int save(const void *companion, const pv_model *m, pv_buf *b)
{
    const pv_trace_hold *h = companion;
    return pv_trace_index_write(h->ix, m, b);
}

static int load(const pv_model *m, uint8_t *data, size_t len, void **out, size_t *bytes,
                pv_error *err)
{
    pv_trace_index *ix = NULL;
    int rc = pv_trace_index_read(m, data, len, &ix, err);
    if (rc == 0)
        hold_of(ix, "read back from the disk cache", out, bytes);
    return rc;
}

static void hold_free(void *p)
{
    pv_trace_hold *h = p;
    for (size_t i = 0; i < h->n_kept; i++) {
        free(h->kept[i].key);
        free(h->kept[i].body);
    }
    free(h->kept);
    pv_hashtab_fini(&h->by_key);
    pv_trace_index_free(h->ix);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

const pv_model_companion *pv_trace_companion(void)
{
    /* The tools' first memos are made beside the index. */
    static const pv_model_companion companion = {build, hold_free, pv_tools_warm, save, load};
    return &companion;
}

int pv_trace_cache_get(pv_model_store *s, pv_model_entry *entry, const pv_trace_index **out,
                       pv_trace_hold **hold, pv_error *err)
{
    void *c = NULL;
    int rc = pv_model_store_companion(s, entry, &c, err);
    if (rc != 0)
        return rc;
    *hold = c;
    *out = (*hold)->ix;
    return 0;
}

/* The entry of key, or NULL with *c ready for an insert. Caller holds
 * hold->lock. */
static kept *find(pv_trace_hold *h, const char *key, pv_hashtab_cursor *c)
{
    *c = pv_hashtab_probe(&h->by_key, pv_hash_bytes(PV_HASH_SEED, key, strlen(key)));
    uint32_t i;
    while (pv_hashtab_next(c, &i))
        if (strcmp(h->kept[i].key, key) == 0)
            return &h->kept[i];
    return NULL;
}

int pv_trace_cache_kept_get(pv_trace_hold *hold, const char *key, char **body, size_t *len,
                            bool *gz)
{
    int rc = PV_ENOTFOUND;
    pthread_mutex_lock(&hold->lock);
    pv_hashtab_cursor c;
    const kept *k = find(hold, key, &c);
    if (k != NULL) {
        *len = k->len;
        *gz = k->gz;
        *body = pv_xmalloc(k->len + 1);
        memcpy(*body, k->body, k->len);
        rc = 0;
    }
    pthread_mutex_unlock(&hold->lock);
    return rc;
}

void pv_trace_cache_kept_put(pv_model_store *s, pv_model_entry *entry, pv_trace_hold *hold,
                             const char *key, const char *body, size_t len, bool gz)
{
    size_t bytes = len + strlen(key);
    pthread_mutex_lock(&hold->lock);
    pv_hashtab_cursor c;
    /* The store's lock is taken inside this one and never the other way
     * round, so the two cannot deadlock. */
    if (hold->kept_bytes + bytes <= KEPT_BYTES_PER_FILE && hold->n_kept < UINT32_MAX - 1 &&
        find(hold, key, &c) == NULL && (s == NULL || pv_model_store_charge(s, entry, bytes))) {
        if (hold->n_kept == hold->cap_kept) {
            hold->cap_kept = hold->cap_kept > 0 ? hold->cap_kept * 2 : 64;
            hold->kept = pv_xrealloc(hold->kept, hold->cap_kept * sizeof *hold->kept);
        }
        kept *k = &hold->kept[hold->n_kept];
        k->key = pv_xstrdup(key);
        k->body = pv_xmalloc(len + 1);
        memcpy(k->body, body, len);
        k->len = len;
        k->gz = gz;
        pv_hashtab_insert(&hold->by_key, &c, (uint32_t)hold->n_kept);
        hold->n_kept++;
        hold->kept_bytes += bytes;
    }
    pthread_mutex_unlock(&hold->lock);
}
