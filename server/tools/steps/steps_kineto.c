/* steps_kineto: the steps of a PyTorch (Kineto) trace and their breakdown
 * as torch-tb-profiler's overview draws them (event_parser.py's StepParser,
 * overall_parser.py), in the step types the overview and input pipeline
 * pages read:
 *
 * 1. Steps are the ProfilerStep#N spans in time order (one step "0" over
 *    the host operators when there is none). On a GPU trace each step ends
 *    with the last device activity launched by a runtime call inside it
 *    (the model's launch links: the correlation id they share),
 *    and starts no earlier than the previous step's end (the first step no
 *    earlier than the last device activity launched outside any step and
 *    ending before its own); trailing steps that launched nothing, or that
 *    launched less than 80 % of what the step before them did, are dropped,
 *    the profiler having likely missed their kernels.
 * 2. Every event plays a role: Kernel (a kernel of an NCCL or Gloo
 *    operator is Communication), Memcpy, Memset, Runtime, DataLoader (an
 *    operator "enumerate(DataLoader)#...__next__" or "enumerate(DataPipe)#
 *    ..."), CPU Exec (operators; NCCL and Gloo operators and annotations
 *    are Communication; other annotations and Python functions play none,
 *    as torch-tb-profiler 0.4.3 reads them); the roles' time ranges are
 *    united.
 * 3. The steps' time goes to the roles in that order of priority: each
 *    role takes what it covers of the time not yet taken (Kernel first,
 *    unclipped), and what is left is Other.
 *
 * Roles as step types: Kernel -> device compute, Memcpy and Memset ->
 * device to device, Communication -> device collectives, Runtime -> kernel
 * launch (host prepare), DataLoader -> input (host wait input), CPU Exec
 * -> host compute, Other -> unknown. */
#include "tools/steps/steps.h"
#include "util/bsearch.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum role {
    R_KERNEL,
    R_MEMCPY,
    R_MEMSET,
    R_COMMUNICATION,
    R_RUNTIME,
    R_DATALOADER,
    R_CPU_OP,
    R_N
};

static const uint32_t role_type[R_N + 1] = {
    [R_KERNEL] = PV_STEP_DEVICE_COMPUTE_32,
    [R_MEMCPY] = PV_STEP_DEVICE_TO_DEVICE,
    [R_MEMSET] = PV_STEP_DEVICE_TO_DEVICE,
    [R_COMMUNICATION] = PV_STEP_DEVICE_COLLECTIVES,
    [R_RUNTIME] = PV_STEP_HOST_PREPARE,
    [R_DATALOADER] = PV_STEP_HOST_WAIT_INPUT,
    [R_CPU_OP] = PV_STEP_HOST_COMPUTE,
    [R_N] = PV_STEP_UNKNOWN,
};

/* ---- time ranges ------------------------------------------------------------ */

typedef struct span {
    int64_t start, end;
} span;

typedef struct spans {
    span *v;
    size_t n, cap;
} spans;

static void push(spans *s, int64_t start, int64_t end)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = pv_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = (span){start, end};
}

static int cmp_span(const void *pa, const void *pb)
{
    const span *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->end < b->end ? -1 : a->end > b->end;
}

/* Sorts and unites s in place (touching ranges join). */
static void unite(spans *s)
{
    pv_sort(s->v, s->n, sizeof *s->v, cmp_span);
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (w > 0 && s->v[i].start <= s->v[w - 1].end) {
            if (s->v[i].end > s->v[w - 1].end)
                s->v[w - 1].end = s->v[i].end;
        } else {
            s->v[w++] = s->v[i];
        }
    }
    s->n = w;
}

/* a ∩ b or a \ b (keep_common false) of two united lists, into out. */
static void combine(const spans *a, const spans *b, bool keep_common, spans *out)
{
    out->n = 0;
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        int64_t at = a->v[i].start, end = a->v[i].end;
        while (j < b->n && b->v[j].end <= at)
            j++;
        for (size_t k = j; k < b->n && b->v[k].start < end && at < end; k++) {
            int64_t s = b->v[k].start > at ? b->v[k].start : at;
            int64_t e = b->v[k].end < end ? b->v[k].end : end;
            if (!keep_common && s > at)
                push(out, at, s);
            if (keep_common && e > s)
                push(out, s, e);
            at = e > at ? e : at;
        }
        if (!keep_common && at < end)
            push(out, at, end);
    }
}

/* The time of united list s inside [start, end). */
static int64_t covered(const spans *s, int64_t start, int64_t end)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, s->n, mid, s->v[mid].end <= start);
    int64_t sum = 0;
    for (size_t i = lo; i < s->n && s->v[i].start < end; i++) {
        int64_t a = s->v[i].start > start ? s->v[i].start : start;
        int64_t b = s->v[i].end < end ? s->v[i].end : end;
        sum += b > a ? b - a : 0;
    }
    return sum;
}

/* ---- roles ---------------------------------------------------------------------- */

static bool dataloader(const char *name)
{
    size_t n = strlen(name);
    return (strncmp(name, "enumerate(DataLoader)#", 22) == 0 && n >= 9 &&
            strcmp(name + n - 9, ".__next__") == 0) ||
           strncmp(name, "enumerate(DataPipe)#", 20) == 0;
}

static bool is_collective(const pv_model *m, uint64_t ev)
{
    return (pv_model_meta_roles(m, m->ev_meta[ev]) & PV_ROLE_COLLECTIVE) != 0;
}

/* The role of ev, or R_N for none. */
static int role_of(const pv_model *m, uint64_t ev)
{
    switch (pv_model_event_role(m, ev)) {
    case PV_ROLE_KERNEL: {
        uint64_t op = pv_model_launcher(m, ev);
        return op != PV_NO_EVENT && is_collective(m, op) ? R_COMMUNICATION : R_KERNEL;
    }
    case PV_ROLE_MEMCPY: return R_MEMCPY;
    case PV_ROLE_MEMSET: return R_MEMSET;
    case PV_ROLE_RUNTIME: return R_RUNTIME;
    case PV_ROLE_OPERATOR:
        if (dataloader(pv_model_str(m, m->metas[m->ev_meta[ev]].name)))
            return R_DATALOADER;
        return is_collective(m, ev) ? R_COMMUNICATION : R_CPU_OP;
    case PV_ROLE_ANNOTATION:
        /* torch-tb-profiler 0.4.3 keeps only the collectives of these */
        return is_collective(m, ev) ? R_COMMUNICATION : R_N;
    default: return R_N;
    }
}

/* ---- steps ----------------------------------------------------------------------- */

typedef struct step {
    int64_t start, end;
    uint64_t ev;            /* the ProfilerStep event, or PV_NO_EVENT */
    int64_t dev_min, dev_max;
    uint64_t n_device;      /* device activities its runtime calls launched */
} step;

typedef struct device_act {
    uint64_t call;          /* the runtime call that launched it, or PV_NO_EVENT */
    int64_t start, end;
    bool matched;
} device_act;

typedef struct runtime_call {
    int64_t start, end;
    uint64_t ev;
} runtime_call;

static int cmp_step(const void *pa, const void *pb)
{
    const step *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static int cmp_call(const void *pa, const void *pb)
{
    const runtime_call *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static int cmp_act(const void *pa, const void *pb)
{
    const device_act *a = pa, *b = pb;
    if (a->call != b->call)
        return a->call < b->call ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* Step 1's device side: each step's runtime calls, their device
 * activities' span, and the steps moved and trimmed accordingly. */
static size_t device_steps(const pv_model *m, step *steps, size_t n_steps)
{
    size_t n_acts = 0, n_rt = 0;
    for (uint64_t e = 0; e < m->n_events; e++) {
        pv_event_role role = pv_model_event_role(m, e);
        n_acts += pv_role_on_device(role);
        n_rt += role == PV_ROLE_RUNTIME;
    }
    device_act *acts = pv_xmalloc((n_acts + 1) * sizeof *acts);
    runtime_call *rts = pv_xmalloc((n_rt + 1) * sizeof *rts);
    size_t na = 0, nr = 0;
    for (uint64_t e = 0; e < m->n_events; e++) {
        pv_event_role role = pv_model_event_role(m, e);
        int64_t start = m->ev_start_ps[e], end = start + m->ev_dur_ps[e];
        if (pv_role_on_device(role))
            acts[na++] = (device_act){pv_model_launch_call(m, e), start, end, false};
        else if (role == PV_ROLE_RUNTIME)
            rts[nr++] = (runtime_call){start, end, e};
    }
    pv_sort(acts, na, sizeof *acts, cmp_act);
    pv_sort(rts, nr, sizeof *rts, cmp_call);
    size_t matched_total = 0;
    size_t is = 0, ir = 0;
    while (is < n_steps && ir < nr) {
        int64_t rs = rts[ir].start, re = rts[ir].end;
        if (rs < steps[is].start || (rs < steps[is].end && re > steps[is].end)) {
            ir++;
        } else if (re <= steps[is].end) {
            /* inside the step: its device activities */
            uint64_t call = rts[ir].ev;
            size_t lo = 0;
            PV_LOWER_BOUND(size_t, lo, na, mid, acts[mid].call < call);
            for (size_t a = lo; a < na && acts[a].call == call; a++) {
                steps[is].dev_min = acts[a].start < steps[is].dev_min ? acts[a].start
                                                                      : steps[is].dev_min;
                steps[is].dev_max = acts[a].end > steps[is].dev_max ? acts[a].end
                                                                    : steps[is].dev_max;
                steps[is].n_device++;
                matched_total += !acts[a].matched;
                acts[a].matched = true;
            }
            ir++;
        } else {
            is++;
        }
    }
    if (matched_total > 0) {
        int64_t prev = steps[0].start;
        if (steps[0].n_device > 0)
            for (size_t a = 0; a < na; a++)
                if (!acts[a].matched && acts[a].end < steps[0].dev_min && acts[a].end > prev)
                    prev = acts[a].end;
        for (size_t i = 0; i < n_steps; i++) {
            int64_t start = prev > steps[i].start ? prev : steps[i].start;
            int64_t end = steps[i].end;
            if (steps[i].n_device == 0)
                end = end > start ? end : start;
            else
                end = steps[i].dev_max > end ? steps[i].dev_max : end;
            end = end < start ? start : end;
            steps[i].start = start;
            steps[i].end = end;
            prev = end;
        }
        if (n_steps > 1) {
            size_t last = n_steps;
            while (last > 0 && steps[last - 1].n_device == 0)
                last--;
            if (last > 0) {
                size_t keep = last;
                if (last > 1 &&
                    (double)steps[last - 2].n_device * 0.8 > (double)steps[last - 1].n_device)
                    keep = last - 1;
                n_steps = keep;
            }
        }
    }
    free(rts);
    free(acts);
    return n_steps;
}

/* The trace's steps (step 1 of the header) and the united time ranges of
 * each role (step 2), for the breakdown and for the overlap view. */
static size_t collect(const pv_model *m, spans roles[R_N], step **out)
{
    memset(roles, 0, R_N * sizeof *roles);
    step *steps = NULL;
    size_t n_steps = 0, cap = 0;
    int64_t cpu_min = INT64_MAX, cpu_max = INT64_MIN;
    for (uint64_t e = 0; e < m->n_events; e++) {
        pv_event_role role = pv_model_event_role(m, e);
        int64_t start = m->ev_start_ps[e], end = start + m->ev_dur_ps[e];
        if (role == PV_ROLE_STEP) {
            if (n_steps == cap) {
                cap = cap ? 2 * cap : 16;
                steps = pv_xrealloc(steps, cap * sizeof *steps);
            }
            steps[n_steps++] = (step){start, end, e, INT64_MAX, INT64_MIN, 0};
        } else {
            int r = role_of(m, e);
            if (r != R_N)
                push(&roles[r], start, end);
        }
        /* 0.4.3 spans its fallback step over operators and profiler
         * steps: Python functions (with_stack) are no events to it */
        if (role == PV_ROLE_OPERATOR || role == PV_ROLE_STEP) {
            cpu_min = start < cpu_min ? start : cpu_min;
            cpu_max = end > cpu_max ? end : cpu_max;
        }
    }
    if (n_steps == 0 && cpu_min < cpu_max) {
        steps = pv_xmalloc(sizeof *steps);
        steps[n_steps++] = (step){cpu_min, cpu_max, PV_NO_EVENT, INT64_MAX, INT64_MIN, 0};
    }
    pv_sort(steps, n_steps, sizeof *steps, cmp_step);
    for (int r = 0; r < R_N; r++)
        unite(&roles[r]);
    *out = steps;
    return device_steps(m, steps, n_steps);
}

static const char *step_name(const pv_model *m, const step *s, pv_arena *a)
{
    const char *name =
        s->ev != PV_NO_EVENT ? pv_model_str(m, m->metas[m->ev_meta[s->ev]].name) : "0";
    const char *hash = strchr(name, '#');
    return pv_arena_strdup(a, hash != NULL ? hash + 1 : name);
}

int pv_steps_kineto(const pv_model *m, pv_arena *a, pv_steps_result *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n_gpu = 0;
    for (uint32_t p = 0; p < m->n_planes; p++)
        n_gpu += m->planes[p].kind == PV_PLANE_GPU;
    out->hardware = n_gpu > 0 ? PV_HW_GPU : PV_HW_CPU_ONLY;
    out->n_device_planes = n_gpu;
    out->t0_ps = m->min_ps;
    out->has_trace_times = true;
    out->host_merged = true;
    spans roles[R_N];
    step *steps;
    size_t n_steps = collect(m, roles, &steps);

    /* step 3: the roles by priority over the steps' time */
    spans slots = {0}, taken[R_N], tmp = {0};
    memset(taken, 0, sizeof taken);
    for (size_t i = 0; i < n_steps; i++)
        push(&slots, steps[i].start, steps[i].end);
    unite(&slots);
    for (int r = 0; r < R_N; r++) {
        if (r == R_KERNEL) {
            taken[r] = roles[r];
            roles[r] = (spans){0};
        } else {
            combine(&slots, &roles[r], true, &taken[r]);
        }
        combine(&slots, &taken[r], false, &tmp);
        spans swap = slots;
        slots = tmp;
        tmp = swap;
    }

    out->steps = pv_arena_zalloc(a, (n_steps ? n_steps : 1) * sizeof *out->steps);
    for (size_t i = 0; i < n_steps; i++) {
        pv_step *s = &out->steps[out->n_steps++];
        s->group_id = (int64_t)i;
        s->name = step_name(m, &steps[i], a);
        s->begin_ps = steps[i].start;
        s->dur_ps = steps[i].end - steps[i].start;
        int64_t rest = s->dur_ps;
        for (int r = 0; r < R_N; r++) {
            int64_t t = covered(&taken[r], steps[i].start, steps[i].end);
            s->type_ps[role_type[r]] += t;
            rest -= t;
        }
        s->type_ps[role_type[R_N]] += rest > 0 ? rest : 0;
    }
    out->n_groups = n_steps;
    for (int r = 0; r < R_N; r++) {
        free(roles[r].v);
        free(taken[r].v);
    }
    free(slots.v);
    free(tmp.v);
    free(steps);
    return 0;
}

int pv_steps_kineto_overlap(const pv_model *m, pv_arena *a, pv_step_overlap **out,
                            size_t *n_out)
{
    spans roles[R_N];
    step *steps;
    size_t n_steps = collect(m, roles, &steps);
    /* computation is the kernels' time, or the operators' on a CPU-only
     * trace (overall_parser.py) */
    const spans *comp = roles[R_KERNEL].n > 0 ? &roles[R_KERNEL] : &roles[R_CPU_OP];
    spans both = {0};
    combine(comp, &roles[R_COMMUNICATION], true, &both);
    *out = pv_arena_zalloc(a, (n_steps ? n_steps : 1) * sizeof **out);
    for (size_t i = 0; i < n_steps; i++) {
        int64_t s = steps[i].start, e = steps[i].end;
        int64_t computation = covered(comp, s, e), communication =
                                                       covered(&roles[R_COMMUNICATION], s, e);
        int64_t overlap = covered(&both, s, e);
        pv_step_overlap *o = &(*out)[i];
        o->name = step_name(m, &steps[i], a);
        o->computation_ps = computation - overlap;
        o->overlap_ps = overlap;
        o->communication_ps = communication - overlap;
        o->other_ps = (e - s) + overlap - computation - communication;
    }
    *n_out = n_steps;
    for (int r = 0; r < R_N; r++)
        free(roles[r].v);
    free(both.v);
    free(steps);
    return 0;
}
