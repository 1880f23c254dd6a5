/* trace_tiles: cutting tiles from the sorted per-depth arrays, and the
 * pyramid of precomputed coarse levels (see trace_tiles.h).
 *
 * The rule, per track and depth, over the events whose start lies in the
 * tile, in start order: a wide event closes the open box and is listed; a
 * small one joins the open box when it starts at most one pixel after the
 * box's end, else it closes it and opens a new one. Pixel tests are exact
 * integer comparisons (dur >= ceil(span / 2^(10+L)), gap > floor(...)), so
 * every tile of a level uses the same threshold and a tile computed from
 * the pyramid equals the same tile cut directly. */
#include "tools/trace_tiles/trace_tiles.h"
#include "tools/trace_tiles/trace_pyramid.h"

#include "util/bsearch.h"
#include "util/mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- geometry ----------------------------------------------------------- */

/* Finest tiles are at most this wide, so a pixel is at most 16 ps. */
#define FINEST_TILE_PS 16384

pv_trace_geom pv_trace_geom_of(const pv_model *m)
{
    pv_trace_geom g = {0, 1, 0};
    if (m->n_events == 0)
        return g;
    g.t0_ps = m->min_ps;
    g.span_ps = m->max_ps - m->min_ps + 1;
    if (g.span_ps < 1)
        g.span_ps = 1;
    while (g.max_level + 1 < PV_TRACE_MAX_LEVELS && (g.span_ps >> g.max_level) > FINEST_TILE_PS)
        g.max_level++;
    return g;
}

int64_t pv_trace_tile_edge(const pv_trace_geom *g, uint32_t level, uint64_t index)
{
    /* span * index / 2^level, exact: the product needs up to 113 bits. */
    unsigned __int128 p = (unsigned __int128)(uint64_t)g->span_ps * index;
    return g->t0_ps + (int64_t)(p >> level);
}

/* Pixel thresholds of one level. */
typedef struct level_px {
    int64_t wide_ps;   /* an event is wide when dur >= this (ceil of a pixel) */
    int64_t gap_ps;    /* a box closes when the gap is > this (floor of a pixel) */
} level_px;

static level_px px_of(const pv_trace_geom *g, uint32_t level)
{
    uint32_t k = level + 10;  /* log2(PV_TRACE_TILE_PX) */
    uint64_t span = (uint64_t)g->span_ps;
    uint64_t fl = k >= 64 ? 0 : span >> k;
    uint64_t rem = k >= 64 ? span : span & ((1ull << k) - 1);
    level_px px = {(int64_t)(fl + (rem != 0)), (int64_t)fl};
    return px;
}

/* ---- growable arrays ------------------------------------------------------ */

typedef struct vec_ev {
    uint64_t *v;
    size_t n, cap;
} vec_ev;

typedef struct vec_box {
    pv_trace_box *v;
    size_t n, cap;
} vec_box;

static void ev_push(vec_ev *a, uint64_t e)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 256;
        a->v = pv_xrealloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = e;
}

static void box_push(vec_box *a, const pv_trace_box *b)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 256;
        a->v = pv_xrealloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = *b;
}

/* ---- the box rule ---------------------------------------------------------- */

/* One depth's run state while walking items in start order. */
typedef struct runner {
    level_px px;
    vec_ev *events;
    vec_box *boxes;
    pv_trace_box box;
    int open;
} runner;

static void run_close(runner *r)
{
    if (r->open)
        box_push(r->boxes, &r->box);
    r->open = 0;
}

/* A run of small events [start, end) with count events and busy time. */
static void run_small(runner *r, int64_t start, int64_t end, uint64_t count, int64_t busy,
                      uint32_t depth)
{
    if (r->open && start - r->box.end_ps <= r->px.gap_ps) {
        if (end > r->box.end_ps)
            r->box.end_ps = end;
        r->box.count += count;
        r->box.busy_ps += busy;
        return;
    }
    run_close(r);
    r->box = (pv_trace_box){start, end, busy, count, depth};
    r->open = 1;
}

static void run_event(runner *r, const pv_model *m, uint64_t e, uint32_t depth)
{
    int64_t s = m->ev_start_ps[e], d = m->ev_dur_ps[e];
    if (d >= r->px.wide_ps) {
        run_close(r);
        ev_push(r->events, e);
    } else {
        run_small(r, s, s + d, 1, d, depth);
    }
}

/* ---- block summaries ---------------------------------------------------------- */

/* Each depth's events, in blocks of BLOCK consecutive positions, with
 * what the box rule needs to take a whole block in one step: when no
 * event of the block is wide and no gap inside it passes a pixel, the
 * block joins or opens a box exactly as its events would one by one. */
#define BLOCK 64u

static uint64_t depth_event(const pv_track *t, uint32_t k);

void pv__blocks_layout(const pv_model *m, blocks *b)
{
    size_t n_bases = 0;
    for (uint32_t ti = 0; ti < m->n_tracks; ti++)
        n_bases += m->tracks[ti].n_depths;
    b->first = pv_xmalloc((m->n_tracks + 1) * sizeof *b->first);
    b->depth_base = pv_xmalloc((n_bases + 1) * sizeof *b->depth_base);
    size_t base = 0, blk = 0;
    for (uint32_t ti = 0; ti < m->n_tracks; ti++) {
        const pv_track *t = &m->tracks[ti];
        b->first[ti] = base;
        for (uint32_t d = 0; d < t->n_depths; d++) {
            b->depth_base[base++] = blk;
            blk += (t->depth_start[d + 1] - t->depth_start[d] + BLOCK - 1) / BLOCK;
        }
    }
    b->first[m->n_tracks] = base;
    b->n = blk;
}

static void blocks_build(const pv_model *m, blocks *b)
{
    pv__blocks_layout(m, b);
    b->start = pv_xmalloc((b->n + 1) * sizeof *b->start);
    b->end = pv_xmalloc((b->n + 1) * sizeof *b->end);
    b->busy = pv_xmalloc((b->n + 1) * sizeof *b->busy);
    b->max_dur = pv_xmalloc((b->n + 1) * sizeof *b->max_dur);
    b->max_gap = pv_xmalloc((b->n + 1) * sizeof *b->max_gap);
    size_t blk = 0;
    for (uint32_t ti = 0; ti < m->n_tracks; ti++) {
        const pv_track *t = &m->tracks[ti];
        for (uint32_t d = 0; d < t->n_depths; d++) {
            for (uint32_t k = t->depth_start[d]; k < t->depth_start[d + 1]; k += BLOCK, blk++) {
                uint32_t hi = t->depth_start[d + 1];
                uint32_t e_k = k + BLOCK < hi ? k + BLOCK : hi;
                int64_t busy = 0, max_dur = 0, max_gap = INT64_MIN, prev_end = 0;
                for (uint32_t i = k; i < e_k; i++) {
                    uint64_t e = depth_event(t, i);
                    int64_t st = m->ev_start_ps[e], du = m->ev_dur_ps[e];
                    if (i > k && st - prev_end > max_gap)
                        max_gap = st - prev_end;
                    busy += du;
                    if (du > max_dur)
                        max_dur = du;
                    prev_end = st + du;
                }
                b->start[blk] = m->ev_start_ps[depth_event(t, k)];
                b->end[blk] = prev_end;
                b->busy[blk] = busy;
                b->max_dur[blk] = max_dur;
                b->max_gap[blk] = max_gap;
            }
        }
    }
}

void pv__blocks_free(blocks *b, bool values)
{
    free(b->first);
    free(b->depth_base);
    if (!values)
        return;
    free(b->start);
    free(b->end);
    free(b->busy);
    free(b->max_dur);
    free(b->max_gap);
}

/* ---- cutting from the model ------------------------------------------------- */

static uint64_t depth_event(const pv_track *t, uint32_t k)
{
    return t->first_event + t->depth_index[k];
}

uint32_t pv_trace_depth_lower_bound(const pv_model *m, const pv_track *t, uint32_t lo,
                                    uint32_t hi, int64_t ts)
{
    PV_LOWER_BOUND(uint32_t, lo, hi, i, m->ev_start_ps[depth_event(t, i)] < ts);
    return lo;
}

/* The wide event of depth d that starts before ts and ends after it, or
 * UINT64_MAX. Events of one depth never overlap, so there is at most one. */
static uint64_t crossing_event(const pv_model *m, const pv_track *t, uint32_t d, level_px px,
                               int64_t ts)
{
    uint32_t lo = t->depth_start[d], hi = t->depth_start[d + 1];
    uint32_t k = pv_trace_depth_lower_bound(m, t, lo, hi, ts);
    if (k == lo)
        return UINT64_MAX;
    uint64_t e = depth_event(t, k - 1);
    int64_t dur = m->ev_dur_ps[e];
    if (m->ev_start_ps[e] + dur > ts && dur >= px.wide_ps)
        return e;
    return UINT64_MAX;
}

/* Appends track ti's items of [ts, te) at pixel px: for each depth, the
 * crossing event first when with_crossing, then the events starting in the
 * tile. bl (may be NULL) lets whole blocks of small events pass at once.
 * Returns the number of crossing events added. */
static size_t cut_track(const pv_model *m, uint32_t ti, const blocks *bl, level_px px,
                        int64_t ts, int64_t te, int with_crossing, vec_ev *events,
                        vec_box *boxes)
{
    const pv_track *t = &m->tracks[ti];
    size_t n_cross = 0;
    runner r = {px, events, boxes, {0, 0, 0, 0, 0}, 0};
    for (uint32_t d = 0; d < t->n_depths; d++) {
        uint32_t lo = t->depth_start[d], hi = t->depth_start[d + 1];
        uint32_t k = pv_trace_depth_lower_bound(m, t, lo, hi, ts);
        if (with_crossing && k > lo) {
            uint64_t e = depth_event(t, k - 1);
            int64_t dur = m->ev_dur_ps[e];
            if (m->ev_start_ps[e] + dur > ts && dur >= px.wide_ps) {
                ev_push(events, e);
                n_cross++;
            }
        }
        uint64_t blk0 = bl != NULL ? bl->depth_base[bl->first[ti] + d] : 0;
        while (k < hi) {
            uint32_t rel = k - lo;
            if (bl != NULL && rel % BLOCK == 0 && k + BLOCK <= hi &&
                m->ev_start_ps[depth_event(t, k + BLOCK - 1)] < te) {
                uint64_t b = blk0 + rel / BLOCK;
                if (bl->max_dur[b] < px.wide_ps && bl->max_gap[b] <= px.gap_ps) {
                    run_small(&r, bl->start[b], bl->end[b], BLOCK, bl->busy[b], d);
                    k += BLOCK;
                    continue;
                }
            }
            uint64_t e = depth_event(t, k);
            if (m->ev_start_ps[e] >= te)
                break;
            run_event(&r, m, e, d);
            k++;
        }
        run_close(&r);
    }
    return n_cross;
}

/* ---- the pyramid -------------------------------------------------------------- */

pv_trace_pyramid_opts pv_trace_pyramid_defaults(void)
{
    pv_trace_pyramid_opts o = {1u << 20, (size_t)128 << 20, NULL, 0};
    return o;
}

/* Most events starting in any one tile of level L (all tracks together). */
static uint64_t max_tile_events(const pv_model *m, const pv_trace_geom *g, uint32_t level)
{
    uint64_t n_tiles = 1ull << level;
    uint64_t *count = pv_xcalloc(n_tiles, sizeof *count);
    for (uint32_t ti = 0; ti < m->n_tracks; ti++) {
        const pv_track *t = &m->tracks[ti];
        if (t->n_events == 0)
            continue;
        uint64_t prev = t->first_event;
        for (uint64_t i = 0; i < n_tiles; i++) {
            uint64_t next = pv_model_track_lower_bound(m, t, pv_trace_tile_edge(g, level, i + 1));
            count[i] += next - prev;
            prev = next;
        }
    }
    uint64_t mx = 0;
    for (uint64_t i = 0; i < n_tiles; i++)
        if (count[i] > mx)
            mx = count[i];
    free(count);
    return mx;
}

/* The finest level to precompute: the first whose tiles are all small
 * enough to cut on demand, unless its worst-case size passes max_bytes. */
static uint32_t choose_levels(const pv_model *m, const pv_trace_geom *g,
                              const pv_trace_pyramid_opts *o)
{
    uint64_t rows = 0;
    for (uint32_t ti = 0; ti < m->n_tracks; ti++)
        rows += m->tracks[ti].n_depths;
    uint32_t level = 0;
    while (level < g->max_level && level < 20) {
        if (max_tile_events(m, g, level) <= o->max_cut_events)
            break;
        /* A level holds at most ~2 items per pixel and row, and never more
         * than the events; stop before that bound passes the budget. */
        uint64_t next_items = 2ull * PV_TRACE_TILE_PX * (2ull << level) * rows;
        if (next_items > m->n_events)
            next_items = m->n_events;
        if (next_items * (sizeof(pv_trace_box) + 8) > o->max_bytes)
            break;
        level++;
    }
    return level;
}

static void level_from_model(const pv_model *m, const pv_trace_geom *g, uint32_t level,
                             plevel *out)
{
    uint64_t n_tiles = 1ull << level;
    size_t n_rows = (size_t)n_tiles * m->n_tracks;
    vec_ev ev = {0};
    vec_box bx = {0};
    out->ev_off = pv_xmalloc((n_rows + 1) * sizeof *out->ev_off);
    out->box_off = pv_xmalloc((n_rows + 1) * sizeof *out->box_off);
    level_px px = px_of(g, level);
    for (uint64_t i = 0; i < n_tiles; i++) {
        int64_t ts = pv_trace_tile_edge(g, level, i), te = pv_trace_tile_edge(g, level, i + 1);
        for (uint32_t ti = 0; ti < m->n_tracks; ti++) {
            size_t row = (size_t)i * m->n_tracks + ti;
            out->ev_off[row] = ev.n;
            out->box_off[row] = bx.n;
            cut_track(m, ti, NULL, px, ts, te, 0, &ev, &bx);
        }
    }
    out->ev_off[n_rows] = ev.n;
    out->box_off[n_rows] = bx.n;
    out->events = ev.v;
    out->boxes = bx.v;
}

/* Feeds one child row's items of depth d, in start order (an event before
 * a box on a tie, as the model orders longer events first), to r. Advances
 * *ei and *bi past them. */
static void feed_child_depth(const pv_model *m, const plevel *c, size_t row, uint32_t d,
                             uint64_t *ei, uint64_t *bi, runner *r)
{
    uint64_t ee = c->ev_off[row + 1], be = c->box_off[row + 1];
    for (;;) {
        int have_e = *ei < ee && m->ev_depth[c->events[*ei]] == d;
        int have_b = *bi < be && c->boxes[*bi].depth == d;
        if (!have_e && !have_b)
            return;
        if (have_e && (!have_b || m->ev_start_ps[c->events[*ei]] <= c->boxes[*bi].start_ps)) {
            run_event(r, m, c->events[*ei], d);
            (*ei)++;
        } else {
            const pv_trace_box *b = &c->boxes[*bi];
            run_small(r, b->start_ps, b->end_ps, b->count, b->busy_ps, d);
            (*bi)++;
        }
    }
}

static void level_from_child(const pv_model *m, const pv_trace_geom *g, uint32_t level,
                             const plevel *child, plevel *out)
{
    uint64_t n_tiles = 1ull << level;
    size_t n_rows = (size_t)n_tiles * m->n_tracks;
    vec_ev ev = {0};
    vec_box bx = {0};
    out->ev_off = pv_xmalloc((n_rows + 1) * sizeof *out->ev_off);
    out->box_off = pv_xmalloc((n_rows + 1) * sizeof *out->box_off);
    runner r = {px_of(g, level), &ev, &bx, {0, 0, 0, 0, 0}, 0};
    for (uint64_t i = 0; i < n_tiles; i++) {
        for (uint32_t ti = 0; ti < m->n_tracks; ti++) {
            size_t row = (size_t)i * m->n_tracks + ti;
            out->ev_off[row] = ev.n;
            out->box_off[row] = bx.n;
            size_t c0 = (size_t)(2 * i) * m->n_tracks + ti, c1 = c0 + m->n_tracks;
            uint64_t e0 = child->ev_off[c0], b0 = child->box_off[c0];
            uint64_t e1 = child->ev_off[c1], b1 = child->box_off[c1];
            for (uint32_t d = 0; d < m->tracks[ti].n_depths; d++) {
                feed_child_depth(m, child, c0, d, &e0, &b0, &r);
                feed_child_depth(m, child, c1, d, &e1, &b1, &r);
                run_close(&r);
            }
        }
    }
    out->ev_off[n_rows] = ev.n;
    out->box_off[n_rows] = bx.n;
    out->events = ev.v;
    out->boxes = bx.v;
}

size_t pv__pyramid_bytes(const pv_model *m, const pv_trace_pyramid *p)
{
    size_t bytes = sizeof *p + p->n_levels * sizeof *p->levels +
                   (m->n_tracks + 1 + p->blocks.first[m->n_tracks] + 1) * sizeof(uint64_t) +
                   (p->blocks.n + 1) * 5 * sizeof(int64_t);
    for (uint32_t l = 0; l < p->n_levels; l++) {
        size_t n_rows = ((size_t)1 << l) * m->n_tracks + 1;
        const plevel *pl = &p->levels[l];
        bytes += 2 * n_rows * sizeof(uint64_t) + pl->ev_off[n_rows - 1] * sizeof(uint64_t) +
                 pl->box_off[n_rows - 1] * sizeof(pv_trace_box);
    }
    return bytes;
}

int pv_trace_pyramid_new(const pv_model *m, const pv_trace_geom *g,
                         const pv_trace_pyramid_opts *opts, pv_trace_pyramid **out,
                         pv_error *err)
{
    (void)err;
    pv_trace_pyramid_opts o = opts != NULL ? *opts : pv_trace_pyramid_defaults();
    pv_trace_pyramid *p = pv_xcalloc(1, sizeof *p);
    p->geom = g != NULL ? *g : pv_trace_geom_of(m);
    p->n_tracks = m->n_tracks;
    uint32_t finest = choose_levels(m, &p->geom, &o);
    p->n_levels = finest + 1;
    p->levels = pv_xcalloc(p->n_levels, sizeof *p->levels);
    uint64_t unit = m->n_events + 1;   /* a pass over the events, as the index counts */
    blocks_build(m, &p->blocks);
    pv_meter_add(o.meter, unit);
    level_from_model(m, &p->geom, finest, &p->levels[finest]);
    pv_meter_add(o.meter, unit);
    for (uint32_t l = finest; l-- > 0;)
        level_from_child(m, &p->geom, l, &p->levels[l + 1], &p->levels[l]);
    pv_meter_add(o.meter, unit);
    p->bytes = pv__pyramid_bytes(m, p);
    *out = p;
    return 0;
}

void pv_trace_pyramid_free(pv_trace_pyramid *p)
{
    if (p == NULL)
        return;
    for (uint32_t l = 0; l < p->n_levels && !p->borrowed; l++) {
        free(p->levels[l].ev_off);
        free(p->levels[l].events);
        free(p->levels[l].box_off);
        free(p->levels[l].boxes);
    }
    free(p->levels);
    pv__blocks_free(&p->blocks, !p->borrowed);
    free(p);
}

size_t pv_trace_pyramid_bytes(const pv_trace_pyramid *p)
{
    return p != NULL ? p->bytes : 0;
}

uint32_t pv_trace_pyramid_levels(const pv_trace_pyramid *p)
{
    return p != NULL ? p->n_levels : 0;
}

/* ---- the tool ---------------------------------------------------------------- */

/* Track ti's items of a precomputed tile, with the crossing events put in
 * front of their depth's events. */
static size_t pyramid_track(const pv_model *m, const pv_trace_pyramid *p, uint32_t level,
                            uint64_t index, uint32_t ti, int64_t ts, vec_ev *events,
                            vec_box *boxes)
{
    const plevel *pl = &p->levels[level];
    size_t row = (size_t)index * p->n_tracks + ti;
    const pv_track *t = &m->tracks[ti];
    level_px px = px_of(&p->geom, level);
    size_t n_cross = 0;
    uint64_t k = pl->ev_off[row], ke = pl->ev_off[row + 1];
    for (uint32_t d = 0; d < t->n_depths; d++) {
        uint64_t e = index > 0 ? crossing_event(m, t, d, px, ts) : UINT64_MAX;
        if (e != UINT64_MAX) {
            ev_push(events, e);
            n_cross++;
        }
        for (; k < ke && m->ev_depth[pl->events[k]] == d; k++)
            ev_push(events, pl->events[k]);
    }
    for (uint64_t b = pl->box_off[row]; b < pl->box_off[row + 1]; b++)
        box_push(boxes, &pl->boxes[b]);
    return n_cross;
}

void pv_trace_tile_rows(const pv_model *m, const pv_trace_pyramid *p, const pv_trace_geom *g,
                        const pv_trace_tile_query *q, uint32_t track_base, uint64_t event_base,
                        pv_arena *a, size_t *n_rows_out, pv_trace_row **rows_out)
{
    int64_t ts = pv_trace_tile_edge(g, q->level, q->index);
    int64_t te = pv_trace_tile_edge(g, q->level, q->index + 1);
    bool usable = p != NULL && p->n_tracks == m->n_tracks && p->geom.t0_ps == g->t0_ps &&
                  p->geom.span_ps == g->span_ps;
    int from_pyramid = usable && q->level < p->n_levels;
    level_px px = px_of(g, q->level);

    vec_ev ev = {0};
    vec_box bx = {0};
    pv_trace_row *rows = pv_arena_alloc(a, (m->n_tracks + 1) * sizeof *rows);
    size_t n_rows = 0;
    /* Rows point into ev/bx by offset first and are rebased once the
     * vectors stop moving. */
    size_t *ev_at = pv_arena_alloc(a, (m->n_tracks + 1) * sizeof *ev_at);
    size_t *bx_at = pv_arena_alloc(a, (m->n_tracks + 1) * sizeof *bx_at);
    for (uint32_t ti = 0; ti < m->n_tracks; ti++) {
        size_t e0 = ev.n, b0 = bx.n, n_cross;
        if (from_pyramid)
            n_cross = pyramid_track(m, p, q->level, q->index, ti, ts, &ev, &bx);
        else
            n_cross = cut_track(m, ti, usable ? &p->blocks : NULL, px, ts, te, 1, &ev, &bx);
        if (ev.n == e0 && bx.n == b0)
            continue;
        rows[n_rows] = (pv_trace_row){track_base + ti, m, event_base, ev.n - e0, NULL, n_cross,
                                      bx.n - b0, NULL};
        ev_at[n_rows] = e0;
        bx_at[n_rows] = b0;
        n_rows++;
    }
    uint64_t *events = pv_arena_alloc(a, (ev.n + 1) * sizeof *events);
    pv_trace_box *boxes = pv_arena_alloc(a, (bx.n + 1) * sizeof *boxes);
    if (ev.n > 0)
        memcpy(events, ev.v, ev.n * sizeof *events);
    if (bx.n > 0)
        memcpy(boxes, bx.v, bx.n * sizeof *boxes);
    free(ev.v);
    free(bx.v);
    for (size_t i = 0; i < n_rows; i++) {
        rows[i].events = events + ev_at[i];
        rows[i].boxes = boxes + bx_at[i];
    }
    *n_rows_out = n_rows;
    *rows_out = rows;
}

int pv_tool_trace_tile(const pv_model *m, const pv_trace_pyramid *p,
                       const pv_trace_tile_query *q, pv_arena *a, pv_trace_tile *out,
                       pv_error *err)
{
    pv_trace_geom g = pv_trace_geom_of(m);
    if (q->level > g.max_level)
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "level %u is past the finest level %u", q->level, g.max_level);
    if (q->index >= (1ull << q->level))
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "index %llu is past the %llu tiles of level %u",
                            (unsigned long long)q->index, 1ull << q->level, q->level);
    size_t n_rows;
    pv_trace_row *rows;
    pv_trace_tile_rows(m, p, &g, q, 0, 0, a, &n_rows, &rows);
    *out = (pv_trace_tile){q->level,
                           q->index,
                           pv_trace_tile_edge(&g, q->level, q->index),
                           pv_trace_tile_edge(&g, q->level, q->index + 1),
                           n_rows,
                           rows,
                           NULL,
                           NULL,
                           m->n_metas};
    return 0;
}
