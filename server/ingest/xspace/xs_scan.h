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

/* An XLine's own fields, its events left out, gathered in one pass over
 * the line. */
typedef struct pv__xs_line {
    int64_t id;                 /* field 1 */
    int64_t timestamp_ns;       /* field 3 */
    int64_t duration_ps;        /* field 9 */
    int64_t display_id;         /* field 10 */
    const uint8_t *name;        /* field 2: the last one's tag, NULL when none */
    const uint8_t *display;     /* field 11: the same */
    bool after_event;           /* one of its events (field 4) has come */
    bool late;                  /* a field that places its events (1-3) came after one */
} pv__xs_line;

/* The wire type XLine field num must have; 8 for any (a field not read). */
static inline uint32_t pv__xs_line_wire(uint32_t num)
{
    static const uint8_t want[12] = {8, 0, 2, 0, 2, 8, 8, 8, 8, 0, 0, 2};
    return num < 12 ? want[num] : 8;
}

/* Takes the line's field f (its tag at f->at) into ln; an event only
 * marks that one has come. False for a known field of another wire type,
 * which the general reader reports. */
static inline bool pv__xs_line_field(pv__xs_line *ln, const pv_pb_field *f)
{
    uint32_t want = pv__xs_line_wire(f->num);
    if (want == 8)
        return true;
    if (f->wt != want)
        return false;
    ln->late |= ln->after_event && f->num <= 3;
    switch (f->num) {
    case 1: ln->id = (int64_t)f->v; break;
    case 2: ln->name = f->at; break;
    case 3: ln->timestamp_ns = (int64_t)f->v; break;
    case 4: ln->after_event = true; break;
    case 9: ln->duration_ps = (int64_t)f->v; break;
    case 10: ln->display_id = (int64_t)f->v; break;
    default: ln->display = f->at; break;
    }
    return true;
}

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
    /* Three scalars, not an array indexed by the tag: the array was
     * cleared with a string store and then read back in pairs of fields
     * stored one by one, which the store buffer cannot forward (together
     * over half of the samples in walker_main, where this is inlined). */
    uint64_t meta_id = 0, offset_ps = 0, duration_ps = 0;
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
            if (tag == 0x08)
                meta_id = x;
            else if (tag == 0x10)
                offset_ps = x;
            else if (tag == 0x18)
                duration_ps = x;
            else
                aggregate = true;
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
    s->meta_id = meta_id;
    s->offset_ps = offset_ps;
    s->duration_ps = duration_ps;
    s->first_stat = first_stat;
    s->aggregate = aggregate;
    s->n_stats = -1;
    s->stats = NULL;
    return true;
}

#endif
