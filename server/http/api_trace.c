/* api_trace: the trace viewer's own routes (docs/trace_api.md):
 * api/trace/meta, api/trace/tile, api/trace/event, api/trace/search.
 * Each resolves run/host, holds the host's model and its trace index for
 * the request, runs one trace tool and serialises the result. */
#include "cache/store.h"
#include "http/http.h"
#include "http/target.h"
#include "cache/trace_cache.h"
#include "tools/trace/trace_event.h"
#include "tools/trace/trace_meta.h"
#include "tools/trace/trace_tiles.h"
#include "cache/disk.h"
#include "util/gzip.h"
#include "util/hash.h"
#include "util/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE_MAX_BYTES ((size_t)1 << 30)

typedef struct trace_req {
    pv_request *rq;
    pv_response *rs;
    const pv_model *m;
    const pv_trace_index *ix;
    const pv_host_file *xplane;
    pv_model_entry *entry;
    pv_trace_hold *hold;
} trace_req;

typedef void (*trace_fn)(trace_req *tr);

/* Reads an unsigned decimal parameter; absent gives def. Returns -1 with
 * a 400 answer when it is malformed or above max. */
static int uint_param(pv_request *rq, pv_response *rs, const char *name, uint64_t def,
                      uint64_t max, uint64_t *out)
{
    bool bad = false;
    const char *v = pv_http_param(rq, name, &bad);
    char detail[200];
    if (v == NULL && !bad) {
        *out = def;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long x = bad || v[0] < '0' || v[0] > '9' ? 0 : strtoull(v, &end, 10);
    if (bad || end == NULL || *end != 0 || errno != 0 || x > max) {
        snprintf(detail, sizeof detail, "%s must be a whole number from 0 to %llu", name,
                 (unsigned long long)max);
        pv_respond_error(rs, 400, "bad parameter", detail);
        return -1;
    }
    *out = x;
    return 0;
}

/* Resolves the target, holds its model and trace index, runs fn. */
static void with_trace(pv_request *rq, pv_response *rs, trace_fn fn)
{
    pv_http_target t = {0};
    if (pv_http_target_resolve(rq, rs, NULL, &t) != 0)
        return;
    const pv_host_file *xplane = pv_host_profile(t.host);
    if (xplane == NULL) {
        pv_respond_error(rs, 404, "no trace",
                         "this host has no profile (.xplane.pb) file; TensorFlow's per-tool "
                         "trace files are served through /data?tag=trace_viewer");
        pv_http_target_release(rq, &t);
        return;
    }
    pv_source src = {xplane->path, xplane->size_bytes, xplane->mtime_ns};
    const pv_model *m;
    pv_model_entry *entry;
    pv_error err = {0};
    if (pv_model_store_get(rq->app->models, &src, &m, &entry, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        pv_http_target_release(rq, &t);
        return;
    }
    const pv_trace_index *ix;
    pv_trace_hold *hold;
    if (pv_trace_cache_get(rq->app->models, entry, &ix, &hold, &err) != 0) {
        pv_respond_pv_error(rs, &err);
    } else {
        trace_req tr = {rq, rs, m, ix, xplane, entry, hold};
        fn(&tr);
    }
    pv_model_store_put(rq->app->models, entry);
    pv_http_target_release(rq, &t);
}

/* The identity of the request's source file. */
static uint64_t source_hash(const trace_req *tr)
{
    uint64_t h = pv_hash_bytes(PV_HASH_SEED, tr->xplane->path, strlen(tr->xplane->path));
    h = pv_hash_bytes(h, &tr->xplane->size_bytes, sizeof tr->xplane->size_bytes);
    return pv_hash_bytes(h, &tr->xplane->mtime_ns, sizeof tr->xplane->mtime_ns);
}

/* ---- meta --------------------------------------------------------------------- */

static void do_meta(trace_req *tr)
{
    pv_trace_meta meta;
    pv_error err = {0};
    if (pv_tool_trace_meta(tr->m, &tr->rq->arena, &meta, &err) != 0) {
        pv_respond_pv_error(tr->rs, &err);
        return;
    }
    json_t *j = pv_trace_meta_to_json(tr->m, tr->ix, &meta);
    if (j == NULL) {
        pv_respond_error(tr->rs, 500, "internal error", "the track list could not be serialised");
        return;
    }
    /* Lets the client tell tiles of a changed file apart (&v= on tile URLs). */
    char id[20];
    snprintf(id, sizeof id, "%016llx", (unsigned long long)source_hash(tr));
    json_object_set_new(j, "source_id", json_string(id));
    pv_respond_json(tr->rs, 200, j);
}

void pv_serve_trace_meta(pv_request *rq, pv_response *rs)
{
    with_trace(rq, rs, do_meta);
}

/* ---- tile ---------------------------------------------------------------------- */

/* A tile's strong ETag, known before the tile is made: a tile is a pure
 * function of its source file, of its encoding and of the program that
 * encodes it, so a revalidation is answered without computing it and no
 * body is hashed. */
static const char *tile_tag(const trace_req *tr, uint64_t level, uint64_t index, bool bin)
{
    const char *program = tr->rq->app->disk->program;
    uint64_t h = pv_hash_bytes(source_hash(tr), program, strlen(program));
    h = pv_hash_bytes(h, &level, sizeof level);
    h = pv_hash_bytes(h, &index, sizeof index);
    if (bin)
        h = pv_hash_bytes(h, "bin", 3);
    return pv_arena_printf(&tr->rq->arena, "%016llx", (unsigned long long)h);
}

/* Whether If-None-Match names tag as a body sent as it is gets it
 * (server.c adds "-gz" only to gzip-encoded bodies, and a big binary tile
 * is sent as it is to every client). */
static bool tag_named(pv_request *rq, const char *tag)
{
    const char *inm = pv_http_header(rq, "If-None-Match");
    char quoted[48];
    snprintf(quoted, sizeof quoted, "\"%s\"", tag);
    return inm != NULL && (strcmp(inm, "*") == 0 || strstr(inm, quoted) != NULL);
}

/* A kept binary tile is gzip'd when it starts with gzip's magic bytes
 * (an uncompressed one starts with "PVT1"). */
static bool is_gzip(const char *body, size_t len)
{
    return len >= 2 && (unsigned char)body[0] == 0x1f && (unsigned char)body[1] == 0x8b;
}

/* format=bin (what the browser asks for) or json (the default). Returns
 * -1 with a 400 answer for anything else. */
static int tile_format(trace_req *tr, bool *bin)
{
    bool bad = false;
    const char *v = pv_http_param(tr->rq, "format", &bad);
    *bin = v != NULL && strcmp(v, "bin") == 0;
    if (bad || (v != NULL && !*bin && strcmp(v, "json") != 0)) {
        pv_respond_error(tr->rs, 400, "bad parameter", "format must be bin or json");
        return -1;
    }
    return 0;
}

/* The tile's body in b: binary (served as it is) or JSON. */
static int tile_body(trace_req *tr, const pv_trace_tile *tile, bool bin, pv_buf *b)
{
    pv_buf counters;
    pv_buf_init(&counters, TILE_MAX_BYTES);
    int rc;
    if (bin) {
        rc = pv_trace_counters_tile_bin(tr->ix, tile->start_ps, tile->end_ps, &counters);
        if (rc == 0)
            rc = pv_trace_tile_write_bin(tr->m, &tr->ix->geom, tile, counters.data, counters.len,
                                         &tr->rq->arena, b);
    } else {
        rc = pv_trace_counters_tile_json(tr->ix, tile->start_ps, tile->end_ps, &counters);
        if (rc == 0)
            rc = pv_trace_tile_write_json(tr->m, &tr->ix->geom, tile, counters.data,
                                          &tr->rq->arena, b);
    }
    pv_buf_fini(&counters);
    return rc;
}

static void do_tile(trace_req *tr)
{
    uint64_t level, index;
    bool bin;
    if (uint_param(tr->rq, tr->rs, "level", 0, tr->ix->geom.max_level, &level) != 0)
        return;
    if (uint_param(tr->rq, tr->rs, "index", 0, (1ull << level) - 1, &index) != 0)
        return;
    if (tile_format(tr, &bin) != 0)
        return;
    const char *type = bin ? "application/octet-stream" : "application/json";
    tr->rs->cache_control = "public, max-age=31536000, immutable";
    tr->rs->etag = tile_tag(tr, level, index, bin);
    /* a binary tile may be sent either way (gzip'd when small), so its
     * client may hold either tag */
    bool gz_tag = pv_http_not_modified_gz(tr->rq, tr->rs->etag);
    if (gz_tag || (bin && tag_named(tr->rq, tr->rs->etag))) {
        tr->rs->status = 200;   /* server.c turns it into the 304 */
        tr->rs->content_type = type;
        tr->rs->body = pv_xstrdup("");
        tr->rs->body_is_gzip = gz_tag;
        return;
    }
    char *kept;
    size_t kept_len;
    if (bin && pv_trace_cache_tile_get(tr->hold, (uint32_t)level, index, &kept, &kept_len) == 0) {
        tr->rs->status = 200;
        tr->rs->content_type = type;
        tr->rs->body = kept;
        tr->rs->len = kept_len;
        tr->rs->body_is_gzip = is_gzip(kept, kept_len);
        return;
    }
    pv_trace_tile_query q = {(uint32_t)level, index};
    pv_trace_tile tile;
    pv_error err = {0};
    if (pv_tool_trace_tile(tr->m, tr->ix->pyramid, &q, &tr->rq->arena, &tile, &err) != 0) {
        pv_respond_pv_error(tr->rs, &err);
        return;
    }
    pv_buf body;
    pv_buf_init(&body, TILE_MAX_BYTES);
    if (tile_body(tr, &tile, bin, &body) != 0) {
        pv_buf_fini(&body);
        pv_respond_error(tr->rs, 413, "too big", "the tile is larger than 1 GiB");
        return;
    }
    tr->rs->status = 200;
    tr->rs->content_type = type;
    if (bin) {
        /* gzip'd only when small (PV_TRACE_TILE_GZIP_MAX_BYTES): on a big
         * tile it would cost more than making it, for a quarter of the
         * bytes. The coarse ones are kept and served from then on. */
        pv_buf out;
        pv_buf_init(&out, TILE_MAX_BYTES);
        bool gz = body.len <= PV_TRACE_TILE_GZIP_MAX_BYTES &&
                  pv_gzip_compress_level(body.data, body.len, 1, &out, NULL) == 0;
        pv_buf *sent = gz ? &out : &body;
        if (level < PV_TRACE_CACHE_TILE_LEVELS)
            pv_trace_cache_tile_put(tr->rq->app->models, tr->entry, tr->hold, (uint32_t)level,
                                    index, sent->data, sent->len);
        tr->rs->body = pv_buf_take(sent, &tr->rs->len);
        tr->rs->body_is_gzip = gz;
        pv_buf_fini(&out);
        pv_buf_fini(&body);
        return;
    }
    /* JSON at gzip level 1: it is made per request and the server would
     * spend longer at the default level than on the tile itself. */
    pv_buf out;
    pv_buf_init(&out, TILE_MAX_BYTES);
    if (pv_gzip_compress_level(body.data, body.len, 1, &out, NULL) == 0) {
        pv_buf_fini(&body);
        tr->rs->body = pv_buf_take(&out, &tr->rs->len);
        tr->rs->body_is_gzip = true;
        return;
    }
    pv_buf_fini(&out);
    tr->rs->body = pv_buf_take(&body, &tr->rs->len);
}

void pv_serve_trace_tile(pv_request *rq, pv_response *rs)
{
    with_trace(rq, rs, do_tile);
}

/* ---- event --------------------------------------------------------------------- */

static void do_event(trace_req *tr)
{
    uint64_t id;
    if (uint_param(tr->rq, tr->rs, "id", UINT64_MAX, UINT64_MAX - 1, &id) != 0)
        return;
    if (id == UINT64_MAX) {
        pv_respond_error(tr->rs, 400, "missing parameter", "id is required");
        return;
    }
    pv_trace_event_query q = {id};
    pv_trace_event ev;
    pv_error err = {0};
    if (pv_tool_trace_event(tr->m, tr->ix, &q, &tr->rq->arena, &ev, &err) != 0) {
        pv_respond_pv_error(tr->rs, &err);
        return;
    }
    json_t *j = pv_trace_event_to_json(tr->m, tr->ix, &ev);
    if (j == NULL) {
        pv_respond_error(tr->rs, 500, "internal error", "the event could not be serialised");
        return;
    }
    tr->rs->cache_control = "public, max-age=31536000, immutable";
    pv_respond_json(tr->rs, 200, j);
}

void pv_serve_trace_event(pv_request *rq, pv_response *rs)
{
    with_trace(rq, rs, do_event);
}

/* ---- search -------------------------------------------------------------------- */

static void do_search(trace_req *tr)
{
    bool bad = false;
    const char *text = pv_http_param(tr->rq, "q", &bad);
    if (bad || text == NULL || text[0] == 0) {
        pv_respond_error(tr->rs, 400, bad ? "bad parameter" : "missing parameter",
                         "q must be non-empty UTF-8 text");
        return;
    }
    uint64_t offset, limit;
    if (uint_param(tr->rq, tr->rs, "offset", 0, UINT64_MAX - 1, &offset) != 0 ||
        uint_param(tr->rq, tr->rs, "limit", 100, PV_TRACE_SEARCH_MAX_LIMIT, &limit) != 0)
        return;
    pv_trace_search_query q = {text, offset, (uint32_t)limit};
    pv_trace_search r;
    pv_error err = {0};
    if (pv_tool_trace_search(tr->m, &q, &tr->rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(tr->rs, &err);
        return;
    }
    json_t *j = pv_trace_search_to_json(tr->m, tr->ix, &r);
    if (j == NULL) {
        pv_respond_error(tr->rs, 500, "internal error", "the results could not be serialised");
        return;
    }
    pv_respond_json(tr->rs, 200, j);
}

void pv_serve_trace_search(pv_request *rq, pv_response *rs)
{
    with_trace(rq, rs, do_search);
}
