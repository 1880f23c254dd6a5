/* trace_chrome: Chrome trace JSON. Process and thread metadata first (in
 * the track list's order, so sort indexes follow it), then one event per
 * model event: complete ("X") when it lasts, instant ("i", thread scope)
 * when its duration is 0, as XProf 2.24.2 writes them. Times are
 * microseconds of the absolute model time, written exactly from the
 * picosecond integers. The events the reference keeps out are left out too
 * (FORMATS.md §3.3): MemoryAllocation / MemoryDeallocation (the memory
 * profile shows them) and the tf.data producer/consumer markers.
 *
 * What the reference's preprocessing adds to an XSpace before writing its
 * trace is derived here while writing, not stored in the model (whose
 * event counts must stay those of the file):
 *   - one "ThreadpoolListener::Region" per StartRegion/StopRegion pair of a
 *     thread, without args;
 *   - when the file carried no group ids (the reference groups it then):
 *     the step name ("train 3") on each group's root event, is_eager on
 *     host TF ops and device kernels, and a flow arg on every event with a
 *     correlation_id or producer/consumer stats. */
#include "tools/chrome_trace/trace_chrome.h"

#include "tools/common/tf_op_name.h"
#include "tools/chrome_trace/trace_chrome_priv.h"
#include "tools/trace_derived/trace_derived.h"
#include "tools/trace_derived/trace_step_names.h"
#include "tools/common/json_stream.h"
#include "tools/trace_tiles/trace_meta.h"
#include "tools/chrome_trace/trace_visibility.h"
#include "util/arena.h"
#include "util/bsearch.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

/* Names of events the reference hides from the trace viewer. */
static bool internal_event(const char *name)
{
    static const char *const hidden[] = {
        "MemoryAllocation", "MemoryDeallocation", "PrefetchProduce", "PrefetchConsume",
        "ParallelInterleaveProduce", "ParallelInterleaveConsume", "ParallelMapProduce",
        "ParallelMapConsume", "MapAndBatchProduce", "MapAndBatchConsume", "ParseExampleProduce",
        "ParseExampleConsume", "ParallelBatchProduce", "ParallelBatchConsume", NULL};
    for (size_t i = 0; hidden[i] != NULL; i++)
        if (strcmp(name, hidden[i]) == 0)
            return true;
    return false;
}


/* The display id of model track k: XProf's own numbering of a GPU stream
 * it derived lines for, else the line's display id. */
static int64_t track_tid(const pv_model *m, const pv_trace_derived *dv, uint32_t k)
{
    if (dv->track_tid != NULL && dv->track_tid[k] != 0)
        return dv->track_tid[k];
    return m->tracks[k].display_id;
}

/* A thread's name and sort index. The legacy trace_viewer writes no name
 * for a thread without one (XProf's legacy writer leaves it out);
 * trace_viewer@ writes it empty, as XProf's streaming one does. */
static void write_thread_meta(pv__jw *w, int64_t pid, int64_t tid, const char *name,
                              size_t sort_index, bool streaming)
{
    int first_pass = name[0] == '\0' && !streaming ? 1 : 0;   /* 1: the sort index only */
    for (int pass = first_pass; pass < 2; pass++) {
        pv__jw_lit(w, "{\"ph\":\"M\",\"pid\":");
        pv__jw_i64(w, pid);
        pv__jw_lit(w, ",\"tid\":");
        pv__jw_u64(w, pv__chrome_tid(tid));
        if (pass == 0) {
            pv__jw_lit(w, ",\"name\":\"thread_name\",\"args\":{\"name\":");
            pv__jw_str(w, name);
        } else {
            pv__jw_lit(w, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":");
            pv__jw_u64(w, sort_index);
        }
        pv__jw_lit(w, "}},");
    }
}

/* The derived lines of a plane shown after track `after` (UINT32_MAX:
 * after all of the plane's tracks), as XProf orders them. */
static void write_derived_meta(pv__jw *w, const pv_trace_derived *dv, uint32_t plane,
                               uint32_t after, int64_t pid, size_t *sort_index)
{
    for (size_t i = 0; i < dv->n_tracks; i++) {
        const pv_derived_track *t = &dv->tracks[i];
        if (t->plane == plane && t->after_track == after)
            write_thread_meta(w, pid, t->tid, t->name, (*sort_index)++, true);
    }
}

static void write_process_meta(pv__jw *w, const pv_model *m, int64_t pid, uint32_t plane,
                               const char *host, size_t sort_index)
{
    pv__jw_lit(w, "{\"ph\":\"M\",\"pid\":");
    pv__jw_i64(w, pid);
    pv__jw_lit(w, ",\"name\":\"process_name\",\"args\":{\"name\":");
    const char *plane_name = pv_model_str(m, m->planes[plane].name);
    if (host != NULL) {
        /* XProf's multi-host trace names each process "<host> <plane>". */
        char both[1024];
        snprintf(both, sizeof both, "%s %s", host, plane_name);
        pv__jw_str(w, both);
    } else {
        pv__jw_str(w, plane_name);
    }
    pv__jw_lit(w, "}},{\"ph\":\"M\",\"pid\":");
    pv__jw_i64(w, pid);
    pv__jw_lit(w, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":");
    pv__jw_u64(w, sort_index);
    pv__jw_lit(w, "}},");
}

static void write_metadata(pv__jw *w, const pv_model *m, const pv_trace_meta *meta,
                           const pv_trace_derived *dv, bool streaming, const char *host)
{
    for (size_t i = 0; i < meta->n_processes; i++) {
        const pv_trace_process *p = &meta->processes[i];
        write_process_meta(w, m, p->pid, p->plane, host, i);
        size_t sort_index = 0;
        for (size_t k = 0; k < p->n_threads; k++) {
            const pv_track *t = &m->tracks[p->tracks[k]];
            /* trace_viewer@ writes a _counters_ line as counters, not a
             * thread; XProf drops a line the file left empty. */
            if ((!streaming || t->kind != PV_TRACK_COUNTERS) && t->n_events > 0)
                write_thread_meta(w, p->pid, track_tid(m, dv, p->tracks[k]),
                                  pv_model_str(m, t->display_name ? t->display_name : t->name),
                                  sort_index++, streaming);
            write_derived_meta(w, dv, p->plane, p->tracks[k], p->pid, &sort_index);
        }
        write_derived_meta(w, dv, p->plane, UINT32_MAX, p->pid, &sort_index);
    }
    if (streaming)
        return;
    /* XProf's legacy trace also names the devices that recorded nothing
     * (a JAX process lists every GPU of the machine). */
    size_t sort_index = meta->n_processes;
    for (uint32_t i = 0; i < m->n_planes; i++) {
        const pv_plane *p = &m->planes[i];
        if ((p->kind == PV_PLANE_GPU || p->kind == PV_PLANE_TPU) && p->n_tracks == 0)
            write_process_meta(w, m, pv_trace_plane_pid(m, i), i, host, sort_index++);
    }
}

/* The event's head: phase, place, time and name; the caller writes args
 * (or not) and closes it. A zero duration makes an instant in the legacy
 * trace and a complete event of 1 ps in trace_viewer@, as XProf's two
 * writers do. */
static void write_head(chrome_ctx *c, int64_t pid, int64_t tid, int64_t start_ps, int64_t dur_ps,
                       const char *name)
{
    pv__jw *w = c->w;
    if (dur_ps <= 0 && c->native)
        dur_ps = 1;
    pv__jw_lit(w, dur_ps > 0 ? "{\"ph\":\"X\",\"pid\":" : "{\"ph\":\"i\",\"s\":\"t\",\"pid\":");
    pv__jw_i64(w, pid);
    pv__jw_lit(w, ",\"tid\":");
    pv__jw_u64(w, pv__chrome_tid(tid));
    pv__jw_lit(w, ",\"ts\":");
    pv__chrome_write_us(w, start_ps);
    if (dur_ps > 0) {
        pv__jw_lit(w, ",\"dur\":");
        pv__chrome_write_us(w, dur_ps);
    }
    pv__jw_lit(w, ",\"name\":");
    pv__jw_str(w, name);
    c->n_written++;
}

/* Whether a candidate event is written: it overlaps the window and, when
 * decimating, survives XProf's visibility rule. In the collecting pass it
 * is handed to the decider and nothing is written. */
static bool want(chrome_ctx *c, int64_t start_ps, int64_t dur_ps, const char *name,
                 uint64_t flow)
{
    if (c->vis == NULL)
        return pv_trace_vis_overlaps(&c->span, start_ps, dur_ps);
    if (c->collecting) {
        pv_trace_vis_add(c->vis, c->vis_row, start_ps, dur_ps, name, flow);
        return false;
    }
    return pv_trace_vis_kept(c->vis, c->n_candidates++);
}

/* Whether a decimating request reads a candidate: stored at a level it
 * reads, and overlapping its window. What it does not read is neither
 * handed to the decider nor written, so the walk costs little per event
 * beyond the ones read. */
static bool reads(const chrome_ctx *c, unsigned level, int64_t start_ps, int64_t dur_ps)
{
    return level <= c->read_to && pv_trace_vis_overlaps(&c->span, start_ps, dur_ps);
}

static uint8_t classify_meta(const pv_model *m, uint32_t i)
{
    const char *name = pv_model_str(m, m->metas[i].name);
    if (internal_event(name))
        return META_HIDDEN;
    if (strcmp(name, "ThreadpoolListener::StartRegion") == 0)
        return META_START_REGION;
    if (strcmp(name, "ThreadpoolListener::StopRegion") == 0)
        return META_STOP_REGION;
    if (strcmp(name, "EagerExecute") == 0)
        return META_EAGER_EXECUTE;
    if (pv_trace_step_implicit_root(name))
        return META_IMPLICIT_ROOT;
    pv_tf_op op;
    pv_tf_op_parse(name, strlen(name), &op);
    return name[0] != '\0' && op.category == PV_TF_OP_TENSORFLOW ? META_TF_OP : META_PLAIN;
}

const char *pv__chrome_root_step_name(const chrome_ctx *c, uint64_t e)
{
    const pv_model *m = c->m;
    if (c->meta_kind[m->ev_meta[e]] == META_IMPLICIT_ROOT)
        return NULL;
    uint32_t id = pv_trace_root_step_name(m, c->group_root, e);
    return id != 0 ? pv_model_str(m, id) : NULL;
}

/* An open EagerExecute while walking a thread. */
typedef struct eager_frame {
    int64_t end_ps;
    bool op_by_op;
} eager_frame;

/* The vis row of counter series name in this line, declared on first use
 * (XProf keys counter rows by pid and name). */
static uint32_t counter_row(chrome_ctx *c, int64_t pid, const char **names, uint32_t *rows,
                            size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(names[i], name) == 0)
            return rows[i];
    names[*n] = name;
    rows[*n] = pv_trace_vis_row(c->vis, pid, 0, true);
    return rows[(*n)++];
}

/* A _counters_ line in trace_viewer@ as XProf writes it: each run of
 * samples with the same name is one {"ph":"C","event_stats":first value's
 * name,"entries":[[ts, values...], ...]} object on the plane's pid. */
/* The events of track t a walk must look at, [*first, *end): all of
 * them, or when the walk carries no state from one event to the next
 * (c->skip), those that may overlap the window. Events of one depth never
 * overlap, so at each depth only the last that starts before the window
 * can reach into it. */
static void walk_range(const chrome_ctx *c, const pv_track *t, uint64_t *first, uint64_t *end)
{
    const pv_model *m = c->m;
    *first = t->first_event;
    *end = t->first_event + t->n_events;
    if (!c->skip || c->span.instant || t->n_events == 0)
        return;
    int64_t b = c->span.begin_ps;
    uint64_t lo = *end;
    for (uint32_t d = 0; d < t->n_depths; d++) {
        uint32_t k = t->depth_start[d], hi = t->depth_start[d + 1];
        PV_LOWER_BOUND(uint32_t, k, hi, i, m->ev_start_ps[t->first_event + t->depth_index[i]] < b);
        if (k > t->depth_start[d]) {
            uint64_t e = t->first_event + t->depth_index[k - 1];
            if (m->ev_start_ps[e] + (m->ev_dur_ps[e] > 0 ? m->ev_dur_ps[e] : 0) >= b)
                k--;
        }
        if (k < hi && t->first_event + t->depth_index[k] < lo)
            lo = t->first_event + t->depth_index[k];
    }
    *first = lo;
    if (c->span.end_ps < INT64_MAX)
        *end = pv_model_track_lower_bound(m, t, c->span.end_ps + 1);
    if (*end < *first)
        *end = *first;
}

static void write_counters(chrome_ctx *c, int64_t pid, const pv_track *t)
{
    const pv_model *m = c->m;
    const char **names = c->collecting ? pv_xcalloc(t->n_events + 1, sizeof *names) : NULL;
    uint32_t *rows = c->collecting ? pv_xcalloc(t->n_events + 1, sizeof *rows) : NULL;
    size_t n_series = 0;
    const char *open = NULL;
    bool first_entry = true;
    uint64_t from, to;
    walk_range(c, t, &from, &to);
    for (uint64_t e = from; e < to; e++) {
        if (c->meta_kind[m->ev_meta[e]] == META_HIDDEN ||
            (c->vis != NULL && !reads(c, c->levels.event[e], m->ev_start_ps[e], 0)))
            continue;
        uint32_t sn_id = pv__chrome_step_name_id(c, e);
        const char *name = sn_id != 0 ? pv_model_str(m, sn_id) : pv_model_event_name(m, e);
        if (c->collecting)
            c->vis_row = counter_row(c, pid, names, rows, &n_series, name);
        if (!want(c, m->ev_start_ps[e], 0, name, 0))
            continue;
        if (open == NULL || strcmp(open, name) != 0) {
            if (open != NULL)
                pv__jw_lit(c->w, "]},");
            pv__jw_lit(c->w, "{\"pid\":");
            pv__jw_i64(c->w, pid);
            pv__jw_lit(c->w, ",\"name\":");
            pv__jw_str(c->w, name);
            pv__jw_lit(c->w, ",\"ph\":\"C\"");
            const char *stat = pv__chrome_counter_values(c, e, NULL);
            if (stat != NULL) {
                pv__jw_lit(c->w, ",\"event_stats\":");
                pv__jw_str(c->w, stat);
            }
            pv__jw_lit(c->w, ",\"entries\":[");
            open = name;
            first_entry = true;
        }
        c->n_written++;
        c->n_counter_samples++;
        if (pv__chrome_counter_values(c, e, NULL) == NULL)
            continue;  /* XProf counts a sample without values but writes none */
        if (!first_entry)
            pv__jw_raw(c->w, ",", 1);
        first_entry = false;
        pv__jw_raw(c->w, "[", 1);
        pv__chrome_write_us(c->w, m->ev_start_ps[e]);
        pv__chrome_counter_values(c, e, c->w);
        pv__jw_raw(c->w, "]", 1);
    }
    if (open != NULL)
        pv__jw_lit(c->w, "]},");
    free(names);
    free(rows);
}

static void write_track(chrome_ctx *c, int64_t pid, const pv_track *t, eager_frame *eager)
{
    const pv_model *m = c->m;
    if (t->kind == PV_TRACK_COUNTERS && c->native) {
        write_counters(c, pid, t);
        return;
    }
    uint32_t kind = m->planes[t->plane].kind;
    bool host = kind == PV_PLANE_HOST;
    bool device = kind == PV_PLANE_GPU || kind == PV_PLANE_TPU;
    size_t n_eager = 0;
    int64_t region_start = INT64_MIN;
    uint64_t from, to;
    walk_range(c, t, &from, &to);
    for (uint64_t e = from; e < to; e++) {
        int64_t s = m->ev_start_ps[e], d = m->ev_dur_ps[e];
        int64_t end = s + (d > 0 ? d : 0);
        uint8_t mk = c->meta_kind[m->ev_meta[e]];
        /* Events come by start, parents first: the EagerExecute events
         * still open are this one's ancestors. */
        while (n_eager > 0 && eager[n_eager - 1].end_ps < end)
            n_eager--;
        if (mk == META_EAGER_EXECUTE)
            eager[n_eager++] = (eager_frame){end, pv__chrome_is_op_by_op(c, e)};
        if (mk == META_START_REGION) {
            region_start = s;
        } else if (mk == META_STOP_REGION && region_start != INT64_MIN) {
            bool read = c->vis == NULL || reads(c, pv__chrome_region_level(&c->levels, e),
                                                region_start, s - region_start);
            if (read && want(c, region_start, s - region_start, "ThreadpoolListener::Region", 0)) {
                write_head(c, pid, track_tid(m, c->dv, (uint32_t)(t - m->tracks)), region_start,
                           s - region_start, "ThreadpoolListener::Region");
                pv__jw_lit(c->w, "},");
            }
            region_start = INT64_MIN;
        }
        if (mk == META_HIDDEN)
            continue;
        if (c->vis != NULL ? !reads(c, c->levels.event[e], s, d)
                           : !pv_trace_vis_overlaps(&c->span, s, d))
            continue;
        derived_args da = {NULL, -1, 0};
        if (c->derive) {
            da.step_name = pv__chrome_root_step_name(c, e);
            if (host && mk == META_TF_OP)
                da.is_eager = n_eager > 0 && eager[n_eager - 1].op_by_op;
            uint64_t corr;
            if (device && pv__chrome_own_int(c, e, c->s_corr, &corr))
                da.is_eager = 0;  /* kernels: eager only under an op-by-op host op */
            da.flow = pv__chrome_event_flow(c, e, host);
        }
        /* An async event (_a) with a flow becomes an async trace event in
         * XProf, which its Chrome JSON leaves out (the TPU's async-copy
         * events); the tile routes keep it. */
        const pv_event_extra *x = pv_model_event_extra(m, e);
        if (x != NULL && (x->flags & PV_EXTRA_ASYNC) &&
            (da.flow != 0 || (x->flags & PV_EXTRA_FLOW)))
            continue;
        uint32_t sn_id = pv__chrome_step_name_id(c, e);
        const char *name = sn_id != 0             ? pv_model_str(m, sn_id)
                           : da.step_name != NULL ? da.step_name
                                                  : pv_model_event_name(m, e);
        if (!want(c, s, d, name, da.flow != 0 ? da.flow : pv__chrome_flow_stat(c, e)))
            continue;
        write_head(c, pid, track_tid(m, c->dv, (uint32_t)(t - m->tracks)), s, d, name);
        pv__chrome_write_args(c, e, &da);
        pv__jw_lit(c->w, "},");
    }
}

/* The events of one derived line (trace_derived.h) that want() keeps:
 * group_id and long_name as XProf writes them on its derived events, and
 * on host-offload rows the async mark, the bytes of the done op and the
 * shape of the start op. */
static void write_derived_track(chrome_ctx *c, int64_t pid, const pv_trace_derived *dv,
                                size_t line)
{
    const pv_model *m = c->m;
    const pv_derived_track *t = &dv->tracks[line];
    uint32_t s_bytes = pv_model_str_find(m, "raw_bytes_accessed");
    uint32_t s_shape = pv_model_str_find(m, "shape_with_layout");
    for (uint64_t i = 0; i < t->n_events; i++) {
        const pv_derived_event *e = &t->events[i];
        if (c->vis != NULL &&
            !reads(c, c->levels.derived[c->dv_first[line] + i], e->start_ps, e->dur_ps))
            continue;
        if (!want(c, e->start_ps, e->dur_ps, e->name, 0))
            continue;
        write_head(c, pid, t->tid, e->start_ps, e->dur_ps, e->name);
        bool offload = e->done_event != PV_DERIVED_NO_EVENT;
        if (e->group_id == PV_NO_GROUP && e->long_name == NULL && !offload) {
            pv__jw_lit(c->w, "},");
            continue;
        }
        bool first = true;
        pv__jw_lit(c->w, ",\"args\":{");
        if (e->group_id != PV_NO_GROUP)
            pv__chrome_write_int_arg(c, &first, "group_id", (uint64_t)e->group_id);
        if (offload)
            pv__chrome_write_int_arg(c, &first, "_a", 1);
        if (e->long_name != NULL) {
            pv__jw_lit(c->w, first ? "\"long_name\":" : ",\"long_name\":");
            pv__jw_str(c->w, e->long_name);
            first = false;
        }
        pv_stat found[2];
        bool have[2] = {offload && s_bytes != 0 &&
                            pv_model_event_stat(m, e->done_event, s_bytes, &found[0]),
                        offload && s_shape != 0 &&
                            pv_model_event_stat(m, e->start_event, s_shape, &found[1])};
        for (int k = 0; k < 2; k++) {
            const pv_stat *st = &found[k];
            if (!have[k])
                continue;
            pv__jw_lit(c->w, first ? "\"" : ",\"");
            pv__jw_lit(c->w, k == 0 ? "raw_bytes_accessed\":" : "shape_with_layout\":");
            pv__chrome_write_stat_value(c->w, m, st, c->native);
            first = false;
        }
        pv__jw_lit(c->w, "}},");
    }
}

/* The collecting pass over a plane's derived lines, in the order they are
 * written. */
static void plan_derived(chrome_ctx *c, const pv_trace_derived *dv, const pv_trace_process *p)
{
    for (size_t k = 0; k < dv->n_tracks; k++) {
        if (dv->tracks[k].plane != p->plane)
            continue;
        /* vis rows are keyed as the kept levels key them: derived line
         * ids, below 2^32, whatever tid is written */
        c->vis_row = pv_trace_vis_row(c->vis, p->pid, dv->tracks[k].line_id, false);
        write_derived_track(c, p->pid, dv, k);
    }
}

/* The window and, for trace_viewer@ with a resolution on a model big
 * enough, the decimation: a first pass over every track in the track
 * list's order hands the candidates the request reads (by their kept
 * zoom levels) to the decider and writes nothing. Returns 0, or an error
 * with err filled when the kept levels are unusable; *owned as
 * pv__chrome_levels_get leaves it. */
static int plan_window(chrome_ctx *c, const pv_trace_chrome_query *q, const pv_trace_meta *meta,
                       const pv_trace_derived *dv, eager_frame *eager, uint8_t **owned,
                       pv_error *err)
{
    *owned = NULL;
    pv_trace_vis_window win = {c->m->min_ps, c->m->max_ps, q->start_ps, q->end_ps,
                               q->resolution};
    pv_trace_vis_span_of(&win, &c->span);
    if (!q->streaming) {
        c->span = (pv_trace_vis_span){INT64_MIN, INT64_MAX, false, 0};
        return 0;
    }
    if (c->span.resolution_ps == 0 || c->m->n_events < q->filter_min_events)
        return 0;
    int rc = pv__chrome_levels_get(c, meta, dv, &c->levels, owned, err);
    if (rc != 0)
        return rc;
    c->read_to = pv_trace_vis_read_to(&c->span);
    c->vis = pv_trace_vis_new(&c->span);
    c->collecting = true;
    for (size_t i = 0; i < meta->n_processes; i++) {
        const pv_trace_process *p = &meta->processes[i];
        for (size_t k = 0; k < p->n_threads; k++) {
            const pv_track *t = &c->m->tracks[p->tracks[k]];
            /* keyed as the kept levels key a track: its own display id */
            c->vis_row = pv_trace_vis_row(c->vis, p->pid, (int64_t)pv__chrome_tid(t->display_id),
                                          false);
            write_track(c, p->pid, t, eager);
        }
        plan_derived(c, dv, p);
    }
    c->collecting = false;
    pv_trace_vis_decide(c->vis);
    return 0;
}

/* What the hosts of one answer add up to. */
typedef struct chrome_totals {
    uint64_t n_written;
    uint64_t n_counter_samples;
} chrome_totals;

/* One host's metadata and events. pid_base is added to every pid; host,
 * when set, starts every process name. Returns 0, or an error with err
 * filled (nothing of the host written). */
static int write_host(const pv_model *m, const pv_trace_chrome_query *q, pv__jw *wp,
                      int64_t pid_base, const char *host, chrome_totals *tot, pv_error *err)
{
    pv__jw *w = wp;
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_trace_meta meta;
    pv_tool_trace_meta(m, NULL, &a, &meta, NULL);
    if (pid_base != 0) {
        pv_trace_process *ps = pv_arena_alloc(&a, (meta.n_processes + 1) * sizeof *ps);
        for (size_t i = 0; i < meta.n_processes; i++) {
            ps[i] = meta.processes[i];
            ps[i].pid += pid_base;
        }
        meta.processes = ps;
    }
    chrome_ctx c = {.m = m, .w = w, .native = q->streaming, .own_ev = UINT64_MAX};
    c.meta_kind = pv_arena_alloc(&a, m->n_metas + 1);
    /* Walks may start at the window when no event's output depends on
     * the events before it: EagerExecute ancestors (is_eager, derived
     * only without group ids) and the StartRegion a Region begins at. */
    c.skip = true;
    for (uint32_t i = 0; i < m->n_metas; i++) {
        c.meta_kind[i] = classify_meta(m, i);
        uint8_t mk = c.meta_kind[i];
        if (mk == META_START_REGION || mk == META_STOP_REGION || mk == META_EAGER_EXECUTE)
            c.skip = false;
    }
    c.s_step_name = pv_model_str_find(m, "step_name");
    c.s_is_eager = pv_model_str_find(m, "is_eager");
    c.s_is_func = pv_model_str_find(m, "is_func");
    c.s_corr = pv_model_str_find(m, "correlation_id");
    c.s_pt = pv_model_str_find(m, "_pt");
    c.s_p = pv_model_str_find(m, "_p");
    c.s_ct = pv_model_str_find(m, "_ct");
    c.s_c = pv_model_str_find(m, "_c");
    c.s_flow = pv_model_str_find(m, "flow");
    /* A file that carries group ids was grouped by TensorFlow already; the
     * reference then adds nothing, and neither do we. */
    c.derive = !m->has_group_stats;
    /* The lines XProf derives on the devices of a file it groups itself,
     * as derived once for the model (trace_derived.h). */
    pv_trace_derived_lines lines;
    memset(&lines, 0, sizeof lines);
    pv_trace_derived dv = {0, NULL, NULL};
    if (c.derive) {
        int got = pv_trace_derived_lines_get(m, &lines, err);
        if (got != 0) {
            pv_arena_fini(&a);
            return got;
        }
        pv_trace_derived_view(&lines, &a, &dv);
        c.group_root = pv_trace_group_roots(m, &a);
    }
    c.dv = &dv;
    size_t *dv_first = pv_arena_alloc(&a, (dv.n_tracks + 1) * sizeof *dv_first);
    for (size_t k = 0, at = 0; k < dv.n_tracks; k++) {
        dv_first[k] = at;
        at += dv.tracks[k].n_events;
    }
    c.dv_first = dv_first;
    uint64_t max_events = 0;
    for (uint32_t t = 0; t < m->n_tracks; t++)
        if (m->tracks[t].n_events > max_events)
            max_events = m->tracks[t].n_events;
    eager_frame *eager = pv_arena_alloc(&a, (max_events + 1) * sizeof *eager);
    uint8_t *owned = NULL;
    int rc = plan_window(&c, q, &meta, &dv, eager, &owned, err);
    if (rc != 0)
        goto done;
    write_metadata(w, m, &meta, &dv, q->streaming, host);
    for (size_t i = 0; i < meta.n_processes && w->rc == 0; i++) {
        const pv_trace_process *p = &meta.processes[i];
        for (size_t k = 0; k < p->n_threads; k++)
            write_track(&c, p->pid, &m->tracks[p->tracks[k]], eager);
        for (size_t k = 0; k < dv.n_tracks; k++)
            if (dv.tracks[k].plane == p->plane)
                write_derived_track(&c, p->pid, &dv, k);
    }
    tot->n_written += c.n_written;
    tot->n_counter_samples += c.n_counter_samples;
done:
    pv_trace_vis_free(c.vis);
    free(owned);
    pv_trace_derived_lines_fini(&lines);
    pv_arena_fini(&a);
    free(c.own);
    return rc;
}

int pv_trace_chrome_write(const pv_model *m, const pv_trace_chrome_query *q, pv_buf *b,
                          pv_error *err)
{
    return pv_trace_chrome_write_hosts(&m, NULL, 1, q, b, err);
}

int pv_trace_chrome_write_hosts(const pv_model *const *models, const char *const *hosts,
                                size_t n, const pv_trace_chrome_query *q, pv_buf *b,
                                pv_error *err)
{
    pv__jw w;
    pv__jw_init(&w, b);
    int64_t min_ps = INT64_MAX, max_ps = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        min_ps = models[i]->min_ps < min_ps ? models[i]->min_ps : min_ps;
        max_ps = models[i]->max_ps > max_ps ? models[i]->max_ps : max_ps;
    }
    pv__jw_lit(&w, "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},");
    if (q->streaming) {
        pv__jw_lit(&w, "\"codeLink\":\"\",\"useNewBackend\":false,\"filteredByVisibility\":true,"
                       "\"fullTimespan\":[");
        pv__jw_f64(&w, (double)min_ps / 1e9);
        pv__jw_raw(&w, ",", 1);
        pv__jw_f64(&w, (double)max_ps / 1e9);
        pv__jw_lit(&w, "],");
    }
    pv__jw_lit(&w, "\"traceEvents\":[");
    chrome_totals tot = {0, 0};
    /* trace_viewer@ (and any answer of several hosts): pids as XProf's
     * streaming converter numbers them, 1000 x the host's place (from 1)
     * + the plane's pid, names after the host. The legacy trace_viewer
     * of one host keeps the plain pids, as XProf's does. */
    bool numbered = q->streaming || n > 1;
    for (size_t i = 0; i < n && w.rc == 0; i++) {
        int rc = write_host(models[i], q, &w, numbered ? 1000 * (int64_t)(i + 1) : 0,
                            numbered && hosts != NULL ? hosts[i] : NULL, &tot, err);
        if (rc != 0) {
            pv__jw_flush(&w);
            pv_buf_reset(b);
            return rc;
        }
    }
    pv__jw_lit(&w, "{}]");
    if (q->streaming) {
        pv__jw_lit(&w, ",\"returnedEventsSize\":");
        pv__jw_u64(&w, tot.n_written);
        pv__jw_lit(&w, ",\"showCounterMessage\":\"\",\"totalCounterEvents\":");
        pv__jw_u64(&w, tot.n_counter_samples);
    }
    pv__jw_lit(&w, "}");
    if (pv__jw_flush(&w) != 0)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                            "the trace JSON is larger than %zu bytes", b->max);
    return 0;
}
