/* op_replay: the replay of a thread's op spans through a heap of the
 * open ones' ends (op_replay.h). */
#include "tools/common/op_replay.h"

#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

struct pv_op_replay_end {
    int64_t ts_ps;
    uint32_t span;      /* the order added: the tie-break of equal ends */
    uint32_t key;
    bool eager;
};

struct pv_op_replay_open {
    uint32_t span;
    int64_t begin_ps;
    int64_t children_ps;
};

static inline bool end_before(const void *ctx, const pv_op_replay_end *a,
                              const pv_op_replay_end *b)
{
    (void)ctx;
    return a->ts_ps < b->ts_ps || (a->ts_ps == b->ts_ps && a->span < b->span);
}

PV_HEAP(ends, pv_op_replay_end, void, end_before)

void pv_op_replay_init(pv_op_replay *r, pv_op_replay_fn done, void *ctx)
{
    memset(r, 0, sizeof *r);
    r->done = done;
    r->ctx = ctx;
}

void pv_op_replay_fini(pv_op_replay *r)
{
    free(r->ends);
    free(r->stack);
    memset(r, 0, sizeof *r);
}

/* The end e: pops the stack down to its begin. */
static int span_end(pv_op_replay *r, const pv_op_replay_end *e)
{
    pv_op_replay_open op = {0, 0, 0};
    bool found = false;
    while (r->depth > 0 && !found) {
        op = r->stack[--r->depth];
        found = op.span == e->span;
    }
    if (!found)
        return 0;
    int64_t dur = e->ts_ps - op.begin_ps;
    if (r->depth > 0)
        r->stack[r->depth - 1].children_ps += dur;
    return r->done(r->ctx, e->key, e->eager, dur, op.children_ps);
}

/* Ends the open spans that end by ts, in (time, order added): all of them
 * were added before a begin at ts, so ends at ts go first. */
static int ends_upto(pv_op_replay *r, int64_t ts)
{
    while (r->n_ends > 0 && r->ends[0].ts_ps <= ts) {
        pv_op_replay_end e = r->ends[0];
        r->ends[0] = r->ends[--r->n_ends];
        ends_down(NULL, r->ends, r->n_ends, 0);
        int rc = span_end(r, &e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int pv_op_replay_add(pv_op_replay *r, uint32_t key, bool eager, int64_t begin_ps,
                     int64_t end_ps)
{
    if (end_ps < begin_ps)
        end_ps = begin_ps;
    int rc = ends_upto(r, begin_ps);
    if (rc != 0)
        return rc;
    if (r->n_spans == 0 || end_ps > r->last_ps)
        r->last_ps = end_ps;
    if (r->n_spans == 0)
        r->first_ps = begin_ps;
    uint32_t span = r->n_spans++;
    if (r->depth == r->cap_stack) {
        r->cap_stack = r->cap_stack ? 2 * r->cap_stack : 64;
        r->stack = pv_xrealloc(r->stack, r->cap_stack * sizeof *r->stack);
    }
    r->stack[r->depth++] = (pv_op_replay_open){span, begin_ps, 0};
    if (r->n_ends == r->cap_ends) {
        r->cap_ends = r->cap_ends ? 2 * r->cap_ends : 64;
        r->ends = pv_xrealloc(r->ends, r->cap_ends * sizeof *r->ends);
    }
    r->ends[r->n_ends] = (pv_op_replay_end){end_ps, span, key, eager};
    ends_up(NULL, r->ends, r->n_ends++);
    return 0;
}

int pv_op_replay_thread_end(pv_op_replay *r, int64_t *span_ps)
{
    int rc = ends_upto(r, INT64_MAX);
    if (span_ps != NULL)
        *span_ps = r->n_spans > 0 ? r->last_ps - r->first_ps : 0;
    r->n_ends = 0;
    r->depth = 0;
    r->n_spans = 0;
    return rc;
}
