/* json_out: jansson's dump callback appending to a pv_buf, and jansson's
 * forms of a real and a string for the streamed answers. */
#include "tools/common/json_out.h"
#include "util/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int append(const char *p, size_t n, void *ctx)
{
    return pv_buf_add(ctx, p, n) == 0 ? 0 : -1;
}

int pv_json_write(json_t *j, pv_buf *out, pv_error *err)
{
    if (j == NULL)
        return pv_error_set(err, PV_ENOMEM, NULL, PV_NO_OFFSET,
                            "the answer could not be built (out of memory)");
    int rc = json_dump_callback(j, append, out, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(j);
    if (rc != 0)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                            "the answer is larger than %zu bytes", out->max);
    return 0;
}

static int append_jw(const char *p, size_t n, void *ctx)
{
    pv__jw *w = ctx;
    pv__jw_raw(w, p, n);
    return w->rc == 0 ? 0 : -1;
}

void pv_json_tree(pv__jw *w, json_t *j)
{
    if (j == NULL) {
        if (w->rc == 0)
            w->rc = PV_ENOMEM;
        return;
    }
    if (w->rc == 0)
        json_dump_callback(j, append_jw, w, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(j);
}

void pv_json_real(pv__jw *w, double d)
{
    char s[48];
    int n = snprintf(s, sizeof s - 3, "%.17g", isfinite(d) ? d : 0.0);
    if (n < 0)
        n = 0;
    size_t len = (size_t)n;
    if (strchr(s, '.') == NULL && strchr(s, 'e') == NULL) {
        memcpy(s + len, ".0", 3);
        len += 2;
    }
    char *e = strchr(s, 'e');
    if (e != NULL) {
        /* "e+05" -> "e5", "e-05" -> "e-5" */
        char *digits = e + 1;
        if (*digits == '-')
            digits++;
        char *from = digits;
        while (*from == '+' || *from == '0')
            from++;
        if (*from == '\0')
            from--;
        memmove(digits, from, (size_t)(s + len - from) + 1);
        len -= (size_t)(from - digits);
    }
    pv__jw_raw(w, s, len);
}

void pv_json_text(pv__jw *w, const char *s)
{
    size_t n = strlen(s);
    bool utf8 = pv_utf8_valid(s, n);
    pv__jw_raw(w, "\"", 1);
    size_t run = 0;   /* bytes at s written as they are, not yet written */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char seq[8];
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c < 0x20) {
            switch (c) {
            case '\b': esc = "\\b"; break;
            case '\f': esc = "\\f"; break;
            case '\n': esc = "\\n"; break;
            case '\r': esc = "\\r"; break;
            case '\t': esc = "\\t"; break;
            default:
                snprintf(seq, sizeof seq, "\\u%04X", (unsigned)c);
                esc = seq;
            }
        } else if (c >= 0x80 && !utf8) {
            esc = "?";
        }
        if (esc == NULL)
            continue;
        pv__jw_raw(w, s + run, i - run);
        pv__jw_lit(w, esc);
        run = i + 1;
    }
    pv__jw_raw(w, s + run, n - run);
    pv__jw_raw(w, "\"", 1);
}

json_t *pv_json_loadb(const pv_buf *b)
{
    return b->data != NULL ? json_loadb(b->data, b->len, JSON_DECODE_ANY, NULL) : NULL;
}

int pv_json_finish(pv__jw *w, pv_error *err)
{
    int rc = pv__jw_flush(w);
    if (rc == PV_ENOMEM)
        return pv_error_set(err, PV_ENOMEM, NULL, PV_NO_OFFSET,
                            "the answer could not be built (out of memory)");
    if (rc != 0)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                            "the answer is larger than %zu bytes", w->b->max);
    return 0;
}
