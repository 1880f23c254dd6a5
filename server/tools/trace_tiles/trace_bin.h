/* trace_bin: a small writer of the binary tile encoding (docs/trace_api.md,
 * "Binary tiles") into a capped pv_buf: LEB128 varints, zigzag varints and
 * little-endian doubles. Like pv__jw, the first failed append makes every
 * later call a no-op and leaves the code in rc. Not thread-safe. */
#ifndef PV_TOOLS_TRACE_TILES_TRACE_BIN_H
#define PV_TOOLS_TRACE_TILES_TRACE_BIN_H

#include "util/buf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct pv__bw {
    pv_buf *b;
    int rc;             /* 0, or PV_ETOOBIG once the cap was hit */
    size_t n;           /* bytes staged */
    unsigned char stage[16384];
} pv__bw;

void pv__bw_init(pv__bw *w, pv_buf *b);
/* Moves the staged bytes to the buffer; returns rc. */
int pv__bw_flush(pv__bw *w);
void pv__bw_raw(pv__bw *w, const void *p, size_t n);
void pv__bw_f64(pv__bw *w, double v);   /* 8 bytes, little-endian IEEE 754 */

/* v as unsigned LEB128 (7 bits a byte, low first, high bit = more). */
static inline void pv__bw_uv(pv__bw *w, uint64_t v)
{
    if (w->n + 10 > sizeof w->stage && pv__bw_flush(w) != 0)
        return;
    unsigned char *p = w->stage + w->n;
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    w->n = (size_t)(p - w->stage);
}

/* v zigzag-mapped (0, -1, 1, -2, .. -> 0, 1, 2, 3, ..), then as pv__bw_uv. */
static inline void pv__bw_sv(pv__bw *w, int64_t v)
{
    uint64_t u = (uint64_t)v;
    pv__bw_uv(w, (u << 1) ^ (v < 0 ? UINT64_MAX : 0));
}

#endif
