/* steps_ops: host and device framework-op tables (reference:
 * host_threads_xplane_to_tf_metrics_db / device op metrics in xprof).
 *
 * Self time on the host uses the model's nesting (each track's events
 * sorted by start, parents first) rather than the reference's begin/end
 * activity stack; the two differ only where TraceMe spans end at the same
 * picosecond in a different order, which the old TensorFlow converter
 * resolved by dropping spans (see tests/unit/test_overview_ref.c). */
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
    qsort(out->ops, out->n_ops, sizeof *out->ops, cmp_metrics);
}

/* ---- host --------------------------------------------------------------- */

typedef struct frame {
    int64_t end_ps;
    size_t rec;       /* index of the record whose self time children reduce */
} frame;

void pv_steps_host_ops(const pv_model *m, pv_arena *a, pv_op_db *out)
{
    memset(out, 0, sizeof *out);
    rec_buf b = {0};
    frame *stack = NULL;
    size_t cap = 0;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->kind != PV_PLANE_HOST)
            continue;
        for (uint32_t ti = pl->first_track; ti < pl->first_track + pl->n_tracks; ti++) {
            const pv_track *t = &m->tracks[ti];
            if (t->kind != PV_TRACK_PLAIN)
                continue;
            size_t depth = 0;
            int64_t first_ps = INT64_MAX, last_ps = INT64_MIN;
            for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
                const pv_event_extra *x = pv_model_event_extra(m, e);
                uint32_t key = x != NULL && x->tf_op != 0 ? x->tf_op : event_name_sid(m, e);
                size_t nl, tl;
                const char *ty;
                if (pv_op_parse(pv_model_str(m, key), &nl, &ty, &tl) == PV_OPCAT_UNKNOWN)
                    continue;
                int64_t begin = m->ev_start_ps[e], dur = m->ev_dur_ps[e];
                while (depth > 0 && stack[depth - 1].end_ps < begin + dur)
                    depth--;
                if (depth > 0)
                    b.v[stack[depth - 1].rec].self_ps -= dur;
                op_rec *r = rec_push(&b);
                *r = (op_rec){key, x != NULL && (x->flags & PV_EXTRA_EAGER), dur, dur};
                if (depth == cap) {
                    cap = cap ? 2 * cap : 16;
                    stack = pv_xrealloc(stack, cap * sizeof *stack);
                }
                stack[depth++] = (frame){begin + dur, b.n - 1};
                if (begin < first_ps)
                    first_ps = begin;
                if (begin + dur > last_ps)
                    last_ps = begin + dur;
            }
            if (last_ps > first_ps)
                out->total_time_ps += last_ps - first_ps;
        }
    }
    free(stack);
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
