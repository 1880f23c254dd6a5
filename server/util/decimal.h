/* decimal: an integer's decimal text without printf, for hot paths that
 * format many numbers (JSON writers, ids interned as text). Pure. */
#ifndef PV_UTIL_DECIMAL_H
#define PV_UTIL_DECIMAL_H

#include <stdint.h>

/* The longest text pv_fmt_i64 writes: "-9223372036854775808". */
#define PV_I64_TEXT_MAX 20

/* Writes v in decimal just before end (the buffer has room for
 * PV_I64_TEXT_MAX bytes before end, no NUL is written); returns where the
 * text starts. */
static inline char *pv_fmt_i64(char *end, int64_t v)
{
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--end = (char)('0' + mag % 10);
        mag /= 10;
    } while (mag != 0);
    if (v < 0)
        *--end = '-';
    return end;
}

#endif
