/* trace_derived_offload: lays a TPU plane's host-offload copies out on
 * rows the way XProf's ProcessHostOffloadOpEvent does, for
 * trace_derived.c to show as its "Host Offload Ops row N" lines. It knows
 * the model and the derived event type, nothing of tracks or line ids: the
 * caller feeds it events and reads the rows back.
 *
 * One pv__offload serves one plane; zero it to start, pv__offload_fini
 * releases it. Event names live in the caller's arena. Not thread-safe;
 * the model is only read. */
#ifndef PV_TOOLS_TRACE_DERIVED_TRACE_DERIVED_OFFLOAD_H
#define PV_TOOLS_TRACE_DERIVED_TRACE_DERIVED_OFFLOAD_H

#include "tools/trace_derived/trace_derived.h"
#include "tools/trace_derived/trace_derived_priv.h"

/* XProf's row line ids run from kThreadIdHostOffloadOpStart to ...End:
 * 41 rows, the last one taking every copy once all are in use. */
#define PV__OFFLOAD_ROWS_MAX 41

/* The "-start" ops of one offload instruction still waiting for their
 * "-done", first in first out. */
typedef struct pv__offload_queue {
    char *name;          /* "offload-copy.2" */
    uint64_t *ev;
    size_t head, n, cap;
} pv__offload_queue;

typedef struct pv__offload_row {
    int64_t frontier_ps; /* the latest end of its events */
    pv_derived_event *ev;/* n events in the order laid out; depth unset */
    size_t n, cap;
} pv__offload_row;

typedef struct pv__offload {
    pv__offload_queue *q;
    size_t n_q;
    pv__offload_row rows[PV__OFFLOAD_ROWS_MAX];
    size_t n_rows;       /* rows in use, from 0 */
    text name;
} pv__offload;

/* ---- laying out --------------------------------------------------------- */

/* XProf's IsHostOffloadOpName for event e. Cannot fail. */
bool pv__offload_op(const pv_model *m, uint64_t e);
/* A start waits for its done; a done lays the pair out on a row (a done
 * with no start waiting is dropped). Allocation failure aborts. */
void pv__offload_add(pv__offload *h, const pv_model *m, pv_arena *a, uint64_t e);
/* Releases h's rows and queues (not the arena's names). */
void pv__offload_fini(pv__offload *h);

#endif
