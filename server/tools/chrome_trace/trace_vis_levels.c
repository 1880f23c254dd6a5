/* trace_vis_levels: the zoom level of every event a trace_viewer@ answer
 * of a model can hold (trace_visibility.h, pv_trace_vis_levels), made once
 * per model and kept with it as a memo (model/memo.h), so that a request
 * for any window or resolution after the first reads only the events its
 * levels let through.
 *
 * The events are the Chrome JSON's candidates: every event the writer
 * would hand to the decider (trace_chrome.c, want()), keyed as it finds
 * them: a model event e by 2e + 1, the ThreadpoolListener::Region that a
 * StopRegion event e closes by 2e, the i-th event of a derived line by i.
 * Rows and their walks follow the writer's: a thread per line, a series
 * per counter name of a _counters_ line, a thread per derived line.
 *
 * The memo (native byte order: the disk cache keeps it for this build
 * only):
 *   header     magic "PVVLEV01", then n_events, n_regions, n_derived (u64)
 *   n_events   bytes: each model event's level, PV__LEVEL_NONE when it is
 *              no candidate (hidden, or an async event with a flow)
 *   padding    to 8 bytes
 *   n_regions  u64: the StopRegion events closing a Region, ascending
 *   n_regions  bytes: their Regions' levels
 *   n_derived  bytes: the derived lines' events, line after line in the
 *              order pv_trace_derive lists them */
#include "model/memo.h"
#include "tools/chrome_trace/trace_chrome_priv.h"
#include "util/bsearch.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#define MEMO_NAME "trace_viewer_levels.1"
static const char MAGIC[8] = {'P', 'V', 'V', 'L', 'E', 'V', '0', '1'};
#define HEADER_BYTES 32u
#define REGION_NAME "ThreadpoolListener::Region"

/* ---- reading the memo ---------------------------------------------------------- */

static size_t pad8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

/* Points out at the parts of a memo made for m and dv; false when its
 * sizes do not fit them. */
static bool view(const uint8_t *p, size_t len, const pv_model *m, size_t n_derived,
                 pv__chrome_levels *out)
{
    uint64_t n[3];
    if (len < HEADER_BYTES || memcmp(p, MAGIC, sizeof MAGIC) != 0)
        return false;
    memcpy(n, p + sizeof MAGIC, sizeof n);
    if (n[0] != m->n_events || n[2] != n_derived || n[1] > len / 9)
        return false;
    size_t regions_at = HEADER_BYTES + pad8((size_t)n[0]);
    if (regions_at > len || len - regions_at != 9 * (size_t)n[1] + (size_t)n[2])
        return false;
    out->event = p + HEADER_BYTES;
    out->n_regions = (size_t)n[1];
    out->region_stop = (const uint64_t *)(const void *)(p + regions_at);
    out->region_level = p + regions_at + 8 * (size_t)n[1];
    out->n_derived = (size_t)n[2];
    out->derived = out->region_level + n[1];
    return true;
}

unsigned pv__chrome_region_level(const pv__chrome_levels *l, uint64_t stop_event)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, l->n_regions, mid, l->region_stop[mid] < stop_event);
    return lo < l->n_regions && l->region_stop[lo] == stop_event ? l->region_level[lo]
                                                                  : PV__LEVEL_NONE;
}

/* ---- the candidates, row by row ---------------------------------------------------- */

/* A candidate with the name that orders ties (NULL until needed). */
typedef struct cand {
    pv_trace_vis_item it;
    const char *name;
} cand;

enum { GROUP_TRACK, GROUP_COUNTERS, GROUP_DERIVED };

/* One group's walk: a model line (with its Regions), a _counters_ line,
 * or a derived line. */
typedef struct group {
    int kind;
    uint32_t track;          /* model track, or index into dv->tracks */
    uint32_t row;            /* first row (counters: one per name after it) */
    size_t n_names;          /* counters: the series' names, row + i each */
    const char **names;
    bool host;
    /* the walk */
    bool flows_only;
    uint64_t next;           /* next event (or derived index) to look at */
    cand *reg;               /* Regions of the line, in row order */
    size_t n_reg, i_reg, cap_reg;
    cand *run;               /* candidates sharing one start and duration */
    size_t n_run, i_run, cap_run;
    cand ahead;              /* the first candidate after the run */
    bool has_ahead;
} group;

typedef struct source {
    chrome_ctx *c;
    const pv_trace_derived *dv;
    const size_t *dv_first;  /* per derived track: its first index in the derived levels */
    group *groups;
    size_t n_groups;
    uint8_t *event;          /* the levels being made */
    uint8_t *derived;
    uint64_t *reg_stop;
    uint8_t *reg_level;
    size_t n_regions, cap_regions;
} source;

static const char *cand_name(source *x, cand *k)
{
    if (k->name == NULL) {
        const pv_model *m = x->c->m;
        uint64_t e = k->it.key >> 1;
        uint32_t sn = pv__chrome_step_name_id(x->c, e);
        const char *root = sn == 0 && x->c->derive ? pv__chrome_root_step_name(x->c, e) : NULL;
        k->name = sn != 0 ? pv_model_str(m, sn) : root != NULL ? root : pv_model_event_name(m, e);
    }
    return k->name;
}

static int cmp_tie(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c != 0)
        return c;
    return a->it.key < b->it.key ? -1 : a->it.key > b->it.key;
}

/* Whether a comes before b in a row: start, longer first, name, key. */
static bool cand_before(source *x, cand *a, cand *b)
{
    if (a->it.start_ps != b->it.start_ps)
        return a->it.start_ps < b->it.start_ps;
    if (a->it.dur_ps != b->it.dur_ps)
        return a->it.dur_ps > b->it.dur_ps;
    return cmp_tie(&(cand){a->it, cand_name(x, a)}, &(cand){b->it, cand_name(x, b)}) < 0;
}

/* The next candidate of a model line in the order it is written (as
 * write_track hands events to want()), Regions left out. */
static bool read_track(source *x, group *g, cand *out)
{
    chrome_ctx *c = x->c;
    const pv_model *m = c->m;
    const pv_track *t = &m->tracks[g->track];
    while (g->next < t->first_event + t->n_events) {
        uint64_t e = g->next++;
        if (c->meta_kind[m->ev_meta[e]] == META_HIDDEN)
            continue;
        uint64_t flow = c->derive ? pv__chrome_event_flow(c, e, g->host) : 0;
        const pv_event_extra *xr = pv_model_event_extra(m, e);
        if (xr != NULL && (xr->flags & PV_EXTRA_ASYNC) && (flow != 0 || (xr->flags & PV_EXTRA_FLOW)))
            continue;
        if (flow == 0)
            flow = pv__chrome_flow_stat(c, e);
        if (g->flows_only && flow == 0)
            continue;
        int64_t d = m->ev_dur_ps[e];
        out->it = (pv_trace_vis_item){m->ev_start_ps[e], d > 0 ? d : 0, flow, g->row, 2 * e + 1};
        out->name = NULL;
        return true;
    }
    return false;
}

static bool read_derived(source *x, group *g, cand *out)
{
    const pv_derived_track *t = &x->dv->tracks[g->track];
    if (g->next >= t->n_events || g->flows_only)
        return false;
    const pv_derived_event *e = &t->events[g->next];
    out->it = (pv_trace_vis_item){e->start_ps, e->dur_ps > 0 ? e->dur_ps : 0, 0, g->row, g->next};
    out->name = e->name;
    g->next++;
    return true;
}

static bool read_one(source *x, group *g, cand *out)
{
    return g->kind == GROUP_TRACK ? read_track(x, g, out) : read_derived(x, g, out);
}

/* Reads the next run of candidates with one start and duration, ordered
 * by name and key. */
static void fill_run(source *x, group *g)
{
    g->n_run = g->i_run = 0;
    if (!g->has_ahead && !read_one(x, g, &g->ahead))
        return;
    g->has_ahead = false;
    PV__CHROME_PUSH(g->run, g->n_run, g->cap_run, g->ahead);
    cand k;
    while (read_one(x, g, &k)) {
        if (k.it.start_ps != g->run[0].it.start_ps || k.it.dur_ps != g->run[0].it.dur_ps) {
            g->ahead = k;
            g->has_ahead = true;
            break;
        }
        PV__CHROME_PUSH(g->run, g->n_run, g->cap_run, k);
    }
    if (g->n_run > 1) {
        for (size_t i = 0; i < g->n_run; i++)
            cand_name(x, &g->run[i]);
        pv_sort(g->run, g->n_run, sizeof *g->run, cmp_tie);
    }
}

static int cmp_region(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->it.start_ps != b->it.start_ps)
        return a->it.start_ps < b->it.start_ps ? -1 : 1;
    if (a->it.dur_ps != b->it.dur_ps)
        return a->it.dur_ps > b->it.dur_ps ? -1 : 1;
    return a->it.key < b->it.key ? -1 : a->it.key > b->it.key;
}

/* The Regions of a model line as write_track makes them: from the last
 * StartRegion to the next StopRegion. */
static void find_regions(source *x, group *g)
{
    const pv_model *m = x->c->m;
    const pv_track *t = &m->tracks[g->track];
    int64_t start = INT64_MIN;
    g->n_reg = g->i_reg = 0;
    for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
        uint8_t mk = x->c->meta_kind[m->ev_meta[e]];
        if (mk == META_START_REGION) {
            start = m->ev_start_ps[e];
        } else if (mk == META_STOP_REGION && start != INT64_MIN) {
            int64_t d = m->ev_start_ps[e] - start;
            cand r = {{start, d > 0 ? d : 0, 0, g->row, 2 * e}, REGION_NAME};
            PV__CHROME_PUSH(g->reg, g->n_reg, g->cap_reg, r);
            start = INT64_MIN;
        }
    }
    pv_sort(g->reg, g->n_reg, sizeof *g->reg, cmp_region);
}

static void src_open(void *ctx, size_t gi, bool flows_only)
{
    source *x = ctx;
    group *g = &x->groups[gi];
    g->flows_only = flows_only;
    g->next = g->kind == GROUP_DERIVED ? 0 : x->c->m->tracks[g->track].first_event;
    g->n_run = g->i_run = 0;
    g->has_ahead = false;
    g->n_reg = g->i_reg = 0;
    if (g->kind == GROUP_TRACK && !flows_only)
        find_regions(x, g);
}

/* The row of a counter sample's series. */
static uint32_t counter_row_of(const group *g, const char *name)
{
    for (size_t i = 0; i < g->n_names; i++)
        if (strcmp(g->names[i], name) == 0)
            return g->row + (uint32_t)i;
    return g->row;
}

/* A counter sample's series name, as write_counters names it. */
static const char *counter_name(const chrome_ctx *c, uint64_t e)
{
    uint32_t sn = pv__chrome_step_name_id(c, e);
    return sn != 0 ? pv_model_str(c->m, sn) : pv_model_event_name(c->m, e);
}

static bool next_counter(source *x, group *g, pv_trace_vis_item *out)
{
    const pv_model *m = x->c->m;
    const pv_track *t = &m->tracks[g->track];
    while (!g->flows_only && g->next < t->first_event + t->n_events) {
        uint64_t e = g->next++;
        if (x->c->meta_kind[m->ev_meta[e]] == META_HIDDEN)
            continue;
        *out = (pv_trace_vis_item){m->ev_start_ps[e], 0, 0,
                                   counter_row_of(g, counter_name(x->c, e)), 2 * e + 1};
        return true;
    }
    return false;
}

static bool src_next(void *ctx, size_t gi, pv_trace_vis_item *out)
{
    source *x = ctx;
    group *g = &x->groups[gi];
    if (g->kind == GROUP_COUNTERS)
        return next_counter(x, g, out);
    if (g->i_run == g->n_run)
        fill_run(x, g);
    cand *a = g->i_run < g->n_run ? &g->run[g->i_run] : NULL;
    cand *r = g->i_reg < g->n_reg ? &g->reg[g->i_reg] : NULL;
    if (a == NULL && r == NULL)
        return false;
    if (a == NULL || (r != NULL && cand_before(x, r, a))) {
        *out = r->it;
        g->i_reg++;
    } else {
        *out = a->it;
        g->i_run++;
    }
    return true;
}

static void src_set_level(void *ctx, size_t gi, const pv_trace_vis_item *it, unsigned level)
{
    source *x = ctx;
    const group *g = &x->groups[gi];
    if (g->kind == GROUP_DERIVED) {
        x->derived[x->dv_first[g->track] + it->key] = (uint8_t)level;
    } else if (it->key & 1u) {
        x->event[it->key >> 1] = (uint8_t)level;
    } else {
        if (x->n_regions == x->cap_regions) {
            x->cap_regions = x->cap_regions ? 2 * x->cap_regions : 64;
            x->reg_stop = pv_xrealloc(x->reg_stop, x->cap_regions * sizeof *x->reg_stop);
            x->reg_level = pv_xrealloc(x->reg_level, x->cap_regions);
        }
        x->reg_stop[x->n_regions] = it->key >> 1;
        x->reg_level[x->n_regions++] = (uint8_t)level;
    }
}

/* ---- making the memo --------------------------------------------------------------- */

static bool u64_before(const uint64_t *a, const uint64_t *b)
{
    return *a < *b;
}

PV_MERGE_SORT(sort_u64, uint64_t, u64_before)

typedef struct make_arg {
    chrome_ctx *c;
    const pv_trace_meta *meta;
    const pv_trace_derived *dv;
} make_arg;

/* The series names of a _counters_ line, each once, in the order they
 * first come. */
static void counter_names(const chrome_ctx *c, group *g)
{
    const pv_track *t = &c->m->tracks[g->track];
    size_t cap = 0;
    for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
        if (c->meta_kind[c->m->ev_meta[e]] == META_HIDDEN)
            continue;
        const char *name = counter_name(c, e);
        size_t i = 0;
        while (i < g->n_names && strcmp(g->names[i], name) != 0)
            i++;
        if (i == g->n_names)
            PV__CHROME_PUSH(g->names, g->n_names, cap, name);
    }
}

/* The rows and groups of the writer's walk. */
static pv_trace_vis_rowdef *plan(source *x, const pv_trace_meta *meta, size_t *n_rows)
{
    const pv_model *m = x->c->m;
    pv_trace_vis_rowdef *rows = NULL;
    size_t n = 0, cap = 0, cap_groups = 0;
    for (size_t i = 0; i < meta->n_processes; i++) {
        const pv_trace_process *p = &meta->processes[i];
        bool host = m->planes[p->plane].kind == PV_PLANE_HOST;
        for (size_t k = 0; k < p->n_threads; k++) {
            const pv_track *t = &m->tracks[p->tracks[k]];
            group g = {.track = p->tracks[k], .row = (uint32_t)n, .host = host};
            if (t->kind == PV_TRACK_COUNTERS) {
                g.kind = GROUP_COUNTERS;
                counter_names(x->c, &g);
                for (size_t s = 0; s < g.n_names; s++)
                    PV__CHROME_PUSH(rows, n, cap, ((pv_trace_vis_rowdef){p->pid, 0, true}));
            } else {
                g.kind = GROUP_TRACK;
                pv_trace_vis_rowdef r = {p->pid, (int64_t)pv__chrome_tid(t->display_id), false};
                PV__CHROME_PUSH(rows, n, cap, r);
            }
            PV__CHROME_PUSH(x->groups, x->n_groups, cap_groups, g);
        }
        for (size_t k = 0; k < x->dv->n_tracks; k++) {
            if (x->dv->tracks[k].plane != p->plane)
                continue;
            group g = {.kind = GROUP_DERIVED, .track = (uint32_t)k, .row = (uint32_t)n};
            PV__CHROME_PUSH(rows, n, cap,
                            ((pv_trace_vis_rowdef){p->pid, x->dv->tracks[k].line_id, false}));
            PV__CHROME_PUSH(x->groups, x->n_groups, cap_groups, g);
        }
    }
    *n_rows = n;
    return rows;
}

static int make(const pv_model *m, void *arg, uint8_t **data, size_t *len, pv_error *err)
{
    (void)err;
    const make_arg *a = arg;
    source x = {.c = a->c, .dv = a->dv};
    size_t n_derived = 0;
    size_t *dv_first = pv_xcalloc(a->dv->n_tracks + 1, sizeof *dv_first);
    for (size_t k = 0; k < a->dv->n_tracks; k++) {
        dv_first[k] = n_derived;
        n_derived += a->dv->tracks[k].n_events;
    }
    x.dv_first = dv_first;
    x.event = pv_xmalloc((size_t)m->n_events + 1);
    memset(x.event, PV__LEVEL_NONE, (size_t)m->n_events + 1);
    x.derived = pv_xcalloc(n_derived + 1, 1);
    size_t n_rows = 0;
    pv_trace_vis_rowdef *rows = plan(&x, a->meta, &n_rows);
    pv_trace_vis_source src = {&x, x.n_groups, src_open, src_next, src_set_level};
    pv_trace_vis_levels(rows, n_rows, &src);

    /* Regions come line by line; the memo lists them by StopRegion. */
    uint64_t *order = pv_xmalloc((x.n_regions + 1) * sizeof *order);
    for (size_t i = 0; i < x.n_regions; i++)
        order[i] = x.reg_stop[i] << 8 | x.reg_level[i];
    sort_u64(order, x.n_regions);
    size_t regions_at = HEADER_BYTES + pad8((size_t)m->n_events);
    *len = regions_at + 9 * x.n_regions + n_derived;
    uint8_t *p = pv_xcalloc(*len, 1);
    uint64_t counts[3] = {m->n_events, x.n_regions, n_derived};
    memcpy(p, MAGIC, sizeof MAGIC);
    memcpy(p + sizeof MAGIC, counts, sizeof counts);
    memcpy(p + HEADER_BYTES, x.event, (size_t)m->n_events);
    for (size_t i = 0; i < x.n_regions; i++) {
        uint64_t stop = order[i] >> 8;
        memcpy(p + regions_at + 8 * i, &stop, sizeof stop);
        p[regions_at + 8 * x.n_regions + i] = (uint8_t)(order[i] & 0xffu);
    }
    memcpy(p + regions_at + 9 * x.n_regions, x.derived, n_derived);
    *data = p;

    for (size_t i = 0; i < x.n_groups; i++) {
        free(x.groups[i].names);
        free(x.groups[i].reg);
        free(x.groups[i].run);
    }
    free(x.groups);
    free(rows);
    free(order);
    free(x.reg_stop);
    free(x.reg_level);
    free(x.derived);
    free(x.event);
    free(dv_first);
    return 0;
}

int pv__chrome_levels_get(chrome_ctx *c, const pv_trace_meta *meta, const pv_trace_derived *dv,
                          pv__chrome_levels *out, uint8_t **owned, pv_error *err)
{
    make_arg a = {c, meta, dv};
    const uint8_t *data = NULL;
    size_t len = 0, n_derived = 0;
    bool is_owned = false;
    *owned = NULL;
    for (size_t k = 0; k < dv->n_tracks; k++)
        n_derived += dv->tracks[k].n_events;
    int rc = pv_model_memo(c->m, MEMO_NAME, make, &a, &data, &len, &is_owned, err);
    if (rc != 0)
        return rc;
    if (is_owned)
        *owned = (uint8_t *)(uintptr_t)data;
    if (!view(data, len, c->m, n_derived, out)) {
        free(*owned);
        *owned = NULL;
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "the trace's kept zoom levels do not fit its model");
    }
    return 0;
}
