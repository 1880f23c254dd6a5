/* xs_dec (shared inside ingest/xspace/ only, hence pv__): the XSpace
 * decoder's state and its wire steps, which xspace.c (planes, lines,
 * events) and xs_meta.c (stats and metadata) both read with. Every step
 * returns true to go on; the first failure is kept in rc and err, and
 * everything after it returns false without reading. */
#ifndef PV_INGEST_XSPACE_XS_DEC_H
#define PV_INGEST_XSPACE_XS_DEC_H

#include "ingest/ingest.h"
#include "ingest/xspace/idtab.h"
#include "ingest/xspace/xs_walk.h"
#include "model/builder.h"
#include "util/pbwire.h"
#include "util/prefault.h"

#include <stdbool.h>
#include <stdint.h>

/* The rest of one message. */
typedef struct pv__xs_rd {
    const uint8_t *p, *end;
} pv__xs_rd;

typedef struct pv__xs_dec {
    const pv_ingest_src *src;
    pv_model_builder *b;
    pv_error *err;
    int rc;                 /* 0, or the first PV_E* code */
    pv__idtab stat_names;    /* stat metadata id -> string id of its name */
    pv__idtab metas;         /* event metadata id -> meta index */
    uint32_t plane;
    uint64_t n_tracks;
    uint64_t n_events;      /* events added to the builder */
    uint64_t next_progress; /* event count at which to report progress */
    uint64_t room_check;    /* n_events at which to give the columns room again */
    const uint8_t **later;  /* plane fields 3, 4 and 6 found by pass 1 */
    pv__xs_walk *walk;      /* the lines read ahead on a second core, or NULL */
    bool lines_whole;       /* read each line's own fields before its events */
    size_t n_later, cap_later;
    pv_prefault pf;         /* the builder's columns, which the walker faults in */
} pv__xs_dec;

/* Keeps the first failure: code and the reason, at the byte `at`. */
#define PV__XS_FAIL(d, code, at, ...)                                                \
    ((d)->rc = pv_error_set((d)->err, (code), (d)->src->path,                        \
                            (uint64_t)((at) - (d)->src->data), __VA_ARGS__),         \
     false)

/* The name of wire type wt, for errors. */
static inline const char *pv__xs_wire_name(uint32_t wt)
{
    static const char *const names[8] = {"varint", "fixed64", "length-delimited",
                                         "group start", "group end", "fixed32",
                                         "invalid (6)", "invalid (7)"};
    return names[wt & 7];
}

/* A varint of the message in r (util/pbwire.h); false with the error set
 * when it does not read. */
static inline bool pv__xs_rd_varint(pv__xs_dec *d, pv__xs_rd *r, uint64_t *v)
{
    const uint8_t *at = r->p;
    if (pv_varint_in(&r->p, r->end, d->src->data + d->src->len, v))
        return true;
    if (pv__pb_varint_cut(at, r->end))
        return PV__XS_FAIL(d, PV_EFORMAT, at,
                           "truncated: a varint runs past the end of its message");
    return PV__XS_FAIL(d, PV_EFORMAT, at, "corrupt: a varint is longer than 64 bits");
}

/* Reads the next field of the message in r into *f with the one wire
 * reader. False at the end of the message or on an error (then d->rc is
 * set). */
static inline bool pv__xs_next_field(pv__xs_dec *d, pv__xs_rd *r, const char *msg,
                                     pv_pb_field *f)
{
    if (d->rc != 0)
        return false;
    pv_pb_status st = pv_pb_field_in(&r->p, r->end, d->src->data + d->src->len, f);
    if (st == PV_PB_OK)
        return true;
    size_t left = (size_t)(r->end - f->data);
    switch (st) {
    case PV_PB_END:
        return false;
    case PV_PB_CUT_VARINT:
        return PV__XS_FAIL(d, PV_EFORMAT, f->data,
                           "truncated: a varint runs past the end of its message");
    case PV_PB_LONG_VARINT:
        return PV__XS_FAIL(d, PV_EFORMAT, f->data, "corrupt: a varint is longer than 64 bits");
    case PV_PB_BAD_NUMBER:
        return PV__XS_FAIL(d, PV_EFORMAT, f->at, "corrupt: %s has a field numbered %llu", msg,
                           (unsigned long long)f->v);
    case PV_PB_CUT_FIXED:
        return PV__XS_FAIL(d, PV_EFORMAT, f->at,
                           "truncated: %s field %u needs %u bytes, %zu remain", msg, f->num,
                           f->wt == 1 ? 8u : 4u, left);
    case PV_PB_CUT_LEN:
        return PV__XS_FAIL(d, PV_EFORMAT, f->at,
                           "truncated: %s field %u claims %llu bytes, %zu remain", msg, f->num,
                           (unsigned long long)f->v, left);
    default:
        return PV__XS_FAIL(d, PV_EFORMAT, f->at, "corrupt: %s field %u has wire type %s", msg,
                           f->num, pv__xs_wire_name(f->wt));
    }
}

/* Checks a known field's wire type. */
static inline bool pv__xs_expect(pv__xs_dec *d, const pv_pb_field *f, const char *msg,
                                 uint32_t wt)
{
    if (f->wt == wt)
        return true;
    return PV__XS_FAIL(d, PV_EFORMAT, f->at,
                       "corrupt: %s field %u has wire type %s, expected %s", msg, f->num,
                       pv__xs_wire_name(f->wt), pv__xs_wire_name(wt));
}

static inline uint32_t pv__xs_intern(pv__xs_dec *d, const pv_pb_field *f)
{
    return pv_builder_intern(d->b, (const char *)f->data, (size_t)f->v);
}

/* ---- stats and metadata (xs_meta.c) ---------------------------------------- */

/* Decodes one XStat. A stat with no value reads as int64 0. With keep
 * false it only checks the bytes (an event's own stat: read again later
 * from the file), so nothing is interned or copied. */
bool pv__xs_stat(pv__xs_dec *d, const uint8_t *data, size_t len, bool keep, pv_stat *out);
/* One stat_metadata map entry of the plane: remembers id -> interned name. */
bool pv__xs_stat_meta(pv__xs_dec *d, const pv_pb_field *entry);
/* One event_metadata map entry of the plane, into the builder and d->metas. */
bool pv__xs_event_meta(pv__xs_dec *d, const pv_pb_field *entry);

#endif
