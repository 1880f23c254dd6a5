/* steps_ops: the host's framework-op table (reference: host threads in
 * xprof/convert/xplane_to_op_metrics_db.cc). */
#include "tools/steps/steps_ops.h"

#include "util/hashtab.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

/* One op's running totals. */
typedef struct op_rec {
    uint32_t key;     /* string id of the op's full name */
    bool eager;
    uint64_t count;
    int64_t dur_ps;
    int64_t self_ps;
} op_rec;

/* Totals per (key, eager), found through a hash table of indices into v
 * (ops repeat millions of times; distinct ops are few). */
typedef struct rec_buf {
    op_rec *v;
    size_t n, cap;
    pv_hashtab index;  /* key << 1 | eager (pv_hash_u64) -> index into v */
} rec_buf;

static void rec_add(rec_buf *b, uint32_t key, bool eager, int64_t dur_ps, int64_t self_ps)
{
    uint32_t i = pv_hashtab_u64_add(&b->index, (uint64_t)key << 1 | eager, (uint32_t)b->n);
    if (i == b->n) {
        if (b->n == b->cap) {
            b->cap = b->cap ? 2 * b->cap : 256;
            b->v = pv_xrealloc(b->v, b->cap * sizeof *b->v);
        }
        b->v[b->n++] = (op_rec){key, eager, 0, 0, 0};
    }
    op_rec *r = &b->v[i];
    r->count++;
    r->dur_ps += dur_ps;
    r->self_ps += self_ps;
}

static void rec_free(rec_buf *b)
{
    pv_hashtab_fini(&b->index);
    free(b->v);
}

static int cmp_metrics(const void *pa, const void *pb)
{
    const pv_steps_op *a = pa, *b = pb;
    if (a->self_time_ps != b->self_time_ps)
        return a->self_time_ps > b->self_time_ps ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c != 0)
        return c;
    /* Same name: a fixed order, so equal inputs give equal outputs. */
    if (a->is_eager != b->is_eager)
        return a->is_eager ? 1 : -1;
    return strcmp(a->type, b->type);
}

/* Whether the string with id key parses as a framework op name. Event
 * names repeat (one metadata per op), so the parse is cheap enough per
 * call; kept as a function so a memo can replace it. */
static bool is_op_name(const pv_model *m, uint32_t key)
{
    const char *full = pv_model_str(m, key);
    pv_tf_op op;
    pv_tf_op_parse(full, strlen(full), &op);
    return op.category != PV_TF_OP_UNKNOWN;
}

/* The name as written: display names ("Iterator::Zip") drop the path
 * that tells one tf.data stage from another. */
static uint32_t event_name_sid(const pv_model *m, uint64_t e)
{
    return m->metas[m->ev_meta[e]].name;
}

/* Moves the totals into out (sorted by self time). */
static void finish_db(const pv_model *m, rec_buf *b, pv_arena *a, pv_steps_op_db *out)
{
    out->ops = pv_arena_zalloc(a, (b->n ? b->n : 1) * sizeof *out->ops);
    out->n_ops = b->n;
    for (size_t i = 0; i < b->n; i++) {
        pv_steps_op *op = &out->ops[i];
        const char *full = pv_model_str(m, b->v[i].key);
        pv_tf_op parsed;   /* unknown (a kernel with no framework op): the whole name */
        pv_tf_op_parse(full, strlen(full), &parsed);
        op->category = (uint32_t)parsed.category;
        op->name = pv_arena_strndup(a, parsed.name, parsed.name_len);
        op->type = pv_arena_strndup(a, parsed.type, parsed.type_len);
        op->is_eager = b->v[i].eager;
        op->occurrences = b->v[i].count;
        op->time_ps = b->v[i].dur_ps;
        op->self_time_ps = b->v[i].self_ps;
        out->op_time_ps += op->self_time_ps;
        if (op->is_eager)
            out->eager_self_ps += op->self_time_ps;
    }
    pv_sort(out->ops, out->n_ops, sizeof *out->ops, cmp_metrics);
}

/* ---- host --------------------------------------------------------------- */

/* One framework op span on a host thread, in the order added; its id is
 * its index + 1. Its begin and end are the two activities the replay
 * orders: stored once, not as two records, since a big profile's thread
 * has millions (this is the step tools' largest scratch). */
typedef struct op_span {
    int64_t begin_ps, end_ps;
    uint32_t key;     /* string id of the op's full name */
    bool eager;
} op_span;

typedef struct open_op {
    uint32_t id;
    int64_t start_ps;
    int64_t children_ps;
} open_op;

/* An end, for sorting: time, then the order it was added in. */
typedef struct end_ref {
    int64_t ts_ps;
    uint32_t span;    /* index of the span */
} end_ref;

static inline bool end_before(const end_ref *a, const end_ref *b)
{
    return a->ts_ps < b->ts_ps || (a->ts_ps == b->ts_ps && a->span < b->span);
}

/* A thread's ends number in the millions on a big profile, so qsort's
 * call per comparison was a sixth of the overview's time. */
PV_MERGE_SORT(sort_ends, end_ref, end_before)

typedef struct span_buf {
    op_span *v;       /* in the order added */
    size_t n, cap;
    end_ref *ends;
    size_t cap_ends;
} span_buf;

static void push_span(span_buf *sb, uint32_t key, bool eager, int64_t begin, int64_t end)
{
    if (sb->n == sb->cap) {
        sb->cap = sb->cap ? 2 * sb->cap : 256;
        sb->v = pv_xrealloc(sb->v, sb->cap * sizeof *sb->v);
    }
    sb->v[sb->n++] = (op_span){begin, end, key, eager};
}

/* Replays one thread's begin/end activities in time order on a stack, as
 * the reference does (a stable sort by time of all begins and ends in the
 * order they were added). An end pops the stack down to its own begin;
 * spans above it are dropped, and an end whose begin is gone empties the
 * stack. Where two spans end at the same picosecond in the "wrong" order
 * this loses spans (the reference's result, kept on purpose so that both
 * tools report the same ops). Begins arrive sorted (the track is sorted by
 * start), so only the ends are sorted and the two runs merged.
 * Returns the thread's first-to-last activity span. */
static int64_t replay_track(span_buf *sb, rec_buf *b, open_op **stack, size_t *cap)
{
    size_t spans = sb->n;
    if (spans == 0)
        return 0;
    if (spans > sb->cap_ends) {
        sb->cap_ends = spans;
        sb->ends = pv_xrealloc(sb->ends, spans * sizeof *sb->ends);
    }
    int64_t last_ps = INT64_MIN;
    for (size_t i = 0; i < spans; i++) {
        sb->ends[i] = (end_ref){sb->v[i].end_ps, (uint32_t)i};
        if (sb->ends[i].ts_ps > last_ps)
            last_ps = sb->ends[i].ts_ps;
    }
    sort_ends(sb->ends, spans);
    size_t depth = 0, bi = 0, ei = 0;
    while (bi < spans || ei < spans) {
        /* Next in (time, order added): span bi's begin, added before span
         * s's end when bi <= s. */
        bool take_begin = bi < spans &&
                          (ei == spans || sb->v[bi].begin_ps < sb->ends[ei].ts_ps ||
                           (sb->v[bi].begin_ps == sb->ends[ei].ts_ps &&
                            bi <= (size_t)sb->ends[ei].span));
        if (take_begin) {
            if (depth == *cap) {
                *cap = *cap ? 2 * *cap : 16;
                *stack = pv_xrealloc(*stack, *cap * sizeof **stack);
            }
            (*stack)[depth++] = (open_op){(uint32_t)bi + 1, sb->v[bi].begin_ps, 0};
            bi++;
            continue;
        }
        size_t si = sb->ends[ei++].span;
        const op_span *x = &sb->v[si];
        uint32_t id = (uint32_t)si + 1;
        bool found = false;
        open_op op = {0, 0, 0};
        while (depth > 0) {
            op = (*stack)[--depth];
            if (op.id == id) {
                found = true;
                break;
            }
        }
        if (!found)
            continue;
        int64_t dur = x->end_ps - op.start_ps;
        rec_add(b, x->key, x->eager, dur, dur - op.children_ps);
        if (depth > 0)
            (*stack)[depth - 1].children_ps += dur;
    }
    return last_ps - sb->v[0].begin_ps;
}

void pv__steps_host_ops_compute(const pv_model *m, pv_arena *a, pv_steps_op_db *out)
{
    memset(out, 0, sizeof *out);
    rec_buf b = {0};
    span_buf sb = {0};
    open_op *stack = NULL;
    size_t cap_stack = 0;
    /* Whether each event metadata's name is an op, parsed once per name
     * rather than once per event (a host has millions of events and a few
     * thousand names). */
    bool *op_meta = pv_xmalloc(m->n_metas + 1u);
    for (uint32_t i = 0; i < m->n_metas; i++)
        op_meta[i] = is_op_name(m, m->metas[i].name);
    for (uint32_t p = 0; p < m->n_planes; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->kind != PV_PLANE_HOST)
            continue;
        for (uint32_t ti = pl->first_track; ti < pl->first_track + pl->n_tracks; ti++) {
            const pv_track *t = &m->tracks[ti];
            if (t->kind != PV_TRACK_PLAIN)
                continue;
            sb.n = 0;
            for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
                int64_t begin = m->ev_start_ps[e], end = begin + m->ev_dur_ps[e];
                const pv_event_extra *x = pv_model_event_extra(m, e);
                uint32_t key = event_name_sid(m, e);
                /* An op by its name, and again by its tf_op stat when it has
                 * one: the reference counts both. */
                if (op_meta[m->ev_meta[e]])
                    push_span(&sb, key, x != NULL && (x->flags & PV_EXTRA_EAGER), begin, end);
                if (x != NULL && x->tf_op != 0 && pv_model_str(m, x->tf_op)[0] != '\0')
                    push_span(&sb, x->tf_op, false, begin, end);
            }
            out->total_time_ps += replay_track(&sb, &b, &stack, &cap_stack);
        }
    }
    free(op_meta);
    free(stack);
    free(sb.ends);
    free(sb.v);
    finish_db(m, &b, a, out);
    rec_free(&b);
}
