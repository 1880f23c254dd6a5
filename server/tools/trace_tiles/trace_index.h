/* trace_index: what the trace viewer computes once per model and keeps:
 * the tile pyramid, the device lines XProf derives, the names of step
 * events, the counter series and the flow index. A pure function of the
 * model; built on the first trace request and shared read-only between
 * requests afterwards (any thread may read it).
 *
 * Derived lines (trace_derived.h: "XLA Ops - from #16", "Framework Ops",
 * ... on JAX GPU and TPU profiles) are tracks of their devices like the
 * file's own: the index keeps the model's derived lines (a model of their
 * own, kept with m as a memo) and their coarse tiles, and every route
 * reads them through ids that continue m's: derived track k is track
 * m->n_tracks + k, derived event e is event m->n_events + e. They have no
 * flows and no stats but their group.
 * Step names (trace_step_names.h): the events XProf shows by a step's
 * name ("train 16") are shown so in tiles, search, details and sums.
 *
 * Counters: memory in use (heap allocated + stack reserved bytes, the
 * allocator's state after the event) per allocator from MemoryAllocation /
 * MemoryDeallocation events, and one series per event name of each
 * `_counters_` line (value: the event's first numeric stat).
 * Flows: events sharing a correlation_id (host launch -> device
 * kernel/memcpy) and events sharing a flow id (FORMATS.md §3.4). */
#ifndef PV_TOOLS_TRACE_TILES_TRACE_INDEX_H
#define PV_TOOLS_TRACE_TILES_TRACE_INDEX_H

#include "model/model.h"
#include "tools/trace_derived/trace_derived.h"
#include "tools/trace_derived/trace_step_names.h"
#include "tools/trace_tiles/trace_tiles.h"
#include "util/buf.h"
#include "util/error.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pv_trace_counter {
    uint32_t plane;        /* plane the samples come from */
    char *name;            /* e.g. "Memory in use (bytes): GPU_0_bfc" */
    size_t n_points;
    int64_t *t_ps;         /* absolute, ascending */
    double *value;
    double min, max;
} pv_trace_counter;

typedef struct pv_trace_link {
    uint64_t key;          /* correlation id, or flow id */
    uint64_t ev;
} pv_trace_link;

typedef struct pv_trace_index {
    pv_trace_geom geom;
    pv_trace_pyramid *pyramid;
    pv_trace_derived_lines derived;     /* derived.lines NULL when none */
    pv_trace_pyramid *derived_pyramid;  /* its coarse tiles, in geom */
    pv_trace_step_names steps;
    size_t n_counters;
    pv_trace_counter *counters;
    size_t n_corr;
    pv_trace_link *corr;   /* sorted by (key, ev) */
    size_t n_flows;
    pv_trace_link *flows;  /* sorted by (key, ev) */
    size_t bytes;          /* everything held, for the memory budget */
    uint8_t *block;        /* a read-back index's bytes, which its arrays point
                              into (owned); NULL for a built one */
} pv_trace_index;

/* Builds the index of m (opts NULL = defaults), counting five passes of
 * m's events + 1 on opts->meter (the pyramid's three, counters, links).
 * Returns 0 with *out set, or an error with err filled when m's kept
 * derived lines do not read back (pv_trace_derived_lines_get); aborts when
 * memory runs out. */
int pv_trace_index_new(const pv_model *m, const pv_trace_pyramid_opts *opts,
                       pv_trace_index **out, pv_error *err);
void pv_trace_index_free(pv_trace_index *ix);

/* ---- keeping it across restarts --------------------------------------------- */

/* Appends ix, the index of m, to b as bytes pv_trace_index_read takes
 * back (b may drain them as it goes, util/buf.h). Returns 0 or b's error. */
int pv_trace_index_write(const pv_trace_index *ix, const pv_model *m, pv_buf *b);
/* The index pv_trace_index_write wrote for m (a model of the same file,
 * as the cache's key makes sure), read from the len bytes at data, which
 * it takes over (malloc'd, starting on 8 bytes) and uses in place. Every
 * count, offset and event id is checked against m first. Returns 0 with
 * *out set, or PV_EFORMAT with err filled (data then freed) when the
 * bytes are not such an index (another layout, another model). */
int pv_trace_index_read(const pv_model *m, uint8_t *data, size_t len, pv_trace_index **out,
                        pv_error *err);

/* ---- the trace's ids ------------------------------------------------------ */

/* The derived lines of ix (a model), or NULL. ix may be NULL. */
static inline const pv_model *pv_trace_index_lines(const pv_trace_index *ix)
{
    return ix != NULL ? ix->derived.lines : NULL;
}

/* Tracks and events of the trace: m's and ix's derived lines'. */
static inline uint32_t pv_trace_n_tracks(const pv_model *m, const pv_trace_index *ix)
{
    const pv_model *d = pv_trace_index_lines(ix);
    return m->n_tracks + (d != NULL ? d->n_tracks : 0);
}

static inline uint64_t pv_trace_n_events(const pv_model *m, const pv_trace_index *ix)
{
    const pv_model *d = pv_trace_index_lines(ix);
    return m->n_events + (d != NULL ? d->n_events : 0);
}

/* The model that track id *track of the trace lies in, with *track made
 * its index there (the caller checked it is below pv_trace_n_tracks). */
static inline const pv_model *pv_trace_track_model(const pv_model *m, const pv_trace_index *ix,
                                                   uint32_t *track)
{
    if (*track < m->n_tracks)
        return m;
    *track -= m->n_tracks;
    return pv_trace_index_lines(ix);
}

/* The same for an event id (below pv_trace_n_events). */
static inline const pv_model *pv_trace_event_model(const pv_model *m, const pv_trace_index *ix,
                                                   uint64_t *ev)
{
    if (*ev < m->n_events)
        return m;
    *ev -= m->n_events;
    return pv_trace_index_lines(ix);
}

/* The name event ev of em (m or ix's derived lines) is shown by: a step's
 * name, its display name, else its name. ix may be NULL. */
static inline const char *pv_trace_event_shown_name(const pv_model *m, const pv_trace_index *ix,
                                                    const pv_model *em, uint64_t ev)
{
    if (em == m && ix != NULL) {
        uint32_t sn = pv_trace_step_name_of(&ix->steps, m, ev);
        if (sn != 0)
            return pv_model_str(m, sn);
    }
    return pv_model_event_name(em, ev);
}

/* The tile q of the trace: m's rows and then the derived lines' rows
 * (trace_tiles.h, pv_tool_trace_tile). Returns 0, or PV_EINVAL when the
 * level or index is out of range. */
int pv_trace_index_tile(const pv_model *m, const pv_trace_index *ix,
                        const pv_trace_tile_query *q, pv_arena *a, pv_trace_tile *out,
                        pv_error *err);

/* The links of key in a sorted link array: [*first, *first + count). */
size_t pv_trace_links_find(const pv_trace_link *l, size_t n, uint64_t key, size_t *first);

/* Appends the tile's counter points as JSON, [{"id":c,"points":[[t,v],..]}]
 * with t relative to t0: the last point before the tile, then per pixel
 * inside it the first point, the largest value and the last point. Counters without a
 * point up to the tile's end are left out. Returns 0 or PV_ETOOBIG. */
int pv_trace_counters_tile_json(const pv_trace_index *ix, int64_t ts_ps, int64_t te_ps,
                                pv_buf *b);
/* The same points as the counters section of a binary tile
 * (docs/trace_api.md, "Binary tiles"), for pv_trace_tile_write_bin. */
int pv_trace_counters_tile_bin(const pv_trace_index *ix, int64_t ts_ps, int64_t te_ps,
                               pv_buf *b);

#endif
