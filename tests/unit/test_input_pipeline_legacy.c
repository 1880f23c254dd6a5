/* Tests of ingest/tf_legacy/input_pipeline_legacy on a small overview
 * page packed by protobuf-c's own packer (the expected values are what was
 * packed) and on the hostile files of legacy_refusal.h. The real files
 * are compared with TensorFlow's and XProf's own numbers in
 * test_overview_ref. */
#include "ingest/tf_legacy/input_pipeline_legacy.h"
#include "input_pipeline.pb-c.h"
#include "legacy_refusal.h"
#include "overview_page.pb-c.h"

#include <math.h>

static int input_pipeline(const uint8_t *b, size_t n, const char *path, pv_arena *a,
                          pv_error *err)
{
    pv_input_pipeline_result r;
    return pv_input_pipeline_legacy_read(b, n, path, a, &r, err);
}

static int overview(const uint8_t *b, size_t n, const char *path, pv_arena *a, pv_error *err)
{
    pv_overview_result r;
    return pv_overview_legacy_read(b, n, path, a, &r, err);
}

/* An Any holding step, packed into bytes (128 at most), as TensorFlow
 * writes a step's details. */
static Tensorflow__Profiler__Any step_any(const Tensorflow__Profiler__PerGenericStepDetails *step,
                                          uint8_t *bytes)
{
    Tensorflow__Profiler__Any any = TENSORFLOW__PROFILER__ANY__INIT;
    ck_assert_uint_le(tensorflow__profiler__per_generic_step_details__get_packed_size(step), 128);
    any.type_url = "type.googleapis.com/tensorflow.profiler.PerGenericStepDetails";
    any.value.data = bytes;
    any.value.len = tensorflow__profiler__per_generic_step_details__pack(step, bytes);
    return any;
}

/* Packs page (read_ip: ip) and reads it back into *r (in a), which must
 * succeed. */
static void read_page(const Tensorflow__Profiler__OverviewPage *page, pv_arena *a,
                      pv_overview_result *r)
{
    uint8_t buf[512];
    ck_assert_uint_le(tensorflow__profiler__overview_page__get_packed_size(page), sizeof buf);
    size_t len = tensorflow__profiler__overview_page__pack(page, buf);
    pv_error err = {0};
    ck_assert_int_eq(pv_overview_legacy_read(buf, len, "o.pb", a, r, &err), 0);
}

static void read_ip(const Tensorflow__Profiler__InputPipelineAnalysisResult *ip, pv_arena *a,
                    pv_input_pipeline_result *r)
{
    uint8_t buf[512];
    ck_assert_uint_le(
        tensorflow__profiler__input_pipeline_analysis_result__get_packed_size(ip), sizeof buf);
    size_t len = tensorflow__profiler__input_pipeline_analysis_result__pack(ip, buf);
    pv_error err = {0};
    ck_assert_int_eq(pv_input_pipeline_legacy_read(buf, len, "i.pb", a, r, &err), 0);
}

START_TEST(test_pv_input_pipeline_legacy_read_refusals)
{
    /* InputPipelineAnalysisResult.input_op_details (field 6) */
    pv_test_legacy_refusals(input_pipeline, "x.input_pipeline.pb", 6, 0, 0x32);
}
END_TEST

START_TEST(test_pv_overview_legacy_read_refusals)
{
    /* OverviewPage.analysis (field 3); the tiny messages in
     * input_analysis.input_op_details */
    pv_test_legacy_refusals(overview, "x.overview_page.pb", 3, 0x12, 0x32);
}
END_TEST

START_TEST(test_pv_overview_legacy_read_packed)
{
    Tensorflow__Profiler__PerGenericStepDetails step =
        TENSORFLOW__PROFILER__PER_GENERIC_STEP_DETAILS__INIT;
    step.step_number = 7;
    step.step_time_ms = 20;
    step.host_wait_input_ms = 5;
    step.device_compute_ms = 15;
    uint8_t step_bytes[128];
    Tensorflow__Profiler__Any any = step_any(&step, step_bytes);
    Tensorflow__Profiler__Any *steps[1] = {&any};
    Tensorflow__Profiler__InputPipelineAnalysisResult ip =
        TENSORFLOW__PROFILER__INPUT_PIPELINE_ANALYSIS_RESULT__INIT;
    ip.step_details = steps;
    ip.n_step_details = 1;
    ip.hardware_type = "GPU";
    Tensorflow__Profiler__OverviewPageRunEnvironment__HostnamesEntry h =
        TENSORFLOW__PROFILER__OVERVIEW_PAGE_RUN_ENVIRONMENT__HOSTNAMES_ENTRY__INIT;
    h.key = "worker-0";
    h.value = 1;
    Tensorflow__Profiler__OverviewPageRunEnvironment__HostnamesEntry *hosts[1] = {&h};
    Tensorflow__Profiler__OverviewPageRunEnvironment env =
        TENSORFLOW__PROFILER__OVERVIEW_PAGE_RUN_ENVIRONMENT__INIT;
    env.hostnames = hosts;
    env.n_hostnames = 1;
    env.device_core_count = 2;
    Tensorflow__Profiler__OverviewPage page = TENSORFLOW__PROFILER__OVERVIEW_PAGE__INIT;
    page.input_analysis = &ip;
    page.run_environment = &env;
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_overview_result r;
    read_page(&page, &a, &r);
    ck_assert_int_eq(r.ip.steps.hardware, PV_HW_GPU);
    ck_assert_uint_eq(r.ip.steps.n_steps, 1);
    ck_assert_str_eq(r.device_type, "GPU");   /* none in the file: from the hardware */
    ck_assert_uint_eq(r.device_core_count, 2);
    ck_assert_uint_eq(r.n_hostnames, 1);
    ck_assert_str_eq(r.hostnames[0], "worker-0");
    ck_assert(r.device_idle_percent == -1);   /* no analysis: unknown */
    /* a step of another kind (TPU) is not read yet */
    any.type_url = "type.googleapis.com/tensorflow.profiler.PerTpuStepDetails";
    uint8_t buf[512];
    size_t len = tensorflow__profiler__overview_page__pack(&page, buf);
    pv_error err = {0};
    ck_assert_int_eq(pv_overview_legacy_read(buf, len, "o.pb", &a, &r, &err), PV_ENOTIMPL);
    /* a generic step whose value does not parse */
    any.type_url = "type.googleapis.com/tensorflow.profiler.PerGenericStepDetails";
    any.value.len = 3;   /* step_number (08 07), then a double's tag (11) with no value */
    ck_assert(step_bytes[0] == 0x08 && step_bytes[1] == 0x07 && step_bytes[2] == 0x11);
    len = tensorflow__profiler__overview_page__pack(&page, buf);
    ck_assert_int_eq(pv_overview_legacy_read(buf, len, "o.pb", &a, &r, &err), PV_EFORMAT);
    pv_arena_fini(&a);
}
END_TEST

/* Found by fuzz_input_pipeline_legacy: a string field holds whatever
 * bytes the file has, and an input op named by a byte that is not UTF-8
 * lost its cell in the JSON (jansson refuses the string), leaving a row
 * one cell short. */
START_TEST(test_pv_input_pipeline_legacy_read_not_utf8)
{
    Tensorflow__Profiler__InputOpDetails op = TENSORFLOW__PROFILER__INPUT_OP_DETAILS__INIT;
    op.op_name = "Iterator::\xff";
    op.category = "Preprocessing";
    Tensorflow__Profiler__InputOpDetails *ops[1] = {&op};
    Tensorflow__Profiler__InputPipelineAnalysisResult ip =
        TENSORFLOW__PROFILER__INPUT_PIPELINE_ANALYSIS_RESULT__INIT;
    ip.input_op_details = ops;
    ip.n_input_op_details = 1;
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_input_pipeline_result r;
    read_ip(&ip, &a, &r);
    json_t *j = pv_input_pipeline_to_json(&r);
    json_t *ops_table = json_array_get(j, 2);   /* [max_infeed_core, steps, host ops, ...] */
    ck_assert_uint_eq(json_array_size(json_object_get(ops_table, "cols")), 7);
    json_t *cells = json_object_get(json_array_get(json_object_get(ops_table, "rows"), 0), "c");
    ck_assert_uint_eq(json_array_size(cells), 7);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cells, 0), "v")),
                     "Iterator::?");
    json_decref(j);
    pv_arena_fini(&a);
}
END_TEST

/* Found by fuzz_input_pipeline_legacy: self times that each fit in
 * int64 ps (1e10 ms is past it, so saturated) overflowed when added up;
 * a step time past int64 ps was converted to one for the JSON, and an
 * infinite one left the JSON's per-step arrays a value short. */
START_TEST(test_pv_input_pipeline_legacy_read_huge_times)
{
    Tensorflow__Profiler__InputOpDetails op = TENSORFLOW__PROFILER__INPUT_OP_DETAILS__INIT;
    op.op_name = "Iterator::Map";
    op.self_time_in_ms = 1e10;
    Tensorflow__Profiler__InputOpDetails *ops[2] = {&op, &op};
    Tensorflow__Profiler__PerGenericStepDetails step =
        TENSORFLOW__PROFILER__PER_GENERIC_STEP_DETAILS__INIT;
    step.step_time_ms = 1e300;
    step.host_wait_input_ms = INFINITY;
    uint8_t step_bytes[128];
    Tensorflow__Profiler__Any any = step_any(&step, step_bytes);
    Tensorflow__Profiler__Any *steps[1] = {&any};
    Tensorflow__Profiler__InputPipelineAnalysisResult ip =
        TENSORFLOW__PROFILER__INPUT_PIPELINE_ANALYSIS_RESULT__INIT;
    ip.input_op_details = ops;
    ip.n_input_op_details = 2;
    ip.step_details = steps;
    ip.n_step_details = 1;
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_input_pipeline_result r;
    read_ip(&ip, &a, &r);
    ck_assert_int_eq(r.host_ops.ops[0].self_time_ps, INT64_MAX);
    ck_assert_int_eq(r.input_op_self_ps, INT64_MAX);
    json_t *j = pv_input_pipeline_to_json(&r);
    json_t *wait = json_object_get(json_array_get(j, 1), "pv_host_wait_input_ms");
    ck_assert_uint_eq(json_array_size(wait), 1);
    ck_assert(json_real_value(json_array_get(wait, 0)) == 0.0);   /* JSON has no infinity */
    json_decref(j);
    pv_arena_fini(&a);
}
END_TEST

/* Found by fuzz_input_pipeline_legacy: an overview page without an input
 * analysis left the verdict's words NULL, and the JSON writer compares
 * them. Such a page reads as one of no steps. */
START_TEST(test_pv_overview_legacy_read_no_input_analysis)
{
    Tensorflow__Profiler__OverviewPageRunEnvironment env =
        TENSORFLOW__PROFILER__OVERVIEW_PAGE_RUN_ENVIRONMENT__INIT;
    env.device_type = "CPU";
    Tensorflow__Profiler__OverviewPage page = TENSORFLOW__PROFILER__OVERVIEW_PAGE__INIT;
    page.run_environment = &env;
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_overview_result r;
    read_page(&page, &a, &r);
    ck_assert_int_eq(r.ip.steps.hardware, PV_HW_CPU_ONLY);
    ck_assert_uint_eq(r.ip.steps.n_steps, 0);
    ck_assert_ptr_nonnull(r.ip.analysis.bottleneck.input_classification);
    json_t *j = pv_overview_to_json(&r);
    ck_assert_ptr_nonnull(j);
    json_decref(j);
    pv_arena_fini(&a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("input_pipeline_legacy");
    TCase *tc = tcase_create("pv_input_pipeline_legacy_read");
    tcase_add_test(tc, test_pv_input_pipeline_legacy_read_refusals);
    tcase_add_test(tc, test_pv_input_pipeline_legacy_read_not_utf8);
    tcase_add_test(tc, test_pv_input_pipeline_legacy_read_huge_times);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_overview_legacy_read");
    tcase_add_test(tc, test_pv_overview_legacy_read_refusals);
    tcase_add_test(tc, test_pv_overview_legacy_read_packed);
    tcase_add_test(tc, test_pv_overview_legacy_read_no_input_analysis);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
