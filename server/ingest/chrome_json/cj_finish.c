/* cj_finish: what the parser can do only once the whole file is read.
 *
 * Open B events are closed at the trace's end. Flow events bind to a slice
 * of their thread (FORMATS.md §6): s, t and an f with bp "e" to the
 * innermost slice that holds their time, any other f to the first slice
 * that starts at or after it; each bound slice gets a "flow" stat (§3.4:
 * the flow's number, one per (cat, id), and its direction). Processes
 * get their plane names: Kineto's "GPU N" label becomes /device:GPU:N and
 * its "CPU" process with the most events /host:CPU, so the tools that
 * read devices and the host read Kineto traces as they read XSpaces; a
 * name that already reads like a plane (TensorFlow's trace JSON) is kept;
 * any other is the process's name or label. deviceProperties become the
 * stats of their GPU's plane; the other top-level members, and the
 * profile's start and stop when the times are absolute, go to a "Task
 * Environment" plane. What was left out or cut off becomes the model's
 * warnings. */
#include "ingest/chrome_json/cj_priv.h"
#include "util/bsearch.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- top-level members ----------------------------------------------------- */

void pv__cj_model_top(pv__cj_model *m, pv__cj_str key, const pv__cj_value *v)
{
    pv__cj_top t;
    memset(&t, 0, sizeof t);
    t.key = pv__cj_intern(m, key);
    switch (v->kind) {
    case PV__CJ_INT:
        t.stat = (pv_stat){t.key, PV_STAT_I64, {.i64 = v->n.i}};
        if (key.len == 19 && memcmp(key.s, "baseTimeNanoseconds", 19) == 0)
            m->base_ns = v->n.i;
        break;
    case PV__CJ_UINT: t.stat = (pv_stat){t.key, PV_STAT_U64, {.u64 = v->n.u}}; break;
    case PV__CJ_DOUBLE: t.stat = (pv_stat){t.key, PV_STAT_F64, {.f64 = v->n.d}}; break;
    case PV__CJ_RAW:
        t.raw = pv__cj_intern(m, v->text);
        t.stat = (pv_stat){t.key, PV_STAT_STR, {.str = t.raw}};
        break;
    case PV__CJ_TRUE: t.stat = (pv_stat){t.key, PV_STAT_STR, {.str = m->s_true}}; break;
    case PV__CJ_FALSE: t.stat = (pv_stat){t.key, PV_STAT_STR, {.str = m->s_false}}; break;
    case PV__CJ_NULL: t.stat = (pv_stat){t.key, PV_STAT_STR, {.str = m->s_null}}; break;
    default:
        t.stat = (pv_stat){t.key, PV_STAT_STR,
                           {.str = pv__cj_intern(m, v->text)}};
        break;
    }
    if (m->n_tops == m->cap_tops) {
        m->cap_tops = m->cap_tops ? 2 * m->cap_tops : 16;
        m->tops = pv_xrealloc(m->tops, m->cap_tops * sizeof *m->tops);
    }
    m->tops[m->n_tops++] = t;
}

/* Calls fn on each member of the JSON object, or each element of the
 * array, in text (minified by the reader, so its brackets and strings are
 * sound); stops at anything else. */
typedef void (*each_fn)(pv__cj_model *m, void *ctx, pv__cj_str key, const pv__cj_value *v);

static void each(pv__cj_model *m, const char *text, size_t len, each_fn fn, void *ctx)
{
    pv__cj_scratch scratch = {0};
    pv__cj_cur c = {(const uint8_t *)text, (const uint8_t *)text + len, true, NULL, &scratch};
    bool object = len > 0 && text[0] == '{';
    if (len < 2 || (text[0] != '{' && text[0] != '['))
        return;
    c.p++;
    while (c.p < c.end && *c.p != '}' && *c.p != ']') {
        pv__cj_str key = {"", 0};
        pv__cj_value v;
        if (object) {
            if (*c.p != '"' || pv__cj_string(&c, &key) != 0 || c.p >= c.end || *c.p != ':')
                break;
            c.p++;
        }
        if (pv__cj_parse_value(&c, &v) != 0)
            break;
        fn(m, ctx, key, &v);
        if (c.p < c.end && *c.p == ',')
            c.p++;
    }
    pv__cj_scratch_fini(&scratch);
}

/* ---- open B events -------------------------------------------------------- */

static void close_open(pv__cj_model *m)
{
    for (size_t t = 0; t < m->n_threads; t++) {
        while (m->threads[t].open_top != PV__CJ_NONE) {
            m->n_unended++;
            pv__cj_close(m, (uint32_t)t, m->max_ps, NULL, 0);
        }
    }
}

/* ---- flows ------------------------------------------------------------------ */

/* By start, a parent before the child it starts with. A thread's slices
 * mostly come in time order: a merge sort passes over such runs at the
 * cost of a comparison each. */
static inline bool slice_before(const pv__cj_slice *a, const pv__cj_slice *b)
{
    if (a->start_ps != b->start_ps)
        return a->start_ps < b->start_ps;
    if (a->dur_ps != b->dur_ps)
        return a->dur_ps > b->dur_ps;
    return a->ev < b->ev;
}

static inline bool flowpt_before(const pv__cj_flowpt *a, const pv__cj_flowpt *b)
{
    if (a->ts_ps != b->ts_ps)
        return a->ts_ps < b->ts_ps;
    return a->flow < b->flow;
}

PV_MERGE_SORT(sort_slices, pv__cj_slice, slice_before)
PV_MERGE_SORT(sort_flowpts, pv__cj_flowpt, flowpt_before)

static bool holds(const pv__cj_slice *s, int64_t ts)
{
    return s->start_ps <= ts && (ts < s->start_ps + s->dur_ps || ts == s->start_ps);
}

/* Binds the flow points of one thread, f[0..nf), to its slices s[0..ns),
 * both sorted by time: a sweep keeping the stack of slices open at the
 * flow's time. */
static void bind_thread(pv__cj_model *m, const pv__cj_slice *s, size_t ns,
                        const pv__cj_flowpt *f, size_t nf, size_t *stack)
{
    size_t depth = 0, next = 0;
    for (size_t i = 0; i < nf; i++) {
        const pv__cj_flowpt *fp = &f[i];
        while (next < ns && s[next].start_ps <= fp->ts_ps) {
            while (depth > 0 && !holds(&s[stack[depth - 1]], s[next].start_ps))
                depth--;
            stack[depth++] = next++;
        }
        while (depth > 0 && !holds(&s[stack[depth - 1]], fp->ts_ps))
            depth--;
        const pv__cj_slice *to = NULL;
        if (!fp->next) {
            to = depth > 0 ? &s[stack[depth - 1]] : NULL;
        } else {
            /* the first slice starting at or after the flow's time */
            size_t lo = 0;
            PV_LOWER_BOUND(size_t, lo, ns, mid, s[mid].start_ps < fp->ts_ps);
            to = lo < ns ? &s[lo] : NULL;
        }
        if (to == NULL) {
            m->n_unbound_flows++;
            continue;
        }
        pv_stat st = {m->s_flow, PV_STAT_U64, {.u64 = fp->flow << 2 | fp->dir}};
        pv_builder_event_stat(m->b, to->ev, st);
    }
}

static void bind_flows(pv__cj_model *m)
{
    size_t most = 0;
    for (size_t i = 0; i < m->n_threads; i++)
        if (m->threads[i].n_flows > 0 && m->threads[i].n_slices > most)
            most = m->threads[i].n_slices;
    size_t *stack = pv_xmalloc((most + 1) * sizeof *stack);
    for (size_t i = 0; i < m->n_threads; i++) {
        pv__cj_thread *t = &m->threads[i];
        if (t->n_flows == 0)
            continue;
        sort_slices(t->slices, t->n_slices);
        sort_flowpts(t->flows, t->n_flows);
        bind_thread(m, t->slices, t->n_slices, t->flows, t->n_flows, stack);
    }
    free(stack);
}

/* ---- names ------------------------------------------------------------------- */

static const char *str(const pv__cj_model *m, uint32_t id)
{
    return pv_builder_str(m->b, id);
}

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The device number of a Kineto label "GPU <n>", or -1. */
static int64_t gpu_label(const char *s)
{
    if (!starts(s, "GPU "))
        return -1;
    int64_t n = 0;
    const char *p = s + 4;
    if (*p == '\0')
        return -1;
    for (; *p != '\0'; p++) {
        if (*p < '0' || *p > '9' || n > 1000000)
            return -1;
        n = n * 10 + (*p - '0');
    }
    return n;
}

static uint32_t intern_f(pv__cj_model *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static uint32_t intern_f(pv__cj_model *m, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf)
        n = (int)sizeof buf - 1;
    return pv_builder_intern(m->b, buf, (size_t)n);
}

static void name_planes(pv__cj_model *m)
{
    /* the CPU process with the most events is the host */
    size_t host = SIZE_MAX;
    for (size_t i = 0; i < m->n_procs; i++) {
        const pv__cj_proc *p = &m->procs[i];
        if (p->plane != PV__CJ_NONE && p->labels != 0 && strcmp(str(m, p->labels), "CPU") == 0 &&
            (host == SIZE_MAX || p->n_events > m->procs[host].n_events))
            host = i;
    }
    uint32_t *given = pv_xmalloc((m->n_procs + 1) * sizeof *given);
    size_t n_given = 0;
    for (size_t i = 0; i < m->n_procs; i++) {
        pv__cj_proc *p = &m->procs[i];
        if (p->plane == PV__CJ_NONE)
            continue;
        const char *label = str(m, p->labels), *name = str(m, p->name);
        uint32_t pid_text = p->pid_is_str ? (uint32_t)p->pid : 0;
        char pid_buf[24];
        snprintf(pid_buf, sizeof pid_buf, "%lld", (long long)p->pid);
        const char *pid = p->pid_is_str ? str(m, pid_text) : pid_buf;
        int64_t gpu = gpu_label(label);
        uint32_t sid;
        if (gpu >= 0)
            sid = intern_f(m, "/device:GPU:%lld", (long long)gpu);
        else if (starts(name, "/device:") || starts(name, "/host:"))
            sid = p->name;
        else if (i == host)
            sid = pv_builder_intern_cstr(m->b, "/host:CPU");
        else if (label[0] != '\0' && strcmp(label, "CPU") != 0)
            sid = p->labels;
        else if (name[0] != '\0')
            sid = p->name;
        else
            sid = intern_f(m, "%s", pid[0] != '\0' ? pid : "(no pid)");
        for (size_t k = 0; k < n_given; k++) {
            if (given[k] == sid) {
                sid = intern_f(m, "%s (pid %s)", str(m, sid), pid);
                break;
            }
        }
        given[n_given++] = sid;
        pv_builder_plane_rename(m->b, p->plane, sid);
        if (p->pid_is_str)
            pv_builder_plane_stat(m->b, p->plane,
                                  (pv_stat){pv_builder_intern_cstr(m->b, "pid"), PV_STAT_STR,
                                            {.str = pid_text}});
        else
            pv_builder_plane_stat_i64(m->b, p->plane, "pid", p->pid);
        if (p->name != 0)
            pv_builder_plane_stat_str(m->b, p->plane, "process_name", name);
        if (p->labels != 0)
            pv_builder_plane_stat_str(m->b, p->plane, "process_labels", label);
        if (p->has_sort)
            pv_builder_plane_stat_i64(m->b, p->plane, "process_sort_index", p->sort_index);
    }
    free(given);
    for (size_t i = 0; i < m->n_threads; i++) {
        const pv__cj_thread *t = &m->threads[i];
        if (t->track != PV__CJ_NONE && t->name != 0)
            pv_builder_track_set(m->b, t->track, 0, t->name, 0);
    }
}

/* ---- device properties and the task environment -------------------------------- */

typedef struct device_ctx {
    int64_t id;
    bool has_id;
    uint32_t plane;
} device_ctx;

static void device_member(pv__cj_model *m, void *ctx, pv__cj_str key, const pv__cj_value *v)
{
    device_ctx *d = ctx;
    if (d->plane == PV__CJ_NONE) {
        if (key.len == 2 && memcmp(key.s, "id", 2) == 0 && v->kind == PV__CJ_INT) {
            d->id = v->n.i;
            d->has_id = true;
        }
        return;
    }
    uint32_t k = pv__cj_intern(m, key);
    pv_stat s = {k, PV_STAT_STR, {.str = 0}};
    if (v->kind == PV__CJ_INT)
        s = (pv_stat){k, PV_STAT_I64, {.i64 = v->n.i}};
    else if (v->kind == PV__CJ_UINT)
        s = (pv_stat){k, PV_STAT_U64, {.u64 = v->n.u}};
    else if (v->kind == PV__CJ_DOUBLE)
        s = (pv_stat){k, PV_STAT_F64, {.f64 = v->n.d}};
    else
        s.v.str = pv__cj_intern(m, v->text);
    pv_builder_plane_stat(m->b, d->plane, s);
}

static void device(pv__cj_model *m, void *ctx, pv__cj_str key, const pv__cj_value *v)
{
    (void)ctx;
    (void)key;
    if (v->kind != PV__CJ_RAW || v->text.s[0] != '{')
        return;
    device_ctx d = {0, false, PV__CJ_NONE};
    each(m, v->text.s, v->text.len, device_member, &d);
    if (!d.has_id)
        return;
    for (size_t i = 0; i < m->n_procs; i++) {
        const pv__cj_proc *p = &m->procs[i];
        if (p->plane != PV__CJ_NONE && gpu_label(str(m, p->labels)) == d.id)
            d.plane = p->plane;
    }
    if (d.plane != PV__CJ_NONE)
        each(m, v->text.s, v->text.len, device_member, &d);
}

static void task_environment(pv__cj_model *m)
{
    bool epoch = m->base_ns > 0 || m->base_us > (int64_t)946684800 * 1000000;
    if (m->n_tops == 0 && !(epoch && m->any_time))
        return;
    uint32_t plane = pv_builder_plane(m->b, -1, "Task Environment");
    int64_t base, base_us_ns;
    if (epoch && m->any_time && !__builtin_mul_overflow(m->base_us, 1000, &base_us_ns) &&
        !__builtin_add_overflow(m->base_ns, base_us_ns, &base) && base > 0 &&
        base < INT64_MAX - m->max_ps / 1000) {
        int64_t start = base + m->min_ps / 1000;
        pv_builder_plane_stat_u64(m->b, plane, "profile_start_time",
                                  start > 0 ? (uint64_t)start : 0);
        pv_builder_plane_stat_u64(m->b, plane, "profile_stop_time",
                                  (uint64_t)(base + m->max_ps / 1000));
    }
    for (size_t i = 0; i < m->n_tops; i++) {
        const pv__cj_top *t = &m->tops[i];
        if (t->raw != 0 && strcmp(str(m, t->key), "deviceProperties") == 0) {
            const char *text = str(m, t->raw);
            each(m, text, strlen(text), device, NULL);
            continue;
        }
        pv_builder_plane_stat(m->b, plane, t->stat);
    }
}

/* ---- warnings ------------------------------------------------------------------ */

static void warn(pv__cj_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(pv__cj_model *m, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        pv_builder_warning(m->b, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void warnings(pv__cj_model *m)
{
    if (m->cut && m->cut_trailing)
        warn(m, "%s at byte %llu was left out", m->cut_what, (unsigned long long)m->cut_at);
    else if (m->cut)
        warn(m, "%s at byte %llu: the %llu events before it are shown", m->cut_what,
             (unsigned long long)m->cut_at, (unsigned long long)m->n_events);
    /* The events a count says were dropped or changed, by what happened. */
    const struct {
        uint64_t n;
        const char *what;
    } counts[] = {
        {m->n_far, "events lie more than 100 days from the first one and were left out"},
        {m->n_no_time, "events without a time (ts) were left out"},
        {m->n_neg_dur, "events with a negative duration are shown with none"},
        {m->n_unmatched_end, "ends (E) had no begin (B) on their thread and were left out"},
        {m->n_unended, "begins (B) had no end (E); they run to the trace's end"},
        {m->n_unbound_flows, "flow events had no slice to bind to"},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (counts[i].n > 0)
            warn(m, "%llu %s", (unsigned long long)counts[i].n, counts[i].what);
    char phases[128 * 6];
    size_t w = 0;
    uint64_t n = 0;
    for (int c = 0; c < 128; c++) {
        if (m->n_phase[c] == 0)
            continue;
        n += m->n_phase[c];
        if (w + 8 < sizeof phases)
            w += (size_t)snprintf(phases + w, sizeof phases - w, "%s'%c'", w ? ", " : "",
                                  c >= 0x20 && c < 0x7f ? c : '?');
    }
    if (n > 0)
        warn(m, "%llu events of phases %s are not shown", (unsigned long long)n, phases);
}

void pv__cj_model_finish(pv__cj_model *m)
{
    close_open(m);
    bind_flows(m);
    name_planes(m);
    task_environment(m);
    warnings(m);
}
