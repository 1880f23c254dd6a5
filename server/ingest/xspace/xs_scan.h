/* xs_scan (shared inside ingest/xspace/ only, hence pv__): reading an
 * XEvent's scalars and finding where its stats start, with nothing but
 * the file's bytes. The decoder does it as it adds each event; the walker
 * (xs_walk.c) does it ahead of the decoder on a second core. One function
 * for both is what makes the two-thread decode read the same values as
 * the one-thread decode. Pure; any thread. */
#ifndef PV_INGEST_XSPACE_XS_SCAN_H
#define PV_INGEST_XSPACE_XS_SCAN_H

#include "model/builder.h"
#include "util/pbwire.h"

#include <stdbool.h>
#include <stdint.h>

/* An XEvent as the layout every producer writes it gives it. */
typedef struct pv__xs_scan {
    uint64_t meta_id;           /* field 1 */
    uint64_t offset_ps;         /* field 2 */
    uint64_t duration_ps;       /* field 3 */
    const uint8_t *first_stat;  /* its first stats field (4), NULL when none */
    bool aggregate;             /* field 5 present: no start time */
    int n_stats;                /* its stats read ahead (xs_walk.c) into stats, */
    const pv_wire_stat *stats;  /*   or -1 */
} pv__xs_scan;

/* The next field at *p (before end) when it is an event (tag 0x22, a
 * length that fits): *f filled and *p past it. False, *p untouched, for
 * anything else, which the general reader then takes. readable is the
 * file's end (util/pbwire.h: varint loads may look that far). */
static inline bool pv__xs_event_field(const uint8_t **p, const uint8_t *end,
                                      const uint8_t *readable, pv_pb_field *f)
{
    const uint8_t *q = *p;
    uint64_t len;
    if (q >= end || *q != 0x22)
        return false;
    q++;
    if (!pv_varint_in(&q, end, readable, &len) || len > (uint64_t)(end - q))
        return false;
    f->at = *p;
    f->num = 4;
    f->wt = 2;
    f->v = len;
    f->data = q;
    *p = q + len;
    return true;
}

/* The event ef in one pass over the layout every producer writes
 * (one-byte tags, known fields, well-formed varints). False on anything
 * else: the general decoder reads it then, and says what is wrong. */
static inline bool pv__xs_event_scan(const pv_pb_field *ef, const uint8_t *readable,
                                     pv__xs_scan *s)
{
    const uint8_t *p = ef->data, *end = ef->data + (size_t)ef->v;
    uint64_t v[6] = {0};
    const uint8_t *first_stat = NULL;
    bool aggregate = false;
    while (p < end) {
        uint8_t tag = *p++;
        uint64_t x;
        switch (tag) {
        case 0x08:
        case 0x10:
        case 0x18:
        case 0x28:
            if (!pv_varint_in(&p, end, readable, &x))
                return false;
            v[tag >> 3] = x;
            aggregate |= tag == 0x28;
            break;
        case 0x22:
            if (first_stat == NULL)
                first_stat = p - 1;
            if (!pv_varint_in(&p, end, readable, &x) || x > (uint64_t)(end - p))
                return false;
            p += x;
            break;
        default:
            return false;
        }
    }
    s->meta_id = v[1];
    s->offset_ps = v[2];
    s->duration_ps = v[3];
    s->first_stat = first_stat;
    s->aggregate = aggregate;
    s->n_stats = -1;
    s->stats = NULL;
    return true;
}

#endif
