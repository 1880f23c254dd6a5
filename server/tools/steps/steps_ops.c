/* steps_ops: the host's framework-op table (reference: host threads in
 * xprof/convert/xplane_to_op_metrics_db.cc). */
#include "tools/steps/steps_ops.h"

#include "tools/common/op_replay.h"
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

/* A span of a host thread ended (op_replay.h): counted under its key. */
static int op_done(void *ctx, uint32_t key, bool eager, int64_t dur_ps, int64_t children_ps)
{
    rec_add(ctx, key, eager, dur_ps, dur_ps - children_ps);
    return 0;
}

void pv__steps_host_ops_compute(const pv_model *m, pv_arena *a, pv_steps_op_db *out)
{
    memset(out, 0, sizeof *out);
    rec_buf b = {0};
    pv_op_replay r;
    pv_op_replay_init(&r, op_done, &b);
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
            for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
                int64_t begin = m->ev_start_ps[e];
                int64_t end = begin + (m->ev_dur_ps[e] > 0 ? m->ev_dur_ps[e] : 0);
                const pv_event_extra *x = pv_model_event_extra(m, e);
                uint32_t key = event_name_sid(m, e);
                /* An op by its name, and again by its tf_op stat when it has
                 * one: the reference counts both. */
                if (op_meta[m->ev_meta[e]])
                    (void)pv_op_replay_add(&r, key, x != NULL && (x->flags & PV_EXTRA_EAGER),
                                           begin, end);
                if (x != NULL && x->tf_op != 0 && pv_model_str(m, x->tf_op)[0] != '\0')
                    (void)pv_op_replay_add(&r, x->tf_op, false, begin, end);
            }
            int64_t span_ps = 0;
            (void)pv_op_replay_thread_end(&r, &span_ps);
            out->total_time_ps += span_ps;
        }
    }
    free(op_meta);
    pv_op_replay_fini(&r);
    finish_db(m, &b, a, out);
    rec_free(&b);
}
