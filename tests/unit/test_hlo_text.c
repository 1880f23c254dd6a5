/* Tests of an HLO instruction's text (tools/hlo/hlo_text.h) and of the
 * decoded attributes it prints (ingest/hlo/hlo_attrs.c, hlo_proto_text.c) and
 * the index it walks (tools/hlo/hlo_index.h):
 *  - a module packed by protobuf-c, each instruction's text written by
 *    hand the way XLA prints it (operand shapes, window, dim_labels,
 *    slices, dot dimensions, constants, tiled layouts, /\*index=5*\/);
 *  - the real ROCm profiles: every row of XProf 2.24.2's hlo_stats golden
 *    names an instruction whose text must equal XProf's "HLO op text";
 *  - the program id of a JAX CPU profile's modules comes from the
 *    metadata's program_id stat (XProf's module list names them). */
#include "hlo_fixture.h"
#include "stats_oracle.h"
#include "tools/hlo/hlo_text.h"

#include <string.h>

/* ---- a module packed by protobuf-c ---------------------------------------------------- */

/* Module "m": computation "fused" (id 1) and ENTRY "main" (id 2) whose
 * instructions exercise one printed attribute each. */
static hx_packed text_module(void)
{
    static const int64_t d_in[3] = {1, 16, 32}, d_k[3] = {8, 16, 3}, d_out[3] = {1, 8, 30},
                         d64[1] = {64}, d8[1] = {8}, d4[1] = {4}, d16x32[2] = {16, 32},
                         d1x16[2] = {1, 8}, m210[3] = {2, 1, 0}, m0[1] = {0}, m10[2] = {1, 0};
    Xla__LayoutProto l[12];
    Xla__ShapeProto s_in, s_k, s_out, s_u8, s_f32, s_u32x4, s_bf16, s_2d, s_sl, s_tiled, s_dot;
    hx_array(&s_in, &l[0], XLA__PRIMITIVE_TYPE__BF16, d_in, 3, m210);
    hx_array(&s_k, &l[1], XLA__PRIMITIVE_TYPE__BF16, d_k, 3, m210);
    hx_array(&s_out, &l[2], XLA__PRIMITIVE_TYPE__BF16, d_out, 3, m210);
    hx_array(&s_u8, &l[3], XLA__PRIMITIVE_TYPE__U8, d64, 1, m0);
    hx_array(&s_f32, &l[4], XLA__PRIMITIVE_TYPE__F32, NULL, 0, NULL);
    hx_array(&s_u32x4, &l[5], XLA__PRIMITIVE_TYPE__U32, d4, 1, m0);
    hx_array(&s_bf16, &l[6], XLA__PRIMITIVE_TYPE__BF16, NULL, 0, NULL);
    hx_array(&s_2d, &l[7], XLA__PRIMITIVE_TYPE__BF16, d16x32, 2, m10);
    hx_array(&s_sl, &l[8], XLA__PRIMITIVE_TYPE__BF16, d1x16, 2, m10);
    hx_array(&s_dot, &l[9], XLA__PRIMITIVE_TYPE__BF16, d_out + 1, 2, m10);
    /* f32[8]{0:T(128)S(1)}: a TPU tile and memory space */
    static const int64_t t128[1] = {128};
    Xla__TileProto tile = XLA__TILE_PROTO__INIT;
    tile.dimensions = (int64_t *)t128;
    tile.n_dimensions = 1;
    Xla__TileProto *tiles[1] = {&tile};
    hx_array(&s_tiled, &l[10], XLA__PRIMITIVE_TYPE__F32, d8, 1, m0);
    l[10].tiles = tiles;
    l[10].n_tiles = 1;
    l[10].memory_space = 1;
    uint8_t e[2][64], e6[6][64];
    ProtobufCBinaryData elems[2], six[6];
    Xla__ShapeProto s_conv, s_six;
    Xla__ShapeProto *conv_of[2] = {&s_out, &s_u8};
    Xla__ShapeProto *six_of[6] = {&s_f32, &s_f32, &s_f32, &s_f32, &s_f32, &s_f32};
    hx_tuple(&s_conv, elems, e, conv_of, 2);
    hx_tuple(&s_six, six, e6, six_of, 6);

    Xla__HloInstructionProto in[14];
    /* fused (id 1): p.0 = f32[] parameter(0); ROOT neg.0 = f32[] negate(p.0) */
    int64_t op_p0[1] = {100};
    hx_instr(&in[0], "p.0", "parameter", 100, &s_f32, NULL, 0);
    hx_instr(&in[1], "neg.0", "negate", 101, &s_f32, op_p0, 1);
    /* main (id 2) */
    hx_instr(&in[2], "a", "parameter", 1, &s_in, NULL, 0);
    hx_instr(&in[3], "b", "parameter", 2, &s_k, NULL, 0);
    in[3].parameter_number = 1;
    int64_t op_ab[2] = {1, 2};
    hx_instr(&in[4], "cudnn-conv", "custom-call", 3, &s_conv, op_ab, 2);
    in[4].custom_call_target = "__cudnn$convForward";
    Xla__WindowDimension wd = XLA__WINDOW_DIMENSION__INIT;
    wd.size = 3;
    wd.stride = 1;
    wd.window_dilation = 1;
    wd.base_dilation = 1;
    Xla__WindowDimension *wds[1] = {&wd};
    Xla__Window win = XLA__WINDOW__INIT;
    win.dimensions = wds;
    win.n_dimensions = 1;
    in[4].window = &win;
    static const int64_t sp[1] = {2};
    Xla__ConvolutionDimensionNumbers cd = XLA__CONVOLUTION_DIMENSION_NUMBERS__INIT;
    cd.input_batch_dimension = 0;
    cd.input_feature_dimension = 1;
    cd.input_spatial_dimensions = (int64_t *)sp;
    cd.n_input_spatial_dimensions = 1;
    cd.kernel_output_feature_dimension = 0;
    cd.kernel_input_feature_dimension = 1;
    cd.kernel_spatial_dimensions = (int64_t *)sp;
    cd.n_kernel_spatial_dimensions = 1;
    cd.output_batch_dimension = 0;
    cd.output_feature_dimension = 1;
    cd.output_spatial_dimensions = (int64_t *)sp;
    cd.n_output_spatial_dimensions = 1;
    in[4].convolution_dimension_numbers = &cd;
    int64_t op_conv[1] = {3};
    hx_instr(&in[5], "gte", "get-tuple-element", 4, &s_out, op_conv, 1);
    Xla__LiteralProto lit_f = XLA__LITERAL_PROTO__INIT, lit_u = XLA__LITERAL_PROTO__INIT,
                      lit_b = XLA__LITERAL_PROTO__INIT;
    float hundredth = 0.01f;
    lit_f.shape = &s_f32;
    lit_f.f32s = &hundredth;
    lit_f.n_f32s = 1;
    hx_instr(&in[6], "c.f", "constant", 5, &s_f32, NULL, 0);
    in[6].literal = &lit_f;
    uint32_t u4[4] = {13, 15, 26, 6};
    lit_u.shape = &s_u32x4;
    lit_u.u32s = u4;
    lit_u.n_u32s = 4;
    hx_instr(&in[7], "c.u", "constant", 6, &s_u32x4, NULL, 0);
    in[7].literal = &lit_u;
    uint8_t bf[2] = {0xb5, 0x3f};   /* bfloat16 1.4140625 */
    lit_b.shape = &s_bf16;
    lit_b.bf16s = (ProtobufCBinaryData){2, bf};
    hx_instr(&in[8], "c.b", "constant", 7, &s_bf16, NULL, 0);
    in[8].literal = &lit_b;
    /* slice of a bf16[16,32] parameter */
    hx_instr(&in[9], "x", "parameter", 8, &s_2d, NULL, 0);
    in[9].parameter_number = 2;
    Xla__HloInstructionProto__SliceDimensions sd0 = XLA__HLO_INSTRUCTION_PROTO__SLICE_DIMENSIONS__INIT,
                                              sd1 = XLA__HLO_INSTRUCTION_PROTO__SLICE_DIMENSIONS__INIT;
    sd0.start = 0;
    sd0.limit = 1;
    sd0.stride = 1;
    sd1.start = 0;
    sd1.limit = 16;
    sd1.stride = 2;
    Xla__HloInstructionProto__SliceDimensions *sds[2] = {&sd0, &sd1};
    int64_t op_x[1] = {8};
    hx_instr(&in[10], "s", "slice", 9, &s_sl, op_x, 1);
    in[10].slice_dimensions = sds;
    in[10].n_slice_dimensions = 2;
    /* dot of the slice and the conv's output row, a fusion, a tuple of six */
    static const int64_t one[1] = {1}, zero[1] = {0};
    Xla__DotDimensionNumbers dd = XLA__DOT_DIMENSION_NUMBERS__INIT;
    dd.lhs_contracting_dimensions = (int64_t *)one;
    dd.n_lhs_contracting_dimensions = 1;
    dd.rhs_contracting_dimensions = (int64_t *)zero;
    dd.n_rhs_contracting_dimensions = 1;
    int64_t op_dot[2] = {9, 8};
    hx_instr(&in[11], "dot.1", "dot", 10, &s_dot, op_dot, 2);
    in[11].dot_dimension_numbers = &dd;
    int64_t op_f[1] = {5}, called[1] = {1};
    hx_instr(&in[12], "fusion.1", "fusion", 11, &s_tiled, op_f, 1);
    in[12].fusion_kind = "kLoop";
    in[12].called_computation_ids = called;
    in[12].n_called_computation_ids = 1;
    int64_t op_six[6] = {5, 5, 5, 5, 5, 5};
    hx_instr(&in[13], "t", "tuple", 12, &s_six, op_six, 6);

    Xla__HloInstructionProto *fused_i[2] = {&in[0], &in[1]};
    Xla__HloInstructionProto *main_i[12];
    for (int i = 0; i < 12; i++)
        main_i[i] = &in[2 + i];
    Xla__HloComputationProto fused, main_c;
    Xla__HloComputationProto *comps[2] = {hx_comp(&fused, "fused", 1, 101, fused_i, 2),
                                          hx_comp(&main_c, "main", 2, 12, main_i, 12)};
    return hx_pack("m", comps, 2, 2);
}

/* Program 42's proto on a metadata plane whose metadata id is 7: the
 * program_id stat wins. */
static pv_model *text_model(void)
{
    hx_packed p = text_module();
    pv_model_builder *b = pv_builder_new();
    hx_program(b, pv_builder_plane(b, 0, "/host:metadata"), 7, 42, &p);
    pv_model *m = pv_test_finish(b);
    pv_ingest_attach(m);
    return m;
}

static void check_text(const pv_hlo_index *x, const char *name, const char *want)
{
    uint32_t i = pv_hlo_index_find(x, 42, name, strlen(name));
    ck_assert_uint_ne(i, PV_HLO_NONE);
    pv_buf b;
    pv_buf_init(&b, 1 << 16);
    pv_hlo_print p = {true, true};
    ck_assert_int_eq(pv_hlo_text_instr(x, i, &p, &b), 0);
    ck_assert_int_eq(pv_buf_adds(&b, ""), 0);
    ck_assert_str_eq(b.data, want);
    pv_buf_fini(&b);
}

START_TEST(test_pv_hlo_text_instr_attributes)
{
    pv_model *m = text_model();
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_hlo_index x;
    pv_hlo_index_build(m, &a, &x);
    ck_assert_uint_eq(x.t->n_modules, 1);
    ck_assert_uint_eq(x.t->modules[0].program_id, 42);
    ck_assert_uint_eq(pv_hlo_index_find(&x, 7, "dot.1", 5), PV_HLO_NONE);
    check_text(&x, "cudnn-conv",
               "%cudnn-conv = (bf16[1,8,30]{2,1,0}, u8[64]{0}) custom-call(bf16[1,16,32]{2,1,0} "
               "%a, bf16[8,16,3]{2,1,0} %b), window={size=3}, dim_labels=bf0_oi0->bf0, "
               "custom_call_target=\"__cudnn$convForward\"");
    check_text(&x, "gte", "%gte = bf16[1,8,30]{2,1,0} get-tuple-element((bf16[1,8,30]{2,1,0}, "
                          "u8[64]{0}) %cudnn-conv), index=0");
    check_text(&x, "b", "%b = bf16[8,16,3]{2,1,0} parameter(1)");
    check_text(&x, "c.f", "%c.f = f32[] constant(0.01)");
    check_text(&x, "c.u", "%c.u = u32[4]{0} constant({13, 15, 26, 6})");
    check_text(&x, "c.b", "%c.b = bf16[] constant(1.414)");
    check_text(&x, "s", "%s = bf16[1,8]{1,0} slice(bf16[16,32]{1,0} %x), slice={[0:1], [0:16:2]}");
    check_text(&x, "dot.1", "%dot.1 = bf16[8,30]{1,0} dot(bf16[1,8]{1,0} %s, bf16[16,32]{1,0} %x), "
                            "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    check_text(&x, "fusion.1", "%fusion.1 = f32[8]{0:T(128)S(1)} fusion(f32[] %c.f), kind=kLoop, "
                               "calls=%fused");
    check_text(&x, "t", "%t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(f32[] "
                        "%c.f, f32[] %c.f, f32[] %c.f, f32[] %c.f, f32[] %c.f, /*index=5*/f32[] "
                        "%c.f)");
    /* the index: operands, users, roots, the fusion's body and its caller */
    uint32_t fusion = pv_hlo_index_find(&x, 42, "fusion.1", 8);
    uint32_t cf = pv_hlo_index_find(&x, 42, "c.f", 3);
    ck_assert_uint_eq(x.operands[x.operand_start[fusion]], cf);
    ck_assert_uint_eq(x.user_start[cf + 1] - x.user_start[cf], 7);   /* fusion + 6 in t */
    uint32_t body = pv_hlo_index_fused(&x, fusion);
    ck_assert_str_eq(x.t->computations[body].name, "fused");
    ck_assert_uint_eq(x.caller[body], fusion);
    ck_assert_str_eq(x.t->instructions[x.root[body]].name, "neg.0");
    ck_assert_uint_eq(pv_hlo_index_parent(&x, x.root[body]), fusion);
    ck_assert_uint_eq(pv_hlo_index_parent(&x, fusion), PV_HLO_NONE);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- real profiles ----------------------------------------------------------------------- */

#define GOLDEN PV_SRCDIR "/tests/data/reference/shared_golden/logdirs/jax_rocm_mi300/plugins/profile/"

/* Every row of XProf's hlo_stats golden for one ROCm profile: the
 * instruction its program id and HLO op name name, printed, equals
 * XProf's HLO op text. Returns the number of rows. */
static size_t compare_expressions(const char *run, const char *host)
{
    char xplane[1024], golden[1024];
    snprintf(xplane, sizeof xplane, "%s/logdirs/jax_rocm_mi300/plugins/profile/%s/%s.xplane.pb",
             PV_TESTDATA, run, host);
    snprintf(golden, sizeof golden, GOLDEN "%s/%s.hlo_stats.json.gz", run, host);
    pv_model *m = oracle_load_xplane(xplane);
    json_t *g = oracle_load_gz_json(golden);
    ck_assert_ptr_nonnull(g);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_hlo_index x;
    pv_hlo_index_build(m, &a, &x);
    int c_prog = oracle_col(g, "program_id"), c_name = oracle_col(g, "hlo_op_name");
    int c_expr = oracle_col(g, "hlo_op_expression");
    size_t n = json_array_size(json_object_get(g, "rows"));
    pv_hlo_print p = {true, true};
    for (size_t r = 0; r < n; r++) {
        uint64_t prog = strtoull(json_string_value(oracle_cell(g, r, c_prog)), NULL, 10);
        const char *name = json_string_value(oracle_cell(g, r, c_name));
        uint32_t i = pv_hlo_index_find(&x, prog, name, strlen(name));
        ck_assert_msg(i != PV_HLO_NONE, "%s: %llu %s", run, (unsigned long long)prog, name);
        pv_buf b;
        pv_buf_init(&b, 1 << 20);
        ck_assert_int_eq(pv_hlo_text_instr(&x, i, &p, &b), 0);
        ck_assert_int_eq(pv_buf_adds(&b, ""), 0);
        ck_assert_str_eq(b.data, json_string_value(oracle_cell(g, r, c_expr)));
        pv_buf_fini(&b);
    }
    json_decref(g);
    pv_arena_fini(&a);
    pv_model_free(m);
    return n;
}

START_TEST(test_pv_hlo_text_instr_vs_xprof)
{
    PV_NEED_TESTDATA("test_pv_hlo_text_instr_vs_xprof");
    /* the goldens' row counts */
    ck_assert_uint_eq(compare_expressions("jax08_gemm", "tw003"), 16);
    ck_assert_uint_eq(compare_expressions("jax08_elementwise", "tw003"), 13);
    ck_assert_uint_eq(compare_expressions("jax_conv_minimal_08", "tw003"), 4);
    ck_assert_uint_eq(compare_expressions("jax_conv_minimal_legacy",
                                          "chi-mi300x-013.ord.vultr.cpe.ice.amd.com"), 4);
}
END_TEST

/* JAX on CPU numbers its metadata 1..16; the program ids are the
 * program_id stats, as XProf's module list for this run says
 * ("jit_train_step(30)", "jit_stage(0)", ... in MANIFEST.json). */
START_TEST(test_pv_ingest_hlo_program_id_stat)
{
    pv_model *m = oracle_load_xplane(
        PV_SRCDIR "/tests/data/reference/jax_train/plugins/profile/2026_11_29_17_36_39/vm.xplane.pb");
    const pv_hlo_table *t = pv_model_hlo(m);
    ck_assert_uint_eq(t->n_modules, 16);
    ck_assert_str_eq(pv_hlo_module_find(t, 30)->name, "jit_train_step");
    ck_assert_str_eq(pv_hlo_module_find(t, 0)->name, "jit_stage");
    ck_assert_str_eq(pv_hlo_module_find(t, 28)->name, "jit__normal");
    ck_assert_ptr_null(pv_hlo_module_find(t, 1));
    pv_model_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("hlo_text");
    TCase *tc = tcase_create("pv_hlo_text_instr");
    tcase_add_test(tc, test_pv_hlo_text_instr_attributes);
    tcase_add_test(tc, test_pv_hlo_text_instr_vs_xprof);
    tcase_add_test(tc, test_pv_ingest_hlo_program_id_stat);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
