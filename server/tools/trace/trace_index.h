/* trace_index: what the trace viewer computes once per model and keeps:
 * the tile pyramid, the counter series and the flow index. A pure
 * function of the model; built on the first trace request and shared
 * read-only between requests afterwards (any thread may read it).
 *
 * Counters: memory in use (heap allocated + stack reserved bytes, the
 * allocator's state after the event) per allocator from MemoryAllocation /
 * MemoryDeallocation events, and one series per event name of each
 * `_counters_` line (value: the event's first numeric stat).
 * Flows: events sharing a correlation_id (host launch -> device
 * kernel/memcpy) and events sharing a flow id (FORMATS.md §3.4). */
#ifndef PV_TOOLS_TRACE_TRACE_INDEX_H
#define PV_TOOLS_TRACE_TRACE_INDEX_H

#include "model/model.h"
#include "tools/trace/trace_tiles.h"
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
    size_t n_counters;
    pv_trace_counter *counters;
    size_t n_corr;
    pv_trace_link *corr;   /* sorted by (key, ev) */
    size_t n_flows;
    pv_trace_link *flows;  /* sorted by (key, ev) */
    size_t bytes;          /* everything held, for the memory budget */
} pv_trace_index;

/* Builds the index of m (opts NULL = defaults), counting five passes of
 * m's events + 1 on opts->meter (the pyramid's three, counters, links). Returns 0 with *out set;
 * aborts only when memory runs out. */
int pv_trace_index_new(const pv_model *m, const pv_trace_pyramid_opts *opts,
                       pv_trace_index **out, pv_error *err);
void pv_trace_index_free(pv_trace_index *ix);

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
