/* steps_ops: host and device framework-op tables (reference: host
 * threads in xprof/convert/xplane_to_op_metrics_db.cc; device kernels
 * attributed to their framework op as TensorFlow 2.x did). */
#include "tools/steps_ops.h"

#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

typedef struct op_rec {
    uint32_t key;     /* string id of the op's full name */
    bool eager;
    int64_t dur_ps;
    int64_t self_ps;
} op_rec;

typedef struct rec_buf {
    op_rec *v;
    size_t n, cap;
} rec_buf;

static op_rec *rec_push(rec_buf *b)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->v = pv_xrealloc(b->v, b->cap * sizeof *b->v);
    }
    return &b->v[b->n++];
}

static int cmp_rec(const void *pa, const void *pb)
{
    const op_rec *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (int)a->eager - (int)b->eager;
}

static int cmp_metrics(const void *pa, const void *pb)
{
    const pv_op_metrics *a = pa, *b = pb;
    if (a->self_time_ps != b->self_time_ps)
        return a->self_time_ps > b->self_time_ps ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* The name as written: display names ("Iterator::Zip") drop the path
 * that tells one tf.data stage from another. */
static uint32_t event_name_sid(const pv_model *m, uint64_t e)
{
    return m->metas[m->ev_meta[e]].name;
}

/* Aggregates records into out (sorted by self time). */
static void finish_db(const pv_model *m, rec_buf *b, pv_arena *a, pv_op_db *out)
{
    if (b->n > 1)
        qsort(b->v, b->n, sizeof *b->v, cmp_rec);
    out->ops = pv_arena_zalloc(a, (b->n ? b->n : 1) * sizeof *out->ops);
    out->n_ops = 0;
    for (size_t i = 0; i < b->n;) {
        size_t j = i;
        pv_op_metrics *op = &out->ops[out->n_ops++];
        const char *full = pv_model_str(m, b->v[i].key);
        size_t nl, tl;
        const char *t;
        op->category = pv_op_parse(full, &nl, &t, &tl);
        if (op->category == PV_OPCAT_UNKNOWN) {
            nl = strlen(full);   /* a kernel without a framework op keeps its name */
            tl = 0;
        }
        op->name = pv_arena_strndup(a, full, nl);
        op->type = pv_arena_strndup(a, t, tl);
        op->is_eager = b->v[i].eager;
        for (; j < b->n && b->v[j].key == b->v[i].key && b->v[j].eager == b->v[i].eager; j++) {
            op->occurrences++;
            op->time_ps += b->v[j].dur_ps;
            op->self_time_ps += b->v[j].self_ps;
        }
        out->op_time_ps += op->self_time_ps;
        if (op->is_eager)
            out->eager_self_ps += op->self_time_ps;
        i = j;
    }
    if (out->n_ops > 1)
        qsort(out->ops, out->n_ops, sizeof *out->ops, cmp_metrics);
}

/* ---- host --------------------------------------------------------------- */

/* One begin or end of a framework op on a host thread. */
typedef struct activity {
    int64_t ts_ps;
    uint32_t id;      /* per-track sequence number of the op span */
    uint32_t key;     /* string id of the op's full name */
    bool is_end;
    bool eager;
    size_t order;     /* insertion order: ties keep it (stable sort) */
} activity;

typedef struct open_op {
    uint32_t id;
    int64_t start_ps;
    int64_t children_ps;
} open_op;

static int cmp_activity(const void *pa, const void *pb)
{
    const activity *a = pa, *b = pb;
    if (a->ts_ps != b->ts_ps)
        return a->ts_ps < b->ts_ps ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static void push_span(activity **v, size_t *n, size_t *cap, uint32_t id, uint32_t key,
                      bool eager, int64_t begin, int64_t end)
{
    if (*n + 2 > *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *v = pv_xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[*n] = (activity){begin, id, key, false, eager, *n};
    (*n)++;
    (*v)[*n] = (activity){end, id, key, true, eager, *n};
    (*n)++;
}

/* Replays one thread's begin/end activities in time order on a stack, as
 * the reference does. An end pops the stack down to its own begin; spans
 * above it are dropped, and an end whose begin is gone empties the stack.
 * Where two spans end at the same picosecond in the "wrong" order this
 * loses spans (the reference's result, kept on purpose so that both tools
 * report the same ops). Returns the thread's first-to-last activity span. */
static int64_t replay_track(activity *acts, size_t n, rec_buf *b, open_op **stack, size_t *cap)
{
    if (n == 0)
        return 0;
    qsort(acts, n, sizeof *acts, cmp_activity);
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        const activity *x = &acts[i];
        if (!x->is_end) {
            if (depth == *cap) {
                *cap = *cap ? 2 * *cap : 16;
                *stack = pv_xrealloc(*stack, *cap * sizeof **stack);
            }
            (*stack)[depth++] = (open_op){x->id, x->ts_ps, 0};
            continue;
        }
        bool found = false;
        open_op op = {0, 0, 0};
        while (depth > 0) {
            op = (*stack)[--depth];
            if (op.id == x->id) {
                found = true;
                break;
            }
        }
        if (!found)
            continue;
        int64_t dur = x->ts_ps - op.start_ps;
        *rec_push(b) = (op_rec){x->key, x->eager, dur, dur - op.children_ps};
        if (depth > 0)
            (*stack)[depth - 1].children_ps += dur;
    }
    return acts[n - 1].ts_ps - acts[0].ts_ps;
}

void pv_steps_host_ops(const pv_model *m, pv_arena *a, pv_op_db *out)
{
    memset(out, 0, sizeof *out);
    rec_buf b = {0};
    activity *acts = NULL;
    size_t cap_acts = 0;
    open_op *stack = NULL;
    size_t cap_stack = 0;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->kind != PV_PLANE_HOST)
            continue;
        for (uint32_t ti = pl->first_track; ti < pl->first_track + pl->n_tracks; ti++) {
            const pv_track *t = &m->tracks[ti];
            if (t->kind != PV_TRACK_PLAIN)
                continue;
            size_t n = 0;
            uint32_t id = 0;
            for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
                int64_t begin = m->ev_start_ps[e], end = begin + m->ev_dur_ps[e];
                const pv_event_extra *x = pv_model_event_extra(m, e);
                uint32_t key = event_name_sid(m, e);
                size_t nl, tl;
                const char *ty;
                /* An op by its name, and again by its tf_op stat when it has
                 * one: the reference counts both. */
                if (pv_op_parse(pv_model_str(m, key), &nl, &ty, &tl) != PV_OPCAT_UNKNOWN)
                    push_span(&acts, &n, &cap_acts, ++id, key,
                              x != NULL && (x->flags & PV_EXTRA_EAGER), begin, end);
                if (x != NULL && x->tf_op != 0 && pv_model_str(m, x->tf_op)[0] != '\0')
                    push_span(&acts, &n, &cap_acts, ++id, x->tf_op, false, begin, end);
            }
            out->total_time_ps += replay_track(acts, n, &b, &stack, &cap_stack);
        }
    }
    free(stack);
    free(acts);
    finish_db(m, &b, a, out);
    free(b.v);
}

/* ---- device ------------------------------------------------------------- */

void pv_steps_device_ops(const pv_model *m, pv_arena *a, pv_op_db *out)
{
    memset(out, 0, sizeof *out);
    rec_buf b = {0};
    uint32_t level0 = pv_model_str_find(m, "level 0");
    int64_t first_ps = INT64_MAX, last_ps = INT64_MIN;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->kind != PV_PLANE_GPU)
            continue;
        for (uint32_t ti = pl->first_track; ti < pl->first_track + pl->n_tracks; ti++) {
            const pv_track *t = &m->tracks[ti];
            if (t->kind != PV_TRACK_PLAIN)
                continue;
            for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
                const pv_event_extra *x = pv_model_event_extra(m, e);
                uint32_t key = x != NULL ? x->tf_op : 0;
                if (key == 0 && level0 != 0) {
                    const pv_stat *s = pv_model_event_stat(m, e, level0);
                    if (s != NULL && s->type == PV_STAT_STR)
                        key = s->v.str;
                }
                if (key == 0)
                    key = event_name_sid(m, e);
                int64_t begin = m->ev_start_ps[e], dur = m->ev_dur_ps[e];
                *rec_push(&b) = (op_rec){key, x != NULL && (x->flags & PV_EXTRA_EAGER), dur, dur};
                if (begin < first_ps)
                    first_ps = begin;
                if (begin + dur > last_ps)
                    last_ps = begin + dur;
            }
        }
    }
    out->total_time_ps = last_ps > first_ps ? last_ps - first_ps : 0;
    finish_db(m, &b, a, out);
    free(b.v);
}
