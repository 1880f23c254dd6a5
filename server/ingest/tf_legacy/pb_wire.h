/* pb_wire: a minimal, bounds-checked protobuf wire-format reader for the
 * few protobufs tools/ reads from bytes (HLO protos inside a profile,
 * TensorFlow's legacy per-tool files). tools/ may not use protobuf-c
 * (STYLE rule 10), and a handful of fields do not need it.
 *
 * A pv__wire is a cursor over [p, end). Every read checks the bounds; the
 * first malformed byte sets bad, after which reads return 0 and
 * pv__wire_next returns false, so a caller checks bad once at the end.
 * Header-only (static inline); shared inside tools/ only. */
#ifndef PV_INGEST_TF_LEGACY_PB_WIRE_H
#define PV_INGEST_TF_LEGACY_PB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct pv__wire {
    const uint8_t *p;
    const uint8_t *end;
    bool bad;            /* set on the first malformed byte */
} pv__wire;

static inline uint64_t pv__wire_varint(pv__wire *w)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (w->p >= w->end) {
            w->bad = true;
            return 0;
        }
        uint8_t b = *w->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0)
            return v;
    }
    w->bad = true;
    return 0;
}

/* Reads the next field's key; false at the end or on bad input. */
static inline bool pv__wire_next(pv__wire *w, uint32_t *field, uint32_t *type)
{
    if (w->bad || w->p >= w->end)
        return false;
    uint64_t key = pv__wire_varint(w);
    *field = (uint32_t)(key >> 3);
    *type = (uint32_t)(key & 7);
    return !w->bad;
}

/* A length-delimited payload as a sub-cursor (bad when it overruns). */
static inline pv__wire pv__wire_bytes(pv__wire *w)
{
    pv__wire sub = {NULL, NULL, true};
    uint64_t n = pv__wire_varint(w);
    if (w->bad || n > (uint64_t)(w->end - w->p)) {
        w->bad = true;
        return sub;
    }
    sub.p = w->p;
    sub.end = w->p + n;
    sub.bad = false;
    w->p += n;
    return sub;
}

/* 8 or 4 little-endian bytes (wire types 1 and 5). */
static inline uint64_t pv__wire_fixed(pv__wire *w, size_t n)
{
    if ((size_t)(w->end - w->p) < n) {
        w->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)w->p[i] << (8 * i);
    w->p += n;
    return v;
}

static inline double pv__wire_double(pv__wire *w)
{
    uint64_t bits = pv__wire_fixed(w, 8);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline float pv__wire_float(pv__wire *w)
{
    uint32_t bits = (uint32_t)pv__wire_fixed(w, 4);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline void pv__wire_skip(pv__wire *w, uint32_t type)
{
    switch (type) {
    case 0: pv__wire_varint(w); break;
    case 1: pv__wire_fixed(w, 8); break;
    case 2: pv__wire_bytes(w); break;
    case 5: pv__wire_fixed(w, 4); break;
    default: w->bad = true; break;   /* groups (3, 4): not used by these protos */
    }
}

#endif
