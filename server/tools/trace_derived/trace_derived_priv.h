/* trace_derived_priv: the growable text trace_derived.c and
 * trace_derived_offload.c both build names in. Header-only, so that it
 * sits below both files; nothing else includes it. */
#ifndef PV_TOOLS_TRACE_DERIVED_TRACE_DERIVED_PRIV_H
#define PV_TOOLS_TRACE_DERIVED_TRACE_DERIVED_PRIV_H

#include "util/mem.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ---- growable text ---------------------------------------------------------- */

typedef struct text {
    char *p;     /* NUL-terminated once anything was added */
    size_t len;  /* bytes, without the NUL */
    size_t cap;
} text;

static inline void text_cat(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1) + 32;
        t->p = pv_xrealloc(t->p, t->cap);
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static inline void text_set(text *t, const char *s, size_t n)
{
    t->len = 0;
    text_cat(t, s, n);
}

static inline void text_cats(text *t, const char *s)
{
    text_cat(t, s, strlen(s));
}

/* v in decimal (a kernel's program id, twice per kernel: without
 * snprintf's cost per call). */
static inline void text_i64(text *t, int64_t v, bool is_unsigned)
{
    char tmp[24];
    size_t at = sizeof tmp;
    bool neg = !is_unsigned && v < 0;
    uint64_t u = neg ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[--at] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (neg)
        tmp[--at] = '-';
    text_cat(t, tmp + at, sizeof tmp - at);
}

#endif
