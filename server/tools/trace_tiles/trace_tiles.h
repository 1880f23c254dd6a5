/* trace_tiles: the trace viewer's zoom tiles (docs/trace_api.md).
 *
 * The span of a profile, [t0_ps, t0_ps + span_ps), is cut into 2^L tiles
 * at level L. A tile holds, per track, the events wide enough to see at
 * that level (dur >= one pixel = span / 2^L / PV_TRACE_TILE_PX) and
 * aggregate boxes for runs of smaller events, so every event is accounted
 * for at every level without sending every event.
 *
 * Coarse levels are precomputed once per model into a pv_trace_pyramid
 * (bottom-up: level C is cut from the sorted per-depth arrays, each
 * coarser level is merged from the one below, which gives exactly what
 * cutting it directly would). Finer levels are cut on demand: by the
 * choice of C a fine tile holds few enough events to scan, and blocks of
 * 64 small events that would merge into one box anyway pass in one step
 * (per-block summaries kept with the pyramid).
 *
 * Everything here is a pure function of the model. A finished pyramid is
 * immutable and may be read from any thread. */
#ifndef PV_TOOLS_TRACE_TILES_TRACE_TILES_H
#define PV_TOOLS_TRACE_TILES_TRACE_TILES_H

#include "model/model.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/progress.h"

#include <stddef.h>
#include <stdint.h>

#define PV_TRACE_TILE_PX 1024u   /* pixels a tile is cut for */
#define PV_TRACE_MAX_LEVELS 50u  /* levels never exceed this (2^49 tiles) */

/* ---- geometry --------------------------------------------------------- */

typedef struct pv_trace_geom {
    int64_t t0_ps;       /* absolute time of 0: the earliest event start */
    int64_t span_ps;     /* max end - t0 + 1, so an instant at the end is inside */
    uint32_t max_level;  /* finest level: tiles of at most 16384 ps */
} pv_trace_geom;

/* The geometry of m. Cannot fail; an empty model gets span 1, level 0. */
pv_trace_geom pv_trace_geom_of(const pv_model *m);

/* Absolute start of tile index at level (index may be 2^level: the end). */
int64_t pv_trace_tile_edge(const pv_trace_geom *g, uint32_t level, uint64_t index);

/* ---- results ------------------------------------------------------------ */

typedef struct pv_trace_box {
    int64_t start_ps;    /* absolute start of the first event */
    int64_t end_ps;      /* absolute end of the run (may pass the tile end) */
    int64_t busy_ps;     /* sum of the events' durations */
    uint64_t count;      /* events in the run */
    uint32_t depth;      /* nesting depth of every event in the run */
} pv_trace_box;

typedef struct pv_trace_row {
    uint32_t track;              /* the track's id in the trace: its index into
                                    model->tracks + the tile's track base */
    const pv_model *model;       /* the model the row's events are of */
    uint64_t event_base;         /* added to an event's id in model: its id in the trace */
    size_t n_events;
    const uint64_t *events;      /* wide event ids of model, by depth then start */
    size_t n_crossing;           /* of those, events that start before the tile */
    size_t n_boxes;
    const pv_trace_box *boxes;   /* by depth then start */
} pv_trace_row;

struct pv_trace_step_names;

typedef struct pv_trace_tile {
    uint32_t level;
    uint64_t index;
    int64_t start_ps;            /* absolute */
    int64_t end_ps;              /* absolute, exclusive */
    size_t n_rows;
    const pv_trace_row *rows;    /* tracks with content, by track id */
    /* The events of `named` shown by a step's name (trace_step_names.h),
     * or NULL; and a bound on the names the tile can show. */
    const struct pv_trace_step_names *steps;
    const pv_model *named;
    size_t max_names;
} pv_trace_tile;

typedef struct pv_trace_tile_query {
    uint32_t level;
    uint64_t index;
} pv_trace_tile_query;

/* ---- pyramid (precomputed coarse levels) ------------------------------ */

typedef struct pv_trace_pyramid pv_trace_pyramid;

typedef struct pv_trace_pyramid_opts {
    uint64_t max_cut_events;   /* cut on demand only tiles with at most this many events */
    size_t max_bytes;          /* bound on the pyramid's size */
    pv_meter *meter;           /* counts the build (pv_trace_index_new), or NULL */
    unsigned threads;          /* pv_trace_index_new's: 1 or 2; 0 chooses (two for a
                                  big model when the process may use two cores) */
} pv_trace_pyramid_opts;

/* Defaults: 2^20 events, 128 MiB, threads chosen. */
pv_trace_pyramid_opts pv_trace_pyramid_defaults(void);

/* Builds the coarse levels of m, cut in geometry g (NULL: m's own,
 * pv_trace_geom_of; another model's when m's events are shown beside its
 * events, as the index's derived lines are). Returns 0 with *out set
 * (free with pv_trace_pyramid_free); cannot fail otherwise than by
 * aborting when memory runs out, the int return keeps room for a cap.
 * The pyramid borrows nothing from m after it returns, but must only be
 * used with m and g. */
int pv_trace_pyramid_new(const pv_model *m, const pv_trace_geom *g,
                         const pv_trace_pyramid_opts *opts, pv_trace_pyramid **out,
                         pv_error *err);
void pv_trace_pyramid_free(pv_trace_pyramid *p);
/* Bytes held, for the memory budget. */
size_t pv_trace_pyramid_bytes(const pv_trace_pyramid *p);
/* Number of precomputed levels (levels 0 .. n-1 come from the pyramid). */
uint32_t pv_trace_pyramid_levels(const pv_trace_pyramid *p);

/* The first position k in [lo, hi), a range of one depth of t's depth
 * index, whose event starts at or after ts (hi when none does). Cannot
 * fail. */
uint32_t pv_trace_depth_lower_bound(const pv_model *m, const pv_track *t, uint32_t lo,
                                    uint32_t hi, int64_t ts);

/* ---- the tool --------------------------------------------------------- */

/* The tile q of m. p may be NULL (every level is then cut on demand).
 * Output arrays live in a. Returns 0, or PV_EINVAL when the level or index
 * is out of range. */
int pv_tool_trace_tile(const pv_model *m, const pv_trace_pyramid *p,
                       const pv_trace_tile_query *q, pv_arena *a, pv_trace_tile *out,
                       pv_error *err);

/* The rows of tile q of m cut in geometry g (a level and index inside
 * it), p made for m and g or NULL, with track ids from track_base and
 * event ids from event_base: what pv_tool_trace_tile gives for one model,
 * for a caller that puts the rows of several models in one tile. Rows in
 * a. Cannot fail. */
void pv_trace_tile_rows(const pv_model *m, const pv_trace_pyramid *p, const pv_trace_geom *g,
                        const pv_trace_tile_query *q, uint32_t track_base, uint64_t event_base,
                        pv_arena *a, size_t *n_rows, pv_trace_row **rows);

/* Appends the tile's JSON (docs/trace_api.md, without "counters" when
 * counters_json is NULL, else with it spliced in as given) to b. Written
 * straight into a buffer rather than through jansson because a coarse
 * tile can hold hundreds of thousands of numbers. Returns 0 or
 * PV_ETOOBIG when b's cap is reached. */
int pv_trace_tile_write_json(const pv_model *m, const pv_trace_geom *g, const pv_trace_tile *t,
                             const char *counters_json, pv_arena *a, pv_buf *b);

/* Binary tiles up to this size are served gzip'd (level 1, at most ~1.5 ms
 * of CPU): small tiles are mostly names, which gzip shrinks by half or
 * more; larger ones are mostly varints, which it shrinks by a quarter for
 * more time than making the tile (docs/trace_api.md). */
#define PV_TRACE_TILE_GZIP_MAX_BYTES ((size_t)64 << 10)

/* Appends the tile in the binary encoding (docs/trace_api.md, "Binary
 * tiles") to b, with counters[0 .. counters_len) spliced in as the
 * counters section (pv_trace_counters_tile_bin); NULL writes an empty
 * one. About a quarter of the JSON's bytes, and cheaper to compress and
 * to decode. Returns 0 or PV_ETOOBIG when b's cap is reached. */
int pv_trace_tile_write_bin(const pv_model *m, const pv_trace_geom *g, const pv_trace_tile *t,
                            const void *counters, size_t counters_len, pv_arena *a, pv_buf *b);

#endif
