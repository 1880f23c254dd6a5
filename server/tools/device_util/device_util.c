/* device_util: busy spans per device, the window, buckets and gaps
 * (device_util.h). Each device's top-level events are gathered from all its
 * lines, sorted by start and merged into disjoint busy spans; buckets and
 * gaps are then read off the spans in one pass each. */
#include "tools/device_util/device_util.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

typedef struct span {
    int64_t start_ps;
    int64_t end_ps;
} span;

#define SPAN_BEFORE(a, b) ((a)->start_ps < (b)->start_ps)
PV_MERGE_SORT(sort_spans, span, SPAN_BEFORE)

/* The lines whose events are the device's work: GPU streams, or a TPU's op
 * line (its other lines repeat the same time as modules and steps). */
static bool work_line(const pv_plane *pl, const pv_track *t)
{
    if (pl->kind == PV_PLANE_GPU)
        return t->kind == PV_TRACK_PLAIN;
    return pl->kind == PV_PLANE_TPU && t->kind == PV_TRACK_XLA_OPS;
}

/* The busy spans of plane pl, disjoint and in order, malloc'd into *out;
 * returns their count (0 and *out NULL when the device ran nothing). */
static size_t busy_spans(const pv_model *m, const pv_plane *pl, span **out)
{
    size_t n = 0;
    for (uint32_t ti = pl->first_track; ti < pl->first_track + pl->n_tracks; ti++)
        if (work_line(pl, &m->tracks[ti]))
            n += m->tracks[ti].n_events;
    *out = NULL;
    if (n == 0)
        return 0;
    span *s = pv_xmalloc(n * sizeof *s);
    size_t k = 0;
    for (uint32_t ti = pl->first_track; ti < pl->first_track + pl->n_tracks; ti++) {
        const pv_track *t = &m->tracks[ti];
        if (!work_line(pl, t))
            continue;
        /* Nested events lie inside their parent: the top level covers all. */
        for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++)
            if (m->ev_depth[e] == 0)
                s[k++] = (span){m->ev_start_ps[e], m->ev_start_ps[e] + m->ev_dur_ps[e]};
    }
    sort_spans(s, k);
    size_t w = 0;
    for (size_t i = 0; i < k; i++) {
        if (w > 0 && s[i].start_ps <= s[w - 1].end_ps) {
            if (s[i].end_ps > s[w - 1].end_ps)
                s[w - 1].end_ps = s[i].end_ps;
        } else {
            s[w++] = s[i];
        }
    }
    *out = s;
    return w;
}

int64_t pv_device_util_edge_ps(const pv_device_util_result *r, uint32_t i)
{
    if (r->n_buckets == 0)
        return 0;
    return (int64_t)((__int128)r->window_ps * i / r->n_buckets);
}

/* Adds the busy time of each span to the buckets it covers. */
static void fill_buckets(const pv_device_util_result *r, const span *s, size_t n, int64_t *busy)
{
    uint32_t b = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t from = s[i].start_ps - r->window_start_ps;
        int64_t to = s[i].end_ps - r->window_start_ps;
        while (b + 1 < r->n_buckets && pv_device_util_edge_ps(r, b + 1) <= from)
            b++;
        for (uint32_t k = b; k < r->n_buckets && from < to; k++) {
            int64_t edge = pv_device_util_edge_ps(r, k + 1);
            int64_t upto = to < edge ? to : edge;
            if (upto > from)
                busy[k] += upto - from;
            from = upto;
        }
    }
}

/* Keeps gap g among the longest, longest first. */
static void keep_longest(pv_device_util *d, pv_idle_gap g)
{
    size_t at = d->n_longest;
    while (at > 0 && d->longest[at - 1].dur_ps < g.dur_ps)
        at--;
    if (at >= PV_DEVICE_UTIL_GAPS)
        return;
    size_t last = d->n_longest < PV_DEVICE_UTIL_GAPS ? d->n_longest : PV_DEVICE_UTIL_GAPS - 1;
    memmove(&d->longest[at + 1], &d->longest[at], (last - at) * sizeof d->longest[0]);
    d->longest[at] = g;
    if (d->n_longest < PV_DEVICE_UTIL_GAPS)
        d->n_longest++;
}

static void find_gaps(const pv_device_util_result *r, const span *s, size_t n, pv_device_util *d)
{
    int64_t min_ps = r->window_ps / 100;
    int64_t at = r->window_start_ps;
    for (size_t i = 0; i <= n; i++) {
        int64_t next = i < n ? s[i].start_ps : r->window_start_ps + r->window_ps;
        if (next > at) {
            pv_idle_gap g = {at - r->window_start_ps, next - at};
            if (g.dur_ps >= min_ps)
                d->n_gaps++;
            keep_longest(d, g);
        }
        if (i < n)
            at = s[i].end_ps;
    }
}

int pv_tool_device_util(const pv_model *m, const pv_device_util_query *q, pv_arena *a,
                        pv_device_util_result *out, pv_error *err)
{
    (void)err;
    memset(out, 0, sizeof *out);
    out->t0_ps = m->min_ps;
    uint32_t want = q != NULL && q->n_buckets > 0 ? q->n_buckets : PV_DEVICE_UTIL_BUCKETS;
    span **spans = pv_xcalloc(m->n_planes + 1u, sizeof *spans);
    size_t *n_spans = pv_xcalloc(m->n_planes + 1u, sizeof *n_spans);
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        n_spans[p] = busy_spans(m, &m->planes[p], &spans[p]);
        if (n_spans[p] == 0)
            continue;
        out->n_devices++;
        if (spans[p][0].start_ps < first)
            first = spans[p][0].start_ps;
        if (spans[p][n_spans[p] - 1].end_ps > last)
            last = spans[p][n_spans[p] - 1].end_ps;
    }
    if (out->n_devices > 0 && last > first) {
        out->window_start_ps = first;
        out->window_ps = last - first;
        out->n_buckets = (int64_t)want < out->window_ps ? want : (uint32_t)out->window_ps;
    } else {
        out->n_devices = 0;
    }
    out->devices = pv_arena_zalloc(a, (out->n_devices + 1) * sizeof *out->devices);
    int64_t *busy = pv_xcalloc(out->n_buckets + 1u, sizeof *busy);
    size_t k = 0;
    for (uint32_t p = 0; p < m->n_planes && out->n_devices > 0; p++) {
        if (n_spans[p] == 0)
            continue;
        pv_device_util *d = &out->devices[k++];
        d->plane = p;
        d->name = pv_model_str(m, m->planes[p].name);
        memset(busy, 0, out->n_buckets * sizeof *busy);
        fill_buckets(out, spans[p], n_spans[p], busy);
        d->busy_percent = pv_arena_alloc(a, (out->n_buckets + 1u) * sizeof *d->busy_percent);
        for (uint32_t b = 0; b < out->n_buckets; b++) {
            int64_t w = pv_device_util_edge_ps(out, b + 1) - pv_device_util_edge_ps(out, b);
            d->busy_percent[b] = 100.0 * (double)busy[b] / (double)w;
            d->busy_ps += busy[b];
        }
        d->mean_percent = 100.0 * (double)d->busy_ps / (double)out->window_ps;
        out->mean_percent += d->mean_percent / (double)out->n_devices;
        find_gaps(out, spans[p], n_spans[p], d);
    }
    for (uint32_t p = 0; p < m->n_planes; p++)
        free(spans[p]);
    free(spans);
    free(n_spans);
    free(busy);
    return 0;
}
