/* trace_cache: the trace index as a model store companion, with its
 * finished coarse tiles in a slot array under a mutex of its own. */
#include "cache/trace_cache.h"

#include "tools/registry.h"
#include "util/gzip.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/mem.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pv_trace_hold {
    pv_trace_index *ix;
    pthread_mutex_t lock;   /* guards the tile slots */
    char **tile_body;         /* TILE_SLOTS bodies as served, or NULL */
    size_t *tile_len;
    size_t tile_bytes;      /* held by tile_body */
};

/* Tiles of levels 0 .. PV_TRACE_CACHE_TILE_LEVELS-1, slot (1 << level) - 1 + index. */
#define TILE_SLOTS ((1u << PV_TRACE_CACHE_TILE_LEVELS) - 1)
#define TILE_BYTES_PER_FILE ((size_t)64 << 20)

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
    if (h->tile_body != NULL)
        for (size_t i = 0; i < TILE_SLOTS; i++)
            free(h->tile_body[i]);
    free(h->tile_body);
    free(h->tile_len);
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

int pv_trace_cache_tile_get(pv_trace_hold *hold, uint32_t level, uint64_t index, char **body,
                            size_t *len)
{
    if (hold == NULL || level >= PV_TRACE_CACHE_TILE_LEVELS)
        return PV_ENOTFOUND;
    size_t slot = ((size_t)1 << level) - 1 + (size_t)index;
    int rc = PV_ENOTFOUND;
    pthread_mutex_lock(&hold->lock);
    if (hold->tile_body != NULL && hold->tile_body[slot] != NULL) {
        *len = hold->tile_len[slot];
        *body = pv_xmalloc(*len + 1);
        memcpy(*body, hold->tile_body[slot], *len);
        rc = 0;
    }
    pthread_mutex_unlock(&hold->lock);
    return rc;
}

void pv_trace_cache_tile_put(pv_model_store *s, pv_model_entry *entry, pv_trace_hold *hold,
                             uint32_t level, uint64_t index, const char *body, size_t len)
{
    if (hold == NULL || level >= PV_TRACE_CACHE_TILE_LEVELS)
        return;
    size_t slot = ((size_t)1 << level) - 1 + (size_t)index;
    pthread_mutex_lock(&hold->lock);
    /* The store's lock is taken inside this one and never the other way
     * round, so the two cannot deadlock. */
    if (hold->tile_bytes + len <= TILE_BYTES_PER_FILE &&
        (hold->tile_body == NULL || hold->tile_body[slot] == NULL) &&
        (s == NULL || pv_model_store_charge(s, entry, len))) {
        if (hold->tile_body == NULL) {
            hold->tile_body = pv_xcalloc(TILE_SLOTS, sizeof *hold->tile_body);
            hold->tile_len = pv_xcalloc(TILE_SLOTS, sizeof *hold->tile_len);
        }
        hold->tile_body[slot] = pv_xmalloc(len + 1);
        memcpy(hold->tile_body[slot], body, len);
        hold->tile_len[slot] = len;
        hold->tile_bytes += len;
    }
    pthread_mutex_unlock(&hold->lock);
}

/* ---- tags and what is sent ------------------------------------------------------ */

/* Named as the disk cache names it, so replicas behind one load balancer
 * give a file the same id and its tiles the same tags. */
static uint64_t source_hash(const pv_source *src)
{
    char ident[PATH_MAX + 80];
    pv_source_ident(src, ident, sizeof ident);
    return pv_hash_bytes(PV_HASH_SEED, ident, strlen(ident));
}

void pv_trace_cache_source_id(const pv_source *src, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)source_hash(src));
}

void pv_trace_cache_tile_tag(const pv_source *src, const char *program, uint32_t level,
                             uint64_t index, bool bin, char out[17])
{
    uint64_t lv = level;
    uint64_t h = pv_hash_bytes(source_hash(src), program, strlen(program));
    h = pv_hash_bytes(h, &lv, sizeof lv);
    h = pv_hash_bytes(h, &index, sizeof index);
    if (bin)
        h = pv_hash_bytes(h, "bin", 3);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

bool pv_trace_cache_is_gzip(const char *body, size_t len)
{
    return len >= 2 && (unsigned char)body[0] == 0x1f && (unsigned char)body[1] == 0x8b;
}

void pv_trace_cache_tile_send(pv_model_store *s, pv_model_entry *entry, pv_trace_hold *hold,
                              uint32_t level, uint64_t index, pv_buf *body, char **out,
                              size_t *len, bool *gz)
{
    pv_buf packed;
    pv_buf_init(&packed, body->max);
    *gz = body->len <= PV_TRACE_TILE_GZIP_MAX_BYTES &&
          pv_gzip_compress_level(body->data, body->len, 1, &packed, NULL) == 0;
    pv_buf *sent = *gz ? &packed : body;
    if (level < PV_TRACE_CACHE_TILE_LEVELS)
        pv_trace_cache_tile_put(s, entry, hold, level, index, sent->data, sent->len);
    *out = pv_buf_take(sent, len);
    pv_buf_fini(&packed);
    pv_buf_fini(body);
}
