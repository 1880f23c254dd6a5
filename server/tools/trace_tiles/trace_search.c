/* trace_search: case-insensitive substring search over event names, the
 * model's and its derived lines' (trace_index.h). The names are matched
 * once per metadata entry (and once per event shown by a step's name);
 * events are then listed by a merge over the tracks, whose events are
 * already sorted by start, so no result list larger than one page is
 * ever built. */
#include "tools/trace_tiles/trace_event.h"

#include "util/bsearch.h"
#include "util/sort.h"

#include <ctype.h>
#include <string.h>

static bool contains_ci(const char *hay, const char *needle, size_t nlen)
{
    for (const char *h = hay; *h != 0; h++) {
        size_t i = 0;
        while (i < nlen && h[i] != 0 &&
               tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == nlen)
            return true;
        if (h[i] == 0)
            return false;
    }
    return false;
}

/* What one model of the trace matches: its metadata whose names hold the
 * text, and with the step names (m only) the renamed events whose step
 * name does. */
typedef struct layer {
    const pv_model *m;
    const pv_trace_step_names *steps;   /* NULL: no event is renamed */
    uint32_t track_base;
    uint64_t event_base;
    bool *hit;                          /* per metadata */
    bool *step_hit;                     /* per renamed event */
} layer;

static bool is_hit(const layer *l, uint64_t e)
{
    const pv_trace_step_names *s = l->steps;
    uint32_t meta = l->m->ev_meta[e];
    if (s != NULL && s->n > 0 && s->meta_has[meta]) {
        size_t lo = 0;
        PV_LOWER_BOUND(size_t, lo, s->n, i, s->ev[i] < e);
        if (lo < s->n && s->ev[lo] == e)
            return l->step_hit[lo];
    }
    return l->hit[meta];
}

/* A track's next match at or after *pos, or its end. */
static uint64_t next_match(const layer *l, const pv_track *t, uint64_t pos)
{
    uint64_t end = t->first_event + t->n_events;
    while (pos < end && !is_hit(l, pos))
        pos++;
    return pos;
}

typedef struct cursor {
    uint64_t pos;    /* event id (in its layer's model) of the track's next match */
    uint32_t track;  /* track id in that model */
    uint32_t layer;
} cursor;

static int64_t cursor_start(const layer *ls, const cursor *c)
{
    return ls[c->layer].m->ev_start_ps[c->pos];
}

static bool before(const layer *ls, const cursor *a, const cursor *b)
{
    int64_t sa = cursor_start(ls, a), sb = cursor_start(ls, b);
    if (sa != sb)
        return sa < sb;
    uint64_t ia = a->pos + ls[a->layer].event_base, ib = b->pos + ls[b->layer].event_base;
    return ia < ib;
}

PV_HEAP(cursors, cursor, layer, before)

/* Marks what layer l matches; returns whether anything does. */
static bool layer_match(layer *l, const pv_trace_search_query *q, size_t nlen, pv_arena *a)
{
    const pv_model *m = l->m;
    bool any = false;
    l->hit = pv_arena_zalloc(a, (size_t)m->n_metas + 1);
    for (uint32_t i = 0; i < m->n_metas; i++) {
        const pv_event_meta *meta = &m->metas[i];
        const char *name = pv_model_str(m, meta->display_name ? meta->display_name : meta->name);
        l->hit[i] = contains_ci(name, q->text, nlen);
        any = any || l->hit[i];
    }
    size_t n_steps = l->steps != NULL ? l->steps->n : 0;
    l->step_hit = pv_arena_zalloc(a, n_steps + 1);
    for (size_t i = 0; i < n_steps; i++) {
        l->step_hit[i] = contains_ci(pv_model_str(m, l->steps->name[i]), q->text, nlen);
        any = any || l->step_hit[i];
    }
    return any;
}

int pv_tool_trace_search(const pv_model *m, const pv_trace_index *ix,
                         const pv_trace_search_query *q, pv_arena *a, pv_trace_search *out,
                         pv_error *err)
{
    size_t nlen = q->text != NULL ? strlen(q->text) : 0;
    if (nlen == 0)
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET, "the search text is empty");
    uint32_t limit = q->limit < PV_TRACE_SEARCH_MAX_LIMIT ? q->limit : PV_TRACE_SEARCH_MAX_LIMIT;
    layer ls[2] = {{m, ix != NULL ? &ix->steps : NULL, 0, 0, NULL, NULL},
                   {pv_trace_index_lines(ix), NULL, m->n_tracks, m->n_events, NULL, NULL}};
    size_t n_layers = ls[1].m != NULL ? 2 : 1;
    uint64_t total = 0;
    for (size_t k = 0; k < n_layers; k++) {
        if (!layer_match(&ls[k], q, nlen, a))
            continue;
        for (uint64_t e = 0; e < ls[k].m->n_events; e++)
            total += is_hit(&ls[k], e);
    }
    uint64_t *ids = pv_arena_alloc(a, ((size_t)limit + 1) * sizeof *ids);
    size_t n = 0;
    if (total > q->offset && limit > 0) {
        cursor *h = pv_arena_alloc(a, ((size_t)pv_trace_n_tracks(m, ix) + 1) * sizeof *h);
        size_t nh = 0;
        for (size_t k = 0; k < n_layers; k++) {
            for (uint32_t ti = 0; ti < ls[k].m->n_tracks; ti++) {
                const pv_track *t = &ls[k].m->tracks[ti];
                uint64_t p = next_match(&ls[k], t, t->first_event);
                if (p < t->first_event + t->n_events)
                    h[nh++] = (cursor){p, ti, (uint32_t)k};
            }
        }
        for (size_t i = nh / 2; i-- > 0;)
            cursors_down(ls, h, nh, i);
        uint64_t skipped = 0;
        while (nh > 0 && n < limit) {
            const layer *l = &ls[h[0].layer];
            if (skipped < q->offset)
                skipped++;
            else
                ids[n++] = h[0].pos + l->event_base;
            const pv_track *t = &l->m->tracks[h[0].track];
            h[0].pos = next_match(l, t, h[0].pos + 1);
            if (h[0].pos >= t->first_event + t->n_events)
                h[0] = h[--nh];
            cursors_down(ls, h, nh, 0);
        }
    }
    *out = (pv_trace_search){total, n, ids};
    return 0;
}

json_t *pv_trace_search_to_json(const pv_model *m, const pv_trace_index *ix,
                                const pv_trace_search *r)
{
    json_t *res = json_array();
    for (size_t i = 0; i < r->n; i++) {
        uint64_t e = r->ids[i];
        const pv_model *em = pv_trace_event_model(m, ix, &e);
        uint32_t track = pv_model_event_track(em, e) + (em != m ? m->n_tracks : 0);
        json_array_append_new(
            res, json_pack("{s:I, s:s, s:I, s:I, s:I}", "id", (json_int_t)r->ids[i], "name",
                           pv_trace_event_shown_name(m, ix, em, e), "track", (json_int_t)track,
                           "start_ps", (json_int_t)(em->ev_start_ps[e] - ix->geom.t0_ps),
                           "dur_ps", (json_int_t)em->ev_dur_ps[e]));
    }
    return json_pack("{s:I, s:o}", "total", (json_int_t)r->total, "results", res);
}
