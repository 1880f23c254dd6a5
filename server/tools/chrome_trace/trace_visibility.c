/* trace_visibility: XProf's decimation of trace_viewer@ answers.
 *
 * XProf stores each event once, at the coarsest of 13 zoom levels (1 s ..
 * 1 ps) at which it is visible over the whole trace, and counts it visible
 * at every finer level too. A request reads the levels down to the first
 * one at least as fine as its resolution, merges them by time and filters
 * them once more at the request's resolution. "Visible at resolution r" is
 * decided per row in time order:
 *   - a counter sample: the first of its series, or r after the last kept;
 *   - an event: lasting at least r, or the first kept at its nesting depth,
 *     or starting r after the end of the last kept one at that depth; the
 *     depth is counted over the kept events still open;
 *   - an event with a flow: the first event of the flow decides for the
 *     whole flow (kept by the rules above, or else when its end is r past
 *     the last kept flow end of its row), and later events of the flow
 *     follow it.
 * We emulate both steps on the events the Chrome JSON would write, in
 * XProf's order (start, longer first, pid, tid, name), so the same events
 * survive.
 *
 * The levels are the expensive step and do not depend on the request, so
 * they are computed once per trace and kept. Only flows tie rows together:
 * a row's levels depend on the others only through the level at which
 * each flow's first event is visible. So the flows are decided first, over
 * every row at once in XProf's order (a merge of the rows' walks, each
 * already in order), and each row is then walked alone with those levels
 * in hand. Nothing is held per event. */
#include "tools/chrome_trace/trace_visibility.h"

#include "util/hashtab.h"
#include "util/mem.h"
#include "util/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_LEVEL_STATES (PV_TRACE_VIS_LEVELS - 1) /* the finest level takes the rest */
#define FLOW_ID_MASK ((1ull << 56) - 1)
#define FLOW_DIR_IN 1u /* the flow's last event: its entry is forgotten */

static const uint64_t layer_res_ps[PV_TRACE_VIS_LEVELS] = {
    1000000000000ull, 100000000000ull, 10000000000ull, 1000000000ull, 100000000ull,
    10000000ull,      1000000ull,      100000ull,      10000ull,      1000ull,
    100ull,           10ull,           1ull};

/* ---- one visibility state (XProf's TraceViewerVisibility) ------------------------ */

typedef struct row_state {
    int64_t *end_ps;   /* end of the last kept event per open depth */
    size_t n, cap;
    int64_t last_flow_ps; /* end of the last kept flow event */
    bool has_flow;
    int64_t last_counter_ps; /* counter rows: time of the last kept sample */
    bool has_counter;
} row_state;

typedef struct vis_state {
    uint64_t res_ps;
    row_state *rows;
    pv_hashtab flows;   /* flow id -> 1 visible, 0 hidden, until its last event */
} vis_state;

/* What the state machine reads of one event. */
typedef struct vis_ev {
    int64_t start_ps;
    int64_t dur_ps;
    uint64_t flow;
    uint32_t row;
    bool counter;      /* the row is a counter series */
} vis_ev;

static void state_init(vis_state *s, uint64_t res_ps, size_t n_rows)
{
    s->res_ps = res_ps;
    s->rows = pv_xcalloc(n_rows + 1, sizeof *s->rows);
    memset(&s->flows, 0, sizeof s->flows);
}

static void state_fini(vis_state *s, size_t n_rows)
{
    for (size_t i = 0; i < n_rows; i++)
        free(s->rows[i].end_ps);
    free(s->rows);
    pv_hashtab_fini(&s->flows);
}

/* Nesting depth at begin: the kept events still open then. */
static size_t row_depth(const row_state *r, int64_t begin_ps)
{
    size_t d = 0;
    while (d < r->n && r->end_ps[d] > begin_ps)
        d++;
    return d;
}

static void row_set_end(row_state *r, size_t depth, int64_t end_ps)
{
    r->n = depth;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 8;
        r->end_ps = pv_xrealloc(r->end_ps, r->cap * sizeof *r->end_ps);
    }
    r->end_ps[r->n++] = end_ps;
}

/* XProf subtracts unsigned picoseconds; a later time minus an earlier one
 * is what the rule means, and wrapping keeps its verdict when it is not. */
static bool gap_at_least(int64_t later, int64_t earlier, uint64_t res_ps)
{
    return (uint64_t)later - (uint64_t)earlier >= res_ps;
}

static bool visible_at_res(vis_state *s, const vis_ev *e)
{
    row_state *r = &s->rows[e->row];
    if (e->counter) {
        bool vis = !r->has_counter || gap_at_least(e->start_ps, r->last_counter_ps, s->res_ps);
        if (vis) {
            r->last_counter_ps = e->start_ps;
            r->has_counter = true;
        }
        return vis;
    }
    int64_t end = e->start_ps + e->dur_ps;
    bool vis = (uint64_t)e->dur_ps >= s->res_ps;
    size_t depth = row_depth(r, e->start_ps);
    if (!vis)
        vis = depth >= r->n || gap_at_least(e->start_ps, r->end_ps[depth], s->res_ps);
    if (e->flow != 0) {
        uint64_t id = (e->flow >> 2) & FLOW_ID_MASK;
        pv_hashtab_cursor c = pv_hashtab_probe(&s->flows, pv_hash_u64(id));
        uint32_t flow_vis;
        bool known = pv_hashtab_next(&c, &flow_vis);
        if (!known)
            flow_vis = vis || !r->has_flow || gap_at_least(end, r->last_flow_ps, s->res_ps) ? 1 : 0;
        if (!vis)
            vis = flow_vis != 0;
        if ((e->flow & 3u) == FLOW_DIR_IN) {
            if (known)
                pv_hashtab_remove(&s->flows, &c);
        } else if (!known) {
            pv_hashtab_insert(&s->flows, &c, flow_vis);
        }
        if (vis) {
            r->last_flow_ps = end;
            r->has_flow = true;
        }
    }
    if (vis)
        row_set_end(r, depth, end);
    return vis;
}

/* Records e as visible without testing it (finer levels than its own). */
static void set_visible(vis_state *s, const vis_ev *e)
{
    row_state *r = &s->rows[e->row];
    if (e->counter) {
        r->last_counter_ps = e->start_ps;
        r->has_counter = true;
        return;
    }
    int64_t end = e->start_ps + e->dur_ps;
    if (e->flow != 0) {
        uint64_t id = (e->flow >> 2) & FLOW_ID_MASK;
        if ((e->flow & 3u) == FLOW_DIR_IN)
            pv_hashtab_u64_remove(&s->flows, id);
        else
            pv_hashtab_u64_add(&s->flows, id, 1);
        r->last_flow_ps = end;
        r->has_flow = true;
    }
    row_set_end(r, row_depth(r, e->start_ps), end);
}

/* ---- public -------------------------------------------------------------------- */

void pv_trace_vis_span_of(const pv_trace_vis_window *w, pv_trace_vis_span *out)
{
    int64_t b = w->start_ps < w->trace_begin_ps ? w->trace_begin_ps : w->start_ps;
    int64_t e = w->end_ps > w->trace_end_ps ? w->trace_end_ps : w->end_ps;
    out->begin_ps = b;
    out->end_ps = e > b ? e : b;
    out->instant = e <= b;
    out->resolution_ps = 0;
    if (w->resolution != 0 && !out->instant)
        out->resolution_ps = (uint64_t)llround((double)(e - b) / (double)w->resolution);
}

bool pv_trace_vis_overlaps(const pv_trace_vis_span *s, int64_t start_ps, int64_t dur_ps)
{
    return s->instant || (start_ps <= s->end_ps && start_ps + dur_ps >= s->begin_ps);
}

unsigned pv_trace_vis_read_to(const pv_trace_vis_span *s)
{
    unsigned z = 0;
    while (z < PV_TRACE_VIS_LEVELS - 1 && s->resolution_ps < layer_res_ps[z])
        z++;
    return z;
}

/* ---- the levels of a whole trace --------------------------------------------------- */

static int cmp_rowdef(const pv_trace_vis_rowdef *a, const pv_trace_vis_rowdef *b)
{
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->counter != b->counter)
        return a->counter ? 1 : -1;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    return 0;
}

/* Rows in (pid, counter, tid) order: rank[row]. A small insertion sort:
 * rows are threads and counter series, a few hundred at most. Rows that
 * compare equal keep the order they were declared in. */
static uint32_t *row_ranks(const pv_trace_vis_rowdef *rows, size_t n_rows)
{
    uint32_t *order = pv_xcalloc(n_rows + 1, sizeof *order);
    uint32_t *rank = pv_xcalloc(n_rows + 1, sizeof *rank);
    for (size_t i = 0; i < n_rows; i++) {
        size_t k = i;
        order[k] = (uint32_t)i;
        while (k > 0 && cmp_rowdef(&rows[order[k - 1]], &rows[order[k]]) > 0) {
            uint32_t t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
            k--;
        }
    }
    for (size_t i = 0; i < n_rows; i++)
        rank[order[i]] = (uint32_t)i;
    free(order);
    return rank;
}

static vis_ev ev_of(const pv_trace_vis_rowdef *rows, const pv_trace_vis_item *it)
{
    return (vis_ev){it->start_ps, it->dur_ps, it->flow, it->row, rows[it->row].counter};
}

/* A group's next flow event, waiting to be merged. */
typedef struct head {
    pv_trace_vis_item it;
    uint32_t rank;
    size_t group;
} head;

/* XProf's order between the heads of two groups (rows). */
static bool head_before(const head *a, const head *b)
{
    if (a->it.start_ps != b->it.start_ps)
        return a->it.start_ps < b->it.start_ps;
    if (a->it.dur_ps != b->it.dur_ps)
        return a->it.dur_ps > b->it.dur_ps;
    return a->rank < b->rank;
}

static void heap_down(head *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        if (l < n && head_before(&h[l], &h[best]))
            best = l;
        if (l + 1 < n && head_before(&h[l + 1], &h[best]))
            best = l + 1;
        if (best == i)
            return;
        head t = h[i];
        h[i] = h[best];
        h[best] = t;
        i = best;
    }
}

/* The level at which each flow's first event is visible (the finest,
 * PV_TRACE_VIS_LEVELS - 1, when none of the others), by flow id: every
 * group's flow events merged into XProf's order and decided as XProf's
 * store decides them, on states of their own. */
static void flow_levels(const pv_trace_vis_rowdef *rows, size_t n_rows,
                        const pv_trace_vis_source *src, const uint32_t *rank, pv_hashtab *first)
{
    vis_state st[N_LEVEL_STATES];
    for (int z = 0; z < N_LEVEL_STATES; z++)
        state_init(&st[z], layer_res_ps[z], n_rows);
    head *h = pv_xcalloc(src->n_groups + 1, sizeof *h);
    size_t n = 0;
    for (size_t g = 0; g < src->n_groups; g++) {
        src->open(src->ctx, g, true);
        if (src->next(src->ctx, g, &h[n].it)) {
            h[n].rank = rank[h[n].it.row];
            h[n++].group = g;
        }
    }
    for (size_t i = n; i > 0; i--)
        heap_down(h, n, i - 1);
    while (n > 0) {
        vis_ev e = ev_of(rows, &h[0].it);
        if (e.flow != 0 && !e.counter) {
            int z = 0;
            for (; z < N_LEVEL_STATES; z++)
                if (visible_at_res(&st[z], &e))
                    break;
            pv_hashtab_u64_add(first, (e.flow >> 2) & FLOW_ID_MASK, (uint32_t)z);
            for (z++; z < N_LEVEL_STATES; z++)
                set_visible(&st[z], &e);
        }
        if (src->next(src->ctx, h[0].group, &h[0].it))
            h[0].rank = rank[h[0].it.row];
        else
            h[0] = h[--n];
        heap_down(h, n, 0);
    }
    free(h);
    for (int z = 0; z < N_LEVEL_STATES; z++)
        state_fini(&st[z], n_rows);
}

void pv_trace_vis_levels(const pv_trace_vis_rowdef *rows, size_t n_rows,
                         const pv_trace_vis_source *src)
{
    uint32_t *rank = row_ranks(rows, n_rows);
    pv_hashtab first = {0};
    flow_levels(rows, n_rows, src, rank, &first);
    free(rank);
    /* Each row alone: its events depend on no other row's but through the
     * flows, whose verdicts are known now. Flow state is not kept here:
     * nothing below reads it. */
    vis_state st[N_LEVEL_STATES];
    for (int z = 0; z < N_LEVEL_STATES; z++)
        state_init(&st[z], layer_res_ps[z], n_rows);
    for (size_t g = 0; g < src->n_groups; g++) {
        src->open(src->ctx, g, false);
        pv_trace_vis_item it;
        while (src->next(src->ctx, g, &it)) {
            vis_ev e = ev_of(rows, &it);
            int z = 0;
            if (e.flow != 0 && !e.counter) {
                uint32_t flow_z = N_LEVEL_STATES;
                pv_hashtab_u64_get(&first, (e.flow >> 2) & FLOW_ID_MASK, &flow_z);
                while (z < N_LEVEL_STATES && z < (int)flow_z &&
                       (uint64_t)e.dur_ps < layer_res_ps[z])
                    z++;
                e.flow = 0;
                if (z < N_LEVEL_STATES)
                    set_visible(&st[z], &e);
            } else {
                e.flow = 0;
                while (z < N_LEVEL_STATES && !visible_at_res(&st[z], &e))
                    z++;
            }
            src->set_level(src->ctx, g, &it, (unsigned)z);
            for (z++; z < N_LEVEL_STATES; z++)
                set_visible(&st[z], &e);
        }
    }
    for (int z = 0; z < N_LEVEL_STATES; z++)
        state_fini(&st[z], n_rows);
    pv_hashtab_fini(&first);
}

/* ---- one request ------------------------------------------------------------------ */

typedef struct row_info {
    int64_t pid, tid;
    bool counter;
} row_info;

/* An added event; sorted into XProf's order for deciding. */
typedef struct vis_event {
    int64_t start_ps;
    int64_t dur_ps;
    const char *name;
    uint64_t flow;
    size_t idx;    /* order of adding */
    uint32_t row;
    uint32_t rank; /* the row's place in (pid, counter, tid) order */
} vis_event;

struct pv_trace_vis {
    pv_trace_vis_span span;
    pv_trace_vis_rowdef *rows;
    size_t n_rows, cap_rows;
    vis_event *ev;
    size_t n_ev, cap_ev;
    uint8_t *keep; /* by idx, after deciding */
};

pv_trace_vis *pv_trace_vis_new(const pv_trace_vis_span *s)
{
    pv_trace_vis *v = pv_xcalloc(1, sizeof *v);
    v->span = *s;
    return v;
}

void pv_trace_vis_free(pv_trace_vis *v)
{
    if (v == NULL)
        return;
    free(v->rows);
    free(v->ev);
    free(v->keep);
    free(v);
}

uint32_t pv_trace_vis_row(pv_trace_vis *v, int64_t pid, int64_t tid, bool counter)
{
    if (v->n_rows == v->cap_rows) {
        v->cap_rows = v->cap_rows ? v->cap_rows * 2 : 64;
        v->rows = pv_xrealloc(v->rows, v->cap_rows * sizeof *v->rows);
    }
    v->rows[v->n_rows] = (pv_trace_vis_rowdef){pid, tid, counter};
    return (uint32_t)v->n_rows++;
}

void pv_trace_vis_add(pv_trace_vis *v, uint32_t row, int64_t start_ps, int64_t dur_ps,
                      const char *name, uint64_t flow)
{
    if (v->n_ev == v->cap_ev) {
        v->cap_ev = v->cap_ev ? v->cap_ev * 2 : 1024;
        v->ev = pv_xrealloc(v->ev, v->cap_ev * sizeof *v->ev);
    }
    v->ev[v->n_ev] = (vis_event){start_ps, dur_ps > 0 ? dur_ps : 0, name, flow, v->n_ev, row, 0};
    v->n_ev++;
}

size_t pv_trace_vis_count(const pv_trace_vis *v)
{
    return v->n_ev;
}

bool pv_trace_vis_kept(const pv_trace_vis *v, size_t i)
{
    return i < v->n_ev && v->keep != NULL && v->keep[i];
}

/* XProf's event order; the order of adding settles what it leaves open. */
static int cmp_event(const void *pa, const void *pb)
{
    const vis_event *a = pa, *b = pb;
    if (a->start_ps != b->start_ps)
        return a->start_ps < b->start_ps ? -1 : 1;
    if (a->dur_ps != b->dur_ps)
        return a->dur_ps > b->dur_ps ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c != 0)
        return c;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

void pv_trace_vis_decide(pv_trace_vis *v)
{
    const pv_trace_vis_span *s = &v->span;
    free(v->keep);
    v->keep = pv_xcalloc(v->n_ev + 1, 1);
    if (s->resolution_ps == 0) {
        for (size_t i = 0; i < v->n_ev; i++)
            v->keep[i] = pv_trace_vis_overlaps(s, v->ev[i].start_ps, v->ev[i].dur_ps);
        return;
    }
    uint32_t *rank = row_ranks(v->rows, v->n_rows);
    for (size_t i = 0; i < v->n_ev; i++)
        v->ev[i].rank = rank[v->ev[i].row];
    free(rank);
    pv_sort(v->ev, v->n_ev, sizeof *v->ev, cmp_event);
    vis_state st;
    state_init(&st, s->resolution_ps, v->n_rows);
    for (size_t i = 0; i < v->n_ev; i++) {
        const vis_event *e = &v->ev[i];
        if (!pv_trace_vis_overlaps(s, e->start_ps, e->dur_ps))
            continue;
        vis_ev x = {e->start_ps, e->dur_ps, e->flow, e->row, v->rows[e->row].counter};
        v->keep[e->idx] = visible_at_res(&st, &x);
    }
    state_fini(&st, v->n_rows);
}
