/* group_eager: eagerness (FORMATS.md §3.7 step 7), as the reference marks
 * it while grouping a file TensorFlow did not group: a TF op run or a
 * kernel (a device event with a correlation_id and no other type) is
 * eager when the nearest EagerExecute up the forest (itself included,
 * breadth first over nesting and launch edges) ran op by op, i.e. has an
 * is_func stat equal to 0. A kernel reaches its EagerExecute through its
 * launch, which no line walk can see.
 *
 * The result is PV_EXTRA_EAGER in the event's extra row, as for a file
 * that carries is_eager = 1; an eager event without a row gets one. */
#include "model/group_forest.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

/* Ancestors looked at per event: EagerExecute sits a few levels up when
 * it is there at all, so a longer walk only costs time on graph-mode
 * events that have none. */
#define EAGER_VISITS_MAX 4096

typedef struct eager_ctx {
    const pv_model *m;
    const uint8_t *kinds;
} eager_ctx;

static bool is_eager_execute(const void *ctx, uint64_t e)
{
    const eager_ctx *c = ctx;
    return (c->kinds[c->m->ev_meta[e]] & PV__GK_EAGER_EXECUTE) != 0;
}

/* The reference counts a function as compiled unless is_func says 0. */
static bool runs_op_by_op(const pv_model *m, uint32_t is_func, uint64_t e)
{
    pv_stat st;
    if (is_func == 0 || !pv_model_event_stat(m, e, is_func, &st))
        return false;
    return (st.type == PV_STAT_I64 && st.v.i64 == 0) || (st.type == PV_STAT_U64 && st.v.u64 == 0);
}

/* Whether event e needs a row of its own before its flags change: it
 * has none, or one other events may share (model_priv.h). */
static bool needs_own_row(const pv_model *m, uint64_t e)
{
    uint32_t x = m->ev_extra[e];
    return x == PV_NO_EXTRA || pv__extra_is_shareable(&m->extras[x]);
}

/* Sets PV_EXTRA_EAGER on each of the n events in evs, giving the ones
 * without an extra row of their own a fresh row (defaults as extras.c
 * writes them, or a copy of the shared row). */
static void mark(pv_model *m, pv__model_store *s, const uint64_t *evs, size_t n)
{
    uint32_t *ev_extra = (uint32_t *)m->ev_extra;
    size_t n_new = 0;
    for (size_t i = 0; i < n; i++)
        n_new += needs_own_row(m, evs[i]);
    if ((size_t)m->n_extras + n_new >= PV_NO_EXTRA)
        n_new = 0;   /* cannot be numbered: the rowless ones stay unmarked */
    pv_event_extra *extras = (pv_event_extra *)m->extras;
    if (n_new > 0) {
        pv_event_extra *grown = pv_xrealloc(extras, (m->n_extras + n_new) * sizeof *grown);
        /* The store frees what it keeps: it must keep the moved array. */
        for (size_t i = 0; i < s->n_arrays; i++)
            if (s->arrays[i] == extras)
                s->arrays[i] = grown;
        extras = grown;
        m->extras = grown;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t e = evs[i];
        if (needs_own_row(m, e)) {
            if (n_new == 0)
                continue;
            pv_event_extra *x = &extras[m->n_extras];
            if (ev_extra[e] == PV_NO_EXTRA) {
                memset(x, 0, sizeof *x);
                x->detail = UINT32_MAX;
                x->step = PV_NO_STEP;
            } else {
                *x = extras[ev_extra[e]];
            }
            ev_extra[e] = m->n_extras++;
        }
        extras[ev_extra[e]].flags |= PV_EXTRA_EAGER;
    }
}

void pv__group_mark_eager(pv_model *m, pv__model_store *s, const pv__forest *f, pv__walk *w,
                          const uint8_t *kinds, const uint8_t *tpu_roles)
{
    bool any = false;
    for (uint32_t i = 0; i < m->n_metas && !any; i++)
        any = (kinds[i] & PV__GK_EAGER_EXECUTE) != 0;
    if (!any)
        return;   /* nothing can be eager: skip the walks */
    uint32_t is_func = pv__strtab_find(&s->strs, "is_func", 7);
    eager_ctx c = {m, kinds};
    uint64_t *eager = NULL;
    size_t n_eager = 0, cap_eager = 0;
    for (uint32_t t = 0; t < m->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        bool host = m->planes[tr->plane].kind == PV_PLANE_HOST;
        if (tpu_roles != NULL && tpu_roles[tr->plane] != PV__TPU_NONE)
            continue;
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            uint8_t kind = kinds[m->ev_meta[e]];
            const pv_event_extra *x = pv_model_event_extra(m, e);
            bool kernel = !host && !(kind & PV__GK_TYPED) && x != NULL &&
                          (x->flags & PV_EXTRA_CORRELATION);
            if (!(kind & PV__GK_TF_OP) && !kernel)
                continue;
            uint64_t ee =
                pv__forest_find_up(f, w, e, true, is_eager_execute, &c, EAGER_VISITS_MAX);
            if (ee != PV__NO_EVENT && runs_op_by_op(m, is_func, ee))
                PV__PUSH(eager, n_eager, cap_eager, e);
        }
    }
    mark(m, s, eager, n_eager);
    free(eager);
}
