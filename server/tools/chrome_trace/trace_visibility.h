/* trace_visibility: which events trace_viewer@ returns for a time window
 * at a resolution, decided the way XProf 2.24.2 decides it
 * (TraceViewerVisibility, the zoom levels of its LevelDB store and the
 * filter applied when a window is loaded; docs/trace_api.md says what we
 * follow and where we differ).
 *
 * Use: describe the rows (threads and counter series), add every event the
 * Chrome JSON would write, in any order, then decide once; afterwards
 * pv_trace_vis_kept() says for each added event, by the order it was
 * added, whether it is written. Nothing here reads the model, so a
 * hand-written event list tests the rule. Not thread-safe; one per
 * request. */
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

typedef struct pv_trace_vis pv_trace_vis;

/* The span XProf derives from w. Cannot fail. */
void pv_trace_vis_span_of(const pv_trace_vis_window *w, pv_trace_vis_span *out);

/* True when an event [start, start + dur] overlaps s (ends inclusive, as
 * XProf's Timespan::Overlaps), or s is an instant. Cannot fail. */
bool pv_trace_vis_overlaps(const pv_trace_vis_span *s, int64_t start_ps, int64_t dur_ps);

/* A decider for span s. Aborts only when memory runs out. */
pv_trace_vis *pv_trace_vis_new(const pv_trace_vis_span *s);
void pv_trace_vis_free(pv_trace_vis *v);

/* Declares a row; returns its id for pv_trace_vis_add. pid/tid order ties
 * as XProf's sort does; a counter row is one (pid, counter name) series. */
uint32_t pv_trace_vis_row(pv_trace_vis *v, int64_t pid, int64_t tid, bool counter);

/* Adds an event of row (counters: dur 0). name breaks ties of events that
 * start together with the same duration on one (pid, tid) and must stay
 * valid until pv_trace_vis_decide returns. flow is the event's flow stat
 * value (FORMATS.md §3.4: id in bits 2..57, direction in bits 0..1), 0
 * for none. */
void pv_trace_vis_add(pv_trace_vis *v, uint32_t row, int64_t start_ps, int64_t dur_ps,
                      const char *name, uint64_t flow);

/* Number of events added so far. */
size_t pv_trace_vis_count(const pv_trace_vis *v);

/* Decides every added event. Call once, after the last add. */
void pv_trace_vis_decide(pv_trace_vis *v);

/* Whether the i-th added event is written. */
bool pv_trace_vis_kept(const pv_trace_vis *v, size_t i);

#endif
