/* Tests of report/: figures read from hand-written tool answers, and
 * comparisons and their gates. Every expected number is worked out by hand
 * from the answers below. */
#include "report/compare.h"
#include "testutil.h"

#include <string.h>

/* Three steps of 10, 20 and 30 ms: input 5, 10, 0; compute the rest.
 * Mean 20, sample stddev 10, input 15 of 60 ms = 25 %. */
static const char overview[] =
    "[{\"cols\":[],\"p\":{\"device_idle_time_percent\":\"12.5%\","
    "\"host_idle_time_percent\":\"unknown\"},\"rows\":[]},"
    "{\"cols\":[{\"id\":\"stepnum\",\"label\":\"Step number\",\"type\":\"string\"},"
    "{\"id\":\"deviceComputeTimeMs\",\"label\":\"Device compute\",\"type\":\"number\"},"
    "{\"id\":\"infeedTimeMs\",\"label\":\"Input\",\"type\":\"number\"},"
    "{\"id\":\"tooltip\",\"label\":\"tooltip\",\"type\":\"string\"},"
    "{\"id\":\"stepTimeMs\",\"label\":\"Step time\",\"type\":\"number\"}],"
    "\"rows\":[{\"c\":[{\"v\":\"1\"},{\"v\":5},{\"v\":5},{\"v\":\"\"},{\"v\":10}]},"
    "{\"c\":[{\"v\":\"2\"},{\"v\":10},{\"v\":10},{\"v\":\"\"},{\"v\":20}]},"
    "{\"c\":[{\"v\":\"3\"},{\"v\":30},{\"v\":0},{\"v\":\"\"},{\"v\":30}]}]},"
    "{\"cols\":[],\"p\":{\"device_type\":\"GPU\"},\"rows\":[]},"
    "{\"cols\":[],\"p\":{\"bottleneck\":\"host\",\"statement\":\"Mostly input.\","
    "\"pv_input_bottleneck_stage\":\"Iterator::Map\"},\"rows\":[]}]";

/* TensorFlow's older table: no step time column; the parts add up. */
static const char old_overview[] =
    "[{\"cols\":[],\"p\":{},\"rows\":[]},"
    "{\"cols\":[{\"id\":\"stepnum\",\"label\":\"stepnum\",\"type\":\"string\"},"
    "{\"id\":\"computeTimeMs\",\"label\":\"Compute\",\"type\":\"number\"},"
    "{\"id\":\"inputTimeMs\",\"label\":\"Input\",\"type\":\"number\"},"
    "{\"id\":\"idleTimeMs\",\"label\":\"Idle\",\"type\":\"number\"}],"
    "\"rows\":[{\"c\":[{\"v\":\"0\"},{\"v\":3},{\"v\":1},{\"v\":0}]},"
    "{\"c\":[{\"v\":\"1\"},{\"v\":5},{\"v\":1},{\"v\":2}]}]}]";

static const char ops[] =
    "[{\"cols\":[],\"rows\":[]},"
    "{\"cols\":[{\"id\":\"host_or_device\"},{\"id\":\"type\"},{\"id\":\"operation\"},"
    "{\"id\":\"occurrences\"},{\"id\":\"total_time\"},{\"id\":\"total_self_time\"}],"
    "\"rows\":[{\"c\":[{\"v\":\"Device\"},{\"v\":\"MatMul\"},{\"v\":\"a/MatMul\"},{\"v\":4},"
    "{\"v\":900},{\"v\":800}]},"
    "{\"c\":[{\"v\":\"Host\"},{\"v\":\"Dataset\"},{\"v\":\"Iterator::Map\"},{\"v\":2},"
    "{\"v\":1000},{\"v\":1000}]},"
    "{\"c\":[{\"v\":\"Host\"},{\"v\":\"IDLE\"},{\"v\":\"IDLE\"},{\"v\":0},{\"v\":5},{\"v\":5}]}]}]";

/* Two launch configurations of k1 (one on tensor cores) and k2. */
static const char kernels[] =
    "{\"cols\":[{\"id\":\"kernel_name\"},{\"id\":\"op_name\"},{\"id\":\"occurrences\"},"
    "{\"id\":\"total_duration_us\"},{\"id\":\"is_kernel_using_tensor_core\"}],"
    "\"rows\":[{\"c\":[{\"v\":\"k1\"},{\"v\":\"a/MatMul\"},{\"v\":3},{\"v\":60},{\"v\":true}]},"
    "{\"c\":[{\"v\":\"k2\"},{\"v\":\"b/Relu\"},{\"v\":1},{\"v\":50},{\"v\":false}]},"
    "{\"c\":[{\"v\":\"k1\"},{\"v\":\"a/MatMul\"},{\"v\":1},{\"v\":10},{\"v\":false}]}]}";

static const char memory[] =
    "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{\"profileSummary\":{"
    "\"peakBytesUsageLifetime\":\"4096\",\"memoryCapacity\":\"8192\","
    "\"peakStats\":{\"peakBytesInUse\":\"2048\"}}}}}";

static const char util[] =
    "{\"mean_percent\":40,\"devices\":[{\"name\":\"/device:GPU:0\",\"mean_percent\":40,"
    "\"idle_gaps\":3,\"longest_gaps\":[{\"start_ps\":0,\"dur_ps\":2500000000}]}]}";

static const pv_figures_ask *ask(const char *tool)
{
    size_t n;
    const pv_figures_ask *a = pv_figures_asks(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(a[i].tool, tool) == 0)
            return &a[i];
    ck_abort_msg("no ask for %s", tool);
    return NULL;
}

static void add(pv_figures *f, const char *tool, const char *host, const char *json)
{
    pv_error err = {0};
    ck_assert_int_eq(pv_figures_add(f, ask(tool), host, json, strlen(json), &err), 0);
}

static void full(pv_figures *f, pv_arena *a, const char *run)
{
    pv_figures_init(f, run, "h", a);
    add(f, "overview_page", "", overview);
    add(f, "framework_op_stats", "", ops);
    add(f, "kernel_stats", "", kernels);
    add(f, "memory_profile", "h", memory);
    add(f, "device_utilization", "h", util);
    pv_figures_finish(f);
}

/* ---- pv_figures_add ------------------------------------------------------------ */

START_TEST(test_pv_figures_add_steps)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_figures f;
    full(&f, &a, "r");
    ck_assert_uint_eq(f.n_steps, 3);
    ck_assert_double_eq_tol(f.step_mean_ms, 20, 1e-12);
    ck_assert_double_eq_tol(f.step_min_ms, 10, 1e-12);
    ck_assert_double_eq_tol(f.step_max_ms, 30, 1e-12);
    ck_assert_double_eq_tol(f.step_stddev_ms, 10, 1e-12);
    ck_assert_double_eq_tol(f.input_percent, 25, 1e-12);
    ck_assert_uint_eq(f.n_parts, 2);
    ck_assert_str_eq(f.parts[1].label, "Input");
    ck_assert_double_eq_tol(f.parts[1].mean_ms, 5, 1e-12);
    ck_assert_double_eq_tol(pv_figures_part_ms(&f, "deviceComputeTimeMs"), 15, 1e-12);
    ck_assert_double_eq(pv_figures_part_ms(&f, "nope"), -1);
    ck_assert_double_eq_tol(f.device_idle_percent, 12.5, 1e-12);
    ck_assert_double_eq(f.host_idle_percent, -1);
    ck_assert_str_eq(f.input_verdict, "host");
    ck_assert_str_eq(f.input_statement, "Mostly input.");
    ck_assert_str_eq(f.input_stage, "Iterator::Map");
    ck_assert_str_eq(f.hardware, "GPU");
    pv_arena_fini(&a);
}
END_TEST

START_TEST(test_pv_figures_add_old_overview)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_figures f;
    pv_figures_init(&f, "r", "", &a);
    add(&f, "overview_page", "", old_overview);
    pv_figures_finish(&f);
    /* Steps of 4 and 8 ms: mean 6, input 2 of 12 ms. */
    ck_assert_uint_eq(f.n_steps, 2);
    ck_assert_double_eq_tol(f.step_mean_ms, 6, 1e-12);
    ck_assert_double_eq_tol(f.input_percent, 100.0 / 6, 1e-12);
    ck_assert_uint_eq(f.n_parts, 3);
    /* Nothing else answered: those figures stay unknown. */
    ck_assert_uint_eq(f.n_ops, 0);
    ck_assert_double_eq(f.tensor_core_percent, -1);
    ck_assert_double_eq(f.utilization_percent, -1);
    pv_arena_fini(&a);
}
END_TEST

START_TEST(test_pv_figures_add_lists)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_figures f;
    full(&f, &a, "r");
    /* IDLE is not an op; the rest in the table's order, device first. */
    ck_assert_uint_eq(f.n_ops, 2);
    ck_assert_str_eq(f.ops[0].category, "MatMul");
    ck_assert_str_eq(f.ops[0].side, "Device");
    ck_assert_str_eq(f.ops[1].name, "Iterator::Map");
    /* k1's two configurations are one kernel of 70 us, 60 on tensor cores. */
    ck_assert_uint_eq(f.n_kernels, 2);
    ck_assert_str_eq(f.kernels[0].name, "k1");
    ck_assert_double_eq_tol(f.kernels[0].total_us, 70, 1e-12);
    ck_assert_uint_eq(f.kernels[0].occurrences, 4);
    ck_assert_double_eq_tol(f.tensor_core_percent, 50, 1e-12);
    ck_assert_uint_eq(f.n_allocs, 1);
    ck_assert_double_eq(f.allocs[0].peak_bytes, 2048);
    ck_assert_double_eq(f.allocs[0].lifetime_peak_bytes, 4096);
    ck_assert_double_eq(f.allocs[0].capacity_bytes, 8192);
    ck_assert_uint_eq(f.n_devices, 1);
    ck_assert_double_eq_tol(f.devices[0].longest_gap_ms, 2.5, 1e-12);
    ck_assert_double_eq_tol(f.utilization_percent, 40, 1e-12);
    pv_arena_fini(&a);
}
END_TEST

START_TEST(test_pv_figures_add_bad)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_figures f;
    pv_figures_init(&f, "r", "", &a);
    pv_error err = {0};
    ck_assert_int_eq(pv_figures_add(&f, ask("overview_page"), "", "nope", 4, &err), PV_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.reason, "not JSON"));
    ck_assert_int_eq(pv_figures_add(&f, ask("overview_page"), "", "{}", 2, &err), PV_EFORMAT);
    ck_assert_int_eq(pv_figures_add(&f, ask("framework_op_stats"), "", "[{}]", 4, &err),
                     PV_EFORMAT);
    ck_assert_uint_eq(f.n_steps, 0);
    pv_arena_fini(&a);
}
END_TEST

START_TEST(test_pv_figures_query_param)
{
    char buf[16];
    ck_assert_str_eq(pv_figures_query_param("a=1&max_ops=0", "max_ops", buf, sizeof buf), "0");
    ck_assert_ptr_null(pv_figures_query_param("max_ops_x=1", "max_ops", buf, sizeof buf));
    ck_assert_ptr_null(pv_figures_query_param("", "a", buf, sizeof buf));
}
END_TEST

/* ---- pv_compare ------------------------------------------------------------------ */

START_TEST(test_pv_compare_self)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_figures f;
    full(&f, &a, "r");
    pv_gates g = {1.0, 1.0, 25};
    pv_comparison c;
    pv_compare(&f, &f, &g, &a, &c);
    ck_assert_double_eq(c.step_ratio, 1);
    ck_assert_uint_eq(c.n_ops, 0);
    ck_assert_uint_eq(c.n_kernels, 0);
    ck_assert_uint_eq(c.n_gates, 3);
    ck_assert_int_eq(c.verdict, PV_GATE_HOLDS);
    pv_arena_fini(&a);
}
END_TEST

START_TEST(test_pv_compare_moves)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_figures base, next;
    full(&base, &a, "base");
    full(&next, &a, "new");
    /* The new run: steps 1.5 times as long, one op slower, one gone, one
     * new, the peak doubled, on another host. */
    next.step_mean_ms = 30;
    next.ops[1].self_us = 1500;
    next.n_ops = 1;
    pv_fig_op extra[2] = {next.ops[1], {"Host", "fresh", "Add", 1, 7, 7}};
    next.ops = extra;
    next.n_ops = 2;
    pv_fig_alloc peak = base.allocs[0];
    peak.host = "other";
    peak.peak_bytes = 4096;
    next.allocs = &peak;
    pv_gates g = {1.10, 1.5, 20};
    pv_comparison c;
    pv_compare(&base, &next, &g, &a, &c);
    ck_assert_double_eq_tol(c.step_ratio, 1.5, 1e-12);
    ck_assert_uint_eq(c.n_ops_added, 1);
    ck_assert_uint_eq(c.n_ops_removed, 1);
    ck_assert_uint_eq(c.n_ops_changed, 1);
    /* By absolute change: +500 (Iterator::Map), -800 (a/MatMul), +7 (fresh). */
    ck_assert_str_eq(c.ops[0].name, "a/MatMul");
    ck_assert_int_eq(c.ops[0].change, PV_REMOVED);
    ck_assert_str_eq(c.ops[1].name, "Iterator::Map");
    ck_assert_double_eq(c.ops[1].base, 1000);
    ck_assert_double_eq(c.ops[1].new_, 1500);
    ck_assert_int_eq(c.ops[2].change, PV_ADDED);
    /* One host each side: allocators meet by name. */
    ck_assert_uint_eq(c.n_allocs, 1);
    ck_assert_double_eq(c.allocs[0].base, 2048);
    ck_assert_double_eq(c.allocs[0].new_, 4096);
    ck_assert_int_eq(c.gates[0].state, PV_GATE_FAILS);
    ck_assert_ptr_nonnull(strstr(c.gates[0].message, "ratio 1.5 > 1.1"));
    ck_assert_int_eq(c.gates[1].state, PV_GATE_FAILS);   /* 2 > 1.5 */
    ck_assert_int_eq(c.gates[2].state, PV_GATE_FAILS);   /* 25 > 20 */
    ck_assert_int_eq(c.verdict, PV_GATE_FAILS);
    json_t *j = pv_comparison_to_json(&c, 1);
    ck_assert_double_eq_tol(json_real_value(json_object_get(json_object_get(j, "step_time_ms"),
                                                            "ratio")), 1.5, 1e-12);
    ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(j, "ops"), "top")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "fails");
    json_decref(j);
    pv_arena_fini(&a);
}
END_TEST

START_TEST(test_pv_compare_unknown)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_figures base, next;
    full(&base, &a, "base");
    pv_figures_init(&next, "empty", "", &a);
    pv_figures_finish(&next);
    pv_gates g = {1.10, 1.5, 20};
    pv_comparison c;
    pv_compare(&base, &next, &g, &a, &c);
    ck_assert_double_eq(c.step_ratio, -1);
    for (size_t i = 0; i < 3; i++)
        ck_assert_int_eq(c.gates[i].state, PV_GATE_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(c.gates[0].message, "the new run has no steps"));
    ck_assert_int_eq(c.verdict, PV_GATE_UNKNOWN);
    pv_arena_fini(&a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("pv_figures_add");
    tcase_add_test(tc, test_pv_figures_add_steps);
    tcase_add_test(tc, test_pv_figures_add_old_overview);
    tcase_add_test(tc, test_pv_figures_add_lists);
    tcase_add_test(tc, test_pv_figures_add_bad);
    tcase_add_test(tc, test_pv_figures_query_param);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_compare");
    tcase_add_test(tc, test_pv_compare_self);
    tcase_add_test(tc, test_pv_compare_moves);
    tcase_add_test(tc, test_pv_compare_unknown);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
