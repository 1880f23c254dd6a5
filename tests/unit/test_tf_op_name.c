/* Tests of tools/tf_op_name: expected splits worked out by hand from the
 * rules in FORMATS.md §3.6 (the reference's ParseTfOpFullname). */
#include "testutil.h"
#include "tools/common/tf_op_name.h"

#include <string.h>

static pv_tf_op parse(const char *s)
{
    pv_tf_op op;
    pv_tf_op_parse(s, strlen(s), &op);
    return op;
}

#define ck_slice(ptr, len, want)                                                            \
    do {                                                                                    \
        ck_assert_uint_eq((len), strlen(want));                                             \
        ck_assert_int_eq(memcmp((ptr), (want), (len)), 0);                                  \
    } while (0)

START_TEST(test_pv_tf_op_parse_tensorflow)
{
    pv_tf_op op = parse("sequential/dense/MatMul:MatMul");
    ck_assert_int_eq(op.category, PV_TF_OP_TENSORFLOW);
    ck_slice(op.name, op.name_len, "sequential/dense/MatMul");
    ck_slice(op.type, op.type_len, "MatMul");
    op = parse("sequential/conv2d_1/Relu:_FusedConv2D");
    ck_assert_int_eq(op.category, PV_TF_OP_TENSORFLOW);
    ck_slice(op.type, op.type_len, "_FusedConv2D");
    /* Only the first ':' splits. */
    op = parse("a:B:C");
    ck_assert_int_eq(op.category, PV_TF_OP_UNKNOWN);
    ck_slice(op.name, op.name_len, "a:B:C");
    ck_assert_uint_eq(op.type_len, 0);
}
END_TEST

START_TEST(test_pv_tf_op_parse_derived_type)
{
    /* Empty type: the last scope component without its numeric suffix. */
    pv_tf_op op = parse("model/layer/MatMul_1:");
    ck_assert_int_eq(op.category, PV_TF_OP_TENSORFLOW);
    ck_slice(op.name, op.name_len, "model/layer/MatMul_1");
    ck_slice(op.type, op.type_len, "MatMul");
    op = parse("model/Foo_bar:");
    ck_slice(op.type, op.type_len, "Foo_bar");
}
END_TEST

START_TEST(test_pv_tf_op_parse_jax)
{
    pv_tf_op op = parse("jit(train)/jvp(mlp)/dot_general:dot_general");
    ck_assert_int_eq(op.category, PV_TF_OP_JAX);
    ck_slice(op.name, op.name_len, "jit(train)/jvp(mlp)/dot_general");
    ck_slice(op.type, op.type_len, "dot_general");
    op = parse("jit(f)/transpose:transpose[permutation=(0, 3, 1, 2)]");
    ck_assert_int_eq(op.category, PV_TF_OP_JAX);
    ck_slice(op.type, op.type_len, "transpose");
    /* Empty type derived from a lowercase last component is JAX. */
    op = parse("jit(f)/add_3:");
    ck_assert_int_eq(op.category, PV_TF_OP_JAX);
    ck_slice(op.type, op.type_len, "add");
}
END_TEST

START_TEST(test_pv_tf_op_parse_dataset_memcpy_unknown)
{
    pv_tf_op op = parse("Iterator::Batch::Map::TFRecord");
    ck_assert_int_eq(op.category, PV_TF_OP_DATASET);
    ck_slice(op.name, op.name_len, "Iterator::Batch::Map::TFRecord");
    ck_slice(op.type, op.type_len, "Dataset");
    op = parse("MemcpyHToD_something");
    ck_assert_int_eq(op.category, PV_TF_OP_MEMCPY_H2D);
    ck_slice(op.type, op.type_len, "MemcpyHToD");
    ck_assert(pv_tf_op_is_memcpy(&op));
    op = parse("memcpydtoh");
    ck_assert_int_eq(op.category, PV_TF_OP_MEMCPY_D2H);
    op = parse("EagerExecute");
    ck_assert_int_eq(op.category, PV_TF_OP_UNKNOWN);
    ck_slice(op.name, op.name_len, "EagerExecute");
    ck_assert_uint_eq(op.type_len, 0);
    /* A type starting with a digit is neither TF nor JAX. */
    op = parse("train:1");
    ck_assert_int_eq(op.category, PV_TF_OP_UNKNOWN);
    op = parse("");
    ck_assert_int_eq(op.category, PV_TF_OP_UNKNOWN);
}
END_TEST

START_TEST(test_pv_tf_op_predicates)
{
    ck_assert(pv_tf_op_is_tf_name(".a/b>c-d_e", 10));
    ck_assert(!pv_tf_op_is_tf_name("_a", 2));
    ck_assert(!pv_tf_op_is_tf_name("a b", 3));
    ck_assert(pv_tf_op_is_tf_type("_Send", 5));
    ck_assert(!pv_tf_op_is_tf_type("send", 4));
    ck_assert(pv_tf_op_is_jax_type("reduce_sum[axes=(1,)]", 21));
    ck_assert(!pv_tf_op_is_jax_type("reduce[x", 8));
    pv_tf_op op = parse("x:InfeedEnqueueTuple");
    ck_assert(pv_tf_op_is_infeed_enqueue(&op));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tf_op_name");
    TCase *tc = tcase_create("pv_tf_op_parse");
    tcase_add_test(tc, test_pv_tf_op_parse_tensorflow);
    tcase_add_test(tc, test_pv_tf_op_parse_derived_type);
    tcase_add_test(tc, test_pv_tf_op_parse_jax);
    tcase_add_test(tc, test_pv_tf_op_parse_dataset_memcpy_unknown);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("predicates");
    tcase_add_test(tp, test_pv_tf_op_predicates);
    suite_add_tcase(s, tp);
    return pv_test_run(s);
}
