/* wire_stat: walking the stats of one event in the model's own encoding
 * of them. The model keeps an event's stats as bytes and decodes them on
 * demand: a decoded copy of every stat would cost more than the file.
 * That encoding is the XStat wire layout (proto/xplane.proto: the XEvent
 * message, whose field 4 repeats the stats, other fields skipped), so the
 * XSpace decoder points the model into the file instead of copying, and
 * any other decoder may write the same bytes. They are read with the one
 * wire reader, util/pbwire.h.
 *
 * Two readers share this walk: the builder, which applies an event's
 * well-known stats while the decoder has its bytes in cache (extras.c),
 * and the model's lazy reader behind pv_model_event_own_stats
 * (event_stats.c). Each resolves stat metadata ids to names its own way,
 * so this step hands them back unresolved. Private to server/model/. */
#ifndef PV_MODEL_WIRE_STAT_H
#define PV_MODEL_WIRE_STAT_H

#include "model/model_priv.h"
#include "util/pbwire.h"

#include <stdbool.h>
#include <string.h>

typedef struct pv__wire_cursor {
    const uint8_t *p, *end;   /* the rest of the XEvent message */
    const uint8_t *base;      /* the source's first byte, for PV_STAT_W* offsets */
    const uint8_t *limit;     /* the source's end: varint loads may look that far */
} pv__wire_cursor;

static inline uint64_t pv__wire_ref(const pv__wire_cursor *c, const uint8_t *data, uint64_t len)
{
    return (uint64_t)(data - c->base) << PV__WIRE_LEN_BITS | len;
}

/* An XStat in any layout; false when malformed (a known field with the
 * wrong wire type counts, as in the decoder). A field that does not read
 * leaves c.p before the end. */
static inline bool pv__wire_stat_any(const pv__wire_cursor *ev, const uint8_t *data, size_t len,
                                     uint64_t *mid, pv_stat *out, bool *ref)
{
    pv__wire_cursor c = {data, data + len, ev->base, ev->limit};
    pv_pb_field f;
    static const uint8_t want[8] = {8, 0, 1, 0, 0, 2, 2, 0};   /* 8: any */
    while (pv_pb_field_in(&c.p, c.end, c.limit, &f) == PV_PB_OK) {
        uint32_t num = f.num, wt = f.wt;
        uint64_t v = f.v;
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
            out->v.wire = pv__wire_ref(&c, f.data, v);
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
 * or a stat does not parse. A stat with no value reads as int64 0.
 * Always inlined: the compiler kept it out of line, where its results
 * went through memory and it pushed and popped its registers for every
 * stat (its hottest samples); inlined in the loops that call it, the
 * two-thread decode is an eighth faster (docs/big_profiles.md). */
__attribute__((always_inline)) static inline int pv__wire_next_stat(pv__wire_cursor *c,
                                                                    uint64_t *mid,
                                                                    pv_stat *out, bool *ref)
{
    uint64_t v;
    const uint8_t *payload = NULL;
    pv_pb_field f;
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
        } else if (pv_pb_field_in(&c->p, c->end, c->limit, &f) != PV_PB_OK) {
            return -1;
        } else if (f.num != 4) {
            continue;
        } else if (f.wt != 2) {
            return -1;
        } else {
            payload = f.data;
            v = f.v;
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
