/* json_stream: a small JSON writer into a capped pv_buf, shared by the
 * tools whose outputs are too large to build as jansson trees (tiles,
 * Chrome trace JSON, the step tables). The first failed append makes every later call a
 * no-op and leaves the code in rc, so writers check once at the end.
 * Not thread-safe: one writer per buffer. */
#ifndef PV_TOOLS_COMMON_JSON_STREAM_H
#define PV_TOOLS_COMMON_JSON_STREAM_H

#include "util/buf.h"

#include <stddef.h>
#include <stdint.h>

/* Appends are staged in a small array and flushed to the pv_buf in
 * chunks: a tile or trace is millions of tiny appends. Call
 * pv__jw_flush before reading the buffer. */
typedef struct pv__jw {
    pv_buf *b;
    int rc;             /* 0, or PV_ETOOBIG once the cap was hit */
    size_t n;           /* bytes staged */
    char stage[16384];
} pv__jw;

/* A writer appending to b. */
void pv__jw_init(pv__jw *w, pv_buf *b);
/* Moves the staged bytes to the buffer; returns rc. */
int pv__jw_flush(pv__jw *w);

void pv__jw_raw(pv__jw *w, const char *s, size_t n);
/* "[a,b,c,...]" of n signed integers (n <= 8), with a leading comma when
 * comma is set: one call per tile event or box. */
void pv__jw_int_tuple(pv__jw *w, int comma, const int64_t *v, size_t n);
void pv__jw_lit(pv__jw *w, const char *s);           /* s as is */
void pv__jw_i64(pv__jw *w, int64_t v);
void pv__jw_u64(pv__jw *w, uint64_t v);
/* %.17g; NaN and infinities as the strings "NaN", "Infinity", "-Infinity". */
void pv__jw_f64(pv__jw *w, double v);
/* Shortest %.Ng (N <= 17) that reads back as v; for microsecond times. */
void pv__jw_f64_short(pv__jw *w, double v);
/* s quoted and escaped; invalid UTF-8 bytes become U+FFFD. */
void pv__jw_str(pv__jw *w, const char *s);
/* The same for s[0 .. len), which may hold NUL bytes (written \u0000). */
void pv__jw_strn(pv__jw *w, const char *s, size_t len);
/* An integer stat value: as a number when |v| <= 2^53, else as a string. */
void pv__jw_i64_safe(pv__jw *w, int64_t v);
void pv__jw_u64_safe(pv__jw *w, uint64_t v);

#endif
