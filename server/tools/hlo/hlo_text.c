/* hlo_text: instructions and modules as XLA prints them (hlo_text.h).
 * The order of the attributes after the operands is XLA's: the opcode's
 * own (dimensions, slices, window, dimension labels, custom call target,
 * ...), then the computations it calls, then its control predecessors. */
#include "tools/hlo/hlo_text.h"

#include <string.h>

/* XLA marks every fifth operand of a long operand list with its index. */
#define INDEX_EVERY 5

#define ADD(expr)                                                               \
    do {                                                                        \
        if ((expr) != 0)                                                        \
            return PV_ETOOBIG;                                                  \
    } while (0)

static bool is(const pv_hlo_instruction *in, const char *opcode)
{
    return strcmp(in->opcode, opcode) == 0;
}

static int add_name(pv_buf *out, const pv_hlo_print *p, const char *name)
{
    return pv_buf_addf(out, "%s%s", p->percent ? "%" : "", name);
}

static int add_list(pv_buf *out, pv_hlo_ints v)
{
    ADD(pv_buf_adds(out, "{"));
    for (uint32_t i = 0; i < v.n; i++)
        ADD(pv_buf_addf(out, "%s%lld", i > 0 ? "," : "", (long long)v.v[i]));
    return pv_buf_adds(out, "}");
}

/* ---- the opcode's own attributes ---------------------------------------------------- */

/* "{size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=... rhs_dilate=... rhs_reversal=...}":
 * every part past the size only when some dimension differs from the
 * default, as XLA's window_util prints it. */
static int add_window(pv_buf *out, const pv_hlo_attrs *x)
{
    bool stride = false, pad = false, lhs = false, rhs = false, rev = false;
    for (uint32_t i = 0; i < x->n_window; i++) {
        const pv_hlo_window_dim *d = &x->window[i];
        stride = stride || d->stride != 1;
        pad = pad || d->pad_low != 0 || d->pad_high != 0;
        lhs = lhs || (d->base_dilation != 1 && d->base_dilation != 0);
        rhs = rhs || (d->window_dilation != 1 && d->window_dilation != 0);
        rev = rev || d->reversal;
    }
    ADD(pv_buf_adds(out, "window={size="));
    for (uint32_t i = 0; i < x->n_window; i++)
        ADD(pv_buf_addf(out, "%s%lld", i > 0 ? "x" : "", (long long)x->window[i].size));
    if (stride) {
        ADD(pv_buf_adds(out, " stride="));
        for (uint32_t i = 0; i < x->n_window; i++)
            ADD(pv_buf_addf(out, "%s%lld", i > 0 ? "x" : "", (long long)x->window[i].stride));
    }
    if (pad) {
        ADD(pv_buf_adds(out, " pad="));
        for (uint32_t i = 0; i < x->n_window; i++)
            ADD(pv_buf_addf(out, "%s%lld_%lld", i > 0 ? "x" : "", (long long)x->window[i].pad_low,
                            (long long)x->window[i].pad_high));
    }
    if (lhs) {
        ADD(pv_buf_adds(out, " lhs_dilate="));
        for (uint32_t i = 0; i < x->n_window; i++)
            ADD(pv_buf_addf(out, "%s%lld", i > 0 ? "x" : "",
                            (long long)x->window[i].base_dilation));
    }
    if (rhs) {
        ADD(pv_buf_adds(out, " rhs_dilate="));
        for (uint32_t i = 0; i < x->n_window; i++)
            ADD(pv_buf_addf(out, "%s%lld", i > 0 ? "x" : "",
                            (long long)x->window[i].window_dilation));
    }
    if (rev) {
        ADD(pv_buf_adds(out, " rhs_reversal="));
        for (uint32_t i = 0; i < x->n_window; i++)
            ADD(pv_buf_addf(out, "%s%d", i > 0 ? "x" : "", x->window[i].reversal ? 1 : 0));
    }
    return pv_buf_adds(out, "}");
}

/* One operand's labels: 'b'/'f' (or 'i'/'o' for the kernel) at their
 * dimensions, the spatial dimensions' numbers elsewhere. */
static int add_labels(pv_buf *out, int64_t first, char first_c, int64_t second, char second_c,
                      pv_hlo_ints spatial)
{
    uint32_t rank = 2 + spatial.n;
    for (uint32_t d = 0; d < rank; d++) {
        char c = '?';
        if ((int64_t)d == first)
            c = first_c;
        else if ((int64_t)d == second)
            c = second_c;
        for (uint32_t s = 0; s < spatial.n && c == '?'; s++)
            if (spatial.v[s] == (int64_t)d)
                c = s < 10 ? (char)('0' + s) : '?';
        ADD(pv_buf_add(out, &c, 1));
    }
    return 0;
}

/* "dim_labels=bf01_oi01->bf01" */
static int add_dim_labels(pv_buf *out, const pv_hlo_conv_dims *c)
{
    ADD(pv_buf_adds(out, "dim_labels="));
    ADD(add_labels(out, c->input_batch, 'b', c->input_feature, 'f', c->input_spatial));
    ADD(pv_buf_adds(out, "_"));
    ADD(add_labels(out, c->kernel_output_feature, 'o', c->kernel_input_feature, 'i',
                   c->kernel_spatial));
    ADD(pv_buf_adds(out, "->"));
    return add_labels(out, c->output_batch, 'b', c->output_feature, 'f', c->output_spatial);
}

static int add_conv_attrs(pv_buf *out, const pv_hlo_attrs *x)
{
    if (x->n_window > 0) {
        ADD(pv_buf_adds(out, ", "));
        ADD(add_window(out, x));
    }
    if (x->has_conv_dims) {
        ADD(pv_buf_adds(out, ", "));
        ADD(add_dim_labels(out, &x->conv_dims));
    }
    if (x->feature_group_count > 1)
        ADD(pv_buf_addf(out, ", feature_group_count=%lld", (long long)x->feature_group_count));
    if (x->batch_group_count > 1)
        ADD(pv_buf_addf(out, ", batch_group_count=%lld", (long long)x->batch_group_count));
    return 0;
}

/* "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0},
 * rhs_contracting_dims={1}", empty batch lists left out. */
static int add_dot_dims(pv_buf *out, const pv_hlo_attrs *x)
{
    static const char *const names[4] = {"lhs_contracting_dims", "rhs_contracting_dims",
                                         "lhs_batch_dims", "rhs_batch_dims"};
    static const int order[4] = {2, 0, 3, 1};
    for (int k = 0; k < 4; k++) {
        int d = order[k];
        if (d >= 2 && x->dot_dims[d].n == 0)
            continue;
        ADD(pv_buf_addf(out, ", %s=", names[d]));
        ADD(add_list(out, x->dot_dims[d]));
    }
    return 0;
}

/* "slice={[0:8], [0:16:2]}" */
static int add_slices(pv_buf *out, pv_hlo_ints s)
{
    ADD(pv_buf_adds(out, ", slice={"));
    for (uint32_t i = 0; i + 2 < s.n; i += 3) {
        ADD(pv_buf_addf(out, "%s[%lld:%lld", i > 0 ? ", " : "", (long long)s.v[i],
                        (long long)s.v[i + 1]));
        if (s.v[i + 2] != 1)
            ADD(pv_buf_addf(out, ":%lld", (long long)s.v[i + 2]));
        ADD(pv_buf_adds(out, "]"));
    }
    return pv_buf_adds(out, "}");
}

/* "padding=0_0x1_1_2": low_high[_interior] per dimension. */
static int add_padding(pv_buf *out, pv_hlo_ints s)
{
    ADD(pv_buf_adds(out, ", padding="));
    for (uint32_t i = 0; i + 2 < s.n; i += 3) {
        ADD(pv_buf_addf(out, "%s%lld_%lld", i > 0 ? "x" : "", (long long)s.v[i],
                        (long long)s.v[i + 1]));
        if (s.v[i + 2] != 0)
            ADD(pv_buf_addf(out, "_%lld", (long long)s.v[i + 2]));
    }
    return 0;
}

static bool uses_dimensions(const pv_hlo_instruction *in)
{
    static const char *const ops[] = {"broadcast", "reduce", "transpose", "concatenate",
                                      "reverse", "sort", "all-gather", "reduce-scatter",
                                      "all-to-all", "reduce-precision"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (is(in, ops[k]))
            return true;
    return false;
}

static int add_own_attrs(pv_buf *out, const pv_hlo_instruction *in)
{
    const pv_hlo_attrs *x = in->attrs;
    if (is(in, "broadcast") && x == NULL)
        return pv_buf_adds(out, ", dimensions={}");
    if (x == NULL)
        return 0;
    if (is(in, "iota"))
        return pv_buf_addf(out, ", iota_dimension=%lld",
                           x->dimensions.n > 0 ? (long long)x->dimensions.v[0] : 0LL);
    if (is(in, "get-tuple-element"))
        return pv_buf_addf(out, ", index=%lld", (long long)x->tuple_index);
    if (uses_dimensions(in) && (x->dimensions.n > 0 || is(in, "broadcast"))) {
        ADD(pv_buf_adds(out, ", dimensions="));
        ADD(add_list(out, x->dimensions));
    }
    if (x->slices.n > 0)
        ADD(add_slices(out, x->slices));
    if (x->dynamic_slice_sizes.n > 0) {
        ADD(pv_buf_adds(out, ", dynamic_slice_sizes="));
        ADD(add_list(out, x->dynamic_slice_sizes));
    }
    if (x->padding.n > 0)
        ADD(add_padding(out, x->padding));
    if (x->fusion_kind[0] != '\0')
        ADD(pv_buf_addf(out, ", kind=%s", x->fusion_kind));
    if (is(in, "convolution") || is(in, "custom-call") || is(in, "reduce-window") ||
        is(in, "select-and-scatter"))
        ADD(add_conv_attrs(out, x));
    if (x->custom_call_target[0] != '\0')
        ADD(pv_buf_addf(out, ", custom_call_target=\"%s\"", x->custom_call_target));
    if (x->has_dot_dims && is(in, "dot"))
        ADD(add_dot_dims(out, x));
    if (x->comparison_direction[0] != '\0')
        ADD(pv_buf_addf(out, ", direction=%s", x->comparison_direction));
    if (strcmp(x->comparison_type, "TOTALORDER") == 0)
        ADD(pv_buf_adds(out, ", type=TOTALORDER"));
    if (x->channel_id > 0)
        ADD(pv_buf_addf(out, ", channel_id=%lld", (long long)x->channel_id));
    if (x->replica_groups[0] != '\0')
        ADD(pv_buf_addf(out, ", replica_groups=%s", x->replica_groups));
    if (x->use_global_device_ids)
        ADD(pv_buf_adds(out, ", use_global_device_ids=true"));
    return 0;
}

/* ---- called computations and control predecessors ----------------------------------- */

static int add_called(pv_buf *out, const pv_hlo_index *x, uint32_t i, const pv_hlo_print *p)
{
    const pv_hlo_instruction *in = &x->t->instructions[i];
    uint32_t from = x->called_start[i], to = x->called_start[i + 1];
    if (from == to)
        return 0;
    const pv_hlo_computation *c = x->t->computations;
    /* a while calls its body first, its condition second */
    if (is(in, "while") && to - from == 2) {
        ADD(pv_buf_adds(out, ", condition="));
        ADD(add_name(out, p, c[x->called[from + 1]].name));
        ADD(pv_buf_adds(out, ", body="));
        return add_name(out, p, c[x->called[from]].name);
    }
    if (is(in, "select-and-scatter") && to - from == 2) {
        ADD(pv_buf_adds(out, ", select="));
        ADD(add_name(out, p, c[x->called[from]].name));
        ADD(pv_buf_adds(out, ", scatter="));
        return add_name(out, p, c[x->called[from + 1]].name);
    }
    const char *key = is(in, "fusion") || strstr(in->opcode, "-start") != NULL ? "calls"
                      : is(in, "conditional")                                 ? "branch_computations"
                      : is(in, "custom-call")                                 ? "called_computations"
                                                                              : "to_apply";
    bool braces = is(in, "conditional") || is(in, "custom-call");
    ADD(pv_buf_addf(out, ", %s=%s", key, braces ? "{" : ""));
    for (uint32_t k = from; k < to; k++) {
        ADD(pv_buf_adds(out, k > from ? ", " : ""));
        ADD(add_name(out, p, c[x->called[k]].name));
    }
    return braces ? pv_buf_adds(out, "}") : 0;
}

static int add_control(pv_buf *out, const pv_hlo_index *x, uint32_t i, const pv_hlo_print *p)
{
    const pv_hlo_attrs *a = x->t->instructions[i].attrs;
    if (a == NULL || a->control_ids.n == 0)
        return 0;
    uint32_t mod = pv_hlo_index_module(x, i);
    ADD(pv_buf_adds(out, ", control-predecessors={"));
    uint32_t n = 0;
    for (uint32_t k = 0; k < a->control_ids.n; k++) {
        uint32_t c = pv_hlo_index_by_id(x, mod, a->control_ids.v[k]);
        if (c == PV_HLO_NONE)
            continue;
        ADD(pv_buf_adds(out, n++ > 0 ? ", " : ""));
        ADD(add_name(out, p, x->t->instructions[c].name));
    }
    return pv_buf_adds(out, "}");
}

/* ---- instructions ------------------------------------------------------------------- */

/* What goes between the parentheses for opcodes whose operands are not
 * instructions: a constant's value, a parameter's number. */
static int add_inline(pv_buf *out, const pv_hlo_instruction *in)
{
    if (is(in, "constant"))
        return pv_buf_adds(out, in->attrs != NULL ? in->attrs->literal : "");
    if (is(in, "parameter"))
        return pv_buf_addf(out, "%lld",
                           in->attrs != NULL ? (long long)in->attrs->parameter_number : 0LL);
    return 0;
}

int pv_hlo_text_instr(const pv_hlo_index *x, uint32_t i, const pv_hlo_print *p, pv_buf *out)
{
    const pv_hlo_instruction *in = &x->t->instructions[i];
    ADD(add_name(out, p, in->name));
    ADD(pv_buf_addf(out, " = %s %s(", in->shape, in->opcode));
    ADD(add_inline(out, in));
    for (uint32_t k = x->operand_start[i]; k < x->operand_start[i + 1]; k++) {
        uint32_t n = k - x->operand_start[i];
        const pv_hlo_instruction *op = &x->t->instructions[x->operands[k]];
        ADD(pv_buf_adds(out, n > 0 ? ", " : ""));
        if (n > 0 && n % INDEX_EVERY == 0)
            ADD(pv_buf_addf(out, "/*index=%u*/", n));
        if (p->operand_shapes)
            ADD(pv_buf_addf(out, "%s ", op->shape));
        ADD(add_name(out, p, op->name));
    }
    ADD(pv_buf_adds(out, ")"));
    ADD(add_own_attrs(out, in));
    ADD(add_called(out, x, i, p));
    return add_control(out, x, i, p);
}

/* ---- computations and modules ---------------------------------------------------------- */

int pv_hlo_text_shape_no_layout(const char *shape, pv_buf *out)
{
    int depth = 0;
    for (const char *c = shape; *c != '\0'; c++) {
        if (*c == '{')
            depth++;
        if (depth == 0)
            ADD(pv_buf_add(out, c, 1));
        if (*c == '}' && depth > 0)
            depth--;
    }
    return 0;
}

/* "%name (p0: f32[8], p1: s32[]) -> f32[8] {" with the parameters in
 * parameter-number order. */
static int add_header(pv_buf *out, const pv_hlo_index *x, uint32_t c, const pv_hlo_print *p,
                      bool entry)
{
    const pv_hlo_computation *comp = &x->t->computations[c];
    ADD(pv_buf_adds(out, entry ? "ENTRY " : ""));
    ADD(add_name(out, p, comp->name));
    ADD(pv_buf_adds(out, " ("));
    uint32_t printed = 0;
    for (int64_t num = 0; printed < comp->n_instructions; num++) {
        bool found = false;
        for (uint32_t k = 0; k < comp->n_instructions; k++) {
            const pv_hlo_instruction *in = &x->t->instructions[comp->first_instruction + k];
            if (!is(in, "parameter") || in->attrs == NULL || in->attrs->parameter_number != num)
                continue;
            ADD(pv_buf_addf(out, "%s%s: ", printed++ > 0 ? ", " : "", in->name));
            ADD(pv_hlo_text_shape_no_layout(in->shape, out));
            found = true;
            break;
        }
        if (!found)
            break;
    }
    ADD(pv_buf_adds(out, ") -> "));
    if (x->root[c] != PV_HLO_NONE)
        ADD(pv_hlo_text_shape_no_layout(x->t->instructions[x->root[c]].shape, out));
    return pv_buf_adds(out, " {\n");
}

int pv_hlo_text_module(const pv_hlo_index *x, uint32_t k, const pv_hlo_print *p, pv_buf *out)
{
    const pv_hlo_module *mod = &x->t->modules[k];
    ADD(pv_buf_addf(out, "HloModule %s\n\n", mod->name));
    for (uint32_t c = mod->first_computation; c < mod->first_computation + mod->n_computations;
         c++) {
        const pv_hlo_computation *comp = &x->t->computations[c];
        ADD(add_header(out, x, c, p, comp->id == mod->entry_computation_id));
        for (uint32_t n = 0; n < comp->n_instructions; n++) {
            uint32_t i = (uint32_t)comp->first_instruction + n;
            ADD(pv_buf_adds(out, x->root[c] == i ? "  ROOT " : "  "));
            ADD(pv_hlo_text_instr(x, i, p, out));
            ADD(pv_buf_adds(out, "\n"));
        }
        ADD(pv_buf_adds(out, "}\n\n"));
    }
    return 0;
}
