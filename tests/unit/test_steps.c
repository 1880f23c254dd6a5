/* Tests of tools/steps.c, step_breakdown.c, input_pipeline.c and
 * overview.c on small hand-built models. Every expected number below was
 * worked out by hand from the events listed in each fixture (times in
 * microseconds; 1 us = 1e6 ps). */
#include "model_fixture.h"
#include "testutil.h"

#include "ingest/ingest.h"
#include "model/builder.h"
#include "model/memo.h"
#include "tools/steps/overview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US 1000000LL   /* ps per microsecond */

typedef struct fixture {
    pv_model_builder *b;
    uint32_t host, thread, gpu, stream, steps_line;
} fixture;

static uint64_t ev(pv_model_builder *b, uint32_t track, uint32_t plane, const char *name,
                   int64_t start_us, int64_t dur_us, int64_t group)
{
    static int64_t next_meta = 1;
    uint32_t meta = pv_builder_meta(b, plane, next_meta++, name, NULL);
    uint64_t e = pv_builder_event(b, track, meta, start_us * US, dur_us * US);
    if (group >= 0)
        pv_builder_event_stat_i64(b, e, "group_id", group);
    return e;
}

/* pv_tool_steps with the reference's defaults (no query) in a fresh
 * arena; it cannot fail on these models. */
static void steps_of(const pv_model *m, pv_arena *a, pv_steps_result *r)
{
    pv_error err = {0};
    pv_arena_init(a, 4096);
    ck_assert_int_eq(pv_tool_steps(m, NULL, a, r, &err), 0);
}

/* CPU only, one step of 100 us marked by "train 0" (group 0):
 *   IteratorGetNext:IteratorGetNext  10..30   -> waiting for input 20
 *   Conv2D:Conv2D                    30..80   -> host compute 50
 *   Relu:Relu (nested in Conv2D)     40..50   -> host compute (same type)
 *   nothing                          0..10, 80..100 -> all others 30
 * Input is 20 % of the step: HIGHLY input-bound ("host"). */
static pv_model *cpu_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python3", 0);
    ev(b, t, host, "train", 0, 100, 0);
    ev(b, t, host, "IteratorGetNext:IteratorGetNext", 10, 20, 0);
    ev(b, t, host, "Conv2D:Conv2D", 30, 50, 0);
    ev(b, t, host, "Relu:Relu", 40, 10, 0);
    uint32_t t2 = pv_builder_track(b, host, 2, "tf_data_iterator_get_next", 0);
    ev(b, t2, host, "Iterator::Model", 12, 16, 0);
    ev(b, t2, host, "Iterator::Model::Map", 14, 10, 0);
    ev(b, t2, host, "Iterator::Model::Map::TFRecord", 15, 4, 0);
    return pv_test_finish(b);
}

START_TEST(test_pv_tool_steps_cpu_breakdown)
{
    pv_model *m = cpu_model();
    pv_arena a;
    pv_steps_result r;
    steps_of(m, &a, &r);
    ck_assert_uint_eq(r.hardware, PV_HW_CPU_ONLY);
    ck_assert(r.host_merged);
    ck_assert_uint_eq(r.n_steps, 1);
    const pv_step *s = &r.steps[0];
    ck_assert_int_eq(s->begin_ps, 0);
    ck_assert_int_eq(s->dur_ps, 100 * US);
    ck_assert_int_eq(s->type_ps[PV_STEP_HOST_WAIT_INPUT], 20 * US);
    ck_assert_int_eq(s->type_ps[PV_STEP_HOST_COMPUTE], 50 * US);
    ck_assert_int_eq(s->type_ps[PV_STEP_UNKNOWN], 30 * US);
    ck_assert_str_eq(s->name, "0");
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* The reference's ClassifyCpuEvent on framework ops (xprof/convert/
 * xplane_to_step_events.cc): an infeed enqueue (a TensorFlow op whose
 * type starts with "InfeedEnqueue", the type written or derived) or a
 * host-to-device memcpy is host-to-device, a host-to-host memcpy is
 * host-to-host. CPU only, one step of 100 us marked by "train" (group 0):
 *   infeed/enqueue:InfeedEnqueueTuple   10..20  -> host to device 10
 *   host/InfeedEnqueue_2:               20..30  -> host to device 10
 *   MemcpyHToH                          30..45  -> host to host 15
 *   MEMCPYHToD_pinned                   45..50  -> host to device 5
 *   Conv2D:Conv2D                       50..70  -> host compute 20
 *   nothing                             0..10, 70..100 -> all others 40 */
START_TEST(test_pv_tool_steps_cpu_transfers)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python3", 0);
    ev(b, t, host, "train", 0, 100, 0);
    ev(b, t, host, "infeed/enqueue:InfeedEnqueueTuple", 10, 10, 0);
    ev(b, t, host, "host/InfeedEnqueue_2:", 20, 10, 0);
    ev(b, t, host, "MemcpyHToH", 30, 15, 0);
    ev(b, t, host, "MEMCPYHToD_pinned", 45, 5, 0);
    ev(b, t, host, "Conv2D:Conv2D", 50, 20, 0);
    pv_model *m = pv_test_finish(b);
    pv_arena a;
    pv_steps_result r;
    steps_of(m, &a, &r);
    ck_assert_uint_eq(r.n_steps, 1);
    const pv_step *s = &r.steps[0];
    ck_assert_int_eq(s->type_ps[PV_STEP_HOST_TO_DEVICE], 25 * US);
    ck_assert_int_eq(s->type_ps[PV_STEP_HOST_TO_HOST], 15 * US);
    ck_assert_int_eq(s->type_ps[PV_STEP_HOST_COMPUTE], 20 * US);
    ck_assert_int_eq(s->type_ps[PV_STEP_UNKNOWN], 40 * US);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_step_analysis_compute_cpu_verdict)
{
    pv_model *m = cpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_input_pipeline_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_input_pipeline(m, NULL, &a, &r, &err), 0);
    const pv_step_analysis *an = &r.analysis;
    ck_assert_double_eq_tol(an->summary[PV_BD_STEP_TIME].average, 0.1, 1e-12);
    ck_assert_double_eq_tol(an->summary[PV_BD_INPUT].average, 0.02, 1e-12);
    ck_assert_double_eq_tol(an->bottleneck.input_percent, 20.0, 1e-9);
    ck_assert_str_eq(an->bottleneck.input_classification, "host");
    ck_assert_str_eq(an->bottleneck.input_statement,
                     "Your program is HIGHLY input-bound because 20.0% of the total step time "
                     "sampled is waiting for input. Therefore, you should first focus on reducing "
                     "the input time.");
    /* all others 30 % is reported by the "all other" analysis: high */
    ck_assert_str_eq(an->bottleneck.all_other_classification, "high");
    ck_assert_str_eq(an->bottleneck.summary_next_step,
                     "Look at Section 3 for the breakdown of input time on the host.");
    /* Host input ops: Model 16 us total, self 16-10 = 6; Map 10, self 10-4 = 6;
     * TFRecord 4, self 4 (demanded file read: no Prefetch/Interleave/...).
     * Input-op self total 16 us. */
    ck_assert_uint_eq(r.n_input_ops, 3);
    ck_assert_int_eq(r.input_op_self_ps, 16 * US);
    double self_by_name[3] = {-1, -1, -1};
    for (size_t i = 0; i < r.n_input_ops; i++) {
        const pv_input_op *op = &r.input_ops[i];
        if (strcmp(op->op->name, "Iterator::Model") == 0)
            self_by_name[0] = (double)op->op->self_time_ps / US;
        else if (strcmp(op->op->name, "Iterator::Model::Map") == 0)
            self_by_name[1] = (double)op->op->self_time_ps / US;
        else if (strcmp(op->op->name, "Iterator::Model::Map::TFRecord") == 0) {
            self_by_name[2] = (double)op->op->self_time_ps / US;
            ck_assert_uint_eq(op->category, PV_INPUT_DEMANDED_FILE_READ);
            ck_assert_double_eq_tol(op->self_time_percent, 25.0, 1e-9);
        }
    }
    ck_assert_double_eq_tol(self_by_name[0], 6, 1e-9);
    ck_assert_double_eq_tol(self_by_name[1], 6, 1e-9);
    ck_assert_double_eq_tol(self_by_name[2], 4, 1e-9);
    /* No host-to-device time: the breakdown is the unscaled sums (us). */
    ck_assert_double_eq_tol(r.breakdown.preprocessing_us, 12, 1e-9);
    ck_assert_double_eq_tol(r.breakdown.demanded_file_read_us, 4, 1e-9);
    ck_assert_double_eq_tol(r.breakdown.enqueue_us, 0, 1e-9);
    ck_assert(r.tfdata_used);
    ck_assert_ptr_nonnull(r.bottleneck);
    ck_assert_uint_eq(r.n_diagnostics, 0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* GPU: device Steps line marks group 0 as 0..100 us. Kernels (all with a
 * correlation id, group 0) on one stream:
 *   conv_kernel      10..60  compute 32-bit
 *   ncclAllReduce    60..70  collectives
 *   gemm_fp16        70..80  compute 16-bit
 * Host thread (group 0): IteratorGetNext:IteratorGetNext 0..20 (waits for
 * input, but 10..20 is under the kernel, and device compute has the
 * higher priority) and ExecutorState::Process 80..90 (kernel launch).
 * With host events: compute32 50, coll 10, compute16 10, input 10,
 * launch 10, others 10. Without: input and launch become others (30). */
static pv_model *gpu_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "tf_Compute", 0);
    ev(b, t, host, "IteratorGetNext:IteratorGetNext", 0, 20, 0);
    ev(b, t, host, "ExecutorState::Process", 80, 10, 0);
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t s = pv_builder_track(b, gpu, 7, "Stream #7(Compute)", 0);
    uint64_t k;
    k = ev(b, s, gpu, "conv_kernel", 10, 50, 0);
    pv_builder_event_stat_u64(b, k, "correlation_id", 1);
    k = ev(b, s, gpu, "ncclAllReduce", 60, 10, 0);
    pv_builder_event_stat_u64(b, k, "correlation_id", 2);
    k = ev(b, s, gpu, "gemm_fp16", 70, 10, 0);
    pv_builder_event_stat_u64(b, k, "correlation_id", 3);
    uint32_t steps = pv_builder_track(b, gpu, 0xdeadbeefLL, "Steps", 0);
    ev(b, steps, gpu, "0", 0, 100, 0);
    return pv_test_finish(b);
}

START_TEST(test_pv_tool_steps_gpu_with_host)
{
    pv_model *m = gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_steps_result r;
    pv_error err = {0};
    pv_steps_query q = {.merge_host_with_device = true};
    ck_assert_int_eq(pv_tool_steps(m, &q, &a, &r, &err), 0);
    ck_assert_uint_eq(r.hardware, PV_HW_GPU);
    ck_assert_uint_eq(r.n_device_planes, 1);
    ck_assert_uint_eq(r.n_steps, 1);
    const int64_t *t = r.steps[0].type_ps;
    ck_assert_int_eq(r.steps[0].dur_ps, 100 * US);
    ck_assert_int_eq(t[PV_STEP_DEVICE_COMPUTE_32], 50 * US);
    ck_assert_int_eq(t[PV_STEP_DEVICE_COLLECTIVES], 10 * US);
    ck_assert_int_eq(t[PV_STEP_DEVICE_COMPUTE_16], 10 * US);
    ck_assert_int_eq(t[PV_STEP_HOST_WAIT_INPUT], 10 * US);
    ck_assert_int_eq(t[PV_STEP_HOST_PREPARE], 10 * US);
    ck_assert_int_eq(t[PV_STEP_UNKNOWN], 10 * US);

    pv_step_analysis an;
    pv_step_analysis_compute(&r, false, &a, &an);
    /* input 10 % -> MODERATELY; launch 10 % -> moderate; collectives 10 %
     * -> moderate; compute (50+10) 60 %; idle 100-10-60-10 = 20 %. */
    ck_assert_str_eq(an.bottleneck.input_classification, "both");
    ck_assert_str_eq(an.bottleneck.kernel_launch_classification, "moderate");
    ck_assert_str_eq(an.bottleneck.kernel_launch_statement,
                     "10.0 % of the total step time sampled is spent on 'Kernel Launch'.");
    ck_assert_str_eq(an.bottleneck.device_collectives_classification, "moderate");
    ck_assert_double_eq_tol(an.bottleneck.compute_percent, 60.0, 1e-9);
    ck_assert_double_eq_tol(an.bottleneck.idle_percent, 20.0, 1e-9);
    ck_assert_double_eq_tol(an.compute16_percent, 100.0 / 6.0, 1e-9);
    /* no tf.data: the next step suggests using it */
    ck_assert_ptr_nonnull(strstr(an.bottleneck.summary_next_step, "Consider using"));
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_steps_gpu_device_only)
{
    pv_model *m = gpu_model();
    pv_arena a;
    pv_steps_result r;
    steps_of(m, &a, &r);
    ck_assert(!r.host_merged);
    ck_assert_uint_eq(r.n_steps, 1);
    const int64_t *t = r.steps[0].type_ps;
    ck_assert_int_eq(t[PV_STEP_HOST_WAIT_INPUT], 0);
    ck_assert_int_eq(t[PV_STEP_HOST_PREPARE], 0);
    ck_assert_int_eq(t[PV_STEP_UNKNOWN], 30 * US);
    pv_step_analysis an;
    pv_step_analysis_compute(&r, false, &a, &an);
    /* input 0 %, all others 30 % -> POTENTIALLY input-bound */
    ck_assert_str_eq(an.bottleneck.input_classification, "both");
    ck_assert_ptr_nonnull(
        strstr(an.bottleneck.input_statement, "POTENTIALLY input-bound because 30.0%"));
    ck_assert_str_eq(an.bottleneck.all_other_classification, "no");
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* The device's Steps line marks only group 0; a kernel of group 1 has no
 * marker on the plane, so (as the reference intersects markers with
 * events per plane) group 1 is no step, and its host events do not make
 * it one either: host events only join groups the device has. */
START_TEST(test_pv_tool_steps_gpu_intersection)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python3", 0);
    ev(b, t, host, "train", 200, 100, 1);
    ev(b, t, host, "MatMul:MatMul", 210, 50, 1);
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t s = pv_builder_track(b, gpu, 7, "Stream #7(Compute)", 0);
    uint64_t k = ev(b, s, gpu, "k0", 10, 50, 0);
    pv_builder_event_stat_u64(b, k, "correlation_id", 1);
    k = ev(b, s, gpu, "k1", 210, 50, 1);
    pv_builder_event_stat_u64(b, k, "correlation_id", 2);
    uint32_t steps = pv_builder_track(b, gpu, 0xdeadbeefLL, "Steps", 0);
    ev(b, steps, gpu, "0", 0, 100, 0);
    pv_model *m = pv_test_finish(b);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_steps_result r;
    pv_error err = {0};
    pv_steps_query q = {.merge_host_with_device = true};
    ck_assert_int_eq(pv_tool_steps(m, &q, &a, &r, &err), 0);
    ck_assert_uint_eq(r.n_steps, 1);
    ck_assert_int_eq(r.steps[0].group_id, 0);
    ck_assert_int_eq(r.steps[0].type_ps[PV_STEP_DEVICE_COMPUTE_32], 50 * US);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* Three CPU steps of 10, 20 and 30 us (groups 2, 0, 1 in time order, all
 * host compute): ordered by group id, average 20, sample stddev 10. */
START_TEST(test_pv_step_analysis_compute_summary)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python3", 0);
    ev(b, t, host, "train", 0, 10, 2);
    ev(b, t, host, "MatMul:MatMul", 0, 10, 2);
    ev(b, t, host, "train", 100, 20, 0);
    ev(b, t, host, "MatMul:MatMul", 100, 20, 0);
    ev(b, t, host, "train", 200, 30, 1);
    ev(b, t, host, "MatMul:MatMul", 200, 30, 1);
    pv_model *m = pv_test_finish(b);
    pv_arena a;
    pv_steps_result r;
    steps_of(m, &a, &r);
    ck_assert_uint_eq(r.n_steps, 3);
    ck_assert_int_eq(r.steps[0].group_id, 0);
    ck_assert_int_eq(r.steps[0].dur_ps, 20 * US);
    ck_assert_int_eq(r.steps[2].group_id, 2);
    pv_step_analysis an;
    pv_step_analysis_compute(&r, false, &a, &an);
    const pv_step_summary *s = &an.summary[PV_BD_STEP_TIME];
    ck_assert_double_eq_tol(s->average, 0.020, 1e-12);
    ck_assert_double_eq_tol(s->standard_deviation, 0.010, 1e-12);
    ck_assert_double_eq_tol(s->minimum, 0.010, 1e-12);
    ck_assert_double_eq_tol(s->maximum, 0.030, 1e-12);
    ck_assert_str_eq(an.bottleneck.input_classification, "device");
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* No step marker at all: no steps, the verdict says the step time is
 * unknown and a diagnostic explains why (never zeros presented as data). */
START_TEST(test_pv_tool_input_pipeline_no_markers)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python3", 0);
    ev(b, t, host, "MatMul:MatMul", 0, 10, -1);
    pv_model *m = pv_test_finish(b);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_overview_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_overview(m, NULL, &a, &r, &err), 0);
    ck_assert_uint_eq(r.ip.steps.n_steps, 0);
    ck_assert_str_eq(r.ip.analysis.bottleneck.input_classification, "unknown");
    ck_assert_uint_eq(r.ip.n_diagnostics, 1);
    ck_assert_str_eq(r.ip.diagnostics[0].severity, "WARNING");
    ck_assert_ptr_nonnull(strstr(r.ip.diagnostics[0].message, "No step marker observed"));
    ck_assert_str_eq(r.device_type, "CPU");
    /* the host op table still has the one op: 10 us of 10 us */
    ck_assert_uint_eq(r.n_top_host, 1);
    ck_assert_double_eq_tol(r.top_host[0].self_time_fraction, 1.0, 1e-12);
    ck_assert(r.device_idle_percent < 0);
    json_t *j = pv_overview_to_json(&r);
    ck_assert_uint_eq(json_array_size(j), 7);
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* Run environment from the Task Environment plane: start 1 s after the
 * epoch plus 0.5 s, stop 2 s later; ProfileOptions bytes 08 01 10 03 are
 * include_dataset_ops = 1, host_tracer_level = 3. */
START_TEST(test_pv_tool_overview_task_environment)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python3", 0);
    ev(b, t, host, "MatMul:MatMul", 0, 10, -1);
    uint32_t env = pv_builder_plane(b, 1, "Task Environment");
    pv_builder_plane_stat_u64(b, env, "profile_start_time", 1500000000u);
    pv_builder_plane_stat_u64(b, env, "profile_stop_time", 3500000000u);
    static const uint8_t opts[] = {0x08, 0x01, 0x10, 0x03};
    pv_builder_plane_stat_bytes(b, env, "profile_options", opts, sizeof opts);
    pv_model *m = pv_test_finish(b);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_overview_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_overview(m, NULL, &a, &r, &err), 0);
    ck_assert_uint_eq(r.profile_start_ns, 1500000000u);
    ck_assert_uint_eq(r.profile_stop_ns, 3500000000u);
    ck_assert_int_eq(r.host_tracer_level, 3);
    json_t *j = pv_overview_to_json(&r);
    json_t *p = json_object_get(json_array_get(j, 2), "p");
    ck_assert_str_eq(json_string_value(json_object_get(p, "pv_profile_start_time")),
                     "1970-01-01 00:00:01 UTC");
    ck_assert_str_eq(json_string_value(json_object_get(p, "pv_profile_duration_ms")), "2000.0");
    ck_assert_str_eq(json_string_value(json_object_get(p, "pv_host_tracer_level")), "3");
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* One step, verdict numbers set by hand, ms[] in ms of a 100 ms step. */
static const pv_bottleneck *verdict_of(pv_arena *a, double input_ms, double other_ms,
                                       double launch_ms, double collectives_ms)
{
    pv_step_details *d = pv_arena_zalloc(a, sizeof *d);
    d->name = "0";
    d->ms[PV_BD_STEP_TIME] = 100;
    d->ms[PV_BD_HOST_WAIT_INPUT] = input_ms;
    d->ms[PV_BD_INPUT] = input_ms;
    d->ms[PV_BD_UNKNOWN] = other_ms;
    d->ms[PV_BD_HOST_PREPARE] = launch_ms;
    d->ms[PV_BD_DEVICE_COLLECTIVES] = collectives_ms;
    pv_step_analysis *an = pv_arena_zalloc(a, sizeof *an);
    pv_step_analysis_from_details(d, 1, true, a, an);
    return &an->bottleneck;
}

/* The reference's verdicts at their thresholds exactly, which it tests
 * with >= (op_stats_to_input_pipeline_analysis.cc: input 20 / 5 %, all
 * others 3 / 15 %, kernel launch 15 / 3 %, collectives 15 / 3 %): a
 * value at a threshold takes the higher verdict, one just under it the
 * lower. */
START_TEST(test_pv_step_analysis_compute_thresholds)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    ck_assert_str_eq(verdict_of(&a, 20, 0, 0, 0)->input_classification, "host");
    ck_assert_str_eq(verdict_of(&a, 19.99, 0, 0, 0)->input_classification, "both");
    const pv_bottleneck *b = verdict_of(&a, 5, 0, 0, 0);
    ck_assert_str_eq(b->input_classification, "both");
    ck_assert_str_eq(b->input_statement,
                     "Your program is MODERATELY input-bound because 5.0% of the total step time "
                     "sampled is waiting for input. Therefore, you would need to reduce both the "
                     "input time and other time.");
    b = verdict_of(&a, 4.99, 3, 0, 0);
    ck_assert_str_eq(b->input_classification, "both");
    ck_assert_str_eq(b->input_statement,
                     "Your program is POTENTIALLY input-bound because 3.0% of the total step time "
                     "sampled is spent on 'All Others' time (which could be due to I/O or Python "
                     "execution or both).");
    /* reported above, so not again below */
    ck_assert_str_eq(b->all_other_classification, "no");
    b = verdict_of(&a, 4.99, 2.99, 0, 0);
    ck_assert_str_eq(b->input_classification, "device");
    ck_assert_str_eq(b->input_statement,
                     "Your program is NOT input-bound because only 5.0% of the total step time "
                     "sampled is waiting for input. Therefore, you should focus on reducing other "
                     "time.");
    ck_assert_str_eq(b->all_other_classification, "no");
    /* input bound: "all others" gets its own verdict, 15 % is high */
    ck_assert_str_eq(verdict_of(&a, 20, 15, 0, 0)->all_other_classification, "high");
    ck_assert_str_eq(verdict_of(&a, 20, 14.99, 0, 0)->all_other_classification, "moderate");
    ck_assert_str_eq(verdict_of(&a, 0, 0, 15, 0)->kernel_launch_classification, "high");
    ck_assert_str_eq(verdict_of(&a, 0, 0, 14.99, 0)->kernel_launch_classification, "moderate");
    ck_assert_str_eq(verdict_of(&a, 0, 0, 3, 0)->kernel_launch_classification, "moderate");
    ck_assert_str_eq(verdict_of(&a, 0, 0, 2.99, 0)->kernel_launch_classification, "no");
    b = verdict_of(&a, 0, 0, 0, 15);
    ck_assert_str_eq(b->device_collectives_classification, "high");
    ck_assert_str_eq(b->device_collectives_statement,
                     "15.0 % of the total step time sampled is spent on 'Device Collective "
                     "Communication'.");
    ck_assert_str_eq(verdict_of(&a, 0, 0, 0, 3)->device_collectives_classification, "moderate");
    ck_assert_str_eq(verdict_of(&a, 0, 0, 0, 2.99)->device_collectives_classification, "no");
    pv_arena_fini(&a);
}
END_TEST

/* A profile of one step (cpu_model): every summary is that step's value
 * and every deviation 0.0, where the reference divides 0 by 0 and prints
 * -nan (accepted in tests/api/compare_rules.c by naming this test). */
START_TEST(test_pv_tool_steps_one_step)
{
    pv_model *m = cpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_input_pipeline_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_input_pipeline(m, NULL, &a, &r, &err), 0);
    ck_assert_uint_eq(r.analysis.n_steps, 1);
    for (int k = 0; k < PV_BD_N; k++) {
        const pv_step_summary *sum = &r.analysis.summary[k];
        ck_assert_double_eq(sum->average, r.analysis.steps[0].ms[k]);
        ck_assert_double_eq(sum->minimum, sum->average);
        ck_assert_double_eq(sum->maximum, sum->average);
        ck_assert_double_eq(sum->standard_deviation, 0);
    }
    json_t *j = pv_input_pipeline_to_json(&r);
    json_t *p = json_object_get(json_array_get(j, 1), "p");
    static const char *const sdv[] = {
        "compile_time_ms_sdv",       "device_collectives_time_ms_sdv",
        "device_compute_time_ms_sdv", "device_to_device_time_ms_sdv",
        "host_compute_time_ms_sdv",  "infeed_time_ms_sdv",
        "kernel_launch_time_ms_sdv", "outfeed_time_ms_sdv"};
    for (size_t i = 0; i < sizeof sdv / sizeof sdv[0]; i++)
        ck_assert_str_eq(json_string_value(json_object_get(p, sdv[i])), "0.0");
    /* 100 us = 0.1 ms, printed with one digit */
    ck_assert_str_eq(json_string_value(json_object_get(p, "steptime_ms_average")), "0.1");
    ck_assert_str_eq(json_string_value(json_object_get(p, "steptime_ms_minimum")), "0.1");
    ck_assert_str_eq(json_string_value(json_object_get(p, "steptime_ms_maximum")), "0.1");
    ck_assert_str_eq(json_string_value(json_object_get(p, "steptime_ms_standard_deviation")),
                     "0.0");
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* n CPU steps "train" of 100 us each, groups 0..n-1, one Conv2D in each. */
static pv_model *cpu_steps_model(int n)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python3", 0);
    for (int i = 0; i < n; i++) {
        ev(b, t, host, "train", 100 * i, 100, i);
        ev(b, t, host, "Conv2D:Conv2D", 100 * i + 10, 50, i);
    }
    return pv_test_finish(b);
}

/* The memo of m named name, copied (malloc'd) into *data; its length. */
static size_t memo_copy(const pv_model *m, const char *name, uint8_t **data)
{
    for (size_t i = 0; i < pv_model_memo_count(m); i++) {
        const char *n;
        const uint8_t *d;
        size_t len;
        pv_model_memo_at(m, i, &n, &d, &len);
        if (strcmp(n, name) == 0) {
            *data = malloc(len ? len : 1);
            memcpy(*data, d, len);
            return len;
        }
    }
    ck_abort_msg("no memo %s", name);
    return 0;
}

/* The steps and host op table are kept as memos (steps_memo.c) and read
 * from them: memos carried from cpu_model (1 step of 100 us, by hand; 6
 * host ops) into a model of 7 steps give cpu_model's answers, and memos
 * cut short are not read (the 7-step model's own: 5 steps kept, one op,
 * Conv2D, 7 x 50 us). */
START_TEST(test_pv_tool_steps_memos_read)
{
    static const char *const steps_memo = "steps/1 host0 drop1";
    static const char *const ops_memo = "steps_host_ops/1";
    pv_model *m1 = cpu_model();
    pv_arena a;
    pv_steps_result r;
    steps_of(m1, &a, &r);
    pv_steps_op_db db1;
    pv_steps_host_ops(m1, &a, &db1);
    ck_assert_uint_eq(db1.n_ops, 6);
    pv_arena_fini(&a);

    pv_model *m2 = cpu_steps_model(7);
    uint8_t *d;
    size_t len = memo_copy(m1, steps_memo, &d);
    pv_model_memo_give(m2, steps_memo, d, len);
    len = memo_copy(m1, ops_memo, &d);
    pv_model_memo_give(m2, ops_memo, d, len);
    steps_of(m2, &a, &r);
    ck_assert_uint_eq(r.n_steps, 1);
    ck_assert_int_eq(r.steps[0].dur_ps, 100 * US);
    ck_assert_int_eq(r.steps[0].type_ps[PV_STEP_HOST_WAIT_INPUT], 20 * US);
    pv_steps_op_db db;
    pv_steps_host_ops(m2, &a, &db);
    ck_assert_uint_eq(db.n_ops, 6);
    pv_arena_fini(&a);

    pv_model *m3 = cpu_steps_model(7);
    len = memo_copy(m1, steps_memo, &d);
    pv_model_memo_give(m3, steps_memo, d, len - 1);
    len = memo_copy(m1, ops_memo, &d);
    pv_model_memo_give(m3, ops_memo, d, 3);
    steps_of(m3, &a, &r);
    ck_assert_uint_eq(r.n_steps, 5);
    ck_assert_int_eq(r.steps[0].group_id, 1);
    pv_steps_host_ops(m3, &a, &db);
    ck_assert_uint_eq(db.n_ops, 1);
    ck_assert_str_eq(db.ops[0].name, "Conv2D");
    ck_assert_int_eq(db.ops[0].self_time_ps, 7 * 50 * US);   /* every step's Conv2D */
    pv_arena_fini(&a);
    pv_model_free(m3);
    pv_model_free(m2);
    pv_model_free(m1);
}
END_TEST

/* XProf's rule: with more than 5 steps the first and the last are dropped
 * as cut by the profiling window; 5 steps are all kept. By hand: 5 -> the
 * groups 0..4; 6 -> the groups 1..4, 2 incomplete. */
START_TEST(test_pv_tool_steps_drops_ends_past_five)
{
    const pv_steps_query q = {.drop_incomplete = true};
    for (int n = 5; n <= 6; n++) {
        pv_model *m = cpu_steps_model(n);
        pv_arena a;
        pv_arena_init(&a, 4096);
        pv_steps_result r;
        pv_error err = {0};
        ck_assert_int_eq(pv_tool_steps(m, &q, &a, &r, &err), 0);
        ck_assert_uint_eq(r.n_steps, n == 5 ? 5 : 4);
        ck_assert_uint_eq(r.n_incomplete, n == 5 ? 0 : 2);
        ck_assert_int_eq(r.steps[0].group_id, n == 5 ? 0 : 1);
        ck_assert_int_eq(r.steps[r.n_steps - 1].group_id, 4);
        pv_arena_fini(&a);
        pv_model_free(m);
    }
}
END_TEST

/* No device plane (cpu_model): the keys of the reference's TPU analysis
 * that need a device are "unknown", not 0.0% as the reference prints
 * them. The host's ops (IteratorGetNext 20, Conv2D 40 + Relu 10 on the
 * python3 thread, spanning 10..80; Iterator::Model 16 on its own thread)
 * cover both threads' spans, so the host's idle share is 0.0%. */
START_TEST(test_pv_tool_overview_cpu_unknown)
{
    pv_model *m = cpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_overview_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_overview(m, NULL, &a, &r, &err), 0);
    json_t *j = pv_overview_to_json(&r);
    json_t *p = json_object_get(json_array_get(j, 0), "p");
    static const char *const unknown[] = {
        "device_duty_cycle_high_confidence_percent", "device_duty_cycle_percent",
        "device_idle_time_percent", "flop_rate_utilization_relative_to_roofline",
        "memory_bw_utilization_relative_to_hw_limit"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        ck_assert_str_eq(json_string_value(json_object_get(p, unknown[i])), "unknown");
    ck_assert_str_eq(json_string_value(json_object_get(p, "host_idle_time_percent")), "0.0%");
    ck_assert_str_eq(json_string_value(json_object_get(p, "device_tf_op_percent")), "0.0%");
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- PyTorch traces ---------------------------------------------------- */

/* One ProfilerStep#1 of 100 us on a host thread: aten::mm [15,25]
 * launches gemm [20,30] on GPU 0, and a DataLoader iteration takes
 * [80,90]. By hand, with torch-tb-profiler's roles: DataLoader 10 of the
 * step's 100 us (above its 5 %); without that iteration, 0 %. */
static const char pytorch_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":9,"
    "\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":9,\"tid\":1,\"ts\":15,"
    "\"dur\":10,\"args\":{\"External id\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,\"tid\":1,"
    "\"ts\":16,\"dur\":2,\"args\":{\"External id\":1,\"correlation\":300}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":10,"
    "\"args\":{\"External id\":1,\"correlation\":300}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}}"
    "%s]";
static const char dataloader[] =
    ",{\"ph\":\"X\",\"cat\":\"cpu_op\","
    "\"name\":\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\",\"pid\":9,"
    "\"tid\":1,\"ts\":80,\"dur\":10,\"args\":{\"External id\":3}}";

static pv_model *pytorch_model(bool with_dataloader)
{
    char text[4096];
    snprintf(text, sizeof text, pytorch_trace, with_dataloader ? dataloader : "");
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_buffer((const uint8_t *)text, strlen(text), "t.pt.trace.json", NULL,
                                      &m, &err),
                     0);
    return m;
}

START_TEST(test_pv_tool_input_pipeline_pytorch_verdict)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_input_pipeline_result r;
    pv_model *m = pytorch_model(true);
    ck_assert_int_eq(pv_tool_input_pipeline(m, NULL, &a, &r, NULL), 0);
    ck_assert(r.pytorch);
    ck_assert_ptr_nonnull(strstr(r.analysis.bottleneck.input_statement,
                                 " 10.0% of the step time is in DataLoader. You could try"));
    ck_assert_str_eq(r.analysis.bottleneck.summary_next_step, "");
    pv_model_free(m);
    m = pytorch_model(false);
    ck_assert_int_eq(pv_tool_input_pipeline(m, NULL, &a, &r, NULL), 0);
    ck_assert_str_eq(r.analysis.bottleneck.input_statement,
                     "0.0% of the step time is in DataLoader, within the 5% torch-tb-profiler "
                     "recommends acting on: data loading is not what slows this run.");
    pv_model_free(m);
    m = cpu_model();
    ck_assert_int_eq(pv_tool_input_pipeline(m, NULL, &a, &r, NULL), 0);
    ck_assert(!r.pytorch);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("steps");
    TCase *tc = tcase_create("pv_tool_steps");
    tcase_add_test(tc, test_pv_tool_steps_cpu_breakdown);
    tcase_add_test(tc, test_pv_tool_steps_cpu_transfers);
    tcase_add_test(tc, test_pv_tool_steps_gpu_with_host);
    tcase_add_test(tc, test_pv_tool_steps_gpu_device_only);
    tcase_add_test(tc, test_pv_tool_steps_gpu_intersection);
    tcase_add_test(tc, test_pv_tool_steps_one_step);
    tcase_add_test(tc, test_pv_tool_steps_drops_ends_past_five);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_step_analysis_compute");
    tcase_add_test(tc, test_pv_step_analysis_compute_cpu_verdict);
    tcase_add_test(tc, test_pv_step_analysis_compute_summary);
    tcase_add_test(tc, test_pv_step_analysis_compute_thresholds);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_input_pipeline");
    tcase_add_test(tc, test_pv_tool_input_pipeline_no_markers);
    tcase_add_test(tc, test_pv_tool_input_pipeline_pytorch_verdict);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_overview");
    tcase_add_test(tc, test_pv_tool_overview_task_environment);
    tcase_add_test(tc, test_pv_tool_overview_cpu_unknown);
    tcase_add_test(tc, test_pv_tool_steps_memos_read);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
