/* extras_finish: well-known stats at finish (the events the builder did
 * not apply, or all of them). */
#include "model/extras_priv.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DROP_EVERY 65536u   /* events between dropping the pages read */

/* Events come in file order (the decoder's case), so the file's pages
 * below the current event are done with: dropping them keeps the
 * process's resident memory near the model's size, as the decoder does.
 * Out-of-order events only read a page twice. */
static void drop_read_pages(const pv_model *m, uint64_t upto)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t end = (size_t)upto & ~(page - 1);
    if (end > 0 && end <= m->src_len)
        madvise((void *)(uintptr_t)m->src, end, MADV_DONTNEED);
}

/* Hands the side tables and rows to the model (finish fills a NULL one). */
static void publish(pv__extras *x, pv_model *m)
{
    pv__xrows *r = &x->rows;
    m->kernels = r->kernels;
    m->n_kernels = (uint32_t)r->n_kernels;
    m->step_infos = r->steps;
    m->n_step_infos = (uint32_t)r->n_steps;
    m->extras = x->extras;
    m->n_extras = (uint32_t)x->n_extras;
    r->kernels = NULL;
    r->steps = NULL;
    x->extras = NULL;
}

void pv__extras_renumber(pv__extras *x, const uint64_t *perm, size_t n)
{
    if (x == NULL || x->contexts.n == 0 || n >= UINT32_MAX)
        return;
    uint32_t *new_id = pv_xmalloc(n * sizeof *new_id);
    for (size_t i = 0; i < n; i++)
        new_id[perm[i]] = (uint32_t)i;
    for (size_t k = 0; k < x->contexts.n; k++)
        x->contexts.v[k].ev = new_id[x->contexts.v[k].ev];
    free(new_id);
}

/* True when event e has stats of its own, in the source or in hand. */
static bool has_own_stats(const pv_model *m, uint64_t e)
{
    if (m->ev_wire != NULL && (m->ev_wire[e] & PV__WIRE_LEN_MASK) != 0)
        return true;
    return m->ev_stat_off != NULL && m->ev_stat_off[e + 1] != m->ev_stat_off[e];
}

int pv__extras_build(pv_model *m, pv__model_store *s, pv__extras *x, pv__keys *contexts,
                     pv_error *err)
{
    int rc = 0;
    /* the builder's, taken over: finish owns the model it is making */
    int32_t *group = (int32_t *)(uintptr_t)m->ev_group;
    uint32_t *extra_of = (uint32_t *)(uintptr_t)m->ev_extra;
    if (x == NULL || x->stale || extra_of == NULL) {
        /* nothing applied, or applied results that no longer hold */
        pv__extras_free(x);
        x = pv__x_new();
        size_t n = m->n_events ? m->n_events : 1;
        free(group);
        free(extra_of);
        group = pv_xmalloc(n * sizeof *group);
        extra_of = pv_xmalloc(n * sizeof *extra_of);
        for (uint64_t e = 0; e < m->n_events; e++)
            extra_of[e] = PV__EXTRA_PENDING;
    }
    pv__xctx c = {x, &s->strs, false, m->src, m->src_len};
    pv__wk_index(s);
    /* every metadata, also those without events: a group_id on any of
     * them counts for have_groups */
    for (uint32_t i = 0; i < m->n_metas; i++) {
        if (i >= x->cap_metas || !x->metas[i].ready)
            pv__x_meta_set(&c, i, m->metas[i].name, m->stats + m->metas[i].first_stat,
                          m->metas[i].n_stats);
    }
    pv_stat *own = NULL;
    size_t cap_own = 0;
    uint32_t track = 0;
    bool drop_pages = s->src_owner == PV_SRC_MAPPED || s->src_owner == PV_SRC_MAPPED_BORROWED;
    for (uint64_t e = 0; e < m->n_events; e++) {
        if (extra_of[e] != PV__EXTRA_PENDING)
            continue;
        while (e >= m->tracks[track].first_event + m->tracks[track].n_events)
            track++;
        if (drop_pages && (e & (DROP_EVERY - 1)) == 0 && m->ev_wire != NULL)
            drop_read_pages(m, m->ev_wire[e] >> PV__WIRE_LEN_BITS);
        const pv__xmeta *mi = &x->metas[m->ev_meta[e]];
        if (mi->flags == 0 && mi->contexts.has == 0 && !has_own_stats(m, e)) {
            /* what pv__x_event_begin/end make of it, for the many events
             * (a TPU profile's half) that only have a name */
            group[e] = mi->group;
            extra_of[e] = PV_NO_EXTRA;
            continue;
        }
        /* Finish runs under the decoder's SIGBUS guard, so this reads
         * unguarded. */
        bool bad = false;
        size_t n_own = pv__event_own_stats(m, m->tracks[track].plane, e, own, cap_own, &bad);
        if (n_own > cap_own && !bad) {
            pv__grow((void **)&own, &cap_own, n_own, sizeof *own);
            n_own = pv__event_own_stats(m, m->tracks[track].plane, e, own, cap_own, &bad);
        }
        if (bad) {
            rc = pv_error_set(err, PV_EFORMAT, NULL, m->ev_wire[e] >> PV__WIRE_LEN_BITS,
                              "corrupt: a stat of a %s event is not a well-formed XStat",
                              c.strs->strs[m->metas[m->ev_meta[e]].name]);
            break;
        }
        pv__xevent ev;
        pv__x_event_begin(&ev, mi);
        for (size_t k = 0; k < n_own; k++)
            pv__x_event_stat(&c, &ev, &own[k], pv__x_cls(&c, own[k].name));
        pv__x_event_end(&c, &ev, e, &group[e], &extra_of[e]);
    }
    free(own);
    m->has_group_stats = x->any_group;
    if (!x->any_group) {
        *contexts = x->contexts;
        memset(&x->contexts, 0, sizeof x->contexts);
    }
    m->ev_group = group;
    m->ev_extra = extra_of;
    publish(x, m);
    pv__extras_free(x);
    return rc;   /* on failure finish frees the half-built model */
}
