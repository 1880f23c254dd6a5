/* Tests of the ALL_HOSTS input pipeline analyzer and overview page
 * (tools/overview_multi.c) on two hand-built CPU-only hosts. Every
 * expected number was worked out by hand from the tables below (us).
 *
 * Host A, thread "python3" (each step is one MatMul:MatMul covering it):
 *   train group 0    0..10   -> step "0", 10 us of host compute
 *   train group 1  100..130  -> step "1", 30 us
 *   train group 2  200..240  -> step "2", 40 us
 *   host ops: MatMul 3 runs, self 80; thread span 0..240 = 240
 * Host B:
 *   train group 0    0..20   -> step "0", 20 us
 *   train group 1  100..110  -> step "1", 10 us
 *   host ops: MatMul 2 runs, self 30; thread span 0..110 = 110
 *
 * ALL_HOSTS: B's steps span less time (0..110), so B is the chief; A
 * lines up with B best at no offset (overlaps 10 + 10), so steps "0"
 * and "1" are common and "2" (A only) is dropped. The
 * rows keep the first host's breakdown; the step-time summary takes each
 * step's slowest host: 20 and 30 -> average 25, sample deviation
 * sqrt(2 * 5^2 / 1) = 7.0710678, minimum 20, maximum 30. Host ops add
 * up: MatMul 5 runs, self 110 of a 350 span -> host idle 240/350. */
#include "model_fixture.h"
#include "testutil.h"

#include "model/builder.h"
#include "tools/steps/overview.h"
#include "tools/steps/step_intersection.h"

#include <math.h>
#include <string.h>

#define US 1000000LL   /* ps per microsecond */
#define TOL 1e-12

static void step(pv_model_builder *b, uint32_t plane, uint32_t track, int64_t meta_id,
                 int64_t group, int64_t start_us, int64_t dur_us)
{
    uint32_t train = pv_builder_meta(b, plane, meta_id, "train", NULL);
    uint32_t op = pv_builder_meta(b, plane, meta_id + 1, "MatMul:MatMul", NULL);
    uint64_t e = pv_builder_event(b, track, train, start_us * US, dur_us * US);
    pv_builder_event_stat_i64(b, e, "group_id", group);
    e = pv_builder_event(b, track, op, start_us * US, dur_us * US);
    pv_builder_event_stat_i64(b, e, "group_id", group);
}

static pv_model *host_model(bool host_b)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python3", 0);
    if (!host_b) {
        step(b, host, t, 1, 0, 0, 10);
        step(b, host, t, 3, 1, 100, 30);
        step(b, host, t, 5, 2, 200, 40);
    } else {
        step(b, host, t, 1, 0, 0, 20);
        step(b, host, t, 3, 1, 100, 10);
    }
    return pv_test_finish(b);
}

START_TEST(test_input_pipeline_multi_common_steps)
{
    const pv_model *models[2] = {host_model(false), host_model(true)};
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_input_pipeline_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_input_pipeline_multi(models, 2, NULL, &a, &r, &err), 0);
    ck_assert_uint_eq(r.steps.hardware, PV_HW_CPU_ONLY);
    ck_assert_uint_eq(r.steps.n_steps, 2);
    ck_assert_uint_eq(r.n_steps_dropped, 1);
    ck_assert_str_eq(r.steps.steps[0].name, "0");
    ck_assert_int_eq(r.steps.steps[0].dur_ps, 10 * US);
    ck_assert_str_eq(r.steps.steps[1].name, "1");
    ck_assert_int_eq(r.steps.steps[1].dur_ps, 30 * US);
    /* Rows: host A's numbers (ms). */
    ck_assert_uint_eq(r.analysis.n_steps, 2);
    ck_assert_double_eq_tol(r.analysis.steps[0].ms[PV_BD_STEP_TIME], 0.010, TOL);
    ck_assert_double_eq_tol(r.analysis.steps[1].ms[PV_BD_HOST_COMPUTE], 0.030, TOL);
    ck_assert_double_eq_tol(r.analysis.summary[PV_BD_HOST_COMPUTE].average, 0.020, TOL);
    /* Step-time summary: each step's slowest host. */
    const pv_step_summary *s = &r.analysis.summary[PV_BD_STEP_TIME];
    ck_assert_double_eq_tol(s->average, 0.025, TOL);
    ck_assert_double_eq_tol(s->standard_deviation, 0.005 * sqrt(2.0), TOL);
    ck_assert_double_eq_tol(s->minimum, 0.020, TOL);
    ck_assert_double_eq_tol(s->maximum, 0.030, TOL);
    /* Host ops added up. */
    ck_assert_uint_eq(r.host_ops.n_ops, 1);
    ck_assert_str_eq(r.host_ops.ops[0].name, "MatMul");
    ck_assert_uint_eq(r.host_ops.ops[0].occurrences, 5);
    ck_assert_int_eq(r.host_ops.ops[0].self_time_ps, 110 * US);
    ck_assert_int_eq(r.host_ops.total_time_ps, 350 * US);
    /* The dropped step is reported. */
    ck_assert_uint_eq(r.n_diagnostics, 1);
    ck_assert_str_eq(r.diagnostics[0].severity, "WARNING");
    ck_assert_ptr_nonnull(strstr(r.diagnostics[0].message, "1 step(s) were dropped"));

    /* The first host speaks for the rows: with B first, both of its
     * steps are common to A and none is dropped. */
    const pv_model *swapped[2] = {models[1], models[0]};
    ck_assert_int_eq(pv_tool_input_pipeline_multi(swapped, 2, NULL, &a, &r, &err), 0);
    ck_assert_uint_eq(r.steps.n_steps, 2);
    ck_assert_uint_eq(r.n_steps_dropped, 0);
    ck_assert_int_eq(r.steps.steps[0].dur_ps, 20 * US);
    ck_assert_double_eq_tol(r.analysis.summary[PV_BD_STEP_TIME].average, 0.025, TOL);
    ck_assert_uint_eq(r.n_diagnostics, 0);

    /* One host is that host's own analysis. */
    ck_assert_int_eq(pv_tool_input_pipeline_multi(models, 1, NULL, &a, &r, &err), 0);
    ck_assert_uint_eq(r.steps.n_steps, 3);
    ck_assert_double_eq_tol(r.analysis.summary[PV_BD_STEP_TIME].average, 0.080 / 3, TOL);
    pv_arena_fini(&a);
    pv_model_free((pv_model *)models[0]);
    pv_model_free((pv_model *)models[1]);
}
END_TEST

START_TEST(test_overview_multi)
{
    const pv_model *models[2] = {host_model(false), host_model(true)};
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_overview_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_overview_multi(models, 2, NULL, &a, &r, &err), 0);
    ck_assert_uint_eq(r.task_count, 2);
    ck_assert_uint_eq(r.device_core_count, 0);
    ck_assert_str_eq(r.device_type, "CPU");
    ck_assert_uint_eq(r.ip.steps.n_steps, 2);
    ck_assert_uint_eq(r.n_top_host, 1);
    ck_assert_str_eq(r.top_host[0].name, "MatMul");
    ck_assert_double_eq_tol(r.top_host[0].self_time_fraction, 1.0, TOL);
    ck_assert_double_eq_tol(r.host_idle_percent, 100.0 * 240.0 / 350.0, 1e-9);
    ck_assert_uint_eq(r.device_ops.n_ops, 0);
    ck_assert_double_eq_tol(r.host_tf_op_percent, 100.0, TOL);
    pv_arena_fini(&a);
    pv_model_free((pv_model *)models[0]);
    pv_model_free((pv_model *)models[1]);
}
END_TEST

/* Lining up by time, not by name: X has steps of 50 at 0, 100, 200 and
 * 300; Y (the chief, span 150) at 105 and 205. Sliding X's sequence:
 * X1/Y0 and X2/Y1 overlap 45 + 45 = 90, every other offset 0, so X's
 * shared run starts at its step 1 and two steps are shared. */
static void add_steps(pv_steps_result *r, pv_step *s, const int64_t *begin_us, size_t n)
{
    for (size_t i = 0; i < n; i++)
        s[i] = (pv_step){.group_id = (int64_t)i, .name = "s", .begin_ps = begin_us[i] * US,
                         .dur_ps = 50 * US};
    *r = (pv_steps_result){.n_steps = n, .steps = s};
}

START_TEST(test_step_intersection_by_time)
{
    static const int64_t x_us[] = {0, 100, 200, 300}, y_us[] = {105, 205};
    pv_step xs[4], ys[2];
    pv_steps_result per[2];
    add_steps(&per[0], xs, x_us, 4);
    add_steps(&per[1], ys, y_us, 2);
    pv_arena a;
    pv_arena_init(&a, 4096);
    size_t first[2] = {9, 9};
    ck_assert_uint_eq(pv_step_intersection(per, 2, &a, first), 2);
    ck_assert_uint_eq(first[0], 1);
    ck_assert_uint_eq(first[1], 0);
    /* A host without steps shares nothing. */
    per[1].n_steps = 0;
    ck_assert_uint_eq(pv_step_intersection(per, 2, &a, first), 0);
    /* One host shares all its steps with itself. */
    ck_assert_uint_eq(pv_step_intersection(per, 1, &a, first), 4);
    ck_assert_uint_eq(first[0], 0);
    pv_arena_fini(&a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("all_hosts_steps");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_input_pipeline_multi_common_steps);
    tcase_add_test(tc, test_overview_multi);
    tcase_add_test(tc, test_step_intersection_by_time);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
