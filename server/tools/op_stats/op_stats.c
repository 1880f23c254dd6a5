/* op_stats: framework_op_stats tables from the host and device op metrics
 * databases (FORMATS.md §4.6). */
#include "tools/op_stats/op_stats.h"

#include "tools/kernel_stats/kernel_stats.h"
#include "tools/common/tf_op_name.h"
#include "tools/hlo/op_roofline.h"

#include <string.h>

/* ---- TensorCore utilization per op (from kernel rows) ----------------------- */

/* A linear scan per device row: both lists are capped (1000 x 500). */
double pv_op_stats_tensor_core(const pv_kernel_stats_result *k, const char *op_name,
                               bool *eligible)
{
    uint64_t total = 0;
    uint64_t tc = 0;
    bool first = true;
    *eligible = false;
    for (size_t i = 0; i < k->n_rows; i++) {
        const pv_kernel_row *r = &k->rows[i];
        if (strcmp(r->op_name, op_name) != 0)
            continue;
        if (first)
            *eligible = r->is_op_tensor_core_eligible;
        first = false;
        total += r->total_ns;
        if (r->is_kernel_using_tensor_core)
            tc += r->total_ns;
    }
    return total > 0 ? (double)tc / (double)total : 0.0;
}

/* ---- the reference's model-type heuristic (task type) ----------------------- */

/* A PyTorch backward pass: the autograd engine's evaluate_function, its
 * AccumulateGrad, or (traces before 2022, where the backward functions are
 * operators themselves) an autograd function named <Op>Backward[N]. */
static bool pytorch_backward(const char *name)
{
    if (strncmp(name, "autograd::engine::evaluate_function", 35) == 0 ||
        strcmp(name, "torch::autograd::AccumulateGrad") == 0)
        return true;
    const char *b = strstr(name, "Backward");
    if (b == NULL || strchr(name, ':') != NULL)
        return false;
    for (b += 8; *b >= '0' && *b <= '9'; b++)
        continue;
    return *b == '\0';
}

const char *pv_op_stats_task_type(const pv_op_stats_table *t)
{
    for (size_t i = 0; i < t->n_rows; i++)
        if (pv_tf_op_has_gradients(t->rows[i].op->name, t->rows[i].op->type) ||
            pytorch_backward(t->rows[i].op->name))
            return "Training";
    return "Inference";
}

/* ---- tables ------------------------------------------------------------------ */

static void fill_times(pv_op_stats_row *r, const pv_op_metrics *op)
{
    r->total_time_us = (double)op->time_ps / 1e6;
    r->total_self_time_us = (double)op->self_time_ps / 1e6;
    r->avg_time_us = op->occurrences > 0 ? r->total_time_us / (double)op->occurrences : 0.0;
    r->avg_self_time_us =
        op->occurrences > 0 ? r->total_self_time_us / (double)op->occurrences : 0.0;
}

/* The roofline columns of a device op from its XLA ops' flops and bytes
 * (none: zeros and "Unknown"), all bytes counted as HBM bytes: the
 * reference adds up only bytes_accessed per framework op. */
static void fill_roofline(pv_op_stats_row *r, const pv_op_metrics *op, const pv_perf_env *env)
{
    pv_xla_op x = {.time_ps = op->time_ps, .flops = op->flops,
                   .model_flops = op->model_flops, .bytes = op->bytes};
    pv_op_roofline rl;
    pv_op_roofline_of(&x, env, &rl);
    r->measured_flop_rate = rl.flop_rate;
    r->model_flop_rate = rl.model_flop_rate;
    r->measured_memory_bw = rl.memory_bw;
    r->operational_intensity = rl.intensity;
    r->bound_by = rl.bound_by;
}

static void build_table(const pv_op_stats_result *res, const pv_kernel_stats_result *k,
                        size_t max_per_side, bool exclude_idle, pv_arena *a,
                        pv_op_stats_table *out)
{
    size_t cap = (res->device.n_ops < max_per_side ? res->device.n_ops : max_per_side) +
                 (res->host.n_ops < max_per_side ? res->host.n_ops : max_per_side);
    out->rows = pv_arena_zalloc(a, (cap > 0 ? cap : 1) * sizeof *out->rows);
    out->n_rows = 0;
    uint64_t rank = 0;
    double cum = 0.0;
    for (int side = 0; side < 2; side++) {
        const pv_op_metrics_db *db = side == 0 ? &res->device : &res->host;
        uint64_t total_ps = exclude_idle ? db->total_op_time_ps : db->total_time_ps;
        double total_us = (double)total_ps / 1e6;
        size_t n = db->n_ops < max_per_side ? db->n_ops : max_per_side;
        cum = 0.0;
        for (size_t i = 0; i < n; i++) {
            const pv_op_metrics *op = &db->ops[i];
            if (exclude_idle && op->is_idle)
                continue;
            pv_op_stats_row *r = &out->rows[out->n_rows++];
            r->op = op;
            r->bound_by = "Unknown";
            r->on_device = side == 0;
            r->rank = ++rank;
            fill_times(r, op);
            double frac = total_us > 0 ? r->total_self_time_us / total_us : 0.0;
            cum += frac;
            if (side == 0) {
                r->device_fraction = frac;
                r->device_cumulative = cum;
                bool eligible;
                if (res->is_gpu)
                    r->gpu_tensorcore_utilization = pv_op_stats_tensor_core(k, op->name, &eligible);
                fill_roofline(r, op, &db->env);
            } else {
                r->host_fraction = frac;
                r->host_cumulative = cum;
            }
        }
    }
}

const char *pv_op_group_stat(pv_op_group g)
{
    return g == PV_OP_GROUP_INPUT_SHAPE  ? "Input Dims"
           : g == PV_OP_GROUP_CALL_STACK ? "Call stack"
                                         : NULL;
}

/* One host's dbs: PyTorch's operators for a Kineto trace (grouped as q
 * asks; out says which groupings the trace has stats for), framework ops
 * for the rest. */
static int op_dbs(const pv_model *m, const pv_op_stats_query *q, pv_arena *a,
                  pv_op_metrics_db *host, pv_op_metrics_db *device, pv_op_stats_result *out,
                  pv_error *err)
{
    if (pv_model_has_roles(m)) {
        for (int g = 1; g < PV_OP_GROUP_N; g++)
            out->has_group[g] = out->has_group[g] ||
                                pv_model_str_find(m, pv_op_group_stat((pv_op_group)g)) != 0;
        out->group = q != NULL && q->group < PV_OP_GROUP_N ? q->group : PV_OP_GROUP_OPERATOR;
        return pv_op_metrics_kineto(m, pv_op_group_stat(out->group), a, host, device, err);
    }
    int rc = pv_op_metrics_device(m, a, device, err);
    return rc == 0 ? pv_op_metrics_host(m, a, host, err) : rc;
}

/* The tables from out->device and ->host (unsorted) and the kernel rows. */
static void finish(pv_op_stats_result *out, const pv_kernel_stats_result *k,
                   const pv_op_stats_query *q, pv_arena *a)
{
    size_t max_per_side =
        q != NULL && q->max_ops_per_side != 0 ? q->max_ops_per_side : PV_OP_STATS_REFERENCE_OPS;
    out->is_gpu = k->n_gpu_planes > 0;
    pv_op_metrics_sort(&out->device);
    pv_op_metrics_sort(&out->host);
    build_table(out, k, max_per_side, false, a, &out->with_idle);
    build_table(out, k, max_per_side, true, a, &out->without_idle);
    out->task_type = pv_op_stats_task_type(&out->with_idle);
    out->architecture_type = "Unknown";
}

int pv_tool_op_stats(const pv_model *m, const pv_op_stats_query *q, pv_arena *a,
                     pv_op_stats_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_kernel_stats_query kq = {PV_KERNEL_STATS_REFERENCE_ROWS};
    pv_kernel_stats_result k;
    int rc = pv_tool_kernel_stats(m, &kq, a, &k, err);
    if (rc == 0)
        rc = op_dbs(m, q, a, &out->host, &out->device, out, err);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    finish(out, &k, q, a);
    return 0;
}

int pv_tool_op_stats_multi(const pv_model *const *models, size_t n_models,
                           const pv_op_stats_query *q, pv_arena *a, pv_op_stats_result *out,
                           pv_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = n_models > 0 ? n_models : 1;
    pv_op_metrics_db *dev = pv_arena_zalloc(a, n * sizeof *dev);
    pv_op_metrics_db *host = pv_arena_zalloc(a, n * sizeof *host);
    pv_kernel_stats_query kq = {PV_KERNEL_STATS_REFERENCE_ROWS};
    pv_kernel_stats_result k;
    int rc = pv_tool_kernel_stats_multi(models, n_models, &kq, a, &k, err);
    for (size_t i = 0; i < n_models && rc == 0; i++) {
        rc = op_dbs(models[i], q, a, &host[i], &dev[i], out, err);
    }
    if (rc == 0)
        rc = pv_op_metrics_combine(dev, n_models, a, &out->device, err);
    if (rc == 0)
        rc = pv_op_metrics_combine(host, n_models, a, &out->host, err);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    finish(out, &k, q, a);
    return 0;
}
