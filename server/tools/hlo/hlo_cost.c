/* hlo_cost: per-run flops and bytes of an XLA instruction, and its
 * category (hlo_cost.h). Shapes are read from the table's text. */
#include "tools/hlo/hlo_cost.h"

#include <stdlib.h>
#include <string.h>

#define MAX_RANK 32

/* ---- shapes ------------------------------------------------------------------------ */

unsigned pv_hlo_type_bits(const char *type, size_t len)
{
    static const struct {
        const char *name;
        unsigned bits;
    } types[] = {
        {"pred", 8}, {"s1", 1},   {"u1", 1},   {"s2", 2},   {"u2", 2},    {"s4", 4},
        {"u4", 4},   {"s8", 8},   {"u8", 8},   {"s16", 16}, {"u16", 16},  {"f16", 16},
        {"bf16", 16}, {"s32", 32}, {"u32", 32}, {"f32", 32}, {"s64", 64},  {"u64", 64},
        {"f64", 64}, {"c64", 64}, {"c128", 128}, {"f4e2m1fn", 4},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i].name) == len && memcmp(types[i].name, type, len) == 0)
            return types[i].bits;
    /* the 8-bit floats: f8e5m2, f8e4m3fn, f8e8m0fnu, ... */
    if (len > 2 && type[0] == 'f' && type[1] == '8')
        return 8;
    return 0;
}

/* One array of a shape's text. */
typedef struct leaf {
    const char *type;
    size_t type_len;
    int64_t dims[MAX_RANK];
    unsigned rank;
    uint64_t elements;
} leaf;

/* Reads the array at *p ("bf16[8,<=16]{1,0}") into *l and moves *p past
 * it; false when it does not parse. */
static bool read_array(const char **p, leaf *l)
{
    const char *s = *p;
    l->type = s;
    while ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))
        s++;
    l->type_len = (size_t)(s - l->type);
    if (*s != '[')
        return false;
    s++;
    l->rank = 0;
    l->elements = 1;
    while (*s != ']') {
        if (*s == '<' && s[1] == '=')
            s += 2;
        char *end;
        long long d = strtoll(s, &end, 10);
        if (end == s || d < 0 || l->rank == MAX_RANK)
            return false;
        l->dims[l->rank++] = d;
        l->elements *= (uint64_t)d;
        s = end;
        if (*s == ',')
            s++;
        else if (*s != ']')
            return false;
    }
    s++;
    if (*s == '{') {
        while (*s != '\0' && *s != '}')
            s++;
        if (*s == '}')
            s++;
    }
    *p = s;
    return true;
}

/* Calls fn on each array of a shape's text, in order; stops (false) at
 * text that does not parse. */
static bool each_leaf(const char **p, void (*fn)(const leaf *, void *), void *ctx, int depth)
{
    if (**p != '(') {
        leaf l;
        if (!read_array(p, &l))
            return false;
        fn(&l, ctx);
        return true;
    }
    if (depth > 64)
        return false;
    (*p)++;
    while (**p != ')') {
        if (**p == '/' && strncmp(*p, "/*index=", 8) == 0) {
            const char *end = strstr(*p, "*/");
            if (end == NULL)
                return false;
            *p = end + 2;
            continue;
        }
        if (!each_leaf(p, fn, ctx, depth + 1))
            return false;
        if (**p == ',' && (*p)[1] == ' ')
            *p += 2;
        else if (**p != ')')
            return false;
    }
    (*p)++;
    return true;
}

typedef struct totals {
    uint64_t elements, bytes;
} totals;

static void add_leaf(const leaf *l, void *ctx)
{
    totals *t = ctx;
    unsigned bits = pv_hlo_type_bits(l->type, l->type_len);
    t->elements += l->elements;
    t->bytes += (l->elements * bits + 7) / 8;
}

static totals shape_totals(const char *shape)
{
    totals t = {0, 0};
    const char *p = shape;
    if (shape[0] != '\0' && !each_leaf(&p, add_leaf, &t, 0))
        t = (totals){0, 0};
    return t;
}

uint64_t pv_hlo_shape_elements(const char *shape)
{
    return shape_totals(shape).elements;
}

uint64_t pv_hlo_shape_bytes(const char *shape)
{
    return shape_totals(shape).bytes;
}

/* The first array of a shape (the array itself, or a tuple's first). */
static bool first_leaf(const char *shape, leaf *l)
{
    const char *p = shape;
    while (*p == '(')
        p++;
    return read_array(&p, l);
}

/* The last array of a tuple shape; false for an array. */
static bool last_leaf(const char *shape, leaf *l)
{
    if (shape[0] != '(')
        return false;
    const char *p = strrchr(shape, ',');
    if (p == NULL)
        return false;
    p++;
    while (*p == ' ')
        p++;
    if (strncmp(p, "/*index=", 8) == 0 && strstr(p, "*/") != NULL)
        p = strstr(p, "*/") + 2;
    return read_array(&p, l);
}

/* ---- opcodes ------------------------------------------------------------------------ */

static bool is(const pv_hlo_instruction *in, const char *opcode)
{
    return strcmp(in->opcode, opcode) == 0;
}

static bool in_list(const char *opcode, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(opcode, list[i]) == 0)
            return true;
    return false;
}

/* XLA counts transcendental ops apart from flops. */
static bool is_transcendental(const char *opcode)
{
    static const char *const ops[] = {"atan2", "cbrt",     "cosine", "erf",          "exponential",
                                      "exponential-minus-one", "log", "log-plus-one", "logistic",
                                      "power", "rsqrt",    "sine",   "sqrt",         "tan",
                                      "tanh"};
    return in_list(opcode, ops, sizeof ops / sizeof ops[0]);
}

static bool is_elementwise(const char *opcode)
{
    static const char *const ops[] = {
        "abs",          "add",         "and",        "ceil",         "clamp",
        "clz",          "compare",     "complex",    "convert",      "count-leading-zeros",
        "divide",       "floor",       "imag",       "is-finite",    "maximum",
        "minimum",      "multiply",    "negate",     "not",          "or",
        "popcnt",       "real",        "reduce-precision", "remainder", "round-nearest-afz",
        "round-nearest-even", "select", "shift-left", "shift-right-arithmetic",
        "shift-right-logical", "sign",  "subtract",   "xor",          "stochastic-convert"};
    return is_transcendental(opcode) || in_list(opcode, ops, sizeof ops / sizeof ops[0]);
}

const char *pv_hlo_category(const pv_hlo_index *x, uint32_t i)
{
    const pv_hlo_instruction *in = &x->t->instructions[i];
    if (is(in, "fusion") && in->attrs != NULL) {
        const char *k = in->attrs->fusion_kind;
        if (strcmp(k, "kLoop") == 0)
            return "loop fusion";
        if (strcmp(k, "kInput") == 0)
            return "input fusion";
        if (strcmp(k, "kOutput") == 0)
            return "output fusion";
        if (strcmp(k, "kCustom") == 0)
            return "custom fusion";
    }
    if (is(in, "copy") || is(in, "transpose"))
        return "data formatting";
    /* XLA counts a constant among the elementwise ops here */
    if (is_elementwise(in->opcode) || is(in, "constant"))
        return "non-fusion elementwise";
    return in->opcode;
}

/* ---- flops ---------------------------------------------------------------------------- */

static double flops_of(const pv_hlo_index *x, uint32_t i, int depth);

/* The flops of one run of computation c (a fusion's body, a reducer). */
static double computation_flops(const pv_hlo_index *x, uint32_t c, int depth)
{
    const pv_hlo_computation *comp = &x->t->computations[c];
    double f = 0;
    for (uint32_t k = 0; k < comp->n_instructions; k++)
        f += flops_of(x, (uint32_t)comp->first_instruction + k, depth + 1);
    return f;
}

static const pv_hlo_instruction *operand(const pv_hlo_index *x, uint32_t i, uint32_t k)
{
    uint32_t at = x->operand_start[i] + k;
    return at < x->operand_start[i + 1] ? &x->t->instructions[x->operands[at]] : NULL;
}

/* 2 * output elements * the product of the lhs's contracting dimensions. */
static double dot_flops(const pv_hlo_index *x, uint32_t i)
{
    const pv_hlo_instruction *in = &x->t->instructions[i];
    const pv_hlo_instruction *lhs = operand(x, i, 0);
    leaf out, l;
    if (lhs == NULL || in->attrs == NULL || !first_leaf(in->shape, &out) ||
        !first_leaf(lhs->shape, &l))
        return 0;
    double k = 1;
    for (uint32_t d = 0; d < in->attrs->dot_dims[0].n; d++) {
        int64_t dim = in->attrs->dot_dims[0].v[d];
        if (dim >= 0 && (unsigned)dim < l.rank)
            k *= (double)l.dims[dim];
    }
    return 2.0 * (double)out.elements * k;
}

/* A cuBLAS GEMM's operands are [batch..., M, K] and [batch..., K, N] and
 * its first output [batch..., M, N]: K is the lhs's elements over the
 * output's per N. */
static double gemm_flops(const pv_hlo_index *x, uint32_t i)
{
    const pv_hlo_instruction *lhs = operand(x, i, 0);
    leaf out, l;
    if (lhs == NULL || !first_leaf(x->t->instructions[i].shape, &out) ||
        !first_leaf(lhs->shape, &l) || out.rank == 0 || out.elements == 0)
        return 0;
    double n = (double)out.dims[out.rank - 1];
    return 2.0 * (double)l.elements * n;
}

/* The (output, kernel) position pairs of one spatial dimension whose
 * input position is inside the (base-dilated) input, as XLA counts a
 * convolution's multiply-adds. */
static double valid_positions(int64_t in_size, int64_t out_size, const pv_hlo_window_dim *w)
{
    int64_t stride = w->stride > 0 ? w->stride : 1;
    int64_t wdil = w->window_dilation > 0 ? w->window_dilation : 1;
    int64_t bdil = w->base_dilation > 0 ? w->base_dilation : 1;
    double n = 0;
    for (int64_t o = 0; o < out_size; o++)
        for (int64_t k = 0; k < w->size; k++) {
            int64_t pos = o * stride - w->pad_low + k * wdil;
            if (pos >= 0 && pos % bdil == 0 && pos / bdil < in_size)
                n++;
        }
    return n;
}

static double conv_flops(const pv_hlo_index *x, uint32_t i)
{
    const pv_hlo_instruction *in = &x->t->instructions[i];
    const pv_hlo_instruction *lhs = operand(x, i, 0);
    const pv_hlo_attrs *a = in->attrs;
    leaf out, l;
    if (lhs == NULL || a == NULL || !a->has_conv_dims || !first_leaf(in->shape, &out) ||
        !first_leaf(lhs->shape, &l))
        return 0;
    const pv_hlo_conv_dims *c = &a->conv_dims;
    if (c->input_feature < 0 || (unsigned)c->input_feature >= l.rank ||
        c->output_batch < 0 || (unsigned)c->output_batch >= out.rank ||
        c->output_feature < 0 || (unsigned)c->output_feature >= out.rank)
        return 0;
    double groups = a->feature_group_count > 1 ? (double)a->feature_group_count : 1;
    double fma = (double)out.dims[c->output_batch] * (double)out.dims[c->output_feature] *
                 (double)l.dims[c->input_feature] / groups;
    for (uint32_t s = 0; s < c->input_spatial.n && s < c->output_spatial.n && s < a->n_window;
         s++) {
        int64_t di = c->input_spatial.v[s], dout = c->output_spatial.v[s];
        if (di < 0 || (unsigned)di >= l.rank || dout < 0 || (unsigned)dout >= out.rank)
            return 0;
        fma *= valid_positions(l.dims[di], out.dims[dout], &a->window[s]);
    }
    return 2.0 * fma;
}

static bool is_gemm_call(const pv_hlo_instruction *in)
{
    return in->attrs != NULL && (strcmp(in->attrs->custom_call_target, "__cublas$gemm") == 0 ||
                                 strcmp(in->attrs->custom_call_target, "__cublas$lt$matmul") == 0);
}

static bool is_conv_call(const pv_hlo_instruction *in)
{
    return in->attrs != NULL && strncmp(in->attrs->custom_call_target, "__cudnn$conv", 12) == 0;
}

static double flops_of(const pv_hlo_index *x, uint32_t i, int depth)
{
    const pv_hlo_instruction *in = &x->t->instructions[i];
    if (depth > 16)
        return 0;
    if (is(in, "fusion")) {
        uint32_t body = pv_hlo_index_fused(x, i);
        return body != PV_HLO_NONE ? computation_flops(x, body, depth) : 0;
    }
    if (is(in, "dot"))
        return dot_flops(x, i);
    if (is(in, "convolution") || (is(in, "custom-call") && is_conv_call(in)))
        return conv_flops(x, i);
    if (is(in, "custom-call"))
        return is_gemm_call(in) ? gemm_flops(x, i) : 0;
    if (is_elementwise(in->opcode))
        return is_transcendental(in->opcode) ? 0 : (double)pv_hlo_shape_elements(in->shape);
    uint32_t called = x->called_start[i] < x->called_start[i + 1]
                          ? x->called[x->called_start[i]]
                          : PV_HLO_NONE;
    if (is(in, "reduce") && called != PV_HLO_NONE) {
        const pv_hlo_instruction *src = operand(x, i, 0);
        double in_el = src != NULL ? (double)pv_hlo_shape_elements(src->shape) : 0;
        leaf out;
        double out_el = first_leaf(in->shape, &out) ? (double)out.elements : 0;
        return in_el > out_el ? (in_el - out_el) * computation_flops(x, called, depth) : 0;
    }
    if (is(in, "reduce-window") && called != PV_HLO_NONE && in->attrs != NULL) {
        double window = 1;
        for (uint32_t d = 0; d < in->attrs->n_window; d++)
            window *= (double)in->attrs->window[d].size;
        return (double)pv_hlo_shape_elements(in->shape) * window *
               computation_flops(x, called, depth);
    }
    return 0;
}

/* ---- bytes ------------------------------------------------------------------------------ */

/* The share of a fused parameter its body reads: a slice of it reads the
 * slice; any other use reads it all; at most once in all. */
static double utilization(const pv_hlo_index *x, uint32_t param)
{
    double u = 0;
    uint64_t whole = pv_hlo_shape_elements(x->t->instructions[param].shape);
    for (uint32_t k = x->user_start[param]; k < x->user_start[param + 1] && u < 1; k++) {
        const pv_hlo_instruction *user = &x->t->instructions[x->users[k]];
        if ((is(user, "slice") || is(user, "dynamic-slice") || is(user, "gather")) && whole > 0)
            u += (double)pv_hlo_shape_elements(user->shape) / (double)whole;
        else
            u = 1;
    }
    return u < 1 ? u : 1;
}

static double fusion_bytes(const pv_hlo_index *x, uint32_t i)
{
    double b = (double)pv_hlo_shape_bytes(x->t->instructions[i].shape);
    uint32_t body = pv_hlo_index_fused(x, i);
    if (body == PV_HLO_NONE)
        return b;
    const pv_hlo_computation *comp = &x->t->computations[body];
    for (uint32_t k = 0; k < comp->n_instructions; k++) {
        uint32_t p = (uint32_t)comp->first_instruction + k;
        const pv_hlo_instruction *in = &x->t->instructions[p];
        if (is(in, "parameter"))
            b += (double)pv_hlo_shape_bytes(in->shape) * utilization(x, p);
    }
    return b;
}

static double output_bytes(const pv_hlo_instruction *in)
{
    leaf first, last;
    /* A cuBLAS or cuDNN call returns (result, u8/s8 workspace): the
     * workspace is scratch, not output. */
    if (is(in, "custom-call") && last_leaf(in->shape, &last) &&
        ((last.type_len == 2 && memcmp(last.type, "u8", 2) == 0) ||
         (last.type_len == 2 && memcmp(last.type, "s8", 2) == 0)) &&
        first_leaf(in->shape, &first))
        return (double)((first.elements * pv_hlo_type_bits(first.type, first.type_len) + 7) / 8);
    return (double)pv_hlo_shape_bytes(in->shape);
}

void pv_hlo_cost_of(const pv_hlo_index *x, uint32_t i, pv_hlo_cost *out)
{
    const pv_hlo_instruction *in = &x->t->instructions[i];
    out->flops = flops_of(x, i, 0);
    if (is(in, "fusion")) {
        out->bytes = out->hbm_bytes = fusion_bytes(x, i);
        return;
    }
    double operands = 0;
    for (uint32_t k = x->operand_start[i]; k < x->operand_start[i + 1]; k++)
        operands += (double)pv_hlo_shape_bytes(x->t->instructions[x->operands[k]].shape);
    out->bytes = operands + output_bytes(in);
    out->hbm_bytes = is(in, "custom-call") && is_conv_call(in) ? operands : out->bytes;
}
