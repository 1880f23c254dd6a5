/* trace_aggregate: sums the events of a box by name. Each track's levels
 * are walked through its per-depth index (each level sorted by start, its
 * events never overlapping), so an event's children are found by a binary
 * search on the level below instead of a scan of the track. */
#include "tools/trace/trace_aggregate.h"
#include "tools/trace/trace_tiles.h"
#include "util/sort.h"

#include <stdbool.h>
#include <string.h>

/* The first position in level [lo, hi) of t's depth index whose event
 * ends after t0: the one that starts at or after t0, or the one before it
 * when that one reaches past t0 (a level's events never overlap). */
static uint32_t first_ending_after(const pv_model *m, const pv_track *t, uint32_t lo, uint32_t hi,
                                   int64_t t0)
{
    uint32_t k = pv_trace_depth_lower_bound(m, t, lo, hi, t0);
    if (k > lo) {
        uint64_t e = t->first_event + t->depth_index[k - 1];
        if (m->ev_start_ps[e] + m->ev_dur_ps[e] > t0)
            return k - 1;
    }
    return k;
}

/* Time of the events on level d + 1 that start inside [s, s + dur). */
static int64_t children_ps(const pv_model *m, const pv_track *t, uint32_t d, int64_t s, int64_t dur)
{
    if (d + 1 >= t->n_depths)
        return 0;
    uint32_t lo = t->depth_start[d + 1], hi = t->depth_start[d + 2];
    int64_t sum = 0;
    for (uint32_t i = pv_trace_depth_lower_bound(m, t, lo, hi, s); i < hi; i++) {
        uint64_t c = t->first_event + t->depth_index[i];
        if (m->ev_start_ps[c] >= s + dur)
            break;
        sum += m->ev_dur_ps[c];
    }
    return sum;
}

static int row_cmp(const void *pa, const void *pb)
{
    const pv_trace_aggregate_row *a = pa, *b = pb;
    if (a->wall_ps != b->wall_ps)
        return a->wall_ps > b->wall_ps ? -1 : 1;
    return a->name < b->name ? -1 : a->name > b->name;
}

int pv_tool_trace_aggregate(const pv_model *m, const pv_trace_aggregate_query *q, pv_arena *a,
                            pv_trace_aggregate *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(q->end_ps > q->start_ps))
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "the window is empty: end_ps must be after start_ps");
    bool *seen = pv_arena_zalloc(a, (size_t)m->n_tracks + 1);
    /* Row of each name (string id), 0 = none yet, else index + 1. */
    uint32_t *row_of = pv_arena_zalloc(a, ((size_t)m->n_strings + 1) * sizeof *row_of);
    pv_trace_aggregate_row *rows = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = 0; k < q->n_tracks; k++) {
        uint32_t ti = q->tracks[k];
        if (ti >= m->n_tracks)
            return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                                "track %u is not a track of this profile", ti);
        if (seen[ti])
            continue;
        seen[ti] = true;
        const pv_track *t = &m->tracks[ti];
        for (uint32_t d = 0; d < t->n_depths; d++) {
            uint32_t hi = t->depth_start[d + 1];
            for (uint32_t i = first_ending_after(m, t, t->depth_start[d], hi, q->start_ps); i < hi;
                 i++) {
                uint64_t e = t->first_event + t->depth_index[i];
                int64_t s = m->ev_start_ps[e], dur = m->ev_dur_ps[e];
                /* An instant at the window's start is inside it too. */
                if (s >= q->end_ps)
                    break;
                const pv_event_meta *meta = &m->metas[m->ev_meta[e]];
                uint32_t name = meta->display_name != 0 ? meta->display_name : meta->name;
                if (row_of[name] == 0) {
                    if (n == cap) {
                        cap = cap != 0 ? 2 * cap : 64;
                        pv_trace_aggregate_row *grown = pv_arena_alloc(a, cap * sizeof *grown);
                        if (n > 0)
                            memcpy(grown, rows, n * sizeof *rows);
                        rows = grown;
                    }
                    rows[n] = (pv_trace_aggregate_row){name, 0, 0, 0, dur, dur};
                    row_of[name] = (uint32_t)++n;
                }
                pv_trace_aggregate_row *r = &rows[row_of[name] - 1];
                r->count++;
                r->wall_ps += dur;
                r->self_ps += dur - children_ps(m, t, d, s, dur);
                r->min_ps = dur < r->min_ps ? dur : r->min_ps;
                r->max_ps = dur > r->max_ps ? dur : r->max_ps;
                out->n_events++;
            }
        }
    }
    if (n > 1)
        pv_sort(rows, n, sizeof *rows, row_cmp);
    out->n_rows = n;
    out->rows = rows;
    return 0;
}

json_t *pv_trace_aggregate_to_json(const pv_model *m, const pv_trace_aggregate *r)
{
    json_t *rows = json_array();
    for (size_t i = 0; rows != NULL && i < r->n_rows; i++) {
        const pv_trace_aggregate_row *x = &r->rows[i];
        json_array_append_new(
            rows, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "name", pv_model_str(m, x->name),
                            "count", (json_int_t)x->count, "wall_ps", (json_int_t)x->wall_ps,
                            "self_ps", (json_int_t)x->self_ps, "min_ps", (json_int_t)x->min_ps,
                            "max_ps", (json_int_t)x->max_ps));
    }
    return json_pack("{s:I, s:o*}", "n_events", (json_int_t)r->n_events, "rows", rows);
}
