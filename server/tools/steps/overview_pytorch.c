/* overview_pytorch: torch-tb-profiler 0.4.3's GPU summary and
 * recommendations on a PyTorch trace (the measures, rules and thresholds
 * are in overview_pytorch.h). Shares are of the summed steps, which is
 * what its averages per step divide to. The Tensor Core share counts a
 * kernel as launched by a TensorCore eligible operator when the operator
 * whose External id it carries is one (torch-tb-profiler takes the
 * innermost eligible operator's own launches, which is that operator
 * whenever it launched the kernel). */
#include "tools/steps/overview_pytorch.h"
#include "tools/kernel_stats/kernel_stats.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_LOADING_MIN 0.05
#define COMMUNICATION_MIN 0.10
#define GPU_UTILIZATION_MIN 0.50
#define TENSOR_CORE_MIN_MAJOR 7
#define MEMORY_NEAR_FULL 0.9

static void add(pv_pytorch_overview *out, const char *kind, double percent, const char *text,
                const char *link)
{
    if (out->n < PV_PYTORCH_ADVICE_MAX)
        out->items[out->n++] = (pv_pytorch_advice){kind, percent, text, link};
}

/* ---- shares of the steps ------------------------------------------------------- */

static double step_share(const pv_steps_result *steps, uint32_t type)
{
    int64_t part = 0, total = 0;
    for (size_t i = 0; i < steps->n_steps; i++) {
        part += steps->steps[i].type_ps[type];
        total += steps->steps[i].dur_ps;
    }
    return total > 0 ? (double)part / (double)total : 0;
}

static void data_loading_rule(const pv_steps_result *steps, pv_arena *a,
                              pv_pytorch_overview *out)
{
    double loading = step_share(steps, PV_STEP_HOST_WAIT_INPUT);
    if (loading > DATA_LOADING_MIN)
        add(out, "data_loading", 100 * loading,
            pv_arena_printf(a,
                            "This run has high time cost on input data loading. %.1f%% of the "
                            "step time is in DataLoader. You could try to set num_workers on "
                            "DataLoader's construction and enable multi-processes on data "
                            "loading.",
                            100 * loading),
            "https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading");
}

static void communication_rule(const pv_steps_result *steps, pv_arena *a,
                               pv_pytorch_overview *out)
{
    double comm = step_share(steps, PV_STEP_DEVICE_COLLECTIVES);
    if (comm > COMMUNICATION_MIN)
        add(out, "communication", 100 * comm,
            pv_arena_printf(a,
                            "This run has high time cost on communication. %.1f%% of the step "
                            "time is in communication. You could try Gradient Compression or "
                            "Gradient Accumulation or increase the batch size. Note: Gradient "
                            "accumulation will increase global effective batch size, which may "
                            "hurt model convergence and accuracy. For such case, you may want "
                            "to evaluate LAMB optimizer.",
                            100 * comm),
            "https://pytorch.org/docs/stable/ddp_comm_hooks.html");
}

/* ---- data parallelism ------------------------------------------------------------ */

/* A GPU plane's integer stat named key (a deviceProperties member), or -1. */
static int64_t plane_int(const pv_model *m, const pv_plane *pl, uint32_t key)
{
    for (uint64_t s = pl->first_stat; key != 0 && s < pl->first_stat + pl->n_stats; s++) {
        const pv_stat *st = &m->stats[s];
        if (st->name != key)
            continue;
        if (st->type == PV_STAT_I64)
            return st->v.i64;
        if (st->type == PV_STAT_U64)
            return (int64_t)(st->v.u64 & INT64_MAX);
    }
    return -1;
}

/* Whether some GPU's deviceProperties give compute capability 3.5 or
 * more, where NCCL runs. */
static bool nccl_capable_gpu(const pv_model *m)
{
    uint32_t major = pv_model_str_find(m, "computeMajor");
    uint32_t minor = pv_model_str_find(m, "computeMinor");
    for (uint32_t i = 0; i < m->n_planes; i++) {
        int64_t hi = plane_int(m, &m->planes[i], major), lo = plane_int(m, &m->planes[i], minor);
        if (hi > 3 || (hi == 3 && lo >= 5))
            return true;
    }
    return false;
}

/* The number of devices that ran a kernel, memcpy or memset. */
static size_t busy_devices(const pv_model *m)
{
    size_t n = 0;
    for (uint32_t i = 0; i < m->n_planes; i++) {
        const pv_plane *pl = &m->planes[i];
        bool busy = false;
        for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks && !busy; t++) {
            const pv_track *tr = &m->tracks[t];
            for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events && !busy; e++)
                busy = pv_role_on_device(pv_model_event_role(m, e));
        }
        n += busy;
    }
    return n;
}

/* torch-tb-profiler's two rules on how the model is replicated: a host
 * event DataParallel.forward while more than one device ran work, and
 * DistributedDataParallel.forward with no NCCL operation on a trace whose
 * GPUs could run NCCL (another backend, gloo most often, carries DDP's
 * all-reduce). Any nccl:... operation shows NCCL in use; torch-tb-profiler
 * looks for five collectives only, and would advise NCCL to a run whose
 * NCCL calls are all nccl:all_to_all or nccl:_all_gather_base. */
static void parallel_rules(const pv_model *m, pv_arena *a, pv_pytorch_overview *out)
{
    bool dp = false, ddp = false, nccl = false;
    for (uint32_t i = 0; i < m->n_metas; i++) {
        pv_event_role role = pv_model_meta_role(m, i);
        if (role != PV_ROLE_OPERATOR && role != PV_ROLE_ANNOTATION && role != PV_ROLE_PYTHON)
            continue;
        const char *name = pv_model_str(m, m->metas[i].name);
        dp = dp || strcmp(name, "DataParallel.forward") == 0;
        ddp = ddp || strcmp(name, "DistributedDataParallel.forward") == 0;
        nccl = nccl || strncmp(name, "nccl:", 5) == 0;
    }
    size_t devices = dp ? busy_devices(m) : 0;
    if (devices > 1)
        add(out, "data_parallel", 0,
            pv_arena_printf(a,
                            "nn.DataParallel drives the %zu devices of this run from one "
                            "process, whose threads take turns on the Python interpreter. "
                            "DistributedDataParallel, one process per GPU, usually trains "
                            "faster on several GPUs.",
                            devices),
            "https://pytorch.org/docs/stable/notes/cuda.html#cuda-nn-ddp-instead");
    if (ddp && !nccl && nccl_capable_gpu(m))
        add(out, "ddp_backend", 0,
            "DistributedDataParallel ran here without NCCL collectives, so another backend "
            "(gloo most often) carries its gradients. On NVIDIA GPUs, NCCL is the backend "
            "that makes DDP fastest.",
            "https://pytorch.org/docs/stable/distributed.html#which-backend-to-use");
}

/* ---- GPU summary -------------------------------------------------------------- */

/* A kernel's time inside the span and its launch args' numbers. */
typedef struct kspan {
    int64_t start_ps;
    int64_t end_ps;
    double blocks_per_sm;   /* < 0: not given, or not positive (ignored as there) */
    double occupancy_pct;   /* < 0: not given, or negative */
} kspan;

#define KSPAN_BEFORE(a, b) ((a)->start_ps < (b)->start_ps)
PV_MERGE_SORT(sort_kspans, kspan, KSPAN_BEFORE)

/* A blocks-per-SM change at a kernel's start (+) or end (-). */
typedef struct edge {
    int64_t t_ps;
    int end;                /* 0 start, 1 end: starts first at one time, as there */
    double blocks;
} edge;

#define EDGE_BEFORE(a, b) ((a)->t_ps < (b)->t_ps || ((a)->t_ps == (b)->t_ps && (a)->end < (b)->end))
PV_MERGE_SORT(sort_edges, edge, EDGE_BEFORE)

static double stat_number(const pv_model *m, uint64_t ev, uint32_t name)
{
    pv_stat st;
    if (name == 0 || !pv_model_event_stat(m, ev, name, &st))
        return -1;
    switch (st.type) {
    case PV_STAT_I64: return (double)st.v.i64;
    case PV_STAT_U64: return (double)st.v.u64;
    case PV_STAT_F64: return st.v.f64;
    default: return -1;
    }
}

/* The kernels of plane pl clipped to [lo, hi), malloc'd into *out. */
static size_t kernel_spans(const pv_model *m, const pv_plane *pl, int64_t lo, int64_t hi,
                           kspan **out)
{
    uint32_t s_bps = pv_model_str_find(m, "blocks per SM");
    uint32_t s_occ = pv_model_str_find(m, "est. achieved occupancy %");
    size_t n = 0;
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++)
        n += m->tracks[t].n_events;
    kspan *s = pv_xmalloc((n + 1) * sizeof *s);
    size_t ns = 0;
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            if (pv_model_event_role(m, e) != PV_ROLE_KERNEL)
                continue;
            int64_t b = m->ev_start_ps[e], f = b + m->ev_dur_ps[e];
            b = b > lo ? b : lo;
            f = f < hi ? f : hi;
            if (f > b) {
                double bps = stat_number(m, e, s_bps);
                s[ns++] = (kspan){b, f, bps > 0 ? bps : -1, stat_number(m, e, s_occ)};
            }
        }
    }
    *out = s;
    return ns;
}

static bool has_kernels(const pv_model *m, const pv_plane *pl)
{
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++)
            if (pv_model_event_role(m, e) == PV_ROLE_KERNEL)
                return true;
    }
    return false;
}

/* Utilization: the united time of s (sorted). */
static int64_t united(const kspan *s, size_t n)
{
    int64_t cover = 0, end = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int64_t b = s[i].start_ps > end ? s[i].start_ps : end;
        if (s[i].end_ps > b)
            cover += s[i].end_ps - b;
        if (s[i].end_ps > end)
            end = s[i].end_ps;
    }
    return cover;
}

/* SM efficiency: the time integral of min(1, blocks per SM running);
 * false when no kernel gives its blocks per SM. */
static bool sm_time(const kspan *s, size_t n, double *out)
{
    edge *e = pv_xmalloc((2 * n + 1) * sizeof *e);
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].blocks_per_sm <= 0)
            continue;
        e[ne++] = (edge){s[i].start_ps, 0, s[i].blocks_per_sm};
        e[ne++] = (edge){s[i].end_ps, 1, s[i].blocks_per_sm};
    }
    sort_edges(e, ne);
    double sum = 0, running = 0;
    for (size_t i = 0; i < ne; i++) {
        if (i > 0 && e[i].t_ps > e[i - 1].t_ps && running > 0)
            sum += (running < 1 ? running : 1) * (double)(e[i].t_ps - e[i - 1].t_ps);
        running += e[i].end ? -e[i].blocks : e[i].blocks;
    }
    free(e);
    *out = sum;
    return ne > 0;
}

/* Occupancy: the kernels' occupancy weighted by their time; < 0 when none
 * gives it. */
static double occupancy(const kspan *s, size_t n)
{
    double weighted = 0, time = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].occupancy_pct < 0)
            continue;
        double d = (double)(s[i].end_ps - s[i].start_ps);
        weighted += s[i].occupancy_pct * d;
        time += d;
    }
    return time > 0 ? weighted / time : -1;
}

static void gpu_summary(const pv_model *m, const pv_steps_result *steps, pv_arena *a,
                        pv_pytorch_overview *out)
{
    if (steps->n_steps == 0)
        return;
    int64_t lo = steps->steps[0].begin_ps;
    int64_t hi = steps->steps[steps->n_steps - 1].begin_ps +
                 steps->steps[steps->n_steps - 1].dur_ps;
    if (hi <= lo)
        return;
    out->gpus = pv_arena_zalloc(a, (m->n_planes + 1u) * sizeof *out->gpus);
    for (uint32_t i = 0; i < m->n_planes; i++) {
        const pv_plane *pl = &m->planes[i];
        if (pl->kind != PV_PLANE_GPU || !has_kernels(m, pl))
            continue;
        kspan *s;
        size_t n = kernel_spans(m, pl, lo, hi, &s);
        sort_kspans(s, n);
        double span = (double)(hi - lo), sm;
        pv_pytorch_gpu *g = &out->gpus[out->n_gpus++];
        g->device = pl->device_ordinal;
        g->utilization = (double)united(s, n) / span;
        g->sm_efficiency = sm_time(s, n, &sm) ? sm / span : -1;
        g->occupancy_pct = occupancy(s, n);
        free(s);
        if (g->utilization < GPU_UTILIZATION_MIN)
            add(out, "gpu_utilization", 100 * g->utilization,
                pv_arena_printf(a,
                                "GPU %d has low utilization. You could try to increase batch "
                                "size to improve. Note: Increasing batch size may affect the "
                                "speed and stability of model convergence.",
                                g->device),
                "");
    }
}

/* ---- Tensor Cores -------------------------------------------------------------- */

/* The highest "computeMajor" of the GPUs' deviceProperties; -1 when none
 * says. */
static int64_t compute_major(const pv_model *m)
{
    uint32_t key = pv_model_str_find(m, "computeMajor");
    int64_t best = -1;
    for (uint32_t i = 0; i < m->n_planes; i++) {
        int64_t v = plane_int(m, &m->planes[i], key);
        best = v > best ? v : best;
    }
    return best;
}

static void tensor_core_rule(const pv_model *m, pv_arena *a, pv_pytorch_overview *out)
{
    if (compute_major(m) < TENSOR_CORE_MIN_MAJOR)
        return;
    int64_t tc_used = 0, by_ops = 0, by_eligible = 0;
    for (uint64_t e = 0; e < m->n_events; e++) {
        if (pv_model_event_role(m, e) != PV_ROLE_KERNEL)
            continue;
        int64_t dur = m->ev_dur_ps[e];
        /* torch-tb-profiler knows NVIDIA's Tensor Core kernels only */
        const char *kernel = pv_model_str(m, m->metas[m->ev_meta[e]].name);
        if (pv_kernel_name_uses_nvidia_tensor_core(kernel))
            tc_used += dur;
        uint64_t op = pv_model_launcher(m, e);
        if (op == PV_NO_EVENT)
            continue;
        unsigned roles = pv_model_meta_roles(m, m->ev_meta[op]);
        pv_event_role role = (pv_event_role)(roles & PV_ROLE_MASK);
        if (role != PV_ROLE_OPERATOR && role != PV_ROLE_STEP)
            continue;
        by_ops += dur;
        if (roles & PV_ROLE_TENSOR_CORE_OP)
            by_eligible += dur;
    }
    if (tc_used != 0 || by_eligible == 0 || by_ops == 0)
        return;
    double pct = 100.0 * (double)by_eligible / (double)by_ops;
    add(out, "tensor_cores", pct,
        pv_arena_printf(a,
                        "Kernels with %.0f%% time are launched by Tensor Cores eligible "
                        "operators. You could enable Automatic Mixed Precision to speedup by "
                        "using FP16.",
                        pct),
        "https://pytorch.org/docs/stable/amp.html");
}

/* ---- device memory ------------------------------------------------------------- */

/* The highest "Total Allocated" (the model's bytes_allocated) of GPU dev's
 * [memory] events; -1 when none gives it. */
static int64_t gpu_memory_peak(const pv_model *m, int32_t dev)
{
    uint32_t s_alloc = pv_model_str_find(m, "allocator_name");
    uint32_t s_bytes = pv_model_str_find(m, "bytes_allocated");
    char want[32];
    snprintf(want, sizeof want, "GPU %d", dev);
    uint32_t s_want = pv_model_str_find(m, want);
    int64_t peak = -1;
    for (uint64_t e = 0; s_alloc != 0 && s_bytes != 0 && s_want != 0 && e < m->n_events; e++) {
        pv_stat st;
        int64_t bytes;
        if (pv_model_event_role(m, e) != PV_ROLE_MEMORY ||
            !pv_model_event_stat(m, e, s_alloc, &st) || st.type != PV_STAT_STR ||
            st.v.str != s_want || !pv_model_event_stat_int(m, e, s_bytes, &bytes))
            continue;
        if (bytes > peak)
            peak = bytes;
    }
    return peak;
}

/* torch-tb-profiler's memory rule: a GPU whose allocated memory peaked
 * above MEMORY_NEAR_FULL of its deviceProperties' totalGlobalMem. Like
 * there, one recommendation (for the lowest-numbered such GPU); the host's
 * memory is not judged. */
static void memory_rule(const pv_model *m, pv_arena *a, pv_pytorch_overview *out)
{
    uint32_t s_total = pv_model_str_find(m, "totalGlobalMem");
    const pv_plane *best = NULL;
    double best_share = 0;
    for (uint32_t i = 0; s_total != 0 && i < m->n_planes; i++) {
        const pv_plane *pl = &m->planes[i];
        int64_t total = plane_int(m, pl, s_total);
        if (pl->kind != PV_PLANE_GPU || total <= 0 ||
            (best != NULL && pl->device_ordinal > best->device_ordinal))
            continue;
        int64_t peak = gpu_memory_peak(m, pl->device_ordinal);
        if ((double)peak > MEMORY_NEAR_FULL * (double)total) {
            best = pl;
            best_share = (double)peak / (double)total;
        }
    }
    if (best == NULL)
        return;
    double gib = (double)plane_int(m, best, s_total) / (1024.0 * 1024 * 1024);
    add(out, "memory", 100 * best_share,
        pv_arena_printf(a,
                        "GPU %d held up to %.1f%% of its %.1f GB of memory, which leaves little "
                        "room for a larger batch. Activation checkpointing, or Automatic Mixed "
                        "Precision with its smaller tensors, frees memory.",
                        best->device_ordinal, 100 * best_share, gib),
        "https://pytorch.org/docs/stable/checkpoint.html");
}

void pv_overview_pytorch(const pv_model *m, const pv_steps_result *steps, bool one_model,
                         pv_arena *a, pv_pytorch_overview *out)
{
    memset(out, 0, sizeof *out);
    out->present = pv_model_has_roles(m);
    if (!out->present)
        return;
    data_loading_rule(steps, a, out);
    if (one_model)
        parallel_rules(m, a, out);
    communication_rule(steps, a, out);
    if (!one_model)
        return;
    gpu_summary(m, steps, a, out);
    tensor_core_rule(m, a, out);
    memory_rule(m, a, out);
}
