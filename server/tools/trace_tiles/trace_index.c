/* trace_index: counters, flow links and the pyramid of one model. */
#include "tools/trace_tiles/trace_index.h"
#include "tools/device_util/device_util.h"
#include "tools/trace_tiles/trace_bin.h"

#include "tools/common/json_stream.h"
#include "util/bsearch.h"
#include "util/handoff.h"
#include "util/mem.h"
#include "util/sort.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- counters ---------------------------------------------------------------- */

typedef struct sample {
    uint32_t series;   /* index into the series being built */
    int64_t t_ps;
    uint64_t ev;       /* tie-break: samples at one time keep event order */
    double value;
} sample;

enum { COUNTER_MEMORY, COUNTER_LINE, COUNTER_UTIL };

/* Buckets of the device utilization track: about a point per pixel of the
 * whole trace at full width; zoomed in, it is a step chart of them. */
#define UTIL_BUCKETS 2000

typedef struct series_key {
    uint32_t plane;
    uint32_t kind;     /* COUNTER_MEMORY, _LINE or _UTIL */
    uint32_t name;     /* allocator / event name string id */
} series_key;

typedef struct builder {
    series_key *keys;
    size_t n_keys, cap_keys;
    sample *samples;
    size_t n_samples, cap_samples;
} builder;

static void builder_fini(builder *b)
{
    free(b->keys);
    free(b->samples);
}

static uint32_t series_of(builder *b, series_key k)
{
    /* Few series (one per allocator or counter name): a linear scan. */
    for (size_t i = 0; i < b->n_keys; i++)
        if (b->keys[i].plane == k.plane && b->keys[i].kind == k.kind &&
            b->keys[i].name == k.name)
            return (uint32_t)i;
    if (b->n_keys == b->cap_keys) {
        b->cap_keys = b->cap_keys ? 2 * b->cap_keys : 8;
        b->keys = pv_xrealloc(b->keys, b->cap_keys * sizeof *b->keys);
    }
    b->keys[b->n_keys] = k;
    return (uint32_t)b->n_keys++;
}

static void add_sample(builder *b, uint32_t series, int64_t t, uint64_t ev, double v)
{
    if (b->n_samples == b->cap_samples) {
        b->cap_samples = b->cap_samples ? 2 * b->cap_samples : 1024;
        b->samples = pv_xrealloc(b->samples, b->cap_samples * sizeof *b->samples);
    }
    b->samples[b->n_samples++] = (sample){series, t, ev, v};
}

/* Of two samples of one series, whether a comes first: by time, then event. */
static inline bool sample_before_in_series(const sample *a, const sample *b)
{
    return a->t_ps != b->t_ps ? a->t_ps < b->t_ps : a->ev < b->ev;
}

/* Samples come series by series in time order but for a few (a trace's
 * samples mostly are): the typed merge sort passes over them once, where
 * qsort did all its passes through a call a comparison. */
static inline bool sample_before(const sample *a, const sample *b)
{
    return a->series != b->series ? a->series < b->series : sample_before_in_series(a, b);
}

PV_MERGE_SORT(sort_samples, sample, sample_before)

/* The first numeric stat of ev (metadata stats first), or 0 when none. */
static int first_number(const pv_model *m, uint64_t ev, double *v)
{
    const pv_event_meta *meta = &m->metas[m->ev_meta[ev]];
    pv_stat own[16];
    size_t n_own = pv_model_event_own_stats(m, ev, own, 16);
    const pv_stat *ranges[2] = {m->stats + meta->first_stat, own};
    uint64_t lens[2] = {meta->n_stats, n_own < 16 ? n_own : 16};
    for (int r = 1; r >= 0; r--) {   /* own stats win, as everywhere */
        for (uint64_t i = 0; i < lens[r]; i++) {
            const pv_stat *s = &ranges[r][i];
            if (s->type == PV_STAT_I64)
                *v = (double)s->v.i64;
            else if (s->type == PV_STAT_U64)
                *v = (double)s->v.u64;
            else if (s->type == PV_STAT_F64)
                *v = s->v.f64;
            else
                continue;
            return 1;
        }
    }
    return 0;
}

/* One series per device: its busy share (device_util.h) from the start of
 * each bucket, and 0 once the window ends. A share is drawn as a step, so
 * only the buckets where it changes need a point: idle stretches cost none. */
static void add_utilization(const pv_model *m, builder *b)
{
    pv_arena a;
    pv_arena_init(&a, 65536);
    pv_device_util_result r;
    pv_device_util_query q = {UTIL_BUCKETS};
    pv_tool_device_util(m, &q, &a, &r, NULL);
    for (size_t d = 0; d < r.n_devices; d++) {
        uint32_t s = series_of(b, (series_key){r.devices[d].plane, COUNTER_UTIL, 0});
        for (uint32_t i = 0; i <= r.n_buckets; i++) {
            double v = i < r.n_buckets ? r.devices[d].busy_percent[i] : 0.0;
            if (i == 0 || v != r.devices[d].busy_percent[i - 1])
                add_sample(b, s, r.window_start_ps + pv_device_util_edge_ps(&r, i), i, v);
        }
    }
    pv_arena_fini(&a);
}

/* Events read between two counts on the meter. */
#define METER_STEP 65536u

/* Whether the counters' pass reads ev's stats: the events of a counter
 * line, and the memory events, whose stats make it the index's longest
 * pass. */
static bool counted_event(const pv_model *m, const pv_track *t, uint64_t ev)
{
    if (t->kind == PV_TRACK_COUNTERS)
        return true;
    uint32_t x = m->ev_extra[ev];
    if (x == PV_NO_EXTRA)
        return false;
    uint32_t flags = m->extras[x].flags;
    return (flags & PV_EXTRA_MEMORY) && (flags & (PV_EXTRA_MEM_ALLOC | PV_EXTRA_MEM_FREE));
}

/* The counter samples of the events [lo, hi) (by id: the tracks in
 * order) into b, counting the events on meter as it reads them. */
static void counter_samples(const pv_model *m, uint64_t lo, uint64_t hi, builder *b,
                            pv_meter *meter)
{
    for (uint32_t ti = 0; ti < m->n_tracks; ti++) {
        const pv_track *t = &m->tracks[ti];
        uint64_t from = t->first_event > lo ? t->first_event : lo;
        uint64_t to = t->first_event + t->n_events < hi ? t->first_event + t->n_events : hi;
        if (from >= to)
            continue;
        uint64_t counted = 0;   /* of these events, on meter */
        for (uint64_t e = from; e < to; e++) {
            if (e - from - counted == METER_STEP) {
                pv_meter_add(meter, METER_STEP);
                counted += METER_STEP;
            }
            if (!counted_event(m, t, e))
                continue;
            if (t->kind == PV_TRACK_COUNTERS) {
                double v;
                if (first_number(m, e, &v)) {
                    series_key k = {t->plane, COUNTER_LINE, m->metas[m->ev_meta[e]].name};
                    add_sample(b, series_of(b, k), m->ev_start_ps[e], e, v);
                }
                continue;
            }
            pv_memory_details md;
            if (!pv_model_event_memory(m, e, &md))
                continue;
            series_key k = {t->plane, COUNTER_MEMORY, md.memory_id};
            double v = (double)md.bytes_allocated + (double)md.bytes_reserved;
            add_sample(b, series_of(b, k), m->ev_start_ps[e], e, v);
        }
        pv_meter_add(meter, to - from - counted);
    }
}

/* Below this many events whose stats it reads, the pass stays in one
 * piece. */
#define COUNTERS_SPLIT_MIN 65536u
/* The pyramid and the derived lines cost about a tenth of what reading a
 * memory event's stats costs, per event of the model (25 and 270 ns on
 * the 1 GB generated profile): the thread that builds them takes that
 * much less of the counters' pass. */
#define PYRAMID_EVENTS_PER_COUNTED 10u

/* The event id below which the side thread reads the counters' events
 * and from which the pyramid's thread does, so that both finish about
 * together; n_events when one thread should do it all. */
static uint64_t counters_split(const pv_model *m)
{
    /* counted track by track in one pass; then only the track the split
     * falls in is read again */
    uint64_t *per_track = pv_xcalloc(m->n_tracks + 1, sizeof *per_track), n = 0;
    for (uint32_t ti = 0; ti < m->n_tracks; ti++) {
        const pv_track *t = &m->tracks[ti];
        for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++)
            per_track[ti] += counted_event(m, t, e);
        n += per_track[ti];
    }
    uint64_t side = (n + m->n_events / PYRAMID_EVENTS_PER_COUNTED) / 2, seen = 0;
    uint64_t split = m->n_events;
    if (n >= COUNTERS_SPLIT_MIN && side < n) {
        uint32_t ti = 0;
        while (seen + per_track[ti] < side)
            seen += per_track[ti++];
        const pv_track *t = &m->tracks[ti];
        for (uint64_t e = t->first_event; split == m->n_events; e++) {
            seen += counted_event(m, t, e);
            if (seen == side)
                split = e + 1;
        }
    }
    free(per_track);
    return split;
}

/* One counter's points from a run of samples of one series, or of two
 * (the second from later events), merged in time order. */
static void counter_points(pv_trace_counter *pc, const sample *a, size_t na, const sample *b,
                           size_t nb)
{
    pc->n_points = na + nb;
    pc->t_ps = pv_xmalloc((pc->n_points + 1) * sizeof *pc->t_ps);
    pc->value = pv_xmalloc((pc->n_points + 1) * sizeof *pc->value);
    size_t i = 0, j = 0;
    for (size_t k = 0; k < pc->n_points; k++) {
        const sample *x = j == nb || (i < na && sample_before_in_series(&a[i], &b[j])) ? &a[i++]
                                                                                      : &b[j++];
        pc->t_ps[k] = x->t_ps;
        pc->value[k] = x->value;
        if (k == 0 || pc->value[k] < pc->min)
            pc->min = pc->value[k];
        if (k == 0 || pc->value[k] > pc->max)
            pc->max = pc->value[k];
    }
}

/* The counters of ix from the samples of b and of later (those of later
 * events, each builder's samples sorted by its own series numbers), and
 * the devices' utilization; frees both. Series are numbered in the order
 * they are met, so later's take b's numbers where b has them and the next
 * ones after b's where not; later's runs are found through those numbers
 * rather than sorted again, and the two merged series by series into the
 * counters, so the samples are never held twice. */
static void counters_make(const pv_model *m, pv_trace_index *ix, builder *b, builder *later)
{
    size_t *run = pv_xcalloc(later->n_keys + 1, sizeof *run);   /* later's runs' ends */
    for (size_t i = 0; i < later->n_samples; i++)
        run[later->samples[i].series]++;
    for (size_t l = 1; l < later->n_keys; l++)
        run[l] += run[l - 1];
    /* later's series in b's numbers: b's own, then at most later's */
    size_t n_merged = b->n_keys + later->n_keys;
    uint32_t *from_later = pv_xmalloc((n_merged + 1) * sizeof *from_later);
    for (size_t c = 0; c < n_merged; c++)
        from_later[c] = UINT32_MAX;
    for (size_t l = 0; l < later->n_keys; l++)
        from_later[series_of(b, later->keys[l])] = (uint32_t)l;
    /* the utilization's series come last, each in time order: sorted as
     * they are appended */
    add_utilization(m, b);
    ix->n_counters = b->n_keys;
    ix->counters = pv_xcalloc(b->n_keys + 1, sizeof *ix->counters);
    size_t at = 0;
    for (size_t c = 0; c < b->n_keys; c++) {
        pv_trace_counter *pc = &ix->counters[c];
        size_t from = at;
        while (at < b->n_samples && b->samples[at].series == c)
            at++;
        const sample *lr = NULL;
        size_t n_lr = 0;
        if (c < n_merged && from_later[c] != UINT32_MAX) {
            uint32_t l = from_later[c];
            size_t start = l > 0 ? run[l - 1] : 0;
            lr = later->samples + start;
            n_lr = run[l] - start;
        }
        counter_points(pc, b->samples + from, at - from, lr, n_lr);
        pc->plane = b->keys[c].plane;
        const char *nm = pv_model_str(m, b->keys[c].name);
        size_t len = strlen(nm) + 40;
        pc->name = pv_xmalloc(len);
        if (b->keys[c].kind == COUNTER_MEMORY)
            snprintf(pc->name, len, "Memory in use (bytes): %s", nm[0] ? nm : "unknown");
        else if (b->keys[c].kind == COUNTER_UTIL)
            snprintf(pc->name, len, "Device utilization (%%)");
        else
            snprintf(pc->name, len, "%s", nm);
        ix->bytes += pc->n_points * 16 + len;
    }
    free(run);
    free(from_later);
    builder_fini(b);
    builder_fini(later);
}

/* ---- flow links ---------------------------------------------------------------- */

static inline bool link_before(const pv_trace_link *a, const pv_trace_link *b)
{
    return a->key != b->key ? a->key < b->key : a->ev < b->ev;
}

/* Links come track by track, each mostly in key order. */
PV_MERGE_SORT(sort_links, pv_trace_link, link_before)

#define FLOW_ID(v) (((v) >> 2) & ((1ull << 56) - 1))

static void build_links(const pv_model *m, pv_trace_index *ix)
{
    size_t n_corr = 0, n_flow = 0;
    for (uint32_t i = 0; i < m->n_extras; i++) {
        n_corr += (m->extras[i].flags & PV_EXTRA_CORRELATION) != 0;
        n_flow += (m->extras[i].flags & PV_EXTRA_FLOW) != 0;
    }
    /* Rows with a correlation id or a flow are each one event's (rows
     * are shared only without them), but links are counted per event to
     * be safe: the counts above only size the first allocation. */
    size_t cap_c = n_corr + 1, cap_f = n_flow + 1;
    ix->corr = pv_xmalloc(cap_c * sizeof *ix->corr);
    ix->flows = pv_xmalloc(cap_f * sizeof *ix->flows);
    for (uint64_t e = 0; e < m->n_events; e++) {
        uint32_t x = m->ev_extra[e];
        if (x == PV_NO_EXTRA)
            continue;
        const pv_event_extra *ex = &m->extras[x];
        if (ex->flags & PV_EXTRA_CORRELATION) {
            if (ix->n_corr == cap_c) {
                cap_c *= 2;
                ix->corr = pv_xrealloc(ix->corr, cap_c * sizeof *ix->corr);
            }
            ix->corr[ix->n_corr++] = (pv_trace_link){ex->correlation_id, e};
        }
        if (ex->flags & PV_EXTRA_FLOW) {
            if (ix->n_flows == cap_f) {
                cap_f *= 2;
                ix->flows = pv_xrealloc(ix->flows, cap_f * sizeof *ix->flows);
            }
            ix->flows[ix->n_flows++] = (pv_trace_link){FLOW_ID(ex->flow), e};
        }
    }
    sort_links(ix->corr, ix->n_corr);
    sort_links(ix->flows, ix->n_flows);
    ix->bytes += (cap_c + cap_f) * sizeof(pv_trace_link);
}

/* ---- tiles of the trace --------------------------------------------------------------- */

int pv_trace_index_tile(const pv_model *m, const pv_trace_index *ix,
                        const pv_trace_tile_query *q, pv_arena *a, pv_trace_tile *out,
                        pv_error *err)
{
    const pv_trace_geom *g = &ix->geom;
    if (q->level > g->max_level)
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "level %u is past the finest level %u", q->level, g->max_level);
    if (q->index >= (1ull << q->level))
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "index %llu is past the %llu tiles of level %u",
                            (unsigned long long)q->index, 1ull << q->level, q->level);
    size_t n_own, n_lines = 0;
    pv_trace_row *own, *lines = NULL;
    pv_trace_tile_rows(m, ix->pyramid, g, q, 0, 0, a, &n_own, &own);
    const pv_model *d = ix->derived.lines;
    if (d != NULL)
        pv_trace_tile_rows(d, ix->derived_pyramid, g, q, m->n_tracks, m->n_events, a, &n_lines,
                           &lines);
    pv_trace_row *rows = own;
    if (n_lines > 0) {
        rows = pv_arena_alloc(a, (n_own + n_lines) * sizeof *rows);
        if (n_own > 0)
            memcpy(rows, own, n_own * sizeof *rows);
        memcpy(rows + n_own, lines, n_lines * sizeof *rows);
    }
    *out = (pv_trace_tile){q->level,
                           q->index,
                           pv_trace_tile_edge(g, q->level, q->index),
                           pv_trace_tile_edge(g, q->level, q->index + 1),
                           n_own + n_lines,
                           rows,
                           &ix->steps,
                           m,
                           (size_t)m->n_metas + ix->steps.n + (d != NULL ? d->n_metas : 0)};
    return 0;
}

size_t pv_trace_links_find(const pv_trace_link *l, size_t n, uint64_t key, size_t *first)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, n, i, l[i].key < key);
    *first = lo;
    size_t end = lo;
    while (end < n && l[end].key == key)
        end++;
    return end - lo;
}

/* ---- lifetime ---------------------------------------------------------------------- */

/* Below this many events a second thread costs more than it takes on. */
#define APART_MIN_EVENTS 1000000u

/* The parts of the index that read m alone, beside the pyramid and the
 * derived lines: step names and the first part of the counters' pass (its
 * events below split: the pyramid's thread takes the rest, a thread's
 * share of the work when the memory events' stats make the pass longer
 * than the pyramid). They write only their own fields. */
typedef struct side_parts {
    const pv_model *m;
    pv_trace_index *ix;
    pv_meter *meter;
    uint64_t split;
    builder counters;
} side_parts;

static void *side_main(void *arg)
{
    side_parts *sp = arg;
    pv_trace_step_names_make(sp->m, &sp->ix->steps);
    counter_samples(sp->m, 0, sp->split, &sp->counters, sp->meter);
    sort_samples(sp->counters.samples, sp->counters.n_samples);
    return NULL;
}

int pv_trace_index_new(const pv_model *m, const pv_trace_pyramid_opts *opts,
                       pv_trace_index **out, pv_error *err)
{
    /* the pyramid's three passes over the events, then counters and links */
    uint64_t unit = m->n_events + 1;
    pv_meter *meter = opts != NULL ? opts->meter : NULL;
    pv_meter_start(meter, 5 * unit);
    pv_trace_index *ix = pv_xcalloc(1, sizeof *ix);
    ix->geom = pv_trace_geom_of(m);
    /* Both halves are passes over every event: on two cores a big model's
     * index is built in about the time of the longer one. */
    unsigned threads = opts != NULL ? opts->threads : 0;
    if (threads == 0)
        threads = m->n_events >= APART_MIN_EVENTS && pv_handoff_worth() ? 2 : 1;
    side_parts sp = {m, ix, meter, threads >= 2 ? counters_split(m) : m->n_events, {0}};
    pthread_t side;
    bool apart = threads >= 2 && pthread_create(&side, NULL, side_main, &sp) == 0;
    int rc = pv_trace_pyramid_new(m, &ix->geom, opts, &ix->pyramid, err);
    if (rc == 0)
        rc = pv_trace_derived_lines_get(m, &ix->derived, err);
    const pv_model *lines = ix->derived.lines;
    if (rc == 0 && lines != NULL) {
        /* The meter counts m's events; the derived lines are a small part. */
        pv_trace_pyramid_opts quiet = opts != NULL ? *opts : pv_trace_pyramid_defaults();
        quiet.meter = NULL;
        rc = pv_trace_pyramid_new(lines, &ix->geom, &quiet, &ix->derived_pyramid, err);
    }
    builder later = {0};
    if (rc == 0) {
        counter_samples(m, sp.split, m->n_events, &later, meter);
        sort_samples(later.samples, later.n_samples);
    }
    if (apart)
        pthread_join(side, NULL);
    else if (rc == 0)
        (void)side_main(&sp);
    if (rc != 0) {
        builder_fini(&sp.counters);
        builder_fini(&later);
        pv_trace_index_free(ix);
        return rc;
    }
    counters_make(m, ix, &sp.counters, &later);
    pv_meter_add(meter, 1);
    /* after the samples are freed: the links are as big */
    build_links(m, ix);
    pv_meter_add(meter, m->n_events + 1);
    /* The derived lines' columns are their memo's bytes, which m's memos
     * count (model/memo.h, pv_model_added_bytes) unless m could keep no
     * more memos; what reading them holds beside counts here. */
    ix->bytes += sizeof *ix + pv_trace_pyramid_bytes(ix->pyramid) +
                 pv_trace_pyramid_bytes(ix->derived_pyramid) +
                 (lines != NULL ? lines->mem_bytes : 0) +
                 ix->derived.owned_len +
                 pv_trace_step_names_bytes(&ix->steps, m);
    *out = ix;
    return 0;
}

void pv_trace_index_free(pv_trace_index *ix)
{
    if (ix == NULL)
        return;
    pv_trace_pyramid_free(ix->pyramid);
    pv_trace_pyramid_free(ix->derived_pyramid);
    pv_trace_derived_lines_fini(&ix->derived);
    if (ix->block == NULL) {
        pv_trace_step_names_fini(&ix->steps);
        for (size_t c = 0; c < ix->n_counters; c++) {
            free(ix->counters[c].name);
            free(ix->counters[c].t_ps);
            free(ix->counters[c].value);
        }
        free(ix->corr);
        free(ix->flows);
    }
    free(ix->counters);
    free(ix->block);
    free(ix);
}

/* ---- counter points of a tile ---------------------------------------------------------- */

/* The points of pc a tile [ts_ps, te_ps) shows, as indices into pc's
 * arrays (idx has room for 3 * PV_TRACE_TILE_PX + 1): the last point
 * before the tile, then per pixel inside it the first point, the largest
 * value and the last point. Returns how many. */
static size_t tile_points(const pv_trace_counter *pc, int64_t ts_ps, int64_t te_ps, size_t *idx)
{
    uint64_t width = (uint64_t)(te_ps - ts_ps);
    size_t lo = 0, n = 0;
    PV_LOWER_BOUND(size_t, lo, pc->n_points, i, pc->t_ps[i] < ts_ps);
    if (lo > 0)
        idx[n++] = lo - 1;
    size_t i = lo;
    while (i < pc->n_points && pc->t_ps[i] < te_ps) {
        /* one pixel: its first point, then its largest value if later */
        uint64_t px = (uint64_t)(((unsigned __int128)(uint64_t)(pc->t_ps[i] - ts_ps) *
                                  PV_TRACE_TILE_PX) / width);
        size_t best = i, j = i + 1;
        for (; j < pc->n_points && pc->t_ps[j] < te_ps; j++) {
            uint64_t pj = (uint64_t)(((unsigned __int128)(uint64_t)(pc->t_ps[j] - ts_ps) *
                                      PV_TRACE_TILE_PX) / width);
            if (pj != px)
                break;
            if (pc->value[j] > pc->value[best])
                best = j;
        }
        idx[n++] = i;
        if (best != i)
            idx[n++] = best;
        if (j - 1 != best && j - 1 != i)   /* the value the next pixel starts from */
            idx[n++] = j - 1;
        i = j;
    }
    return n;
}

#define TILE_POINTS_MAX (3 * (size_t)PV_TRACE_TILE_PX + 1)

int pv_trace_counters_tile_json(const pv_trace_index *ix, int64_t ts_ps, int64_t te_ps,
                                pv_buf *b)
{
    pv__jw w;
    pv__jw_init(&w, b);
    int64_t t0 = ix->geom.t0_ps;
    size_t *idx = pv_xmalloc(TILE_POINTS_MAX * sizeof *idx);
    pv__jw_raw(&w, "[", 1);
    int first_counter = 1;
    for (size_t c = 0; c < ix->n_counters; c++) {
        const pv_trace_counter *pc = &ix->counters[c];
        size_t n = tile_points(pc, ts_ps, te_ps, idx);
        if (n == 0)
            continue;
        pv__jw_lit(&w, first_counter ? "{\"id\":" : ",{\"id\":");
        first_counter = 0;
        pv__jw_u64(&w, c);
        pv__jw_lit(&w, ",\"points\":[");
        for (size_t k = 0; k < n; k++) {
            pv__jw_lit(&w, k == 0 ? "[" : ",[");
            pv__jw_i64(&w, pc->t_ps[idx[k]] - t0);
            pv__jw_raw(&w, ",", 1);
            pv__jw_f64(&w, pc->value[idx[k]]);
            pv__jw_raw(&w, "]", 1);
        }
        pv__jw_lit(&w, "]}");
    }
    pv__jw_raw(&w, "]", 1);
    free(idx);
    return pv__jw_flush(&w);
}

int pv_trace_counters_tile_bin(const pv_trace_index *ix, int64_t ts_ps, int64_t te_ps,
                               pv_buf *b)
{
    pv__bw w;
    pv__bw_init(&w, b);
    size_t *idx = pv_xmalloc(TILE_POINTS_MAX * sizeof *idx);
    size_t *count = pv_xmalloc((ix->n_counters + 1) * sizeof *count);
    size_t shown = 0;
    for (size_t c = 0; c < ix->n_counters; c++) {
        count[c] = tile_points(&ix->counters[c], ts_ps, te_ps, idx);
        shown += count[c] > 0;
    }
    pv__bw_uv(&w, shown);
    for (size_t c = 0; c < ix->n_counters; c++) {
        if (count[c] == 0)
            continue;
        const pv_trace_counter *pc = &ix->counters[c];
        size_t n = tile_points(pc, ts_ps, te_ps, idx);
        pv__bw_uv(&w, c);
        pv__bw_uv(&w, n);
        int64_t prev = ts_ps;
        for (size_t k = 0; k < n; k++) {
            pv__bw_sv(&w, pc->t_ps[idx[k]] - prev);
            prev = pc->t_ps[idx[k]];
        }
        for (size_t k = 0; k < n; k++)
            pv__bw_f64(&w, pc->value[idx[k]]);
    }
    free(count);
    free(idx);
    return pv__bw_flush(&w);
}
