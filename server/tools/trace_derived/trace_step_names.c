/* trace_step_names: which events XProf shows by a step's name (see the
 * header), found once for both of the trace's writers. */
#include "tools/trace_derived/trace_step_names.h"

#include "util/bsearch.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

bool pv_trace_step_implicit_root(const char *name)
{
    static const char *const implicit_roots[] = {"FunctionRun", "SessionRun", "RunGraph",
                                                 "ExecutorState::Process", NULL};
    for (size_t k = 0; implicit_roots[k] != NULL; k++)
        if (strcmp(name, implicit_roots[k]) == 0)
            return true;
    return false;
}

/* The first whole-number own stat of e named name (file order), as the
 * reference reads _r. */
static bool own_int(const pv_model *m, uint64_t e, uint32_t name, pv_stat **buf, size_t *cap,
                    uint64_t *v)
{
    if (name == 0)
        return false;
    size_t n = pv_model_event_own_stats_into(m, e, buf, cap);
    for (size_t i = 0; i < n; i++) {
        const pv_stat *s = &(*buf)[i];
        if (s->name == name && (s->type == PV_STAT_I64 || s->type == PV_STAT_U64)) {
            *v = s->type == PV_STAT_I64 ? (uint64_t)s->v.i64 : s->v.u64;
            return true;
        }
    }
    return false;
}

const uint64_t *pv_trace_group_roots(const pv_model *m, pv_arena *a)
{
    uint64_t *root = pv_arena_alloc(a, (m->n_groups + 1) * sizeof *root);
    int64_t *level = pv_arena_alloc(a, (m->n_groups + 1) * sizeof *level);
    for (uint32_t g = 0; g < m->n_groups; g++)
        root[g] = PV_TRACE_NO_ROOT;
    uint32_t s_r = pv_model_str_find(m, "_r");
    pv_stat *buf = NULL;
    size_t cap = 0;
    for (uint64_t e = 0; e < m->n_events; e++) {
        const pv_event_extra *x = pv_model_event_extra(m, e);
        if (x == NULL || !(x->flags & PV_EXTRA_STEP_ROOT) || m->ev_group[e] == PV_NO_GROUP)
            continue;
        const pv_step_group *sg = pv_model_group_find(m, m->ev_group[e]);
        if (sg == NULL)
            continue;
        size_t g = (size_t)(sg - m->groups);
        uint64_t lv = 1;
        own_int(m, e, s_r, &buf, &cap, &lv);
        uint64_t r = root[g];
        bool better = r == PV_TRACE_NO_ROOT || (int64_t)lv > level[g] ||
                      ((int64_t)lv == level[g] && m->ev_start_ps[e] < m->ev_start_ps[r]);
        if (better) {
            root[g] = e;
            level[g] = (int64_t)lv;
        }
    }
    free(buf);
    return root;
}

uint32_t pv_trace_step_name_stat(const pv_model *m, uint32_t s_step_name, uint64_t e)
{
    pv_stat sn;
    /* A string step_name stat, its own or its metadata's, is kept in the
     * event's step fields, so an event without one there has none to read
     * (an integer one would give no string id either). */
    const pv_event_extra *x = pv_model_event_extra(m, e);
    if (s_step_name == 0 || pv_model_step_info(m, x)->step_name == 0 ||
        !pv_model_event_stat(m, e, s_step_name, &sn))
        return 0;
    return pv_model_stat_str_id(m, &sn);
}

uint32_t pv_trace_root_step_name(const pv_model *m, const uint64_t *roots, uint64_t e)
{
    if (m->ev_group[e] == PV_NO_GROUP)
        return 0;
    const pv_step_group *sg = pv_model_group_find(m, m->ev_group[e]);
    if (sg == NULL || sg->name == 0 || roots[sg - m->groups] != e)
        return 0;
    const pv_event_meta *meta = &m->metas[m->ev_meta[e]];
    if (pv_trace_step_implicit_root(pv_model_str(m, meta->name)))
        return 0;
    return sg->name;
}

/* ---- every renamed event ------------------------------------------------------- */

typedef struct renamed {
    uint64_t ev;
    uint32_t name;
} renamed;

static bool renamed_before(const renamed *a, const renamed *b)
{
    return a->ev < b->ev;
}

PV_MERGE_SORT(sort_renamed, renamed, renamed_before)

void pv_trace_step_names_make(const pv_model *m, pv_trace_step_names *out)
{
    memset(out, 0, sizeof *out);
    out->meta_has = pv_xcalloc((size_t)m->n_metas + 1, 1);
    renamed *v = NULL;
    size_t n = 0, cap = 0;
    uint32_t s_step_name = pv_model_str_find(m, "step_name");
    /* the step_name stats: on the few events whose step fields hold one */
    for (uint64_t e = 0; s_step_name != 0 && e < m->n_events; e++) {
        const pv_event_extra *x = pv_model_event_extra(m, e);
        if (x == NULL || x->step == PV_NO_STEP)
            continue;
        uint32_t id = pv_trace_step_name_stat(m, s_step_name, e);
        if (id == 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            v = pv_xrealloc(v, cap * sizeof *v);
        }
        v[n++] = (renamed){e, id};
    }
    size_t by_stat = n;   /* in event order already */
    /* the roots, when the model grouped the file itself */
    if (!m->has_group_stats && m->n_groups > 0) {
        pv_arena a;
        pv_arena_init(&a, 4096);
        const uint64_t *roots = pv_trace_group_roots(m, &a);
        for (uint32_t g = 0; g < m->n_groups; g++) {
            uint64_t e = roots[g];
            if (e == PV_TRACE_NO_ROOT)
                continue;
            uint32_t id = pv_trace_root_step_name(m, roots, e);
            /* a step_name stat wins (found above, by event) */
            size_t at = 0;
            PV_LOWER_BOUND(size_t, at, by_stat, i, v[i].ev < e);
            if (id == 0 || (at < by_stat && v[at].ev == e))
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                v = pv_xrealloc(v, cap * sizeof *v);
            }
            v[n++] = (renamed){e, id};
        }
        pv_arena_fini(&a);
    }
    if (n > 1)
        sort_renamed(v, n);
    out->n = n;
    out->ev = pv_xmalloc((n + 1) * sizeof *out->ev);
    out->name = pv_xmalloc((n + 1) * sizeof *out->name);
    for (size_t i = 0; i < n; i++) {
        out->ev[i] = v[i].ev;
        out->name[i] = v[i].name;
        out->meta_has[m->ev_meta[v[i].ev]] = 1;
    }
    free(v);
}

void pv_trace_step_names_fini(pv_trace_step_names *s)
{
    free(s->ev);
    free(s->name);
    free(s->meta_has);
    memset(s, 0, sizeof *s);
}

size_t pv_trace_step_names_bytes(const pv_trace_step_names *s, const pv_model *m)
{
    return (s->n + 1) * (sizeof *s->ev + sizeof *s->name) + (size_t)m->n_metas + 1;
}
