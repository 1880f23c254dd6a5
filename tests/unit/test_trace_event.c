/* Tests of the trace viewer's per-model tools on one hand-built profile:
 * track list order and ids (trace_meta), counters and flow links
 * (trace_index), event details (trace_event), search (trace_search) and
 * the Chrome trace JSON (trace_chrome). Every expected value below is
 * worked out by hand from the fixture. */
#include "model/builder.h"
#include "model_fixture.h"
#include "tools/chrome_trace/trace_chrome.h"
#include "tools/trace_tiles/trace_event.h"
#include "tools/trace_tiles/trace_index.h"
#include "tools/trace_tiles/trace_meta.h"
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixture -------------------------------------------------------------- */

/* GPU plane added before the host plane, so ordering is not file order.
 *   host  python3 (100): cudaLaunchKernel 1000+100 corr 42; Op 6000+5
 *                        (display name "Op" of "long/full/name:Op")
 *   host  worker (50):   MemoryAllocation 1500 (GPU_0_bfc 1000+24 bytes),
 *                        MemoryDeallocation 3000 (200+24), producer 4000+10
 *                        (flow 7 out)
 *   GPU:0 Stream #7:     kern 2000+500 corr 42
 *   GPU:0 Stream #3:     consumer 5000+10 (flow 7 in)
 *   GPU:0 Steps:         "1" 2000+600 */
static pv_model *fixture(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t gpu = pv_builder_plane(b, 2, "/device:GPU:0");
    uint32_t s7 = pv_builder_track(b, gpu, 7, "Stream #7", 0);
    uint32_t steps = pv_builder_track(b, gpu, 3735928559, "Steps", 0);
    uint32_t s3 = pv_builder_track(b, gpu, 3, "Stream #3", 0);
    uint32_t host = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t py = pv_builder_track(b, host, 100, "python3", 0);
    uint32_t wk = pv_builder_track(b, host, 50, "worker", 0);

    uint32_t m_launch = pv_builder_meta(b, host, 1, "cudaLaunchKernel", NULL);
    uint32_t m_op = pv_builder_meta(b, host, 2, "long/full/name:Op", "Op");
    uint32_t m_alloc = pv_builder_meta(b, host, 3, "MemoryAllocation", NULL);
    uint32_t m_free = pv_builder_meta(b, host, 4, "MemoryDeallocation", NULL);
    uint32_t m_prod = pv_builder_meta(b, host, 5, "producer", NULL);
    uint32_t m_kern = pv_builder_meta(b, gpu, 1, "kern", NULL);
    uint32_t m_cons = pv_builder_meta(b, gpu, 2, "consumer", NULL);
    uint32_t m_step = pv_builder_meta(b, gpu, 3, "1", NULL);

    uint64_t e = pv_builder_event(b, py, m_launch, 1000, 100);
    pv_builder_event_stat_u64(b, e, "correlation_id", 42);
    pv_builder_event(b, py, m_op, 6000, 5);
    e = pv_builder_event(b, wk, m_alloc, 1500, 0);
    pv_builder_event_stat_str(b, e, "allocator_name", "GPU_0_bfc");
    pv_builder_event_stat_i64(b, e, "bytes_allocated", 1000);
    pv_builder_event_stat_i64(b, e, "bytes_reserved", 24);
    e = pv_builder_event(b, wk, m_free, 3000, 0);
    pv_builder_event_stat_str(b, e, "allocator_name", "GPU_0_bfc");
    pv_builder_event_stat_i64(b, e, "bytes_allocated", 200);
    pv_builder_event_stat_i64(b, e, "bytes_reserved", 24);
    e = pv_builder_event(b, wk, m_prod, 4000, 10);
    pv_builder_event_stat_u64(b, e, "flow", (7u << 2) | 2u);
    e = pv_builder_event(b, s7, m_kern, 2000, 500);
    pv_builder_event_stat_u64(b, e, "correlation_id", 42);
    e = pv_builder_event(b, s3, m_cons, 5000, 10);
    pv_builder_event_stat_u64(b, e, "flow", (7u << 2) | 1u);
    pv_builder_event(b, steps, m_step, 2000, 600);

    return pv_test_finish(b);
}

static uint64_t ev_named(const pv_model *m, const char *name)
{
    for (uint64_t e = 0; e < m->n_events; e++)
        if (strcmp(pv_model_event_name(m, e), name) == 0)
            return e;
    ck_abort_msg("no event %s", name);
    return 0;
}

static const char *track_name(const pv_model *m, uint32_t t)
{
    return pv_model_str(m, m->tracks[t].name);
}

/* ---- pv_tool_trace_meta ------------------------------------------------------ */

START_TEST(test_trace_meta_order)
{
    pv_model *m = fixture();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_meta meta;
    ck_assert_int_eq(pv_tool_trace_meta(m, NULL, &a, &meta, NULL), 0);
    ck_assert_uint_eq(meta.n_processes, 2);
    const pv_trace_process *h = &meta.processes[0], *g = &meta.processes[1];
    ck_assert_str_eq(pv_model_str(m, m->planes[h->plane].name), "/host:CPU");
    ck_assert_int_eq(h->pid, 701);
    ck_assert_uint_eq(h->n_threads, 2);
    ck_assert_str_eq(track_name(m, h->tracks[0]), "worker");    /* tid 50 before 100 */
    ck_assert_str_eq(track_name(m, h->tracks[1]), "python3");
    ck_assert_int_eq(g->pid, 3);   /* XProf: 1 + the plane id 2 (the TPU golden: 3, 11, ..) */
    ck_assert_uint_eq(g->n_threads, 3);
    ck_assert_str_eq(track_name(m, g->tracks[0]), "Steps");     /* derived first */
    ck_assert_str_eq(track_name(m, g->tracks[1]), "Stream #3");
    ck_assert_str_eq(track_name(m, g->tracks[2]), "Stream #7");
    ck_assert_str_eq(pv_trace_track_kind_name(m->tracks[g->tracks[0]].kind), "steps");
    ck_assert_int_eq(pv_trace_track_tid(m, g->tracks[2]), 7);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_trace_meta_json)
{
    pv_model *m = fixture();
    pv_trace_index *ix = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &ix, NULL), 0);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_meta meta;
    ck_assert_int_eq(pv_tool_trace_meta(m, NULL, &a, &meta, NULL), 0);
    json_t *j = pv_trace_meta_to_json(m, ix, &meta);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "t0_ps")), "1000");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "span_ps")), 6005 - 1000 + 1);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "n_events")), 8);
    json_t *procs = json_object_get(j, "processes");
    json_int_t total = 0;
    for (size_t i = 0; i < json_array_size(procs); i++) {
        json_t *th = json_object_get(json_array_get(procs, i), "threads");
        for (size_t k = 0; k < json_array_size(th); k++)
            total += json_integer_value(json_object_get(json_array_get(th, k), "n_events"));
    }
    ck_assert_int_eq(total, 8);
    json_t *c = json_array_get(json_object_get(j, "counters"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(c, "name")),
                     "Memory in use (bytes): GPU_0_bfc");
    ck_assert_int_eq(json_integer_value(json_object_get(c, "pid")), 701);
    ck_assert(json_real_value(json_object_get(c, "min")) == 224.0);
    ck_assert(json_real_value(json_object_get(c, "max")) == 1024.0);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "warnings")), 0);
    json_decref(j);
    pv_arena_fini(&a);
    pv_trace_index_free(ix);
    pv_model_free(m);
}
END_TEST

/* A decoder's warnings (a trace cut off) reach the page through meta. */
START_TEST(test_trace_meta_json_warnings)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "main", 0);
    pv_builder_event(b, t, pv_builder_meta(b, p, 1, "a", NULL), 0, 10);
    const char *cut = "the trace is cut off at byte 99: the 1 events before it are shown";
    pv_builder_warning(b, cut, strlen(cut));
    pv_model *m = NULL;
    ck_assert_int_eq(pv_builder_finish(b, &m, NULL), 0);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_meta meta;
    ck_assert_int_eq(pv_tool_trace_meta(m, NULL, &a, &meta, NULL), 0);
    json_t *j = pv_trace_meta_to_json(m, NULL, &meta);
    json_t *w = json_object_get(j, "warnings");
    ck_assert_uint_eq(json_array_size(w), 1);
    ck_assert_str_eq(json_string_value(json_array_get(w, 0)), cut);
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- pv_trace_counters_tile_json ------------------------------------------------ */

/* The first counter of a tile's counters JSON, cut out as written. */
static const char *first_counter(char *json)
{
    char *end = strstr(json, "]]}");
    ck_assert_ptr_nonnull(end);
    end[3] = '\0';
    return json + 1;
}

START_TEST(test_counters_tile_json)
{
    pv_model *m = fixture();
    pv_trace_index *ix = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &ix, NULL), 0);
    /* memory in use (id 0) and the GPU's utilization (id 1, tested below) */
    ck_assert_uint_eq(ix->n_counters, 2);
    pv_buf b;
    pv_buf_init(&b, 1 << 16);
    /* whole span: both points, times relative to t0 = 1000 */
    ck_assert_int_eq(pv_trace_counters_tile_json(ix, 1000, 6006, &b), 0);
    ck_assert_str_eq(first_counter(b.data), "{\"id\":0,\"points\":[[500,1024],[2000,224]]}");
    /* a tile after both: only the carried-in last point */
    pv_buf_reset(&b);
    ck_assert_int_eq(pv_trace_counters_tile_json(ix, 4000, 5000, &b), 0);
    ck_assert_str_eq(first_counter(b.data), "{\"id\":0,\"points\":[[2000,224]]}");
    /* a tile before both: nothing */
    pv_buf_reset(&b);
    ck_assert_int_eq(pv_trace_counters_tile_json(ix, 1000, 1200, &b), 0);
    ck_assert_str_eq(b.data, "[]");
    pv_buf_fini(&b);
    pv_trace_index_free(ix);
    pv_model_free(m);
}
END_TEST

/* The same three tiles in the binary counters section (docs/trace_api.md,
 * "Binary tiles"), encoded by hand. */
START_TEST(test_counters_tile_bin)
{
    pv_model *m = fixture();
    pv_trace_index *ix = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &ix, NULL), 0);
    pv_buf b;
    pv_buf_init(&b, 1 << 16);
    ck_assert_int_eq(pv_trace_counters_tile_bin(ix, 1000, 6006, &b), 0);
    /* Two counters; the first, memory in use, as encoded by hand (the
     * second is the GPU's utilization, test_utilization_counter). */
    static const unsigned char whole[] = {
        0x02, 0x00, 0x02,                          /* 2 counters; id 0, 2 points */
        0xe8, 0x07,                                /* 1500 - 1000 -> zz 1000 = 7*128 + 104 */
        0xb8, 0x17,                                /* 3000 - 1500 -> zz 3000 = 23*128 + 56 */
        0, 0, 0, 0, 0, 0, 0x90, 0x40,              /* 1024.0 */
        0, 0, 0, 0, 0, 0, 0x6c, 0x40,              /* 224.0 */
    };
    ck_assert_uint_gt(b.len, sizeof whole);
    ck_assert(memcmp(b.data, whole, sizeof whole) == 0);
    pv_buf_reset(&b);
    ck_assert_int_eq(pv_trace_counters_tile_bin(ix, 4000, 5000, &b), 0);
    static const unsigned char after[] = {
        0x02, 0x00, 0x01, 0xcf, 0x0f,              /* 3000 - 4000 -> zz 1999 = 15*128 + 79 */
        0, 0, 0, 0, 0, 0, 0x6c, 0x40,
    };
    ck_assert_uint_gt(b.len, sizeof after);
    ck_assert(memcmp(b.data, after, sizeof after) == 0);
    pv_buf_reset(&b);
    ck_assert_int_eq(pv_trace_counters_tile_bin(ix, 1000, 1200, &b), 0);
    ck_assert_uint_eq(b.len, 1);
    ck_assert_int_eq(b.data[0], 0);
    pv_buf_fini(&b);
    pv_trace_index_free(ix);
    pv_model_free(m);
}
END_TEST

/* The GPU's utilization series: its kernels [2000,2500) and [5000,5010)
 * make 510 ps of busy time in the window [2000,5010], which the step chart
 * of its points must add up to; it starts busy and ends at 0. */
START_TEST(test_utilization_counter)
{
    pv_model *m = fixture();
    pv_trace_index *ix = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &ix, NULL), 0);
    const pv_trace_counter *c = &ix->counters[1];
    ck_assert_str_eq(c->name, "Device utilization (%)");
    ck_assert_str_eq(pv_model_str(m, m->planes[c->plane].name), "/device:GPU:0");
    ck_assert_int_eq(c->t_ps[0], 2000);
    ck_assert_double_eq(c->value[0], 100);
    ck_assert_int_eq(c->t_ps[c->n_points - 1], 5010);
    ck_assert_double_eq(c->value[c->n_points - 1], 0);
    ck_assert_double_eq(c->max, 100);
    double busy_ps = 0;
    for (size_t i = 0; i + 1 < c->n_points; i++)
        busy_ps += c->value[i] / 100 * (double)(c->t_ps[i + 1] - c->t_ps[i]);
    ck_assert_double_eq_tol(busy_ps, 510, 1e-6);
    pv_trace_index_free(ix);
    pv_model_free(m);
}
END_TEST

/* ---- pv_tool_trace_event --------------------------------------------------------- */

static pv_trace_event details(const pv_model *m, const pv_trace_index *ix, uint64_t id,
                              pv_arena *a)
{
    pv_trace_event r;
    pv_trace_event_query q = {id};
    ck_assert_int_eq(pv_tool_trace_event(m, ix, &q, a, &r, NULL), 0);
    return r;
}

START_TEST(test_trace_event_launch_flows)
{
    pv_model *m = fixture();
    pv_trace_index *ix = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &ix, NULL), 0);
    pv_arena a;
    pv_arena_init(&a, 4096);
    uint64_t launch = ev_named(m, "cudaLaunchKernel"), kern = ev_named(m, "kern");
    pv_trace_event r = details(m, ix, kern, &a);
    ck_assert_uint_eq(r.n_flows, 1);
    ck_assert_uint_eq(r.flows[0].ev, launch);
    ck_assert(r.flows[0].launch && !r.flows[0].out);
    r = details(m, ix, launch, &a);
    ck_assert_uint_eq(r.n_flows, 1);
    ck_assert_uint_eq(r.flows[0].ev, kern);
    ck_assert(r.flows[0].launch && r.flows[0].out);
    json_t *j = pv_trace_event_to_json(m, ix, &r);
    ck_assert_str_eq(json_string_value(json_object_get(j, "name")), "cudaLaunchKernel");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "start_ps")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "dur_ps")), 100);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "pid")), 701);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "tid")), 100);
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(j, "stats"), "correlation_id")), 42);
    json_t *f = json_array_get(json_object_get(j, "flows"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(f, "direction")), "out");
    ck_assert_str_eq(json_string_value(json_object_get(f, "kind")), "launch");
    ck_assert_int_eq(json_integer_value(json_object_get(f, "start_ps")), 1000);
    json_decref(j);
    pv_arena_fini(&a);
    pv_trace_index_free(ix);
    pv_model_free(m);
}
END_TEST

START_TEST(test_trace_event_flow_stat_and_long_name)
{
    pv_model *m = fixture();
    pv_trace_index *ix = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &ix, NULL), 0);
    pv_arena a;
    pv_arena_init(&a, 4096);
    uint64_t prod = ev_named(m, "producer"), cons = ev_named(m, "consumer");
    pv_trace_event r = details(m, ix, prod, &a);
    ck_assert_uint_eq(r.n_flows, 1);
    ck_assert_uint_eq(r.flows[0].ev, cons);
    ck_assert(!r.flows[0].launch && r.flows[0].out);
    r = details(m, ix, cons, &a);
    ck_assert_uint_eq(r.n_flows, 1);
    ck_assert(!r.flows[0].launch && !r.flows[0].out);
    r = details(m, ix, ev_named(m, "Op"), &a);
    json_t *j = pv_trace_event_to_json(m, ix, &r);
    ck_assert_str_eq(json_string_value(json_object_get(j, "long_name")), "long/full/name:Op");
    ck_assert(json_is_null(json_object_get(j, "step")));
    json_decref(j);
    pv_trace_event_query q = {m->n_events};
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_trace_event(m, ix, &q, &a, &r, &err), PV_ENOTFOUND);
    pv_arena_fini(&a);
    pv_trace_index_free(ix);
    pv_model_free(m);
}
END_TEST

/* ---- pv_tool_trace_search ---------------------------------------------------------- */

START_TEST(test_trace_search_paging)
{
    pv_model *m = fixture();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_search r;
    pv_trace_search_query q = {"KERN", 0, 100};
    ck_assert_int_eq(pv_tool_trace_search(m, NULL, &q, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.total, 2);   /* cudaLaunchKernel (1000), kern (2000) */
    ck_assert_uint_eq(r.ids[0], ev_named(m, "cudaLaunchKernel"));
    ck_assert_uint_eq(r.ids[1], ev_named(m, "kern"));
    /* "e": cudaLaunchKernel 1000, MemoryAllocation 1500, kern 2000,
     * MemoryDeallocation 3000, producer 4000, consumer 5000 */
    q = (pv_trace_search_query){"e", 2, 2};
    ck_assert_int_eq(pv_tool_trace_search(m, NULL, &q, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.total, 6);
    ck_assert_uint_eq(r.n, 2);
    ck_assert_uint_eq(r.ids[0], ev_named(m, "kern"));
    ck_assert_uint_eq(r.ids[1], ev_named(m, "MemoryDeallocation"));
    q = (pv_trace_search_query){"op", 0, 10};   /* the display name, not the long one */
    ck_assert_int_eq(pv_tool_trace_search(m, NULL, &q, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.total, 1);
    q = (pv_trace_search_query){"nothing like it", 0, 10};
    ck_assert_int_eq(pv_tool_trace_search(m, NULL, &q, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.total, 0);
    ck_assert_uint_eq(r.n, 0);
    q = (pv_trace_search_query){"", 0, 10};
    ck_assert_int_eq(pv_tool_trace_search(m, NULL, &q, &a, &r, NULL), PV_EINVAL);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- pv_trace_chrome_write ------------------------------------------------------------ */

static json_t *x_event(json_t *events, const char *name)
{
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *n = json_string_value(json_object_get(e, "name"));
        if (ph != NULL && strcmp(ph, "X") == 0 && n != NULL && strcmp(n, name) == 0)
            return e;
    }
    return NULL;
}

START_TEST(test_chrome_write_whole)
{
    pv_model *m = fixture();
    pv_buf b;
    pv_buf_init(&b, 1 << 20);
    pv_trace_chrome_query q = {false, INT64_MIN, INT64_MAX, 0, 0};
    ck_assert_int_eq(pv_trace_chrome_write(m, &q, &b, NULL), 0);
    json_error_t jerr;
    json_t *j = json_loads(b.data, 0, &jerr);
    ck_assert_msg(j != NULL, "%s", jerr.text);
    json_t *ev = json_object_get(j, "traceEvents");
    size_t n_x = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        const char *ph = json_string_value(json_object_get(json_array_get(ev, i), "ph"));
        n_x += ph != NULL && strcmp(ph, "X") == 0;
    }
    ck_assert_uint_eq(n_x, 6);   /* 8 events less the two memory events */
    json_t *k = x_event(ev, "kern");
    ck_assert_ptr_nonnull(k);
    ck_assert(json_real_value(json_object_get(k, "ts")) == 0.002);
    ck_assert(json_real_value(json_object_get(k, "dur")) == 0.0005);
    ck_assert_int_eq(json_integer_value(json_object_get(k, "pid")), 3);
    /* the file was not grouped: XProf derives lines from its only stream
     * (line 7) and numbers it 1 */
    ck_assert_int_eq(json_integer_value(json_object_get(k, "tid")), 1);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(k, "args"), "correlation_id")), "42");
    json_t *op = x_event(ev, "Op");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(op, "args"), "long_name")),
                     "long/full/name:Op");
    ck_assert_ptr_null(x_event(ev, "MemoryAllocation"));
    /* the last element is the reference's {} terminator */
    ck_assert_uint_eq(json_object_size(json_array_get(ev, json_array_size(ev) - 1)), 0);
    json_decref(j);
    pv_buf_fini(&b);
    pv_model_free(m);
}
END_TEST

START_TEST(test_chrome_write_window)
{
    pv_model *m = fixture();
    pv_buf b;
    pv_buf_init(&b, 1 << 20);
    /* [2400, 4500): kern (to 2500), Steps "1" (to 2600), producer (4000) */
    pv_trace_chrome_query q = {true, 2400, 4500, 0, 0};
    ck_assert_int_eq(pv_trace_chrome_write(m, &q, &b, NULL), 0);
    json_t *j = json_loads(b.data, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "returnedEventsSize")), 3);
    json_t *ev = json_object_get(j, "traceEvents");
    ck_assert_ptr_nonnull(x_event(ev, "kern"));
    ck_assert_ptr_nonnull(x_event(ev, "producer"));
    ck_assert_ptr_null(x_event(ev, "cudaLaunchKernel"));
    json_t *k = x_event(ev, "kern");
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(k, "args"), "correlation_id")), 42);
    json_decref(j);
    pv_buf_fini(&b);
    pv_model_free(m);
}
END_TEST

/* ---- what the reference's grouping adds (XProf 2.24.2) ---------------------- */

/* An ungrouped host profile (no group_id stats):
 *   python (1): train 1000+9000 (_r 1, step_num 3)
 *                 EagerExecute 2000+3000 (is_func 0: op by op)
 *                   a/MatMul:MatMul 2500+1000
 *                 EagerExecute 6000+2000 (is_func 1: a function)
 *                   b/Add:AddV2 6500+500
 *                 FunctionRun 8500+100 (producer _pt 1, _p 77)
 *   worker (2): ThreadpoolListener::StartRegion 3000+0 (consumer _ct 1, _c 77)
 *               ThreadpoolListener::StopRegion 3400+0
 *               async-copy 5000+100 (_a 1, flow 9 out): left out of the JSON */
static pv_model *fixture_ungrouped(bool grouped)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t py = pv_builder_track(b, host, 1, "python", 0);
    uint32_t wk = pv_builder_track(b, host, 2, "worker", 0);
    uint32_t m_train = pv_builder_meta(b, host, 1, "train", NULL);
    uint32_t m_eager = pv_builder_meta(b, host, 2, "EagerExecute", NULL);
    uint32_t m_matmul = pv_builder_meta(b, host, 3, "a/MatMul:MatMul", NULL);
    uint32_t m_add = pv_builder_meta(b, host, 4, "b/Add:AddV2", NULL);
    uint32_t m_run = pv_builder_meta(b, host, 5, "FunctionRun", NULL);
    uint32_t m_start = pv_builder_meta(b, host, 6, "ThreadpoolListener::StartRegion", NULL);
    uint32_t m_stop = pv_builder_meta(b, host, 7, "ThreadpoolListener::StopRegion", NULL);
    uint64_t e = pv_builder_event(b, py, m_train, 1000, 9000);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    pv_builder_event_stat_i64(b, e, "step_num", 3);
    if (grouped)
        pv_builder_event_stat_i64(b, e, "group_id", 5);
    e = pv_builder_event(b, py, m_eager, 2000, 3000);
    pv_builder_event_stat_i64(b, e, "is_func", 0);
    pv_builder_event(b, py, m_matmul, 2500, 1000);
    e = pv_builder_event(b, py, m_eager, 6000, 2000);
    pv_builder_event_stat_i64(b, e, "is_func", 1);
    pv_builder_event(b, py, m_add, 6500, 500);
    e = pv_builder_event(b, py, m_run, 8500, 100);
    pv_builder_event_stat_i64(b, e, "_pt", 1);
    pv_builder_event_stat_u64(b, e, "_p", 77);
    e = pv_builder_event(b, wk, m_start, 3000, 0);
    pv_builder_event_stat_i64(b, e, "_ct", 1);
    pv_builder_event_stat_u64(b, e, "_c", 77);
    pv_builder_event(b, wk, m_stop, 3400, 0);
    uint32_t m_async = pv_builder_meta(b, host, 8, "async-copy", NULL);
    e = pv_builder_event(b, wk, m_async, 5000, 100);
    pv_builder_event_stat_i64(b, e, "_a", 1);
    pv_builder_event_stat_u64(b, e, "flow", (9u << 2) | 2u);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), 0);
    return m;
}

static json_t *chrome_json(const pv_model *m)
{
    pv_buf b;
    pv_buf_init(&b, 1 << 20);
    pv_trace_chrome_query q = {false, INT64_MIN, INT64_MAX, 0, 0};
    ck_assert_int_eq(pv_trace_chrome_write(m, &q, &b, NULL), 0);
    json_error_t jerr;
    json_t *j = json_loadb(b.data, b.len, 0, &jerr);
    ck_assert_msg(j != NULL, "%s", jerr.text);
    pv_buf_fini(&b);
    return j;
}

/* The one non-metadata event of that name (any phase). */
static json_t *event_named(json_t *ev, const char *name)
{
    json_t *found = NULL;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *n = json_string_value(json_object_get(e, "name"));
        if (ph == NULL || strcmp(ph, "M") == 0 || n == NULL || strcmp(n, name) != 0)
            continue;
        ck_assert_msg(found == NULL, "two events named %s", name);
        found = e;
    }
    ck_assert_msg(found != NULL, "no event named %s", name);
    return found;
}

static size_t count_named(json_t *ev, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        const char *en = json_string_value(json_object_get(json_array_get(ev, i), "name"));
        n += en != NULL && strcmp(en, name) == 0;
    }
    return n;
}

static const char *arg_str(json_t *e, const char *name)
{
    return json_string_value(json_object_get(json_object_get(e, "args"), name));
}

START_TEST(test_chrome_reference_grouping)
{
    pv_model *m = fixture_ungrouped(false);
    json_t *j = chrome_json(m);
    json_t *ev = json_object_get(j, "traceEvents");
    /* step root renamed "<name> <step_num>" */
    json_t *train = event_named(ev, "train 3");
    ck_assert_str_eq(arg_str(train, "step_name"), "train 3");
    ck_assert_str_eq(arg_str(train, "step_num"), "3");
    ck_assert_str_eq(arg_str(train, "group_id"), "0");
    /* is_eager: under the op-by-op EagerExecute 1, under the function 0 */
    ck_assert_str_eq(arg_str(event_named(ev, "a/MatMul:MatMul"), "is_eager"), "1");
    ck_assert_str_eq(arg_str(event_named(ev, "b/Add:AddV2"), "is_eager"), "0");
    ck_assert_ptr_null(arg_str(event_named(ev, "FunctionRun"), "is_eager"));
    /* flows: producer out (low bits 2), consumer in (1), one id */
    const char *out = arg_str(event_named(ev, "FunctionRun"), "flow");
    json_t *start = event_named(ev, "ThreadpoolListener::StartRegion");
    const char *in = arg_str(start, "flow");
    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_nonnull(in);
    unsigned long long fo = strtoull(out, NULL, 10), fi = strtoull(in, NULL, 10);
    ck_assert_uint_eq(fo & 3u, 2);
    ck_assert_uint_eq(fi & 3u, 1);
    ck_assert_uint_eq(fo >> 2, fi >> 2);
    ck_assert_ptr_null(arg_str(train, "flow"));
    /* zero durations are thread-scoped instants without dur */
    ck_assert_str_eq(json_string_value(json_object_get(start, "ph")), "i");
    ck_assert_str_eq(json_string_value(json_object_get(start, "s")), "t");
    ck_assert_ptr_null(json_object_get(start, "dur"));
    ck_assert(json_number_value(json_object_get(start, "ts")) == 0.003);
    /* one Region from StartRegion to StopRegion, on its thread, no args */
    json_t *region = event_named(ev, "ThreadpoolListener::Region");
    ck_assert_str_eq(json_string_value(json_object_get(region, "ph")), "X");
    ck_assert(json_number_value(json_object_get(region, "ts")) == 0.003);
    ck_assert(json_number_value(json_object_get(region, "dur")) == 0.0004);
    ck_assert_int_eq(json_integer_value(json_object_get(region, "tid")), 2);
    ck_assert_ptr_null(json_object_get(region, "args"));
    ck_assert_uint_eq(count_named(ev, "async-copy"), 0);
    json_decref(j);
    pv_model_free(m);
}
END_TEST

/* A file TensorFlow grouped already (group_id stats): the reference adds
 * no step name, is_eager or flow; the Region is still made. */
START_TEST(test_chrome_grouped_file_kept)
{
    pv_model *m = fixture_ungrouped(true);
    json_t *j = chrome_json(m);
    json_t *ev = json_object_get(j, "traceEvents");
    json_t *train = event_named(ev, "train");
    ck_assert_str_eq(arg_str(train, "group_id"), "5");
    ck_assert_ptr_null(arg_str(train, "step_name"));
    ck_assert_ptr_null(arg_str(event_named(ev, "a/MatMul:MatMul"), "is_eager"));
    ck_assert_ptr_null(arg_str(event_named(ev, "FunctionRun"), "flow"));
    event_named(ev, "ThreadpoolListener::Region");
    ck_assert_uint_eq(count_named(ev, "async-copy"), 0);
    json_decref(j);
    pv_model_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace_event");
    TCase *tc = tcase_create("pv_tool_trace_meta");
    tcase_add_test(tc, test_trace_meta_order);
    tcase_add_test(tc, test_trace_meta_json);
    tcase_add_test(tc, test_trace_meta_json_warnings);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_trace_counters_tile_json");
    tcase_add_test(tc, test_counters_tile_json);
    tcase_add_test(tc, test_counters_tile_bin);
    tcase_add_test(tc, test_utilization_counter);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_trace_event");
    tcase_add_test(tc, test_trace_event_launch_flows);
    tcase_add_test(tc, test_trace_event_flow_stat_and_long_name);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_trace_search");
    tcase_add_test(tc, test_trace_search_paging);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_trace_chrome_write");
    tcase_add_test(tc, test_chrome_write_whole);
    tcase_add_test(tc, test_chrome_write_window);
    tcase_add_test(tc, test_chrome_reference_grouping);
    tcase_add_test(tc, test_chrome_grouped_file_kept);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
