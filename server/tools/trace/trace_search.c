/* trace_search: case-insensitive substring search over event names. The
 * names are matched once per metadata entry; events are then listed by a
 * merge over the tracks, whose events are already sorted by start, so no
 * result list larger than one page is ever built. */
#include "tools/trace/trace_event.h"

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

/* A track's next match at or after *pos, or its end. */
static uint64_t next_match(const pv_model *m, const pv_track *t, const bool *hit, uint64_t pos)
{
    uint64_t end = t->first_event + t->n_events;
    while (pos < end && !hit[m->ev_meta[pos]])
        pos++;
    return pos;
}

typedef struct cursor {
    uint64_t pos;    /* event id of the track's next match */
    uint32_t track;
} cursor;

static bool before(const pv_model *m, const cursor *a, const cursor *b)
{
    int64_t sa = m->ev_start_ps[a->pos], sb = m->ev_start_ps[b->pos];
    return sa != sb ? sa < sb : a->pos < b->pos;
}

static void sift_down(const pv_model *m, cursor *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < n && before(m, &h[l], &h[best]))
            best = l;
        if (r < n && before(m, &h[r], &h[best]))
            best = r;
        if (best == i)
            return;
        cursor tmp = h[i];
        h[i] = h[best];
        h[best] = tmp;
        i = best;
    }
}

int pv_tool_trace_search(const pv_model *m, const pv_trace_search_query *q, pv_arena *a,
                         pv_trace_search *out, pv_error *err)
{
    size_t nlen = q->text != NULL ? strlen(q->text) : 0;
    if (nlen == 0)
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET, "the search text is empty");
    uint32_t limit = q->limit < PV_TRACE_SEARCH_MAX_LIMIT ? q->limit : PV_TRACE_SEARCH_MAX_LIMIT;
    bool *hit = pv_arena_zalloc(a, m->n_metas + 1);
    bool any = false;
    for (uint32_t i = 0; i < m->n_metas; i++) {
        const pv_event_meta *meta = &m->metas[i];
        hit[i] = contains_ci(pv_model_str(m, meta->display_name ? meta->display_name : meta->name),
                             q->text, nlen);
        any = any || hit[i];
    }
    uint64_t total = 0;
    if (any)
        for (uint64_t e = 0; e < m->n_events; e++)
            total += hit[m->ev_meta[e]];
    uint64_t *ids = pv_arena_alloc(a, ((size_t)limit + 1) * sizeof *ids);
    size_t n = 0;
    if (total > q->offset && limit > 0) {
        cursor *h = pv_arena_alloc(a, (m->n_tracks + 1) * sizeof *h);
        size_t nh = 0;
        for (uint32_t ti = 0; ti < m->n_tracks; ti++) {
            const pv_track *t = &m->tracks[ti];
            uint64_t p = next_match(m, t, hit, t->first_event);
            if (p < t->first_event + t->n_events)
                h[nh++] = (cursor){p, ti};
        }
        for (size_t i = nh / 2; i-- > 0;)
            sift_down(m, h, nh, i);
        uint64_t skipped = 0;
        while (nh > 0 && n < limit) {
            if (skipped < q->offset)
                skipped++;
            else
                ids[n++] = h[0].pos;
            const pv_track *t = &m->tracks[h[0].track];
            h[0].pos = next_match(m, t, hit, h[0].pos + 1);
            if (h[0].pos >= t->first_event + t->n_events)
                h[0] = h[--nh];
            sift_down(m, h, nh, 0);
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
        json_array_append_new(
            res, json_pack("{s:I, s:s, s:I, s:I, s:I}", "id", (json_int_t)e, "name",
                           pv_model_event_name(m, e), "track",
                           (json_int_t)pv_model_event_track(m, e), "start_ps",
                           (json_int_t)(m->ev_start_ps[e] - ix->geom.t0_ps), "dur_ps",
                           (json_int_t)m->ev_dur_ps[e]));
    }
    return json_pack("{s:I, s:o}", "total", (json_int_t)r->total, "results", res);
}
