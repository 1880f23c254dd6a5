/* steps: per-step event classification, de-overlap and breakdown
 * (FORMATS.md §4.4; reference: xprof/convert/xplane_to_step_events.cc,
 * xprof/utils/event_span.cc, xprof/convert/step_events_to_steps_db.cc).
 *
 * Known simplifications, each explained where it is made:
 *  - tf.data input-pipeline stages linked to a parent on another thread
 *    only through producer/consumer stats are not treated as descendants;
 *  - TPU planes are read generically (Steps line markers, XLA Ops events
 *    as device compute) instead of the reference's per-core TPU analysis. */
#include "tools/steps/steps.h"

#include "tools/common/tf_op_name.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *pv_hardware_name(uint32_t hw)
{
    switch (hw) {
    case PV_HW_GPU:
        return "GPU";
    case PV_HW_TPU:
        return "TPU";
    default:
        return "CPU_ONLY";
    }
}

/* ---- collection ------------------------------------------------------- */

typedef struct span {
    int64_t begin_ps;
    int64_t dur_ps;   /* 0 = none */
} span;

typedef struct step_ev {
    uint32_t g;       /* group index into m->groups */
    uint32_t type;    /* pv_step_type */
    int64_t begin_ps;
    int64_t end_ps;
} step_ev;

typedef struct collector {
    const pv_model *m;
    uint32_t n_groups;
    span *host_mark;      /* longest host marker per group */
    span *dev_mark;       /* longest device marker per group */
    uint32_t *step_name;  /* string id per group, 0 none */
    bool *touched;        /* group had a marker or event */
    step_ev *evs;
    size_t n_evs, cap_evs;
    uint8_t *host_name;   /* per event metadata, HOST_NAME_* flags of its name */
    uint8_t *device_name; /* per event metadata, device_name_type of its name */
} collector;

static void add_ev(collector *c, uint32_t g, uint32_t type, int64_t begin, int64_t dur)
{
    if (c->n_evs == c->cap_evs) {
        c->cap_evs = c->cap_evs ? 2 * c->cap_evs : 256;
        c->evs = pv_xrealloc(c->evs, c->cap_evs * sizeof *c->evs);
    }
    c->evs[c->n_evs++] = (step_ev){g, type, begin, begin + dur};
}

static void keep_longest(span *s, int64_t begin, int64_t dur)
{
    if (dur > s->dur_ps) {
        s->begin_ps = begin;
        s->dur_ps = dur;
    }
}

/* Group index of an event, or UINT32_MAX when it has no known group. */
static uint32_t group_index(const pv_model *m, uint64_t ev)
{
    int32_t gid = m->ev_group[ev];
    if (gid == PV_NO_GROUP)
        return UINT32_MAX;
    const pv_step_group *g = pv_model_group_find(m, gid);
    return g == NULL ? UINT32_MAX : (uint32_t)(g - m->groups);
}

static bool span_contains(const span *outer, const span *inner)
{
    return outer->begin_ps <= inner->begin_ps &&
           inner->begin_ps + inner->dur_ps <= outer->begin_ps + outer->dur_ps;
}

static bool starts_ci(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* What a device event's name as written (XEventMetadata.name, which the
 * reference classifies by; display names are shortened forms for people)
 * says, worked out once per event metadata (names are few, events many):
 * the type it fixes (a copy, a collective),
 * or, with DEVICE_NAME_COMPUTE, the compute type the name implies, which
 * the event's shape stat decides when it has one. */
#define DEVICE_NAME_COMPUTE 0x80u

static uint8_t device_name_type(const char *name)
{
    pv_tf_op op;
    pv_tf_op_parse(name, strlen(name), &op);
    switch (op.category) {
    case PV_TF_OP_MEMCPY_H2D:
        return PV_STEP_HOST_TO_DEVICE;
    case PV_TF_OP_MEMCPY_D2H:
        return PV_STEP_DEVICE_TO_HOST;
    case PV_TF_OP_MEMCPY_D2D:
        return PV_STEP_DEVICE_TO_DEVICE;
    default:
        break;
    }
    if (starts_ci(name, "nccl"))
        return PV_STEP_DEVICE_COLLECTIVES;
    bool half = strstr(name, "half") || strstr(name, "fp16");
    return (uint8_t)(DEVICE_NAME_COMPUTE |
                     (half ? PV_STEP_DEVICE_COMPUTE_16 : PV_STEP_DEVICE_COMPUTE_32));
}

static uint32_t classify_device(const collector *c, uint64_t ev, uint32_t shape_sid)
{
    const pv_model *m = c->m;
    unsigned type = c->device_name[m->ev_meta[ev]];
    if (!(type & DEVICE_NAME_COMPUTE))
        return type;
    pv_stat shape;
    uint32_t shape_str = shape_sid != 0 && pv_model_event_stat(m, ev, shape_sid, &shape)
                             ? pv_model_stat_str_id(m, &shape)
                             : 0;
    if (shape_str != 0)
        return strstr(pv_model_str(m, shape_str), "half") ? PV_STEP_DEVICE_COMPUTE_16
                                                          : PV_STEP_DEVICE_COMPUTE_32;
    return type & ~DEVICE_NAME_COMPUTE;
}

/* One device plane: markers from its Steps line (or, when it has none,
 * the span of each group's events, as the reference derives that line),
 * events from its streams. Like the reference's IntersectCombineStepEvents,
 * only groups that have both a marker and an event on this plane count. */
static void collect_device_plane(collector *c, const pv_plane *p, uint32_t shape_sid,
                                 bool *derived)
{
    const pv_model *m = c->m;
    span *mark = pv_xcalloc(c->n_groups ? c->n_groups : 1, sizeof *mark);
    bool *has_ev = pv_xcalloc(c->n_groups ? c->n_groups : 1, sizeof *has_ev);
    bool has_steps_line = false;
    bool is_tpu = p->kind == PV_PLANE_TPU;
    size_t first = c->n_evs;

    for (uint32_t ti = p->first_track; ti < p->first_track + p->n_tracks; ti++) {
        const pv_track *t = &m->tracks[ti];
        if (t->kind == PV_TRACK_STEPS) {
            has_steps_line = true;
            for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
                uint32_t g = group_index(m, e);
                if (g != UINT32_MAX)
                    keep_longest(&mark[g], m->ev_start_ps[e], m->ev_dur_ps[e]);
            }
            continue;
        }
        /* GPU streams are plain tracks; a TPU core's ops are on "XLA Ops". */
        bool wanted = is_tpu ? t->kind == PV_TRACK_XLA_OPS : t->kind == PV_TRACK_PLAIN;
        if (!wanted)
            continue;
        for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
            uint32_t g = group_index(m, e);
            if (g == UINT32_MAX)
                continue;
            const pv_event_extra *x = pv_model_event_extra(m, e);
            if (!is_tpu && (x == NULL || !(x->flags & PV_EXTRA_CORRELATION)))
                continue;
            uint32_t type = is_tpu ? PV_STEP_DEVICE_COMPUTE_32 : classify_device(c, e, shape_sid);
            add_ev(c, g, type, m->ev_start_ps[e], m->ev_dur_ps[e]);
            has_ev[g] = true;
        }
    }
    if (!has_steps_line) {
        *derived = true;
        for (size_t i = first; i < c->n_evs; i++) {
            span *s = &mark[c->evs[i].g];
            int64_t end = s->dur_ps ? s->begin_ps + s->dur_ps : c->evs[i].end_ps;
            int64_t begin = s->dur_ps ? s->begin_ps : c->evs[i].begin_ps;
            if (c->evs[i].begin_ps < begin)
                begin = c->evs[i].begin_ps;
            if (c->evs[i].end_ps > end)
                end = c->evs[i].end_ps;
            s->begin_ps = begin;
            s->dur_ps = end - begin > 0 ? end - begin : 1;
        }
    }
    /* Intersect: drop this plane's events of groups without a marker here. */
    size_t w = first;
    for (size_t i = first; i < c->n_evs; i++)
        if (mark[c->evs[i].g].dur_ps > 0)
            c->evs[w++] = c->evs[i];
    c->n_evs = w;
    for (uint32_t g = 0; g < c->n_groups; g++) {
        if (mark[g].dur_ps > 0 && has_ev[g]) {
            keep_longest(&c->dev_mark[g], mark[g].begin_ps, mark[g].dur_ps);
            c->touched[g] = true;
        }
    }
    free(has_ev);
    free(mark);
}

static bool is_explicit_host_marker(const char *name)
{
    return (strncmp(name, "train", 5) == 0 || strncmp(name, "test", 4) == 0 ||
            strncmp(name, "TraceContext", 12) == 0) &&
           strchr(name, '/') == NULL;
}

static bool is_real_cpu_compute(const char *name)
{
    return !(strncmp(name, "EagerExecute", 12) == 0 ||
             strncmp(name, "EagerLocalExecute", 17) == 0 ||
             strncmp(name, "EagerKernelExecute", 18) == 0 ||
             strncmp(name, "FunctionRun", 11) == 0 ||
             is_explicit_host_marker(name));
}

/* What a host event's name says, worked out once per event metadata: a
 * host has millions of events and a few thousand names, and parsing the
 * name per event was a fifth of the overview's time. */
enum {
    HOST_NAME_MARKER = 1,       /* is_explicit_host_marker */
    HOST_NAME_COMPUTE = 2,      /* is_real_cpu_compute */
    HOST_NAME_TO_DEVICE = 4,    /* an infeed enqueue or a host-to-device copy */
    HOST_NAME_TO_HOST = 8,      /* a host-to-host copy */
    HOST_NAME_EXECUTOR = 16,    /* starts with ExecutorState::Process */
    HOST_NAME_GET_NEXT = 32,    /* starts with IteratorGetNext */
};

static uint8_t host_name_flags(const char *name)
{
    pv_tf_op op;
    pv_tf_op_parse(name, strlen(name), &op);
    unsigned f = 0;
    if (is_explicit_host_marker(name))
        f |= HOST_NAME_MARKER;
    if (is_real_cpu_compute(name))
        f |= HOST_NAME_COMPUTE;
    if (pv_tf_op_is_infeed_enqueue(&op) || op.category == PV_TF_OP_MEMCPY_H2D)
        f |= HOST_NAME_TO_DEVICE;
    else if (op.category == PV_TF_OP_MEMCPY_H2H)
        f |= HOST_NAME_TO_HOST;
    if (starts_ci(name, "ExecutorState::Process"))
        f |= HOST_NAME_EXECUTOR;
    if (starts_ci(name, "IteratorGetNext"))
        f |= HOST_NAME_GET_NEXT;
    return (uint8_t)f;
}

static uint32_t classify_host(unsigned name, bool has_device, bool has_corr, bool root_stage)
{
    if (name & HOST_NAME_TO_DEVICE)
        return PV_STEP_HOST_TO_DEVICE;
    if (name & HOST_NAME_TO_HOST)
        return PV_STEP_HOST_TO_HOST;
    if (has_device && (has_corr || (name & HOST_NAME_EXECUTOR)))
        return PV_STEP_HOST_PREPARE;
    if ((name & HOST_NAME_GET_NEXT) || root_stage)
        return PV_STEP_HOST_WAIT_INPUT;
    return PV_STEP_HOST_COMPUTE;
}

typedef struct stage_frame {
    int64_t end_ps;
    bool in_stage;    /* this event is an input-pipeline stage or inside one */
} stage_frame;

/* One host thread. The stack tracks tf.data stages (_ipl_stage_name) so
 * that only the outermost stage of a nest counts as waiting for input. */
static void collect_host_track(collector *c, const pv_track *t, bool has_device,
                               const bool *device_groups, uint32_t ipl_sid)
{
    const pv_model *m = c->m;
    stage_frame *stack = NULL;
    size_t depth = 0, cap = 0;
    for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++) {
        int64_t begin = m->ev_start_ps[e];
        int64_t dur = m->ev_dur_ps[e];
        bool root_stage = false;
        if (ipl_sid != 0) {
            while (depth > 0 && stack[depth - 1].end_ps < begin + dur)
                depth--;
            pv_stat stage;
            bool is_stage = pv_model_event_stat(m, e, ipl_sid, &stage);
            bool parent_in = depth > 0 && stack[depth - 1].in_stage;
            root_stage = is_stage && !parent_in;
            if (depth == cap) {
                cap = cap ? 2 * cap : 16;
                stack = pv_xrealloc(stack, cap * sizeof *stack);
            }
            stack[depth++] = (stage_frame){begin + dur, is_stage || parent_in};
        }
        uint32_t g = group_index(m, e);
        if (g == UINT32_MAX)
            continue;
        if (has_device && !device_groups[g])
            continue;
        unsigned name = c->host_name[m->ev_meta[e]];
        const pv_event_extra *x = pv_model_event_extra(m, e);
        uint32_t step_name = pv_model_step_info(m, x)->step_name;
        if ((name & HOST_NAME_MARKER) || step_name != 0) {
            keep_longest(&c->host_mark[g], begin, dur);
            c->touched[g] = true;
        } else if (name & HOST_NAME_COMPUTE) {
            bool corr = x != NULL && (x->flags & PV_EXTRA_CORRELATION);
            add_ev(c, g, classify_host(name, has_device, corr, root_stage), begin, dur);
            c->touched[g] = true;
        }
        if (step_name != 0 && c->step_name[g] == 0)
            c->step_name[g] = step_name;
    }
    free(stack);
}

/* ---- de-overlap and breakdown ----------------------------------------- */

typedef struct boundary {
    int64_t t_ps;
    uint32_t type;
    bool is_start;
} boundary;

/* By time, ends first, then by type from the highest: a total order of
 * the distinct boundaries, so any sort gives the same sequence. */
static inline bool boundary_before(const boundary *a, const boundary *b)
{
    if (a->t_ps != b->t_ps)
        return a->t_ps < b->t_ps;
    if (a->is_start != b->is_start)
        return !a->is_start;
    return a->type > b->type;
}

PV_MERGE_SORT(sort_boundaries, boundary, boundary_before)

/* Orders c->evs by group, in place (a permutation into each group's
 * bucket: groups are dense indices). A copy would double the largest
 * scratch of the step grouping, the device events of a big profile
 * (hundreds of MB); the order inside a group does not matter, as
 * breakdown sorts its boundaries in a total order. */
static void group_events(collector *c)
{
    if (c->n_evs < 2)
        return;
    size_t *next = pv_xcalloc((size_t)c->n_groups + 1, sizeof *next);
    size_t *end = pv_xcalloc((size_t)c->n_groups + 1, sizeof *end);
    for (size_t i = 0; i < c->n_evs; i++)
        end[c->evs[i].g]++;
    size_t at = 0;
    for (uint32_t g = 0; g < c->n_groups; g++) {
        next[g] = at;
        at += end[g];
        end[g] = at;
    }
    for (uint32_t g = 0; g < c->n_groups; g++) {
        while (next[g] < end[g]) {
            step_ev e = c->evs[next[g]];
            /* carry e to its bucket, taking what was there, until an event
             * of g comes back to fill this place */
            while (e.g != g) {
                step_ev displaced = c->evs[next[e.g]];
                c->evs[next[e.g]++] = e;
                e = displaced;
            }
            c->evs[next[g]++] = e;
        }
    }
    free(end);
    free(next);
}

static int64_t overlap(int64_t b0, int64_t e0, int64_t b1, int64_t e1)
{
    int64_t b = b0 > b1 ? b0 : b1;
    int64_t e = e0 < e1 ? e0 : e1;
    return e > b ? e - b : 0;
}

/* Splits [evs, evs+n) at every boundary, gives each piece the highest
 * type active in it, and adds each piece's overlap with the step span to
 * type_ps. present[type] says whether a piece of that type exists at all
 * (the reference's well-formedness test looks at presence, not length). */
static void breakdown(const step_ev *evs, size_t n, const span *step, int64_t *type_ps,
                      bool *present)
{
    if (n == 0)
        return;
    boundary *bs = pv_xmalloc(2 * n * sizeof *bs);
    for (size_t i = 0; i < n; i++) {
        bs[2 * i] = (boundary){evs[i].begin_ps, evs[i].type, true};
        bs[2 * i + 1] = (boundary){evs[i].end_ps, evs[i].type, false};
    }
    sort_boundaries(bs, 2 * n);
    int64_t count[PV_STEP_N_TYPES] = {0};
    uint32_t top = PV_STEP_UNKNOWN;
    int64_t step_end = step->begin_ps + step->dur_ps;
    for (size_t i = 0; i + 1 < 2 * n; i++) {
        const boundary *b = &bs[i];
        if (b->is_start) {
            count[b->type]++;
            if (b->type > top)
                top = b->type;
        } else {
            count[b->type]--;
            if (b->type == top && count[b->type] == 0) {
                while (top > PV_STEP_UNKNOWN && count[top] == 0)
                    top--;
            }
        }
        present[top] = true;
        type_ps[top] += overlap(b->t_ps, bs[i + 1].t_ps, step->begin_ps, step_end);
    }
    free(bs);
}

/* ---- entry point -------------------------------------------------------- */

int pv_tool_steps(const pv_model *m, const pv_steps_query *q, pv_arena *a,
                  pv_steps_result *out, pv_error *err)
{
    static const pv_steps_query defaults = {false, true};
    if (q == NULL)
        q = &defaults;
    memset(out, 0, sizeof *out);
    if (pv_model_has_roles(m))
        return pv_steps_kineto(m, a, out);
    return pv__steps_kept(m, q, a, out, err);
}

int pv__steps_compute(const pv_model *m, const pv_steps_query *q, pv_arena *a,
                      pv_steps_result *out, pv_error *err)
{
    (void)err;
    memset(out, 0, sizeof *out);

    uint32_t n_dev_gpu = 0, n_dev_tpu = 0;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        if (m->planes[p].kind == PV_PLANE_GPU)
            n_dev_gpu++;
        else if (m->planes[p].kind == PV_PLANE_TPU)
            n_dev_tpu++;
    }
    out->hardware = n_dev_tpu ? PV_HW_TPU : n_dev_gpu ? PV_HW_GPU : PV_HW_CPU_ONLY;
    out->n_device_planes = n_dev_gpu + n_dev_tpu;
    out->t0_ps = m->min_ps;
    out->has_trace_times = true;
    bool has_device = out->n_device_planes > 0;

    collector c = {.m = m, .n_groups = m->n_groups};
    c.host_name = pv_xmalloc(m->n_metas + 1u);
    c.device_name = pv_xmalloc(m->n_metas + 1u);
    for (uint32_t i = 0; i < m->n_metas; i++) {
        const char *name = pv_model_str(m, m->metas[i].name);
        c.host_name[i] = host_name_flags(name);
        c.device_name[i] = device_name_type(name);
    }
    size_t ng = m->n_groups ? m->n_groups : 1;
    c.host_mark = pv_xcalloc(ng, sizeof *c.host_mark);
    c.dev_mark = pv_xcalloc(ng, sizeof *c.dev_mark);
    c.step_name = pv_xcalloc(ng, sizeof *c.step_name);
    c.touched = pv_xcalloc(ng, sizeof *c.touched);
    bool *device_groups = pv_xcalloc(ng, sizeof *device_groups);

    uint32_t shape_sid = pv_model_str_find(m, "shape");
    for (uint32_t p = 0; p < m->n_planes; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->kind == PV_PLANE_GPU || pl->kind == PV_PLANE_TPU)
            collect_device_plane(&c, pl, shape_sid, &out->derived_markers);
    }
    for (uint32_t g = 0; g < m->n_groups; g++)
        device_groups[g] = c.touched[g];

    out->host_merged = !has_device || q->merge_host_with_device;
    if (out->host_merged) {
        uint32_t ipl_sid = pv_model_str_find(m, "_ipl_stage_name");
        for (uint32_t p = 0; p < m->n_planes; p++) {
            const pv_plane *pl = &m->planes[p];
            if (pl->kind != PV_PLANE_HOST)
                continue;
            for (uint32_t ti = pl->first_track; ti < pl->first_track + pl->n_tracks; ti++)
                if (m->tracks[ti].kind == PV_TRACK_PLAIN)
                    collect_host_track(&c, &m->tracks[ti], has_device, device_groups, ipl_sid);
        }
    }

    group_events(&c);
    out->steps = pv_arena_zalloc(a, ng * sizeof *out->steps);
    size_t ei = 0;
    for (uint32_t g = 0; g < m->n_groups; g++) {
        size_t e0 = ei;
        while (ei < c.n_evs && c.evs[ei].g == g)
            ei++;
        if (!c.touched[g])
            continue;
        out->n_groups++;
        /* Step time: the longest device marker, unless the longest host
         * marker contains it (then the host one, as the reference does). */
        span st = c.dev_mark[g];
        if (st.dur_ps == 0 || (c.host_mark[g].dur_ps > 0 && span_contains(&c.host_mark[g], &st)))
            st = c.host_mark[g];
        if (st.dur_ps <= 0) {
            out->n_no_marker++;
            continue;
        }
        pv_step *s = &out->steps[out->n_steps];
        bool present[PV_STEP_N_TYPES] = {false};
        breakdown(&c.evs[e0], ei - e0, &st, s->type_ps, present);
        bool device_compute =
            present[PV_STEP_DEVICE_COMPUTE_16] || present[PV_STEP_DEVICE_COMPUTE_32];
        bool well_formed = has_device ? device_compute : present[PV_STEP_HOST_COMPUTE];
        if (!well_formed) {
            memset(s, 0, sizeof *s);
            out->n_not_compute++;
            continue;
        }
        s->type_ps[PV_STEP_UNKNOWN] = 0;
        int64_t known = 0;
        for (int k = 1; k < PV_STEP_N_TYPES; k++)
            known += s->type_ps[k];
        s->type_ps[PV_STEP_UNKNOWN] = st.dur_ps > known ? st.dur_ps - known : 0;
        s->group_id = m->groups[g].group_id;
        s->begin_ps = st.begin_ps;
        s->dur_ps = st.dur_ps;
        /* The reference names a step after the step_name stat grouping
         * puts on the host root event, so only when host events count;
         * the model keeps that name in its group table. */
        uint32_t name = c.step_name[g];
        if (name == 0 && out->host_merged)
            name = m->groups[g].name;
        s->name = name ? pv_arena_strdup(a, pv_model_str(m, name))
                       : pv_arena_printf(a, "%lld", (long long)s->group_id);
        out->n_steps++;
    }
    if (q->drop_incomplete && out->n_steps > 5) {
        memmove(out->steps, out->steps + 1, (out->n_steps - 2) * sizeof *out->steps);
        out->n_steps -= 2;
        out->n_incomplete = 2;
    }

    free(device_groups);
    free(c.device_name);
    free(c.host_name);
    free(c.touched);
    free(c.step_name);
    free(c.dev_mark);
    free(c.host_mark);
    free(c.evs);
    return 0;
}
