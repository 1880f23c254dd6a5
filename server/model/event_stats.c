/* event_stats: an event's own stats, read on demand. A model decoded from
 * an XSpace keeps the file mapped and each event's place in it, and this
 * file decodes the XEvent's stats from those bytes when a tool asks; a
 * model built with stats in hand (Chrome JSON, tests) keeps them in the
 * flat array. Every stat was read and checked when the file was
 * ingested, but the bytes are read again here, so every read stays in
 * bounds anyway, and a file that shrank under its mapping ends the read
 * instead of the process (util/mapguard.h). */
#include "model/model_priv.h"
#include "model/wire_stat.h"
#include "util/bsearch.h"
#include "util/mapguard.h"
#include "util/mem.h"

#include <stdatomic.h>
#include <string.h>

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
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, pl->n_stat_names, i, t[i].id < id);
    return lo < pl->n_stat_names && t[lo].id == id ? t[lo].name : 0;
}

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

/* The stats (field 4) of the XEvent message [p, end), in order; *bad
 * (may be NULL) is set when one does not parse, and reading stops there. */
static size_t read_stats(const pv_model *m, const pv_plane *pl, const uint8_t *p,
                         const uint8_t *end, pv_stat *out, size_t cap, bool *bad)
{
    const pv__model_store *st = m->priv;
    uint32_t pi = (uint32_t)(pl - m->planes);
    names nm = {m, pl, st->dense + st->dense_first[pi], st->dense_n[pi]};
    pv__wire_cursor c = {p, end, m->src, m->src + m->src_len};
    size_t n = 0;
    uint64_t mid;
    pv_stat s;
    bool ref;
    int more;
    while ((more = pv__wire_next_stat(&c, &mid, &s, &ref)) > 0) {
        /* Stored a field at a time, not as a copy of s: a copy loads the
         * name and the type as one word just after they were stored apart,
         * and waits for both stores (half of this reader's time). */
        if (n < cap) {
            pv_stat *o = &out[n];
            o->name = name_of(&nm, mid);
            o->type = s.type;
            if (ref) {
                o->v.i64 = 0;
                o->v.str = name_of(&nm, s.v.u64);
            } else {
                o->v = s.v;
            }
        }
        n++;
    }
    if (more < 0 && bad != NULL)
        *bad = true;
    return n;
}

/* Reads between two releases of the source's pages. A pass over many
 * events (the trace index's memory counters, a tool's stats) reads the
 * file a few MB per this many events, and every page it read would stay
 * counted as the process's until the request ends (the file's large page
 * cache folios map a MB and more per read). Releasing costs a walk of
 * the mapping's page tables, well under a millisecond. */
#define RELEASE_EVERY 65536u

/* read_stats under a guard: a file that shrank reads as no stats. */
static size_t guarded_read_stats(const pv_model *m, const pv_plane *pl, const uint8_t *p,
                                 const uint8_t *end, pv_stat *out, size_t cap)
{
    volatile size_t n = 0;
    pv_map_guard g;
    if (PV_MAP_GUARD_ARM(&g, m->src, m->src_len) == 0)
        n = read_stats(m, pl, p, end, out, cap, NULL);
    pv_map_guard_disarm(&g);
    pv__model_store *st = m->priv;
    uint64_t k = atomic_fetch_add_explicit(&st->src_reads, 1, memory_order_relaxed);
    if (k % RELEASE_EVERY == RELEASE_EVERY - 1)
        pv__release_source(st);
    return n;
}

/* Where event ev's message is; false when it has none. */
static bool wire_place(const pv_model *m, uint64_t ev, const uint8_t **p, const uint8_t **end)
{
    uint64_t ref = m->ev_wire[ev];
    uint64_t off = ref >> PV__WIRE_LEN_BITS, len = ref & PV__WIRE_LEN_MASK;
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
        if (pv__stat_ids_dense(lo, hi, pl->n_stat_names)) {
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

bool pv_model_event_stat_int(const pv_model *m, uint64_t ev, uint32_t name_id, int64_t *out)
{
    pv_stat s;
    if (name_id == 0 || !pv_model_event_stat(m, ev, name_id, &s))
        return false;
    if (s.type == PV_STAT_I64)
        *out = s.v.i64;
    else if (s.type == PV_STAT_U64)
        *out = (int64_t)s.v.u64;
    else
        return false;
    return true;
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
    case PV_STAT_WBYTES:
        return pv__wire_text(m->src, m->src_len, s->v.wire, len);
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
