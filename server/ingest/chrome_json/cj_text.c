/* cj_text: the pieces of JSON the reader is made of (RFC 8259), over a
 * window that may end inside a piece: then the step says PV__CJ_MORE and
 * leaves the cursor where the piece starts, so the reader reads it again
 * with more bytes.
 *
 * Leniencies, because real traces have them: control characters inside
 * strings are kept; Python's NaN, Infinity and -Infinity are numbers;
 * leading zeros are read; the inside of an object or array kept as text
 * is checked for balance and strings only. \u0000 and lone surrogates
 * become U+FFFD (the model's strings are C strings). */
#include "ingest/chrome_json/cj_priv.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

#define FAIL(c, at, reason) ((c)->p = (at), (c)->why = (reason), PV_EFORMAT)

/* ---- scratch ---------------------------------------------------------------- */

#define SCRATCH_BLOCK ((size_t)64 << 10)

void pv__cj_scratch_reset(pv__cj_scratch *s)
{
    s->cur = 0;
    s->used = 0;
}

void pv__cj_scratch_fini(pv__cj_scratch *s)
{
    for (size_t i = 0; i < s->n_blocks; i++)
        free(s->blocks[i]);
    free(s->blocks);
    free(s->caps);
    memset(s, 0, sizeof *s);
}

char *pv__cj_scratch_alloc(pv__cj_scratch *s, size_t n)
{
    while (s->cur < s->n_blocks) {
        if (s->caps[s->cur] - s->used >= n) {
            char *at = s->blocks[s->cur] + s->used;
            s->used += n;
            return at;
        }
        s->cur++;
        s->used = 0;
    }
    size_t cap = n > SCRATCH_BLOCK ? n : SCRATCH_BLOCK;
    s->blocks = pv_xrealloc(s->blocks, (s->n_blocks + 1) * sizeof *s->blocks);
    s->caps = pv_xrealloc(s->caps, (s->n_blocks + 1) * sizeof *s->caps);
    s->blocks[s->n_blocks] = pv_xmalloc(cap);
    s->caps[s->n_blocks] = cap;
    s->cur = s->n_blocks++;
    s->used = n;
    return s->blocks[s->cur];
}

/* ---- white space -------------------------------------------------------------- */

static const uint8_t is_ws[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

int pv__cj_ws_run(pv__cj_cur *c)
{
    const uint8_t *p = c->p, *end = c->end;
    while (p < end && is_ws[*p])
        p++;
    c->p = p;
    return p < end ? 0 : PV__CJ_MORE;
}

/* ---- strings ------------------------------------------------------------------- */

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* The first '"' or '\\' at or after p, or end. Eight bytes a step: the
 * lowest byte the zero-byte test flags is always a true match. */
static inline const uint8_t *quote_or_escape(const uint8_t *p, const uint8_t *end)
{
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ (ONES * '"');
        uint64_t b = w ^ (ONES * '\\');
        uint64_t t = (((q - ONES) & ~q) | ((b - ONES) & ~b)) & HIGHS;
        if (t != 0)
            return p + (__builtin_ctzll(t) >> 3);
        p += 8;
    }
    while (p < end && *p != '"' && *p != '\\')
        p++;
    return p;
}

/* The closing quote of a string whose body reached e (a quote, an escape
 * or end), skipping escapes; NULL when the window ends first. */
static const uint8_t *string_end(const uint8_t *e, const uint8_t *end)
{
    while (e < end && *e == '\\') {
        if (end - e < 2)
            return NULL;
        e = quote_or_escape(e + 2, end);
    }
    return e < end ? e : NULL;
}

static int hex4(const uint8_t *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        uint8_t h = p[i];
        uint32_t d;
        if (h >= '0' && h <= '9')
            d = (uint32_t)(h - '0');
        else if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f')
            d = (uint32_t)((h | 0x20) - 'a' + 10);
        else
            return -1;
        v = v << 4 | d;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

#define REPLACEMENT 0xfffdu

/* Unescapes the string body q[0..n) (its escapes known to be complete)
 * into o, which has room for n bytes: no escape writes more bytes than it
 * takes. Returns the length, or -1 with *bad at an invalid escape. */
static int64_t unescape(const uint8_t *q, size_t n, char *o, const uint8_t **bad)
{
    size_t i = 0, w = 0;
    while (i < n) {
        if (q[i] != '\\') {
            o[w++] = (char)q[i++];
            continue;
        }
        *bad = q + i;
        if (i + 1 >= n)
            return -1;
        uint8_t e = q[i + 1];
        i += 2;
        switch (e) {
        case '"': o[w++] = '"'; break;
        case '\\': o[w++] = '\\'; break;
        case '/': o[w++] = '/'; break;
        case 'b': o[w++] = '\b'; break;
        case 'f': o[w++] = '\f'; break;
        case 'n': o[w++] = '\n'; break;
        case 'r': o[w++] = '\r'; break;
        case 't': o[w++] = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (i + 4 > n || hex4(q + i, &cp) != 0)
                return -1;
            i += 4;
            if (cp >= 0xd800 && cp < 0xdc00) {
                uint32_t lo;
                if (i + 6 <= n && q[i] == '\\' && q[i + 1] == 'u' && hex4(q + i + 2, &lo) == 0 &&
                    lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    i += 6;
                } else {
                    cp = REPLACEMENT;
                }
            } else if ((cp >= 0xdc00 && cp < 0xe000) || cp == 0) {
                cp = REPLACEMENT;
            }
            w += put_utf8(o + w, cp);
            break;
        }
        default:
            return -1;
        }
    }
    return (int64_t)w;
}

int pv__cj_string(pv__cj_cur *c, pv__cj_str *out)
{
    const uint8_t *q = c->p + 1, *end = c->end;
    const uint8_t *e = quote_or_escape(q, end);
    if (e < end && *e == '"') {
        out->s = (const char *)q;
        out->len = (size_t)(e - q);
        c->p = e + 1;
        return 0;
    }
    /* Escapes: find the end first, then unescape into scratch. */
    e = string_end(e, end);
    if (e == NULL)
        return PV__CJ_MORE;
    size_t n = (size_t)(e - q);
    char *o = pv__cj_scratch_alloc(c->scratch, n ? n : 1);
    const uint8_t *bad = q;
    int64_t len = unescape(q, n, o, &bad);
    if (len < 0)
        return FAIL(c, bad, "a string has an invalid escape");
    out->s = o;
    out->len = (size_t)len;
    c->p = e + 1;
    return 0;
}

/* ---- numbers ----------------------------------------------------------------- */

static const uint8_t is_num[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
    ['7'] = 1, ['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1,
};

/* The end of the number text at p; NULL when the window ends inside it. */
static const uint8_t *number_end(const uint8_t *p, const uint8_t *end)
{
    while (p < end && is_num[*p])
        p++;
    return p < end ? p : NULL;
}

/* Whether s[0..n) is a JSON number: -?digits(.digits)?([eE][+-]?digits)? */
static bool number_ok(const uint8_t *s, size_t n, bool *integral)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    size_t d0 = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == d0)
        return false;
    *integral = true;
    if (i < n && s[i] == '.') {
        *integral = false;
        size_t f0 = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == f0)
            return false;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        *integral = false;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t e0 = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == e0)
            return false;
    }
    return i == n;
}

static int number(pv__cj_cur *c, pv__cj_value *out)
{
    const uint8_t *s = c->p;
    /* the common shape, a whole number of up to 18 digits, in one pass */
    {
        const uint8_t *p = s + (s < c->end && *s == '-');
        const uint8_t *d = p;
        uint64_t v = 0;
        while (p < c->end && p - d < 18 && *p >= '0' && *p <= '9')
            v = v * 10 + (uint64_t)(*p++ - '0');
        if (p > d && p < c->end && !is_num[*p] && (*d != '0' || p - d == 1)) {
            out->kind = PV__CJ_INT;
            out->n.i = *s == '-' ? -(int64_t)v : (int64_t)v;
            out->text.s = (const char *)s;
            out->text.len = (size_t)(p - s);
            c->p = p;
            return 0;
        }
    }
    const uint8_t *e = number_end(s, c->end);
    if (e == NULL)
        return PV__CJ_MORE;
    size_t n = (size_t)(e - s);
    bool integral;
    if (!number_ok(s, n, &integral))
        return FAIL(c, s, "a number is malformed");
    out->text.s = (const char *)s;
    out->text.len = n;
    c->p = e;
    if (integral) {
        bool neg = s[0] == '-';
        uint64_t v = 0;
        size_t i = neg;
        for (; i < n; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            if (v > (UINT64_MAX - d) / 10)
                break;
            v = v * 10 + d;
        }
        if (i == n && !neg && v > (uint64_t)INT64_MAX) {
            out->kind = PV__CJ_UINT;
            out->n.u = v;
            return 0;
        }
        if (i == n && v <= (uint64_t)INT64_MAX + neg) {
            out->kind = PV__CJ_INT;
            out->n.i = neg ? (int64_t)(0 - v) : (int64_t)v;
            return 0;
        }
    }
    char *z = pv__cj_scratch_alloc(c->scratch, n + 1);
    memcpy(z, s, n);
    z[n] = '\0';
    out->kind = PV__CJ_DOUBLE;
    out->n.d = strtod(z, NULL);
    return 0;
}

/* ---- literals ------------------------------------------------------------------ */

/* The literal lit at p (true, false, null, NaN, Infinity, -Infinity). */
static int literal(pv__cj_cur *c, const char *lit, uint8_t kind, double d, pv__cj_value *out)
{
    size_t n = strlen(lit);
    if ((size_t)(c->end - c->p) < n + 1)
        return PV__CJ_MORE;   /* the byte after it must be seen too */
    if (memcmp(c->p, lit, n) != 0 || is_num[c->p[n]] ||
        (unsigned)((c->p[n] | 0x20) - 'a') < 26u)
        return FAIL(c, c->p, "unexpected text where a value should be");
    out->kind = kind;
    out->text.s = (const char *)c->p;
    out->text.len = n;
    out->n.d = d;
    c->p += n;
    return 0;
}

/* ---- objects and arrays as text ------------------------------------------------ */

/* Walks the object or array at *p to its end, checking brackets and
 * strings; with o, copies it without white space outside strings. */
static int container(pv__cj_cur *c, char *o, size_t *o_len)
{
    const uint8_t *p = c->p, *end = c->end;
    uint8_t stack[PV__CJ_MAX_DEPTH];
    size_t depth = 0, w = 0;
    while (p < end) {
        uint8_t ch = *p;
        if (ch == '"') {
            const uint8_t *e = string_end(quote_or_escape(p + 1, end), end);
            if (e == NULL)
                return PV__CJ_MORE;
            if (o != NULL) {
                memcpy(o + w, p, (size_t)(e + 1 - p));
                w += (size_t)(e + 1 - p);
            }
            p = e + 1;
            continue;
        }
        if (ch == '{' || ch == '[') {
            if (depth == PV__CJ_MAX_DEPTH)
                return FAIL(c, p, "objects and arrays are nested too deeply");
            stack[depth++] = ch == '{' ? '}' : ']';
        } else if (ch == '}' || ch == ']') {
            if (depth == 0 || stack[depth - 1] != ch)
                return FAIL(c, p, "a closing bracket does not match its opening one");
            depth--;
        } else if (is_ws[ch]) {
            p++;
            continue;
        }
        if (o != NULL)
            o[w++] = (char)ch;
        p++;
        if (depth == 0) {
            c->p = p;
            *o_len = w;
            return 0;
        }
    }
    return PV__CJ_MORE;
}

/* ---- values ----------------------------------------------------------------- */

static int value(pv__cj_cur *c, pv__cj_value *out, bool keep)
{
    if (c->p >= c->end)
        return PV__CJ_MORE;
    out->text.s = NULL;
    out->text.len = 0;
    switch (*c->p) {
    case '"':
        out->kind = PV__CJ_STRING;
        return pv__cj_string(c, &out->text);
    case '{':
    case '[': {
        out->kind = PV__CJ_RAW;
        const uint8_t *start = c->p;
        size_t n = 0;
        int rc = container(c, NULL, &n);
        if (rc != 0 || !keep)
            return rc;
        char *o = pv__cj_scratch_alloc(c->scratch, (size_t)(c->p - start));
        c->p = start;
        rc = container(c, o, &n);
        out->text.s = o;
        out->text.len = n;
        return rc;
    }
    case 't': return literal(c, "true", PV__CJ_TRUE, 0, out);
    case 'f': return literal(c, "false", PV__CJ_FALSE, 0, out);
    case 'n': return literal(c, "null", PV__CJ_NULL, 0, out);
    case 'N': return literal(c, "NaN", PV__CJ_DOUBLE, __builtin_nan(""), out);
    case 'I': return literal(c, "Infinity", PV__CJ_DOUBLE, __builtin_inf(), out);
    case '-':
        if (c->end - c->p >= 2 && c->p[1] == 'I')
            return literal(c, "-Infinity", PV__CJ_DOUBLE, -__builtin_inf(), out);
        return number(c, out);
    default:
        if (*c->p >= '0' && *c->p <= '9')
            return number(c, out);
        return FAIL(c, c->p, "unexpected text where a value should be");
    }
}

int pv__cj_parse_value(pv__cj_cur *c, pv__cj_value *out)
{
    return value(c, out, true);
}

int pv__cj_skip(pv__cj_cur *c)
{
    pv__cj_value v;
    return value(c, &v, false);
}

/* ---- exact times ------------------------------------------------------------- */

#define MAX_DIGITS 40

bool pv__cj_time_parse(const char *s, size_t len, pv__cj_time *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    /* value = 0.d[0]d[1].. * 10^exp10, d[0] != 0 */
    uint8_t d[MAX_DIGITS];
    size_t nd = 0;
    int64_t exp10 = 0;
    bool any = false, nonzero = false;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        any = true;
        if (!nonzero && s[i] == '0')
            continue;
        nonzero = true;
        if (nd < MAX_DIGITS)
            d[nd++] = (uint8_t)(s[i] - '0');
        exp10++;
    }
    if (i < len && s[i] == '.') {
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            any = true;
            if (!nonzero && s[i] == '0') {
                exp10--;
                continue;
            }
            nonzero = true;
            if (nd < MAX_DIGITS)
                d[nd++] = (uint8_t)(s[i] - '0');
        }
    }
    if (!any)
        return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+'))
            eneg = s[i++] == '-';
        int64_t e = 0;
        size_t e0 = i;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        if (i == e0)
            return false;
        exp10 += eneg ? -e : e;
    }
    if (i != len || exp10 > 19)
        return false;
    out->set = true;
    if (!nonzero) {
        out->us = 0;
        out->ps = 0;
        return true;
    }
    uint64_t us = 0;
    for (int64_t k = 0; k < exp10; k++) {
        unsigned dig = k < (int64_t)nd ? d[k] : 0;
        if (us > ((uint64_t)INT64_MAX - dig) / 10)
            return false;
        us = us * 10 + dig;
    }
    int32_t ps = 0;
    for (int64_t k = exp10; k < exp10 + 6; k++)
        ps = ps * 10 + (k >= 0 && k < (int64_t)nd ? d[k] : 0);
    if (neg) {
        out->us = -(int64_t)us - (ps > 0);
        out->ps = ps > 0 ? 1000000 - ps : 0;
    } else {
        out->us = (int64_t)us;
        out->ps = ps;
    }
    return true;
}

int pv__cj_time_value(pv__cj_cur *c, pv__cj_time *out)
{
    const uint8_t *s = c->p, *end = c->end;
    if (s < end && *s == '"') {
        pv__cj_str str;
        int rc = pv__cj_string(c, &str);
        if (rc != 0)
            return rc;
        if (!pv__cj_time_parse(str.s, str.len, out))
            return FAIL(c, s, "a time is not a number of microseconds in range");
        return 0;
    }
    /* The common shape, digits and at most six decimals, without a copy. */
    const uint8_t *p = s;
    uint64_t us = 0;
    while (p < end && *p >= '0' && *p <= '9' && us < (uint64_t)1e17)
        us = us * 10 + (unsigned)(*p++ - '0');
    if (p > s && p < end && !is_num[*p]) {
        out->us = (int64_t)us;
        out->ps = 0;
        out->set = true;
        c->p = p;
        return 0;
    }
    if (p > s && p < end && *p == '.') {
        const uint8_t *f = ++p;
        int32_t ps = 0;
        while (p < end && p - f < 6 && *p >= '0' && *p <= '9')
            ps = ps * 10 + (*p++ - '0');
        if (p > f && p < end && !is_num[*p]) {
            for (ptrdiff_t k = p - f; k < 6; k++)
                ps *= 10;
            out->us = (int64_t)us;
            out->ps = ps;
            out->set = true;
            c->p = p;
            return 0;
        }
    }
    const uint8_t *e = number_end(s, end);
    if (e == NULL)
        return PV__CJ_MORE;
    if (!pv__cj_time_parse((const char *)s, (size_t)(e - s), out))
        return FAIL(c, s, "a time is not a number of microseconds in range");
    c->p = e;
    return 0;
}

bool pv__cj_decimal_id(pv__cj_str s, int64_t *out)
{
    size_t i = 0;
    bool neg = s.len > 0 && s.s[0] == '-';
    i = neg;
    size_t digits = s.len - i;
    if (digits == 0 || digits > 19 || (s.s[i] == '0' && digits > 1) || (neg && s.s[i] == '0'))
        return false;
    uint64_t v = 0;
    for (; i < s.len; i++) {
        if (s.s[i] < '0' || s.s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s.s[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}
