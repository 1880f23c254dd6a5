/* buf: capped growable buffer. */
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pv_buf_init(pv_buf *b, size_t max_bytes)
{
    *b = (pv_buf){.max = max_bytes};
}

void pv_buf_drain_to(pv_buf *b, size_t at, pv_buf_drain_fn fn, void *ctx)
{
    b->drain = fn;
    b->drain_ctx = ctx;
    b->drain_at = at;
}

void pv_buf_fini(pv_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->drained = 0;
}

void pv_buf_reset(pv_buf *b)
{
    b->len = 0;
    if (b->data != NULL)
        b->data[0] = '\0';
}

static int reserve(pv_buf *b, size_t extra)
{
    size_t used = b->drained + b->len;
    if (extra > b->max || used > b->max - extra) {
        pv_buf_fini(b);
        return PV_ETOOBIG;
    }
    if (b->drain != NULL && b->len > 0 && b->len + extra > b->drain_at) {
        int rc = b->drain(b->drain_ctx, b->data, b->len);
        if (rc != 0) {
            pv_buf_fini(b);
            return rc;
        }
        b->drained += b->len;
        b->len = 0;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    b->data = pv_xrealloc(b->data, cap);
    b->cap = cap;
    return 0;
}

int pv_buf_add(pv_buf *b, const void *p, size_t n)
{
    int rc = reserve(b, n);
    if (rc != 0)
        return rc;
    if (n > 0)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int pv_buf_adds(pv_buf *b, const char *s)
{
    return pv_buf_add(b, s, strlen(s));
}

int pv_buf_addf(pv_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return PV_EINVAL;
    int rc = reserve(b, (size_t)n);
    if (rc != 0)
        return rc;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *pv_buf_take(pv_buf *b, size_t *len)
{
    char *d = b->data;
    if (len != NULL)
        *len = b->len;
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    return d;
}
