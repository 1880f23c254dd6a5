/* trace_derived: the device lines XProf 2.24.2 derives when it converts an
 * XSpace that the profiler did not group (no group_id stat anywhere; a
 * grouped file already carries its own derived lines), computed from the
 * model without changing it (docs/compare.md, "Derived device lines"):
 *
 *   GPU planes, per stream (the first 16 streams: "Compute" streams first,
 *   then by event count; each stream renumbered as XProf numbers it):
 *   "Framework Name Scope - from #S",
 *   "Framework Ops - from #S", "XLA Modules - from #S", "XLA Ops - from #S"
 *   and "Source code - from #S", from the kernels' hlo_module / hlo_op /
 *   program_id stats and the op_name / op_type / source_file metadata of
 *   the matching instruction in the profile's HLO protos.
 *   TPU planes: "Framework Name Scope", "Framework Ops" and "Source code"
 *   from the ops' tf_op and source_info stats, and "Host Offload Ops row N"
 *   (one event per host-offload copy, start to done).
 *
 * Consecutive events with the same name and step group are merged into one
 * as XProf merges them (on a TPU, only across a gap of at most twice the
 * last event's duration when there is no group). Lines with no events are
 * left out.
 *
 * Ownership: everything lives in the caller's arena. Threads: any; the
 * model is only read. */
#ifndef PV_TOOLS_CHROME_TRACE_TRACE_DERIVED_H
#define PV_TOOLS_CHROME_TRACE_TRACE_DERIVED_H

#include "model/model.h"
#include "util/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PV_DERIVED_NO_EVENT UINT64_MAX

typedef struct pv_derived_event {
    int64_t start_ps;       /* absolute, as the model's events */
    int64_t dur_ps;
    const char *name;       /* the name shown (XProf's display name) */
    const char *long_name;  /* the full name when it differs from name, else NULL */
    int64_t group_id;       /* step group, PV_NO_GROUP when none */
    uint32_t depth;         /* nesting level within its track, 0 = top */
    uint64_t start_event;   /* host offload: the "-start" op (its shape_with_layout),
                               else PV_DERIVED_NO_EVENT */
    uint64_t done_event;    /* host offload: the "-done" op (its raw_bytes_accessed),
                               else PV_DERIVED_NO_EVENT */
} pv_derived_event;

typedef struct pv_derived_track {
    uint32_t plane;         /* index into m->planes */
    uint32_t after_track;   /* the model track (GPU stream) it is shown after;
                               UINT32_MAX: after all tracks of the plane */
    int64_t line_id;        /* XProf's line id */
    int64_t tid;            /* its display id, the thread id XProf writes: on a GPU
                               1 + the stream's display id + its place after it */
    uint32_t kind;          /* pv_track_kind */
    const char *name;       /* e.g. "XLA Ops - from #16" */
    uint64_t n_events;
    const pv_derived_event *events; /* sorted by start, ties longer first */
    uint32_t n_depths;      /* nesting levels in use */
} pv_derived_track;

typedef struct pv_trace_derived {
    size_t n_tracks;
    const pv_derived_track *tracks; /* by plane, in display order within each */
    /* Per model track, the display id XProf gives a GPU stream it derived
     * lines for (1 + 7 x its place in the derive order), 0 for the others
     * (their own display id stands); NULL when no stream was. */
    const int64_t *track_tid;
} pv_trace_derived;

/* ---- deriving ---------------------------------------------------------- */

/* True when XProf derives lines for m: no event, metadata or plane carries
 * a group_id stat (the file was not grouped when it was written). */
bool pv_trace_derived_applies(const pv_model *m);

/* Derives every line of m into *out (no tracks when m has no GPU/TPU
 * plane). Call it only when pv_trace_derived_applies(m) (the caller often
 * knows already, and the test reads every stat). Cannot fail (allocation
 * failure aborts). */
void pv_trace_derive(const pv_model *m, pv_arena *a, pv_trace_derived *out);

#endif
