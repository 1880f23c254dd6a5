/* API tests of trace JSON as a profile, over HTTP with the real binary, on
 * ../shared/testdata/traces used as the logdir: PyTorch's run folders are
 * found, and the trace viewer's routes (meta, tiles, search, details,
 * flows) and trace_viewer@ answer from the decoded model; TensorFlow's
 * legacy trace JSON gets the native timeline. Expected numbers come from
 * tools/reference/count_trace.py (Python's json, not profview):
 *   d=../shared/testdata/traces/kineto_resnet50_num_workers_0
 *   python3 tools/reference/count_trace.py --window 100 101 \
 *       $d/worker0.1623143089861.pt.trace.json.gz
 * gives X:44666 and i:12840, and X 49, i 12 (all 12 [memory]) overlapping
 * 100-101 ms. */
#include "served.h"
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define RESNET "run=kineto_resnet50_num_workers_0&host=worker0.1623143089861"

static pv_test_served served;

static void setup(void)
{
    pv_test_serve(&served, "traces", "trace_json_api");
}

static void teardown(void)
{
    pv_test_unserve(&served);
}

static json_t *get_json(const char *path, int want_status)
{
    return pv_test_get_json(&served, path, want_status, NULL);
}

/* ---- discovery ----------------------------------------------------------------- */

START_TEST(test_pytorch_runs_listed)
{
    PV_NEED_TESTDATA("test_pytorch_runs_listed");
    /* By hand from the folder: the folders holding *.pt.trace.json[.gz] or
     * *.trace.json[.gz] (HTA's rank0.json.gz and the like are named
     * otherwise and are not found), newest name first. */
    static const char *const want[] = {
        "tf_trace_viewer_json",
        "kineto_resnet50_num_workers_0_2020-12_array_format",
        "kineto_resnet50_num_workers_0",
        "kineto_resnet50_autograd_api_num_workers_0_2021-01",
        "hta/ns_resolution",
        "hta/cpu_only",
    };
    json_t *runs = get_json("/data/plugin/profile/runs", 200);
    ck_assert_uint_eq(json_array_size(runs), sizeof want / sizeof want[0]);
    for (size_t i = 0; i < json_array_size(runs); i++)
        ck_assert_str_eq(json_string_value(json_array_get(runs, i)), want[i]);
    json_decref(runs);
    json_t *hosts = get_json("/data/plugin/profile/hosts?run=kineto_resnet50_num_workers_0"
                             "&tag=trace_viewer@", 200);
    ck_assert_uint_eq(json_array_size(hosts), 2);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(hosts, 0), "hostname")),
                     "worker0.1623143089861");
    json_decref(hosts);
}
END_TEST

/* ---- the trace viewer's routes ------------------------------------------------- */

START_TEST(test_meta_and_tile_hold_every_event)
{
    PV_NEED_TESTDATA("test_meta_and_tile_hold_every_event");
    json_t *meta = get_json("/api/trace/meta?" RESNET, 200);
    ck_assert_int_eq(json_integer_value(json_object_get(meta, "n_events")), 44666 + 12840);
    json_int_t per_track[16] = {0}, total = 0;
    json_t *procs = json_object_get(meta, "processes");
    bool gpu = false;
    for (size_t i = 0; i < json_array_size(procs); i++) {
        json_t *p = json_array_get(procs, i);
        gpu = gpu || strcmp(json_string_value(json_object_get(p, "name")), "/device:GPU:0") == 0;
        json_t *th = json_object_get(p, "threads");
        for (size_t k = 0; k < json_array_size(th); k++) {
            json_t *t = json_array_get(th, k);
            json_int_t id = json_integer_value(json_object_get(t, "track"));
            ck_assert_int_lt(id, 16);
            per_track[id] = json_integer_value(json_object_get(t, "n_events"));
            total += per_track[id];
        }
    }
    ck_assert(gpu);
    ck_assert_int_eq(total, 44666 + 12840);
    json_decref(meta);
    /* level 0: own events plus box counts, per track */
    json_t *tile = get_json("/api/trace/tile?" RESNET "&level=0&index=0", 200);
    json_int_t got[16] = {0};
    json_t *tracks = json_object_get(tile, "tracks");
    for (size_t k = 0; k < json_array_size(tracks); k++) {
        json_t *t = json_array_get(tracks, k);
        json_int_t id = json_integer_value(json_object_get(t, "track"));
        got[id] += (json_int_t)json_array_size(json_object_get(t, "events"));
        json_t *bx = json_object_get(t, "boxes");
        for (size_t b = 0; b < json_array_size(bx); b++)
            got[id] += json_integer_value(json_array_get(json_array_get(bx, b), 3));
    }
    for (int id = 0; id < 16; id++)
        ck_assert_int_eq(got[id], per_track[id]);
    json_decref(tile);
}
END_TEST

START_TEST(test_search_details_and_flows)
{
    PV_NEED_TESTDATA("test_search_details_and_flows");
    /* 6 launches of this kernel in the file */
    json_t *s = get_json("/api/trace/search?" RESNET "&q=volta_scudnn_128x64_relu_medium_nn_v1",
                         200);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "total")), 6);
    json_int_t id = json_integer_value(json_object_get(json_array_get(json_object_get(s,
                                                                                      "results"),
                                                                      0),
                                                      "id"));
    json_decref(s);
    char path[300];
    snprintf(path, sizeof path, "/api/trace/event?" RESNET "&id=%lld", (long long)id);
    json_t *ev = get_json(path, 200);
    json_t *stats = json_object_get(ev, "stats");
    ck_assert_str_eq(json_string_value(json_object_get(stats, "cat")), "Kernel");
    json_int_t corr = json_integer_value(json_object_get(stats, "correlation"));
    ck_assert_int_gt(corr, 0);
    /* its ac2g flow leads in from the launch with the same correlation */
    json_t *flows = json_object_get(ev, "flows");
    ck_assert_uint_eq(json_array_size(flows), 1);
    json_t *f = json_array_get(flows, 0);
    ck_assert_str_eq(json_string_value(json_object_get(f, "direction")), "in");
    ck_assert_str_eq(json_string_value(json_object_get(f, "name")), "cudaLaunchKernel");
    snprintf(path, sizeof path, "/api/trace/event?" RESNET "&id=%lld",
             (long long)json_integer_value(json_object_get(f, "id")));
    json_t *launch = get_json(path, 200);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(launch, "stats"),
                                                        "correlation")),
                     corr);
    json_decref(launch);
    json_decref(ev);
}
END_TEST

START_TEST(test_trace_viewer_at_window)
{
    PV_NEED_TESTDATA("test_trace_viewer_at_window");
    /* a window of 1 ms holds what overlaps it, not the whole trace; the
     * instants there are Kineto's [memory] events, which are memory events
     * of the model that the Chrome JSON leaves out, as XProf leaves out
     * TensorFlow's (the memory profile shows them) */
    json_t *t = get_json("/data/plugin/profile/data?" RESNET
                         "&tag=trace_viewer@&start_time_ms=100&end_time_ms=101",
                         200);
    json_t *events = json_object_get(t, "traceEvents");
    size_t x = 0, i = 0;
    for (size_t k = 0; k < json_array_size(events); k++) {
        const char *ph = json_string_value(json_object_get(json_array_get(events, k), "ph"));
        x += ph != NULL && strcmp(ph, "X") == 0;
        i += ph != NULL && strcmp(ph, "i") == 0;
    }
    ck_assert_uint_eq(x, 49);
    ck_assert_uint_eq(i, 12 - 12);
    json_decref(t);
}
END_TEST

START_TEST(test_tf_legacy_trace_json_timeline)
{
    PV_NEED_TESTDATA("test_tf_legacy_trace_json_timeline");
    /* TensorFlow's trace JSON: 1663 X events (count_trace.py) */
    json_t *meta = get_json("/api/trace/meta?run=tf_trace_viewer_json&host=ip-172-31-19-241", 200);
    ck_assert_int_eq(json_integer_value(json_object_get(meta, "n_events")), 1663);
    json_decref(meta);
    json_t *tools = get_json("/data/plugin/profile/run_tools?run=tf_trace_viewer_json", 200);
    bool trace = false;
    for (size_t k = 0; k < json_array_size(tools); k++)
        trace = trace || strcmp(json_string_value(json_array_get(tools, k)), "trace_viewer@") == 0;
    ck_assert(trace);
    json_decref(tools);
}
END_TEST

static Suite *trace_json_api_suite(void)
{
    Suite *s = suite_create("trace_json_api");
    TCase *tc = tcase_create("routes");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_pytorch_runs_listed);
    tcase_add_test(tc, test_meta_and_tile_hold_every_event);
    tcase_add_test(tc, test_search_details_and_flows);
    tcase_add_test(tc, test_trace_viewer_at_window);
    tcase_add_test(tc, test_tf_legacy_trace_json_timeline);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(trace_json_api_suite());
}
