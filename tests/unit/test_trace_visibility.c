/* Tests of trace_visibility (XProf's decimation of trace_viewer@) on
 * hand-written event lists, and of trace_chrome using it on a hand-built
 * model. Each expected survivor set is worked out by hand in the comment
 * above its test, from the rule in trace_visibility.c: XProf's zoom levels
 * are 1 s, 100 ms, ... 100 ps (level 10), 10 ps (level 11), 1 ps. */
#include "model/builder.h"
#include "model/memo.h"
#include "model_fixture.h"
#include "tools/chrome_trace/trace_chrome.h"
#include "tools/chrome_trace/trace_visibility.h"
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct ev {
    uint32_t row;
    int64_t start_ps, dur_ps;
    uint64_t flow;
} ev;

/* The hand list as pv_trace_vis_levels reads it: a group per row, its
 * events in the row's order (start, longer first, then the list's order:
 * every name is "e"). */
typedef struct hand_source {
    const ev *evs;
    size_t n;
    size_t *walk;      /* the open group's events, as indices into evs */
    size_t n_walk, at;
    unsigned *level;   /* per event, as set */
} hand_source;

static int64_t clamped(int64_t dur_ps)
{
    return dur_ps > 0 ? dur_ps : 0;
}

static void hand_open(void *ctx, size_t group, bool flows_only)
{
    hand_source *h = ctx;
    h->n_walk = h->at = 0;
    for (size_t i = 0; i < h->n; i++) {
        if (h->evs[i].row != group || (flows_only && h->evs[i].flow == 0))
            continue;
        /* insertion in row order; equal events keep the list's order */
        size_t k = h->n_walk++;
        while (k > 0) {
            const ev *p = &h->evs[h->walk[k - 1]], *e = &h->evs[i];
            bool after = p->start_ps > e->start_ps ||
                         (p->start_ps == e->start_ps && clamped(p->dur_ps) < clamped(e->dur_ps));
            if (!after)
                break;
            h->walk[k] = h->walk[k - 1];
            k--;
        }
        h->walk[k] = i;
    }
}

static bool hand_next(void *ctx, size_t group, pv_trace_vis_item *out)
{
    hand_source *h = ctx;
    if (h->at == h->n_walk)
        return false;
    size_t i = h->walk[h->at++];
    const ev *e = &h->evs[i];
    *out = (pv_trace_vis_item){e->start_ps, clamped(e->dur_ps), e->flow, (uint32_t)group, i};
    return true;
}

static void hand_set_level(void *ctx, size_t group, const pv_trace_vis_item *it, unsigned level)
{
    (void)group;
    ((hand_source *)ctx)->level[it->key] = level;
}

/* Runs both steps over evs: the levels over the whole trace, then the
 * request's filter over the events it reads; kept[i] says whether evs[i]
 * survived. */
static void decide(int64_t trace_end_ps, int64_t start_ps, int64_t end_ps, uint64_t resolution,
                   const ev *evs, size_t n, const int64_t (*rows)[2], size_t n_rows,
                   bool counter_rows, bool *kept)
{
    pv_trace_vis_window w = {0, trace_end_ps, start_ps, end_ps, resolution};
    pv_trace_vis_span s;
    pv_trace_vis_span_of(&w, &s);
    pv_trace_vis_rowdef defs[8];
    ck_assert_uint_le(n_rows, 8);
    for (size_t r = 0; r < n_rows; r++)
        defs[r] = (pv_trace_vis_rowdef){rows[r][0], rows[r][1], counter_rows};
    size_t walk[16];
    unsigned level[16];
    ck_assert_uint_le(n, 16);
    hand_source h = {evs, n, walk, 0, 0, level};
    pv_trace_vis_source src = {&h, n_rows, hand_open, hand_next, hand_set_level};
    pv_trace_vis_levels(defs, n_rows, &src);

    pv_trace_vis *v = pv_trace_vis_new(&s);
    for (size_t r = 0; r < n_rows; r++)
        ck_assert_uint_eq(pv_trace_vis_row(v, rows[r][0], rows[r][1], counter_rows), r);
    size_t added[16];
    unsigned read_to = pv_trace_vis_read_to(&s);
    for (size_t i = 0; i < n; i++) {
        added[i] = SIZE_MAX;
        if (s.resolution_ps != 0 &&
            (level[i] > read_to || !pv_trace_vis_overlaps(&s, evs[i].start_ps, evs[i].dur_ps)))
            continue;
        added[i] = pv_trace_vis_count(v);
        pv_trace_vis_add(v, evs[i].row, evs[i].start_ps, evs[i].dur_ps, "e", evs[i].flow);
    }
    pv_trace_vis_decide(v);
    for (size_t i = 0; i < n; i++)
        kept[i] = added[i] != SIZE_MAX && pv_trace_vis_kept(v, added[i]);
    pv_trace_vis_free(v);
}

static const int64_t one_row[1][2] = {{701, 1}};

START_TEST(test_span_and_resolution)
{
    pv_trace_vis_span s;
    /* [200, 1200] of a [0, 1000] trace: clamped to [200, 1000]; 800 / 10 */
    pv_trace_vis_window w = {0, 1000, 200, 1200, 10};
    pv_trace_vis_span_of(&w, &s);
    ck_assert_int_eq(s.begin_ps, 200);
    ck_assert_int_eq(s.end_ps, 1000);
    ck_assert(!s.instant);
    ck_assert_uint_eq(s.resolution_ps, 80);
    /* both ends inclusive */
    ck_assert(pv_trace_vis_overlaps(&s, 1000, 5));
    ck_assert(pv_trace_vis_overlaps(&s, 150, 50));
    ck_assert(!pv_trace_vis_overlaps(&s, 150, 49));
    ck_assert(!pv_trace_vis_overlaps(&s, 1001, 0));
    /* 1000 / 3 = 333.3 rounds to 333; 2000 / 3 = 666.7 rounds to 667 */
    w = (pv_trace_vis_window){0, 1000, INT64_MIN, INT64_MAX, 3};
    pv_trace_vis_span_of(&w, &s);
    ck_assert_uint_eq(s.resolution_ps, 333);
    w.trace_end_ps = 2000;
    pv_trace_vis_span_of(&w, &s);
    ck_assert_uint_eq(s.resolution_ps, 667);
    /* a window of one instant: XProf then shows every event */
    w = (pv_trace_vis_window){0, 1000, 500, 500, 10};
    pv_trace_vis_span_of(&w, &s);
    ck_assert(s.instant);
    ck_assert_uint_eq(s.resolution_ps, 0);
    ck_assert(pv_trace_vis_overlaps(&s, 0, 1));
}
END_TEST

/* One row, trace and window [0, 1000], resolution 10: r = 100 ps, levels
 * 0..10 are read. In the store:
 *   e0 [0,500)     first at depth 0            -> level 0
 *   e1 [10,20)     first at depth 1            -> level 0
 *   e2 [50,60)     30 after e1: only >= 10     -> level 11 (not read)
 *   e3 [200,210)   180 after e1                -> level 10
 *   e4 [600,650)   100 after e0                -> level 10
 *   e5 [700,705)   50 after e4                 -> level 11 (not read)
 *   e6 [900,1000)  lasts 100                   -> level 10
 *   e7 [1200,1300) outside the window
 * Filter at 100: e0 (lasts 500), e1 (first at depth 1), e3 (180 after
 * e1), e4 (100 after e0), e6 (lasts 100) survive. */
START_TEST(test_nested_row)
{
    const ev evs[] = {{0, 0, 500, 0},   {0, 10, 10, 0},  {0, 50, 10, 0},   {0, 200, 10, 0},
                      {0, 600, 50, 0},  {0, 700, 5, 0},  {0, 900, 100, 0}, {0, 1200, 100, 0}};
    const bool want[] = {true, true, false, true, true, false, true, false};
    bool kept[8];
    decide(1000, INT64_MIN, INT64_MAX, 10, evs, 8, one_row, 1, false, kept);
    for (size_t i = 0; i < 8; i++)
        ck_assert_msg(kept[i] == want[i], "e%zu: kept %d", i, kept[i]);
    /* resolution 0: every event overlapping [0, 1000], e7 still out */
    decide(1000, INT64_MIN, INT64_MAX, 0, evs, 8, one_row, 1, false, kept);
    for (size_t i = 0; i < 8; i++)
        ck_assert_msg(kept[i] == (i != 7), "e%zu: kept %d", i, kept[i]);
}
END_TEST

/* The levels matter: trace [0,1500], resolution 10 -> r = 150, levels
 * 0..10 read (100 ps <= 150).
 *   a [0,10)       first                     -> level 0
 *   b [120,130)    110 after a               -> level 10
 *   c [200,210)    level 10 last end is b's 130: 70, only >= 10 -> level 11
 *   d [1400,1500)  lasts 100, 1390 after a at level 9 -> level 9
 * Filter at 150: a; b is 110 after a (dropped); c is not read although
 * 190 after a; d 1390 after a. Survivors: a, d. */
START_TEST(test_levels_hide_what_the_filter_would_keep)
{
    const ev evs[] = {{0, 0, 10, 0}, {0, 120, 10, 0}, {0, 200, 10, 0}, {0, 1400, 100, 0}};
    bool kept[4];
    decide(1500, INT64_MIN, INT64_MAX, 10, evs, 4, one_row, 1, false, kept);
    ck_assert(kept[0]);
    ck_assert(!kept[1]);
    ck_assert(!kept[2]);
    ck_assert(kept[3]);
}
END_TEST

/* A counter series, trace [0,1000], resolution 10 -> r = 100. Levels:
 * t0 first (0); t50 50 after (11); t120 120 after t0 (10); t130 10 after
 * t120 (11); t300 180 after t120 (10). Read: t0, t120, t300; each 100 or
 * more after the last kept. */
START_TEST(test_counter_samples)
{
    const ev evs[] = {{0, 0, 0, 0}, {0, 50, 0, 0}, {0, 120, 0, 0}, {0, 130, 0, 0},
                      {0, 300, 0, 0}};
    const bool want[] = {true, false, true, false, true};
    bool kept[5];
    decide(1000, INT64_MIN, INT64_MAX, 10, evs, 5, one_row, 1, true, kept);
    for (size_t i = 0; i < 5; i++)
        ck_assert_msg(kept[i] == want[i], "t%zu: kept %d", i, kept[i]);
}
END_TEST

/* A flow keeps both ends. Rows H (pid 701) and D (pid 1); trace [0,2000],
 * resolution 20 -> r = 100.
 *   d0 D [0,1000), h1 H [0,1000): long, kept.
 *   d1 D [1005,1010) flow 5 in, h2 H [1010,1020) flow 5 out: 5 and 10
 *   after the long events, too close on their own. d1 comes first in
 *   time: its row has no flow arrow yet, so flow 5 is visible (level 0
 *   too) and both ends survive. Without the flow neither would. */
START_TEST(test_flow_keeps_both_ends)
{
    const int64_t rows[2][2] = {{701, 1}, {1, 7}};
    const uint64_t in5 = (5u << 2) | 1u, out5 = (5u << 2) | 2u;
    ev evs[] = {{1, 0, 1000, 0}, {0, 0, 1000, 0}, {1, 1005, 5, in5}, {0, 1010, 10, out5}};
    bool kept[4];
    decide(2000, INT64_MIN, INT64_MAX, 20, evs, 4, rows, 2, false, kept);
    for (size_t i = 0; i < 4; i++)
        ck_assert_msg(kept[i], "event %zu dropped", i);
    evs[2].flow = 0;
    evs[3].flow = 0;
    decide(2000, INT64_MIN, INT64_MAX, 20, evs, 4, rows, 2, false, kept);
    ck_assert(kept[0] && kept[1]);
    ck_assert(!kept[2] && !kept[3]);
}
END_TEST

/* ---- through trace_chrome on a hand-built model -------------------------------------- */

/* The events of test_levels_hide_what_the_filter_would_keep on one host
 * thread, named a..d. */
static pv_model *model_abcd(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t th = pv_builder_track(b, host, 10, "worker", 0);
    const char *names[] = {"a", "b", "c", "d"};
    const int64_t start[] = {0, 120, 200, 1400}, dur[] = {10, 10, 10, 100};
    for (int i = 0; i < 4; i++)
        pv_builder_event(b, th, pv_builder_meta(b, host, i + 1, names[i], NULL), start[i],
                         dur[i]);
    return pv_test_finish(b);
}

/* The names of the X events of a trace_viewer@ answer, e.g. "ad". */
static void written(const pv_model *m, const pv_trace_chrome_query *q, char *out, size_t cap,
                    json_int_t *returned)
{
    pv_buf b;
    pv_buf_init(&b, 1 << 20);
    ck_assert_int_eq(pv_trace_chrome_write(m, q, &b, NULL), 0);
    json_t *j = json_loads(b.data, 0, NULL);
    ck_assert_ptr_nonnull(j);
    json_t *events = json_object_get(j, "traceEvents");
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph != NULL && strcmp(ph, "X") == 0 && n + 1 < cap)
            out[n++] = json_string_value(json_object_get(e, "name"))[0];
    }
    out[n] = 0;
    *returned = json_integer_value(json_object_get(j, "returnedEventsSize"));
    ck_assert(json_is_true(json_object_get(j, "filteredByVisibility")));
    json_decref(j);
    pv_buf_fini(&b);
}

START_TEST(test_chrome_resolution)
{
    pv_model *m = model_abcd();
    char names[16];
    json_int_t n;
    /* decimation on from the first event: the survivors worked out above */
    pv_trace_chrome_query q = {true, INT64_MIN, INT64_MAX, 10, 0};
    written(m, &q, names, sizeof names, &n);
    ck_assert_str_eq(names, "ad");
    ck_assert_int_eq(n, 2);
    /* resolution 0: everything */
    q.resolution = 0;
    written(m, &q, names, sizeof names, &n);
    ck_assert_str_eq(names, "abcd");
    /* a model under the threshold (XProf: 500,000 events) is not decimated */
    q.resolution = 10;
    q.filter_min_events = PV_TRACE_VIS_MIN_EVENTS;
    written(m, &q, names, sizeof names, &n);
    ck_assert_str_eq(names, "abcd");
    ck_assert_int_eq(n, 4);
    /* window [150, 1500] (ends inclusive): b ends at 130, out. Span 1350,
     * r = 135 -> levels 0..10 read, same levels as above. c [200,210) is
     * level 11: not read. a is outside; d first in the row. */
    q = (pv_trace_chrome_query){true, 150, 1500, 10, 0};
    written(m, &q, names, sizeof names, &n);
    ck_assert_str_eq(names, "d");
    pv_model_free(m);
}
END_TEST

/* The levels are made by the first decimating request and kept with the
 * model: later windows and resolutions read them (one memo, made once)
 * and answer what a fresh model answers (the survivors of
 * test_chrome_resolution). */
START_TEST(test_chrome_levels_kept)
{
    pv_model *m = model_abcd();
    char names[16];
    json_int_t n;
    ck_assert_uint_eq(pv_model_memo_count(m), 0);
    pv_trace_chrome_query q = {true, INT64_MIN, INT64_MAX, 10, 0};
    written(m, &q, names, sizeof names, &n);
    ck_assert_str_eq(names, "ad");
    ck_assert_uint_eq(pv_model_memo_count(m), 1);
    q = (pv_trace_chrome_query){true, 150, 1500, 10, 0};
    written(m, &q, names, sizeof names, &n);
    ck_assert_str_eq(names, "d");
    /* resolution 1: r = 1500 ps, levels down to 1 ns (level 9) read: a
     * and d; d starts 1390 after a's end, under r: only a survives */
    q = (pv_trace_chrome_query){true, INT64_MIN, INT64_MAX, 1, 0};
    written(m, &q, names, sizeof names, &n);
    ck_assert_str_eq(names, "a");
    ck_assert_uint_eq(pv_model_memo_count(m), 1);
    pv_model_free(m);
}
END_TEST

/* A TPU plane whose _counters_ line holds "HBM used" at 100, 200, 210 ps
 * (bytes 1000, 1500, 1600) and "temp" at 300 (celsius 40.5, with a
 * group_id XProf keeps out of the values), plus one ordinary stream. */
static pv_model *model_counters(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t tpu = pv_builder_plane(b, 3, "/device:TPU:0");
    uint32_t ops = pv_builder_track(b, tpu, 2, "XLA Ops", 0);
    uint32_t ctr = pv_builder_track(b, tpu, 9, "_counters_", 0);
    uint32_t m_hbm = pv_builder_meta(b, tpu, 1, "HBM used", NULL);
    uint32_t m_temp = pv_builder_meta(b, tpu, 2, "temp", NULL);
    uint32_t m_op = pv_builder_meta(b, tpu, 3, "fusion", NULL);
    pv_builder_event(b, ops, m_op, 100, 50);
    const int64_t t[] = {100, 200, 210}, bytes[] = {1000, 1500, 1600};
    for (int i = 0; i < 3; i++) {
        uint64_t e = pv_builder_event(b, ctr, m_hbm, t[i], 0);
        pv_builder_event_stat_i64(b, e, "bytes", bytes[i]);
    }
    uint64_t e = pv_builder_event(b, ctr, m_temp, 300, 0);
    pv_builder_event_stat_i64(b, e, "group_id", 4);
    pv_builder_event_stat_f64(b, e, "celsius", 40.5);
    return pv_test_finish(b);
}

static json_t *streaming_json(const pv_model *m, const pv_trace_chrome_query *q)
{
    pv_buf b;
    pv_buf_init(&b, 1 << 20);
    ck_assert_int_eq(pv_trace_chrome_write(m, q, &b, NULL), 0);
    json_error_t jerr;
    json_t *j = json_loads(b.data, 0, &jerr);
    ck_assert_msg(j != NULL, "%s", jerr.text);
    pv_buf_fini(&b);
    return j;
}

/* The counter objects of an answer, as one compact string. */
static char *counters_text(json_t *j)
{
    json_t *out = json_array();
    json_t *events = json_object_get(j, "traceEvents");
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph != NULL && strcmp(ph, "C") == 0)
            json_array_append(out, e);
    }
    char *text = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
    json_decref(out);
    return text;
}

START_TEST(test_chrome_counters)
{
    pv_model *m = model_counters();
    pv_trace_chrome_query q = {true, INT64_MIN, INT64_MAX, 0, 0};
    json_t *j = streaming_json(m, &q);
    /* no thread for the _counters_ line: only XLA Ops (tid 2) */
    json_t *events = json_object_get(j, "traceEvents");
    json_int_t pid = -1;
    size_t n_threads = 0;
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        const char *name = json_string_value(json_object_get(e, "name"));
        if (name != NULL && strcmp(name, "thread_name") == 0) {
            n_threads++;
            ck_assert_int_eq(json_integer_value(json_object_get(e, "tid")), 2);
        }
        if (name != NULL && strcmp(name, "process_name") == 0)
            pid = json_integer_value(json_object_get(e, "pid"));
    }
    ck_assert_uint_eq(n_threads, 1);
    char want[512];
    snprintf(want, sizeof want,
             "[{\"entries\":[[0.0001,1000],[0.0002,1500],[0.00021,1600]],"
             "\"event_stats\":\"bytes\",\"name\":\"HBM used\",\"ph\":\"C\",\"pid\":%lld},"
             "{\"entries\":[[0.0003,40.5]],\"event_stats\":\"celsius\",\"name\":\"temp\","
             "\"ph\":\"C\",\"pid\":%lld}]",
             (long long)pid, (long long)pid);
    char *got = counters_text(j);
    ck_assert_str_eq(got, want);
    free(got);
    /* 1 op + 4 samples */
    ck_assert_int_eq(json_integer_value(json_object_get(j, "returnedEventsSize")), 5);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "totalCounterEvents")), 4);
    json_decref(j);
    /* Trace [100, 300], resolution 10: r = 20, levels 0..11 read. HBM:
     * 100 first (level 0), 200 is 100 after (level 10), 210 only 10 after
     * (level 11, read) and dropped by the filter (10 < 20); temp first of
     * its series. */
    q.resolution = 10;
    j = streaming_json(m, &q);
    got = counters_text(j);
    snprintf(want, sizeof want,
             "[{\"entries\":[[0.0001,1000],[0.0002,1500]],"
             "\"event_stats\":\"bytes\",\"name\":\"HBM used\",\"ph\":\"C\",\"pid\":%lld},"
             "{\"entries\":[[0.0003,40.5]],\"event_stats\":\"celsius\",\"name\":\"temp\","
             "\"ph\":\"C\",\"pid\":%lld}]",
             (long long)pid, (long long)pid);
    ck_assert_str_eq(got, want);
    free(got);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "totalCounterEvents")), 3);
    json_decref(j);
    pv_model_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace_visibility");
    TCase *tc = tcase_create("rule");
    tcase_add_test(tc, test_span_and_resolution);
    tcase_add_test(tc, test_nested_row);
    tcase_add_test(tc, test_levels_hide_what_the_filter_would_keep);
    tcase_add_test(tc, test_counter_samples);
    tcase_add_test(tc, test_flow_keeps_both_ends);
    tcase_add_test(tc, test_chrome_resolution);
    tcase_add_test(tc, test_chrome_levels_kept);
    tcase_add_test(tc, test_chrome_counters);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
