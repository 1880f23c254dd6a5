/* trace_aggregate: the events of some tracks in a time window, summed by
 * name (docs/trace_api.md, api/trace/aggregate): what the trace viewer
 * shows for a box a person drags over the timeline, as Catapult's
 * selection table does. An event is in the box when its track is one of
 * the box's and it overlaps the window; its whole duration counts (wall),
 * and its self time is that minus the time of its children (the events one
 * level below it on its track that start inside it).
 *
 * The tracks may be the model's or its trace index's derived lines'
 * (trace_index.h, track ids from m->n_tracks); events are summed by the
 * name they are shown by (a step's name, "train 16", for a step marker).
 *
 * Pure function of the model; the result lives in the caller's arena.
 * Threads: any. */
#ifndef PV_TOOLS_TRACE_TILES_TRACE_AGGREGATE_H
#define PV_TOOLS_TRACE_TILES_TRACE_AGGREGATE_H

#include "model/model.h"
#include "tools/trace_tiles/trace_index.h"
#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The most tracks one box may name (more than any profile has lines). */
#define PV_TRACE_AGGREGATE_MAX_TRACKS 4096u

typedef struct pv_trace_aggregate_query {
    int64_t start_ps;         /* absolute, like the model's events */
    int64_t end_ps;           /* > start_ps */
    size_t n_tracks;
    const uint32_t *tracks;   /* track ids; duplicates count once */
} pv_trace_aggregate_query;

typedef struct pv_trace_aggregate_row {
    const char *name;         /* the name shown (pv_trace_event_shown_name) */
    uint64_t count;
    int64_t wall_ps;          /* sum of the events' durations */
    int64_t self_ps;          /* sum of their self times */
    int64_t min_ps;           /* shortest event */
    int64_t max_ps;           /* longest event */
} pv_trace_aggregate_row;

typedef struct pv_trace_aggregate {
    uint64_t n_events;        /* events in the box */
    size_t n_rows;
    pv_trace_aggregate_row *rows;  /* by wall time, longest first; ties by name */
} pv_trace_aggregate;

/* ix may be NULL (m's tracks only). Returns 0, or PV_EINVAL (err says
 * why) for an empty window or a track id the trace lacks. */
int pv_tool_trace_aggregate(const pv_model *m, const pv_trace_index *ix,
                            const pv_trace_aggregate_query *q, pv_arena *a,
                            pv_trace_aggregate *out, pv_error *err);

/* {"n_events":N,"rows":[{"name","count","wall_ps","self_ps","min_ps","max_ps"}]};
 * NULL when memory runs out. */
json_t *pv_trace_aggregate_to_json(const pv_trace_aggregate *r);

#endif
