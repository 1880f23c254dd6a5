/* wire_stat: walking the stats of one XEvent in the profile's bytes. Two
 * readers share it: the builder, which applies an event's well-known
 * stats while the decoder has its bytes in cache (extras.c), and the
 * model's lazy reader behind pv_model_event_own_stats (event_stats.c).
 * Each resolves stat metadata ids to names its own way, so this step
 * hands them back unresolved. Private to server/model/. */
#ifndef PV_MODEL_WIRE_STAT_H
#define PV_MODEL_WIRE_STAT_H

#include "model/model_priv.h"
#include "util/varint.h"

#include <stdbool.h>
#include <string.h>

typedef struct pv__wire_cursor {
    const uint8_t *p, *end;   /* the rest of the XEvent message */
    const uint8_t *base;      /* the source's first byte, for PV_STAT_W* offsets */
    const uint8_t *limit;     /* the source's end: varint loads may look that far */
} pv__wire_cursor;

/* One field header and value; for wire type 2, *v is the length and
 * *data the payload. False at the end or on malformed bytes, with c->p
 * left at the field, so a caller can tell a cut-off field from the end. */
static inline bool pv__wire_field(pv__wire_cursor *c, uint32_t *num, uint32_t *wt, uint64_t *v,
                                  const uint8_t **data)
{
    const uint8_t *at = c->p;
    uint64_t tag;
    if (c->p >= c->end || !pv_varint_in(&c->p, c->end, c->limit, &tag))
        return false;
    *num = (uint32_t)(tag >> 3);
    *wt = (uint32_t)(tag & 7);
    switch (*wt) {
    case 0:
        if (pv_varint_in(&c->p, c->end, c->limit, v))
            return true;
        break;
    case 1:
    case 5: {
        size_t n = *wt == 1 ? 8 : 4;
        if ((size_t)(c->end - c->p) < n)
            break;
        uint64_t x = 0;
        for (size_t i = 0; i < n; i++)
            x |= (uint64_t)c->p[i] << (8 * i);
        *v = x;
        c->p += n;
        return true;
    }
    case 2:
        if (!pv_varint_in(&c->p, c->end, c->limit, v) || *v > (uint64_t)(c->end - c->p))
            break;
        *data = c->p;
        c->p += *v;
        return true;
    default:
        break;
    }
    c->p = at;
    return false;
}

static inline uint64_t pv__wire_ref(const pv__wire_cursor *c, const uint8_t *data, uint64_t len)
{
    return (uint64_t)(data - c->base) << PV__WIRE_LEN_BITS | len;
}

/* An XStat in any layout; false when malformed (a known field with the
 * wrong wire type counts, as in the decoder). */
static inline bool pv__wire_stat_any(const pv__wire_cursor *ev, const uint8_t *data, size_t len,
                                     uint64_t *mid, pv_stat *out, bool *ref)
{
    pv__wire_cursor c = {data, data + len, ev->base, ev->limit};
    uint32_t num, wt;
    uint64_t v = 0;
    const uint8_t *payload = NULL;
    static const uint8_t want[8] = {8, 0, 1, 0, 0, 2, 2, 0};   /* 8: any */
    while (pv__wire_field(&c, &num, &wt, &v, &payload)) {
        if (num < 8 && want[num] != 8 && want[num] != wt)
            return false;
        if (num == 1 && wt == 0) {
            *mid = v;
        } else if (num == 2 && wt == 1) {
            out->type = PV_STAT_F64;
            memcpy(&out->v.f64, &v, sizeof out->v.f64);
            *ref = false;
        } else if ((num == 3 || num == 4 || num == 7) && wt == 0) {
            out->type = num == 4 ? PV_STAT_I64 : num == 3 ? PV_STAT_U64 : PV_STAT_STR;
            out->v.u64 = v;
            *ref = num == 7;
        } else if ((num == 5 || num == 6) && wt == 2) {
            if (v >> PV__WIRE_LEN_BITS != 0)
                return false;
            out->type = num == 5 ? PV_STAT_WSTR : PV_STAT_WBYTES;
            out->v.wire = pv__wire_ref(&c, payload, v);
            *ref = false;
        }
    }
    return c.p == c.end;
}

/* The layout every producer writes: the metadata id in one byte, then one
 * value that runs to the stat's end (08 <id> <value tag> <value>), read
 * in a straight line; false on anything else, and the caller reads the
 * stat with pv__wire_stat_any. */
static inline bool pv__wire_stat_fast(const pv__wire_cursor *ev, const uint8_t *p,
                                      const uint8_t *end, uint64_t *mid, pv_stat *out, bool *ref)
{
    if (end - p < 3 || p[0] != 0x08 || p[1] >= 0x80)
        return false;
    *mid = p[1];
    uint8_t tag = p[2];
    p += 3;
    uint64_t v;
    switch (tag) {
    case 0x18:
    case 0x20:
    case 0x38:
        if (!pv_varint_in(&p, end, ev->limit, &v) || p != end)
            return false;
        out->type = tag == 0x20 ? PV_STAT_I64 : tag == 0x18 ? PV_STAT_U64 : PV_STAT_STR;
        out->v.u64 = v;
        *ref = tag == 0x38;
        return true;
    case 0x11:
        if (end - p != 8)
            return false;
        memcpy(&out->v.f64, p, 8);
        out->type = PV_STAT_F64;
        *ref = false;
        return true;
    case 0x2a:
    case 0x32:
        if (!pv_varint_in(&p, end, ev->limit, &v) || v != (uint64_t)(end - p))
            return false;
        out->type = tag == 0x2a ? PV_STAT_WSTR : PV_STAT_WBYTES;
        out->v.wire = pv__wire_ref(ev, p, v);
        *ref = false;
        return true;
    default:
        return false;
    }
}

/* The next stat (field 4) of the XEvent bytes under c, stepping over its
 * other fields: 1 with the stat's metadata id in *mid and its value in
 * *out (out->name not set; a ref_value is PV_STAT_STR with the metadata
 * id it names in out->v.u64 and *ref true), 0 at the end, -1 when a field
 * or a stat does not parse. A stat with no value reads as int64 0. */
static inline int pv__wire_next_stat(pv__wire_cursor *c, uint64_t *mid, pv_stat *out, bool *ref)
{
    uint32_t num, wt;
    uint64_t v;
    const uint8_t *payload = NULL;
    for (;;) {
        if (c->p >= c->end)
            return 0;
        uint8_t tag = *c->p;
        if (tag == 0x22) {   /* a stats field, the common case */
            c->p++;
            if (!pv_varint_in(&c->p, c->end, c->limit, &v) || v > (uint64_t)(c->end - c->p))
                return -1;
            payload = c->p;
            c->p += v;
        } else if (tag == 0x08 || tag == 0x10 || tag == 0x18 || tag == 0x28) {
            /* the event's scalars (fields 1, 2, 3, 5): varints to step over */
            c->p++;
            if (!pv_varint_in(&c->p, c->end, c->limit, &v))
                return -1;
            continue;
        } else if (!pv__wire_field(c, &num, &wt, &v, &payload)) {
            return -1;
        } else if (num != 4) {
            continue;
        } else if (wt != 2) {
            return -1;
        }
        if (pv__wire_stat_fast(c, payload, payload + v, mid, out, ref))
            return 1;
        *mid = 0;
        out->type = PV_STAT_I64;
        out->v.i64 = 0;
        *ref = false;
        return pv__wire_stat_any(c, payload, (size_t)v, mid, out, ref) ? 1 : -1;
    }
}

#endif
