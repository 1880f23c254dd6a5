/* event_stats: an event's own stats, read on demand. A model decoded from
 * an XSpace keeps the file mapped and each event's place in it, and this
 * file decodes the XEvent's stats from those bytes when a tool asks; a
 * model built with stats in hand (Chrome JSON, tests) keeps them in the
 * flat array. Finish read and checked every stat when the file was
 * ingested, but the bytes are read again here, so every read stays in
 * bounds anyway, and a file that shrank under its mapping ends the read
 * instead of the process (util/mapguard.h). */
#include "model/model_priv.h"
#include "util/mapguard.h"
#include "util/mem.h"
#include "util/varint.h"

#include <string.h>

typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

static inline bool varint(cursor *c, uint64_t *v)
{
    return pv_varint_read(&c->p, c->end, v);
}

/* Reads one field header and value; for wire type 2, *v is the length
 * and *data the payload. False at the end or on malformed bytes. */
static inline bool field(cursor *c, uint32_t *num, uint32_t *wt, uint64_t *v, const uint8_t **data)
{
    uint64_t tag;
    if (c->p >= c->end || !varint(c, &tag))
        return false;
    *num = (uint32_t)(tag >> 3);
    *wt = (uint32_t)(tag & 7);
    switch (*wt) {
    case 0:
        return varint(c, v);
    case 1:
    case 5: {
        size_t n = *wt == 1 ? 8 : 4;
        if ((size_t)(c->end - c->p) < n)
            return false;
        uint64_t x = 0;
        for (size_t i = 0; i < n; i++)
            x |= (uint64_t)c->p[i] << (8 * i);
        *v = x;
        c->p += n;
        return true;
    }
    case 2:
        if (!varint(c, v) || *v > (uint64_t)(c->end - c->p))
            return false;
        *data = c->p;
        c->p += *v;
        return true;
    default:
        return false;
    }
}

/* The string id of a stat metadata id of plane, 0 when unknown. */
static inline uint32_t stat_name(const pv_model *m, const pv_plane *pl, int64_t id)
{
    const pv__model_store *st = m->priv;
    uint32_t pi = (uint32_t)(pl - m->planes);
    if (id >= 0 && (uint64_t)id < st->dense_n[pi]) {
        uint32_t v = st->dense[st->dense_first[pi] + (uint64_t)id];
        return v != 0 ? v - 1 : 0;
    }
    const pv_stat_name *t = m->stat_names + pl->first_stat_name;
    size_t lo = 0, hi = pl->n_stat_names;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < pl->n_stat_names && t[lo].id == id ? t[lo].name : 0;
}

static uint64_t wire_ref(const pv_model *m, const uint8_t *data, uint64_t len)
{
    return (uint64_t)(data - m->src) << PV__WIRE_LEN_BITS | len;
}

/* Decodes one XStat in any layout; false when malformed (a known field
 * with the wrong wire type counts, as in the decoder). */
static bool wire_stat(const pv_model *m, const pv_plane *pl, const uint8_t *data, size_t len,
                      pv_stat *out)
{
    cursor c = {data, data + len};
    uint32_t num, wt;
    uint64_t v = 0, mid = 0;
    const uint8_t *payload = NULL;
    out->type = PV_STAT_I64;
    out->v.i64 = 0;
    static const uint8_t want[8] = {8, 0, 1, 0, 0, 2, 2, 0};   /* 8: any */
    while (field(&c, &num, &wt, &v, &payload)) {
        if (num < 8 && want[num] != 8 && want[num] != wt)
            return false;
        if (num == 1 && wt == 0) {
            mid = v;
        } else if (num == 2 && wt == 1) {
            out->type = PV_STAT_F64;
            memcpy(&out->v.f64, &v, sizeof out->v.f64);
        } else if (num == 3 && wt == 0) {
            out->type = PV_STAT_U64;
            out->v.u64 = v;
        } else if (num == 4 && wt == 0) {
            out->type = PV_STAT_I64;
            out->v.i64 = (int64_t)v;
        } else if ((num == 5 || num == 6) && wt == 2) {
            if (v >> PV__WIRE_LEN_BITS != 0)
                return false;
            out->type = num == 5 ? PV_STAT_WSTR : PV_STAT_WBYTES;
            out->v.wire = wire_ref(m, payload, v);
        } else if (num == 7 && wt == 0) {
            out->type = PV_STAT_STR;
            out->v.str = stat_name(m, pl, (int64_t)v);
        }
    }
    if (c.p != c.end)
        return false;
    out->name = stat_name(m, pl, (int64_t)mid);
    return true;
}

/* The stats (field 4) of the XEvent message [p, end), in order. */
/* Names of one plane's stat metadata ids, looked up once per event. */
typedef struct names {
    const pv_model *m;
    const pv_plane *pl;
    const uint32_t *dense;   /* id -> string id + 1, for ids < n_dense */
    uint64_t n_dense;
} names;

static inline uint32_t name_of(const names *nm, uint64_t id)
{
    if (id < nm->n_dense) {
        uint32_t v = nm->dense[id];
        return v != 0 ? v - 1 : 0;
    }
    return stat_name(nm->m, nm->pl, (int64_t)id);
}


/* The layout every producer writes (one-byte tags of known fields) in
 * one pass; false on anything else, and the caller decodes the stat with
 * wire_stat, which reads every layout. */
static inline bool fast_stat(const names *nm, const uint8_t *p, const uint8_t *end, pv_stat *out)
{
    cursor c = {p, end};
    uint64_t mid = 0, v;
    out->type = PV_STAT_I64;
    out->v.i64 = 0;
    while (c.p < c.end) {
        uint8_t tag = *c.p++;
        switch (tag) {
        case 0x08:
            if (!varint(&c, &mid))
                return false;
            break;
        case 0x11:
            if (c.end - c.p < 8)
                return false;
            memcpy(&out->v.f64, c.p, 8);
            out->type = PV_STAT_F64;
            c.p += 8;
            break;
        case 0x18:
        case 0x20:
        case 0x38:
            if (!varint(&c, &v))
                return false;
            if (tag == 0x18) {
                out->type = PV_STAT_U64;
                out->v.u64 = v;
            } else if (tag == 0x20) {
                out->type = PV_STAT_I64;
                out->v.i64 = (int64_t)v;
            } else {
                out->type = PV_STAT_STR;
                out->v.str = name_of(nm, v);
            }
            break;
        case 0x2a:
        case 0x32:
            if (!varint(&c, &v) || v > (uint64_t)(c.end - c.p) || v >> PV__WIRE_LEN_BITS)
                return false;
            out->type = tag == 0x2a ? PV_STAT_WSTR : PV_STAT_WBYTES;
            out->v.wire = wire_ref(nm->m, c.p, v);
            c.p += v;
            break;
        default:
            return false;
        }
    }
    out->name = name_of(nm, mid);
    return true;
}

/* The stats (field 4) of the XEvent message [p, end), in order; *bad
 * (may be NULL) is set when one does not parse, and reading stops there. */
static size_t read_stats(const pv_model *m, const pv_plane *pl, const uint8_t *p,
                         const uint8_t *end, pv_stat *out, size_t cap, bool *bad)
{
    const pv__model_store *st = m->priv;
    uint32_t pi = (uint32_t)(pl - m->planes);
    names nm = {m, pl, st->dense + st->dense_first[pi], st->dense_n[pi]};
    cursor c = {p, end};
    uint32_t num, wt;
    uint64_t v;
    const uint8_t *payload = NULL;
    size_t n = 0;
    while (c.p < c.end) {
        /* the event's scalars (fields 1, 2, 3, 5): varints to step over */
        uint8_t tag = *c.p;
        if (tag == 0x08 || tag == 0x10 || tag == 0x18 || tag == 0x28) {
            c.p++;
            if (!varint(&c, &v))
                goto malformed;
            continue;
        }
        if (tag == 0x22) {   /* a stats field, the common case */
            c.p++;
            if (!varint(&c, &v) || v > (uint64_t)(c.end - c.p))
                goto malformed;
            payload = c.p;
            c.p += v;
            num = 4;
            wt = 2;
        } else if (!field(&c, &num, &wt, &v, &payload)) {
            goto malformed;
        }
        if (num != 4)
            continue;
        pv_stat s;
        if (wt != 2 || (!fast_stat(&nm, payload, payload + v, &s) &&
                        !wire_stat(m, pl, payload, (size_t)v, &s)))
            goto malformed;
        if (n < cap)
            out[n] = s;
        n++;
    }
    return n;
malformed:
    if (bad != NULL)
        *bad = true;
    return n;
}

/* read_stats under a guard: a file that shrank reads as no stats. */
static size_t guarded_read_stats(const pv_model *m, const pv_plane *pl, const uint8_t *p,
                                 const uint8_t *end, pv_stat *out, size_t cap)
{
    volatile size_t n = 0;
    pv_map_guard g;
    if (PV_MAP_GUARD_ARM(&g, m->src, m->src_len) == 0)
        n = read_stats(m, pl, p, end, out, cap, NULL);
    pv_map_guard_disarm(&g);
    return n;
}

/* Where event ev's message is; false when it has none. */
static bool wire_place(const pv_model *m, uint64_t ev, const uint8_t **p, const uint8_t **end)
{
    uint64_t ref = m->ev_wire[ev];
    uint64_t off = ref >> PV__WIRE_LEN_BITS, len = ref & ((1u << PV__WIRE_LEN_BITS) - 1);
    if (len == 0 || off > m->src_len || len > m->src_len - off)
        return false;
    *p = m->src + off;
    *end = m->src + off + len;
    return true;
}

static size_t array_stats(const pv_model *m, uint64_t ev, pv_stat *out, size_t cap)
{
    size_t n = 0;
    if (m->ev_stat_off != NULL) {
        uint64_t first = m->ev_stat_off[ev], k = m->ev_stat_off[ev + 1] - first;
        for (uint64_t i = 0; i < k; i++, n++) {
            if (n < cap)
                out[n] = m->stats[first + i];
        }
    }
    return n;
}

size_t pv__event_own_stats(const pv_model *m, uint32_t plane, uint64_t ev, pv_stat *out,
                           size_t cap, bool *bad)
{
    size_t n = array_stats(m, ev, out, cap);
    const uint8_t *p, *end;
    if (m->ev_wire != NULL && wire_place(m, ev, &p, &end))
        n += read_stats(m, &m->planes[plane], p, end, n < cap ? out + n : NULL,
                        n < cap ? cap - n : 0, bad);
    return n;
}

size_t pv_model_event_own_stats(const pv_model *m, uint64_t ev, pv_stat *out, size_t cap)
{
    size_t n = array_stats(m, ev, out, cap);
    const uint8_t *p, *end;
    if (m->ev_wire != NULL && wire_place(m, ev, &p, &end)) {
        const pv_plane *pl = &m->planes[m->tracks[pv_model_event_track(m, ev)].plane];
        n += guarded_read_stats(m, pl, p, end, n < cap ? out + n : NULL, n < cap ? cap - n : 0);
    }
    return n;
}

void pv__stat_names_index(const pv_model *m, pv__model_store *s)
{
    s->dense_first = pv_xcalloc(m->n_planes + 1, sizeof *s->dense_first);
    s->dense_n = pv_xcalloc(m->n_planes + 1, sizeof *s->dense_n);
    uint64_t total = 0;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->n_stat_names == 0)
            continue;
        int64_t lo = m->stat_names[pl->first_stat_name].id;
        int64_t hi = m->stat_names[pl->first_stat_name + pl->n_stat_names - 1].id;
        /* dense only when ids are small and packed: a hostile id of 2^40
         * keeps the binary search */
        if (lo >= 0 && hi < 4 * (int64_t)pl->n_stat_names + 1024) {
            s->dense_first[p] = (uint32_t)total;
            s->dense_n[p] = (uint32_t)(hi + 1);
            total += (uint64_t)hi + 1;
        }
    }
    s->dense = pv_xcalloc(total ? total : 1, sizeof *s->dense);
    for (uint32_t p = 0; p < m->n_planes; p++) {
        const pv_plane *pl = &m->planes[p];
        for (uint32_t i = 0; i < pl->n_stat_names && s->dense_n[p] > 0; i++) {
            const pv_stat_name *sn = &m->stat_names[pl->first_stat_name + i];
            s->dense[s->dense_first[p] + (uint64_t)sn->id] = sn->name + 1;
        }
    }
    pv__store_keep(s, s->dense);
    pv__store_keep(s, s->dense_first);
    pv__store_keep(s, s->dense_n);
}

size_t pv_model_event_own_stats_into(const pv_model *m, uint64_t ev, pv_stat **buf,
                                     size_t *cap)
{
    size_t n = pv_model_event_own_stats(m, ev, *buf, *cap);
    if (n > *cap) {
        *cap = n;
        *buf = pv_xrealloc(*buf, n * sizeof **buf);
        n = pv_model_event_own_stats(m, ev, *buf, *cap);
    }
    return n;
}

#define OWN_STATS_ON_STACK 64

bool pv_model_event_stat(const pv_model *m, uint64_t ev, uint32_t name_id, pv_stat *out)
{
    pv_stat own[OWN_STATS_ON_STACK];
    size_t n = pv_model_event_own_stats(m, ev, own, OWN_STATS_ON_STACK);
    if (n > OWN_STATS_ON_STACK)
        n = OWN_STATS_ON_STACK;   /* an event with more stats than that is hostile */
    for (size_t i = n; i > 0; i--) {
        if (own[i - 1].name == name_id) {
            *out = own[i - 1];
            return true;
        }
    }
    const pv_event_meta *meta = &m->metas[m->ev_meta[ev]];
    for (uint32_t i = meta->n_stats; i > 0; i--) {
        if (m->stats[meta->first_stat + i - 1].name == name_id) {
            *out = m->stats[meta->first_stat + i - 1];
            return true;
        }
    }
    return false;
}

const char *pv_model_stat_text(const pv_model *m, const pv_stat *s, size_t *len)
{
    switch (s->type) {
    case PV_STAT_STR: {
        const char *str = pv_model_str(m, s->v.str);
        *len = strlen(str);
        return str;
    }
    case PV_STAT_BYTES:
        if (s->v.blob < m->n_blobs) {
            *len = m->blobs[s->v.blob].len;
            return (const char *)m->blobs[s->v.blob].data;
        }
        break;
    case PV_STAT_WSTR:
    case PV_STAT_WBYTES: {
        uint64_t off = s->v.wire >> PV__WIRE_LEN_BITS;
        uint64_t n = s->v.wire & ((1u << PV__WIRE_LEN_BITS) - 1);
        if (m->src != NULL && off <= m->src_len && n <= m->src_len - off) {
            *len = (size_t)n;
            return (const char *)m->src + off;
        }
        break;
    }
    default:
        break;
    }
    *len = 0;
    return NULL;
}

uint32_t pv_model_stat_str_id(const pv_model *m, const pv_stat *s)
{
    if (s->type == PV_STAT_STR)
        return s->v.str;
    if (s->type != PV_STAT_WSTR)
        return 0;
    size_t len;
    const char *text = pv_model_stat_text(m, s, &len);
    const pv__model_store *st = m->priv;
    return text != NULL && st != NULL ? pv__strtab_find(&st->strs, text, len) : 0;
}
