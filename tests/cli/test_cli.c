/* Tests of profview summary and profview compare, run as the real binary
 * ($PROFVIEW_BIN) beside the real server: summary's numbers must be the
 * ones the tool routes answer for the same run (the step table's rows and
 * its rendered summary, the verdict, the idle shares, the op and kernel
 * tables, the memory peaks, device utilization), compare must pass every
 * gate on a run against itself and fail the step-time gate on the
 * input-bound Keras run against the fixed one (its CSV giving each run's
 * step time on the run's own side), and bad input must exit 2
 * with a message naming the file. */
#include "cli_run.h"
#include "httpc.h"
#include "served.h"
#include "testutil.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#define REF PV_SRCDIR "/tests/data/reference"
#define BOUND REF "/keras_input_bound"
#define FIXED REF "/keras_input_fixed"
#define SHARED(rel) pv_test_data_path("/logdirs" rel)
#define GPU_RUN "tf_keras_gpu_gcp/train/2022_11_04_21_26_12"

/* ---- running the binary --------------------------------------------------------- */

static json_t *cli_json(const char *const *args)
{
    run_out r = cli(args);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    json_error_t e;
    json_t *j = json_loads(r.out, 0, &e);
    ck_assert_msg(j != NULL, "not JSON: %s", e.text);
    run_free(&r);
    return j;
}

/* ---- the server's answers ----------------------------------------------------------- */

static char cache_dir[] = "/tmp/pv_cli_test_XXXXXX";

static void start(pv_test_server *s, const char *logdir)
{
    const char *extra[] = {"--cache-dir", cache_dir, NULL};
    ck_assert_int_eq(pv_test_server_start_indexed(s, logdir, extra), 0);
}

static json_t *route(const pv_test_server *s, const char *run, const char *host,
                     const char *tool, const char *more)
{
    char path[1024];
    snprintf(path, sizeof path, "/data/plugin/profile/data?run=%s&host=%s&tag=%s%s", run, host,
             tool, more);
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == 200, "%s: %d %s", path, r.status, r.body);
    json_t *j = json_loads(r.body, 0, NULL);
    ck_assert_ptr_nonnull(j);
    pv_test_reply_free(&r);
    return j;
}

/* The column of DataTable t with this id. */
static size_t col(const json_t *t, const char *id)
{
    const json_t *cols = json_object_get(t, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(cols, i), "id")), id) == 0)
            return i;
    ck_abort_msg("no column %s", id);
    return 0;
}

static const json_t *cell(const json_t *t, size_t row, size_t c)
{
    return json_object_get(
        json_array_get(json_object_get(json_array_get(json_object_get(t, "rows"), row), "c"), c),
        "v");
}

static const char *prop(const json_t *t, const char *key)
{
    return json_string_value(json_object_get(json_object_get(t, "p"), key));
}

static double num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

/* printf("%.1f") of v, as the page renders shares and step times. */
static const char *one(double v)
{
    static char buf[8][32];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%.1f", v);
    return buf[k];
}

/* Summary's steps (st) and input share (in) against the step table's
 * rows (their step times add up to total, from lo to hi) and its rendered
 * summary; the input share is the input column over the step time, as the
 * verdict says it in words when input is what it is about. */
static void check_steps(const json_t *steps, const json_t *st, const json_t *in, double total,
                        double lo, double hi)
{
    size_t n = json_array_size(json_object_get(steps, "rows"));
    ck_assert_double_eq_tol(num(st, "mean_ms"), total / (double)n, 1e-9);
    ck_assert_double_eq_tol(num(st, "min_ms"), lo, 1e-9);
    ck_assert_double_eq_tol(num(st, "max_ms"), hi, 1e-9);
    ck_assert_str_eq(one(num(st, "mean_ms")), prop(steps, "steptime_ms_average"));
    ck_assert_str_eq(one(num(st, "min_ms")), prop(steps, "steptime_ms_minimum"));
    ck_assert_str_eq(one(num(st, "max_ms")), prop(steps, "steptime_ms_maximum"));
    ck_assert_str_eq(one(num(st, "stddev_ms")), prop(steps, "steptime_ms_standard_deviation"));
    size_t ic = col(steps, "infeedTimeMs");
    double input = 0;
    for (size_t i = 0; i < n; i++)
        input += json_number_value(cell(steps, i, ic));
    ck_assert_double_eq_tol(num(in, "percent"), 100 * input / total, 1e-9);
    const char *statement = prop(steps, "input_conclusion");
    char words[80];
    snprintf(words, sizeof words, " %s%% of the total step time sampled is waiting for input",
             one(num(in, "percent")));
    if (strstr(statement, "waiting for input") != NULL)
        ck_assert_msg(strstr(statement, words) != NULL, "\"%s\" not in \"%s\"", words,
                      statement);
}

/* Checks the summary of (run, host) against the routes of server s. */
static void check_summary(const pv_test_server *s, const char *path, const char *run,
                          const char *host)
{
    const char *args[] = {"summary", path, "--json", "--top", "10", NULL};
    json_t *sum = cli_json(args);
    json_t *ov = route(s, run, host, "overview_page", "");

    /* Steps: the step table's rows, added up here; the rendered summary. */
    const json_t *steps = json_array_get(ov, 1);
    size_t n = json_array_size(json_object_get(steps, "rows"));
    size_t sc = col(steps, "stepTimeMs");
    double total = 0, lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++) {
        double v = json_number_value(cell(steps, i, sc));
        total += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    const json_t *st = json_object_get(sum, "steps");
    ck_assert_uint_eq((size_t)json_integer_value(json_object_get(st, "count")), n);
    if (n == 0) {
        ck_assert(json_is_null(json_object_get(st, "mean_ms")));
        ck_assert(json_is_null(json_object_get(json_object_get(sum, "input"), "percent")));
    }
    const json_t *in = json_object_get(sum, "input");
    if (n > 0)
        check_steps(steps, st, in, total, lo, hi);
    ck_assert_str_eq(json_string_value(json_object_get(in, "statement")),
                     prop(json_array_get(ov, 3), "statement"));
    ck_assert_str_eq(json_string_value(json_object_get(in, "statement")),
                     prop(json_array_get(ov, 3), "statement"));

    /* Idle shares as the first table renders them ("unknown": null). */
    const char *dev = prop(json_array_get(ov, 0), "device_idle_time_percent");
    const json_t *dv = json_object_get(json_object_get(sum, "idle"), "device_percent");
    if (strcmp(dev, "unknown") == 0) {
        ck_assert(json_is_null(dv));
    } else {
        char want[32];
        snprintf(want, sizeof want, "%s%%", one(json_number_value(dv)));
        ck_assert_str_eq(want, dev);
    }

    /* The top ops: the op table's rows as the page shows them. */
    json_t *ops = route(s, run, host, "framework_op_stats", "");
    const json_t *t = json_array_get(ops, 1);
    const json_t *top = json_object_get(json_object_get(sum, "ops"), "top");
    ck_assert_uint_gt(json_array_size(top), 0);
    for (size_t i = 0; i < json_array_size(top); i++) {
        const json_t *o = json_array_get(top, i);
        ck_assert_str_eq(json_string_value(json_object_get(o, "name")),
                         json_string_value(cell(t, i, col(t, "operation"))));
        ck_assert_str_eq(json_string_value(json_object_get(o, "category")),
                         json_string_value(cell(t, i, col(t, "type"))));
        ck_assert_double_eq(num(o, "self_us"),
                            json_number_value(cell(t, i, col(t, "total_self_time"))));
    }

    /* Memory: each allocator's peak in the window. */
    json_t *mem = route(s, run, host, "memory_profile", "");
    const json_t *peaks = json_object_get(sum, "memory");
    const json_t *per = json_object_get(mem, "memoryProfilePerAllocator");
    ck_assert_uint_eq(json_array_size(peaks), json_object_size(per));
    for (size_t i = 0; i < json_array_size(peaks); i++) {
        const json_t *p = json_array_get(peaks, i);
        const json_t *a = json_object_get(per, json_string_value(json_object_get(p, "allocator")));
        const char *peak = json_string_value(json_object_get(
            json_object_get(json_object_get(a, "profileSummary"), "peakStats"), "peakBytesInUse"));
        ck_assert_double_eq(num(p, "peak_bytes"), strtod(peak, NULL));
    }

    /* Device utilization: the tool's mean. The idle share is XProf's: the
     * Device IDLE row's share of the device op table's time. */
    json_t *util = route(s, run, host, "device_utilization", "");
    const json_t *u = json_object_get(sum, "utilization");
    const json_t *devs = json_object_get(u, "devices");
    ck_assert_uint_eq(json_array_size(devs), json_array_size(json_object_get(util, "devices")));
    if (json_array_size(devs) > 0)
        ck_assert_double_eq_tol(num(u, "mean_percent"), num(util, "mean_percent"), 1e-9);
    const json_t *with_idle = json_array_get(ops, 0);
    double idle_us = 0, device_us = 0;
    for (size_t i = 0; i < json_array_size(json_object_get(with_idle, "rows")); i++) {
        if (strcmp(json_string_value(cell(with_idle, i, col(with_idle, "host_or_device"))),
                   "Device") != 0)
            continue;
        double us = json_number_value(cell(with_idle, i, col(with_idle, "total_self_time")));
        device_us += us;
        if (strcmp(json_string_value(cell(with_idle, i, col(with_idle, "operation"))), "IDLE") == 0)
            idle_us += us;
    }
    /* The idle share is rendered to 0.1. */
    if (!json_is_null(dv))
        ck_assert_double_le(fabs(json_number_value(dv) - 100.0 * idle_us / device_us), 0.05);
    json_decref(util);
    json_decref(mem);
    json_decref(ops);
    json_decref(ov);
    json_decref(sum);
}

/* ---- summary -------------------------------------------------------------------------- */

START_TEST(test_summary_reference_keras)
{
    pv_test_server s;
    start(&s, BOUND);
    check_summary(&s, BOUND, "2026_11_29_17_36_18", "vm");
    pv_test_server_stop(&s);
    start(&s, FIXED);
    /* The run's folder and its one file read the same. */
    check_summary(&s, FIXED "/plugins/profile/2026_11_29_17_36_24", "2026_11_29_17_36_24", "vm");
    check_summary(&s, FIXED "/plugins/profile/2026_11_29_17_36_24/vm.xplane.pb",
                  "2026_11_29_17_36_24", "vm");
    pv_test_server_stop(&s);
}
END_TEST

START_TEST(test_summary_shared_gpu)
{
    PV_NEED_TESTDATA("test_summary_shared_gpu");
    pv_test_server s;
    start(&s, SHARED(""));
    check_summary(&s, SHARED("/tf_keras_gpu_gcp"), GPU_RUN, "instance-ecbm");
    check_summary(&s, SHARED("/jax_rocm_mi300/plugins/profile/jax08_gemm"),
                  "jax_rocm_mi300/jax08_gemm", "tw003");
    /* Eight GPUs: the idle share is their IDLE time over their time, added up. */
    check_summary(&s, SHARED("/jax_rocm_mi300/plugins/profile/jax_conv_minimal_08"),
                  "jax_rocm_mi300/jax_conv_minimal_08", "tw003");
    /* Kernels: added up per name from the route's rows. */
    const char *args[] = {"summary", SHARED("/tf_keras_gpu_gcp"), "--json", "--top", "0", NULL};
    json_t *sum = cli_json(args);
    json_t *ks = route(&s, GPU_RUN, "instance-ecbm", "kernel_stats",
                       "&max_rows=100000");
    const json_t *top = json_object_get(json_object_get(sum, "kernels"), "top");
    double tc = 0, all = 0;
    for (size_t r = 0; r < json_array_size(json_object_get(ks, "rows")); r++) {
        double us = json_number_value(cell(ks, r, col(ks, "total_duration_us")));
        all += us;
        tc += json_is_true(cell(ks, r, col(ks, "is_kernel_using_tensor_core"))) ? us : 0;
        const char *name = json_string_value(cell(ks, r, col(ks, "kernel_name")));
        double mine = -1;
        for (size_t k = 0; k < json_array_size(top); k++)
            if (strcmp(json_string_value(json_object_get(json_array_get(top, k), "name")),
                       name) == 0)
                mine = num(json_array_get(top, k), "total_us");
        ck_assert_double_ge(mine, us);
    }
    ck_assert_double_eq_tol(num(json_object_get(sum, "kernels"), "tensor_core_percent"),
                            100 * tc / all, 1e-9);
    json_decref(ks);
    json_decref(sum);
    pv_test_server_stop(&s);
}
END_TEST

/* TensorFlow's per-tool files, no profile: the same routes answer from them. */
START_TEST(test_summary_shared_tool_files)
{
    PV_NEED_TESTDATA("test_summary_shared_tool_files");
    pv_test_server s;
    start(&s, SHARED(""));
    const char *dir = SHARED("/tf_legacy_demo_2020/plugins/profile/GPU-compute-bound");
    const char *args[] = {"summary", dir, "--json", NULL};
    json_t *sum = cli_json(args);
    json_t *ov = route(&s, "tf_legacy_demo_2020/GPU-compute-bound", "localhost", "overview_page",
                       "");
    const json_t *steps = json_array_get(ov, 1);
    const json_t *st = json_object_get(sum, "steps");
    ck_assert_uint_eq((size_t)json_integer_value(json_object_get(st, "count")),
                      json_array_size(json_object_get(steps, "rows")));
    ck_assert_str_eq(one(num(st, "mean_ms")), prop(steps, "steptime_ms_average"));
    json_decref(ov);
    json_decref(sum);
    pv_test_server_stop(&s);
}
END_TEST

START_TEST(test_summary_csv_and_text)
{
    const char *csv[] = {"summary", BOUND, "--csv", NULL};
    run_out r = cli(csv);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "section,name,field,value\r\n"));
    ck_assert_ptr_nonnull(strstr(r.out, "steps,,count,8\r\n"));
    ck_assert_ptr_nonnull(strstr(r.out, "host_op,Iterator::Root::MapAndBatch,category,Dataset"));
    run_free(&r);
    const char *text[] = {"summary", BOUND, NULL};
    r = cli(text);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "8 steps: mean 133."));
    ck_assert_ptr_nonnull(strstr(r.out, "slowest input stage: Iterator::Root::MapAndBatch"));
    /* a CPU-only run: the host's idle share, the device's not recorded (as in the CSV) */
    ck_assert_ptr_nonnull(strstr(r.out, "Idle           device not recorded, host 68.0 %\n"));
    run_free(&r);
}
END_TEST

/* ---- compare --------------------------------------------------------------------------- */

START_TEST(test_compare_self_passes)
{
    const char *args[] = {"compare", BOUND, BOUND, "--max-step-time-ratio", "1",
                          "--max-peak-memory-ratio", "1", "--max-input-bound-percent", "100",
                          "--json", NULL};
    json_t *c = cli_json(args);
    ck_assert_str_eq(json_string_value(json_object_get(c, "verdict")), "holds");
    ck_assert_double_eq(num(json_object_get(c, "step_time_ms"), "ratio"), 1);
    const json_t *gates = json_object_get(c, "gates");
    ck_assert_uint_eq(json_array_size(gates), 3);
    for (size_t i = 0; i < 3; i++)
        ck_assert_str_eq(json_string_value(json_object_get(json_array_get(gates, i), "state")),
                         "holds");
    json_decref(c);
}
END_TEST

/* The number after the CSV line that starts with head, in csv. */
static double csv_value(const char *csv, const char *head)
{
    const char *at = strstr(csv, head);
    ck_assert_msg(at == csv || (at != NULL && at[-1] == '\n'), "no line %s in %s", head, csv);
    return strtod(at + strlen(head), NULL);
}

START_TEST(test_compare_keras_fails_gate)
{
    pv_test_server s[2];
    start(&s[0], FIXED);
    start(&s[1], BOUND);
    json_t *a = route(&s[0], "2026_11_29_17_36_24", "vm", "overview_page", "");
    json_t *b = route(&s[1], "2026_11_29_17_36_18", "vm", "overview_page", "");
    double mean[2];
    for (int k = 0; k < 2; k++) {
        const json_t *t = json_array_get(k == 0 ? a : b, 1);
        size_t n = json_array_size(json_object_get(t, "rows"));
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += json_number_value(cell(t, i, col(t, "stepTimeMs")));
        mean[k] = sum / (double)n;
    }
    const char *args[] = {"compare", FIXED, BOUND, "--max-step-time-ratio", "1.10", NULL};
    run_out r = cli(args);
    ck_assert_int_eq(r.status, 1);
    char want[128];
    snprintf(want, sizeof want, "ratio %.4g > 1.1 (--max-step-time-ratio)", mean[1] / mean[0]);
    ck_assert_msg(strstr(r.out, want) != NULL, "\"%s\" not in %s", want, r.out);
    ck_assert_ptr_nonnull(strstr(r.err, want));
    run_free(&r);
    const char *json_args[] = {"compare", FIXED, BOUND, "--max-step-time-ratio", "1.10",
                               "--json", NULL};
    r = cli(json_args);
    ck_assert_int_eq(r.status, 1);
    json_t *c = json_loads(r.out, 0, NULL);
    ck_assert_double_eq_tol(num(json_object_get(c, "step_time_ms"), "ratio"), mean[1] / mean[0],
                            1e-9);
    ck_assert_str_eq(json_string_value(json_object_get(c, "verdict")), "fails");
    json_decref(c);
    run_free(&r);
    /* the CSV's headline: base is the first run named, new the second */
    const char *csv[] = {"compare", FIXED, BOUND, "--csv", NULL};
    r = cli(csv);
    ck_assert_int_eq(r.status, 0);
    ck_assert_double_eq_tol(csv_value(r.out, "step_time_ms,Step time (ms),base,"), mean[0],
                            1e-6);
    ck_assert_double_eq_tol(csv_value(r.out, "step_time_ms,Step time (ms),new,"), mean[1],
                            1e-6);
    run_free(&r);
    const char *md[] = {"compare", FIXED, BOUND, "--markdown", NULL};
    r = cli(md);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "| Step time (ms) | 1.983 | 133.054 |"));
    run_free(&r);
    json_decref(a);
    json_decref(b);
    pv_test_server_stop(&s[0]);
    pv_test_server_stop(&s[1]);
}
END_TEST

/* ---- bad input ---------------------------------------------------------------------------- */

static void expect_exit2(const char *const *args, const char *says)
{
    run_out r = cli(args);
    ck_assert_int_eq(r.status, 2);
    ck_assert_msg(strstr(r.err, says) != NULL, "\"%s\" not in: %s", says, r.err);
    run_free(&r);
}

START_TEST(test_bad_input_exits_2)
{
    char dir[] = "/tmp/pv_cli_bad_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char empty[300], cut[300], noise[300], steps_less[300];
    snprintf(empty, sizeof empty, "%s/empty", dir);
    ck_assert_int_eq(mkdir(empty, 0755), 0);
    /* A real profile cut after its first 1000 bytes, and 1000 bytes of noise. */
    size_t len;
    uint8_t *whole = pv_test_read_file(BOUND "/plugins/profile/2026_11_29_17_36_18/vm.xplane.pb",
                                       &len);
    snprintf(cut, sizeof cut, "%s", pv_test_write_file(dir, "cut/vm.xplane.pb", whole, 1000, 0));
    for (size_t i = 0; i < 1000; i++)
        whole[i] = (uint8_t)(i * 7919u >> 3);
    snprintf(noise, sizeof noise, "%s",
             pv_test_write_file(dir, "noise.xplane.pb", whole, 1000, 0));
    free(whole);
    /* A run whose only file answers no tool figures read: no steps. */
    pv_test_write_file(dir, "nosteps/h.pod_viewer.json", "{}", 2, 0);
    snprintf(steps_less, sizeof steps_less, "%s/nosteps", dir);

    const char *missing[] = {"summary", "/nonexistent/run", NULL};
    expect_exit2(missing, "/nonexistent/run: cannot read it");
    const char *no_profiles[] = {"summary", empty, NULL};
    expect_exit2(no_profiles, "holds no profile profview reads");
    const char *truncated[] = {"summary", cut, NULL};
    expect_exit2(truncated, "vm.xplane.pb");
    const char *garbage[] = {"summary", noise, NULL};
    expect_exit2(garbage, "noise.xplane.pb");
    const char *bad_new[] = {"compare", BOUND, "/nonexistent/new", NULL};
    expect_exit2(bad_new, "/nonexistent/new");
    const char *unjudged[] = {"compare", BOUND, steps_less, "--max-step-time-ratio", "1.1",
                              NULL};
    expect_exit2(unjudged, "--max-step-time-ratio cannot be checked: the new run has no steps");
    const char *bad_flag[] = {"compare", BOUND, BOUND, "--max-step-time-ratio", "x", NULL};
    expect_exit2(bad_flag, "--max-step-time-ratio takes a number");
    const char *no_run[] = {"summary", BOUND, "--run", "nope", NULL};
    expect_exit2(no_run, "has no run \"nope\"");
    const char *no_host[] = {"summary", BOUND, "--host", "nope", NULL};
    expect_exit2(no_host, "has no host \"nope\"");
}
END_TEST

int main(void)
{
    if (mkdtemp(cache_dir) == NULL)
        return 1;
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("summary");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_summary_reference_keras);
    tcase_add_test(tc, test_summary_shared_gpu);
    tcase_add_test(tc, test_summary_shared_tool_files);
    tcase_add_test(tc, test_summary_csv_and_text);
    suite_add_tcase(s, tc);
    tc = tcase_create("compare");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_compare_self_passes);
    tcase_add_test(tc, test_compare_keras_fails_gate);
    tcase_add_test(tc, test_bad_input_exits_2);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
