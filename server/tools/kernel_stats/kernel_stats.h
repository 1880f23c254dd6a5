/* kernel_stats: per-kernel GPU statistics (FORMATS.md §4.5), a pure
 * function of the profile model.
 *
 * One row per distinct (kernel name, grid, block, registers per thread,
 * static and dynamic shared memory, uses-TensorCore, op-eligible, op name)
 * over every device-kernel event (an event with kernel_details and a
 * duration of at least 1 ns) on the non-derived lines of every GPU plane.
 * Rows are sorted by total duration, descending, ties by that key tuple
 * ascending, which makes the output deterministic.
 *
 * The op name comes from the event's `tf_op` stat. Profiles written by
 * TensorFlow before the CUPTI tracer emitted `tf_op` (TF <= 2.11) carry the
 * op only in the `level 0` annotation stat; it is used when `tf_op` is
 * absent, as TensorFlow's own converter of that era did (today's xprof
 * leaves the op name empty there). For XLA kernels (`hlo_op` and
 * `program_id`) whose program's HLO proto is in the profile, the op is the
 * HLO instruction's framework op (hlo_names.h), as in the reference.
 *
 * Ownership: rows live in the caller's arena; kernel_name points into the
 * model's string table, so a result is valid while both the arena and the
 * model are. Threads: any; the model is only read. */
#ifndef PV_TOOLS_KERNEL_STATS_KERNEL_STATS_H
#define PV_TOOLS_KERNEL_STATS_KERNEL_STATS_H

#include "model/model.h"
#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PV_KERNEL_STATS_REFERENCE_ROWS 1000u /* the reference keeps the top 1000 */

typedef struct pv_kernel_stats_query {
    size_t max_rows;   /* keep the top max_rows rows; 0 keeps all */
} pv_kernel_stats_query;

typedef struct pv_kernel_row {
    const char *kernel_name;        /* borrowed from the model */
    const char *op_name;            /* framework op name; "" when unknown (arena) */
    uint32_t registers_per_thread;
    uint32_t static_shmem_bytes;
    uint32_t dynamic_shmem_bytes;
    uint32_t block[3];              /* x, y, z */
    uint32_t grid[3];               /* x, y, z */
    double occupancy_pct;           /* of the first occurrence; 0 when not recorded */
    bool is_kernel_using_tensor_core;
    bool is_op_tensor_core_eligible;
    uint64_t occurrences;
    uint64_t total_ns;              /* sum of per-event durations truncated to ns */
    uint64_t min_ns;
    uint64_t max_ns;
} pv_kernel_row;

typedef struct pv_kernel_stats_result {
    pv_kernel_row *rows;            /* n_rows, sorted (see above); arena */
    size_t n_rows;
    size_t n_rows_total;            /* distinct rows before max_rows was applied */
    uint64_t n_kernel_events;       /* events aggregated */
    uint32_t n_gpu_planes;          /* 0: not a GPU profile */
    const char *gpu_vendor;         /* device_vendor of the first GPU plane that has one
                                       ("Nvidia", "AMD"), or NULL; borrowed from the model */
} pv_kernel_stats_result;

/* ---- computing ---------------------------------------------------------- */

/* Fills *out from m. Returns 0, or PV_ETOOBIG when the distinct rows would
 * not fit in memory (more than 2^31), with *out zeroed. */
int pv_tool_kernel_stats(const pv_model *m, const pv_kernel_stats_query *q, pv_arena *a,
                         pv_kernel_stats_result *out, pv_error *err);

/* The ALL_HOSTS table, as the reference builds it: every part's rows
 * (each host's own top-q rows) put side by side, NOT merged by key (the
 * reference concatenates the hosts' kernel reports, so a kernel that ran
 * on two hosts has two rows), then sorted and capped by q like one host.
 * n_rows_total, n_kernel_events and n_gpu_planes are the parts' sums;
 * gpu_vendor is the first part's that has one.
 * Rows are copied into a; strings stay borrowed from the parts. */
void pv_kernel_stats_combine(const pv_kernel_stats_result *parts, size_t n_parts,
                             const pv_kernel_stats_query *q, pv_arena *a,
                             pv_kernel_stats_result *out);

/* pv_kernel_stats_tool on each of models[0..n_models) (in that order)
 * then pv_kernel_stats_combine. Same failures as pv_kernel_stats_tool. */
int pv_tool_kernel_stats_multi(const pv_model *const *models, size_t n_models,
                               const pv_kernel_stats_query *q, pv_arena *a,
                               pv_kernel_stats_result *out, pv_error *err);

/* ---- predicates (exposed for op_stats and tests) ------------------------ */

/* The kernel name contains one of the TensorCore kernel name patterns:
 * NVIDIA's, AMD's matrix cores', XLA's GEMM fusions (XProf 2.24.2's). */
bool pv_kernel_name_uses_tensor_core(const char *kernel_name);
/* NVIDIA's patterns alone: what torch-tb-profiler 0.4.3 knows. */
bool pv_kernel_name_uses_nvidia_tensor_core(const char *kernel_name);
/* The framework op (by name) is one TensorCores can run. */
bool pv_kernel_op_tensor_core_eligible(const char *op_name, size_t len);
/* An einsum equation with exactly two inputs ("ab,bc->ac"). */
bool pv_kernel_einsum_tensor_core_eligible(const char *equation);

/* ---- JSON ----------------------------------------------------------------- */

/* The reference's DataTable object (one table, no "p"). Returns a new
 * reference, or NULL when jansson runs out of memory. */
json_t *pv_kernel_stats_to_json(const pv_kernel_stats_result *r);

/* profview's compact form of the same table for big tables:
 * {"cols": [...as above...], "columns": [[rank...], [kernel_name...], ...]},
 * one array of values per column (no per-cell objects: about half the
 * bytes, a quarter of the browser's parse time). Same failures. */
json_t *pv_kernel_stats_to_json_columns(const pv_kernel_stats_result *r);

#endif
