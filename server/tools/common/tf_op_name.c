/* tf_op_name: framework op full-name parsing (FORMATS.md §3.6). The
 * reference's RE2 patterns are scanned by hand instead of with <regex.h>:
 * they are tiny, a hand-written scan is locale-independent, fast enough to
 * run once per event in the op-stats hot loops, and can follow RE2's own
 * reading of '.' on UTF-8 text, which POSIX regexes do not share. */
#include "tools/common/tf_op_name.h"

#include <stdint.h>
#include <string.h>

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alnum(char c) { return is_upper(c) || is_lower(c) || is_digit(c); }

/* absl::ascii_isspace */
static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

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

/* Bytes of the one character RE2's '.' takes at s[0..n), or 0 when '.'
 * does not match there. RE2 reads text as UTF-8 and, without dot_nl,
 * leaves out only '\n' among ASCII; above ASCII it takes a lead byte
 * C2-DF, E0-EF or F0-F4 with 1, 2 or 3 bytes 80-BF after it (its compiler
 * lets overlong E0/F0 forms and F4 past U+10FFFF through, and so do we).
 * A stray continuation byte, C0, C1, F5-FF or a cut-off sequence is not a
 * character, so a JAX type holding one does not match. */
static size_t dot_len(const char *s, size_t n)
{
    unsigned char c = (unsigned char)s[0];
    size_t tail;
    if (c < 0x80)
        return c == '\n' ? 0 : 1;
    if (c >= 0xC2 && c <= 0xDF)
        tail = 1;
    else if (c >= 0xE0 && c <= 0xEF)
        tail = 2;
    else if (c >= 0xF0 && c <= 0xF4)
        tail = 3;
    else
        return 0;
    if (n <= tail)
        return 0;
    for (size_t i = 1; i <= tail; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            return 0;
    return tail + 1;
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
    /* The optional "[...]" must close the string. A UTF-8 lead byte fixes
     * its sequence's length, so reading characters left to right is the
     * only way '.*' can cover the inside. */
    if (s[i] != '[' || len - i < 2 || s[len - 1] != ']')
        return false;
    size_t end = len - 1;
    for (size_t k = i + 1; k < end;) {
        size_t n = dot_len(s + k, end - k);
        if (n == 0)
            return false;
        k += n;
    }
    return true;
}

bool pv_tf_op_is_jax_name_and_type(const char *name, size_t name_len, const char *type,
                                   size_t type_len)
{
    if (name_len == 0 || !pv_tf_op_is_jax_type(type, type_len))
        return false;
    size_t from = name_len;
    while (from > 0 && name[from - 1] != '/')
        from--;
    size_t n = name_len - from;
    for (size_t i = 0; i + type_len <= n; i++)
        if (memcmp(name + from + i, type, type_len) == 0)
            return true;
    return false;
}

bool pv_tf_op_type_is_infeed_enqueue(const char *type, size_t len)
{
    return len >= 13 && memcmp(type, "InfeedEnqueue", 13) == 0;
}

bool pv_tf_op_is_infeed_enqueue(const pv_tf_op *op)
{
    return op->category == PV_TF_OP_TENSORFLOW &&
           pv_tf_op_type_is_infeed_enqueue(op->type, op->type_len);
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

/* absl::SimpleAtoi into an int64_t succeeds: ASCII white space around,
 * one optional sign, decimal digits, a value in range. */
static bool is_int64_text(const char *s, size_t n)
{
    while (n > 0 && is_space(s[0])) {
        s++;
        n--;
    }
    while (n > 0 && is_space(s[n - 1]))
        n--;
    if (n == 0)
        return false;
    bool negative = s[0] == '-';
    if (negative || s[0] == '+') {
        s++;
        n--;
        if (n == 0)
            return false;
    }
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return false;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
    }
    return true;
}

/* DeriveOpType: the last '/' component of the name without a numeric
 * "_<n>" suffix ("model/layer/MatMul_1" -> "MatMul"), used when the type
 * is missing. Only the text after the last '_' is the suffix. */
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
    if (us > 0 && is_int64_text(last + us, n - us))
        n = us - 1;
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
        /* Both spellings (MemcpyHToD, MEMCPYHToD) match: the reference
         * compares without case. CUPTI's "MemcpyH2D" is none of these. */
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
    /* Only the first ':' splits; "a:b:c" has the type "b:c". */
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

/* ---- the reference's model tracker --------------------------------------- */

static bool scope_is_gradient(const char *s, size_t len)
{
    if (len < 8 || memcmp(s, "gradient", 8) != 0)
        return false;
    return (len == 13 && memcmp(s + 8, "_tape", 5) == 0) || (len > 8 && s[8] == 's');
}

bool pv_tf_op_has_gradients(const char *name, const char *type)
{
    size_t nlen = strlen(name);
    size_t tlen = strlen(type);
    if (pv_tf_op_is_tf_type(type, tlen) && pv_tf_op_is_tf_name(name, nlen)) {
        const char *p = name;
        const char *slash;
        while ((slash = strchr(p, '/')) != NULL) {   /* scopes: every part but the last */
            if (scope_is_gradient(p, (size_t)(slash - p)))
                return true;
            p = slash + 1;
        }
        return false;
    }
    bool jax = pv_tf_op_is_jax_name_and_type(name, nlen, type, tlen);
    if (!jax && tlen != 0)
        return false;
    for (const char *p = name; p != NULL; p = strchr(p, '/')) {
        if (*p == '/')
            p++;
        if (strncmp(p, "transpose(", 10) == 0)
            return true;
    }
    return false;
}
