/* tool_trace_cache: a short list of trace indexes under one mutex. */
#include "http/tool_trace_cache.h"

#include "util/log.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct pv_trace_hold {
    pv_trace_hold *next;
    char *path;
    uint64_t size_bytes;
    int64_t mtime_ns;
    pv_trace_index *ix;
    int holders;
    uint64_t last_used;
    int cached;             /* 0: built for one request, freed on put */
    char **tile_gz;         /* TILE_SLOTS gzip bodies, or NULL */
    size_t *tile_len;
    size_t tile_bytes;      /* held by tile_gz */
};

/* Tiles of levels 0 .. PV_TRACE_CACHE_TILE_LEVELS-1, slot (1 << level) - 1 + index. */
#define TILE_SLOTS ((1u << PV_TRACE_CACHE_TILE_LEVELS) - 1)
#define TILE_BYTES_PER_FILE ((size_t)64 << 20)

struct pv_trace_cache {
    pthread_mutex_t lock;
    pv_trace_hold *entries;
    size_t budget_bytes;
    size_t held_bytes;
    uint64_t clock;
};

pv_trace_cache *pv_trace_cache_new(size_t budget_bytes)
{
    pv_trace_cache *c = pv_xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    c->budget_bytes = budget_bytes;
    return c;
}

static void hold_free(pv_trace_hold *h)
{
    if (h->tile_gz != NULL)
        for (size_t i = 0; i < TILE_SLOTS; i++)
            free(h->tile_gz[i]);
    free(h->tile_gz);
    free(h->tile_len);
    pv_trace_index_free(h->ix);
    free(h->path);
    free(h);
}

void pv_trace_cache_free(pv_trace_cache *c)
{
    if (c == NULL)
        return;
    pv_trace_hold *h = c->entries;
    while (h != NULL) {
        pv_trace_hold *next = h->next;
        hold_free(h);
        h = next;
    }
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static int same(const pv_trace_hold *h, const pv_source *src)
{
    return h->size_bytes == src->size_bytes && h->mtime_ns == src->mtime_ns &&
           strcmp(h->path, src->path) == 0;
}

/* Drops unheld least recently used entries until incoming fits. Caller
 * holds the lock. */
static void evict_for(pv_trace_cache *c, size_t incoming)
{
    while (c->budget_bytes != 0 && c->held_bytes + incoming > c->budget_bytes) {
        pv_trace_hold **victim = NULL;
        for (pv_trace_hold **p = &c->entries; *p != NULL; p = &(*p)->next)
            if ((*p)->holders == 0 && (victim == NULL || (*p)->last_used < (*victim)->last_used))
                victim = p;
        if (victim == NULL)
            return;
        pv_trace_hold *h = *victim;
        *victim = h->next;
        c->held_bytes -= h->ix->bytes + h->tile_bytes;
        hold_free(h);
    }
}

int pv_trace_cache_get(pv_trace_cache *c, const pv_source *src, const pv_model *m,
                       const pv_trace_index **out, pv_trace_hold **hold, pv_error *err)
{
    if (c != NULL) {
        pthread_mutex_lock(&c->lock);
        for (pv_trace_hold *h = c->entries; h != NULL; h = h->next) {
            if (same(h, src)) {
                h->holders++;
                h->last_used = ++c->clock;
                pthread_mutex_unlock(&c->lock);
                *out = h->ix;
                *hold = h;
                return 0;
            }
        }
        pthread_mutex_unlock(&c->lock);
    }
    pv_trace_index *ix = NULL;
    int rc = pv_trace_index_new(m, NULL, &ix, err);
    if (rc != 0)
        return rc;
    pv_trace_hold *h = pv_xcalloc(1, sizeof *h);
    h->path = pv_xstrdup(src->path);
    h->size_bytes = src->size_bytes;
    h->mtime_ns = src->mtime_ns;
    h->ix = ix;
    h->holders = 1;
    pv_log(PV_LOG_INFO, "trace index of %s: %zu bytes, %u precomputed levels", src->path,
           ix->bytes, pv_trace_pyramid_levels(ix->pyramid));
    if (c != NULL) {
        pthread_mutex_lock(&c->lock);
        for (pv_trace_hold *o = c->entries; o != NULL; o = o->next) {
            if (same(o, src)) {   /* another request built it meanwhile */
                o->holders++;
                o->last_used = ++c->clock;
                pthread_mutex_unlock(&c->lock);
                hold_free(h);
                *out = o->ix;
                *hold = o;
                return 0;
            }
        }
        evict_for(c, ix->bytes);
        if (c->budget_bytes == 0 || c->held_bytes + ix->bytes <= c->budget_bytes) {
            h->cached = 1;
            h->last_used = ++c->clock;
            h->next = c->entries;
            c->entries = h;
            c->held_bytes += ix->bytes;
        }
        pthread_mutex_unlock(&c->lock);
    }
    *out = ix;
    *hold = h;
    return 0;
}

void pv_trace_cache_put(pv_trace_cache *c, pv_trace_hold *hold)
{
    if (hold == NULL)
        return;
    if (!hold->cached) {
        hold_free(hold);
        return;
    }
    pthread_mutex_lock(&c->lock);
    hold->holders--;
    pthread_mutex_unlock(&c->lock);
}

int pv_trace_cache_tile_get(pv_trace_cache *c, pv_trace_hold *hold, uint32_t level,
                            uint64_t index, char **gz, size_t *len)
{
    if (c == NULL || hold == NULL || !hold->cached || level >= PV_TRACE_CACHE_TILE_LEVELS)
        return PV_ENOTFOUND;
    size_t slot = ((size_t)1 << level) - 1 + (size_t)index;
    int rc = PV_ENOTFOUND;
    pthread_mutex_lock(&c->lock);
    if (hold->tile_gz != NULL && hold->tile_gz[slot] != NULL) {
        *len = hold->tile_len[slot];
        *gz = pv_xmalloc(*len + 1);
        memcpy(*gz, hold->tile_gz[slot], *len);
        rc = 0;
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

void pv_trace_cache_tile_put(pv_trace_cache *c, pv_trace_hold *hold, uint32_t level,
                             uint64_t index, const char *gz, size_t len)
{
    if (c == NULL || hold == NULL || !hold->cached || level >= PV_TRACE_CACHE_TILE_LEVELS)
        return;
    size_t slot = ((size_t)1 << level) - 1 + (size_t)index;
    pthread_mutex_lock(&c->lock);
    if (hold->tile_bytes + len <= TILE_BYTES_PER_FILE &&
        (c->budget_bytes == 0 || c->held_bytes + len <= c->budget_bytes)) {
        if (hold->tile_gz == NULL) {
            hold->tile_gz = pv_xcalloc(TILE_SLOTS, sizeof *hold->tile_gz);
            hold->tile_len = pv_xcalloc(TILE_SLOTS, sizeof *hold->tile_len);
        }
        if (hold->tile_gz[slot] == NULL) {
            hold->tile_gz[slot] = pv_xmalloc(len + 1);
            memcpy(hold->tile_gz[slot], gz, len);
            hold->tile_len[slot] = len;
            hold->tile_bytes += len;
            c->held_bytes += len;
        }
    }
    pthread_mutex_unlock(&c->lock);
}

size_t pv_trace_cache_bytes(pv_trace_cache *c)
{
    if (c == NULL)
        return 0;
    pthread_mutex_lock(&c->lock);
    size_t n = c->held_bytes;
    pthread_mutex_unlock(&c->lock);
    return n;
}
