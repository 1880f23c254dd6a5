/* event_memory: a MemoryAllocation / MemoryDeallocation event's details,
 * decoded from its stats on each call (model.h says why they are not
 * kept). A reader of a finished model, beside event_stats.c: it applies
 * the stats with extras.c's appliers, finding strings without interning
 * them. */
#include "model/extras_priv.h"

bool pv_model_event_memory(const pv_model *m, uint64_t ev, pv_memory_details *out)
{
    const pv_event_extra *x = pv_model_event_extra(m, ev);
    if (x == NULL || !(x->flags & PV_EXTRA_MEMORY))
        return false;
    pv__model_store *s = m->priv;
    pv__xctx c = {NULL, &s->strs, true, m->src, m->src_len};
    pv__xwork w;
    pv__x_row_init(&w, (x->flags & PV_EXTRA_MEM_ALLOC) ? NAME_MEM_ALLOC : NAME_MEM_FREE,
                   PV_MEMCPY_NONE);
    const pv_event_meta *meta = &m->metas[m->ev_meta[ev]];
    pv_stat own[32];
    size_t n = pv_model_event_own_stats(m, ev, own, 32);
    for (size_t k = 0; k < meta->n_stats + n && k < meta->n_stats + 32; k++) {
        const pv_stat *st = k < meta->n_stats ? &m->stats[meta->first_stat + k]
                                              : &own[k - meta->n_stats];
        int wk = st->name < s->n_wk ? s->wk[st->name] : WK_NONE;
        if (wk >= WK_ALLOCATOR_NAME)
            pv__x_apply_memory(&c, &w, wk, st);
    }
    *out = w.memory;
    return true;
}
