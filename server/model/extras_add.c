/* extras_add: applying a decoded event's well-known stats as the builder
 * adds it (pv__extras_wire_event), while its bytes are in cache, with the
 * plane's stat names and the metadata's stats added so far. */
#include "model/extras_priv.h"
#include "model/wire_stat.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

/* Indexes plane's stat names for the events that follow; false when the
 * builder does not hold them in one run (then finish does the plane). */
static bool table_build(pv__xctx *c, const pv_model_builder *b, uint32_t plane)
{
    pv__extras *x = c->x;
    const pv_plane *pl = &b->planes[plane];
    if (pl->n_stat_names == UINT32_MAX)
        return false;
    const pv__plane_stat_name *names = b->stat_names + pl->first_stat_name;
    int64_t lo = 0, hi = -1;
    for (uint32_t i = 0; i < pl->n_stat_names; i++) {
        lo = names[i].sn.id < lo ? names[i].sn.id : lo;
        hi = names[i].sn.id > hi ? names[i].sn.id : hi;
    }
    bool dense = pv__stat_ids_dense(lo, hi, pl->n_stat_names);
    x->n_dense = 0;
    x->n_sparse = 0;
    pv__idmap_fini(&x->sparse);
    if (dense) {
        size_t n = (size_t)(hi + 1);
        free(x->dense);
        x->dense = pv_xcalloc(n ? n : 1, sizeof *x->dense);
        x->n_dense = n;
    }
    /* later ids win, as in a protobuf map */
    for (uint32_t i = 0; i < pl->n_stat_names; i++) {
        pv__xname pn = {names[i].sn.name, pv__x_cls(c, names[i].sn.name)};
        if (dense) {
            x->dense[names[i].sn.id] = pn;
        } else {
            PV__PUSH(x->sparse_names, x->n_sparse, x->cap_sparse, pn);
            pv__idmap_put(&x->sparse, (uint64_t)names[i].sn.id, (uint32_t)(x->n_sparse - 1));
        }
    }
    if (plane >= x->n_plane_used) {
        size_t old = x->n_plane_used;
        pv__grow((void **)&x->plane_used, &x->n_plane_used, (size_t)plane + 1, 1);
        memset(x->plane_used + old, 0, x->n_plane_used - old);
    }
    x->plane_used[plane] = 1;
    x->table_plane = plane;
    return true;
}

static inline pv__xname table_get(const pv__extras *x, uint64_t id)
{
    if (id < x->n_dense)
        return x->dense[id];
    pv__xname none = {0, WK_NONE};
    if (x->sparse.t.n == 0)
        return none;
    uint32_t i = pv__idmap_get(&x->sparse, id);
    return i == UINT32_MAX ? none : x->sparse_names[i];
}

/* meta's info, worked out from the builder's copy of its stats when this
 * is its first event; NULL when they are not in one run. */
static const pv__xmeta *builder_meta_info(pv__xctx *c, const pv_model_builder *b, uint32_t meta)
{
    pv__extras *x = c->x;
    if (meta < x->cap_metas && x->metas[meta].ready)
        return &x->metas[meta];
    const pv_event_meta *em = &b->metas[meta];
    if (em->n_stats == UINT32_MAX)
        return NULL;
    pv_stat local[16] = {{0}};
    pv_stat *stats = em->n_stats <= 16 ? local : pv_xmalloc(em->n_stats * sizeof *stats);
    for (uint32_t k = 0; k < em->n_stats; k++)
        stats[k] = b->meta_stats[em->first_stat + k].stat;
    const pv__xmeta *mi = pv__x_meta_set(c, meta, em->name, stats, em->n_stats);
    if (stats != local)
        free(stats);
    return mi;
}

static void columns_need(pv_model_builder *b)
{
    if (b->ev_extra != NULL)
        return;
    size_t cap = b->cap_events ? b->cap_events : 1;
    b->ev_group = pv_xmalloc(cap * sizeof *b->ev_group);
    b->ev_extra = pv_xmalloc(cap * sizeof *b->ev_extra);
    for (size_t e = 0; e < b->n_events; e++)
        b->ev_extra[e] = PV__EXTRA_PENDING;
}

int pv_builder_wire_read(const uint8_t *src, size_t src_len, uint64_t offset, uint64_t len,
                         pv_wire_stat *out, size_t cap)
{
    if (offset > src_len || len > src_len - offset)
        return -1;
    pv__wire_cursor wc = {src + offset, src + offset + len, src, src + src_len};
    size_t n = 0;
    uint64_t mid;
    pv_stat s;
    bool ref;
    int more;
    /* Each field is stored on its own, from the reader's results as they
     * were stored (a load of a whole stat across the reader's separate
     * stores would wait for them to reach the cache). */
    while ((more = pv__wire_next_stat(&wc, &mid, &s, &ref)) > 0) {
        if (n == cap || mid > UINT32_MAX)
            return -1;
        out[n].v = s.v.u64;
        out[n].mid = (uint32_t)mid;
        out[n].type = (uint8_t)s.type;
        out[n].ref = ref;
        n++;
    }
    return more < 0 ? -1 : (int)n;
}

/* One stat of ev, its metadata id mid unresolved. Always inlined, as
 * pv__wire_next_stat is (wire_stat.h): once a stat, the call cost more
 * than what it does. */
__attribute__((always_inline)) static inline void wire_stat(pv__xctx *c, pv__xevent *e,
                                                            uint64_t mid, uint32_t type,
                                                            uint64_t v, bool ref)
{
    pv__xname pn = table_get(c->x, mid);
    if (pn.cls == WK_NONE)
        return;
    pv_stat s;
    s.name = pn.sid;
    s.type = type;
    if (ref) {
        s.v.i64 = 0;
        s.v.str = table_get(c->x, v).sid;
    } else {
        s.v.u64 = v;
    }
    pv__x_event_stat(c, e, &s, pn.cls);
}

bool pv__extras_wire_event(pv_model_builder *b, uint64_t ev, const uint8_t *p,
                           const uint8_t *end, const pv_wire_stat *st, size_t n)
{
    if (b->extras == NULL) {
        /* Most events of a profile get a row (kernels, ops): room for the
         * builder's guess of its events spares copies of a growing table. */
        b->extras = pv__x_new();
        pv__grow((void **)&b->extras->extras, &b->extras->cap_extras, b->cap_events,
                 sizeof *b->extras->extras);
    }
    pv__extras *x = b->extras;
    if (x->stale)
        return true;   /* finish reads and checks every event again */
    pv__xctx c = {x, &b->strs, false, b->src, b->src_len};
    uint32_t meta = b->ev_meta[ev];
    uint32_t plane = b->metas[meta].plane;
    const pv__xmeta *mi = NULL;
    if ((x->table_plane != plane && !table_build(&c, b, plane)) ||
        (mi = builder_meta_info(&c, b, meta)) == NULL) {
        x->stale = true;
        return true;
    }
    columns_need(b);
    pv__xevent e;
    pv__x_event_begin(&e, mi);
    if (st != NULL) {
        for (size_t k = 0; k < n; k++)
            wire_stat(&c, &e, st[k].mid, st[k].type, st[k].v, st[k].ref);
    } else {
        pv__wire_cursor wc = {p, end, b->src, b->src + b->src_len};
        uint64_t mid;
        pv_stat s;
        bool ref;
        int more;
        while ((more = pv__wire_next_stat(&wc, &mid, &s, &ref)) > 0)
            wire_stat(&c, &e, mid, s.type, s.v.u64, ref);
        if (more < 0)
            return false;
    }
    pv__x_event_end(&c, &e, ev, &b->ev_group[ev], &b->ev_extra[ev]);
    return true;
}
