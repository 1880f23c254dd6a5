/* cj_model: the parser, one event at a time into the builder.
 *
 *   process (pid)      a plane, named at the end (cj_finish.c)
 *   thread (pid, tid)  a track of its process's plane; counters get one
 *                      "_counters_" track per process
 *   (name, cat)        one event metadata per plane, "cat" its stat, its
 *                      roles as PyTorch's profiler says (cj_roles.c)
 *   X                  an event of dur; B/E paired per thread like a
 *                      stack (E's args join B's), i/I/R an event of 0;
 *                      args as stats (cj_args.c), some of which link
 *                      events (cj_roles.c)
 *   C                  one event per numeric arg on the counters track,
 *                      named "<name> <arg>" (with the id: "<name> <id>
 *                      <arg>"), its value the stat "value"
 *   s/t/f              kept, and bound to a slice at the end
 *   M                  process_name, process_labels, process_sort_index,
 *                      thread_name, thread_sort_index
 * Times are relative to the whole microseconds of the first timed event,
 * so a trace written in epoch microseconds keeps its picoseconds exact in
 * 64 bits; events more than 100 days from it are left out with a warning.
 * A [memory] instant is named MemoryAllocation / MemoryDeallocation (by
 * the sign of its "Bytes"), shown as [memory], so tools read it as
 * TensorFlow's memory events (cj_args.c gives its stats). */
#include "ingest/chrome_json/cj_priv.h"
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 100 days: a relative time in picoseconds stays far inside 2^63. */
#define MAX_REL_US ((int64_t)100 * 86400 * 1000000)
#define STRING_ID_BASE ((int64_t)1 << 32)   /* line ids of string tids */
#define COUNTERS_LINE ((int64_t)1 << 48)

#define GROW(arr, n, cap)                                                       \
    do {                                                                        \
        if ((n) == (cap)) {                                                     \
            (cap) = (cap) ? 2 * (cap) : 16;                                     \
            (arr) = pv_xrealloc((arr), (cap) * sizeof *(arr));                  \
        }                                                                       \
    } while (0)

/* ---- lifetime ---------------------------------------------------------------- */

pv__cj_model *pv__cj_model_new(pv_model_builder *b, const char *path)
{
    pv__cj_model *m = pv_xcalloc(1, sizeof *m);
    m->b = b;
    m->path = path;
    m->last_thread = PV__CJ_NONE;
    m->last_proc = PV__CJ_NONE;
    for (int k = 0; k < PV__CJ_RECENT; k++)
        m->recent[k] = PV__CJ_NONE;
    m->free_open = PV__CJ_NONE;
    m->s_cat = pv_builder_intern_cstr(b, "cat");
    m->s_flow = pv_builder_intern_cstr(b, "flow");
    m->s_value = pv_builder_intern_cstr(b, "value");
    m->s_kernel_details = pv_builder_intern_cstr(b, "kernel_details");
    m->s_true = pv_builder_intern_cstr(b, "true");
    m->s_false = pv_builder_intern_cstr(b, "false");
    m->s_null = pv_builder_intern_cstr(b, "null");
    m->s_mem_alloc = pv_builder_intern_cstr(b, "MemoryAllocation");
    m->s_mem_free = pv_builder_intern_cstr(b, "MemoryDeallocation");
    pv__cj_link_stats(m);
    return m;
}

void pv__cj_model_free(pv__cj_model *m)
{
    if (m == NULL)
        return;
    pv__cj_map_fini(&m->proc_map);
    pv__cj_map_fini(&m->thread_map);
    pv__cj_map_fini(&m->meta_map);
    pv__cj_map_fini(&m->flow_map);
    for (size_t i = 0; i < m->n_opens; i++)
        free(m->opens[i].stats);
    free(m->opens);
    free(m->procs);
    for (size_t i = 0; i < m->n_threads; i++) {
        free(m->threads[i].slices);
        free(m->threads[i].flows);
    }
    free(m->threads);
    free(m->tops);
    free(m->tmp);
    free(m->mem_peaks);
    free(m);
}

bool pv__cj_model_fits(const pv__cj_model *m, uint64_t cap_bytes)
{
    uint64_t own = m->n_slices * sizeof(pv__cj_slice) + m->n_flows * sizeof(pv__cj_flowpt) +
                   m->n_opens * sizeof *m->opens;
    return pv_builder_mem_bound(m->b) + own <= cap_bytes;
}

void pv__cj_model_cut(pv__cj_model *m, uint64_t at, const char *what, bool trailing)
{
    if (m->cut)
        return;
    m->cut = true;
    m->cut_trailing = trailing;
    m->cut_at = at;
    m->cut_what = what;
}

/* ---- processes and threads ------------------------------------------------------ */

uint32_t pv__cj_intern(pv__cj_model *m, pv__cj_str s)
{
    return s.len > 0 ? pv_builder_intern(m->b, s.s, s.len) : 0;   /* id 0 is "" */
}

/* The key words of an id: numbers and string ids never meet. */
static void id_key(pv__cj_model *m, const pv__cj_id *id, uint64_t *a, uint64_t *b, int64_t *v)
{
    if (!id->set) {
        *a = 0;
        *v = 0;
    } else if (id->is_str) {
        *a = 1;
        *v = pv__cj_intern(m, id->str);
    } else {
        *a = 0;
        *v = id->num;
    }
    *b = (uint64_t)*v;
}

static uint32_t proc_of(pv__cj_model *m, const pv__cj_id *pid)
{
    /* Most events are of the previous event's process: a numbered pid
     * (absent reads as 0) is checked against it before the map. */
    if (m->last_proc != PV__CJ_NONE && !pid->is_str) {
        const pv__cj_proc *last = &m->procs[m->last_proc];
        if (!last->pid_is_str && last->pid == (pid->set ? pid->num : 0))
            return m->last_proc;
    }
    uint64_t a, b;
    int64_t v;
    id_key(m, pid, &a, &b, &v);
    uint32_t i = pv__cj_map_get(&m->proc_map, a, b);
    if (i != PV__CJ_NONE) {
        m->last_proc = i;
        return i;
    }
    GROW(m->procs, m->n_procs, m->cap_procs);
    i = (uint32_t)m->n_procs++;
    pv__cj_proc *p = &m->procs[i];
    memset(p, 0, sizeof *p);
    p->plane = PV__CJ_NONE;
    p->counters = PV__CJ_NONE;
    p->pid_is_str = a == 1;
    p->pid = v;
    pv__cj_map_put(&m->proc_map, a, b, i);
    m->last_proc = i;
    return i;
}

static uint32_t new_thread(pv__cj_model *m, uint32_t proc, bool is_str, int64_t tid)
{
    GROW(m->threads, m->n_threads, m->cap_threads);
    uint32_t i = (uint32_t)m->n_threads++;
    pv__cj_thread *t = &m->threads[i];
    memset(t, 0, sizeof *t);
    t->proc = proc;
    t->track = PV__CJ_NONE;
    t->tid_is_str = is_str;
    t->tid = tid;
    t->open_top = PV__CJ_NONE;
    return i;
}

static uint32_t thread_of(pv__cj_model *m, const pv__cj_event *ev)
{
    uint32_t proc = proc_of(m, &ev->pid);
    uint64_t a, b;
    int64_t v;
    id_key(m, &ev->tid, &a, &b, &v);
    /* Events of a few threads interleave: the last ones are tried first. */
    for (int k = 0; k < PV__CJ_RECENT; k++) {
        uint32_t r = m->recent[k];
        if (r == PV__CJ_NONE)
            break;
        const pv__cj_thread *t = &m->threads[r];
        if (t->proc == proc && t->tid_is_str == (a == 1) && t->tid == v) {
            m->last_thread = r;
            return r;
        }
    }
    a |= (uint64_t)proc << 1;
    uint32_t i = pv__cj_map_get(&m->thread_map, a, b);
    if (i == PV__CJ_NONE) {
        i = new_thread(m, proc, (a & 1) != 0, v);
        pv__cj_map_put(&m->thread_map, a, b, i);
    }
    m->last_thread = i;
    memmove(m->recent + 1, m->recent, (PV__CJ_RECENT - 1) * sizeof *m->recent);
    m->recent[0] = i;
    return i;
}

/* The text of a pid or tid, for names: a number in decimal. */
static uint32_t id_text(pv__cj_model *m, bool is_str, int64_t v)
{
    if (is_str)
        return (uint32_t)v;
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    return pv_builder_intern(m->b, buf, (size_t)n);
}

static uint32_t plane_of(pv__cj_model *m, uint32_t proc)
{
    pv__cj_proc *p = &m->procs[proc];
    if (p->plane == PV__CJ_NONE) {
        int64_t id = p->pid_is_str ? STRING_ID_BASE + proc : p->pid;
        p->plane = pv_builder_plane_sid(m->b, id, id_text(m, p->pid_is_str, p->pid));
    }
    return p->plane;
}

static uint32_t track_of(pv__cj_model *m, uint32_t thread)
{
    pv__cj_thread *t = &m->threads[thread];
    if (t->track != PV__CJ_NONE)
        return t->track;
    uint32_t plane = plane_of(m, t->proc);
    pv__cj_proc *p = &m->procs[t->proc];
    if (p->counters == thread) {
        t->track = pv_builder_track(m->b, plane, COUNTERS_LINE, "_counters_", 0);
    } else {
        int64_t line = t->tid_is_str ? STRING_ID_BASE + thread : t->tid;
        t->track = pv_builder_track_sid(m->b, plane, line, id_text(m, t->tid_is_str, t->tid),
                                        0);
    }
    return t->track;
}

/* The metadata of (name, cat) on plane; display (0: none) is the name
 * the timeline shows when it is not name. */
static uint32_t meta_shown(pv__cj_model *m, uint32_t plane, uint32_t name, uint32_t display,
                           uint32_t cat)
{
    uint64_t a = (uint64_t)plane << 32 | name, b = (uint64_t)display << 32 | cat;
    /* a trace repeats a few names: a small direct-mapped cache first */
    size_t c = (size_t)((a * 0x9e3779b97f4a7c15ull) ^ b) % PV__CJ_META_CACHE;
    if (m->meta_cache[c].a == a && m->meta_cache[c].b == b && m->meta_cache[c].set)
        return m->meta_cache[c].meta;
    uint32_t i = pv__cj_map_get(&m->meta_map, a, b);
    if (i != PV__CJ_NONE) {
        m->meta_cache[c] = (pv__cj_meta_slot){a, b, i, true};
        return i;
    }
    i = pv_builder_meta_sid(m->b, plane, m->n_metas++, name, display);
    if (cat != 0)
        pv_builder_meta_stat(m->b, i, (pv_stat){m->s_cat, PV_STAT_STR, {.str = cat}});
    unsigned roles = pv__cj_roles(m, name, display, cat);
    if (roles != 0)
        pv_builder_meta_role(m->b, i, roles);
    pv__cj_map_put(&m->meta_map, a, b, i);
    return i;
}

static uint32_t meta_of(pv__cj_model *m, uint32_t plane, uint32_t name, uint32_t cat)
{
    return meta_shown(m, plane, name, 0, cat);
}

/* ---- times ----------------------------------------------------------------------- */

/* The event's start relative to the base; false when it is too far. */
static bool rel_ps(pv__cj_model *m, pv__cj_time t, int64_t *out)
{
    if (!m->have_base) {
        m->have_base = true;
        m->base_us = t.us;
    }
    int64_t d;
    if (__builtin_sub_overflow(t.us, m->base_us, &d) || d > MAX_REL_US || d < -MAX_REL_US) {
        m->n_far++;
        return false;
    }
    *out = d * 1000000 + t.ps;
    return true;
}

static int64_t dur_ps(pv__cj_model *m, pv__cj_time t)
{
    if (!t.set)
        return 0;
    if (t.us < 0) {
        m->n_neg_dur++;
        return 0;
    }
    if (t.us > MAX_REL_US) {
        m->n_far++;
        return MAX_REL_US * 1000000;
    }
    return t.us * 1000000 + t.ps;
}

static void span(pv__cj_model *m, int64_t start, int64_t end)
{
    if (!m->any_time || start < m->min_ps)
        m->min_ps = start;
    if (!m->any_time || end > m->max_ps)
        m->max_ps = end;
    m->any_time = true;
}


static pv_stat *tmp_stats(pv__cj_model *m, size_t n)
{
    if (n > m->cap_tmp) {
        m->cap_tmp = n < 64 ? 64 : n;
        m->tmp = pv_xrealloc(m->tmp, m->cap_tmp * sizeof *m->tmp);
    }
    return m->tmp;
}

/* ---- flows ---------------------------------------------------------------------- */

/* The flow number of (cat, id), or of a flow v2 bind_id (v2 true). */
static uint64_t flow_of(pv__cj_model *m, uint32_t cat, const pv__cj_id *id, bool v2)
{
    uint64_t a, b;
    int64_t v;
    id_key(m, id, &a, &b, &v);
    a |= v2 ? 2 : (uint64_t)cat << 2;
    /* a flow's end comes a few events after its start (Kineto's ac2g
     * pairs): the flows seen last are looked at before the map */
    for (size_t k = 0; k < PV__CJ_FLOW_RECENT; k++) {
        const pv__cj_flow_slot *r = &m->flow_recent[k];
        if (r->set && r->a == a && r->b == b)
            return r->flow;
    }
    uint32_t f = pv__cj_map_get(&m->flow_map, a, b);
    if (f == PV__CJ_NONE) {
        f = (uint32_t)m->n_flow_ids++;
        pv__cj_map_put(&m->flow_map, a, b, f);
    }
    m->flow_recent[m->flow_recent_at] = (pv__cj_flow_slot){a, b, f, true};
    m->flow_recent_at = (m->flow_recent_at + 1) % PV__CJ_FLOW_RECENT;
    return f;
}

static void add_slice(pv__cj_model *m, uint32_t thread, int64_t start, int64_t dur, uint64_t ev)
{
    pv__cj_thread *t = &m->threads[thread];
    GROW(t->slices, t->n_slices, t->cap_slices);
    t->slices[t->n_slices++] = (pv__cj_slice){start, dur, ev};
    m->n_slices++;
}

static void flow_point(pv__cj_model *m, const pv__cj_event *ev)
{
    int64_t ts;
    if (!ev->id.set || !rel_ps(m, ev->ts, &ts))
        return;
    uint32_t thread = thread_of(m, ev);
    pv__cj_thread *t = &m->threads[thread];
    GROW(t->flows, t->n_flows, t->cap_flows);
    pv__cj_flowpt *f = &t->flows[t->n_flows++];
    m->n_flows++;
    f->dir = ev->ph == 's' ? 2 : ev->ph == 'f' ? 1 : 3;
    f->next = ev->ph == 'f' && !ev->bp_enclosing;
    f->ts_ps = ts;
    f->flow = flow_of(m, pv__cj_intern(m, ev->cat), &ev->id, false);
}

/* ---- phases ------------------------------------------------------------------- */

/* Adds an event with its args' stats, then the n_more stats more; the
 * flow v2 stat of a complete event too. Returns its handle. */
static uint64_t add_event(pv__cj_model *m, const pv__cj_event *ev, uint32_t track, uint32_t meta,
                          int64_t start, int64_t dur, const pv_stat *more, size_t n_more)
{
    bool v2 = ev->bind_id.set && (ev->flow_in || ev->flow_out);
    uint64_t flow = v2 ? flow_of(m, 0, &ev->bind_id, true) : 0;
    pv_stat *st = pv_builder_stats_reserve(m->b, ev->n_args + 2 + n_more);
    size_t k = pv__cj_args_stats(m, ev, st);
    for (size_t i = 0; i < n_more; i++)
        st[k++] = more[i];
    if (v2) {
        uint64_t dir = (ev->flow_in ? 1u : 0u) | (ev->flow_out ? 2u : 0u);
        st[k++] = (pv_stat){m->s_flow, PV_STAT_U64, {.u64 = flow << 2 | dir}};
    }
    uint64_t h = pv_builder_event(m->b, track, meta, start, dur);
    pv_builder_stats_commit(m->b, k);
    span(m, start, start + dur);
    return h;
}

static void complete(pv__cj_model *m, const pv__cj_event *ev, bool instant)
{
    int64_t start;
    if (!rel_ps(m, ev->ts, &start))
        return;
    int64_t dur = instant ? 0 : dur_ps(m, ev->dur);
    uint32_t thread = thread_of(m, ev);
    uint32_t track = track_of(m, thread);
    uint32_t plane = m->procs[m->threads[thread].proc].plane;
    m->procs[m->threads[thread].proc].n_events++;
    uint32_t name = pv__cj_intern(m, ev->name), cat = pv__cj_intern(m, ev->cat);
    pv_stat more[6];
    size_t n_more = 0;
    uint32_t meta;
    if (instant && pv__cj_is_memory(ev)) {
        /* named as TensorFlow names its memory events, shown as Kineto's */
        bool free;
        n_more = pv__cj_memory_stats(m, ev, more, &free);
        meta = meta_shown(m, plane, free ? m->s_mem_free : m->s_mem_alloc, name, cat);
    } else {
        meta = meta_of(m, plane, name, cat);
    }
    uint64_t h = add_event(m, ev, track, meta, start, dur, more, n_more);
    if (!instant)
        add_slice(m, thread, start, dur, h);
}

static void begin(pv__cj_model *m, const pv__cj_event *ev)
{
    int64_t start;
    if (!rel_ps(m, ev->ts, &start))
        return;
    uint32_t thread = thread_of(m, ev);
    track_of(m, thread);
    uint32_t plane = m->procs[m->threads[thread].proc].plane;
    m->procs[m->threads[thread].proc].n_events++;
    uint32_t meta = meta_of(m, plane, pv__cj_intern(m, ev->name), pv__cj_intern(m, ev->cat));
    uint32_t i = m->free_open;
    if (i != PV__CJ_NONE) {
        m->free_open = m->opens[i].below;
    } else {
        GROW(m->opens, m->n_opens, m->cap_opens);
        i = (uint32_t)m->n_opens++;
        m->opens[i].stats = NULL;
    }
    pv__cj_open *o = &m->opens[i];
    o->thread = thread;
    o->meta = meta;
    o->start_ps = start;
    o->stats = pv_xrealloc(o->stats, (ev->n_args + 1) * sizeof *o->stats);
    o->n_stats = pv__cj_args_stats(m, ev, o->stats);
    o->below = m->threads[thread].open_top;
    m->threads[thread].open_top = i;
    span(m, start, start);
}

void pv__cj_close(pv__cj_model *m, uint32_t thread, int64_t end_ps, const pv_stat *e_stats,
                  size_t n)
{
    pv__cj_thread *t = &m->threads[thread];
    uint32_t i = t->open_top;
    pv__cj_open *o = &m->opens[i];
    int64_t dur = end_ps - o->start_ps;
    if (dur < 0) {
        m->n_neg_dur++;
        dur = 0;
    }
    uint64_t h = pv_builder_event(m->b, t->track, o->meta, o->start_ps, dur);
    if (o->n_stats > 0)
        pv_builder_event_stats(m->b, o->stats, o->n_stats);
    if (n > 0)
        pv_builder_event_stats(m->b, e_stats, n);
    add_slice(m, thread, o->start_ps, dur, h);
    span(m, o->start_ps, o->start_ps + dur);
    t->open_top = o->below;
    o->below = m->free_open;
    m->free_open = i;
}

static void end(pv__cj_model *m, const pv__cj_event *ev)
{
    int64_t at;
    if (!rel_ps(m, ev->ts, &at))
        return;
    uint32_t thread = thread_of(m, ev);
    if (m->threads[thread].open_top == PV__CJ_NONE) {
        m->n_unmatched_end++;
        return;
    }
    pv_stat *st = tmp_stats(m, ev->n_args + 1);
    size_t n = pv__cj_args_stats(m, ev, st);
    pv__cj_close(m, thread, at, st, n);
}

/* Appends s at dst + *w (an absent string has no bytes to copy). */
static void append(char *dst, size_t *w, pv__cj_str s)
{
    if (s.len > 0)
        memcpy(dst + *w, s.s, s.len);
    *w += s.len;
}

static void counter(pv__cj_model *m, const pv__cj_event *ev)
{
    int64_t at;
    if (!rel_ps(m, ev->ts, &at))
        return;
    uint32_t proc = proc_of(m, &ev->pid);
    if (m->procs[proc].counters == PV__CJ_NONE) {
        uint32_t t = new_thread(m, proc, false, 0);
        m->procs[proc].counters = t;
    }
    uint32_t thread = m->procs[proc].counters;
    uint32_t track = track_of(m, thread);
    m->procs[proc].n_events++;
    uint32_t plane = m->procs[proc].plane;
    uint32_t cat = pv__cj_intern(m, ev->cat);
    char idbuf[32];
    pv__cj_str id = {"", 0};
    if (ev->id.set && ev->id.is_str) {
        id = ev->id.str;
    } else if (ev->id.set) {
        int n = snprintf(idbuf, sizeof idbuf, "%lld", (long long)ev->id.num);
        id = (pv__cj_str){idbuf, (size_t)n};
    }
    for (size_t i = 0; i < ev->n_args; i++) {
        const pv__cj_arg *a = &ev->args[i];
        pv_stat v = {m->s_value, PV_STAT_F64, {.f64 = 0}};
        if (a->v.kind == PV__CJ_INT) {
            v.type = PV_STAT_I64;
            v.v.i64 = a->v.n.i;
        } else if (!pv__cj_arg_number(a, &v.v.f64)) {
            continue;
        }
        size_t n = ev->name.len + id.len + a->key.len + 2;
        char *name = pv_xmalloc(n);
        size_t w = 0;
        append(name, &w, ev->name);
        if (id.len > 0) {
            name[w++] = ' ';
            append(name, &w, id);
        }
        name[w++] = ' ';
        append(name, &w, a->key);
        uint32_t meta = meta_of(m, plane, pv_builder_intern(m->b, name, w), cat);
        free(name);
        pv_builder_event(m->b, track, meta, at, 0);
        pv_builder_event_stats(m->b, &v, 1);
        span(m, at, at);
    }
}

static bool str_is(pv__cj_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(s.s, lit, n) == 0;
}

/* The string (or number, as text) of ev's arg key; 0 when absent. */
static uint32_t meta_arg_str(pv__cj_model *m, const pv__cj_event *ev, const char *key)
{
    const pv__cj_arg *a = pv__cj_arg_find(ev, key);
    if (a == NULL || a->v.text.len == 0)
        return 0;
    return pv__cj_intern(m, a->v.text);
}

static bool meta_arg_int(const pv__cj_event *ev, const char *key, int64_t *out)
{
    double d;
    const pv__cj_arg *a = pv__cj_arg_find(ev, key);
    if (a != NULL && a->v.kind == PV__CJ_INT) {
        *out = a->v.n.i;
        return true;
    }
    if (!pv__cj_arg_number(a, &d) || d < -9e18 || d > 9e18)
        return false;
    *out = (int64_t)d;
    return true;
}

static void metadata(pv__cj_model *m, const pv__cj_event *ev)
{
    if (str_is(ev->name, "process_name") || str_is(ev->name, "process_labels") ||
        str_is(ev->name, "process_sort_index")) {
        uint32_t proc = proc_of(m, &ev->pid);   /* may move procs */
        pv__cj_proc *p = &m->procs[proc];
        if (str_is(ev->name, "process_name") && p->name == 0)
            p->name = meta_arg_str(m, ev, "name");
        else if (str_is(ev->name, "process_labels") && p->labels == 0)
            p->labels = meta_arg_str(m, ev, "labels");
        else if (str_is(ev->name, "process_sort_index"))
            p->has_sort = meta_arg_int(ev, "sort_index", &p->sort_index);
    } else if (str_is(ev->name, "thread_name") || str_is(ev->name, "thread_sort_index")) {
        uint32_t thread = thread_of(m, ev);   /* may move threads */
        pv__cj_thread *t = &m->threads[thread];
        if (str_is(ev->name, "thread_name"))
            t->name = meta_arg_str(m, ev, "name");
        else
            t->has_sort = meta_arg_int(ev, "sort_index", &t->sort_index);
    }
}

int pv__cj_model_event(pv__cj_model *m, const pv__cj_event *ev, pv_error *err)
{
    if (m->n_events >= PV__CJ_MAX_EVENTS)
        return pv_error_set(err, PV_ETOOBIG, m->path, ev->at, "more than %llu events",
                            (unsigned long long)PV__CJ_MAX_EVENTS);
    if (ev->ph == 'M') {
        metadata(m, ev);
        return 0;
    }
    if (ev->ph == 0 && ev->n_args == 0 && ev->name.len == 0 && !ev->ts.set)
        return 0;   /* an empty {}: TensorFlow ends its events with one */
    bool timed = ev->ph == 'X' || ev->ph == 'B' || ev->ph == 'E' || ev->ph == 'i' ||
                 ev->ph == 'I' || ev->ph == 'R' || ev->ph == 'C' || ev->ph == 's' ||
                 ev->ph == 't' || ev->ph == 'f';
    if (!timed) {
        m->n_phase[(unsigned char)ev->ph & 0x7f]++;
        return 0;
    }
    if (!ev->ts.set) {
        m->n_no_time++;
        return 0;
    }
    m->n_events++;
    switch (ev->ph) {
    case 'X': complete(m, ev, false); break;
    case 'B': begin(m, ev); break;
    case 'E': end(m, ev); break;
    case 'C': counter(m, ev); break;
    case 's':
    case 't':
    case 'f': flow_point(m, ev); break;
    default: complete(m, ev, true); break;
    }
    return 0;
}
