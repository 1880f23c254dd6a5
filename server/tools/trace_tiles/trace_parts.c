/* trace_parts: each part's parameters, query and answer (trace_parts.h).
 * Limits that depend on the profile (a tile level past the deepest, an
 * index past its level's last) are checked where the profile is known,
 * in the part's writer, with the words the table's rules would use. */
#include "tools/trace_tiles/trace_parts.h"
#include "tools/common/json_out.h"
#include "tools/trace_tiles/trace_aggregate.h"
#include "tools/trace_tiles/trace_event.h"
#include "tools/trace_tiles/trace_index.h"
#include "tools/trace_tiles/trace_meta.h"
#include "tools/trace_tiles/trace_tiles.h"

#include <stdio.h>

/* A tile's biggest encoding: past it the tile is refused as too big. */
#define TILE_MAX_BYTES ((size_t)1 << 30)

/* ---- meta ------------------------------------------------------------------------ */

static int meta_write(const pv_part_input *in, const void *q, pv_arena *a, pv_buf *out,
                      pv_error *err)
{
    (void)q;
    pv_trace_meta meta;
    int rc = pv_tool_trace_meta(in->m, in->trace, a, &meta, err);
    if (rc != 0)
        return rc;
    json_t *j = pv_trace_meta_to_json(in->m, in->trace, &meta);
    /* Lets the client tell tiles of a changed file apart (&v= on tile URLs). */
    if (j != NULL)
        json_object_set_new(j, "source_id", json_string(in->source_tag));
    return pv_json_write(j, out, err);
}

/* ---- tile ------------------------------------------------------------------------ */

enum { TILE_LEVEL, TILE_INDEX, TILE_FORMAT };
static const char *const tile_formats[] = {"json", "bin", NULL};
static const pv_param_decl tile_params[] = {
    [TILE_LEVEL] = {"level", PV_PARAM_UINT, "the zoom level: 2^level tiles span the trace",
                    .max = 63},
    [TILE_INDEX] = {"index", PV_PARAM_UINT, "the tile's place in its level, from 0",
                    .max = UINT64_MAX},
    [TILE_FORMAT] = {"format", PV_PARAM_CHOICE, "JSON, or the binary encoding the page reads",
                     .choices = tile_formats},
};

typedef struct tile_query {
    uint32_t level;
    uint64_t index;
    bool bin;
} tile_query;

static int tile_query_of(const pv_param_values *v, void *out, pv_error *err)
{
    (void)err;
    tile_query *q = out;
    q->level = (uint32_t)pv_param_u(v, TILE_LEVEL);
    q->index = pv_param_u(v, TILE_INDEX);
    q->bin = pv_param_u(v, TILE_FORMAT) == 1;
    return 0;
}

/* The level and index within the trace's pyramid, in the rules' words. */
static int tile_in_range(const pv_trace_geom *g, const tile_query *q, pv_error *err)
{
    if (q->level > g->max_level)
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "level must be a whole number from 0 to %u", g->max_level);
    if (q->index > (1ull << q->level) - 1)
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "index must be a whole number from 0 to %llu",
                            (unsigned long long)((1ull << q->level) - 1));
    return 0;
}

static int tile_write(const pv_part_input *in, const void *qv, pv_arena *a, pv_buf *out,
                      pv_error *err)
{
    const tile_query *q = qv;
    const pv_trace_index *ix = in->trace;
    int rc = tile_in_range(&ix->geom, q, err);
    if (rc != 0)
        return rc;
    pv_trace_tile_query tq = {q->level, q->index};
    pv_trace_tile tile;
    rc = pv_trace_index_tile(in->m, ix, &tq, a, &tile, err);
    if (rc != 0)
        return rc;
    pv_buf counters;
    pv_buf_init(&counters, TILE_MAX_BYTES);
    if (q->bin) {
        rc = pv_trace_counters_tile_bin(ix, tile.start_ps, tile.end_ps, &counters);
        if (rc == 0)
            rc = pv_trace_tile_write_bin(in->m, &ix->geom, &tile, counters.data, counters.len, a,
                                         out);
    } else {
        rc = pv_trace_counters_tile_json(ix, tile.start_ps, tile.end_ps, &counters);
        if (rc == 0)
            rc = pv_trace_tile_write_json(in->m, &ix->geom, &tile, counters.data, a, out);
    }
    pv_buf_fini(&counters);
    if (rc != 0)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET, "the tile is larger than 1 GiB");
    return 0;
}

static const char *tile_type(const void *qv)
{
    return ((const tile_query *)qv)->bin ? "application/octet-stream" : "application/json";
}

/* JSON at level 1: it is made per request, and the default level would
 * cost more than the tile itself. A binary tile is compressed only when
 * small (trace_tiles.h says why). */
static int tile_gzip(const void *qv, size_t len)
{
    if (!((const tile_query *)qv)->bin)
        return 1;
    return len <= PV_TRACE_TILE_GZIP_MAX_BYTES ? 1 : -1;
}

static bool tile_kept(const void *qv)
{
    const tile_query *q = qv;
    return q->bin && q->level < PV_TRACE_KEPT_TILE_LEVELS;
}

/* ---- event ----------------------------------------------------------------------- */

enum { EVENT_ID };
static const pv_param_decl event_params[] = {
    [EVENT_ID] = {"id", PV_PARAM_UINT, "the event's id in the trace", .max = UINT64_MAX - 1,
                  .required = true},
};

static int event_query_of(const pv_param_values *v, void *out, pv_error *err)
{
    (void)err;
    ((pv_trace_event_query *)out)->id = pv_param_u(v, EVENT_ID);
    return 0;
}

static int event_write(const pv_part_input *in, const void *q, pv_arena *a, pv_buf *out,
                       pv_error *err)
{
    pv_trace_event ev;
    int rc = pv_tool_trace_event(in->m, in->trace, q, a, &ev, err);
    return rc != 0 ? rc : pv_json_write(pv_trace_event_to_json(in->m, in->trace, &ev), out, err);
}

/* ---- search ---------------------------------------------------------------------- */

enum { SEARCH_Q, SEARCH_OFFSET, SEARCH_LIMIT };
static const pv_param_decl search_params[] = {
    [SEARCH_Q] = {"q", PV_PARAM_TEXT, "the text searched for in every event's name",
                  .required = true},
    [SEARCH_OFFSET] = {"offset", PV_PARAM_UINT, "results skipped", .max = UINT64_MAX - 1},
    [SEARCH_LIMIT] = {"limit", PV_PARAM_UINT, "results given at most", .def = 100,
                      .max = PV_TRACE_SEARCH_MAX_LIMIT},
};

static int search_query_of(const pv_param_values *v, void *out, pv_error *err)
{
    pv_trace_search_query *q = out;
    q->text = pv_param_text_of(v, SEARCH_Q);
    if (q->text[0] == '\0')
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET, "q must be non-empty UTF-8 text");
    q->offset = pv_param_u(v, SEARCH_OFFSET);
    q->limit = (uint32_t)pv_param_u(v, SEARCH_LIMIT);
    return 0;
}

static int search_write(const pv_part_input *in, const void *q, pv_arena *a, pv_buf *out,
                        pv_error *err)
{
    pv_trace_search r;
    int rc = pv_tool_trace_search(in->m, in->trace, q, a, &r, err);
    return rc != 0 ? rc : pv_json_write(pv_trace_search_to_json(in->m, in->trace, &r), out, err);
}

/* ---- aggregate ------------------------------------------------------------------- */

enum { AGG_START, AGG_END, AGG_TRACKS };
static const pv_param_decl aggregate_params[] = {
    [AGG_START] = {"start_ps", PV_PARAM_UINT, "the box's start, in ps from the trace's start",
                   .max = INT64_MAX / 2},
    [AGG_END] = {"end_ps", PV_PARAM_UINT, "the box's end, in ps from the trace's start",
                 .max = INT64_MAX / 2},
    [AGG_TRACKS] = {"tracks", PV_PARAM_UINT_LIST, "the ids of the tracks in the box",
                    .max = UINT32_MAX, .max_items = PV_TRACE_AGGREGATE_MAX_TRACKS,
                    .required = true},
};

typedef struct aggregate_query {
    uint64_t start, end;          /* relative to the trace's start */
    const uint64_t *tracks;
    size_t n_tracks;
} aggregate_query;

static int aggregate_query_of(const pv_param_values *v, void *out, pv_error *err)
{
    (void)err;
    aggregate_query *q = out;
    q->start = pv_param_u(v, AGG_START);
    q->end = pv_param_u(v, AGG_END);
    const pv_param_value *t = pv_param_at(v, AGG_TRACKS, PV_PARAM_UINT_LIST);
    q->tracks = t->items;
    q->n_tracks = t->n_items;
    return 0;
}

static int aggregate_write(const pv_part_input *in, const void *qv, pv_arena *a, pv_buf *out,
                           pv_error *err)
{
    const aggregate_query *q = qv;
    uint32_t *ids = pv_arena_alloc(a, (q->n_tracks + 1) * sizeof *ids);
    for (size_t i = 0; i < q->n_tracks; i++)
        ids[i] = (uint32_t)q->tracks[i];
    int64_t t0 = in->trace->geom.t0_ps;
    pv_trace_aggregate_query tq = {t0 + (int64_t)q->start, t0 + (int64_t)q->end, q->n_tracks,
                                   ids};
    pv_trace_aggregate r;
    int rc = pv_tool_trace_aggregate(in->m, in->trace, &tq, a, &r, err);
    return rc != 0 ? rc : pv_json_write(pv_trace_aggregate_to_json(&r), out, err);
}

/* ---- the parts ---------------------------------------------------------------------- */

#define TABLE(decls) decls, sizeof(decls) / sizeof((decls)[0])

const pv_tool_part pv_trace_parts[PV_TRACE_N_PARTS] = {
    {"meta", NULL, 0, 1, NULL, meta_write, NULL, .needs_trace = true},
    /* A tile is a pure function of its source, its query and the program:
     * its tag is known before it is made. */
    {"tile", TABLE(tile_params), sizeof(tile_query), tile_query_of, tile_write, tile_type,
     .needs_trace = true, .immutable = true, .tag_from_key = true, .gzip_level = tile_gzip,
     .kept_beside = tile_kept},
    /* The page asks for events and boxes with the file's v=source_id, so
     * an answer never changes for its URL. */
    {"event", TABLE(event_params), sizeof(pv_trace_event_query), event_query_of, event_write,
     NULL, .needs_trace = true, .immutable = true},
    /* A search reads every event's name: an expensive answer. */
    {"search", TABLE(search_params), sizeof(pv_trace_search_query), search_query_of,
     search_write, NULL, .needs_trace = true, .heavy = true},
    {"aggregate", TABLE(aggregate_params), sizeof(aggregate_query), aggregate_query_of,
     aggregate_write, NULL, .needs_trace = true, .immutable = true},
};
