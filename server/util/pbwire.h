/* pbwire: the one reader of protobuf's wire format for what profview
 * decodes by hand. Everything else that decodes protobuf (TensorFlow's
 * legacy per-tool files, HLO protos) unpacks with the code protoc-c
 * generates from proto/; these bytes are read here instead:
 *   - the XSpace decoder (ingest/xspace/), the hot path of every load:
 *     docs/ingest.md has the measurement that keeps it hand-written;
 *   - the model's own encoding of an event's stats (model/wire_stat.h),
 *     which is the XStat layout, so the XSpace decoder points into the
 *     file instead of copying;
 *   - the XSpace's sniff and probe (ingest/xspace/xspace_sniff.c,
 *     xspace_probe.c: the first bytes, the field headers), the few bytes
 *     of a ProfileOptions stat the overview page reads, and the bytes-by-
 *     memory breakdown a TPU op's metadata carries (tools/hlo/xla_ops.c).
 *
 * A varint is read by pv_varint_in (fast: one 8-byte load where the bytes
 * are readable) and a whole field, header and value, by pv_pb_field_in.
 * Both only read inside [p, end) except for the loads described at
 * pv_varint_in, and never move the cursor on a failure.
 * Header-only (static inline); no state, any thread. */
#ifndef PV_UTIL_PBWIRE_H
#define PV_UTIL_PBWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- varints ------------------------------------------------------------- */

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

/* ---- fields ---------------------------------------------------------------- */

/* The largest field number protobuf allows (2^29 - 1). */
#define PV_PB_MAX_FIELD 536870911u

/* What pv_pb_field_in found. Only PV_PB_OK moves the cursor. */
typedef enum pv_pb_status {
    PV_PB_OK = 0,
    PV_PB_END,            /* no bytes left in the message: not an error */
    PV_PB_CUT_VARINT,     /* a varint runs past the end of the message */
    PV_PB_LONG_VARINT,    /* a varint longer than 64 bits */
    PV_PB_BAD_NUMBER,     /* field number 0 or past PV_PB_MAX_FIELD */
    PV_PB_BAD_WIRE_TYPE,  /* groups (3, 4) or the undefined 6 and 7 */
    PV_PB_CUT_FIXED,      /* a fixed32/fixed64 value with fewer bytes left */
    PV_PB_CUT_LEN         /* a length-delimited value that runs past the end */
} pv_pb_status;

typedef struct pv_pb_field {
    const uint8_t *at;    /* the field's first byte (its tag), for errors */
    uint32_t num;         /* field number (not set for the varint faults) */
    uint32_t wt;          /* wire type: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 */
    uint64_t v;           /* varint or fixed value; wire type 2: the payload's length;
                             PV_PB_BAD_NUMBER: the number read */
    const uint8_t *data;  /* where the value begins (for wire type 2, the payload).
                             On a failure: where the bytes at fault begin (the
                             varint that does not read, or the value that runs
                             past the end) */
} pv_pb_field;

/* Whether the varint at s (before end), which does not read, is cut off
 * by end (else it is longer than 64 bits). Only called on a failure, so
 * out of line. */
__attribute__((cold, noinline, unused)) static bool pv__pb_varint_cut(const uint8_t *s,
                                                                     const uint8_t *end)
{
    for (size_t i = 0; i < 10; i++) {
        if (s + i >= end)
            return true;
        if (s[i] < 0x80)
            return false;   /* it ends, but its tenth byte is above 1 */
    }
    return false;
}

/* The status of a varint at s that does not read. */
#define PV__PB_VARINT_FAULT(s, end) \
    (pv__pb_varint_cut((s), (end)) ? PV_PB_CUT_VARINT : PV_PB_LONG_VARINT)

/* Reads the field at *p (before end) into *f and moves *p past it; the
 * bytes up to readable may be loaded as pv_varint_in says. On anything
 * but PV_PB_OK, *p is unchanged and f->data says where the fault is.
 * Always inlined: as a call it cost the XSpace decoder 7% of its
 * instructions on a GPU profile (callgrind, 34.83.195.179_6003). */
__attribute__((always_inline)) static inline pv_pb_status
pv_pb_field_in(const uint8_t **p, const uint8_t *end, const uint8_t *readable, pv_pb_field *f)
{
    const uint8_t *s = *p;
    uint64_t tag;
    if (s >= end)
        return PV_PB_END;
    f->at = s;
    if (!pv_varint_in(&s, end, readable, &tag)) {
        f->data = *p;
        return PV__PB_VARINT_FAULT(*p, end);
    }
    if ((tag >> 3) - 1 >= PV_PB_MAX_FIELD) {   /* 0 wraps around: one compare for both */
        f->v = tag >> 3;
        f->data = *p;
        return PV_PB_BAD_NUMBER;
    }
    f->num = (uint32_t)(tag >> 3);
    f->wt = (uint32_t)(tag & 7);
    f->data = s;
    switch (f->wt) {
    case 0:
        if (!pv_varint_in(&s, end, readable, &f->v))
            return PV__PB_VARINT_FAULT(f->data, end);
        break;
    case 1:
    case 5: {
        size_t n = f->wt == 1 ? 8 : 4;
        if ((size_t)(end - s) < n)
            return PV_PB_CUT_FIXED;
        uint64_t x = 0;
        for (size_t i = 0; i < n; i++)
            x |= (uint64_t)s[i] << (8 * i);
        f->v = x;
        s += n;
        break;
    }
    case 2:
        if (!pv_varint_in(&s, end, readable, &f->v))
            return PV__PB_VARINT_FAULT(f->data, end);
        f->data = s;
        if (f->v > (uint64_t)(end - s))
            return PV_PB_CUT_LEN;
        s += f->v;
        break;
    default:
        f->data = *p;
        return PV_PB_BAD_WIRE_TYPE;
    }
    *p = s;
    return PV_PB_OK;
}

#endif
