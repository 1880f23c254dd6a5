/* trace_event: the details of one event, its step and its flow partners. */
#include "tools/trace_tiles/trace_event.h"

#include "tools/trace_tiles/trace_meta.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SAFE_INT 9007199254740992.0   /* 2^53 */
#define FLOW_DIR(v) ((v) & 3u)        /* 1 in (end), 2 out (start), 3 step */

int pv_tool_trace_event(const pv_model *m, const pv_trace_index *ix,
                        const pv_trace_event_query *q, pv_arena *a, pv_trace_event *out,
                        pv_error *err)
{
    uint64_t n_events = pv_trace_n_events(m, ix);
    if (q->id >= n_events)
        return pv_error_set(err, PV_ENOTFOUND, NULL, PV_NO_OFFSET,
                            "no event %llu: the trace has %llu events",
                            (unsigned long long)q->id, (unsigned long long)n_events);
    uint64_t e = q->id;
    const pv_model *em = pv_trace_event_model(m, ix, &e);
    if (em != m) {
        /* a derived line's event: no flows */
        *out = (pv_trace_event){q->id, pv_model_event_track(em, e) + m->n_tracks, 0,
                                pv_arena_alloc(a, sizeof(pv_trace_flow))};
        return 0;
    }
    const pv_event_extra *ex = pv_model_event_extra(m, e);
    size_t c0 = 0, nc = 0, f0 = 0, nf = 0;
    if (ex != NULL && (ex->flags & PV_EXTRA_CORRELATION))
        nc = pv_trace_links_find(ix->corr, ix->n_corr, ex->correlation_id, &c0);
    if (ex != NULL && (ex->flags & PV_EXTRA_FLOW))
        nf = pv_trace_links_find(ix->flows, ix->n_flows, (ex->flow >> 2) & ((1ull << 56) - 1),
                                 &f0);
    pv_trace_flow *flows = pv_arena_alloc(a, (nc + nf + 1) * sizeof *flows);
    size_t n = 0;
    uint32_t track = pv_model_event_track(m, e);
    bool on_host = m->planes[m->tracks[track].plane].kind == PV_PLANE_HOST;
    for (size_t i = c0; i < c0 + nc; i++)
        if (ix->corr[i].ev != e)
            flows[n++] = (pv_trace_flow){ix->corr[i].ev, on_host, true};
    for (size_t i = f0; i < f0 + nf; i++) {
        uint64_t p = ix->flows[i].ev;
        if (p == e)
            continue;
        unsigned dir = (unsigned)FLOW_DIR(ex->flow);
        bool later = m->ev_start_ps[p] >= m->ev_start_ps[e];
        bool out_dir = dir == 2 || ((dir == 3 || dir == 0) && later);
        flows[n++] = (pv_trace_flow){p, out_dir, false};
    }
    *out = (pv_trace_event){e, track, n, flows};
    return 0;
}

/* ---- JSON ------------------------------------------------------------------------ */

static json_t *stat_value(const pv_model *m, const pv_stat *s)
{
    char tmp[64];
    switch (s->type) {
    case PV_STAT_I64:
        if (fabs((double)s->v.i64) > SAFE_INT) {
            snprintf(tmp, sizeof tmp, "%lld", (long long)s->v.i64);
            return json_string(tmp);
        }
        return json_integer((json_int_t)s->v.i64);
    case PV_STAT_U64:
        if ((double)s->v.u64 > SAFE_INT) {
            snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)s->v.u64);
            return json_string(tmp);
        }
        return json_integer((json_int_t)s->v.u64);
    case PV_STAT_F64:
        if (isnan(s->v.f64))
            return json_string("NaN");
        if (isinf(s->v.f64))
            return json_string(s->v.f64 > 0 ? "Infinity" : "-Infinity");
        return json_real(s->v.f64);
    case PV_STAT_STR:
        return json_string(pv_model_str(m, s->v.str));
    case PV_STAT_WSTR: {
        size_t len;
        const char *text = pv_model_stat_text(m, s, &len);
        json_t *j = text != NULL ? json_stringn(text, len) : NULL;
        /* not UTF-8: show what it is rather than nothing */
        return j != NULL ? j : json_string("<not UTF-8>");
    }
    case PV_STAT_BYTES:
    case PV_STAT_WBYTES: {
        size_t len;
        (void)pv_model_stat_text(m, s, &len);
        snprintf(tmp, sizeof tmp, "<%zu bytes>", len);
        return json_string(tmp);
    }
    default:
        return json_null();
    }
}

static void add_stats(const pv_model *m, json_t *obj, const pv_stat *s, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        json_t *v = stat_value(m, &s[i]);
        /* A name that is not valid UTF-8 cannot be a JSON key; skip it. */
        if (json_object_set_new(obj, pv_model_str(m, s[i].name), v) != 0)
            continue;
    }
}

json_t *pv_trace_event_to_json(const pv_model *m, const pv_trace_index *ix,
                               const pv_trace_event *r)
{
    uint64_t e = r->ev;
    const pv_model *em = pv_trace_event_model(m, ix, &e);
    uint32_t track = r->track;
    (void)pv_trace_track_model(m, ix, &track);
    int64_t t0 = ix->geom.t0_ps;
    const pv_event_meta *meta = &em->metas[em->ev_meta[e]];
    const pv_track *t = &em->tracks[track];
    json_t *stats = json_object();
    add_stats(em, stats, em->stats + meta->first_stat, meta->n_stats);
    pv_stat *own = NULL;
    size_t cap = 0;
    size_t n_own = pv_model_event_own_stats_into(em, e, &own, &cap);
    add_stats(em, stats, own, n_own);
    free(own);
    json_t *step = json_null();
    /* a derived event's group is a group of m's */
    int32_t gid = em->ev_group[e];
    if (gid != PV_NO_GROUP) {
        const pv_step_group *g = pv_model_group_find(m, gid);
        json_decref(step);
        step = json_pack("{s:I, s:s}", "group_id", (json_int_t)gid, "name",
                         g != NULL ? pv_model_str(m, g->name) : "");
    }
    json_t *flows = json_array();
    for (size_t i = 0; i < r->n_flows; i++) {
        uint64_t p = r->flows[i].ev;
        json_array_append_new(
            flows, json_pack("{s:I, s:s, s:s, s:I, s:I, s:I, s:s}", "id", (json_int_t)p,
                             "direction", r->flows[i].out ? "out" : "in", "kind",
                             r->flows[i].launch ? "launch" : "flow", "track",
                             (json_int_t)pv_model_event_track(m, p), "start_ps",
                             (json_int_t)(m->ev_start_ps[p] - t0), "dur_ps",
                             (json_int_t)m->ev_dur_ps[p], "name",
                             pv_trace_event_shown_name(m, ix, m, p)));
    }
    /* (a derived line's plane is m's plane of that index) */
    json_t *j = json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o}", "id",
                          (json_int_t)r->ev, "name", pv_trace_event_shown_name(m, ix, em, e),
                          "track", (json_int_t)r->track, "pid",
                          (json_int_t)pv_trace_plane_pid(m, t->plane), "tid",
                          (json_int_t)t->display_id, "start_ps",
                          (json_int_t)(em->ev_start_ps[e] - t0), "dur_ps",
                          (json_int_t)em->ev_dur_ps[e], "depth", (json_int_t)em->ev_depth[e],
                          "stats", stats, "step", step, "flows", flows);
    if (j != NULL && meta->display_name != 0)
        json_object_set_new(j, "long_name", json_string(pv_model_str(em, meta->name)));
    return j;
}
