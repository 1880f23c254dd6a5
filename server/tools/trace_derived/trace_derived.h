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
 * They are derived once per model and kept with it (pv_trace_derived_lines
 * below, a memo: model/memo.h), where the Chrome trace JSON
 * (tools/chrome_trace/) and the trace viewer's own routes (tools/trace_tiles/trace_index.h:
 * tracks, tiles, search, details) both read them.
 *
 * Ownership: pv_trace_derive's and pv_trace_derived_view's results live in
 * the caller's arena. Threads: any; the model is only read. */
#ifndef PV_TOOLS_TRACE_DERIVED_TRACE_DERIVED_H
#define PV_TOOLS_TRACE_DERIVED_TRACE_DERIVED_H

#include "model/model.h"
#include "util/arena.h"
#include "util/error.h"

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

/* True when m has a plane XProf derives lines on: a GPU or TPU plane
 * without derived lines of its own. Cheap (a look at the planes'
 * tracks); without one, pv_trace_derive gives nothing at all. */
bool pv_trace_derived_planes(const pv_model *m);

/* Derives every line of m into *out (no tracks when m has no GPU/TPU
 * plane). Call it only when pv_trace_derived_applies(m) (the caller often
 * knows already, and the test reads every stat). Cannot fail (allocation
 * failure aborts). */
void pv_trace_derive(const pv_model *m, pv_arena *a, pv_trace_derived *out);

/* ---- the lines kept with the model ------------------------------------- */

/* A host-offload event of the lines and the ops it joins. */
typedef struct pv_derived_offload {
    uint64_t ev;            /* event of the lines model */
    uint64_t start_event;   /* the "-start" op of m */
    uint64_t done_event;    /* the "-done" op of m */
} pv_derived_offload;

/* m's derived lines as a model of their own, `lines`, made by the model's
 * builder from pv_trace_derive's answer and kept with m as a memo (the
 * model file's bytes, read in place: one copy, counted with m's memos):
 *   planes  one per plane of m, same index, id and name;
 *   tracks  one per derived line, in pv_trace_derive's order: its name,
 *           kind, XProf's line id (line_id) and display id (display_id);
 *   events  one per derived event, in the same order within its track and
 *           with the same depth; its metadata is named by the full name,
 *           with the name shown as display name when the two differ (so
 *           pv_model_event_name gives the shown one); a step group as a
 *           group_id stat (ev_group).
 * Beside it, what only the Chrome JSON needs: where each line is shown
 * and XProf's numbering of the streams, and the ops of host-offload
 * events. lines is NULL when m has no derived line (no GPU or TPU plane,
 * or a file grouped by its producer: pv_trace_derived_applies). */
typedef struct pv_trace_derived_lines {
    pv_model *lines;
    const uint32_t *after;      /* per track of lines: pv_derived_track.after_track */
    const int64_t *track_tid;   /* per track of m: pv_trace_derived.track_tid, or NULL */
    size_t n_offload;
    const pv_derived_offload *offload; /* by ev */
    uint8_t *owned;             /* the memo's bytes when m could not keep them */
    size_t owned_len;           /* and their length, 0 when m keeps them */
} pv_trace_derived_lines;

/* The lines of m, derived on the first call for m and read from its memo
 * after. Returns 0 with *out filled (release it with
 * pv_trace_derived_lines_fini), or PV_EFORMAT with err filled when the
 * kept bytes do not read back (a memo of another layout). */
int pv_trace_derived_lines_get(const pv_model *m, pv_trace_derived_lines *out, pv_error *err);
void pv_trace_derived_lines_fini(pv_trace_derived_lines *l);

/* l as pv_trace_derive gives it, for the Chrome JSON: arrays in a, names
 * in l's model (keep l until out is done with). Cannot fail. */
void pv_trace_derived_view(const pv_trace_derived_lines *l, pv_arena *a, pv_trace_derived *out);

#endif
