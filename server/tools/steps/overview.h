/* overview: the overview page (FORMATS.md §4.3). It embeds the input
 * pipeline result (same steps, breakdown and verdict) and adds the top
 * framework ops by self time on device and host, idle shares, eager
 * shares, the precision remark and the run environment.
 *
 * Pure: no I/O, no clock, no globals; output in the caller's arena. */
#ifndef PV_TOOLS_STEPS_OVERVIEW_H
#define PV_TOOLS_STEPS_OVERVIEW_H

#include "tools/kernel_stats/kernel_stats.h"
#include "tools/op_stats/op_metrics.h"
#include "tools/steps/input_pipeline.h"
#include "tools/steps/overview_pytorch.h"

#define PV_OVERVIEW_TOP_OPS 10

typedef struct pv_overview_op {
    const char *name;               /* borrowed from device_ops / ip.host_ops */
    const char *category;           /* the op's type */
    double self_time_fraction;      /* of the table's op time (idle excluded) */
    double cumulative_time_fraction;
    double flop_rate;               /* GFLOP/s over the op's time; 0 unknown */
    bool tc_eligible;               /* GPU: its kernels may use TensorCores */
    bool tc_using;                  /* GPU: some of its kernel time did */
} pv_overview_op;

typedef struct pv_overview_query {
    pv_steps_query steps;
} pv_overview_query;

typedef struct pv_overview_result {
    pv_input_pipeline_result ip;    /* the analyzer's result, shared */
    pv_op_metrics_db device_ops;    /* framework_op_stats' device side, sorted */
    pv_kernel_stats_result kernels; /* for the device ops' TensorCore flags */
    size_t n_top_device;
    pv_overview_op top_device[PV_OVERVIEW_TOP_OPS];
    size_t n_top_host;
    pv_overview_op top_host[PV_OVERVIEW_TOP_OPS];
    bool is_training;               /* an HLO op under a gradient scope */
    double host_tf_op_percent;      /* host op occurrences of all op occurrences, the
                                       device's counted per op run, not per kernel */
    double device_tf_op_percent;
    double host_op_time_eager_percent;
    double device_op_time_eager_percent;
    double device_idle_percent;     /* < 0 when there is no device */
    double host_idle_percent;       /* < 0 when the host recorded no ops */
    const char *precision_statement; /* "" when none */
    const char *eager_statement;     /* "" when none */
    /* run environment */
    const char *device_type;        /* "CPU", "GPU", "Nvidia GPU (Ampere)", "TPU ..." */
    uint32_t device_core_count;
    uint32_t task_count;            /* profiles combined (ALL_HOSTS); 0 reads as 1 */
    uint32_t n_hostnames;
    const char **hostnames;         /* borrowed from the model */
    /* From the "Task Environment" plane when the profiler wrote one. */
    uint64_t profile_start_ns;      /* Unix time; 0 when not recorded */
    uint64_t profile_stop_ns;       /* 0 when not recorded */
    int host_tracer_level;          /* -1 when not recorded */
    /* A PyTorch trace's recommendations, given in place of the verdict,
     * precision and eager statements (empty then). */
    pv_pytorch_overview pytorch;
} pv_overview_result;

/* Fills out. q may be NULL. Returns 0, or PV_ETOOBIG when the distinct
 * ops would not fit in memory. */
int pv_tool_overview(const pv_model *m, const pv_overview_query *q, pv_arena *a,
                     pv_overview_result *out, pv_error *err);

/* ALL_HOSTS (overview_multi.c): the combined input pipeline result of
 * pv_tool_input_pipeline_multi, every host's device ops and kernels added
 * up, and the device core count summed over hosts. n_models >= 1.
 * Returns 0, or pv_tool_op_stats' failures. */
int pv_tool_overview_multi(const pv_model *const *ms, size_t n_models,
                           const pv_overview_query *q, pv_arena *a, pv_overview_result *out,
                           pv_error *err);

/* Shared with overview_multi.c: everything after ip, device_ops and
 * kernels are filled in (top ops, shares, statements, environment). */
void pv__overview_finish(const pv_model *const *ms, size_t n_models, pv_arena *a,
                         pv_overview_result *out);

/* The reference's array of 7 entries (FORMATS.md §4.3), appended to out
 * (the step table streamed: tools/common/json_out.h). Returns 0, or
 * PV_ETOOBIG past out's cap or PV_ENOMEM with err set. */
int pv_overview_write(const pv_overview_result *r, pv_buf *out, pv_error *err);
/* The same answer as a tree (read back from what the writer wrote); NULL
 * only when memory runs out. */
json_t *pv_overview_to_json(const pv_overview_result *r);

#endif
