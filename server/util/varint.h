/* varint: reading one protobuf base-128 varint, the step both the XSpace
 * decoder (ingest/xspace.c) and the model's lazy stat reader
 * (model/event_stats.c) take for almost every byte of a profile. */
#ifndef PV_UTIL_VARINT_H
#define PV_UTIL_VARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads the varint at *p (before end) into *v and moves *p past it.
 * False, *p unchanged, when it runs past end or is longer than 64 bits
 * (ten bytes, the last one 0 or 1). One- and two-byte varints (ids,
 * small values, lengths) take the short path. */
static inline bool pv_varint_read(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *s = *p;
    if (end - s >= 2) {
        if (s[0] < 0x80) {
            *v = s[0];
            *p = s + 1;
            return true;
        }
        if (s[1] < 0x80) {
            *v = (uint64_t)(s[0] & 0x7f) | (uint64_t)s[1] << 7;
            *p = s + 2;
            return true;
        }
    }
    size_t left = (size_t)(end - s);
    size_t max = left < 10 ? left : 10;
    uint64_t x = 0;
    for (size_t i = 0; i < max; i++) {
        uint8_t byte = s[i];
        if (i == 9 && byte > 1)
            return false;
        x |= (uint64_t)(byte & 0x7f) << (7 * i);
        if ((byte & 0x80) == 0) {
            *v = x;
            *p = s + i + 1;
            return true;
        }
    }
    return false;
}

#endif
