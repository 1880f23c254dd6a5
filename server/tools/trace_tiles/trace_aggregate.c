/* trace_aggregate: sums the events of a box by name. Each track's levels
 * are walked through its per-depth index (each level sorted by start, its
 * events never overlapping), so an event's children are found by a binary
 * search on the level below instead of a scan of the track. */
#include "tools/trace_tiles/trace_aggregate.h"
#include "tools/trace_tiles/trace_tiles.h"
#include "util/hashtab.h"
#include "util/sort.h"

#include <stdbool.h>
#include <stdint.h>
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
    return strcmp(a->name, b->name);
}

static int row_name_cmp(const void *pa, const void *pb)
{
    const pv_trace_aggregate_row *a = pa, *b = pb;
    return strcmp(a->name, b->name);
}

/* Rows are keyed by the address of their name, a model's interned
 * string; the same text from the model and its derived lines makes two
 * rows, merged here. */
static size_t merge_equal_names(pv_trace_aggregate_row *rows, size_t n)
{
    if (n < 2)
        return n;
    pv_sort(rows, n, sizeof *rows, row_name_cmp);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        pv_trace_aggregate_row *r = &rows[k];
        if (strcmp(rows[i].name, r->name) != 0) {
            rows[++k] = rows[i];
            continue;
        }
        r->count += rows[i].count;
        r->wall_ps += rows[i].wall_ps;
        r->self_ps += rows[i].self_ps;
        r->min_ps = rows[i].min_ps < r->min_ps ? rows[i].min_ps : r->min_ps;
        r->max_ps = rows[i].max_ps > r->max_ps ? rows[i].max_ps : r->max_ps;
    }
    return k + 1;
}

int pv_tool_trace_aggregate(const pv_model *m, const pv_trace_index *ix,
                            const pv_trace_aggregate_query *q, pv_arena *a,
                            pv_trace_aggregate *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(q->end_ps > q->start_ps))
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "the window is empty: end_ps must be after start_ps");
    uint32_t n_tracks = pv_trace_n_tracks(m, ix);
    bool *seen = pv_arena_zalloc(a, (size_t)n_tracks + 1);
    /* Row of each name (by its address), as index + 0 */
    pv_hashtab row_of = {0};
    pv_trace_aggregate_row *rows = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (size_t k = 0; k < q->n_tracks && rc == 0; k++) {
        uint32_t ti = q->tracks[k];
        if (ti >= n_tracks) {
            rc = pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                              "track %u is not a track of this profile", ti);
            break;
        }
        if (seen[ti])
            continue;
        seen[ti] = true;
        const pv_model *tm = pv_trace_track_model(m, ix, &ti);
        const pv_track *t = &tm->tracks[ti];
        for (uint32_t d = 0; d < t->n_depths; d++) {
            uint32_t hi = t->depth_start[d + 1];
            for (uint32_t i = first_ending_after(tm, t, t->depth_start[d], hi, q->start_ps);
                 i < hi; i++) {
                uint64_t e = t->first_event + t->depth_index[i];
                int64_t s = tm->ev_start_ps[e], dur = tm->ev_dur_ps[e];
                /* An instant at the window's start is inside it too. */
                if (s >= q->end_ps)
                    break;
                const char *name = pv_trace_event_shown_name(m, ix, tm, e);
                uint32_t at = pv_hashtab_u64_add(&row_of, (uint64_t)(uintptr_t)name, (uint32_t)n);
                if (at == n) {
                    if (n == cap) {
                        cap = cap != 0 ? 2 * cap : 64;
                        pv_trace_aggregate_row *grown = pv_arena_alloc(a, cap * sizeof *grown);
                        if (n > 0)
                            memcpy(grown, rows, n * sizeof *rows);
                        rows = grown;
                    }
                    rows[n++] = (pv_trace_aggregate_row){name, 0, 0, 0, dur, dur};
                }
                pv_trace_aggregate_row *r = &rows[at];
                r->count++;
                r->wall_ps += dur;
                r->self_ps += dur - children_ps(tm, t, d, s, dur);
                r->min_ps = dur < r->min_ps ? dur : r->min_ps;
                r->max_ps = dur > r->max_ps ? dur : r->max_ps;
                out->n_events++;
            }
        }
    }
    pv_hashtab_fini(&row_of);
    if (rc != 0) {
        out->n_events = 0;
        return rc;
    }
    n = merge_equal_names(rows, n);
    if (n > 1)
        pv_sort(rows, n, sizeof *rows, row_cmp);
    out->n_rows = n;
    out->rows = rows;
    return 0;
}

json_t *pv_trace_aggregate_to_json(const pv_trace_aggregate *r)
{
    json_t *rows = json_array();
    for (size_t i = 0; rows != NULL && i < r->n_rows; i++) {
        const pv_trace_aggregate_row *x = &r->rows[i];
        json_array_append_new(
            rows, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "name", x->name, "count",
                            (json_int_t)x->count, "wall_ps", (json_int_t)x->wall_ps, "self_ps",
                            (json_int_t)x->self_ps, "min_ps", (json_int_t)x->min_ps, "max_ps",
                            (json_int_t)x->max_ps));
    }
    return json_pack("{s:I, s:o*}", "n_events", (json_int_t)r->n_events, "rows", rows);
}
