/* step_breakdown: turns the steps of steps.h into the per-step details
 * (milliseconds per category), their summaries, and the bottleneck
 * verdict with the reference's thresholds and wording (FORMATS.md §4.4,
 * reference: xprof/convert/op_stats_to_input_pipeline_analysis.cc).
 * Both the overview page and the input pipeline analyzer read this one
 * result, so their shared numbers and statements are the same.
 *
 * Pure: no I/O, no clock, no globals; results in the caller's arena. */
#ifndef PV_TOOLS_STEPS_STEP_BREAKDOWN_H
#define PV_TOOLS_STEPS_STEP_BREAKDOWN_H

#include "tools/steps/steps.h"

/* Per-step quantities of the reference's PerGenericStepDetails (ms). */
typedef enum pv_bd {
    PV_BD_STEP_TIME,
    PV_BD_UNKNOWN,           /* "All others" */
    PV_BD_HOST_WAIT_INPUT,
    PV_BD_HOST_TO_DEVICE,    /* HOST_TO_DEVICE + DEVICE_WAIT_HOST */
    PV_BD_INPUT,             /* host_wait_input + host_to_device */
    PV_BD_OUTPUT,            /* DEVICE_TO_HOST */
    PV_BD_DEVICE_COMPUTE,    /* 16 + 32 bit */
    PV_BD_DEVICE_TO_DEVICE,  /* DEVICE_TO_DEVICE + DEVICE_WAIT_DEVICE */
    PV_BD_DEVICE_COLLECTIVES,
    PV_BD_HOST_COMPUTE,
    PV_BD_HOST_PREPARE,      /* "Kernel launch" */
    PV_BD_HOST_COMPILE,
    PV_BD_N
} pv_bd;

typedef struct pv_step_summary {
    double average;
    double standard_deviation;  /* sample (n - 1); 0 for fewer than 2 steps */
    double minimum;
    double maximum;
} pv_step_summary;              /* all 0 when there are no steps */

typedef struct pv_step_details {
    const char *name;           /* step name (borrowed from the steps result) */
    int64_t group_id;
    int64_t begin_ps;           /* absolute */
    double ms[PV_BD_N];
    double input_percent;       /* input / step time * 100 */
    double compute16_ms;        /* device compute split by precision */
    double compute32_ms;
} pv_step_details;

typedef struct pv_bottleneck {
    double input_percent;
    double output_percent;
    double idle_percent;
    double compute_percent;
    double kernel_launch_percent;
    double all_other_percent;
    double device_collectives_percent;
    const char *input_classification;      /* host|both|device|unknown */
    const char *input_statement;
    const char *kernel_launch_classification;   /* high|moderate|no */
    const char *kernel_launch_statement;
    const char *all_other_classification;
    const char *all_other_statement;
    const char *device_collectives_classification;
    const char *device_collectives_statement;
    const char *summary_next_step;
} pv_bottleneck;

typedef struct pv_step_analysis {
    size_t n_steps;
    pv_step_details *steps;             /* arena-owned */
    pv_step_summary summary[PV_BD_N];
    pv_step_summary input_percent;      /* per-step input % */
    double compute16_percent;           /* of device compute time, all steps */
    double compute32_percent;
    pv_bottleneck bottleneck;
} pv_step_analysis;

/* Computes details, summaries and the verdict. tfdata_used says whether
 * the host showed tf.data reading or preprocessing time (it changes two
 * statements, as in the reference). Cannot fail. */
void pv_step_analysis_compute(const pv_steps_result *steps, bool tfdata_used, pv_arena *a,
                              pv_step_analysis *out);

/* The same from per-step details already in milliseconds (legacy tool
 * files carry them), which out then borrows; input_percent of each is
 * filled in. Cannot fail. */
void pv_step_analysis_from_details(pv_step_details *details, size_t n, bool tfdata_used,
                                   pv_arena *a, pv_step_analysis *out);

/* The reference's "%.1f" rendering used in statements, in the arena. */
const char *pv_one_digit(pv_arena *a, double v);

#endif
