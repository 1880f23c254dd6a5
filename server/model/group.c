/* group: step grouping (FORMATS.md §3.7). When the file already carries
 * group_id stats (TF/XLA post-processing wrote them) they are used as is
 * and only the group table is filled. Otherwise group ids are computed
 * the way the reference does (openxla group_events.cc, GroupTfEvents):
 * a forest from line nesting plus launch->execute (correlation_id),
 * producer->consumer (_pt/_p -> _ct/_c) and ExecutorState::Process ->
 * IteratorGetNext edges (group_forest.c); roots from _r / TraceContext,
 * less those whose `id` is a tf.data captured function's step id, sorted
 * by level then start; a root with an ancestor root of its level is left
 * to that ancestor; group ids 0, 1, ... in root order, each spread down
 * the forest to what has no group yet. When TF while-loop iterations
 * exist, their earliest events are the roots instead. Then eagerness
 * (group_eager.c) and, on TPU planes, the device steps (group_tpu.c). */
#include "model/group_forest.h"
#include "util/bsearch.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTEXT_FANOUT_MAX 64   /* §3.7: wider producer/consumer contexts are noise */
/* Within the reference's fan-out rule a context still costs up to 63
 * edges per event; this keeps a hostile file's single context from
 * costing more than a real profile's whole trace. */
#define EDGES_PER_KEY_MAX 65536
/* An upward question (root ancestry, group name) looks at no more events
 * than this; real ancestries are a few dozen. */
#define WALK_VISITS_MAX 65536

/* String ids of the stats grouping reads; 0 when the file has none. */
typedef struct names {
    uint32_t id, iter, step, graph_type, r;
} names;

static uint32_t sid(const pv__model_store *s, const char *name)
{
    return pv__strtab_find(&s->strs, name, strlen(name));
}

static void names_init(names *n, const pv__model_store *s)
{
    n->id = sid(s, "id");
    n->iter = sid(s, "iter_num");
    n->step = sid(s, "step_num");
    n->graph_type = sid(s, "graph_type");
    n->r = sid(s, "_r");
}

static bool ev_int(const pv_model *m, uint64_t e, uint32_t name, int64_t *v)
{
    pv_stat st;
    return name != 0 && pv_model_event_stat(m, e, name, &st) && pv__stat_int(&st, v);
}

/* ---- the file's own fields (the model's typed step stats) ---------------- */

/* The typed flags of event e (PV_EXTRA_*), 0 when it has no extra row. */
static uint32_t ev_flags(const pv_model *m, uint64_t e)
{
    const pv_event_extra *x = pv_model_event_extra(m, e);
    return x != NULL ? x->flags : 0;
}

/* The step fields TF wrote on event e: step_name id (0 none), step_num
 * and iter_num (-1 none). */
static void ev_step_fields(const pv_model *m, uint64_t e, uint32_t *step_name,
                           int64_t *step_num, int64_t *iter_num)
{
    const pv_step_info *x = pv_model_step_info(m, pv_model_event_extra(m, e));
    *step_name = x->step_name;
    *step_num = x->step_num;
    *iter_num = x->iter_num;
}

/* ---- inter-thread edges (§3.7 step 3) ------------------------------------ */


static inline bool keyed_before(const pv__keyed *x, const pv__keyed *y)
{
    if (x->k1 != y->k1)
        return x->k1 < y->k1;
    if (x->k2 != y->k2)
        return x->k2 < y->k2;
    if (x->side != y->side)
        return x->side < y->side;
    return x->ev < y->ev;
}

PV_MERGE_SORT(sort_keys, pv__keyed, keyed_before)

static void add_key(pv__keys *ks, uint64_t k1, uint64_t k2, uint64_t ev, int side)
{
    pv__keyed k = {k1, k2, (uint32_t)ev, side};
    PV__PUSH(ks->v, ks->n, ks->cap, k);
}

/* Adds edges between the side-0 and side-1 entries of each key. A
 * producer/consumer context joins every producer to every consumer unless
 * both sides are wide; the other kinds join only the last parent met (the
 * reference keeps one parent per key, later ones replacing earlier) to
 * every child. */
static void match_keys(pv__keys *ks, pv__edges *es)
{
    if (!pv__keys_group(ks))
        sort_keys(ks->v, ks->n);
    size_t i = 0;
    while (i < ks->n) {
        size_t j = i, mid = i;
        while (j < ks->n && ks->v[j].k1 == ks->v[i].k1 && ks->v[j].k2 == ks->v[i].k2) {
            if (ks->v[j].side == 0)
                mid = j + 1;
            j++;
        }
        size_t first = i, last = mid;
        if ((ks->v[i].k1 & 0xffu) != PV__KEY_CONTEXT && mid > i) {
            /* the last parent met: the one latest in event order */
            for (size_t a = i; a < mid; a++)
                if (ks->v[a].ev > ks->v[first].ev)
                    first = a;
            last = first + 1;
        }
        size_t n_from = last - first, n_to = j - mid;
        bool wide = n_from >= CONTEXT_FANOUT_MAX && n_to >= CONTEXT_FANOUT_MAX;
        if (!wide && n_from * n_to <= EDGES_PER_KEY_MAX) {
            for (size_t a = first; a < last; a++)
                for (size_t b = mid; b < j; b++)
                    pv__edges_push(es, ks->v[a].ev, ks->v[b].ev);
        }
        i = j;
    }
    ks->n = 0;
}

/* ks holds the producer/consumer keys the builder made of each event's
 * context stats; the launch and iteration keys join them here. Launch ->
 * execute needs both ends untyped: the reference makes a KernelLaunch /
 * KernelExecute only of events it has no other type for. node (NULL:
 * each event is its own) says which forest node stands for an event:
 * producer/consumer stats count for that node, the other edges only join
 * events that are nodes themselves (group_tpu.c). */
static void collect_edges(const pv_model *m, const names *nm, const uint8_t *kinds,
                          const uint32_t *node, pv__keys *ks, pv__edges *es)
{
    size_t kept = 0;
    for (size_t i = 0; i < ks->n; i++) {
        uint32_t self = node != NULL ? node[ks->v[i].ev] : ks->v[i].ev;
        if (self != PV__NO_EV32) {
            ks->v[kept] = ks->v[i];
            ks->v[kept++].ev = self;
        }
    }
    ks->n = kept;
    for (uint32_t t = 0; t < m->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        bool host = m->planes[tr->plane].kind == PV_PLANE_HOST;
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            if (node != NULL && node[e] != e)
                continue;
            int64_t a, b;
            uint8_t kind = kinds[m->ev_meta[e]];
            const pv_event_extra *x = pv_model_event_extra(m, e);
            if (x != NULL && (x->flags & PV_EXTRA_CORRELATION) && !(kind & PV__GK_TYPED))
                add_key(ks, PV__KEY_LAUNCH, x->correlation_id, e, host ? 0 : 1);
            if ((kind & (PV__GK_PROCESS | PV__GK_GET_NEXT)) && ev_int(m, e, nm->id, &a) &&
                ev_int(m, e, nm->iter, &b))
                add_key(ks, PV__KEY_ITERATION + ((uint64_t)a << 8), (uint64_t)b, e,
                        (kind & PV__GK_PROCESS) ? 0 : 1);
        }
    }
    match_keys(ks, es);
}

/* ---- tf.data step ids ------------------------------------------------------ */

typedef struct id_set {
    int64_t *v;
    size_t n, cap;
} id_set;

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : (x > y);
}

/* The `id` of every tf.data captured function run: steps of the input
 * pipeline, never training steps, so roots carrying one are skipped. */
/* True when some metadata is of kind (PV__GK_*): a pass over the events
 * for that kind is then worth making. */
static bool some_meta_is(const pv_model *m, const uint8_t *kinds, uint8_t kind)
{
    for (uint32_t i = 0; i < m->n_metas; i++)
        if (kinds[i] & kind)
            return true;
    return false;
}

static void tf_data_ids(const pv_model *m, const names *nm, const uint8_t *kinds, id_set *ids)
{
    if (!some_meta_is(m, kinds, PV__GK_CAPTURED_FN))
        return;
    for (uint64_t e = 0; e < m->n_events; e++) {
        int64_t id;
        if ((kinds[m->ev_meta[e]] & PV__GK_CAPTURED_FN) && ev_int(m, e, nm->id, &id))
            PV__PUSH(ids->v, ids->n, ids->cap, id);
    }
    pv_sort(ids->v, ids->n, sizeof *ids->v, i64_cmp);
}

static bool is_tf_data_step(const pv_model *m, const names *nm, const id_set *ids, uint64_t e)
{
    int64_t id;
    if (ids->n == 0 || !ev_int(m, e, nm->id, &id))
        return false;
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, ids->n, i, ids->v[i] < id);
    return lo < ids->n && ids->v[lo] == id;
}

/* ---- roots (§3.7 step 4) ------------------------------------------------- */

typedef struct grouping {
    pv_model *m;
    pv__model_store *s;
    names nm;
    const uint8_t *kinds;
    const uint8_t *tpu_roles; /* per plane, PV__TPU_*; NULL when no TPU plane */
    const uint32_t *node;     /* per event, see pv__tpu_nodes; NULL likewise */
    pv__forest f;
    pv__walk w;
    int32_t *group;          /* the model's ev_group column */
    pv_step_group *groups;
    size_t n_groups, cap_groups;
} grouping;


typedef struct root {
    int64_t level;
    int64_t start_ps;
    uint64_t ev;
} root;

typedef struct roots {
    root *v;
    size_t n, cap;
} roots;

/* Higher levels first, then by start. */
static inline bool root_before(const root *x, const root *y)
{
    if (x->level != y->level)
        return x->level > y->level;
    if (x->start_ps != y->start_ps)
        return x->start_ps < y->start_ps;
    return x->ev < y->ev;
}

PV_MERGE_SORT(sort_roots, root, root_before)

/* True when e lies on a TPU plane. */
static bool on_tpu(const grouping *g, uint64_t e)
{
    if (g->tpu_roles == NULL)
        return false;
    return g->tpu_roles[g->m->tracks[pv_model_event_track(g->m, e)].plane] != PV__TPU_NONE;
}

/* The root level of e: its _r stat, else 1 for a marked root (a
 * TraceContext); 0 when e is no root. Events on TPU planes never are:
 * the reference reads no root level there. */
static int64_t root_level(const grouping *g, uint64_t e)
{
    if (!(ev_flags(g->m, e) & PV_EXTRA_STEP_ROOT) || on_tpu(g, e))
        return 0;
    int64_t level = 1;
    ev_int(g->m, e, g->nm.r, &level);
    return level > 0 ? level : 0;
}

/* §3.7 step 4, the while-loop alternative: ExecutorState::Process events
 * carrying (id, iter_num), tf.data ids left out, for ids that iterate
 * past 0. Each iteration's earliest event becomes a root with an edge to
 * the iteration's other events. */
static void loop_roots(const pv_model *m, const names *nm, const uint8_t *kinds,
                       const id_set *tf_data, pv__keys *ks, pv__edges *es, roots *out)
{
    if (!some_meta_is(m, kinds, PV__GK_PROCESS))
        return;
    for (uint64_t e = 0; e < m->n_events; e++) {
        int64_t a, b;
        if ((kinds[m->ev_meta[e]] & PV__GK_PROCESS) && ev_int(m, e, nm->id, &a) &&
            ev_int(m, e, nm->iter, &b) && !is_tf_data_step(m, nm, tf_data, e))
            add_key(ks, (uint64_t)a, (uint64_t)b, e, 0);
    }
    sort_keys(ks->v, ks->n);
    for (size_t i = 0; i < ks->n;) {
        size_t id_end = i;
        bool iterates = false;
        while (id_end < ks->n && ks->v[id_end].k1 == ks->v[i].k1) {
            iterates |= ks->v[id_end].k2 != 0;
            id_end++;
        }
        for (size_t j = i; iterates && j < id_end;) {
            size_t it_end = j, first = j;
            while (it_end < id_end && ks->v[it_end].k2 == ks->v[j].k2) {
                if (m->ev_start_ps[ks->v[it_end].ev] < m->ev_start_ps[ks->v[first].ev])
                    first = it_end;
                it_end++;
            }
            root r = {1, m->ev_start_ps[ks->v[first].ev], ks->v[first].ev};
            PV__PUSH(out->v, out->n, out->cap, r);
            for (size_t k = j; k < it_end; k++)
                if (k != first)
                    pv__edges_push(es, ks->v[first].ev, ks->v[k].ev);
            j = it_end;
        }
        i = id_end;
    }
    ks->n = 0;
}

/* Events marked as roots (_r > 0 or TraceContext), tf.data steps left out. */
static void marked_roots(const grouping *g, const id_set *tf_data, roots *out)
{
    const pv_model *m = g->m;
    for (uint64_t e = 0; e < m->n_events; e++) {
        if (!(ev_flags(m, e) & PV_EXTRA_STEP_ROOT))
            continue;   /* root_level's first test, without a call per event */
        int64_t level = root_level(g, e);
        if (level == 0 || is_tf_data_step(m, &g->nm, tf_data, e))
            continue;
        root r = {level, m->ev_start_ps[e], e};
        PV__PUSH(out->v, out->n, out->cap, r);
    }
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

/* ---- groups (§3.7 steps 5-6) --------------------------------------------- */


typedef struct stat_question {
    const grouping *g;
    uint32_t name;           /* stat name id */
    int64_t level;           /* for same_level_root */
} stat_question;

static bool has_stat(const void *ctx, uint64_t e)
{
    const stat_question *q = ctx;
    pv_stat st;
    if (!pv_model_event_stat(q->g->m, e, q->name, &st))
        return false;
    return q->name == q->g->nm.graph_type ? st.type == PV_STAT_STR || st.type == PV_STAT_WSTR
                                          : st.type == PV_STAT_I64 || st.type == PV_STAT_U64;
}

static bool same_level_root(const void *ctx, uint64_t e)
{
    const stat_question *q = ctx;
    return root_level(q->g, e) == q->level;
}

/* The first event up the forest from r (r included) with stat `name`. */
static uint64_t context_stat(grouping *g, uint64_t r, uint32_t name)
{
    if (name == 0)
        return PV__NO_EVENT;
    stat_question q = {g, name, 0};
    return pv__forest_find_up(&g->f, &g->w, r, true, has_stat, &q, WALK_VISITS_MAX);
}

/* The string id of a graph_type value; one read from the file is
 * interned (the model's strings are not published yet). */
static uint32_t graph_type_sid(grouping *g, const pv_stat *st)
{
    if (st->type == PV_STAT_STR)
        return st->v.str;
    size_t len;
    const char *text = pv_model_stat_text(g->m, st, &len);
    return text != NULL ? pv__strtab_intern(&g->s->strs, text, len) : 0;
}

/* The reference's group name: "<graph_type> " when an ancestor (or r)
 * has one, else "<root name> " unless r is an implicit root (FunctionRun,
 * ..., or a TPU step), then iter_num, else step_num, found the same way,
 * else the id. */
static pv_step_group name_group(grouping *g, uint64_t r, int64_t group_id)
{
    const pv_model *m = g->m;
    const char *prefix = "";
    uint64_t e = context_stat(g, r, g->nm.graph_type);
    pv_stat gt;
    if (e != PV__NO_EVENT && pv_model_event_stat(m, e, g->nm.graph_type, &gt))
        prefix = g->s->strs.strs[graph_type_sid(g, &gt)];
    else if (!(g->kinds[m->ev_meta[r]] & PV__GK_IMPLICIT_ROOT) && !on_tpu(g, r))
        prefix = g->s->strs.strs[m->metas[m->ev_meta[r]].name];
    int64_t num = group_id;
    uint32_t which = g->nm.iter;
    e = context_stat(g, r, which);
    if (e == PV__NO_EVENT) {
        which = g->nm.step;
        e = context_stat(g, r, which);
    }
    if (e != PV__NO_EVENT)
        ev_int(m, e, which, &num);
    size_t plen = strlen(prefix);
    char *name = pv_xmalloc(plen + 32);
    int n = snprintf(name, plen + 32, "%s%s%lld", prefix, plen > 0 ? " " : "", (long long)num);
    pv_step_group sg = {group_id, pv__strtab_intern(&g->s->strs, name, (size_t)n), 0, num};
    free(name);
    return sg;
}

/* Gives r's group to r and everything below it that has none; the walk
 * stops at events already grouped. */
static void propagate(grouping *g, uint64_t r, int32_t gid)
{
    if (g->group[r] != PV_NO_GROUP)
        return;
    uint32_t *queue = g->w.queue;
    size_t head = 0, tail = 0;
    g->group[r] = gid;
    queue[tail++] = (uint32_t)r;
    while (head < tail) {
        uint64_t e = queue[head++];
        for (uint64_t k = g->f.kid_off[e]; k < g->f.kid_off[e + 1]; k++) {
            uint32_t kid = g->f.kids[k];
            if (g->group[kid] == PV_NO_GROUP) {
                g->group[kid] = gid;
                queue[tail++] = kid;
            }
        }
    }
}

/* Opens group gid (at most n_groups) at root r and spreads it; an id
 * opened again (TPU cores in lock step) takes the later root's name, as
 * the reference's group table does. */
static void open_group(grouping *g, uint64_t r, int32_t gid)
{
    propagate(g, r, gid);
    pv_step_group sg = name_group(g, r, gid);
    if ((size_t)gid < g->n_groups)
        g->groups[gid] = sg;
    else
        PV__PUSH(g->groups, g->n_groups, g->cap_groups, sg);
}

/* A root is grouped unless it has a group already or an ancestor root of
 * the same level will take it. */
static bool root_needs_group(grouping *g, const root *r)
{
    if (g->group[r->ev] != PV_NO_GROUP)
        return false;
    stat_question q = {g, 0, r->level};
    return pv__forest_find_up(&g->f, &g->w, r->ev, false, same_level_root, &q,
                              WALK_VISITS_MAX) == PV__NO_EVENT;
}

/* The TPU cores' steps, when the host reached none of them: each core
 * numbers its ungrouped steps from the next free id, so step k of every
 * core shares group first + k. */
static void lockstep_tpu_steps(grouping *g)
{
    const pv_model *m = g->m;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        uint32_t t = g->tpu_roles[p] == PV__TPU_TENSOR_CORE
                         ? pv__tpu_grouping_track(m, g->s, p)
                         : UINT32_MAX;
        for (uint64_t e = 0; t != UINT32_MAX && e < m->tracks[t].n_events; e++)
            if (g->group[m->tracks[t].first_event + e] != PV_NO_GROUP)
                return;
    }
    size_t first = g->n_groups;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        uint32_t t = g->tpu_roles[p] == PV__TPU_TENSOR_CORE
                         ? pv__tpu_grouping_track(m, g->s, p)
                         : UINT32_MAX;
        if (t == UINT32_MAX)
            continue;
        size_t gid = first;
        const pv_track *tr = &m->tracks[t];
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            if (g->group[e] == PV_NO_GROUP && gid < (size_t)INT32_MAX)
                open_group(g, e, (int32_t)gid++);
        }
    }
}

static void compute_groups(grouping *g, pv__keys *contexts)
{
    pv_model *m = g->m;
    pv__keys ks = *contexts;
    memset(contexts, 0, sizeof *contexts);
    pv__edges es = {0};
    id_set tf_data = {0};
    roots rs = {0};
    tf_data_ids(m, &g->nm, g->kinds, &tf_data);
    collect_edges(m, &g->nm, g->kinds, g->node, &ks, &es);
    loop_roots(m, &g->nm, g->kinds, &tf_data, &ks, &es, &rs);
    /* Loop roots, when any, replace the marked ones and each opens a
     * group even when an earlier iteration reached it (the reference
     * numbers them all). */
    bool loops = rs.n > 0;
    if (!loops)
        marked_roots(g, &tf_data, &rs);
    sort_roots(rs.v, rs.n);
    free(ks.v);
    free(tf_data.v);
    pv__forest_build(m, g->tpu_roles, &es, &g->f);
    pv__walk_init(&g->w, m->n_events);
    for (size_t i = 0; i < rs.n && g->n_groups < (size_t)INT32_MAX; i++) {
        if (loops || root_needs_group(g, &rs.v[i]))
            open_group(g, rs.v[i].ev, (int32_t)g->n_groups);
    }
    free(rs.v);
    if (g->tpu_roles != NULL) {
        lockstep_tpu_steps(g);
        pv__tpu_group_lines(m, g->s, g->tpu_roles, g->group);
    }
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
            pv_step_group sg = {group[e], 0, 0, group[e]};
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
        uint32_t step_name;
        int64_t step_num, iter_num;
        ev_step_fields(m, e, &step_name, &step_num, &iter_num);
        pv_step_group *sg = &(*groups)[k];
        if (sg->name == 0 && step_name != 0)
            sg->name = step_name;
        /* step_num is the user's step counter; iter_num is a loop
         * iteration, used only when no event of the group says more. */
        if (step_num >= 0 && rank[k] < 2) {
            sg->step_num = step_num;
            rank[k] = 2;
        } else if (iter_num >= 0 && rank[k] < 1) {
            sg->step_num = iter_num;
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

int pv__group_build(pv_model *m, pv__model_store *s, bool have_groups, pv__keys *contexts,
                    pv_error *err)
{
    (void)err;
    grouping g = {.m = m, .s = s, .group = (int32_t *)m->ev_group};
    /* The forest nests events the way the reference does (group_forest.c),
     * which is not quite the model's depth rule. */
    if (have_groups) {
        table_from_file(m, g.group, &g.groups, &g.n_groups);
    } else if (m->n_events < PV__NO_EV32 && !loop_ops_present(m, s)) {
        names_init(&g.nm, s);
        uint8_t *kinds = pv__group_meta_kinds(m, s);
        g.kinds = kinds;
        uint8_t *roles = pv__tpu_plane_roles(m, s);
        uint32_t *node = NULL;
        bool tpu = false;
        for (uint32_t p = 0; p < m->n_planes; p++)
            tpu = tpu || roles[p] != PV__TPU_NONE;
        if (tpu) {
            g.tpu_roles = roles;
            node = pv__tpu_nodes(m, s, roles);
            g.node = node;
        }
        compute_groups(&g, contexts);
        pv__group_mark_eager(m, s, &g.f, &g.w, kinds, g.tpu_roles);
        pv__forest_free(&g.f);
        pv__walk_fini(&g.w);
        free(node);
        free(roles);
        free(kinds);
    }
    pv_sort(g.groups, g.n_groups, sizeof *g.groups, group_cmp);
    m->groups = g.groups;   /* finish fills a NULL one */
    m->n_groups = (uint32_t)g.n_groups;
    return 0;
}
