/* Tests of the device op metrics (tools/hlo/xla_ops.h), the GPU cost model
 * (tools/hlo/hlo_cost.h), the device's peaks (tools/hlo/perf_env.h) and an
 * op's roofline (tools/hlo/op_roofline.h):
 *  - a GPU profile built by hand (its HLO packed by protobuf-c): rows,
 *    order, times, IDLE, categories, and flops and bytes counted by hand
 *    from the shapes;
 *  - a TPU profile built by hand: nesting, the device's own clock, the
 *    metadata's costs;
 *  - the ROCm profiles against XProf 2.24.2's hlo_stats golden: every row's
 *    occurrences, times, category, text and framework op, and the flops and
 *    bytes where XProf's cost model ran; where it differs (compare_rules.c:
 *    GEMM_COST, ELEMENTWISE_FLOPS), what each side says. */
#include "hlo_fixture.h"
#include "stats_oracle.h"
#include "tools/hlo/hlo_cost.h"
#include "tools/hlo/op_roofline.h"
#include "tools/hlo/xla_ops.h"

#include <math.h>
#include <string.h>

/* ---- a GPU profile ---------------------------------------------------------------------- */

/* Program 7 "jit_m":
 *   fused_add (1): p0, p1 = f32[1024] parameter(0/1); add.0 = add(p0, p1)
 *   main (2): a, c = f32[1024]; fusion.1 = fusion(a, c) kLoop (jit(m)/add)
 *             x = f32[64,32], y = f32[32,16]; dot.1 = f32[64,16] dot(x, y) {1}x{0}
 *             g0 = bf16[128,64], g1 = bf16[64,256];
 *             gemm.1 = (bf16[128,256], s8[1024]) custom-call(g0, g1) __cublas$gemm
 *             copy.1 = f32[1024] copy(fusion.1) */
static hx_packed gpu_module(void)
{
    static const int64_t d1024[1] = {1024}, d64x32[2] = {64, 32}, d32x16[2] = {32, 16},
                         d64x16[2] = {64, 16}, d128x64[2] = {128, 64}, d64x256[2] = {64, 256},
                         d128x256[2] = {128, 256}, m0[1] = {0}, m10[2] = {1, 0};
    Xla__LayoutProto l[10];
    Xla__ShapeProto v, x, y, dot, g0, g1, gout, ws, gemm;
    hx_array(&v, &l[0], XLA__PRIMITIVE_TYPE__F32, d1024, 1, m0);
    hx_array(&x, &l[1], XLA__PRIMITIVE_TYPE__F32, d64x32, 2, m10);
    hx_array(&y, &l[2], XLA__PRIMITIVE_TYPE__F32, d32x16, 2, m10);
    hx_array(&dot, &l[3], XLA__PRIMITIVE_TYPE__F32, d64x16, 2, m10);
    hx_array(&g0, &l[4], XLA__PRIMITIVE_TYPE__BF16, d128x64, 2, m10);
    hx_array(&g1, &l[5], XLA__PRIMITIVE_TYPE__BF16, d64x256, 2, m10);
    hx_array(&gout, &l[6], XLA__PRIMITIVE_TYPE__BF16, d128x256, 2, m10);
    hx_array(&ws, &l[7], XLA__PRIMITIVE_TYPE__S8, d1024, 1, m0);
    uint8_t buf[2][64];
    ProtobufCBinaryData elems[2];
    Xla__ShapeProto *of[2] = {&gout, &ws};
    hx_tuple(&gemm, elems, buf, of, 2);
    Xla__HloInstructionProto in[13];
    int64_t ops_add[2] = {100, 101}, ops_f[2] = {1, 2}, ops_dot[2] = {4, 5},
            ops_gemm[2] = {7, 8}, ops_copy[1] = {3}, called[1] = {1};
    hx_instr(&in[0], "p0", "parameter", 100, &v, NULL, 0);
    hx_instr(&in[1], "p1", "parameter", 101, &v, NULL, 0);
    in[1].parameter_number = 1;
    hx_instr(&in[2], "add.0", "add", 102, &v, ops_add, 2);
    hx_instr(&in[3], "a", "parameter", 1, &v, NULL, 0);
    hx_instr(&in[4], "c", "parameter", 2, &v, NULL, 0);
    in[4].parameter_number = 1;
    hx_instr(&in[5], "fusion.1", "fusion", 3, &v, ops_f, 2);
    in[5].fusion_kind = "kLoop";
    in[5].called_computation_ids = called;
    in[5].n_called_computation_ids = 1;
    Xla__OpMetadata meta = XLA__OP_METADATA__INIT;
    meta.op_name = "jit(m)/add";
    in[5].metadata = &meta;
    hx_instr(&in[6], "x", "parameter", 4, &x, NULL, 0);
    hx_instr(&in[7], "y", "parameter", 5, &y, NULL, 0);
    hx_instr(&in[8], "dot.1", "dot", 6, &dot, ops_dot, 2);
    static const int64_t one[1] = {1}, zero[1] = {0};
    Xla__DotDimensionNumbers dd = XLA__DOT_DIMENSION_NUMBERS__INIT;
    dd.lhs_contracting_dimensions = (int64_t *)one;
    dd.n_lhs_contracting_dimensions = 1;
    dd.rhs_contracting_dimensions = (int64_t *)zero;
    dd.n_rhs_contracting_dimensions = 1;
    in[8].dot_dimension_numbers = &dd;
    hx_instr(&in[9], "g0", "parameter", 7, &g0, NULL, 0);
    hx_instr(&in[10], "g1", "parameter", 8, &g1, NULL, 0);
    hx_instr(&in[11], "gemm.1", "custom-call", 9, &gemm, ops_gemm, 2);
    in[11].custom_call_target = "__cublas$gemm";
    hx_instr(&in[12], "copy.1", "copy", 10, &v, ops_copy, 1);
    Xla__HloInstructionProto *fused_i[3] = {&in[0], &in[1], &in[2]};
    Xla__HloInstructionProto *main_i[10];
    for (int i = 0; i < 10; i++)
        main_i[i] = &in[3 + i];
    Xla__HloComputationProto fused, main_c;
    Xla__HloComputationProto *comps[2] = {hx_comp(&fused, "fused_add", 1, 102, fused_i, 3),
                                          hx_comp(&main_c, "main", 2, 10, main_i, 10)};
    return hx_pack("jit_m", comps, 2, 2);
}

static void xla_kernel(pv_model_builder *b, uint32_t track, uint32_t meta, int64_t start,
                       int64_t dur, const char *hlo_op)
{
    uint64_t e = pv_builder_event(b, track, meta, start, dur);
    pv_builder_event_stat_str(b, e, "kernel_details", "regs:32 block:256,1,1");
    pv_builder_event_stat_str(b, e, "hlo_op", hlo_op);
    pv_builder_event_stat_u64(b, e, "program_id", 7);
}

/* One stream (times in ps): fusion.1 1e6+2e6, 4e6+2e6; dot.1 7e6+1e6;
 * gemm.1 9e6+4e6; copy.1 14e6+1e6; a framework op's kernel 16e6+1e6; a
 * memcpy with no op 18e6+2e6. An MI300X's capabilities on the plane. */
static pv_model *gpu_model(void)
{
    hx_packed p = gpu_module();
    pv_model_builder *b = pv_builder_new();
    hx_program(b, pv_builder_plane(b, 0, "/host:metadata"), 1, 7, &p);
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    pv_builder_plane_stat_str(b, gpu, "device_vendor", "AMD");
    pv_builder_plane_stat_i64(b, gpu, "clock_rate", 2100000);
    pv_builder_plane_stat_i64(b, gpu, "core_count", 304);
    pv_builder_plane_stat_u64(b, gpu, "memory_bandwidth", 2662400000000ull);
    pv_builder_plane_stat_i64(b, gpu, "compute_cap_major", 9);
    pv_builder_plane_stat_i64(b, gpu, "compute_cap_minor", 4);
    uint32_t s = pv_builder_track(b, gpu, 1, "Stream #1", 0);
    uint32_t k_loop = pv_builder_meta(b, gpu, 1, "loop_add.kd", NULL);
    uint32_t k_dot = pv_builder_meta(b, gpu, 2, "dot.kd", NULL);
    uint32_t k_gemm = pv_builder_meta(b, gpu, 3, "Cijk_MT128_MI16x16x16x1", NULL);
    uint32_t k_copy = pv_builder_meta(b, gpu, 4, "copy.kd", NULL);
    uint32_t k_sgemm = pv_builder_meta(b, gpu, 5, "volta_sgemm", NULL);
    uint32_t k_memcpy = pv_builder_meta(b, gpu, 6, "MemcpyD2D", NULL);
    xla_kernel(b, s, k_loop, 1000000, 2000000, "fusion.1");
    xla_kernel(b, s, k_loop, 4000000, 2000000, "fusion.1");
    xla_kernel(b, s, k_dot, 7000000, 1000000, "dot.1");
    xla_kernel(b, s, k_gemm, 9000000, 4000000, "gemm.1");
    xla_kernel(b, s, k_copy, 14000000, 1000000, "copy.1");
    uint64_t e = pv_builder_event(b, s, k_sgemm, 16000000, 1000000);
    pv_builder_event_stat_str(b, e, "kernel_details", "regs:32 block:256,1,1");
    pv_builder_event_stat_str(b, e, "tf_op", "model/MatMul:MatMul");
    pv_builder_event(b, s, k_memcpy, 18000000, 2000000);
    pv_model *m = pv_test_finish(b);
    pv_ingest_attach(m);
    return m;
}

static const pv_xla_op *row(const pv_xla_op_db *db, size_t i, uint64_t program, const char *name)
{
    ck_assert_uint_lt(i, db->n_ops);
    ck_assert_uint_eq(db->ops[i].program_id, program);
    ck_assert_str_eq(db->ops[i].name, name);
    return &db->ops[i];
}

START_TEST(test_pv_xla_ops_build_gpu)
{
    pv_model *m = gpu_model();
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_xla_op_db db;
    pv_error err = {0};
    ck_assert_int_eq(pv_xla_ops_build(m, &a, &db, &err), 0);
    /* span 1e6..20e6; ops 4 + 4 + 1 + 1 + 1 = 11e6: IDLE 8e6 */
    ck_assert_uint_eq(db.total_time_ps, 19000000);
    ck_assert_uint_eq(db.op_time_ps, 11000000);
    ck_assert_uint_eq(db.n_ops, 6);
    /* by self time, ties by program then name, IDLE last */
    const pv_xla_op *fusion = row(&db, 0, 7, "fusion.1");
    const pv_xla_op *gemm = row(&db, 1, 7, "gemm.1");
    const pv_xla_op *tf = row(&db, 2, 0, "model/MatMul/volta_sgemm");
    const pv_xla_op *copy = row(&db, 3, 7, "copy.1");
    const pv_xla_op *dot = row(&db, 4, 7, "dot.1");
    const pv_xla_op *idle = row(&db, 5, 0, "IDLE");
    ck_assert(idle->is_idle);
    ck_assert_uint_eq(idle->self_time_ps, 8000000);
    ck_assert_uint_eq(fusion->occurrences, 2);
    ck_assert_uint_eq(fusion->time_ps, 4000000);
    ck_assert_str_eq(fusion->category, "loop fusion");
    ck_assert_str_eq(fusion->provenance, "jit(m)/add:");
    ck_assert_str_eq(fusion->expression, "%fusion.1 = f32[1024]{0} fusion(f32[1024]{0} %a, "
                                         "f32[1024]{0} %c), kind=kLoop, calls=%fused_add");
    ck_assert_str_eq(gemm->category, "custom-call");
    ck_assert_str_eq(copy->category, "data formatting");
    ck_assert_str_eq(dot->category, "dot");
    ck_assert_str_eq(tf->category, "MatMul");
    ck_assert_str_eq(tf->provenance, "model/MatMul:MatMul");
    /* per run, by hand: the add 1024 flops, two f32[1024] read and one
     * written; the dot 2*64*16*32 flops, 64*32 + 32*16 + 64*16 floats;
     * the GEMM 2*128*256*64 flops, its two bf16 operands and bf16[128,256]
     * result (not the s8 workspace); the copy none, 1024 floats each way */
    ck_assert_double_eq(fusion->flops, 2 * 1024.0);
    ck_assert_double_eq(fusion->bytes, 2 * 3 * 4096.0);
    ck_assert_double_eq(dot->flops, 65536);
    ck_assert_double_eq(dot->bytes, 8192 + 2048 + 4096);
    ck_assert_double_eq(gemm->flops, 4194304);
    ck_assert_double_eq(gemm->bytes, 16384 + 32768 + 65536);
    ck_assert_double_eq(copy->flops, 0);
    ck_assert_double_eq(copy->bytes, 8192);
    ck_assert_double_eq(tf->flops, 0);
    /* the MI300X: 304 CUs x 2.1 GHz x 2048 fp16 matrix flops a cycle,
     * LDS 128 bytes a CU a cycle (XProf's golden: peak 1.30744e+06 GFLOP/s) */
    ck_assert_double_eq_tol(db.env.peak_tflops, 1307.4432, 1e-9);
    ck_assert_double_eq_tol(db.env.peak_bw_gbps[PV_BW_HBM], 2662.4, 1e-9);
    ck_assert_double_eq_tol(db.env.peak_bw_gbps[PV_BW_SRAM_WR], 304 * 2.1 * 128, 1e-9);
    /* the GEMM's roofline: 4194304 flops in 4 us is 1048.576 GFLOP/s (8.0e-4
     * of the peak); 114688 bytes in 4 us is 28.672 GB/s (1.08 % of HBM's) */
    pv_op_roofline r;
    pv_op_roofline_of(gemm, &db.env, &r);
    ck_assert_double_eq_tol(r.flop_rate, 1048.576, 1e-9);
    ck_assert_double_eq_tol(r.memory_bw, 28.672e9 / 1073741824.0, 1e-9);
    ck_assert_double_eq_tol(r.intensity, 4194304.0 / 114688.0, 1e-9);
    ck_assert_str_eq(r.bound_by, "HBM");
    /* The model's flops are counted apart from those that ran (XProf's
     * model_flop_rate): a GEMM whose model asks half its flops runs
     * 524.288 model GFLOP/s beside its 1048.576. No profile in the corpus
     * has the two differ, so only this hand count tells them apart. */
    pv_xla_op half = *gemm;
    half.model_flops = gemm->flops / 2;
    pv_op_roofline_of(&half, &db.env, &r);
    ck_assert_double_eq_tol(r.flop_rate, 1048.576, 1e-9);
    ck_assert_double_eq_tol(r.model_flop_rate, 524.288, 1e-9);
    /* A hundred times the flops in the same 4 us: 8.02 % of the compute
     * peak, above HBM's 1.08 %, so compute bound at that share. */
    pv_xla_op dense = *gemm;
    dense.flops = gemm->flops * 100;
    pv_op_roofline_of(&dense, &db.env, &r);
    ck_assert_str_eq(r.bound_by, "Compute");
    ck_assert_double_eq_tol(r.bound_utilization, 104857.6 / 1307443.2, 1e-9);
    pv_op_roofline_of(idle, &db.env, &r);
    ck_assert_str_eq(r.bound_by, "Unknown");
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- a TPU profile ---------------------------------------------------------------------- */

static uint32_t tpu_op(pv_model_builder *b, uint32_t plane, int64_t id, const char *text,
                       const char *name, const char *category, uint64_t flops, uint64_t bytes)
{
    uint32_t meta = pv_builder_meta(b, plane, id, text, name);
    pv_builder_meta_stat_u64(b, meta, "program_id", 9);
    pv_builder_meta_stat_str(b, meta, "hlo_category", category);
    pv_builder_meta_stat_u64(b, meta, "flops", flops);
    pv_builder_meta_stat_u64(b, meta, "bytes_accessed", bytes);
    return meta;
}

/* TPU:0, "XLA Ops": while.1 0+10e6 holding fusion.2 1e6+3e6 and fusion.2
 * at the device's 5e6+2e6 (written at 5.5e6+1e6: device_offset_ps and
 * device_duration_ps say the device's clock); "Steps": 0+12e6. */
static pv_model *tpu_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t tpu = pv_builder_plane(b, 1, "/device:TPU:0");
    pv_builder_plane_stat_f64(b, tpu, "peak_teraflops_per_second", 918);
    pv_builder_plane_stat_f64(b, tpu, "peak_hbm_bw_gigabytes_per_second", 1638);
    uint32_t ops = pv_builder_track(b, tpu, 3, "XLA Ops", 0);
    uint32_t steps = pv_builder_track(b, tpu, 1, "Steps", 0);
    uint32_t loop = tpu_op(b, tpu, 1, "%while.1 = while(...)", "while.1", "while", 0, 0);
    uint32_t fusion = tpu_op(b, tpu, 2, "%fusion.2 = fusion(...)", "fusion.2", "loop fusion",
                             1000, 4096);
    uint32_t step = pv_builder_meta(b, tpu, 3, "1", NULL);
    pv_builder_event(b, ops, loop, 0, 10000000);
    pv_builder_event(b, ops, fusion, 1000000, 3000000);
    uint64_t e = pv_builder_event(b, ops, fusion, 5500000, 1000000);
    pv_builder_event_stat_i64(b, e, "device_offset_ps", 5000000);
    pv_builder_event_stat_i64(b, e, "device_duration_ps", 2000000);
    pv_builder_event(b, steps, step, 0, 12000000);
    return pv_test_finish(b);
}

START_TEST(test_pv_xla_ops_build_tpu)
{
    pv_model *m = tpu_model();
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_xla_op_db db;
    pv_error err = {0};
    ck_assert_int_eq(pv_xla_ops_build(m, &a, &db, &err), 0);
    ck_assert_uint_eq(db.total_time_ps, 12000000);
    ck_assert_uint_eq(db.n_ops, 3);
    /* fusion.2: 3e6 + 2e6 (the device's); while.1 10e6 less its children */
    const pv_xla_op *fusion = row(&db, 0, 9, "fusion.2");
    const pv_xla_op *loop = row(&db, 1, 9, "while.1");
    ck_assert_uint_eq(fusion->occurrences, 2);
    ck_assert_uint_eq(fusion->time_ps, 5000000);
    ck_assert_uint_eq(fusion->self_time_ps, 5000000);
    ck_assert_uint_eq(loop->time_ps, 10000000);
    ck_assert_uint_eq(loop->self_time_ps, 5000000);
    ck_assert_str_eq(fusion->expression, "%fusion.2 = fusion(...)");
    ck_assert_str_eq(fusion->category, "loop fusion");
    ck_assert_double_eq(fusion->flops, 2000);
    ck_assert_double_eq(fusion->bytes, 8192);
    ck_assert(!fusion->has_mem_breakdown);
    ck_assert_uint_eq(row(&db, 2, 0, "IDLE")->self_time_ps, 2000000);
    ck_assert_double_eq(db.env.peak_tflops, 918);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- the ROCm profiles against XProf ------------------------------------------------------ */

#define GOLDEN PV_SRCDIR "/tests/data/reference/shared_golden/logdirs/jax_rocm_mi300/plugins/profile/"

static const pv_xla_op *find_op(const pv_xla_op_db *db, uint64_t program, const char *name)
{
    for (size_t i = 0; i < db->n_ops; i++)
        if (db->ops[i].program_id == program && strcmp(db->ops[i].name, name) == 0)
            return &db->ops[i];
    return NULL;
}

/* The bytes per second XProf's golden row implies, as a check of ours. */
static void close_to(double ours, double ref, const char *what, const char *name)
{
    ck_assert_msg(fabs(ours - ref) <= ORACLE_TOL * fabs(ref) + 1e-9, "%s %s: ours %g, XProf %g",
                  name, what, ours, ref);
}

/* Every row of the golden: the same op with the same occurrences, times,
 * category, text and framework op; FLOP rate and bandwidth too unless the
 * row is a GEMM call (GEMM_COST) or flops == false (ELEMENTWISE_FLOPS).
 * Returns the rows. */
static size_t compare_rows(pv_xla_op_db *db, const char *golden, bool flops)
{
    json_t *g = oracle_load_gz_json(golden);
    ck_assert_ptr_nonnull(g);
    int c_prog = oracle_col(g, "program_id"), c_name = oracle_col(g, "hlo_op_name");
    int c_occ = oracle_col(g, "occurrences"), c_total = oracle_col(g, "total_time");
    int c_self = oracle_col(g, "total_self_time"), c_cat = oracle_col(g, "category");
    int c_expr = oracle_col(g, "hlo_op_expression"), c_tf = oracle_col(g, "tf_op_name");
    int c_flops = oracle_col(g, "model_flop_rate"), c_bw = oracle_col(g, "measured_memory_bw");
    size_t n = json_array_size(json_object_get(g, "rows"));
    for (size_t r = 0; r < n; r++) {
        uint64_t prog = strtoull(json_string_value(oracle_cell(g, r, c_prog)), NULL, 10);
        const char *name = json_string_value(oracle_cell(g, r, c_name));
        const pv_xla_op *op = find_op(db, prog, name);
        ck_assert_msg(op != NULL, "%llu %s missing", (unsigned long long)prog, name);
        ck_assert_uint_eq(op->occurrences, (uint64_t)json_number_value(oracle_cell(g, r, c_occ)));
        close_to((double)op->time_ps / 1e6, json_number_value(oracle_cell(g, r, c_total)),
                 "time", name);
        close_to((double)op->self_time_ps / 1e6, json_number_value(oracle_cell(g, r, c_self)),
                 "self time", name);
        ck_assert_str_eq(op->category, json_string_value(oracle_cell(g, r, c_cat)));
        ck_assert_str_eq(op->expression, json_string_value(oracle_cell(g, r, c_expr)));
        ck_assert_str_eq(op->provenance, json_string_value(oracle_cell(g, r, c_tf)));
        if (strcmp(op->category, "custom-call") == 0 &&
            strstr(op->expression, "__cublas$gemm") != NULL)
            continue;
        pv_op_roofline rf;
        pv_op_roofline_of(op, &db->env, &rf);
        close_to(rf.memory_bw, json_number_value(oracle_cell(g, r, c_bw)), "bandwidth", name);
        if (flops)
            close_to(rf.model_flop_rate, json_number_value(oracle_cell(g, r, c_flops)),
                     "FLOP rate", name);
    }
    json_decref(g);
    return n;
}

static pv_model *rocm_model(const char *run, pv_arena *a, pv_xla_op_db *db)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/logdirs/jax_rocm_mi300/plugins/profile/%s/tw003.xplane.pb",
             PV_TESTDATA, run);
    pv_model *m = oracle_load_xplane(path);
    pv_error err = {0};
    ck_assert_int_eq(pv_xla_ops_build(m, a, db, &err), 0);
    return m;
}

START_TEST(test_pv_xla_ops_build_vs_xprof)
{
    PV_NEED_TESTDATA("test_pv_xla_ops_build_vs_xprof");
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_xla_op_db db;

    pv_model *m = rocm_model("jax08_gemm", &a, &db);
    ck_assert_uint_eq(compare_rows(&db, GOLDEN "jax08_gemm/tw003.hlo_stats.json.gz", true), 16);
    /* GEMM_COST: program 49's custom-call.1 multiplies bf16[8192,4096] by
     * bf16[4096,8192] (its text): 2 * 8192 * 8192 * 4096 flops a run, 3
     * runs; XProf's row says 0 GFLOP/s and "Unknown" */
    const pv_xla_op *gemm = find_op(&db, 49, "custom-call.1");
    ck_assert_ptr_nonnull(gemm);
    ck_assert_double_eq(gemm->flops, 3 * 2.0 * 8192 * 8192 * 4096);
    /* the GEMM fusion of program 5, which XProf did analyse: 2*256^3
     * flops and three bf16[256,256] a run (its model_flop_rate 6710.8864) */
    const pv_xla_op *fusion = find_op(&db, 5, "gemm_fusion_dot_general.1");
    ck_assert_double_eq(fusion->flops, 3 * 2.0 * 256 * 256 * 256);
    ck_assert_double_eq(fusion->bytes, 3 * 3 * 256 * 256 * 2.0);
    pv_model_free(m);

    m = rocm_model("jax08_elementwise", &a, &db);
    ck_assert_uint_eq(compare_rows(&db, GOLDEN "jax08_elementwise/tw003.hlo_stats.json.gz", false),
                      13);
    /* ELEMENTWISE_FLOPS: program 13's fusion converts bf16[8,4096,2048] to
     * f32, takes the sine and converts back: XLA's device-independent
     * count is 2 flops an element (the sine is a transcendental), 4 bytes
     * an element read and written; XProf's golden says 167 flops a byte */
    const pv_xla_op *sine = find_op(&db, 13, "loop_convert_fusion");
    ck_assert_ptr_nonnull(sine);
    double elements = 8.0 * 4096 * 2048;
    ck_assert_double_eq(sine->flops, 5 * 2 * elements);
    ck_assert_double_eq(sine->bytes, 5 * 4 * elements);
    pv_model_free(m);

    m = rocm_model("jax_conv_minimal_08", &a, &db);
    ck_assert_uint_eq(compare_rows(&db, GOLDEN "jax_conv_minimal_08/tw003.hlo_stats.json.gz", true),
                      4);
    pv_model_free(m);
    pv_arena_fini(&a);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("xla_ops");
    TCase *tc = tcase_create("pv_xla_ops_build");
    tcase_add_test(tc, test_pv_xla_ops_build_gpu);
    tcase_add_test(tc, test_pv_xla_ops_build_tpu);
    tcase_add_test(tc, test_pv_xla_ops_build_vs_xprof);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
