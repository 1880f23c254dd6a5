/* trace_chrome: Chrome trace JSON. Process and thread metadata first (in
 * the track list's order, so sort indexes follow it), then one complete
 * event per model event. Times are microseconds of the absolute model
 * time, written exactly from the picosecond integers. The events the
 * reference keeps out are left out too (FORMATS.md §3.3): MemoryAllocation /
 * MemoryDeallocation (the memory profile shows them) and the tf.data
 * producer/consumer markers. */
#include "tools/trace_chrome.h"

#include "tools/trace_json.h"
#include "tools/trace_meta.h"
#include "util/arena.h"

#include <string.h>

/* Stats the reference keeps out of the trace viewer's args (FORMATS §3.3). */
static bool internal_stat(const char *name)
{
    static const char *const hidden[] = {"_pt", "_p", "_ct", "_c", "_r", "flops",
                                         "program_id", "symbol_id", NULL};
    for (size_t i = 0; hidden[i] != NULL; i++)
        if (strcmp(name, hidden[i]) == 0)
            return true;
    return false;
}

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

/* ps as exact microseconds: "12.345678" without trailing zeros. */
static void write_us(pv__jw *w, int64_t ps)
{
    if (ps < 0) {
        pv__jw_raw(w, "-", 1);
        ps = -ps;
    }
    pv__jw_u64(w, (uint64_t)(ps / 1000000));
    int64_t frac = ps % 1000000;
    if (frac == 0)
        return;
    char tmp[8];
    tmp[0] = '.';
    for (int i = 6; i >= 1; i--) {
        tmp[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    size_t n = 7;
    while (tmp[n - 1] == '0')
        n--;
    pv__jw_raw(w, tmp, n);
}

static void write_stat_value(pv__jw *w, const pv_model *m, const pv_stat *s, bool native)
{
    char tmp[48];
    if (!native && s->type != PV_STAT_STR)
        pv__jw_raw(w, "\"", 1);
    switch (s->type) {
    case PV_STAT_I64:
        if (native)
            pv__jw_i64_safe(w, s->v.i64);
        else
            pv__jw_i64(w, s->v.i64);
        break;
    case PV_STAT_U64:
        if (native)
            pv__jw_u64_safe(w, s->v.u64);
        else
            pv__jw_u64(w, s->v.u64);
        break;
    case PV_STAT_F64:
        if (native) {
            pv__jw_f64(w, s->v.f64);
        } else {
            int n = snprintf(tmp, sizeof tmp, "%.17g", s->v.f64);
            pv__jw_raw(w, tmp, (size_t)n);
        }
        break;
    case PV_STAT_STR:
        pv__jw_str(w, pv_model_str(m, s->v.str));
        break;
    case PV_STAT_BYTES: {
        int n = snprintf(tmp, sizeof tmp, "<%zu bytes>",
                         s->v.blob < m->n_blobs ? m->blobs[s->v.blob].len : 0);
        if (native)
            pv__jw_raw(w, "\"", 1);
        pv__jw_raw(w, tmp, (size_t)n);
        if (native)
            pv__jw_raw(w, "\"", 1);
        break;
    }
    default:
        pv__jw_lit(w, native ? "null" : "");
        break;
    }
    if (!native && s->type != PV_STAT_STR)
        pv__jw_raw(w, "\"", 1);
}

/* args: group_id first, then metadata stats not repeated by the event's
 * own stats, then its own; long_name when a display name was used. */
static void write_args(pv__jw *w, const pv_model *m, uint64_t e, bool native)
{
    const pv_event_meta *meta = &m->metas[m->ev_meta[e]];
    const pv_stat *own = m->stats + m->ev_stat_off[e];
    uint64_t n_own = m->ev_stat_off[e + 1] - m->ev_stat_off[e];
    bool first = true;
    pv__jw_lit(w, ",\"args\":{");
    if (m->ev_group[e] != PV_NO_GROUP) {
        pv__jw_lit(w, native ? "\"group_id\":" : "\"group_id\":\"");
        pv__jw_i64(w, m->ev_group[e]);
        if (!native)
            pv__jw_raw(w, "\"", 1);
        first = false;
    }
    for (int pass = 0; pass < 2; pass++) {
        const pv_stat *s = pass == 0 ? m->stats + meta->first_stat : own;
        uint64_t n = pass == 0 ? meta->n_stats : n_own;
        for (uint64_t i = 0; i < n; i++) {
            const char *name = pv_model_str(m, s[i].name);
            if (internal_stat(name) || strcmp(name, "group_id") == 0)
                continue;
            bool shadowed = false;
            for (uint64_t k = 0; pass == 0 && k < n_own && !shadowed; k++)
                shadowed = own[k].name == s[i].name;
            if (shadowed)
                continue;
            if (!first)
                pv__jw_raw(w, ",", 1);
            first = false;
            pv__jw_str(w, name);
            pv__jw_raw(w, ":", 1);
            write_stat_value(w, m, &s[i], native);
        }
    }
    if (meta->display_name != 0) {
        if (!first)
            pv__jw_raw(w, ",", 1);
        pv__jw_lit(w, "\"long_name\":");
        pv__jw_str(w, pv_model_str(m, meta->name));
    }
    pv__jw_raw(w, "}", 1);
}

static void write_metadata(pv__jw *w, const pv_model *m, const pv_trace_meta *meta)
{
    for (size_t i = 0; i < meta->n_processes; i++) {
        const pv_trace_process *p = &meta->processes[i];
        pv__jw_lit(w, "{\"ph\":\"M\",\"pid\":");
        pv__jw_i64(w, p->pid);
        pv__jw_lit(w, ",\"name\":\"process_name\",\"args\":{\"name\":");
        pv__jw_str(w, pv_model_str(m, m->planes[p->plane].name));
        pv__jw_lit(w, "}},{\"ph\":\"M\",\"pid\":");
        pv__jw_i64(w, p->pid);
        pv__jw_lit(w, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":");
        pv__jw_u64(w, i);
        pv__jw_lit(w, "}},");
        for (size_t k = 0; k < p->n_threads; k++) {
            const pv_track *t = &m->tracks[p->tracks[k]];
            for (int pass = 0; pass < 2; pass++) {
                pv__jw_lit(w, "{\"ph\":\"M\",\"pid\":");
                pv__jw_i64(w, p->pid);
                pv__jw_lit(w, ",\"tid\":");
                pv__jw_i64(w, t->display_id);
                if (pass == 0) {
                    pv__jw_lit(w, ",\"name\":\"thread_name\",\"args\":{\"name\":");
                    pv__jw_str(w, pv_model_str(m, t->display_name ? t->display_name : t->name));
                } else {
                    pv__jw_lit(w, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":");
                    pv__jw_u64(w, k);
                }
                pv__jw_lit(w, "}},");
            }
        }
    }
}

int pv_trace_chrome_write(const pv_model *m, const pv_trace_chrome_query *q, pv_buf *b,
                          pv_error *err)
{
    pv__jw w;
    pv__jw_init(&w, b);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_trace_meta meta;
    pv_tool_trace_meta(m, &a, &meta, err);
    bool *hidden = pv_arena_alloc(&a, m->n_metas + 1);
    for (uint32_t i = 0; i < m->n_metas; i++)
        hidden[i] = internal_event(pv_model_str(m, m->metas[i].name));
    /* Only a step_name stat written in the file renames an event, as in
     * the reference; the model's own step grouping does not. */
    uint32_t step_name_id = pv_model_str_find(m, "step_name");
    pv__jw_lit(&w, "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},");
    if (q->streaming) {
        pv__jw_lit(&w, "\"codeLink\":\"\",\"useNewBackend\":false,\"filteredByVisibility\":false,"
                       "\"fullTimespan\":[");
        pv__jw_f64(&w, (double)m->min_ps / 1e9);
        pv__jw_raw(&w, ",", 1);
        pv__jw_f64(&w, (double)m->max_ps / 1e9);
        pv__jw_lit(&w, "],");
    }
    pv__jw_lit(&w, "\"traceEvents\":[");
    write_metadata(&w, m, &meta);
    uint64_t n_written = 0;
    for (size_t i = 0; i < meta.n_processes && w.rc == 0; i++) {
        const pv_trace_process *p = &meta.processes[i];
        for (size_t k = 0; k < p->n_threads; k++) {
            const pv_track *t = &m->tracks[p->tracks[k]];
            for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
                int64_t s = m->ev_start_ps[e], d = m->ev_dur_ps[e];
                if (s >= q->end_ps || s + d < q->start_ps)
                    continue;
                if (hidden[m->ev_meta[e]])
                    continue;
                const pv_stat *sn =
                    step_name_id != 0 ? pv_model_event_stat(m, e, step_name_id) : NULL;
                pv__jw_lit(&w, "{\"ph\":\"X\",\"pid\":");
                pv__jw_i64(&w, p->pid);
                pv__jw_lit(&w, ",\"tid\":");
                pv__jw_i64(&w, t->display_id);
                pv__jw_lit(&w, ",\"ts\":");
                write_us(&w, s);
                pv__jw_lit(&w, ",\"dur\":");
                write_us(&w, d > 0 ? d : 1);   /* the reference writes instants as 1 ps */
                pv__jw_lit(&w, ",\"name\":");
                const char *name = sn != NULL && sn->type == PV_STAT_STR
                                       ? pv_model_str(m, sn->v.str)
                                       : pv_model_event_name(m, e);
                pv__jw_str(&w, name);
                write_args(&w, m, e, q->streaming);
                pv__jw_lit(&w, "},");
                n_written++;
            }
        }
    }
    pv__jw_lit(&w, "{}]");
    if (q->streaming) {
        pv__jw_lit(&w, ",\"returnedEventsSize\":");
        pv__jw_u64(&w, n_written);
    }
    pv__jw_lit(&w, "}");
    pv_arena_fini(&a);
    if (pv__jw_flush(&w) != 0)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                            "the trace JSON is larger than %zu bytes", b->max);
    return 0;
}
