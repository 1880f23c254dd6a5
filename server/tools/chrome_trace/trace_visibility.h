/* trace_visibility: which events trace_viewer@ returns for a time window
 * at a resolution, decided the way XProf 2.24.2 decides it
 * (TraceViewerVisibility, the zoom levels of its LevelDB store and the
 * filter applied when a window is loaded; docs/trace_api.md says what we
 * follow and where we differ).
 *
 * Two steps, as in XProf. Once per trace, pv_trace_vis_levels gives every
 * event the coarsest zoom level at which it is visible over the whole
 * trace; the caller keeps the levels (tools/chrome_trace/trace_vis_levels.h
 * keeps them with the model). Then per request: describe the rows, add
 * the events the request reads (those at levels down to
 * pv_trace_vis_read_to that overlap the window), in any order, and decide
 * once; pv_trace_vis_kept() then says for each added event, by the order
 * it was added, whether it is written. Nothing here reads the model, so
 * hand-written event lists test the rule. Not thread-safe; one decider
 * per request, one levels run per caller. */
#ifndef PV_TOOLS_CHROME_TRACE_TRACE_VISIBILITY_H
#define PV_TOOLS_CHROME_TRACE_TRACE_VISIBILITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* XProf's zoom levels: 1 s, 100 ms, ... 1 ps. */
#define PV_TRACE_VIS_LEVELS 13

/* Below this many events XProf does not decimate at all. */
#define PV_TRACE_VIS_MIN_EVENTS 500000u

typedef struct pv_trace_vis_window {
    int64_t trace_begin_ps; /* earliest event start of the whole trace */
    int64_t trace_end_ps;   /* latest event end of the whole trace */
    int64_t start_ps;       /* asked window, absolute; INT64_MIN: trace begin */
    int64_t end_ps;         /* asked window, absolute; INT64_MAX: trace end */
    uint64_t resolution;    /* slots per row across the window; 0: no decimation */
} pv_trace_vis_window;

/* The visible span and the resolution in ps a window gives. */
typedef struct pv_trace_vis_span {
    int64_t begin_ps;       /* after clamping to the trace */
    int64_t end_ps;         /* inclusive: an event starting here overlaps */
    bool instant;           /* begin == end: XProf then shows everything */
    uint64_t resolution_ps; /* round(span / resolution); 0: no decimation */
} pv_trace_vis_span;

/* The span XProf derives from w. Cannot fail. */
void pv_trace_vis_span_of(const pv_trace_vis_window *w, pv_trace_vis_span *out);

/* True when an event [start, start + dur] overlaps s (ends inclusive, as
 * XProf's Timespan::Overlaps), or s is an instant. Cannot fail. */
bool pv_trace_vis_overlaps(const pv_trace_vis_span *s, int64_t start_ps, int64_t dur_ps);

/* The finest level a request at span s reads: events stored at finer
 * levels are not looked at. Cannot fail. */
unsigned pv_trace_vis_read_to(const pv_trace_vis_span *s);

/* ---- the levels of a whole trace -------------------------------------------------- */

/* A row: a thread (pid, tid), or one counter series (pid, its name). */
typedef struct pv_trace_vis_rowdef {
    int64_t pid, tid;       /* tids order rows as XProf's sort does */
    bool counter;
} pv_trace_vis_rowdef;

/* One event as a source hands it over. */
typedef struct pv_trace_vis_item {
    int64_t start_ps;
    int64_t dur_ps;         /* >= 0; 0 for counter samples */
    uint64_t flow;          /* the flow stat (FORMATS.md §3.4), 0 for none */
    uint32_t row;           /* index into the rows given to pv_trace_vis_levels */
    uint64_t key;           /* the source's, given back with the level */
} pv_trace_vis_item;

/* Where pv_trace_vis_levels reads the events: in groups of rows (a
 * thread, or every counter series of one line). open starts a group's
 * walk; next yields its events, each row's in XProf's order within a row
 * (start, longer first, name, then the order the Chrome JSON writes
 * them), rows interleaved as they come; with flows_only only the events
 * with a flow, and then a group must be one row. set_level gives an
 * event's level (0 .. PV_TRACE_VIS_LEVELS - 1). */
typedef struct pv_trace_vis_source {
    void *ctx;
    size_t n_groups;
    void (*open)(void *ctx, size_t group, bool flows_only);
    bool (*next)(void *ctx, size_t group, pv_trace_vis_item *out);
    void (*set_level)(void *ctx, size_t group, const pv_trace_vis_item *it, unsigned level);
} pv_trace_vis_source;

/* Gives every event of src its level, as XProf's store assigns them:
 * the flows first, over every row at once in XProf's order (start, longer
 * first, row), then each group alone. Holds a state per row and level and
 * one entry per flow, nothing per event. Aborts only when memory runs
 * out. */
void pv_trace_vis_levels(const pv_trace_vis_rowdef *rows, size_t n_rows,
                         const pv_trace_vis_source *src);

/* ---- one request ----------------------------------------------------------------- */

typedef struct pv_trace_vis pv_trace_vis;

/* A decider for span s. Aborts only when memory runs out. */
pv_trace_vis *pv_trace_vis_new(const pv_trace_vis_span *s);
void pv_trace_vis_free(pv_trace_vis *v);

/* Declares a row; returns its id for pv_trace_vis_add. pid/tid order ties
 * as XProf's sort does; a counter row is one (pid, counter name) series. */
uint32_t pv_trace_vis_row(pv_trace_vis *v, int64_t pid, int64_t tid, bool counter);

/* Adds an event the request reads: stored at a level down to
 * pv_trace_vis_read_to and overlapping the span. name breaks ties of
 * events that start together with the same duration on one (pid, tid)
 * and must stay valid until pv_trace_vis_decide returns. flow is the
 * event's flow stat value (FORMATS.md §3.4: id in bits 2..57, direction
 * in bits 0..1), 0 for none. */
void pv_trace_vis_add(pv_trace_vis *v, uint32_t row, int64_t start_ps, int64_t dur_ps,
                      const char *name, uint64_t flow);

/* Number of events added so far. */
size_t pv_trace_vis_count(const pv_trace_vis *v);

/* Decides every added event: XProf's filter at the span's resolution, in
 * XProf's order (start, longer first, pid, tid, name). Call once, after
 * the last add. */
void pv_trace_vis_decide(pv_trace_vis *v);

/* Whether the i-th added event is written. */
bool pv_trace_vis_kept(const pv_trace_vis *v, size_t i);

#endif
