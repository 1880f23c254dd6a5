/* group: step grouping (FORMATS.md §3.7). When the file already carries
 * group_id stats (TF/XLA post-processing wrote them) they are used as is
 * and only the group table is filled. Otherwise group ids are computed
 * the way the reference does for GPU/CPU profiles: a forest from time
 * nesting plus launch->execute (correlation_id), producer->consumer
 * (_pt/_p -> _ct/_c) and ExecutorState::Process -> IteratorGetNext
 * edges; roots from _r / TraceContext sorted by level then start; a BFS
 * from each root labels what has no group yet.
 *
 * When TF while-loop iterations exist, their earliest events are the
 * roots instead (§3.7 step 4, alternative).
 *
 * Not done (TODO(#2)): the tf.data captured-function root filter of §3.7
 * step 4, and eagerness (step 7). */
#include "model/model_priv.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT64_MAX
#define CONTEXT_FANOUT_MAX 64   /* §3.7: wider producer/consumer contexts are noise */
#define EDGES_PER_KEY_MAX 4096

typedef struct edge {
    uint64_t from, to;
} edge;

typedef struct keyed {
    uint64_t k1, k2;        /* (type, id) or (id, iter_num) */
    uint64_t ev;
    int side;               /* 0 producer/parent, 1 consumer/child */
} keyed;

typedef struct graph {
    edge *edges;
    size_t n_edges, cap_edges;
    keyed *keys;
    size_t n_keys, cap_keys;
} graph;

static uint32_t sid(const pv__model_store *s, const char *name)
{
    return pv__strtab_find(&s->strs, name, strlen(name));
}

static bool ev_int(const pv_model *m, uint64_t e, uint32_t name, int64_t *v)
{
    if (name == 0)
        return false;
    pv_stat st;
    if (!pv_model_event_stat(m, e, name, &st))
        return false;
    if (st.type == PV_STAT_I64)
        *v = st.v.i64;
    else if (st.type == PV_STAT_U64)
        *v = (int64_t)st.v.u64;
    else
        return false;
    return true;
}

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    if (x->k2 != y->k2)
        return x->k2 < y->k2 ? -1 : 1;
    if (x->side != y->side)
        return x->side - y->side;
    return x->ev < y->ev ? -1 : (x->ev > y->ev);
}

/* Adds an edge from every side-0 entry to every side-1 entry with the
 * same key, skipping keys with too many on both sides. */
static void match_keys(graph *g)
{
    pv_sort(g->keys, g->n_keys, sizeof *g->keys, keyed_cmp);
    size_t i = 0;
    while (i < g->n_keys) {
        size_t j = i, mid = i;
        while (j < g->n_keys && g->keys[j].k1 == g->keys[i].k1 && g->keys[j].k2 == g->keys[i].k2) {
            if (g->keys[j].side == 0)
                mid = j + 1;
            j++;
        }
        size_t n_from = mid - i, n_to = j - mid;
        /* The product cap keeps a hostile file from asking for n^2 edges. */
        bool wide = n_from >= CONTEXT_FANOUT_MAX && n_to >= CONTEXT_FANOUT_MAX;
        if (!wide && n_from * n_to <= EDGES_PER_KEY_MAX) {
            for (size_t a = i; a < mid; a++) {
                for (size_t b = mid; b < j; b++) {
                    edge e = {g->keys[a].ev, g->keys[b].ev};
                    PV__PUSH(g->edges, g->n_edges, g->cap_edges, e);
                }
            }
        }
        i = j;
    }
    g->n_keys = 0;
}

static void add_key(graph *g, uint64_t k1, uint64_t k2, uint64_t ev, int side)
{
    keyed k = {k1, k2, ev, side};
    PV__PUSH(g->keys, g->n_keys, g->cap_keys, k);
}

/* Collects the inter-thread edges of §3.7 step 3. */
static void collect_edges(const pv_model *m, const pv__model_store *s, graph *g)
{
    uint32_t pt = sid(s, "_pt"), p = sid(s, "_p"), ct = sid(s, "_ct"), c = sid(s, "_c");
    uint32_t id = sid(s, "id"), iter = sid(s, "iter_num");
    uint32_t exec = sid(s, "ExecutorState::Process");
    uint32_t next1 = sid(s, "IteratorGetNextOp::DoCompute");
    uint32_t next2 = sid(s, "IteratorGetNextAsOptionalOp::DoCompute");
    for (uint32_t t = 0; t < m->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        bool host = m->planes[tr->plane].kind == PV_PLANE_HOST;
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            const pv_event_extra *x = pv_model_event_extra(m, e);
            if (x != NULL && (x->flags & PV_EXTRA_CORRELATION))
                add_key(g, 1, x->correlation_id, e, host ? 0 : 1);
            int64_t a, b;
            if (ev_int(m, e, pt, &a) && ev_int(m, e, p, &b))
                add_key(g, 2 + ((uint64_t)a << 8), (uint64_t)b, e, 0);
            if (ev_int(m, e, ct, &a) && ev_int(m, e, c, &b))
                add_key(g, 2 + ((uint64_t)a << 8), (uint64_t)b, e, 1);
            uint32_t name = m->metas[m->ev_meta[e]].name;
            if (name != 0 && (name == exec || name == next1 || name == next2) &&
                ev_int(m, e, id, &a) && ev_int(m, e, iter, &b))
                add_key(g, 3 + ((uint64_t)a << 8), (uint64_t)b, e, name == exec ? 0 : 1);
        }
    }
    match_keys(g);
}

/* ---- roots and BFS ------------------------------------------------------- */

typedef struct root {
    int64_t level;
    int64_t start_ps;
    uint64_t ev;
} root;

static int root_cmp(const void *a, const void *b)
{
    const root *x = a, *y = b;
    if (x->level != y->level)
        return x->level > y->level ? -1 : 1;
    if (x->start_ps != y->start_ps)
        return x->start_ps < y->start_ps ? -1 : 1;
    return x->ev < y->ev ? -1 : (x->ev > y->ev);
}

/* §3.7 step 4, the while-loop alternative: ExecutorState::Process events
 * carrying (id, iter_num), for ids that iterate past 0. Each iteration's
 * earliest event becomes a root with an edge to the iteration's other
 * events. Returns the roots and their count, or NULL and 0. */
static root *loop_roots(const pv_model *m, const pv__model_store *s, graph *g, size_t *n_out)
{
    uint32_t exec = sid(s, "ExecutorState::Process"), id = sid(s, "id");
    uint32_t iter = sid(s, "iter_num");
    *n_out = 0;
    if (exec == 0 || id == 0 || iter == 0)
        return NULL;
    for (uint64_t e = 0; e < m->n_events; e++) {
        int64_t a, b;
        if (m->metas[m->ev_meta[e]].name == exec && ev_int(m, e, id, &a) &&
            ev_int(m, e, iter, &b))
            add_key(g, (uint64_t)a, (uint64_t)b, e, 0);
    }
    pv_sort(g->keys, g->n_keys, sizeof *g->keys, keyed_cmp);
    root *roots = NULL;
    size_t n_roots = 0, cap_roots = 0;
    for (size_t i = 0; i < g->n_keys;) {
        size_t id_end = i;
        bool iterates = false;
        while (id_end < g->n_keys && g->keys[id_end].k1 == g->keys[i].k1) {
            iterates |= g->keys[id_end].k2 != 0;
            id_end++;
        }
        for (size_t j = i; iterates && j < id_end;) {
            size_t it_end = j, first = j;
            while (it_end < id_end && g->keys[it_end].k2 == g->keys[j].k2) {
                if (m->ev_start_ps[g->keys[it_end].ev] < m->ev_start_ps[g->keys[first].ev])
                    first = it_end;
                it_end++;
            }
            root r = {1, m->ev_start_ps[g->keys[first].ev], g->keys[first].ev};
            PV__PUSH(roots, n_roots, cap_roots, r);
            for (size_t k = j; k < it_end; k++) {
                if (k == first)
                    continue;
                edge ed = {g->keys[first].ev, g->keys[k].ev};
                PV__PUSH(g->edges, g->n_edges, g->cap_edges, ed);
            }
            j = it_end;
        }
        i = id_end;
    }
    g->n_keys = 0;
    *n_out = n_roots;
    return roots;
}

static bool loop_ops_present(const pv_model *m, const pv__model_store *s)
{
    static const char *const loops[] = {"WhileOp-EvalCond", "WhileOp-StartBody", "ForOp",
                                        "ParallelForOp", "ForeverOp"};
    for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) {
        uint32_t id = sid(s, loops[i]);
        if (id == 0)
            continue;
        for (uint32_t k = 0; k < m->n_metas; k++) {
            if (m->metas[k].name == id)
                return true;
        }
    }
    return false;
}

/* Group name "<graph_type or root name> <iter_num|step_num|group id>". */
static pv_step_group name_group(const pv_model *m, pv__model_store *s, const uint64_t *parent,
                                uint64_t r, int64_t group_id)
{
    uint32_t graph_type = sid(s, "graph_type");
    uint32_t iter = sid(s, "iter_num"), step = sid(s, "step_num");
    uint32_t prefix = 0;
    int64_t num = group_id;
    bool have_num = false;
    for (uint64_t e = r; e != NONE; e = parent[e]) {
        pv_stat gt;
        size_t len;
        const char *text;
        if (prefix == 0 && graph_type != 0 && pv_model_event_stat(m, e, graph_type, &gt)) {
            /* the model's strings are not published yet: intern, not look up */
            if (gt.type == PV_STAT_STR)
                prefix = gt.v.str;
            else if (gt.type == PV_STAT_WSTR && (text = pv_model_stat_text(m, &gt, &len)) != NULL)
                prefix = pv__strtab_intern(&s->strs, text, len);
        }
        if (!have_num)
            have_num = ev_int(m, e, iter, &num) || ev_int(m, e, step, &num);
    }
    if (prefix == 0)
        prefix = m->metas[m->ev_meta[r]].name;
    char buf[64];
    int n = snprintf(buf, sizeof buf, " %lld", (long long)num);
    const char *p = s->strs.strs[prefix];
    size_t plen = strlen(p);
    char *name = pv_xmalloc(plen + (size_t)n + 1);
    memcpy(name, p, plen);
    memcpy(name + plen, buf, (size_t)n + 1);
    pv_step_group g = {group_id, pv__strtab_intern(&s->strs, name, plen + (size_t)n), num};
    free(name);
    return g;
}

static void compute_groups(pv_model *m, pv__model_store *s, const uint64_t *parent,
                           int32_t *group, pv_step_group **groups, size_t *n_groups)
{
    size_t n = m->n_events;
    graph g = {0};
    collect_edges(m, s, &g);
    size_t n_roots = 0;
    root *roots = loop_roots(m, s, &g, &n_roots);

    /* children CSR: nesting children then edge targets */
    uint64_t *off = pv_xcalloc(n + 1, sizeof *off);
    for (uint64_t e = 0; e < n; e++) {
        const pv_event_extra *x = pv_model_event_extra(m, e);
        bool async = x != NULL && (x->flags & PV_EXTRA_ASYNC);
        if (parent[e] != NONE && !async)
            off[parent[e] + 1]++;
    }
    for (size_t i = 0; i < g.n_edges; i++)
        off[g.edges[i].from + 1]++;
    for (size_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    uint64_t *kids = pv_xmalloc((off[n] ? off[n] : 1) * sizeof *kids);
    uint64_t *fill = pv_xmalloc((n ? n : 1) * sizeof *fill);
    memcpy(fill, off, n * sizeof *fill);
    for (uint64_t e = 0; e < n; e++) {
        const pv_event_extra *x = pv_model_event_extra(m, e);
        bool async = x != NULL && (x->flags & PV_EXTRA_ASYNC);
        if (parent[e] != NONE && !async)
            kids[fill[parent[e]]++] = e;
    }
    for (size_t i = 0; i < g.n_edges; i++)
        kids[fill[g.edges[i].from]++] = g.edges[i].to;
    free(g.edges);
    free(g.keys);

    uint32_t r_name = sid(s, "_r");
    size_t cap_roots = n_roots;
    bool marked = n_roots == 0;   /* loop roots, when any, replace marked ones */
    for (uint64_t e = 0; marked && e < n; e++) {
        const pv_event_extra *x = pv_model_event_extra(m, e);
        if (x == NULL || !(x->flags & PV_EXTRA_STEP_ROOT))
            continue;
        int64_t level = 1;
        ev_int(m, e, r_name, &level);
        root r = {level, m->ev_start_ps[e], e};
        PV__PUSH(roots, n_roots, cap_roots, r);
    }
    pv_sort(roots, n_roots, sizeof *roots, root_cmp);

    size_t cap_groups = 0;
    uint64_t *queue = fill;   /* reused: each event is queued at most once */
    for (size_t i = 0; i < n_roots; i++) {
        uint64_t r = roots[i].ev;
        if (group[r] != PV_NO_GROUP || *n_groups >= (size_t)INT32_MAX)
            continue;
        bool shadowed = false;
        for (uint64_t a = parent[r]; a != NONE && !shadowed; a = parent[a]) {
            const pv_event_extra *x = pv_model_event_extra(m, a);
            int64_t level = 1;
            if (x != NULL && (x->flags & PV_EXTRA_STEP_ROOT)) {
                ev_int(m, a, r_name, &level);
                shadowed = level == roots[i].level;
            }
        }
        if (shadowed)
            continue;
        int32_t gid = (int32_t)*n_groups;
        pv_step_group sg = name_group(m, s, parent, r, gid);
        PV__PUSH(*groups, *n_groups, cap_groups, sg);
        size_t head = 0, tail = 0;
        group[r] = gid;
        queue[tail++] = r;
        while (head < tail) {
            uint64_t e = queue[head++];
            for (uint64_t k = off[e]; k < off[e + 1]; k++) {
                if (group[kids[k]] == PV_NO_GROUP) {
                    group[kids[k]] = gid;
                    queue[tail++] = kids[k];
                }
            }
        }
    }
    free(roots);
    free(kids);
    free(fill);
    free(off);
}

/* Groups named by the file: step_name / iter_num / step_num of an event
 * in the group, first one found in event order. */
static void table_from_file(const pv_model *m, const int32_t *group, pv_step_group **groups,
                            size_t *n_groups)
{
    int32_t max_gid = -1;
    for (uint64_t e = 0; e < m->n_events; e++) {
        if (group[e] > max_gid)
            max_gid = group[e];
    }
    if (max_gid < 0)
        return;
    /* Group ids are small in practice; a sparse table guards the rest. */
    size_t n_ids = (size_t)max_gid + 1;
    uint32_t *slot = NULL;
    bool dense = n_ids <= 4 * (m->n_events + 16);
    if (dense) {
        slot = pv_xmalloc(n_ids * sizeof *slot);
        memset(slot, 0xff, n_ids * sizeof *slot);
    }
    size_t cap = 0;
    pv__idmap sparse = {0};
    uint8_t *rank = NULL;    /* per group: 0 group id, 1 iter_num, 2 step_num */
    size_t cap_rank = 0;
    for (uint64_t e = 0; e < m->n_events; e++) {
        if (group[e] == PV_NO_GROUP)
            continue;
        uint32_t k = dense ? slot[group[e]] : pv__idmap_get(&sparse, (uint64_t)group[e]);
        if (k == UINT32_MAX) {
            pv_step_group sg = {group[e], 0, group[e]};
            PV__PUSH(*groups, *n_groups, cap, sg);
            k = (uint32_t)(*n_groups - 1);
            uint8_t zero = 0;
            size_t n_rank = k;
            PV__PUSH(rank, n_rank, cap_rank, zero);
            if (dense)
                slot[group[e]] = k;
            else
                pv__idmap_put(&sparse, (uint64_t)group[e], k);
        }
        const pv_step_info *x = pv_model_step_info(m, pv_model_event_extra(m, e));
        pv_step_group *sg = &(*groups)[k];
        if (sg->name == 0 && x->step_name != 0)
            sg->name = x->step_name;
        /* step_num is the user's step counter; iter_num is a loop
         * iteration, used only when no event of the group says more. */
        if (x->step_num >= 0 && rank[k] < 2) {
            sg->step_num = x->step_num;
            rank[k] = 2;
        } else if (x->iter_num >= 0 && rank[k] < 1) {
            sg->step_num = x->iter_num;
            rank[k] = 1;
        }
    }
    free(rank);
    free(slot);
    pv__idmap_fini(&sparse);
}

static int group_cmp(const void *a, const void *b)
{
    const pv_step_group *x = a, *y = b;
    return x->group_id < y->group_id ? -1 : (x->group_id > y->group_id);
}

int pv__group_build(pv_model *m, pv__model_store *s, const uint64_t *parent, bool have_groups,
                    pv_error *err)
{
    (void)err;
    int32_t *group = (int32_t *)m->ev_group;
    pv_step_group *groups = NULL;
    size_t n_groups = 0;
    if (have_groups)
        table_from_file(m, group, &groups, &n_groups);
    else if (parent != NULL && !loop_ops_present(m, s))
        compute_groups(m, s, parent, group, &groups, &n_groups);
    pv_sort(groups, n_groups, sizeof *groups, group_cmp);
    if (groups == NULL)
        groups = pv_xcalloc(1, sizeof *groups);   /* never NULL, see finish.c */
    pv__store_keep(s, groups);
    m->groups = groups;
    m->n_groups = (uint32_t)n_groups;
    return 0;
}
