/* Tests of tools/kernel_stats on the hand-built profile of gpu_fixture.h;
 * every expected row was worked out by hand from the table there. */
#include "gpu_fixture.h"
#include "testutil.h"
#include "tools/kernel_stats/kernel_stats.h"

#include <string.h>

static pv_kernel_stats_result run(const pv_model *m, pv_arena *a, size_t max_rows)
{
    pv_kernel_stats_query q = {max_rows};
    pv_kernel_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_kernel_stats(m, &q, a, &r, &err), 0);
    return r;
}

START_TEST(test_pv_tool_kernel_stats_rows)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r = run(m, &a, 0);
    ck_assert_uint_eq(r.n_gpu_planes, 1);
    ck_assert_uint_eq(r.n_kernel_events, 9);   /* e1-e4, e7-e11 */
    ck_assert_uint_eq(r.n_rows, 7);
    ck_assert_uint_eq(r.n_rows_total, 7);

    const pv_kernel_row *k = &r.rows[0];
    ck_assert_str_eq(k->kernel_name, "volta_h884gemm_64x64");
    ck_assert_str_eq(k->op_name, "model/dense/MatMul");
    ck_assert_uint_eq(k->grid[0], 2);
    ck_assert_uint_eq(k->block[0], 128);
    ck_assert_uint_eq(k->registers_per_thread, 32);
    ck_assert_uint_eq(k->static_shmem_bytes, 1024);
    ck_assert_uint_eq(k->dynamic_shmem_bytes, 512);
    ck_assert_double_eq_tol(k->occupancy_pct, 50.5, 1e-9);
    ck_assert(k->is_kernel_using_tensor_core);
    ck_assert(k->is_op_tensor_core_eligible);
    ck_assert_uint_eq(k->occurrences, 2);
    ck_assert_uint_eq(k->total_ns, 14000);
    ck_assert_uint_eq(k->min_ns, 4000);
    ck_assert_uint_eq(k->max_ns, 10000);

    k = &r.rows[1];
    ck_assert_str_eq(k->kernel_name, "conv_kernel");
    ck_assert_str_eq(k->op_name, "");
    ck_assert(!k->is_op_tensor_core_eligible);
    ck_assert_uint_eq(k->grid[1], 8);
    ck_assert_uint_eq(k->block[1], 4);
    ck_assert_uint_eq(k->total_ns, 7000);
    ck_assert_double_eq(k->occupancy_pct, 0.0);

    k = &r.rows[2];
    ck_assert_str_eq(k->kernel_name, "volta_h884gemm_64x64");
    ck_assert_uint_eq(k->grid[0], 4);
    ck_assert_uint_eq(k->total_ns, 6000);

    /* e5 (500 ps) is dropped; e4 and e7 on two streams merge. */
    k = &r.rows[3];
    ck_assert_str_eq(k->kernel_name, "Eigen_kernel");
    ck_assert_str_eq(k->op_name, "model/dense/Relu");
    ck_assert_uint_eq(k->occurrences, 2);
    ck_assert_uint_eq(k->total_ns, 4000);
    ck_assert_uint_eq(k->min_ns, 1500);
    ck_assert_uint_eq(k->max_ns, 2500);
    ck_assert(!k->is_kernel_using_tensor_core);
    ck_assert(!k->is_op_tensor_core_eligible);

    /* Three rows tie at 1000 ns: kernel name ascending. */
    ck_assert_str_eq(r.rows[4].kernel_name, "aaa_kernel");
    ck_assert_str_eq(r.rows[4].op_name, "x/Add");
    ck_assert_str_eq(r.rows[5].kernel_name, "my_einsum_kernel");
    ck_assert(r.rows[5].is_op_tensor_core_eligible);    /* two-input einsum */
    ck_assert(!r.rows[5].is_kernel_using_tensor_core);
    ck_assert_str_eq(r.rows[6].kernel_name, "relu_kernel2");
    for (int i = 4; i < 7; i++)
        ck_assert_uint_eq(r.rows[i].total_ns, 1000);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_kernel_stats_max_rows)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r = run(m, &a, 2);
    ck_assert_uint_eq(r.n_rows, 2);
    ck_assert_uint_eq(r.n_rows_total, 7);
    ck_assert_str_eq(r.rows[1].kernel_name, "conv_kernel");
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_kernel_stats_cpu_profile)
{
    pv_model *m = fx_cpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r = run(m, &a, 0);
    ck_assert_uint_eq(r.n_gpu_planes, 0);
    ck_assert_uint_eq(r.n_rows, 0);
    json_t *j = pv_kernel_stats_to_json(&r);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "cols")), 15);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "rows")), 0);
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

static double num(json_t *row, size_t col)
{
    return json_number_value(json_object_get(json_array_get(json_object_get(row, "c"), col), "v"));
}

static const char *str(json_t *row, size_t col)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(row, "c"), col), "v"));
}

START_TEST(test_pv_kernel_stats_to_json_shape)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r = run(m, &a, 0);
    json_t *j = pv_kernel_stats_to_json(&r);
    ck_assert_ptr_nonnull(j);
    ck_assert_ptr_null(json_object_get(j, "p"));
    json_t *cols = json_object_get(j, "cols");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cols, 0), "id")), "rank");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cols, 11), "label")),
                     "Total Duration (\xce\xbcs)");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cols, 7), "type")),
                     "boolean");
    json_t *row = json_array_get(json_object_get(j, "rows"), 0);
    ck_assert_double_eq(num(row, 0), 1.0);
    ck_assert_str_eq(str(row, 1), "volta_h884gemm_64x64");
    ck_assert_double_eq(num(row, 2), 32.0);
    ck_assert_double_eq(num(row, 3), 1536.0);
    ck_assert_str_eq(str(row, 4), "128,1,1");
    ck_assert_str_eq(str(row, 5), "2,1,1");
    ck_assert_double_eq_tol(num(row, 6), 50.5, 1e-6);
    ck_assert(json_is_true(json_object_get(json_array_get(json_object_get(row, "c"), 7), "v")));
    ck_assert_str_eq(str(row, 9), "model/dense/MatMul");
    ck_assert_double_eq(num(row, 10), 2.0);
    ck_assert_double_eq_tol(num(row, 11), 14.0, 1e-12);
    ck_assert_double_eq_tol(num(row, 12), 7.0, 1e-12);
    ck_assert_double_eq_tol(num(row, 13), 4.0, 1e-12);
    ck_assert_double_eq_tol(num(row, 14), 10.0, 1e-12);
    /* Eigen row: avg = (4000 / 2) ns = 2 us. */
    row = json_array_get(json_object_get(j, "rows"), 3);
    ck_assert_double_eq(num(row, 0), 4.0);
    ck_assert_double_eq_tol(num(row, 12), 2.0, 1e-12);
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* fx_sub_us_model: durations truncated to the nanosecond and shown in
 * microseconds, 999 ps dropped (the reference's DurationNs() == 0), and
 * the one "shm:" key TensorFlow 2.4 wrote read as shared memory (XProf
 * 2.24 reads only static_shared / dynamic_shared: the compare harness
 * shows such cells as XProf's 0 by naming this test). */
START_TEST(test_pv_tool_kernel_stats_sub_microsecond)
{
    pv_model *m = fx_sub_us_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r = run(m, &a, 0);
    ck_assert_uint_eq(r.n_kernel_events, 3);
    ck_assert_uint_eq(r.n_rows, 2);
    const pv_kernel_row *k = &r.rows[0];
    ck_assert_str_eq(k->kernel_name, "tiny_kernel");
    ck_assert_uint_eq(k->occurrences, 2);
    ck_assert_uint_eq(k->total_ns, 1000);   /* 750 + 250 */
    ck_assert_uint_eq(k->min_ns, 250);
    ck_assert_uint_eq(k->max_ns, 750);
    ck_assert_uint_eq(k->static_shmem_bytes + k->dynamic_shmem_bytes, 9216);
    ck_assert_uint_eq(r.rows[1].static_shmem_bytes + r.rows[1].dynamic_shmem_bytes, 0);
    ck_assert_str_eq(r.rows[1].kernel_name, "one_ns_kernel");
    ck_assert_uint_eq(r.rows[1].occurrences, 1);
    json_t *j = pv_kernel_stats_to_json(&r);
    json_t *row = json_array_get(json_object_get(j, "rows"), 0);
    ck_assert_double_eq(num(row, 3), 9216.0);
    ck_assert_double_eq_tol(num(row, 11), 1.0, 1e-12);
    ck_assert_double_eq_tol(num(row, 12), 0.5, 1e-12);
    ck_assert_double_eq_tol(num(row, 13), 0.25, 1e-12);
    ck_assert_double_eq_tol(num(row, 14), 0.75, 1e-12);
    row = json_array_get(json_object_get(j, "rows"), 1);
    ck_assert_double_eq_tol(num(row, 11), 0.001, 1e-12);
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_kernel_stats_to_json_columns_shape)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r = run(m, &a, 0);
    json_t *j = pv_kernel_stats_to_json_columns(&r);
    ck_assert_ptr_nonnull(j);
    json_t *cols = json_object_get(j, "columns");
    ck_assert_uint_eq(json_array_size(json_object_get(j, "cols")), 15);
    ck_assert_uint_eq(json_array_size(cols), 15);
    for (size_t c = 0; c < 15; c++)
        ck_assert_uint_eq(json_array_size(json_array_get(cols, c)), 7);
    /* The same values as the row form's first row (hand-worked above). */
    ck_assert_str_eq(json_string_value(json_array_get(json_array_get(cols, 1), 0)),
                     "volta_h884gemm_64x64");
    ck_assert_double_eq_tol(json_number_value(json_array_get(json_array_get(cols, 11), 0)),
                            14.0, 1e-12);
    ck_assert_str_eq(json_string_value(json_array_get(json_array_get(cols, 5), 1)), "8,8,1");
    ck_assert(json_is_true(json_array_get(json_array_get(cols, 7), 5)));
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_kernel_predicates)
{
    ck_assert(pv_kernel_name_uses_tensor_core("volta_s884gemm_fp16_128x128"));
    ck_assert(pv_kernel_name_uses_tensor_core("sm80_xmma_gemm_f16f16"));
    ck_assert(!pv_kernel_name_uses_tensor_core("volta_sgemm_128x32_nn"));
    /* AMD: a Tensile kernel with an MFMA tile, XLA's GEMM fusion */
    ck_assert(pv_kernel_name_uses_tensor_core("Cijk_Ailk_Bljk_BBS_BH_MT128x128x64_MI16x16x16x1_SN"));
    ck_assert(pv_kernel_name_uses_tensor_core("gemm_fusion_dot_general_1.kd"));
    /* torch-tb-profiler's list is NVIDIA's alone */
    ck_assert(pv_kernel_name_uses_nvidia_tensor_core("volta_s884gemm_fp16_128x128"));
    ck_assert(!pv_kernel_name_uses_nvidia_tensor_core(
        "Cijk_Ailk_Bljk_BBS_BH_MT128x128x64_MI16x16x16x1_SN"));
    ck_assert(!pv_kernel_name_uses_nvidia_tensor_core("gemm_fusion_dot_general_1.kd"));
    ck_assert(!pv_kernel_name_uses_tensor_core("Cijk_Ailk_Bljk_S_MT64x64x8_SE_K1"));
    ck_assert(!pv_kernel_name_uses_tensor_core("x_MI16x16_not_tensile"));
    ck_assert(!pv_kernel_name_uses_tensor_core("loop_transpose_fusion.kd"));
    ck_assert(pv_kernel_op_tensor_core_eligible("jit(f)/dot_general", 18));
    ck_assert(pv_kernel_op_tensor_core_eligible("jit(f)/conv_general_dilated", 27));
    ck_assert(!pv_kernel_op_tensor_core_eligible("jit(f)/broadcast_in_dim", 23));
    ck_assert(pv_kernel_op_tensor_core_eligible("a/Conv2DBackpropInput", 21));
    ck_assert(pv_kernel_op_tensor_core_eligible("a/BatchMatMulV2", 15));
    ck_assert(pv_kernel_op_tensor_core_eligible("a/MatMul", 8));
    ck_assert(!pv_kernel_op_tensor_core_eligible("MatMul", 6));   /* needs "/MatMul" */
    ck_assert(!pv_kernel_op_tensor_core_eligible("a/Relu", 6));
    ck_assert(pv_kernel_einsum_tensor_core_eligible("ab,bc->ac"));
    ck_assert(!pv_kernel_einsum_tensor_core_eligible("ab->ba"));
    ck_assert(!pv_kernel_einsum_tensor_core_eligible("ab,bc,cd->ad"));
    ck_assert(!pv_kernel_einsum_tensor_core_eligible(""));
}
END_TEST

/* fx_xla_model: the op is the HLO instruction's framework op. */
START_TEST(test_pv_tool_kernel_stats_xla_ops)
{
    pv_model *m = fx_xla_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r = run(m, &a, 0);
    /* gemm 20 us (x1-x3), other 3 us, copy 2 us, bad 1 us: every kernel
     * counts here, found in the proto or not. */
    ck_assert_uint_eq(r.n_rows, 4);
    ck_assert_str_eq(r.rows[0].kernel_name, "gemm_kernel");
    ck_assert_uint_eq(r.rows[0].occurrences, 3);
    ck_assert_str_eq(r.rows[0].op_name, "jit(f)/dot_general");
    ck_assert_str_eq(r.rows[1].kernel_name, "other_kernel");
    ck_assert_str_eq(r.rows[1].op_name, "XlaModule");      /* not in the proto: tf_op */
    ck_assert_str_eq(r.rows[2].kernel_name, "copy_kernel");
    ck_assert_str_eq(r.rows[2].op_name, "");               /* no metadata in the proto */
    ck_assert_str_eq(r.rows[3].kernel_name, "bad_kernel");
    ck_assert_str_eq(r.rows[3].op_name, "XlaModule");      /* proto unreadable */
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel_stats");
    TCase *tc = tcase_create("pv_tool_kernel_stats");
    tcase_add_test(tc, test_pv_tool_kernel_stats_rows);
    tcase_add_test(tc, test_pv_tool_kernel_stats_max_rows);
    tcase_add_test(tc, test_pv_tool_kernel_stats_cpu_profile);
    tcase_add_test(tc, test_pv_tool_kernel_stats_xla_ops);
    tcase_add_test(tc, test_pv_tool_kernel_stats_sub_microsecond);
    suite_add_tcase(s, tc);
    TCase *tj = tcase_create("pv_kernel_stats_to_json");
    tcase_add_test(tj, test_pv_kernel_stats_to_json_shape);
    tcase_add_test(tj, test_pv_kernel_stats_to_json_columns_shape);
    suite_add_tcase(s, tj);
    TCase *tp = tcase_create("predicates");
    tcase_add_test(tp, test_pv_kernel_predicates);
    suite_add_tcase(s, tp);
    return pv_test_run(s);
}
