/* Tests of tools/common/tf_op_name, the one framework op-name parser.
 *
 * Every expected (category, name, type) below was worked out by hand from
 * the reference's source, not from what the parser printed:
 * ParseTfOpFullname, DeriveOpType, GetMemcpyOp and the Is* predicates in
 * xla/tsl/profiler/utils/tf_op_utils.cc(.h) (what XProf 2.24 runs), with
 * RE2's full-match rules for the patterns (re2/parse.cc rewrites '.' as
 * [^\n]; re2/compile.cc turns U+0080..U+10FFFF into lead byte C2-DF,
 * E0-EF or F0-F4 plus 1, 2 or 3 bytes 80-BF) and absl::SimpleAtoi's
 * (white space around, one sign, int64 range). Cases copied from the
 * reference's own tf_op_utils_test.cc say so. The rules, as numbered in
 * the comments:
 *
 *   R1  split at the FIRST ':' (absl::MaxSplits(':', 1));
 *   R2  no ':': a case-blind MEMCPYHToD/DToH/DToD/HToH prefix is a memcpy
 *       (name = input, fixed type), anything else unknown;
 *   R3  the part before ':' == "Iterator": tf.data (name = input,
 *       type "Dataset");
 *   R4  IsTfOpName(name) && IsTfOpType(type): TensorFlow;
 *   R5  type, or when empty DeriveOpType(name), is IsJaxOpType: JAX, the
 *       type cut at its first '[';
 *   R6  empty type otherwise: TensorFlow with the derived type;
 *   R7  else unknown (name = input, type ""). */
#include "testutil.h"
#include "tools/common/tf_op_name.h"

#include <string.h>

typedef struct op_case {
    const char *in;
    int category;
    const char *name;
    const char *type;
} op_case;

enum { U = PV_TF_OP_UNKNOWN, TF = PV_TF_OP_TENSORFLOW, JAX = PV_TF_OP_JAX,
       DS = PV_TF_OP_DATASET, H2D = PV_TF_OP_MEMCPY_H2D, D2H = PV_TF_OP_MEMCPY_D2H,
       D2D = PV_TF_OP_MEMCPY_D2D, H2H = PV_TF_OP_MEMCPY_H2H };

static const op_case cases[] = {
    /* R4, the reference's TfOpTest, InternalTfOpTest, TfOpWithPathTest,
     * NameScopeTest. */
    {"OpName:OpType", TF, "OpName", "OpType"},
    {"OpName:_InternalOpType", TF, "OpName", "_InternalOpType"},
    {"path/to/name:OpType", TF, "path/to/name", "OpType"},
    {"scope-1/scope2/OpName:OpType", TF, "scope-1/scope2/OpName", "OpType"},
    /* R4 with digits: anywhere in the name (even first), not first in the type. */
    {"conv2d_1/Conv2D:Conv2D", TF, "conv2d_1/Conv2D", "Conv2D"},
    {"0/.a>b-c:MatMulV2", TF, "0/.a>b-c", "MatMulV2"},
    {"x:2Type", U, "x:2Type", ""},   /* R7: not TF, and a digit starts no JAX type */
    /* R4 fails on a name character outside the class; R5 then takes a
     * lowercase type whatever the name holds. */
    {"_a:MatMul", U, "_a:MatMul", ""},
    {"a b:MatMul", U, "a b:MatMul", ""},
    {"jit(train)/jvp(mlp)/dot_general:dot_general", JAX, "jit(train)/jvp(mlp)/dot_general",
     "dot_general"},
    /* R7, the reference's TraceMeTest, TraceMeWithColonTest,
     * TraceMeWithDoubleColonTest, TraceMeWithTrailingWhitespaceTest. */
    {"MyTraceMe", U, "MyTraceMe", ""},
    {"RunStep/Server:54635", U, "RunStep/Server:54635", ""},
    {"XLA::StartProgram", U, "XLA::StartProgram", ""},
    {"ExecutorState::Process", U, "ExecutorState::Process", ""},
    {"SessionRun ", U, "SessionRun ", ""},
    /* R1: "a:b:c" splits into "a" and "b:c"; neither R4 nor R5 takes
     * "b:c", so the name stays whole (issue #14: the overview's old parser
     * cut it to "a"). */
    {"a:b:c", U, "a:b:c", ""},
    {"a:B:C", U, "a:B:C", ""},
    /* Empty input and a lone ':' (R1 gives "" and ""): DeriveOpType("")
     * is "", which is no JAX type, so R6 makes it TensorFlow with an
     * empty name and type. "::" has the type ":" (R7). */
    {"", U, "", ""},
    {":", TF, "", ""},
    {"::", U, "::", ""},
    /* R2, the reference's MemcpyHToDTest and MemcpyDToHTest: the type is
     * the fixed name (issue #14: the overview's old parser gave ""). Both
     * spellings of all four, any case, prefix only. */
    {"MemcpyHToD", H2D, "MemcpyHToD", "MemcpyHToD"},
    {"MEMCPYHToD", H2D, "MEMCPYHToD", "MemcpyHToD"},
    {"MemcpyDToH", D2H, "MemcpyDToH", "MemcpyDToH"},
    {"MEMCPYDToH", D2H, "MEMCPYDToH", "MemcpyDToH"},
    {"MemcpyDToD", D2D, "MemcpyDToD", "MemcpyDToD"},
    {"MEMCPYDToD", D2D, "MEMCPYDToD", "MemcpyDToD"},
    {"MemcpyHToH", H2H, "MemcpyHToH", "MemcpyHToH"},
    {"MEMCPYHToH", H2H, "MEMCPYHToH", "MemcpyHToH"},
    {"memcpyhtod_extra", H2D, "memcpyhtod_extra", "MemcpyHToD"},
    {"MemcpyH2D", U, "MemcpyH2D", ""},   /* CUPTI's spelling is none of the four */
    {"MemcpyHTo", U, "MemcpyHTo", ""},
    /* R2 only applies without ':'; with one, R5 reads "foo" as JAX. */
    {"MemcpyHToD:foo", JAX, "MemcpyHToD", "foo"},
    /* R3, the reference's ShortDatasetOpTest and LongDatasetOpTest: the
     * exact part "Iterator", nothing else. */
    {"Iterator::Map", DS, "Iterator::Map", "Dataset"},
    {"Iterator::Batch::Map::TfRecord", DS, "Iterator::Batch::Map::TfRecord", "Dataset"},
    {"Iterator:", DS, "Iterator:", "Dataset"},
    {"iterator::Map", U, "iterator::Map", ""},
    {"IteratorGetNext:IteratorGetNext", TF, "IteratorGetNext", "IteratorGetNext"},
    /* R6 / R5 on a trailing ':': the reference's OpWithoutTypeTest and
     * OpTypeWithUnderscoreTest, then the same with a lowercase (JAX)
     * last component. */
    {"namescope/OpName_1:", TF, "namescope/OpName_1", "OpName"},
    {"namescope/OpName_a:", TF, "namescope/OpName_a", "OpName_a"},
    {"XlaModule:", TF, "XlaModule", "XlaModule"},
    {"jit(f)/add_3:", JAX, "jit(f)/add_3", "add"},
    {"model/dense/relu:", JAX, "model/dense/relu", "relu"},
    /* DeriveOpType's suffix is what absl::SimpleAtoi takes as an int64:
     * a sign, white space around, nothing out of range; only the text
     * after the last '_' counts. */
    {"a/Foo_-1:", TF, "a/Foo_-1", "Foo"},
    {"a/relu_+2:", JAX, "a/relu_+2", "relu"},
    {"a/Foo_ 7 :", TF, "a/Foo_ 7 ", "Foo"},
    {"a/Foo_9223372036854775807:", TF, "a/Foo_9223372036854775807", "Foo"},
    {"a/Foo_-9223372036854775808:", TF, "a/Foo_-9223372036854775808", "Foo"},
    {"a/Foo_9223372036854775808:", TF, "a/Foo_9223372036854775808",
     "Foo_9223372036854775808"},
    {"a/Foo_:", TF, "a/Foo_", "Foo_"},
    {"a/Foo_1_x:", TF, "a/Foo_1_x", "Foo_1_x"},
    {"a/7:", TF, "a/7", "7"},   /* no '_': the component is its own suffix, kept */
    {"a/_5:", TF, "a/_5", ""},
    /* R5, the reference's JaxOpTest and OtherXlaOpTest. */
    {"op_name:op_type", JAX, "op_name", "op_type"},
    {"namescope.1/namespace__opname2d:namespace__opname2d", JAX,
     "namescope.1/namespace__opname2d", "namespace__opname2d"},
    /* R5 with brackets: "[" ... "]" must end the type; '.' takes any
     * character but '\n', ']' and '\r' included. */
    {"jit(f)/transpose:transpose[permutation=(0, 3, 1, 2)]", JAX, "jit(f)/transpose",
     "transpose"},
    {"f:add[]", JAX, "f", "add"},
    {"f:add[a]b]", JAX, "f", "add"},
    {"f:add[\r]", JAX, "f", "add"},
    {"f:add[", U, "f:add[", ""},
    {"f:add]", U, "f:add]", ""},
    {"f:add[x]y", U, "f:add[x]y", ""},
    {"f:Add[x]", U, "f:Add[x]", ""},
    /* A newline inside the brackets: '.' does not take it, so R7 (issue
     * #14: the overview's old parser called this JAX). */
    {"f:gather[dims=(1,)\n slice=(2,)]", U, "f:gather[dims=(1,)\n slice=(2,)]", ""},
    /* Non-ASCII bytes. Inside brackets: one UTF-8 character (2, 3, 4
     * bytes, RE2 also letting overlong E0, surrogates and F4 past U+10FFFF
     * through) matches '.'; a stray continuation byte, C0, F5-FF or a
     * cut-off sequence does not. Outside brackets every class is ASCII. */
    {"f:add[\xc3\xa9]", JAX, "f", "add"},
    {"f:add[\xe2\x82\xac]", JAX, "f", "add"},
    {"f:add[\xf0\x9f\x98\x80]", JAX, "f", "add"},
    {"f:add[\xe0\x80\x80]", JAX, "f", "add"},
    {"f:add[\xed\xa0\x80]", JAX, "f", "add"},
    {"f:add[\xf4\x90\x80\x80]", JAX, "f", "add"},
    {"f:add[\x80]", U, "f:add[\x80]", ""},
    {"f:add[\xc3]", U, "f:add[\xc3]", ""},
    {"f:add[\xe2\x82]", U, "f:add[\xe2\x82]", ""},
    {"f:add[\xc0\x80]", U, "f:add[\xc0\x80]", ""},
    {"f:add[\xf5\x80\x80\x80]", U, "f:add[\xf5\x80\x80\x80]", ""},
    {"f:add[\xff]", U, "f:add[\xff]", ""},
    {"caf\xc3\xa9:MatMul", U, "caf\xc3\xa9:MatMul", ""},
    {"x:Mat\xc3\xa9", U, "x:Mat\xc3\xa9", ""},
    {"x:\xc3\xa9", U, "x:\xc3\xa9", ""},
    {"caf\xc3\xa9/relu:relu", JAX, "caf\xc3\xa9/relu", "relu"},
};

START_TEST(test_pv_tf_op_parse_table)
{
    const op_case *c = &cases[_i];
    pv_tf_op op;
    pv_tf_op_parse(c->in, strlen(c->in), &op);
    ck_assert_msg(op.category == c->category, "\"%s\": category %d, want %d", c->in,
                  op.category, c->category);
    ck_assert_msg(op.name_len == strlen(c->name) && memcmp(op.name, c->name, op.name_len) == 0,
                  "\"%s\": name \"%.*s\", want \"%s\"", c->in, (int)op.name_len, op.name,
                  c->name);
    ck_assert_msg(op.type_len == strlen(c->type) && memcmp(op.type, c->type, op.type_len) == 0,
                  "\"%s\": type \"%.*s\", want \"%s\"", c->in, (int)op.type_len, op.type,
                  c->type);
}
END_TEST

/* The input is read by length, not up to a NUL. */
START_TEST(test_pv_tf_op_parse_length)
{
    pv_tf_op op;
    pv_tf_op_parse("a/b:MatMul:junk", 10, &op);
    ck_assert_int_eq(op.category, PV_TF_OP_TENSORFLOW);
    ck_assert_uint_eq(op.name_len, 3);
    ck_assert_uint_eq(op.type_len, 6);
    pv_tf_op_parse("f:add\0[x", 8, &op);
    ck_assert_int_eq(op.category, PV_TF_OP_UNKNOWN);
    ck_assert_uint_eq(op.name_len, 8);
}
END_TEST

START_TEST(test_pv_tf_op_predicates)
{
    ck_assert(pv_tf_op_is_tf_name(".a/b>c-d_e", 10));
    ck_assert(!pv_tf_op_is_tf_name("_a", 2));
    ck_assert(!pv_tf_op_is_tf_name("", 0));
    ck_assert(pv_tf_op_is_tf_type("_Send", 5));
    ck_assert(!pv_tf_op_is_tf_type("send", 4));
    ck_assert(pv_tf_op_is_jax_type("reduce_sum[axes=(1,)]", 21));
    ck_assert(!pv_tf_op_is_jax_type("reduce[x", 8));
    /* IsJaxOpNameAndType: the reference's JaxOpNameTest,
     * JaxOpNameWithMetadataTest (a newline in the name is fine: only the
     * type is matched against the pattern) and OtherXlaOpNameTest. */
    ck_assert(pv_tf_op_is_jax_name_and_type("namescope/add", 13, "add", 3));
    static const char meta[] = "pmap(<unnamed wrapped function>)/gather[ dimension_numbers=("
                               "2,)\n   slice_sizes=(1, 1, 81) ]:gather";
    ck_assert(pv_tf_op_is_jax_name_and_type(meta, strlen(meta), "gather", 6));
    ck_assert(pv_tf_op_is_jax_name_and_type("namescope.1/namespace__opname2d", 31,
                                            "namespace__opname2d", 19));
    /* Only the last component counts; an empty name or a TF type fails. */
    ck_assert(!pv_tf_op_is_jax_name_and_type("a/add/b", 7, "add", 3));
    ck_assert(!pv_tf_op_is_jax_name_and_type("", 0, "add", 3));
    ck_assert(!pv_tf_op_is_jax_name_and_type("a/Add", 5, "Add", 3));
    ck_assert(pv_tf_op_is_jax_name_and_type("a/add_1", 7, "add", 3));
}
END_TEST

/* IsInfeedEnqueueOp: a prefix of the type, and for a parsed op also the
 * TensorFlow category. IsMemcpy*: the category. */
START_TEST(test_pv_tf_op_infeed_memcpy)
{
    ck_assert(pv_tf_op_type_is_infeed_enqueue("InfeedEnqueue", 13));
    ck_assert(pv_tf_op_type_is_infeed_enqueue("InfeedEnqueueTuple", 18));
    ck_assert(pv_tf_op_type_is_infeed_enqueue("InfeedEnqueuePrelinearizedBuffer", 32));
    ck_assert(!pv_tf_op_type_is_infeed_enqueue("InfeedEnqueu", 12));
    ck_assert(!pv_tf_op_type_is_infeed_enqueue("InfeedDequeue", 13));
    pv_tf_op op;
    pv_tf_op_parse("x:InfeedEnqueueTuple", 20, &op);
    ck_assert(pv_tf_op_is_infeed_enqueue(&op));
    pv_tf_op_parse("a/InfeedEnqueue_3:", 18, &op);   /* derived type, still TensorFlow */
    ck_assert(pv_tf_op_is_infeed_enqueue(&op));
    pv_tf_op_parse("x y:InfeedEnqueue", 17, &op);    /* not a TF name: unknown */
    ck_assert(!pv_tf_op_is_infeed_enqueue(&op));
    pv_tf_op_parse("MemcpyDToD", 10, &op);
    ck_assert(pv_tf_op_is_memcpy(&op));
    pv_tf_op_parse("Iterator::Map", 13, &op);
    ck_assert(!pv_tf_op_is_memcpy(&op));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tf_op_name");
    TCase *tc = tcase_create("pv_tf_op_parse");
    tcase_add_loop_test(tc, test_pv_tf_op_parse_table, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, test_pv_tf_op_parse_length);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("predicates");
    tcase_add_test(tp, test_pv_tf_op_predicates);
    tcase_add_test(tp, test_pv_tf_op_infeed_memcpy);
    suite_add_tcase(s, tp);
    return pv_test_run(s);
}
