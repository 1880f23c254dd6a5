/* varint: reading one protobuf base-128 varint, the step both the XSpace
 * decoder (ingest/xspace.c) and the model's lazy stat reader
 * (model/event_stats.c) take for almost every byte of a profile. */
#ifndef PV_UTIL_VARINT_H
#define PV_UTIL_VARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A varint read out of line: its value and length in bytes (0: none). */
typedef struct pv__varint {
    uint64_t v;
    size_t n;
} pv__varint;

/* pv_varint_in for a varint of three bytes or more, out of line so the
 * short path stays small enough to inline everywhere; the result comes
 * back in registers. Up to eight bytes take one 8-byte load where eight
 * are readable: the first byte without a continuation bit ends it, and
 * three rounds join the 7-bit groups (timestamps, durations and ids are
 * 3 to 8 bytes, and a byte-at-a-time loop was a quarter of an ingest). */
__attribute__((noinline)) static pv__varint pv__varint_read_long(const uint8_t *s,
                                                                const uint8_t *end,
                                                                const uint8_t *readable)
{
    pv__varint r = {0, 0};
    size_t left = (size_t)(end - s);
    if (readable - s >= 8) {
        uint64_t w = (uint64_t)s[0] | (uint64_t)s[1] << 8 | (uint64_t)s[2] << 16 |
                     (uint64_t)s[3] << 24 | (uint64_t)s[4] << 32 | (uint64_t)s[5] << 40 |
                     (uint64_t)s[6] << 48 | (uint64_t)s[7] << 56;
        uint64_t stops = ~w & 0x8080808080808080ull;
        if (stops != 0) {
            size_t n = (size_t)__builtin_ctzll(stops) / 8 + 1;
            if (n > left)
                return r;
            /* the bytes up to the first stop, their 7-bit groups joined */
            uint64_t x = w & (stops ^ (stops - 1)) & 0x7f7f7f7f7f7f7f7full;
            x = (x & 0x007f007f007f007full) | ((x >> 1) & 0x3f803f803f803f80ull);
            x = (x & 0x00003fff00003fffull) | ((x >> 2) & 0x0fffc0000fffc000ull);
            x = (x & 0x000000000fffffffull) | ((x >> 4) & 0x00fffffff0000000ull);
            r.v = x;
            r.n = n;
            return r;
        }
    }
    size_t max = left < 10 ? left : 10;
    uint64_t x = 0;
    for (size_t i = 0; i < max; i++) {
        uint8_t byte = s[i];
        if (i == 9 && byte > 1)
            return r;
        x |= (uint64_t)(byte & 0x7f) << (7 * i);
        if ((byte & 0x80) == 0) {
            r.v = x;
            r.n = i + 1;
            return r;
        }
    }
    return r;
}

/* Reads the varint at *p (before end) into *v and moves *p past it.
 * False, *p unchanged, when it runs past end or is longer than 64 bits
 * (ten bytes, the last one 0 or 1). The bytes up to `readable` (at or
 * after end) may be loaded, never used: a varint at the end of a small
 * message (a stat's value) still gets the 8-byte load when the file goes
 * on. One- and two-byte varints (tags, ids, small values, lengths) take
 * the short path. */
static inline bool pv_varint_in(const uint8_t **p, const uint8_t *end, const uint8_t *readable,
                                uint64_t *v)
{
    const uint8_t *s = *p;
    if (s < end && s[0] < 0x80) {
        *v = s[0];
        *p = s + 1;
        return true;
    }
    if (end - s >= 2 && s[1] < 0x80) {
        *v = (uint64_t)(s[0] & 0x7f) | (uint64_t)s[1] << 7;
        *p = s + 2;
        return true;
    }
    pv__varint r = pv__varint_read_long(s, end, readable);
    if (r.n == 0)
        return false;
    *v = r.v;
    *p = s + r.n;
    return true;
}

/* pv_varint_in with nothing readable past end. */
static inline bool pv_varint_read(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    return pv_varint_in(p, end, end, v);
}

#endif
