/* op_stats: the framework_op_stats (legacy name tensorflow_stats) tool
 * (FORMATS.md §4.6), a pure function of the profile model.
 *
 * Two tables, with and without the IDLE op: first the device ops (top N
 * by self time), then the host ops (top N), ranked 1.. across both. Each
 * row carries its share of its side's total self time and the running
 * cumulative share; device rows of a GPU profile also carry TensorCore
 * utilization (TensorCore kernel time / kernel time of the op, from the
 * reference's top-1000 kernel rows). Roofline columns (FLOP rate, memory
 * bandwidth, intensity, bound by) come from the costs of the XLA ops under
 * a device op against the device's peaks; framework ops without XLA ops
 * have none: 0 and "Unknown", as in the reference.
 *
 * Ownership: all result memory lives in the caller's arena and some
 * strings point into the model: valid while both are.
 * Threads: any; the model is only read. */
#ifndef PV_TOOLS_OP_STATS_OP_STATS_H
#define PV_TOOLS_OP_STATS_OP_STATS_H

#include "model/model.h"
#include "tools/kernel_stats/kernel_stats.h"
#include "tools/op_stats/op_metrics.h"
#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define PV_OP_STATS_REFERENCE_OPS 500u /* the reference keeps 500 per side */

/* How a PyTorch trace's operators make rows (torch-tb-profiler's views). */
typedef enum pv_op_group {
    PV_OP_GROUP_OPERATOR,      /* one row per operator name */
    PV_OP_GROUP_INPUT_SHAPE,   /* per name and "Input Dims" (record_shapes) */
    PV_OP_GROUP_CALL_STACK,    /* per name and "Call stack" (with_stack) */
    PV_OP_GROUP_N
} pv_op_group;

/* The stat a pv_op_group reads ("Input Dims", "Call stack"); NULL for
 * PV_OP_GROUP_OPERATOR. */
const char *pv_op_group_stat(pv_op_group g);

typedef struct pv_op_stats_query {
    size_t max_ops_per_side;   /* 0: the reference's 500 */
    pv_op_group group;         /* PyTorch traces only; others ignore it */
} pv_op_stats_query;

typedef struct pv_op_stats_row {
    const pv_op_metrics *op;             /* the op (in result->device or ->host) */
    bool on_device;
    uint64_t rank;                       /* 1-based across both sides */
    double total_time_us;
    double avg_time_us;                  /* total / occurrences; 0 when none */
    double total_self_time_us;
    double avg_self_time_us;
    double device_fraction;              /* self / device total (0..1); 0 on host rows */
    double device_cumulative;
    double host_fraction;                /* self / host total; 0 on device rows */
    double host_cumulative;
    double gpu_tensorcore_utilization;   /* 0..1; device rows of GPU profiles */
    /* Roofline columns: 0 and "Unknown" without XLA costs (see above);
     * legacy tensorflow_stats.pb files carry them. */
    double measured_flop_rate;           /* GFLOP/s */
    double model_flop_rate;              /* GFLOP/s */
    double measured_memory_bw;           /* GiB/s */
    double operational_intensity;        /* FLOPs/byte */
    const char *bound_by;                /* "Unknown", "Compute", "HBM", ... */
} pv_op_stats_row;

typedef struct pv_op_stats_table {
    pv_op_stats_row *rows;               /* n_rows; arena */
    size_t n_rows;
} pv_op_stats_table;

typedef struct pv_op_stats_result {
    pv_op_stats_table with_idle;
    pv_op_stats_table without_idle;
    pv_op_metrics_db device;             /* sorted by self time, all ops */
    pv_op_metrics_db host;
    bool is_gpu;                         /* a GPU plane exists */
    pv_op_group group;                   /* how the rows were made (PyTorch) */
    bool has_group[PV_OP_GROUP_N];       /* a PyTorch trace has the stat of the grouping */
    const char *task_type;               /* "Training" or "Inference" */
    const char *architecture_type;       /* "Unknown" (as the reference's OSS build) */
} pv_op_stats_result;

/* ---- computing ---------------------------------------------------------- */

/* Fills *out from m. Returns 0, or PV_ETOOBIG (too many distinct ops)
 * with *out zeroed. */
int pv_tool_op_stats(const pv_model *m, const pv_op_stats_query *q, pv_arena *a,
                     pv_op_stats_result *out, pv_error *err);

/* The ALL_HOSTS tables: each model's host and device dbs combined
 * (pv_op_metrics_combine, models in the order given) and the combined
 * kernel rows (pv_tool_kernel_stats_multi) for TensorCore utilization,
 * then the same tables as for one host. Same failures. */
int pv_tool_op_stats_multi(const pv_model *const *models, size_t n_models,
                           const pv_op_stats_query *q, pv_arena *a, pv_op_stats_result *out,
                           pv_error *err);

/* "Training" when any row shows a backward pass (a TF op under a
 * "gradient_tape"/"gradients*" scope, a JAX op under "transpose(", a
 * PyTorch autograd::engine::evaluate_function, AccumulateGrad or
 * <Op>Backward[N] op), else "Inference": the reference's task-type
 * heuristic, and PyTorch's autograd names. Cannot fail. */
const char *pv_op_stats_task_type(const pv_op_stats_table *t);

/* The kernel rows of op_name: TensorCore kernel time / kernel time (0
 * without rows), and in *eligible the first row's op eligibility (the
 * reference's GroupKernelReportsByOpName). */
double pv_op_stats_tensor_core(const pv_kernel_stats_result *k, const char *op_name,
                               bool *eligible);

/* ---- JSON ----------------------------------------------------------------- */

/* The reference's array of two DataTables [with IDLE, without IDLE].
 * Returns a new reference, or NULL when jansson runs out of memory. */
json_t *pv_op_stats_to_json(const pv_op_stats_result *r);

#endif
