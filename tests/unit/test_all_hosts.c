/* Tests of the ALL_HOSTS combination (kernel_stats, op metrics dbs,
 * framework_op_stats) on two hand-built hosts. Every expected number was
 * worked out by hand from the tables below (times in ps).
 *
 * Host A, /device:GPU:0 "Stream #1":
 *   k1 start  0    dur 2e6  op a/Foo:Foo
 *   k1 start 10e6  dur 4e6  op a/Foo:Foo
 *   k2 start 20e6  dur 1e6  op a/Bar:Bar
 *   -> device span 21e6, op time 7e6, IDLE 14e6
 *   /host:CPU "python": a/Foo:Foo start 0 dur 5e6 -> span 5e6, IDLE 0
 * Host B, /device:GPU:0 "Stream #1":
 *   k1 start  0    dur 3e6  op a/Foo:Foo   (same kernel row key as A's k1)
 *   k3 start  5e6  dur 5e6  op a/Baz:Baz
 *   -> device span 10e6, op time 8e6, IDLE 2e6
 *   /host:CPU "python": a/Foo:Foo start 0 dur 2e6, a/Qux:Qux start 3e6
 *   dur 1e6 -> span 4e6, op self time 3e6, IDLE 1e6 */
#include "model/builder.h"
#include "testutil.h"
#include "tools/kernel_stats/kernel_stats.h"
#include "tools/op_stats/op_stats.h"

#include <check.h>
#include <string.h>

#define TOL 1e-9

static void kernel(pv_model_builder *b, uint32_t track, uint32_t meta, int64_t start,
                   int64_t dur, const char *tf_op)
{
    uint64_t e = pv_builder_event(b, track, meta, start, dur);
    pv_builder_event_stat_str(b, e, "kernel_details", "regs:8 block:32,1,1");
    pv_builder_event_stat_str(b, e, "tf_op", tf_op);
}

static pv_model *host_model(bool host_b)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t cpu = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t s1 = pv_builder_track(b, gpu, 1, "Stream #1", 0);
    uint32_t k1 = pv_builder_meta(b, gpu, 1, "k1", NULL);
    uint32_t py = pv_builder_track(b, cpu, 100, "python", 0);
    uint32_t foo = pv_builder_meta(b, cpu, 1, "a/Foo:Foo", NULL);
    if (!host_b) {
        uint32_t k2 = pv_builder_meta(b, gpu, 2, "k2", NULL);
        kernel(b, s1, k1, 0, 2000000, "a/Foo:Foo");
        kernel(b, s1, k1, 10000000, 4000000, "a/Foo:Foo");
        kernel(b, s1, k2, 20000000, 1000000, "a/Bar:Bar");
        pv_builder_event(b, py, foo, 0, 5000000);
    } else {
        uint32_t k3 = pv_builder_meta(b, gpu, 3, "k3", NULL);
        uint32_t qux = pv_builder_meta(b, cpu, 2, "a/Qux:Qux", NULL);
        kernel(b, s1, k1, 0, 3000000, "a/Foo:Foo");
        kernel(b, s1, k3, 5000000, 5000000, "a/Baz:Baz");
        pv_builder_event(b, py, foo, 0, 2000000);
        pv_builder_event(b, py, qux, 3000000, 1000000);
    }
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), 0);
    return m;
}

static void expect_row(const pv_kernel_row *r, const char *kernel, const char *op,
                       uint64_t occurrences, uint64_t total_ns, uint64_t min_ns, uint64_t max_ns)
{
    ck_assert_str_eq(r->kernel_name, kernel);
    ck_assert_str_eq(r->op_name, op);
    ck_assert_uint_eq(r->occurrences, occurrences);
    ck_assert_uint_eq(r->total_ns, total_ns);
    ck_assert_uint_eq(r->min_ns, min_ns);
    ck_assert_uint_eq(r->max_ns, max_ns);
}

/* The reference puts the hosts' rows side by side: A's k1 and B's k1 stay
 * two rows. */
START_TEST(test_kernel_stats_multi_concatenates)
{
    const pv_model *models[2] = {host_model(false), host_model(true)};
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_kernel_stats_multi(models, 2, NULL, &a, &r, &err), 0);
    ck_assert_uint_eq(r.n_rows, 4);
    ck_assert_uint_eq(r.n_rows_total, 4);
    ck_assert_uint_eq(r.n_kernel_events, 5);
    ck_assert_uint_eq(r.n_gpu_planes, 2);
    expect_row(&r.rows[0], "k1", "a/Foo", 2, 6000, 2000, 4000);
    expect_row(&r.rows[1], "k3", "a/Baz", 1, 5000, 5000, 5000);
    expect_row(&r.rows[2], "k1", "a/Foo", 1, 3000, 3000, 3000);
    expect_row(&r.rows[3], "k2", "a/Bar", 1, 1000, 1000, 1000);

    /* The cap applies to the combined table; the total still counts all. */
    pv_kernel_stats_query q = {2};
    ck_assert_int_eq(pv_tool_kernel_stats_multi(models, 2, &q, &a, &r, &err), 0);
    ck_assert_uint_eq(r.n_rows, 2);
    ck_assert_uint_eq(r.n_rows_total, 4);
    expect_row(&r.rows[1], "k3", "a/Baz", 1, 5000, 5000, 5000);

    /* Host order does not change the table. */
    const pv_model *swapped[2] = {models[1], models[0]};
    ck_assert_int_eq(pv_tool_kernel_stats_multi(swapped, 2, NULL, &a, &r, &err), 0);
    ck_assert_uint_eq(r.n_rows, 4);
    expect_row(&r.rows[0], "k1", "a/Foo", 2, 6000, 2000, 4000);
    expect_row(&r.rows[2], "k1", "a/Foo", 1, 3000, 3000, 3000);
    pv_arena_fini(&a);
    pv_model_free((pv_model *)models[0]);
    pv_model_free((pv_model *)models[1]);
}
END_TEST

/* Two equal-key rows with the same total: ordered by occurrences
 * (descending), whichever part they came from. */
START_TEST(test_kernel_stats_combine_ties)
{
    pv_kernel_row x = {.kernel_name = "k", .op_name = "", .occurrences = 1, .total_ns = 10,
                       .min_ns = 10, .max_ns = 10};
    pv_kernel_row y = x;
    y.occurrences = 2;
    y.min_ns = 4;
    y.max_ns = 6;
    pv_kernel_stats_result parts[2] = {{.rows = &x, .n_rows = 1, .n_rows_total = 1},
                                       {.rows = &y, .n_rows = 1, .n_rows_total = 1}};
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r;
    pv_kernel_stats_combine(parts, 2, NULL, &a, &r);
    ck_assert_uint_eq(r.n_rows, 2);
    ck_assert_uint_eq(r.rows[0].occurrences, 2);
    ck_assert_uint_eq(r.rows[1].occurrences, 1);
    pv_kernel_stats_combine(parts, 0, NULL, &a, &r);
    ck_assert_uint_eq(r.n_rows, 0);
    pv_arena_fini(&a);
}
END_TEST

START_TEST(test_op_metrics_combine)
{
    pv_op_metrics d0[] = {
        {.name = "Foo", .type = "Foo", .occurrences = 2, .time_ps = 6, .self_time_ps = 6},
        {.name = "Bar", .type = "Unknown", .occurrences = 1, .time_ps = 1, .self_time_ps = 1,
         .flops = 10, .bytes = 4},
        {.name = "IDLE", .type = "IDLE", .time_ps = 3, .self_time_ps = 3, .is_idle = true},
    };
    pv_op_metrics d1[] = {
        {.name = "Bar", .type = "Bar", .occurrences = 3, .time_ps = 2, .self_time_ps = 2,
         .flops = 5, .bytes = 1, .is_eager = true},
        {.name = "IDLE", .type = "IDLE", .time_ps = 5, .self_time_ps = 5, .is_idle = true},
        {.name = "Baz", .type = "Baz", .occurrences = 1, .time_ps = 4, .self_time_ps = 4},
    };
    pv_op_metrics_db parts[2] = {
        {.ops = d0, .n_ops = 3, .total_time_ps = 10, .total_op_time_ps = 7},
        {.ops = d1, .n_ops = 3, .total_time_ps = 11, .total_op_time_ps = 6,
         .env = {.kind = PV_DEVICE_GPU, .peak_tflops = 2}}};
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_metrics_db db;
    pv_error err = {0};
    ck_assert_int_eq(pv_op_metrics_combine(parts, 2, &a, &db, &err), 0);
    ck_assert_uint_eq(db.total_time_ps, 21);
    ck_assert_uint_eq(db.total_op_time_ps, 13);
    ck_assert_uint_eq(db.n_ops, 4);
    ck_assert_str_eq(db.ops[0].name, "Foo");
    ck_assert_uint_eq(db.ops[0].occurrences, 2);
    ck_assert_str_eq(db.ops[1].name, "Bar");
    ck_assert_str_eq(db.ops[1].type, "Bar");   /* "Unknown" gives way */
    ck_assert_uint_eq(db.ops[1].occurrences, 4);
    ck_assert_uint_eq(db.ops[1].time_ps, 3);
    ck_assert_double_eq(db.ops[1].flops, 15);
    ck_assert_double_eq(db.ops[1].bytes, 5);
    ck_assert(db.ops[1].is_eager);
    /* the host with a device gives the peaks */
    ck_assert_int_eq(db.env.kind, PV_DEVICE_GPU);
    ck_assert_double_eq(db.env.peak_tflops, 2);
    ck_assert_str_eq(db.ops[2].name, "Baz");
    ck_assert(db.ops[3].is_idle);
    ck_assert_uint_eq(db.ops[3].self_time_ps, 8);
    ck_assert_uint_eq(db.ops[3].occurrences, 0);
    ck_assert_int_eq(pv_op_metrics_combine(parts, 0, &a, &db, &err), 0);
    ck_assert_uint_eq(db.n_ops, 0);
    pv_arena_fini(&a);
}
END_TEST

START_TEST(test_op_stats_multi_tables)
{
    const pv_model *models[2] = {host_model(false), host_model(true)};
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_op_stats_multi(models, 2, NULL, &a, &r, &err), 0);
    ck_assert(r.is_gpu);
    ck_assert_str_eq(r.task_type, "Inference");
    /* Device: IDLE 14+2 = 16, Foo 2+4+3 = 9 (3 runs), Baz 5, Bar 1 (us);
     * span 21 + 10 = 31 us. Host: Foo 5+2 = 7 (2 runs), then IDLE 0+1 and
     * Qux 1 tie on 1 us ("IDLE" < "a/Qux"); span 5 + 4 = 9 us. */
    ck_assert_uint_eq(r.device.total_time_ps, 31000000);
    ck_assert_uint_eq(r.device.total_op_time_ps, 15000000);
    ck_assert_uint_eq(r.host.total_time_ps, 9000000);
    ck_assert_uint_eq(r.host.total_op_time_ps, 8000000);
    const pv_op_stats_table *t = &r.with_idle;
    ck_assert_uint_eq(t->n_rows, 7);
    ck_assert(t->rows[0].on_device && t->rows[0].op->is_idle);
    ck_assert_double_eq_tol(t->rows[0].total_self_time_us, 16.0, TOL);
    ck_assert_str_eq(t->rows[1].op->name, "a/Foo");
    ck_assert_uint_eq(t->rows[1].op->occurrences, 3);
    ck_assert_double_eq_tol(t->rows[1].avg_time_us, 3.0, TOL);
    ck_assert_double_eq_tol(t->rows[1].device_fraction, 9.0 / 31.0, TOL);
    ck_assert_double_eq_tol(t->rows[1].device_cumulative, 25.0 / 31.0, TOL);
    ck_assert_double_eq_tol(t->rows[1].gpu_tensorcore_utilization, 0.0, TOL);
    ck_assert_str_eq(t->rows[2].op->name, "a/Baz");
    ck_assert_str_eq(t->rows[3].op->name, "a/Bar");
    ck_assert(!t->rows[4].on_device);
    ck_assert_uint_eq(t->rows[4].rank, 5);
    ck_assert_str_eq(t->rows[4].op->name, "a/Foo");
    ck_assert_uint_eq(t->rows[4].op->occurrences, 2);
    ck_assert_double_eq_tol(t->rows[4].host_fraction, 7.0 / 9.0, TOL);
    ck_assert(t->rows[5].op->is_idle);
    ck_assert_str_eq(t->rows[6].op->name, "a/Qux");
    ck_assert_double_eq_tol(t->rows[6].host_cumulative, 1.0, TOL);
    t = &r.without_idle;
    ck_assert_uint_eq(t->n_rows, 5);
    ck_assert_str_eq(t->rows[0].op->name, "a/Foo");
    ck_assert_double_eq_tol(t->rows[0].device_fraction, 9.0 / 15.0, TOL);
    ck_assert_double_eq_tol(t->rows[3].host_fraction, 7.0 / 8.0, TOL);
    pv_arena_fini(&a);
    pv_model_free((pv_model *)models[0]);
    pv_model_free((pv_model *)models[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("all_hosts");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_kernel_stats_multi_concatenates);
    tcase_add_test(tc, test_kernel_stats_combine_ties);
    tcase_add_test(tc, test_op_metrics_combine);
    tcase_add_test(tc, test_op_stats_multi_tables);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
