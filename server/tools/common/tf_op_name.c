/* tf_op_name: framework op full-name parsing (FORMATS.md §3.6). The
 * character classes are spelled out by hand instead of using <regex.h>:
 * the patterns are tiny, and a hand-written scan is locale-independent and
 * fast enough to run once per event in the op-stats hot loops. */
#include "tools/common/tf_op_name.h"

#include <string.h>

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alnum(char c) { return is_upper(c) || is_lower(c) || is_digit(c); }

bool pv_tf_op_is_tf_name(const char *s, size_t len)
{
    if (len == 0 || !(is_alnum(s[0]) || s[0] == '.'))
        return false;
    for (size_t i = 1; i < len; i++) {
        char c = s[i];
        if (!(is_alnum(c) || c == '_' || c == '.' || c == '/' || c == '>' || c == '-'))
            return false;
    }
    return true;
}

bool pv_tf_op_is_tf_type(const char *s, size_t len)
{
    if (len == 0 || !(is_upper(s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!(is_alnum(s[i]) || s[i] == '_'))
            return false;
    return true;
}

bool pv_tf_op_is_jax_type(const char *s, size_t len)
{
    if (len == 0 || !(is_lower(s[0]) || s[0] == '_'))
        return false;
    size_t i = 1;
    while (i < len && (is_lower(s[i]) || is_digit(s[i]) || s[i] == '_'))
        i++;
    if (i == len)
        return true;
    /* An optional "[...]" tail must close the string; '.' in the pattern
     * does not match a newline. */
    if (s[i] != '[' || s[len - 1] != ']' || len - i < 2)
        return false;
    return memchr(s + i, '\n', len - i) == NULL;
}

bool pv_tf_op_is_infeed_enqueue(const pv_tf_op *op)
{
    return (op->type_len == 13 && memcmp(op->type, "InfeedEnqueue", 13) == 0) ||
           (op->type_len == 18 && memcmp(op->type, "InfeedEnqueueTuple", 18) == 0);
}

bool pv_tf_op_is_memcpy(const pv_tf_op *op)
{
    return op->category >= PV_TF_OP_MEMCPY_H2D && op->category <= PV_TF_OP_MEMCPY_H2H;
}

static bool starts_with_nocase(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    if (len < n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char a = s[i];
        char b = prefix[i];
        if (is_upper(a))
            a = (char)(a - 'A' + 'a');
        if (is_upper(b))
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return false;
    }
    return true;
}

/* The op name without scopes and without a numeric "_<n>" suffix
 * ("model/layer/MatMul_1" -> "MatMul"), used when the type is missing. */
static void derive_type(const char *name, size_t len, const char **type, size_t *type_len)
{
    size_t start = len;
    while (start > 0 && name[start - 1] != '/')
        start--;
    const char *last = name + start;
    size_t n = len - start;
    size_t us = n;
    while (us > 0 && last[us - 1] != '_')
        us--;
    if (us > 0) {
        /* Digits after the last '_', with an optional sign, count as a
         * numeric suffix (absl::SimpleAtoi accepts a sign). */
        size_t d = us;
        if (d < n && (last[d] == '-' || last[d] == '+'))
            d++;
        bool digits = d < n;
        for (size_t i = d; i < n; i++)
            if (!is_digit(last[i]))
                digits = false;
        if (digits)
            n = us - 1;
    }
    *type = last;
    *type_len = n;
}

void pv_tf_op_parse(const char *full, size_t len, pv_tf_op *out)
{
    out->category = PV_TF_OP_UNKNOWN;
    out->name = full;
    out->name_len = len;
    out->type = "";
    out->type_len = 0;
    const char *colon = memchr(full, ':', len);
    if (colon == NULL) {
        static const struct {
            const char *prefix;
            const char *type;
            int category;
        } memcpys[] = {
            {"MEMCPYHToD", "MemcpyHToD", PV_TF_OP_MEMCPY_H2D},
            {"MEMCPYDToH", "MemcpyDToH", PV_TF_OP_MEMCPY_D2H},
            {"MEMCPYDToD", "MemcpyDToD", PV_TF_OP_MEMCPY_D2D},
            {"MEMCPYHToH", "MemcpyHToH", PV_TF_OP_MEMCPY_H2H},
        };
        for (size_t i = 0; i < sizeof memcpys / sizeof memcpys[0]; i++) {
            if (starts_with_nocase(full, len, memcpys[i].prefix)) {
                out->category = memcpys[i].category;
                out->type = memcpys[i].type;
                out->type_len = strlen(memcpys[i].type);
                break;
            }
        }
        return;
    }
    size_t name_len = (size_t)(colon - full);
    const char *type = colon + 1;
    size_t type_len = len - name_len - 1;
    if (name_len == 8 && memcmp(full, "Iterator", 8) == 0) {
        out->category = PV_TF_OP_DATASET;
        out->type = "Dataset";
        out->type_len = 7;
        return;
    }
    if (pv_tf_op_is_tf_name(full, name_len) && pv_tf_op_is_tf_type(type, type_len)) {
        out->category = PV_TF_OP_TENSORFLOW;
        out->name_len = name_len;
        out->type = type;
        out->type_len = type_len;
        return;
    }
    const char *t = type;
    size_t t_len = type_len;
    if (type_len == 0)
        derive_type(full, name_len, &t, &t_len);
    if (pv_tf_op_is_jax_type(t, t_len)) {
        const char *bracket = memchr(t, '[', t_len);
        out->category = PV_TF_OP_JAX;
        out->name_len = name_len;
        out->type = t;
        out->type_len = bracket != NULL ? (size_t)(bracket - t) : t_len;
        return;
    }
    if (type_len == 0) {
        out->category = PV_TF_OP_TENSORFLOW;
        out->name_len = name_len;
        out->type = t;
        out->type_len = t_len;
    }
}
