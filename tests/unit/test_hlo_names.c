/* Tests of tools/hlo_names on the hand-written HLO protos of
 * gpu_fixture.h (fx_xla_model): program 7 readable, program 8 cut short. */
#include "gpu_fixture.h"
#include "testutil.h"
#include "tools/common/hlo_names.h"

START_TEST(test_pv_hlo_names_build_reads_instructions)
{
    pv_model *m = fx_xla_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_hlo_names h;
    pv_hlo_names_build(m, &a, &h);
    ck_assert_uint_eq(h.n_instrs, 2);      /* fusion.1, copy.1 */
    ck_assert_uint_eq(h.n_programs, 1);
    ck_assert_uint_eq(h.n_bad, 1);         /* program 8's proto is 3 bytes short */
    ck_assert(pv_hlo_names_has_program(&h, 7));
    ck_assert(!pv_hlo_names_has_program(&h, 8));
    const pv_hlo_instr *in = pv_hlo_names_find(&h, 7, "fusion.1", 8);
    ck_assert_ptr_nonnull(in);
    ck_assert_str_eq(in->op_name, "jit(f)/dot_general");
    ck_assert_str_eq(in->op_type, "dot_general");
    ck_assert_str_eq(pv_hlo_instr_tf_op(in, &a), "jit(f)/dot_general:dot_general");
    in = pv_hlo_names_find(&h, 7, "copy.1", 6);
    ck_assert_ptr_nonnull(in);
    ck_assert_str_eq(in->op_name, "");
    ck_assert_str_eq(pv_hlo_instr_tf_op(in, &a), "");
    /* Lookups take (pointer, length): a prefix is not a match. */
    ck_assert_ptr_null(pv_hlo_names_find(&h, 7, "fusion.1x", 8 + 1));
    ck_assert_ptr_null(pv_hlo_names_find(&h, 7, "fusion", 6));
    ck_assert_ptr_null(pv_hlo_names_find(&h, 8, "fusion.1", 8));
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_hlo_names_build_without_protos)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_hlo_names h;
    pv_hlo_names_build(m, &a, &h);
    ck_assert_uint_eq(h.n_instrs, 0);
    ck_assert(!pv_hlo_names_has_program(&h, 7));
    ck_assert_ptr_null(pv_hlo_names_find(&h, 7, "fusion.1", 8));
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hlo_names");
    TCase *tc = tcase_create("pv_hlo_names_build");
    tcase_add_test(tc, test_pv_hlo_names_build_reads_instructions);
    tcase_add_test(tc, test_pv_hlo_names_build_without_protos);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
