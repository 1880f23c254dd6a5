/* api_trace: the trace viewer's own routes (docs/trace_api.md):
 * api/trace/meta, api/trace/tile, api/trace/event, api/trace/search,
 * api/trace/aggregate.
 * Each resolves run/host, holds the host's model and its trace index for
 * the request, runs one trace tool and serialises the result. */
#include "cache/store.h"
#include "http/http.h"
#include "http/limit.h"
#include "http/target.h"
#include "cache/trace_cache.h"
#include "tools/common/params.h"
#include "tools/trace_tiles/trace_aggregate.h"
#include "tools/trace_tiles/trace_event.h"
#include "tools/trace_tiles/trace_meta.h"
#include "tools/trace_tiles/trace_tiles.h"
#include "cache/disk.h"
#include "util/gzip.h"
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE_MAX_BYTES ((size_t)1 << 30)
/* How long a search waits for a slot before the 503 (limit.h). */
#define HEAVY_WAIT_MS 1500

typedef struct trace_req {
    pv_request *rq;
    pv_response *rs;
    const pv_model *m;
    const pv_trace_index *ix;
    const pv_host_file *xplane;
    pv_model_entry *entry;
    pv_trace_hold *hold;
    const char *root;          /* the logdir the file is below */
} trace_req;

typedef void (*trace_fn)(trace_req *tr);

/* Reads a whole-number parameter by the rules every route follows
 * (tools/common/params.h); absent gives def. Returns -1 with a 400 answer
 * when it is malformed or above max. */
static int uint_param(pv_request *rq, pv_response *rs, const char *name, uint64_t def,
                      uint64_t max, uint64_t *out)
{
    pv_params p = pv_http_params(rq);
    pv_error err = {0};
    if (pv_param_uint(&p, name, def, max, out, &err) != 0) {
        pv_respond_error(rs, 400, "bad parameter", err.reason);
        return -1;
    }
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
    pv_source src = {xplane->path, t.ix->logdir, xplane->id};
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
        trace_req tr = {rq, rs, m, ix, xplane, entry, hold, t.ix->logdir};
        fn(&tr);
    }
    pv_model_store_put(rq->app->models, entry);
    pv_http_target_release(rq, &t);
}

/* The identity of the request's source file. */
static pv_source source_of(const trace_req *tr)
{
    return (pv_source){tr->xplane->path, tr->root, tr->xplane->id};
}

/* ---- meta --------------------------------------------------------------------- */

static void do_meta(trace_req *tr)
{
    pv_trace_meta meta;
    pv_error err = {0};
    if (pv_tool_trace_meta(tr->m, tr->ix, &tr->rq->arena, &meta, &err) != 0) {
        pv_respond_pv_error(tr->rs, &err);
        return;
    }
    json_t *j = pv_trace_meta_to_json(tr->m, tr->ix, &meta);
    if (j == NULL) {
        pv_respond_error(tr->rs, 500, "internal error", "the track list could not be serialised");
        return;
    }
    /* Lets the client tell tiles of a changed file apart (&v= on tile URLs). */
    char id[17];
    pv_source src = source_of(tr);
    pv_trace_cache_source_id(&src, id);
    json_object_set_new(j, "source_id", json_string(id));
    pv_respond_json(tr->rs, 200, j);
}

void pv_serve_trace_meta(pv_request *rq, pv_response *rs)
{
    with_trace(rq, rs, do_meta);
}

/* ---- tile ---------------------------------------------------------------------- */

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

/* format=bin (what the browser asks for) or json (the default). Returns
 * -1 with a 400 answer for anything else. */
static int tile_format(trace_req *tr, bool *bin)
{
    static const char *const formats[] = {"json", "bin", NULL};
    pv_params p = pv_http_params(tr->rq);
    pv_error err = {0};
    unsigned format;
    if (pv_param_choice(&p, "format", formats, 0, &format, &err) != 0) {
        pv_respond_error(tr->rs, 400, "bad parameter", err.reason);
        return -1;
    }
    *bin = format == 1;
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
    char tag[17];
    pv_source src = source_of(tr);
    pv_trace_cache_tile_tag(&src, tr->rq->app->disk->program, (uint32_t)level, index, bin, tag);
    tr->rs->etag = pv_arena_strdup(&tr->rq->arena, tag);
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
        tr->rs->body_is_gzip = pv_trace_cache_is_gzip(kept, kept_len);
        return;
    }
    pv_trace_tile_query q = {(uint32_t)level, index};
    pv_trace_tile tile;
    pv_error err = {0};
    if (pv_trace_index_tile(tr->m, tr->ix, &q, &tr->rq->arena, &tile, &err) != 0) {
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
        pv_trace_cache_tile_send(tr->rq->app->models, tr->entry, tr->hold, (uint32_t)level, index,
                                 &body, &tr->rs->body, &tr->rs->len, &tr->rs->body_is_gzip);
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

/* Answers j, which never changes for this file (the page asks with the
 * file's v=source_id), or a 500 naming what could not be serialised when
 * j is NULL. */
static void send_immutable(trace_req *tr, json_t *j, const char *what)
{
    if (j == NULL) {
        char detail[96];
        snprintf(detail, sizeof detail, "%s could not be serialised", what);
        pv_respond_error(tr->rs, 500, "internal error", detail);
        return;
    }
    tr->rs->cache_control = "public, max-age=31536000, immutable";
    pv_respond_json(tr->rs, 200, j);
}

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
    send_immutable(tr, pv_trace_event_to_json(tr->m, tr->ix, &ev), "the event");
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
    /* A search reads every event's name: an expensive answer (limit.h). */
    if (!pv_limit_take(tr->rq->app->heavy, HEAVY_WAIT_MS)) {
        pv_respond_busy(tr->rs);
        return;
    }
    int rc = pv_tool_trace_search(tr->m, tr->ix, &q, &tr->rq->arena, &r, &err);
    pv_limit_give(tr->rq->app->heavy);
    if (rc != 0) {
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

/* ---- aggregate ------------------------------------------------------------------ */

/* Reads tracks=1,2,3 into ids (at most PV_TRACE_AGGREGATE_MAX_TRACKS).
 * Returns the count, or -1 with a 400 answer. */
static long track_list(trace_req *tr, uint32_t *ids)
{
    bool bad = false;
    const char *s = pv_http_param(tr->rq, "tracks", &bad);
    if (bad || s == NULL || s[0] == 0) {
        pv_respond_error(tr->rs, 400, bad ? "bad parameter" : "missing parameter",
                         "tracks must list track ids, e.g. tracks=3,4,7");
        return -1;
    }
    long n = 0;
    while (*s != 0) {
        char *end;
        unsigned long long v = (*s >= '0' && *s <= '9') ? strtoull(s, &end, 10) : 0;
        if (!(*s >= '0' && *s <= '9') || v > UINT32_MAX || (*end != ',' && *end != 0) ||
            n == PV_TRACE_AGGREGATE_MAX_TRACKS) {
            pv_respond_error(tr->rs, 400, "bad parameter",
                             "tracks must list at most 4096 track ids, e.g. tracks=3,4,7");
            return -1;
        }
        ids[n++] = (uint32_t)v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static void do_aggregate(trace_req *tr)
{
    uint64_t start, end;
    if (uint_param(tr->rq, tr->rs, "start_ps", 0, INT64_MAX / 2, &start) != 0 ||
        uint_param(tr->rq, tr->rs, "end_ps", 0, INT64_MAX / 2, &end) != 0)
        return;
    uint32_t *ids = pv_arena_alloc(&tr->rq->arena, PV_TRACE_AGGREGATE_MAX_TRACKS * sizeof *ids);
    long n = track_list(tr, ids);
    if (n < 0)
        return;
    int64_t t0 = tr->ix->geom.t0_ps;
    pv_trace_aggregate_query q = {t0 + (int64_t)start, t0 + (int64_t)end, (size_t)n, ids};
    pv_trace_aggregate r;
    pv_error err = {0};
    if (pv_tool_trace_aggregate(tr->m, tr->ix, &q, &tr->rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(tr->rs, &err);
        return;
    }
    send_immutable(tr, pv_trace_aggregate_to_json(&r), "the table");
}

void pv_serve_trace_aggregate(pv_request *rq, pv_response *rs)
{
    with_trace(rq, rs, do_aggregate);
}
