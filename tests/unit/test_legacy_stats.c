/* Tests of ingest/tf_legacy/legacy_stats on small files packed by
 * protobuf-c's own packer (the expected values are what was packed) and on
 * the hostile files of legacy_refusal.h. The real files are compared with
 * TensorFlow's own numbers in test_kernel_stats_real and
 * test_op_stats_real. */
#include "ingest/tf_legacy/legacy_stats.h"
#include "kernel_stats.pb-c.h"
#include "legacy_refusal.h"
#include "tf_stats.pb-c.h"

static int kernel_stats(const uint8_t *b, size_t n, const char *path, pv_arena *a, pv_error *err)
{
    pv_kernel_stats_result r;
    return pv_legacy_kernel_stats(b, n, path, a, &r, err);
}

static int op_stats(const uint8_t *b, size_t n, const char *path, pv_arena *a, pv_error *err)
{
    pv_op_stats_result r;
    return pv_legacy_op_stats(b, n, path, a, &r, err);
}

START_TEST(test_pv_legacy_kernel_stats_refusals)
{
    /* KernelStatsDb.reports (field 1) */
    pv_test_legacy_refusals(kernel_stats, "x.kernel_stats.pb", 1, 0, 0x0a);
}
END_TEST

START_TEST(test_pv_legacy_kernel_stats_packed)
{
    Tensorflow__Profiler__KernelReport k1 = TENSORFLOW__PROFILER__KERNEL_REPORT__INIT;
    Tensorflow__Profiler__KernelReport k2 = TENSORFLOW__PROFILER__KERNEL_REPORT__INIT;
    uint32_t block[3] = {128, 2, 1}, grid[2] = {40, 7};
    k1.name = "sgemm";
    k1.op_name = "dense/MatMul";
    k1.block_dim = block;
    k1.n_block_dim = 3;
    k1.grid_dim = grid;
    k1.n_grid_dim = 2;
    k1.occurrences = 3;
    k1.total_duration_ns = 3000;
    k1.is_kernel_using_tensor_core = 1;
    k1.occupancy_pct = 50.0f;
    k2.name = "relu";
    k2.occurrences = 4;
    Tensorflow__Profiler__KernelReport *reports[2] = {&k1, &k2};
    Tensorflow__Profiler__KernelStatsDb db = TENSORFLOW__PROFILER__KERNEL_STATS_DB__INIT;
    db.reports = reports;
    db.n_reports = 2;
    uint8_t buf[256];
    size_t len = tensorflow__profiler__kernel_stats_db__pack(&db, buf);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_legacy_kernel_stats(buf, len, "k.pb", &a, &r, &err), 0);
    ck_assert_uint_eq(r.n_rows, 2);
    ck_assert_uint_eq(r.n_kernel_events, 7);
    ck_assert_uint_eq(r.n_gpu_planes, 1);
    ck_assert_str_eq(r.rows[0].kernel_name, "sgemm");
    ck_assert_str_eq(r.rows[0].op_name, "dense/MatMul");
    ck_assert_uint_eq(r.rows[0].block[1], 2);
    ck_assert_uint_eq(r.rows[0].grid[1], 7);
    ck_assert_uint_eq(r.rows[0].grid[2], 0);   /* not in the file */
    ck_assert(r.rows[0].is_kernel_using_tensor_core);
    ck_assert(r.rows[0].occupancy_pct == 50.0);
    ck_assert_str_eq(r.rows[1].op_name, "");
    pv_arena_fini(&a);
}
END_TEST

START_TEST(test_pv_legacy_op_stats_refusals)
{
    /* TfStatsDatabase.with_idle (field 4), its TfStatsTable.tf_stats_record */
    pv_test_legacy_refusals(op_stats, "x.tensorflow_stats.pb", 4, 0x22, 0x0a);
}
END_TEST

START_TEST(test_pv_legacy_op_stats_packed)
{
    Tensorflow__Profiler__TfStatsRecord idle = TENSORFLOW__PROFILER__TF_STATS_RECORD__INIT;
    Tensorflow__Profiler__TfStatsRecord conv = TENSORFLOW__PROFILER__TF_STATS_RECORD__INIT;
    idle.rank = 1;
    idle.host_or_device = "Device";
    idle.op_type = "IDLE";
    idle.op_name = "IDLE";
    idle.total_time_in_us = 10;
    conv.rank = 2;
    conv.host_or_device = "Device";
    conv.op_type = "Conv2D";
    conv.op_name = "model/conv";
    conv.occurrences = 5;
    conv.total_time_in_us = 2.5;
    conv.total_self_time_in_us = 2;
    conv.bound_by = "Compute";
    Tensorflow__Profiler__TfStatsRecord *recs[2] = {&idle, &conv};
    Tensorflow__Profiler__TfStatsTable t = TENSORFLOW__PROFILER__TF_STATS_TABLE__INIT;
    t.tf_stats_record = recs;
    t.n_tf_stats_record = 2;
    Tensorflow__Profiler__TfStatsDatabase db = TENSORFLOW__PROFILER__TF_STATS_DATABASE__INIT;
    db.with_idle = &t;
    db.device_type = "GPU";
    uint8_t buf[512];
    size_t len = tensorflow__profiler__tf_stats_database__pack(&db, buf);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_legacy_op_stats(buf, len, "t.pb", &a, &r, &err), 0);
    ck_assert(r.is_gpu);
    ck_assert_uint_eq(r.with_idle.n_rows, 2);
    ck_assert_uint_eq(r.without_idle.n_rows, 0);
    ck_assert(r.with_idle.rows[0].op->is_idle);
    ck_assert_str_eq(r.with_idle.rows[0].bound_by, "Unknown");   /* not in the file */
    const pv_op_stats_row *c = &r.with_idle.rows[1];
    ck_assert(c->on_device);
    ck_assert_str_eq(c->op->name, "model/conv");
    ck_assert_uint_eq(c->op->occurrences, 5);
    ck_assert_uint_eq(c->op->time_ps, 2500000);
    ck_assert_uint_eq(c->op->self_time_ps, 2000000);
    ck_assert_str_eq(c->bound_by, "Compute");
    pv_arena_fini(&a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("legacy_stats");
    TCase *tc = tcase_create("pv_legacy_kernel_stats");
    tcase_add_test(tc, test_pv_legacy_kernel_stats_refusals);
    tcase_add_test(tc, test_pv_legacy_kernel_stats_packed);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_legacy_op_stats");
    tcase_add_test(tc, test_pv_legacy_op_stats_refusals);
    tcase_add_test(tc, test_pv_legacy_op_stats_packed);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
