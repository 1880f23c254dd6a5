/* tf_op_name: the one parser of framework op names. It splits a full name
 * ("scope/name:Type", a TraceMe name or a `tf_op` stat value) into
 * category, name and type exactly as the reference's ParseTfOpFullname
 * does (FORMATS.md §3.6; xla/tsl/profiler/utils/tf_op_utils.cc, which
 * XProf 2.24 uses). Every tool that asks "what op is this?" calls it: the
 * overview and input pipeline pages, op and kernel stats, the trace's
 * derived lines.
 *
 * The result points into the input string (no allocation): name and type
 * are (pointer, length) slices valid as long as the input is, except the
 * fixed types of memcpy and dataset ops, which point at static strings.
 * Pure and thread-safe; nothing here can fail. */
#ifndef PV_TOOLS_COMMON_TF_OP_NAME_H
#define PV_TOOLS_COMMON_TF_OP_NAME_H

#include <stdbool.h>
#include <stddef.h>

typedef enum pv_tf_op_category {
    PV_TF_OP_UNKNOWN = 0,  /* user TraceMe or anything unparsable */
    PV_TF_OP_TENSORFLOW,   /* name:Type with a TF-style type, or name: */
    PV_TF_OP_JAX,          /* name:type with a lowercase (JAX primitive) type */
    PV_TF_OP_DATASET,      /* Iterator::... (tf.data) */
    PV_TF_OP_MEMCPY_H2D,
    PV_TF_OP_MEMCPY_D2H,
    PV_TF_OP_MEMCPY_D2D,
    PV_TF_OP_MEMCPY_H2H
} pv_tf_op_category;

typedef struct pv_tf_op {
    int category;       /* pv_tf_op_category */
    const char *name;   /* op name (the whole input for unknown/dataset/memcpy) */
    size_t name_len;    /* bytes */
    const char *type;   /* op type; "" for unknown */
    size_t type_len;    /* bytes */
} pv_tf_op;

/* ---- parsing ------------------------------------------------------------ */

/* Parses full[0..len) (any bytes, NUL included). Cannot fail: anything
 * unrecognised is PV_TF_OP_UNKNOWN with name = the whole input and an
 * empty type. */
void pv_tf_op_parse(const char *full, size_t len, pv_tf_op *out);

/* ---- the reference's predicates, for tools that test a name or type ----- */

/* IsTfOpName: s matches [A-Za-z0-9.][A-Za-z0-9_./>-]* */
bool pv_tf_op_is_tf_name(const char *s, size_t len);
/* IsTfOpType: s matches [A-Z_][a-zA-Z0-9_]* */
bool pv_tf_op_is_tf_type(const char *s, size_t len);
/* IsJaxOpType: s matches [a-z_][a-z0-9_]*(\[.*\])? with RE2's '.' (no
 * newline; one UTF-8 character, not a stray byte). */
bool pv_tf_op_is_jax_type(const char *s, size_t len);
/* IsJaxOpNameAndType: name is not empty, type is a JAX type, and the last
 * '/' component of name contains type. */
bool pv_tf_op_is_jax_name_and_type(const char *name, size_t name_len, const char *type,
                                   size_t type_len);

/* IsInfeedEnqueueOp(type): the type starts with "InfeedEnqueue". For
 * tools that kept only the type (op metrics). */
bool pv_tf_op_type_is_infeed_enqueue(const char *type, size_t len);
/* IsInfeedEnqueueOp(TfOp): a TensorFlow op whose type starts with
 * "InfeedEnqueue". */
bool pv_tf_op_is_infeed_enqueue(const pv_tf_op *op);
/* True for memcpy categories. */
bool pv_tf_op_is_memcpy(const pv_tf_op *op);

/* True when op (name, type) shows a backward pass: a TF op under a
 * "gradient_tape" / "gradients*" name scope, or a JAX op (or an op
 * without a type) under a "transpose(" scope; the reference's
 * ModelTracker::ProcessOp, whose verdict is "training". */
bool pv_tf_op_has_gradients(const char *name, const char *type);

#endif
