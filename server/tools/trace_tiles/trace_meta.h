/* trace_meta: the trace viewer's track list (docs/trace_api.md, meta
 * route): planes as processes in the order a person expects (host, then
 * devices by ordinal, custom planes, the rest), lines as threads (derived
 * lines first as TensorBoard shows them, then threads and streams by
 * display id), and the process ids the reference's Chrome trace uses.
 * Pure functions of the model; results live in the caller's arena. */
#ifndef PV_TOOLS_TRACE_TILES_TRACE_META_H
#define PV_TOOLS_TRACE_TILES_TRACE_META_H

#include "model/model.h"
#include "tools/trace_tiles/trace_index.h"
#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_trace_process {
    uint32_t plane;          /* index into m->planes */
    int64_t pid;
    size_t n_threads;
    const uint32_t *tracks;  /* track ids in display order */
} pv_trace_process;

typedef struct pv_trace_meta {
    pv_trace_geom geom;
    size_t n_processes;
    const pv_trace_process *processes;
} pv_trace_meta;

/* Fills out for m, and with ix (may be NULL) for ix's derived lines too
 * (trace_index.h: track ids from m->n_tracks), each placed as XProf
 * places it: a GPU stream's lines right after the stream, in line id
 * order (Framework Name Scope, Framework Ops, XLA Modules, XLA Ops,
 * Source code), with the streams XProf renumbers in its order (by its
 * display id: the "Compute" streams, then by events); a TPU's lines
 * after the plane's own, by line id. Cannot fail (the int keeps the
 * tool shape). */
int pv_tool_trace_meta(const pv_model *m, const pv_trace_index *ix, pv_arena *a,
                       pv_trace_meta *out, pv_error *err);

/* The meta route's JSON (counters and derived lines from ix). New
 * reference; NULL only when memory runs out. */
json_t *pv_trace_meta_to_json(const pv_model *m, const pv_trace_index *ix,
                              const pv_trace_meta *meta);

/* The Chrome-trace pid of a plane: host 701, devices 1 + ordinal (or id)
 * up to 500, custom planes 501 + id, others 1001 + index; a pid already
 * taken by an earlier plane becomes 1001 + index. Cannot fail. */
int64_t pv_trace_plane_pid(const pv_model *m, uint32_t plane);

/* The thread id of a track: its display id. */
int64_t pv_trace_track_tid(const pv_model *m, uint32_t track);

/* "plain", "steps", ... for a pv_track_kind. */
const char *pv_trace_track_kind_name(uint32_t kind);

#endif
