/* Tests of tools/op_metrics and tools/op_stats on the hand-built profiles
 * of gpu_fixture.h; the expected times were worked out by hand there:
 * device span 1e6..54e6 ps = 53 us, framework-op kernel time 27.0005 us;
 * host thread "python" spans 0..24 us with 14 us of op self time, thread
 * "tf_data" 5 us fully covered. */
#include "gpu_fixture.h"
#include "testutil.h"
#include "model/memo.h"
#include "tools/op_stats/op_stats.h"

#include <stdlib.h>
#include <string.h>

#define TOL 1e-9

START_TEST(test_pv_op_metrics_device_db)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_metrics_db db;
    pv_error err = {0};
    ck_assert_int_eq(pv_op_metrics_device(m, &a, &db, &err), 0);
    ck_assert_uint_eq(db.total_time_ps, 53000000);
    ck_assert_uint_eq(db.total_op_time_ps, 27000500);
    pv_op_metrics_sort(&db);
    ck_assert_uint_eq(db.n_ops, 5);
    ck_assert(db.ops[0].is_idle);
    ck_assert_uint_eq(db.ops[0].self_time_ps, 25999500);
    ck_assert_uint_eq(db.ops[0].occurrences, 0);
    ck_assert_str_eq(db.ops[1].name, "model/dense/MatMul");
    ck_assert_str_eq(db.ops[1].type, "MatMul");
    ck_assert_uint_eq(db.ops[1].occurrences, 3);
    ck_assert_uint_eq(db.ops[1].time_ps, 20000000);
    /* Relu: Eigen_kernel ran 3 times (e4, e5, e7), relu_kernel2 once: the
     * op ran max(3, 1) = 3 times. */
    ck_assert_str_eq(db.ops[2].name, "model/dense/Relu");
    ck_assert_uint_eq(db.ops[2].occurrences, 3);
    ck_assert_uint_eq(db.ops[2].time_ps, 5000500);
    /* 1 us tie: name ascending. */
    ck_assert_str_eq(db.ops[3].name, "model/einsum/Einsum");
    ck_assert_str_eq(db.ops[4].name, "x/Add");
    ck_assert_str_eq(db.ops[4].type, "AddV2");
    ck_assert(db.ops[4].is_eager);
    ck_assert(!db.ops[1].is_eager);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_op_metrics_host_db)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_metrics_db db;
    pv_error err = {0};
    ck_assert_int_eq(pv_op_metrics_host(m, &a, &db, &err), 0);
    ck_assert_uint_eq(db.total_time_ps, 29000000);
    ck_assert_uint_eq(db.total_op_time_ps, 19000000);
    pv_op_metrics_sort(&db);
    ck_assert_uint_eq(db.n_ops, 4);
    /* MatMul: h1 (10 us, 3 us of child h2) and h4 (via its tf_op stat). */
    ck_assert_str_eq(db.ops[0].name, "model/dense/MatMul");
    ck_assert_uint_eq(db.ops[0].occurrences, 2);
    ck_assert_uint_eq(db.ops[0].time_ps, 14000000);
    ck_assert_uint_eq(db.ops[0].self_time_ps, 11000000);
    ck_assert(db.ops[1].is_idle);
    ck_assert_uint_eq(db.ops[1].time_ps, 10000000);
    ck_assert_str_eq(db.ops[2].name, "Iterator::Prefetch");
    ck_assert_str_eq(db.ops[2].type, "Dataset");
    ck_assert(db.ops[2].is_eager);
    ck_assert_str_eq(db.ops[3].name, "gradient_tape/dense/Op");
    ck_assert_str_eq(db.ops[3].type, "Identity");
    ck_assert_uint_eq(db.ops[3].self_time_ps, 3000000);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* A model whose host has one thread and no framework op. */
static pv_model *no_op_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python", 0);
    uint32_t meta = pv_builder_meta(b, host, 1, "not an op", NULL);
    pv_builder_event(b, t, meta, 0, 1000000);
    return pv_test_finish(b);
}

/* The host table is a memo (op_metrics.c) and is read from it: the memo
 * of fx_gpu_model carried into a model without ops gives fx_gpu_model's
 * table (4 ops, 29 us and 19 us, as above), and one cut short is not
 * read (the model's own: only its IDLE row). */
START_TEST(test_pv_op_metrics_host_memo_read)
{
    pv_model *m1 = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_metrics_db db;
    pv_error err = {0};
    ck_assert_int_eq(pv_op_metrics_host(m1, &a, &db, &err), 0);
    const uint8_t *memo = NULL;
    size_t len = 0;
    for (size_t i = 0; i < pv_model_memo_count(m1); i++) {
        const char *name;
        const uint8_t *d;
        size_t n;
        pv_model_memo_at(m1, i, &name, &d, &n);
        if (strcmp(name, "op_metrics_host/1") == 0) {
            memo = d;
            len = n;
        }
    }
    ck_assert_ptr_nonnull(memo);

    pv_model *m2 = no_op_model();
    uint8_t *copy = malloc(len);
    memcpy(copy, memo, len);
    pv_model_memo_give(m2, "op_metrics_host/1", copy, len);
    ck_assert_int_eq(pv_op_metrics_host(m2, &a, &db, &err), 0);
    ck_assert_uint_eq(db.n_ops, 4);
    ck_assert_uint_eq(db.total_time_ps, 29000000);
    ck_assert_uint_eq(db.total_op_time_ps, 19000000);
    pv_op_metrics_sort(&db);
    ck_assert_str_eq(db.ops[0].name, "model/dense/MatMul");
    ck_assert_uint_eq(db.ops[0].self_time_ps, 11000000);

    pv_model *m3 = no_op_model();
    copy = malloc(len);
    memcpy(copy, memo, len);
    pv_model_memo_give(m3, "op_metrics_host/1", copy, len - 1);
    ck_assert_int_eq(pv_op_metrics_host(m3, &a, &db, &err), 0);
    ck_assert_uint_eq(db.n_ops, 1);
    ck_assert(db.ops[0].is_idle);
    ck_assert_uint_eq(db.total_op_time_ps, 0);
    pv_arena_fini(&a);
    pv_model_free(m3);
    pv_model_free(m2);
    pv_model_free(m1);
}
END_TEST

START_TEST(test_pv_tool_op_stats_tables)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_op_stats(m, NULL, &a, &r, &err), 0);
    ck_assert(r.is_gpu);
    ck_assert_str_eq(r.task_type, "Training");   /* a gradient_tape scope */
    ck_assert_str_eq(r.architecture_type, "Unknown");

    const pv_op_stats_table *t = &r.with_idle;
    ck_assert_uint_eq(t->n_rows, 9);
    ck_assert(t->rows[0].on_device && t->rows[0].op->is_idle);
    ck_assert_double_eq_tol(t->rows[0].device_fraction, 25.9995 / 53.0, TOL);
    ck_assert_str_eq(t->rows[1].op->name, "model/dense/MatMul");
    ck_assert_uint_eq(t->rows[1].rank, 2);
    ck_assert_double_eq_tol(t->rows[1].total_time_us, 20.0, TOL);
    ck_assert_double_eq_tol(t->rows[1].avg_time_us, 20.0 / 3.0, TOL);
    ck_assert_double_eq_tol(t->rows[1].device_fraction, 20.0 / 53.0, TOL);
    ck_assert_double_eq_tol(t->rows[1].device_cumulative, 45.9995 / 53.0, TOL);
    ck_assert_double_eq_tol(t->rows[1].gpu_tensorcore_utilization, 1.0, TOL);
    ck_assert_double_eq_tol(t->rows[2].gpu_tensorcore_utilization, 0.0, TOL);
    ck_assert_double_eq_tol(t->rows[4].device_cumulative, 1.0, TOL);
    ck_assert_double_eq(t->rows[4].host_fraction, 0.0);
    /* Host rows follow, ranks continuing. */
    ck_assert(!t->rows[5].on_device);
    ck_assert_uint_eq(t->rows[5].rank, 6);
    ck_assert_str_eq(t->rows[5].op->name, "model/dense/MatMul");
    ck_assert_double_eq_tol(t->rows[5].avg_self_time_us, 5.5, TOL);
    ck_assert_double_eq_tol(t->rows[5].host_fraction, 11.0 / 29.0, TOL);
    ck_assert_double_eq(t->rows[5].device_fraction, 0.0);
    ck_assert(t->rows[6].op->is_idle);
    ck_assert_double_eq_tol(t->rows[8].host_cumulative, 1.0, TOL);

    t = &r.without_idle;
    ck_assert_uint_eq(t->n_rows, 7);
    ck_assert_str_eq(t->rows[0].op->name, "model/dense/MatMul");
    ck_assert_uint_eq(t->rows[0].rank, 1);
    ck_assert_double_eq_tol(t->rows[0].device_fraction, 20.0 / 27.0005, TOL);
    ck_assert_uint_eq(t->rows[4].rank, 5);
    ck_assert_double_eq_tol(t->rows[4].host_fraction, 11.0 / 19.0, TOL);
    ck_assert_str_eq(t->rows[5].op->name, "Iterator::Prefetch");
    ck_assert_double_eq_tol(t->rows[6].host_cumulative, 1.0, TOL);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* fx_sub_us_model: op times in microseconds keep the picoseconds (no
 * event is too short for the op tables): a/Add 750 + 250.5 ns, b/Mul
 * 1 ns + 999 ps; the device spans 1e6 .. 4e6 + 999 ps, so IDLE is
 * 3000999 - 1002499 = 1998500 ps. */
START_TEST(test_pv_tool_op_stats_sub_microsecond)
{
    pv_model *m = fx_sub_us_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_op_stats(m, NULL, &a, &r, &err), 0);
    const pv_op_stats_table *t = &r.with_idle;
    ck_assert_uint_eq(t->n_rows, 3);
    ck_assert(t->rows[0].op->is_idle);
    ck_assert_double_eq_tol(t->rows[0].total_time_us, 1.9985, TOL);
    ck_assert_str_eq(t->rows[1].op->name, "a/Add");
    ck_assert_uint_eq(t->rows[1].op->occurrences, 2);
    ck_assert_double_eq_tol(t->rows[1].total_time_us, 1.0005, TOL);
    ck_assert_double_eq_tol(t->rows[1].avg_time_us, 0.50025, TOL);
    ck_assert_double_eq_tol(t->rows[1].device_fraction, 1.0005 / 3.000999, TOL);
    ck_assert_str_eq(t->rows[2].op->name, "b/Mul");
    ck_assert_uint_eq(t->rows[2].op->occurrences, 2);
    ck_assert_double_eq_tol(t->rows[2].total_self_time_us, 0.001999, TOL);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_op_stats_max_ops)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_stats_query q = {.max_ops_per_side = 2};
    pv_op_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_op_stats(m, &q, &a, &r, &err), 0);
    /* Top 2 per side, IDLE counted among them, then skipped without IDLE. */
    ck_assert_uint_eq(r.with_idle.n_rows, 4);
    ck_assert_uint_eq(r.without_idle.n_rows, 2);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

static json_t *cellv(json_t *table, size_t row, size_t col)
{
    json_t *r = json_array_get(json_object_get(table, "rows"), row);
    return json_object_get(json_array_get(json_object_get(r, "c"), col), "v");
}

START_TEST(test_pv_op_stats_to_json_shape)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_op_stats(m, NULL, &a, &r, &err), 0);
    json_t *j = pv_op_stats_to_json(&r);
    ck_assert_uint_eq(json_array_size(j), 2);
    json_t *t0 = json_array_get(j, 0);
    json_t *cols = json_object_get(t0, "cols");
    ck_assert_uint_eq(json_array_size(cols), 20);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cols, 12), "id")),
                     "Host_cumulative_total_self_time_percent");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cols, 17), "id")),
                     "gpu_tensorcore_utilization");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(t0, "p"), "task_type")),
                     "Training");
    ck_assert_str_eq(json_string_value(cellv(t0, 1, 1)), "Device");
    ck_assert_str_eq(json_string_value(cellv(t0, 1, 2)), "MatMul");
    ck_assert_str_eq(json_string_value(cellv(t0, 1, 3)), "model/dense/MatMul");
    ck_assert_double_eq(json_number_value(cellv(t0, 1, 4)), 3.0);
    ck_assert_str_eq(json_string_value(cellv(t0, 1, 18)), "Unknown");
    ck_assert_str_eq(json_string_value(cellv(t0, 1, 19)), "Function");
    ck_assert_str_eq(json_string_value(cellv(t0, 5, 1)), "Host");
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_op_stats_cpu_profile)
{
    pv_model *m = fx_cpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_op_stats(m, NULL, &a, &r, &err), 0);
    ck_assert(!r.is_gpu);
    ck_assert_uint_eq(r.device.n_ops, 0);
    ck_assert_str_eq(r.task_type, "Inference");
    /* Host: the op and a zero IDLE. */
    ck_assert_uint_eq(r.with_idle.n_rows, 2);
    ck_assert_str_eq(r.with_idle.rows[0].op->name, "a/MatMul");
    ck_assert_double_eq_tol(r.with_idle.rows[0].host_fraction, 1.0, TOL);
    json_t *j = pv_op_stats_to_json(&r);
    ck_assert_uint_eq(json_array_size(json_object_get(json_array_get(j, 0), "cols")), 19);
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* fx_xla_model: device span 0..61e6 ps. fusion.1 ran 3 times (x1-x3;
 * each kernel event is an occurrence, as in the reference's output) for
 * 20 us; copy.1 2 us with no framework op. XProf drops an XLA op its
 * program's proto lacks (missing.3) and one whose proto does not parse
 * (fusion.9), though both carry a tf_op: their 4 us are idle. */
START_TEST(test_pv_op_metrics_device_xla)
{
    pv_model *m = fx_xla_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_metrics_db db;
    pv_error err = {0};
    ck_assert_int_eq(pv_op_metrics_device(m, &a, &db, &err), 0);
    ck_assert_uint_eq(db.total_time_ps, 61000000);
    ck_assert_uint_eq(db.total_op_time_ps, 22000000);
    pv_op_metrics_sort(&db);
    ck_assert_uint_eq(db.n_ops, 3);
    ck_assert(db.ops[0].is_idle);
    ck_assert_uint_eq(db.ops[0].time_ps, 39000000);
    ck_assert_str_eq(db.ops[1].name, "jit(f)/dot_general");
    ck_assert_str_eq(db.ops[1].type, "dot_general");
    ck_assert_uint_eq(db.ops[1].occurrences, 3);
    ck_assert_uint_eq(db.ops[1].time_ps, 20000000);
    ck_assert_str_eq(db.ops[2].name, "copy.1");
    ck_assert_str_eq(db.ops[2].type, "Unknown");
    ck_assert_uint_eq(db.ops[2].occurrences, 1);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* Eagerness of host TF ops (hand-built): an op under an EagerExecute with
 * is_func 0 ran op by op (eager); under is_func 1 (a compiled function),
 * under none, or a tf.data iterator event: not eager. */
START_TEST(test_pv_op_metrics_host_eager)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python", 0);
    uint32_t ee = pv_builder_meta(b, host, 1, "EagerExecute", NULL);
    uint32_t a = pv_builder_meta(b, host, 2, "a/Op:MatMul", NULL);
    uint32_t bm = pv_builder_meta(b, host, 3, "b/Op:MatMul", NULL);
    uint32_t c = pv_builder_meta(b, host, 4, "c/Op:AddV2", NULL);
    uint32_t it = pv_builder_meta(b, host, 5, "Iterator::Batch", NULL);
    uint64_t e1 = pv_builder_event(b, t, ee, 0, 10000000);
    pv_builder_event_stat_i64(b, e1, "is_func", 0);
    pv_builder_event(b, t, a, 1000000, 2000000);
    pv_builder_event(b, t, it, 4000000, 2000000);
    uint64_t e2 = pv_builder_event(b, t, ee, 20000000, 10000000);
    pv_builder_event_stat_i64(b, e2, "is_func", 1);
    pv_builder_event(b, t, bm, 21000000, 2000000);
    pv_builder_event(b, t, c, 40000000, 2000000);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), 0);
    pv_arena ar;
    pv_arena_init(&ar, 4096);
    pv_op_metrics_db db;
    ck_assert_int_eq(pv_op_metrics_host(m, &ar, &db, &err), 0);
    ck_assert_uint_eq(db.n_ops, 5);   /* a, Iterator::Batch, b, c, IDLE */
    for (size_t i = 0; i < db.n_ops; i++) {
        bool want = strcmp(db.ops[i].name, "a/Op") == 0;
        ck_assert_msg(db.ops[i].is_eager == want, "%s", db.ops[i].name);
    }
    pv_arena_fini(&ar);
    pv_model_free(m);
}
END_TEST

/* PyTorch's autograd names, by hand: a backward function "<Op>Backward[N]"
 * or AccumulateGrad makes a run Training; an aten:: op whose name merely
 * contains "backward", or a name that goes on after "Backward", does not. */
START_TEST(test_pv_op_stats_task_type_pytorch)
{
    pv_op_metrics ops[] = {
        {.name = "aten::mm", .type = "aten::mm"},
        {.name = "aten::cudnn_convolution_backward", .type = "aten::cudnn_convolution_backward"},
        {.name = "BackwardHookFunction", .type = "BackwardHookFunction"},
        {.name = "ReluBackward1", .type = "ReluBackward1"},
        {.name = "torch::autograd::AccumulateGrad", .type = "torch::autograd::AccumulateGrad"},
    };
    pv_op_stats_row rows[5];
    for (size_t i = 0; i < 5; i++)
        rows[i] = (pv_op_stats_row){.op = &ops[i]};
    pv_op_stats_table t = {rows, 3};
    ck_assert_str_eq(pv_op_stats_task_type(&t), "Inference");
    t.n_rows = 4;
    ck_assert_str_eq(pv_op_stats_task_type(&t), "Training");
    t.rows = &rows[4];
    t.n_rows = 1;
    ck_assert_str_eq(pv_op_stats_task_type(&t), "Training");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("op_stats");
    TCase *tm = tcase_create("pv_op_metrics");
    tcase_add_test(tm, test_pv_op_metrics_device_db);
    tcase_add_test(tm, test_pv_op_metrics_host_db);
    tcase_add_test(tm, test_pv_op_metrics_device_xla);
    tcase_add_test(tm, test_pv_op_metrics_host_eager);
    tcase_add_test(tm, test_pv_op_metrics_host_memo_read);
    suite_add_tcase(s, tm);
    TCase *tc = tcase_create("pv_tool_op_stats");
    tcase_add_test(tc, test_pv_tool_op_stats_tables);
    tcase_add_test(tc, test_pv_tool_op_stats_max_ops);
    tcase_add_test(tc, test_pv_tool_op_stats_sub_microsecond);
    tcase_add_test(tc, test_pv_tool_op_stats_cpu_profile);
    suite_add_tcase(s, tc);
    TCase *tj = tcase_create("pv_op_stats_to_json");
    tcase_add_test(tj, test_pv_op_stats_to_json_shape);
    suite_add_tcase(s, tj);
    TCase *tt = tcase_create("pv_op_stats_task_type");
    tcase_add_test(tt, test_pv_op_stats_task_type_pytorch);
    suite_add_tcase(s, tt);
    return pv_test_run(s);
}
