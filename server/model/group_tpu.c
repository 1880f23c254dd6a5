/* group_tpu: TPU device steps (FORMATS.md §3.7, TPU path; the reference's
 * GroupTpuEventsOSS). On a TPU plane the forest has one node per event of
 * the grouping line: "Steps" (or "Sparse Core Steps") when it has events,
 * else "XLA Modules" ("Sparse Core Modules"). Every other event of the
 * plane is no node: its producer/consumer stats count for the grouping
 * event that includes it, if any. After host grouping, when no TensorCore
 * step was reached from the host, each core numbers its steps on its own
 * from the next free group id (cores in lock step, group.c). Last, every
 * event on another line of the plane, the grouping line's own included,
 * takes the group of the first grouping event that overlaps it (end
 * points included); with a Steps
 * line, consecutive steps of one group count as one span and steps
 * without a group are left out, as the reference merges them.
 *
 * Not done: the reference also rewrites the Steps line itself (merged
 * events, step_name, device offsets); the model keeps the file's events. */
#include "model/group_forest.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

uint8_t *pv__tpu_plane_roles(const pv_model *m, const pv__model_store *s)
{
    uint8_t *roles = pv_xcalloc(m->n_planes ? m->n_planes : 1, 1);
    for (uint32_t p = 0; p < m->n_planes; p++) {
        const char *name = s->strs.strs[m->planes[p].name];
        if (!starts_with(name, "/device:TPU:"))
            continue;
        if (m->planes[p].kind == PV_PLANE_TPU)
            roles[p] = PV__TPU_TENSOR_CORE;
        else if (strstr(name, " SparseCore ") != NULL)
            roles[p] = PV__TPU_SPARSE_CORE;
        else
            roles[p] = PV__TPU_NO_CORE;
    }
    return roles;
}

uint32_t pv__tpu_grouping_track(const pv_model *m, const pv__model_store *s, uint32_t plane)
{
    const pv_plane *p = &m->planes[plane];
    uint32_t step = UINT32_MAX, module = UINT32_MAX;
    for (uint32_t t = p->first_track; t < p->first_track + p->n_tracks; t++) {
        const char *name = s->strs.strs[m->tracks[t].name];
        if (strcmp(name, "Steps") == 0 || strcmp(name, "Sparse Core Steps") == 0)
            step = t;
        else if (strcmp(name, "XLA Modules") == 0 || strcmp(name, "Sparse Core Modules") == 0)
            module = t;
    }
    if (step != UINT32_MAX && m->tracks[step].n_events > 0)
        return step;
    if (module != UINT32_MAX && m->tracks[module].n_events > 0)
        return module;
    return UINT32_MAX;
}

/* The node standing for each event of one TPU plane's other lines: the
 * grouping event whose span includes it, found by a forward scan per
 * line that gives up at the end of the grouping line. */
static void plane_nodes(const pv_model *m, const pv_plane *p, uint32_t grouping,
                        uint32_t *node)
{
    const pv_track *g = &m->tracks[grouping];
    uint64_t g_end = g->first_event + g->n_events;
    for (uint64_t e = g->first_event; e < g_end; e++)
        node[e] = (uint32_t)e;
    for (uint32_t t = p->first_track; t < p->first_track + p->n_tracks; t++) {
        if (t == grouping)
            continue;
        const pv_track *tr = &m->tracks[t];
        uint64_t k = g->first_event;
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            int64_t start = m->ev_start_ps[e], end = pv__event_end_ps(m, e);
            while (k < g_end && pv__event_end_ps(m, k) <= start)
                k++;
            if (k == g_end)
                break;
            if (m->ev_start_ps[k] <= start && end <= pv__event_end_ps(m, k))
                node[e] = (uint32_t)k;
        }
    }
}

uint32_t *pv__tpu_nodes(const pv_model *m, const pv__model_store *s, const uint8_t *roles)
{
    uint64_t n = m->n_events;
    uint32_t *node = pv_xmalloc((n ? n : 1) * sizeof *node);
    for (uint64_t e = 0; e < n; e++)
        node[e] = (uint32_t)e;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        if (roles[p] == PV__TPU_NONE)
            continue;
        const pv_plane *pl = &m->planes[p];
        for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
            const pv_track *tr = &m->tracks[t];
            for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++)
                node[e] = PV__NO_EV32;
        }
        /* A plane that names no core gets no nodes at all. */
        uint32_t g = pv__tpu_grouping_track(m, s, p);
        if (roles[p] != PV__TPU_NO_CORE && g != UINT32_MAX)
            plane_nodes(m, pl, g, node);
    }
    return node;
}

/* ---- groups of the other lines --------------------------------------------- */

typedef struct span {
    int64_t start_ps, end_ps;
    int32_t group;
} span;

/* The grouping line's spans: its events, or with a Steps line the runs of
 * consecutive events of one group (events without a group dropped, unless
 * none has one: then nothing is merged). */
static span *grouping_spans(const pv_model *m, const pv__model_store *s, const pv_track *g,
                            const int32_t *group, size_t *n_out)
{
    const char *name = s->strs.strs[g->name];
    bool steps = strcmp(name, "Steps") == 0 || strcmp(name, "Sparse Core Steps") == 0;
    uint64_t end = g->first_event + g->n_events;
    bool any_group = false;
    for (uint64_t e = g->first_event; e < end && !any_group; e++)
        any_group = group[e] != PV_NO_GROUP;
    span *v = pv_xmalloc((g->n_events ? g->n_events : 1) * sizeof *v);
    size_t n = 0;
    bool open = false;
    for (uint64_t e = g->first_event; e < end; e++) {
        span sp = {m->ev_start_ps[e], pv__event_end_ps(m, e), group[e]};
        if (!steps || !any_group) {
            v[n++] = sp;
        } else if (sp.group == PV_NO_GROUP) {
            open = false;
        } else if (open && v[n - 1].group == sp.group) {
            v[n - 1].end_ps = sp.end_ps;   /* a multi-module step */
        } else {
            v[n++] = sp;
            open = true;
        }
    }
    *n_out = n;
    return v;
}

/* The reference's overlap query: the span last returned when it still
 * overlaps, else a forward scan from it that skips spans ending before
 * the event and stops at the first one that does not start after it. */
typedef struct span_cursor {
    const span *v;
    size_t n;
    size_t cur;             /* index of the current span; n when none yet */
    size_t last;            /* the span last answered; n when none */
} span_cursor;

static bool overlaps(const span *a, int64_t start, int64_t end)
{
    return a->start_ps <= end && start <= a->end_ps;
}

static int32_t overlapping_group(span_cursor *c, int64_t start, int64_t end)
{
    if (c->last < c->n && overlaps(&c->v[c->last], start, end))
        return c->v[c->last].group;
    c->last = c->n;
    if (c->cur < c->n && overlaps(&c->v[c->cur], start, end)) {
        c->last = c->cur;
        return c->v[c->cur].group;
    }
    for (size_t i = c->cur < c->n ? c->cur + 1 : 0; i < c->n; i++) {
        if (c->v[i].start_ps > end)
            break;
        if (c->v[i].end_ps < start)
            continue;
        c->cur = i;
        if (overlaps(&c->v[i], start, end)) {
            c->last = i;
            return c->v[i].group;
        }
        break;
    }
    return PV_NO_GROUP;
}

void pv__tpu_group_lines(const pv_model *m, const pv__model_store *s, const uint8_t *roles,
                         int32_t *group)
{
    for (uint32_t p = 0; p < m->n_planes; p++) {
        if (roles[p] == PV__TPU_NONE)
            continue;
        uint32_t g = pv__tpu_grouping_track(m, s, p);
        if (g == UINT32_MAX)
            continue;
        size_t n_spans;
        span *spans = grouping_spans(m, s, &m->tracks[g], group, &n_spans);
        const pv_plane *pl = &m->planes[p];
        for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
            const pv_track *tr = &m->tracks[t];
            const char *name = s->strs.strs[tr->name];
            if (strcmp(name, "Steps") == 0 || strcmp(name, "Sparse Core Steps") == 0)
                continue;
            span_cursor c = {spans, n_spans, n_spans, n_spans};
            for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
                int32_t gid = overlapping_group(&c, m->ev_start_ps[e], pv__event_end_ps(m, e));
                /* The grouping events too: a module that starts where the
                 * previous one ends takes the previous one's group, as in
                 * the reference's answer for tpu_inference_2. */
                if (gid != PV_NO_GROUP)
                    group[e] = gid;
            }
        }
        free(spans);
    }
}
