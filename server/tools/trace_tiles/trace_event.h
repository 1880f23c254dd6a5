/* trace_event and trace_search: one event's details with its flow
 * partners, and name search over the whole trace (docs/trace_api.md).
 * Pure functions of the model and its trace index; results live in the
 * caller's arena. */
#ifndef PV_TOOLS_TRACE_TILES_TRACE_EVENT_H
#define PV_TOOLS_TRACE_TILES_TRACE_EVENT_H

#include "model/model.h"
#include "tools/trace_tiles/trace_index.h"
#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- event details -------------------------------------------------------- */

typedef struct pv_trace_flow {
    uint64_t ev;        /* the partner */
    bool out;           /* this event is the source */
    bool launch;        /* linked by correlation id (else by flow id) */
} pv_trace_flow;

typedef struct pv_trace_event_query {
    uint64_t id;
} pv_trace_event_query;

typedef struct pv_trace_event {
    uint64_t ev;                  /* the event's id in the trace */
    uint32_t track;               /* its track's id in the trace */
    size_t n_flows;
    const pv_trace_flow *flows;   /* correlation partners, then flow partners */
} pv_trace_event;

/* The details of event q->id of the trace (trace_index.h: a derived
 * line's event has no flows). Returns 0, or PV_ENOTFOUND when the id
 * names no event. */
int pv_tool_trace_event(const pv_model *m, const pv_trace_index *ix,
                        const pv_trace_event_query *q, pv_arena *a, pv_trace_event *out,
                        pv_error *err);
json_t *pv_trace_event_to_json(const pv_model *m, const pv_trace_index *ix,
                               const pv_trace_event *r);

/* ---- search ------------------------------------------------------------------ */

#define PV_TRACE_SEARCH_MAX_LIMIT 1000u

typedef struct pv_trace_search_query {
    const char *text;   /* matched case-insensitively (ASCII) as a substring */
    uint64_t offset;
    uint32_t limit;     /* capped at PV_TRACE_SEARCH_MAX_LIMIT */
} pv_trace_search_query;

typedef struct pv_trace_search {
    uint64_t total;          /* every matching event */
    size_t n;
    const uint64_t *ids;     /* results [offset, offset + limit) by start, then id */
} pv_trace_search;

/* Searches m's events, and with ix (may be NULL) its derived lines' too,
 * by the names they are shown by (trace_index.h). Returns 0, or PV_EINVAL
 * for an empty text. */
int pv_tool_trace_search(const pv_model *m, const pv_trace_index *ix,
                         const pv_trace_search_query *q, pv_arena *a, pv_trace_search *out,
                         pv_error *err);
json_t *pv_trace_search_to_json(const pv_model *m, const pv_trace_index *ix,
                                const pv_trace_search *r);

#endif
