/* json_stream: number and string formatting for the streamed writers. Numbers
 * are formatted by hand because printf dominates the time of writing a
 * multi-million-event trace. */
#include "tools/common/json_stream.h"

#include "util/decimal.h"
#include "util/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pv__jw_init(pv__jw *w, pv_buf *b)
{
    w->b = b;
    w->rc = 0;
    w->n = 0;
}

int pv__jw_flush(pv__jw *w)
{
    if (w->rc == 0 && w->n > 0)
        w->rc = pv_buf_add(w->b, w->stage, w->n);
    w->n = 0;
    return w->rc;
}

void pv__jw_raw(pv__jw *w, const char *s, size_t n)
{
    if (w->rc != 0)
        return;
    if (w->n + n > sizeof w->stage) {
        pv__jw_flush(w);
        if (n > sizeof w->stage) {
            if (w->rc == 0)
                w->rc = pv_buf_add(w->b, s, n);
            return;
        }
    }
    memcpy(w->stage + w->n, s, n);
    w->n += n;
}

void pv__jw_int_tuple(pv__jw *w, int comma, const int64_t *v, size_t n)
{
    char out[8 * 22 + 4];
    size_t len = 0;
    if (comma)
        out[len++] = ',';
    out[len++] = '[';
    for (size_t i = 0; i < n && i < 8; i++) {
        char tmp[24];
        char *s = pv_fmt_i64(tmp + sizeof tmp, v[i]);
        size_t k = (size_t)(tmp + sizeof tmp - s);
        if (i > 0)
            out[len++] = ',';
        memcpy(out + len, s, k);
        len += k;
    }
    out[len++] = ']';
    pv__jw_raw(w, out, len);
}

void pv__jw_lit(pv__jw *w, const char *s)
{
    pv__jw_raw(w, s, strlen(s));
}

void pv__jw_u64(pv__jw *w, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    pv__jw_raw(w, tmp + i, sizeof tmp - i);
}

void pv__jw_i64(pv__jw *w, int64_t v)
{
    if (v < 0) {
        pv__jw_raw(w, "-", 1);
        pv__jw_u64(w, (uint64_t)0 - (uint64_t)v);
    } else {
        pv__jw_u64(w, (uint64_t)v);
    }
}

#define SAFE_INT 9007199254740992ull   /* 2^53: larger integers lose digits as doubles */

void pv__jw_i64_safe(pv__jw *w, int64_t v)
{
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (mag <= SAFE_INT) {
        pv__jw_i64(w, v);
        return;
    }
    pv__jw_raw(w, "\"", 1);
    pv__jw_i64(w, v);
    pv__jw_raw(w, "\"", 1);
}

void pv__jw_u64_safe(pv__jw *w, uint64_t v)
{
    if (v <= SAFE_INT) {
        pv__jw_u64(w, v);
        return;
    }
    pv__jw_raw(w, "\"", 1);
    pv__jw_u64(w, v);
    pv__jw_raw(w, "\"", 1);
}

static int nonfinite(pv__jw *w, double v)
{
    if (isnan(v))
        pv__jw_lit(w, "\"NaN\"");
    else if (isinf(v))
        pv__jw_lit(w, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else
        return 0;
    return 1;
}

/* Writes v when it needs no digits after the point: NaN or an infinity as
 * a string, an integer exactly. Returns 1 when written, 0 otherwise. */
static int whole(pv__jw *w, double v)
{
    if (nonfinite(w, v))
        return 1;
    if (v == floor(v) && fabs(v) <= (double)SAFE_INT) {
        pv__jw_i64(w, (int64_t)v);
        return 1;
    }
    return 0;
}

void pv__jw_f64(pv__jw *w, double v)
{
    if (whole(w, v))
        return;
    char tmp[40];
    int n = snprintf(tmp, sizeof tmp, "%.17g", v);
    pv__jw_raw(w, tmp, (size_t)n);
}

void pv__jw_f64_short(pv__jw *w, double v)
{
    if (whole(w, v))
        return;
    char tmp[40];
    int n = 0;
    for (int prec = 6; prec <= 17; prec++) {
        n = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        double back;
        if (sscanf(tmp, "%lf", &back) == 1 && back == v)
            break;
    }
    pv__jw_raw(w, tmp, (size_t)n);
}

/* Length of a valid UTF-8 sequence at s, or 0 when it is not one. */
/* Bytes of the valid UTF-8 sequence at s (at most left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
    unsigned char c = s[0];
    size_t n;
    if ((c & 0xe0) == 0xc0 && c >= 0xc2)
        n = 2;
    else if ((c & 0xf0) == 0xe0)
        n = 3;
    else if ((c & 0xf8) == 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;
    if (n > left)
        return 0;
    for (size_t k = 1; k < n; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    return n;
}

void pv__jw_str(pv__jw *w, const char *str)
{
    pv__jw_strn(w, str, strlen(str));
}

void pv__jw_strn(pv__jw *w, const char *str, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    const unsigned char *end = s + len;
    pv__jw_raw(w, "\"", 1);
    size_t run = 0;   /* bytes at s that need no escaping, not yet written */
    while (s + run < end) {
        unsigned char c = s[run];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            run++;
            continue;
        }
        size_t ul = c >= 0x80 ? utf8_len(s + run, (size_t)(end - (s + run))) : 0;
        if (ul > 0) {
            run += ul;
            continue;
        }
        pv__jw_raw(w, (const char *)s, run);
        s += run;
        run = 0;
        char esc[8];
        size_t en = 2;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            if (c >= 0x80) {
                memcpy(esc, "\\ufffd", 6);
            } else {
                memcpy(esc, "\\u00", 4);
                esc[4] = hex[c >> 4];
                esc[5] = hex[c & 15];
            }
            en = 6;
            break;
        }
        pv__jw_raw(w, esc, en);
        s++;
    }
    pv__jw_raw(w, (const char *)s, run);
    pv__jw_raw(w, "\"", 1);
}
