/* group_forest: the event forest of step grouping (see group_forest.h).
 * Nesting follows the reference's stack walk over each line in time
 * order: an event is the child of the innermost earlier event whose span
 * includes its own; earlier events that do not include it are popped for
 * good. TPU planes get no nesting: the reference hangs their events on
 * the Steps / XLA Modules line instead (group_tpu.c). */
#include "model/group_forest.h"
#include "util/bsearch.h"

#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

/* Upward walks of one model together: real ancestries are a few dozen
 * events, so this never binds on a real profile. */
#define WALK_BUDGET_PER_EVENT 64u
#define WALK_BUDGET_BASE 1000000u

void pv__edges_push(pv__edges *es, uint64_t from, uint64_t to)
{
    pv__edge e = {(uint32_t)from, (uint32_t)to};
    PV__PUSH(es->v, es->n, es->cap, e);
}

static bool is_async(const pv_model *m, uint64_t e)
{
    const pv_event_extra *x = pv_model_event_extra(m, e);
    return x != NULL && (x->flags & PV_EXTRA_ASYNC) != 0;
}

/* An event open on a line while nest() walks it. */
typedef struct open_event {
    uint32_t ev;
    int64_t start_ps, end_ps;
} open_event;

/* Fills parent and counts each event's nested children in kids[e + 1]. */
static void nest(const pv_model *m, const uint8_t *tpu_roles, uint32_t *parent, uint64_t *kids)
{
    open_event *stack = NULL;
    size_t cap = 0;
    memset(parent, 0xff, m->n_events * sizeof *parent);   /* PV__NO_EV32 */
    for (uint32_t t = 0; t < m->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        if (tpu_roles != NULL && tpu_roles[tr->plane] != PV__TPU_NONE)
            continue;
        size_t sp = 0;
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            if (is_async(m, e))
                continue;
            open_event o = {(uint32_t)e, m->ev_start_ps[e], pv__event_end_ps(m, e)};
            while (sp > 0) {
                const open_event *p = &stack[sp - 1];
                if (p->start_ps <= o.start_ps && o.end_ps <= p->end_ps) {
                    parent[e] = p->ev;
                    kids[p->ev + 1]++;
                    break;
                }
                sp--;
            }
            if (sp == cap)
                pv__grow((void **)&stack, &cap, sp + 1, sizeof *stack);
            stack[sp++] = o;
        }
    }
    free(stack);
}

static inline bool up_before(const pv__edge *x, const pv__edge *y)
{
    return x->to != y->to ? x->to < y->to : x->from < y->from;
}

PV_MERGE_SORT(sort_up, pv__edge, up_before)

void pv__forest_build(const pv_model *m, const uint8_t *tpu_roles, pv__edges *es,
                      pv__forest *f)
{
    uint64_t n = m->n_events;
    memset(f, 0, sizeof *f);
    f->n = n;
    f->nest_parent = pv_xmalloc((n ? n : 1) * sizeof *f->nest_parent);
    uint64_t *off = pv_xcalloc(n + 1, sizeof *off);
    nest(m, tpu_roles, f->nest_parent, off);
    for (size_t i = 0; i < es->n; i++)
        off[es->v[i].from + 1]++;
    for (uint64_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    uint32_t *kids = pv_xmalloc((off[n] ? off[n] : 1) * sizeof *kids);
    uint64_t *fill = pv_xmalloc((n ? n : 1) * sizeof *fill);
    memcpy(fill, off, n * sizeof *fill);
    for (uint64_t e = 0; e < n; e++)
        if (f->nest_parent[e] != PV__NO_EV32)
            kids[fill[f->nest_parent[e]]++] = (uint32_t)e;
    for (size_t i = 0; i < es->n; i++)
        kids[fill[es->v[i].from]++] = es->v[i].to;
    free(fill);
    f->kid_off = off;
    f->kids = kids;

    sort_up(es->v, es->n);
    f->up = es->v;
    f->n_up = es->n;
    memset(es, 0, sizeof *es);
}

void pv__forest_free(pv__forest *f)
{
    if (f == NULL)
        return;
    free(f->nest_parent);
    free(f->kid_off);
    free(f->kids);
    free(f->up);
    memset(f, 0, sizeof *f);
}

void pv__walk_init(pv__walk *w, uint64_t n_events)
{
    w->stamp = pv_xcalloc(n_events ? n_events : 1, sizeof *w->stamp);
    w->gen = 0;
    w->queue = pv_xmalloc((n_events ? n_events : 1) * sizeof *w->queue);
    w->budget = WALK_BUDGET_PER_EVENT * n_events + WALK_BUDGET_BASE;
}

void pv__walk_fini(pv__walk *w)
{
    free(w->stamp);
    free(w->queue);
    memset(w, 0, sizeof *w);
}

/* Starts a new walk: a fresh generation, the stamps reset when it wraps. */
static void walk_begin(pv__walk *w, uint64_t n)
{
    if (++w->gen == 0) {
        memset(w->stamp, 0, (n ? n : 1) * sizeof *w->stamp);
        w->gen = 1;
    }
}

/* First index in f->up whose target is e. */
static size_t up_first(const pv__forest *f, uint64_t e)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, f->n_up, i, f->up[i].to < e);
    return lo;
}

uint64_t pv__forest_find_up(const pv__forest *f, pv__walk *w, uint64_t e, bool include_self,
                            bool (*match)(const void *ctx, uint64_t ev), const void *ctx,
                            uint64_t max_visits)
{
    walk_begin(w, f->n);
    size_t head = 0, tail = 0;
    w->stamp[e] = w->gen;
    w->queue[tail++] = (uint32_t)e;
    while (head < tail && head < max_visits && w->budget > 0) {
        w->budget--;
        uint64_t v = w->queue[head++];
        /* e itself is queued either way: its parents come next. */
        if ((v != e || include_self) && match(ctx, v))
            return v;
        uint32_t p = f->nest_parent[v];
        if (p != PV__NO_EV32 && w->stamp[p] != w->gen) {
            w->stamp[p] = w->gen;
            w->queue[tail++] = p;
        }
        for (size_t i = up_first(f, v); i < f->n_up && f->up[i].to == v; i++) {
            uint32_t q = f->up[i].from;
            if (w->stamp[q] != w->gen) {
                w->stamp[q] = w->gen;
                w->queue[tail++] = q;
            }
        }
    }
    return PV__NO_EVENT;
}

/* ---- event types --------------------------------------------------------- */

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* "scope/op:Type" as the reference's op-name parser accepts a TensorFlow
 * op: a name of [A-Za-z0-9_./>-] not starting with _/>-, then a type
 * starting upper case or '_' of [A-Za-z0-9_]. */
static bool is_tf_op(const char *s)
{
    const char *colon = strchr(s, ':');
    if (colon == NULL || colon == s || !(is_alnum(s[0]) || s[0] == '.'))
        return false;
    for (const char *c = s + 1; c < colon; c++)
        if (!(is_alnum(*c) || *c == '_' || *c == '.' || *c == '/' || *c == '>' || *c == '-'))
            return false;
    const char *t = colon + 1;
    if (!((*t >= 'A' && *t <= 'Z') || *t == '_'))
        return false;
    for (t++; *t != '\0'; t++)
        if (!(is_alnum(*t) || *t == '_'))
            return false;
    return true;
}

uint8_t *pv__group_meta_kinds(const pv_model *m, const pv__model_store *s)
{
    static const struct {
        const char *name;
        uint8_t kind;
    } known[] = {
        {"TraceContext", PV__GK_TRACE_CONTEXT},
        {"FunctionRun", PV__GK_IMPLICIT_ROOT},
        {"SessionRun", PV__GK_IMPLICIT_ROOT},
        {"RunGraph", PV__GK_IMPLICIT_ROOT},
        {"ExecutorState::Process", PV__GK_IMPLICIT_ROOT | PV__GK_PROCESS},
        {"EagerExecute", PV__GK_EAGER_EXECUTE},
        {"InstantiatedCapturedFunction::Run", PV__GK_CAPTURED_FN},
        {"InstantiatedCapturedFunction::RunWithBorrowedArgs", PV__GK_CAPTURED_FN},
        {"InstantiatedCapturedFunction::RunInstantiated", PV__GK_CAPTURED_FN},
        {"InstantiatedCapturedFunction::RunAsync", PV__GK_CAPTURED_FN},
        {"IteratorGetNextOp::DoCompute", PV__GK_GET_NEXT},
        {"IteratorGetNextAsOptionalOp::DoCompute", PV__GK_GET_NEXT},
        /* typed, nothing more: a correlation_id on them makes no launch */
        {"RunGraphDone", 0}, {"TfOpRun", 0}, {"ExecutorDoneCallback", 0},
        {"MemoryAllocation", 0}, {"MemoryDeallocation", 0}, {"RemotePerfCounter", 0},
        {"ParallelForOp", 0}, {"ForeverOp", 0}, {"WhileOp-EvalCond", 0},
        {"WhileOp-StartBody", 0}, {"ForOp", 0}, {"Iterator", 0},
        {"PrefetchProduce", 0}, {"PrefetchConsume", 0}, {"ParallelInterleaveProduce", 0},
        {"ParallelInterleaveConsume", 0}, {"ParallelInterleaveInitializeInput", 0},
        {"ParallelMapProduce", 0}, {"ParallelMapConsume", 0}, {"MapAndBatchProduce", 0},
        {"MapAndBatchConsume", 0}, {"ParseExampleProduce", 0}, {"ParseExampleConsume", 0},
        {"ParallelBatchProduce", 0}, {"ParallelBatchConsume", 0},
    };
    /* Strings are interned once: a name is known when its id is. */
    uint8_t *kind_of_sid = pv_xcalloc(s->strs.n ? s->strs.n : 1, 1);
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        uint32_t sid = pv__strtab_find(&s->strs, known[k].name, strlen(known[k].name));
        if (sid != 0)
            kind_of_sid[sid] = (uint8_t)(known[k].kind | PV__GK_TYPED);
    }
    uint8_t *kinds = pv_xcalloc(m->n_metas ? m->n_metas : 1, 1);
    for (uint32_t i = 0; i < m->n_metas; i++) {
        kinds[i] = kind_of_sid[m->metas[i].name];
        if (kinds[i] != 0)
            continue;
        const char *name = s->strs.strs[m->metas[i].name];
        if (strncmp(name, "Iterator::", 10) == 0)
            kinds[i] = PV__GK_TYPED;   /* a tf.data iterator */
        else if (is_tf_op(name))
            kinds[i] = PV__GK_TYPED | PV__GK_TF_OP;
    }
    free(kind_of_sid);
    return kinds;
}
