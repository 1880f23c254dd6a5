/* op_metrics_kineto: the host and device op metrics databases of a PyTorch
 * (Kineto) trace, read through the model's roles and launch links, counted
 * as torch-tb-profiler's operator view counts them (op_tree.py, node.py,
 * op_agg.py), so framework_op_stats shows PyTorch's operators:
 *
 * 1. Per thread, the host events that form torch-tb-profiler 0.4.3's call
 *    tree (operators, profiler steps, NCCL/Gloo annotations), in start
 *    order (longer first), nest by time: an event ending past its
 *    would-be parent's end is left out of the tree, as the reference does.
 * 2. An operator whose only child is an operator of the same name takes
 *    that child's place (children and runtime calls; its own runtime
 *    calls are dropped): the reference's remove_dup_nodes, after
 *    PyTorch's autograd profiler.
 * 3. A runtime call (cudaLaunchKernel, ...) belongs to the tree event
 *    that launched it (the model's launch link: the External id they
 *    share), and so does every kernel, memcpy and memset it launched.
 * 4. Host self time = duration - the children's durations - the runtime
 *    calls' durations; device self time = the device activities the
 *    event's own runtime calls launched; device total = self + the
 *    children's totals.
 * 5. Operators only (not annotations, steps, Python functions, DataLoader
 *    iterations, Optimizer.* or the DataParallel forwards) become rows,
 *    aggregated by name (or, when asked, by name and "Input Dims" or "Call
 *    stack", texts the decoder keeps): calls, host total and self,
 *    device total and
 *    self. The host db holds every operator, the device db those that ran
 *    something on a device; each op's type is its name, so pages that
 *    group by type show PyTorch's per-operator split.
 *
 * The reference also regroups backward operators under the modules of a
 * with_modules trace; that changes the tree, not these sums. */
#include "tools/op_stats/op_metrics.h"
#include "util/bsearch.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

#define NO_NODE UINT32_MAX

typedef struct node {
    uint64_t ev;
    uint32_t parent;       /* NO_NODE: a root */
    uint32_t n_children;   /* children in the tree (after merges) */
    uint32_t one_child;    /* the child when n_children == 1 */
    uint32_t rep;          /* the node this one was merged into; itself when kept */
    uint32_t src;          /* whose runtime calls this node keeps; itself unless merged */
    uint8_t kind;          /* pv_event_role */
    bool in_tree;
    int64_t child_ps;      /* durations of its children */
    int64_t runtime_ps;    /* durations of its runtime calls */
    int64_t dev_self_ps;
    int64_t dev_total_ps;
} node;

/* torch-tb-profiler 0.4.3 builds its tree of operators and profiler
 * steps; of the annotations only the NCCL and Gloo collectives take part,
 * and Python functions not at all (trace.py's create_trace_event drops
 * them). */
static bool in_tree(const pv_model *m, uint64_t ev)
{
    unsigned roles = pv_model_meta_roles(m, m->ev_meta[ev]);
    pv_event_role role = (pv_event_role)(roles & PV_ROLE_MASK);
    if (role == PV_ROLE_OPERATOR || role == PV_ROLE_STEP)
        return true;
    return role == PV_ROLE_ANNOTATION && (roles & PV_ROLE_COLLECTIVE) != 0;
}

/* Whether torch-tb-profiler shows an operator of this name (node.py's
 * is_operator_node). */
static bool shown_op(const char *name)
{
    size_t n = strlen(name);
    if (strncmp(name, "enumerate(DataLoader)#", 22) == 0 && n >= 9 &&
        strcmp(name + n - 9, ".__next__") == 0)
        return false;
    return strncmp(name, "Optimizer.", 10) != 0 && strcmp(name, "DataParallel.forward") != 0 &&
           strcmp(name, "DistributedDataParallel.forward") != 0;
}

static uint32_t rep_of(const node *nodes, uint32_t i)
{
    while (nodes[i].rep != i)
        i = nodes[i].rep;
    return i;
}

/* The node of host event ev (nodes are in event order), or NO_NODE. */
static uint32_t node_of(const node *nodes, size_t n, uint64_t ev)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, n, mid, nodes[mid].ev < ev);
    return lo < n && nodes[lo].ev == ev ? (uint32_t)lo : NO_NODE;
}

/* Step 1 on one track: parents and children by time. */
static void nest_track(const pv_model *m, node *nodes, size_t first, size_t end,
                       uint32_t *stack)
{
    size_t depth = 0;
    for (size_t i = first; i < end; i++) {
        node *x = &nodes[i];
        int64_t start = m->ev_start_ps[x->ev], stop = start + m->ev_dur_ps[x->ev];
        while (depth > 0) {
            const node *top = &nodes[stack[depth - 1]];
            if (start < m->ev_start_ps[top->ev] + m->ev_dur_ps[top->ev])
                break;
            depth--;
        }
        if (depth > 0) {
            node *top = &nodes[stack[depth - 1]];
            if (stop > m->ev_start_ps[top->ev] + m->ev_dur_ps[top->ev])
                continue;   /* overlaps its parent's end: not in the tree */
            x->parent = stack[depth - 1];
            top->n_children++;
            top->one_child = (uint32_t)i;
        }
        x->in_tree = true;
        stack[depth++] = (uint32_t)i;
    }
}

/* Step 2: an operator with one child operator of its name absorbs it. */
static void merge_dups(const pv_model *m, node *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        node *x = &nodes[i];
        if (!x->in_tree || x->rep != i || x->kind != PV_ROLE_OPERATOR)
            continue;
        while (x->n_children == 1) {
            node *c = &nodes[x->one_child];
            if (c->kind != PV_ROLE_OPERATOR ||
                m->metas[m->ev_meta[c->ev]].name != m->metas[m->ev_meta[x->ev]].name)
                break;
            c->rep = (uint32_t)i;
            x->src = x->one_child;
            x->n_children = c->n_children;
            x->one_child = c->one_child;
        }
    }
}

/* The node a runtime call or device activity of host event ev counts for,
 * or NO_NODE when the reference drops it (a merged-away node's calls). */
static uint32_t owner(const node *nodes, size_t n, uint64_t ev)
{
    uint32_t x = node_of(nodes, n, ev);
    if (x == NO_NODE || !nodes[x].in_tree)
        return NO_NODE;
    uint32_t r = rep_of(nodes, x);
    return nodes[r].src == x ? r : NO_NODE;
}

typedef struct agg {
    uint64_t key;          /* name string id << 32 | the grouping stat's string id (0: none) */
    uint64_t calls;
    int64_t host_ps, host_self_ps, dev_ps, dev_self_ps;
} agg;

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The row key of event ev: its name, and its value of the stat group
 * (its name's string id) when group is not 0. */
static uint64_t key_of(const pv_model *m, uint64_t ev, uint32_t group)
{
    uint64_t key = (uint64_t)m->metas[m->ev_meta[ev]].name << 32;
    pv_stat st;
    if (group != 0 && pv_model_event_stat(m, ev, group, &st) && st.type == PV_STAT_STR)
        key |= st.v.str;
    return key;
}

static uint64_t nonneg(int64_t v)
{
    return v > 0 ? (uint64_t)v : 0;
}

int pv_op_metrics_kineto(const pv_model *m, const char *group_stat,
                         pv_arena *a, pv_op_metrics_db *host, pv_op_metrics_db *device,
                         pv_error *err)
{
    (void)err;
    memset(host, 0, sizeof *host);
    memset(device, 0, sizeof *device);
    size_t n = 0;
    for (uint64_t e = 0; e < m->n_events; e++)
        n += in_tree(m, e);
    node *nodes = pv_xcalloc(n + 1, sizeof *nodes);
    uint32_t *stack = pv_xmalloc((n + 1) * sizeof *stack);
    size_t w = 0;
    for (uint32_t ti = 0; ti < m->n_tracks; ti++) {
        const pv_track *t = &m->tracks[ti];
        size_t first = w;
        for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
            if (!in_tree(m, e))
                continue;
            nodes[w] = (node){.ev = e, .parent = NO_NODE, .one_child = NO_NODE,
                              .rep = (uint32_t)w, .src = (uint32_t)w,
                              .kind = (uint8_t)pv_model_event_role(m, e)};
            w++;
        }
        nest_track(m, nodes, first, w, stack);
    }
    free(stack);
    merge_dups(m, nodes, n);
    /* step 3: runtime calls and device activities to their nodes */
    for (uint64_t e = 0; e < m->n_events; e++) {
        pv_event_role role = pv_model_event_role(m, e);
        if (role != PV_ROLE_RUNTIME && !pv_role_on_device(role))
            continue;
        uint64_t h = pv_model_launcher(m, e);
        uint32_t x = h == PV_NO_EVENT ? NO_NODE : owner(nodes, n, h);
        if (x == NO_NODE)
            continue;
        if (role == PV_ROLE_RUNTIME)
            nodes[x].runtime_ps += m->ev_dur_ps[e];
        else
            nodes[x].dev_self_ps += m->ev_dur_ps[e];
    }
    /* step 4: children before parents, as the list has parents first */
    for (size_t i = n; i-- > 0;) {
        node *x = &nodes[i];
        if (!x->in_tree || x->rep != i)
            continue;
        x->dev_total_ps += x->dev_self_ps;
        if (x->parent == NO_NODE)
            continue;
        node *p = &nodes[rep_of(nodes, x->parent)];
        p->child_ps += m->ev_dur_ps[x->ev];
        p->dev_total_ps += x->dev_total_ps;
    }
    /* step 5: operators by name (and the grouping stat) */
    uint32_t group = group_stat != NULL ? pv_model_str_find(m, group_stat) : 0;
    uint64_t *names = pv_xmalloc((n + 1) * sizeof *names);
    size_t n_names = 0;
    for (size_t i = 0; i < n; i++) {
        const node *x = &nodes[i];
        uint32_t name = m->metas[m->ev_meta[x->ev]].name;
        if (x->in_tree && x->rep == i && x->kind == PV_ROLE_OPERATOR &&
            shown_op(pv_model_str(m, name)))
            names[n_names++] = key_of(m, x->ev, group);
    }
    qsort(names, n_names, sizeof *names, cmp_u64);
    size_t n_ops = 0;
    for (size_t i = 0; i < n_names; i++)
        if (i == 0 || names[i] != names[i - 1])
            names[n_ops++] = names[i];
    agg *ops = pv_xcalloc(n_ops + 1, sizeof *ops);
    for (size_t i = 0; i < n_ops; i++)
        ops[i].key = names[i];
    for (size_t i = 0; i < n; i++) {
        const node *x = &nodes[i];
        if (!x->in_tree || x->rep != i || x->kind != PV_ROLE_OPERATOR)
            continue;
        uint64_t key = key_of(m, x->ev, group);
        uint64_t *at = bsearch(&key, names, n_ops, sizeof *names, cmp_u64);
        if (at == NULL)
            continue;
        agg *o = &ops[at - names];
        int64_t dur = m->ev_dur_ps[x->ev];
        o->calls++;
        o->host_ps += dur;
        o->host_self_ps += dur - x->child_ps - x->runtime_ps;
        o->dev_ps += x->dev_total_ps;
        o->dev_self_ps += x->dev_self_ps;
    }
    host->ops = pv_arena_zalloc(a, (n_ops + 1) * sizeof *host->ops);
    device->ops = pv_arena_zalloc(a, (n_ops + 1) * sizeof *device->ops);
    for (size_t i = 0; i < n_ops; i++) {
        const agg *o = &ops[i];
        const char *name = pv_model_str(m, (uint32_t)(o->key >> 32));
        const char *value = group_stat != NULL ? pv_model_str(m, (uint32_t)o->key) : NULL;
        pv_op_metrics *h = &host->ops[host->n_ops++];
        *h = (pv_op_metrics){.name = name, .type = name, .occurrences = o->calls,
                             .time_ps = nonneg(o->host_ps), .self_time_ps = nonneg(o->host_self_ps),
                             .group_value = value};
        host->total_op_time_ps += h->self_time_ps;
        if (o->dev_ps <= 0)
            continue;
        pv_op_metrics *d = &device->ops[device->n_ops++];
        *d = (pv_op_metrics){.name = name, .type = name, .occurrences = o->calls,
                             .time_ps = nonneg(o->dev_ps), .self_time_ps = nonneg(o->dev_self_ps),
                             .group_value = value};
        device->total_op_time_ps += d->self_time_ps;
    }
    host->total_time_ps = host->total_op_time_ps;
    device->total_time_ps = device->total_op_time_ps;
    free(ops);
    free(names);
    free(nodes);
    return 0;
}
