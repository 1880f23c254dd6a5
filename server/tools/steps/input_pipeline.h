/* input_pipeline: the input pipeline analyzer (FORMATS.md §4.4). It
 * bundles the step breakdown and verdict of step_breakdown.h with the
 * host-side tf.data analysis: every input op (Iterator::..., host-to-
 * device memcpy, infeed enqueue) with count, total and self time, the
 * input time split into enqueue / file read / preprocessing, the stage
 * that is the bottleneck and what to do about it.
 *
 * The overview page embeds this same result, so both pages show the same
 * numbers. Pure: no I/O, no clock, no globals; output in the arena. */
#ifndef PV_TOOLS_STEPS_INPUT_PIPELINE_H
#define PV_TOOLS_STEPS_INPUT_PIPELINE_H

#include "tools/common/json_out.h"
#include "tools/steps/step_breakdown.h"
#include "tools/steps/steps_ops.h"

#include <jansson.h>

typedef enum pv_input_cat {
    PV_INPUT_ENQUEUE,
    PV_INPUT_DEMANDED_FILE_READ,
    PV_INPUT_ADVANCED_FILE_READ,
    PV_INPUT_PREPROCESSING,
    PV_INPUT_UNKNOWN
} pv_input_cat;

typedef struct pv_input_op {
    const pv_steps_op *op;  /* borrowed from host_ops */
    uint32_t category;        /* pv_input_cat */
    double time_percent;      /* of the input ops' total self time */
    double self_time_percent;
} pv_input_op;

typedef struct pv_input_breakdown {
    double enqueue_us;
    double demanded_file_read_us;
    double advanced_file_read_us;
    double preprocessing_us;
    double unclassified_non_enqueue_us;
} pv_input_breakdown;

typedef struct pv_diagnostic {
    const char *severity;     /* "INFO", "WARNING", "ERROR" */
    const char *message;
} pv_diagnostic;

typedef struct pv_input_pipeline_query {
    pv_steps_query steps;
} pv_input_pipeline_query;

typedef struct pv_input_pipeline_result {
    pv_steps_result steps;
    pv_step_analysis analysis;
    pv_steps_op_db host_ops;
    size_t n_input_ops;
    pv_input_op *input_ops;   /* in host_ops order (self time desc) */
    int64_t input_op_self_ps;
    pv_input_breakdown breakdown;
    bool tfdata_used;
    /* The input op with the most self time and advice for its kind, or
     * NULL when the host recorded no input ops. */
    const pv_input_op *bottleneck;
    const char *bottleneck_advice;
    size_t n_diagnostics;
    pv_diagnostic *diagnostics;
    size_t n_steps_dropped;   /* ALL_HOSTS: steps not every host recorded */
    /* A PyTorch trace: the verdict is torch-tb-profiler's on its DataLoader
     * time (overview_pytorch.h), there is no tf.data to analyse. */
    bool pytorch;
} pv_input_pipeline_result;

/* ---- computation and output ----------------------------------------- */

/* Fills out. q may be NULL (today's reference defaults). Returns 0;
 * cannot fail on a sane model. */
int pv_tool_input_pipeline(const pv_model *m, const pv_input_pipeline_query *q, pv_arena *a,
                           pv_input_pipeline_result *out, pv_error *err);

/* The reference's array of 5 DataTables: [max_infeed_core, step table,
 * host ops, recommendations, diagnostics], appended to out (the step
 * table streamed: tools/common/json_out.h). Returns 0, or PV_ETOOBIG past
 * out's cap or PV_ENOMEM with err set. */
int pv_input_pipeline_write(const pv_input_pipeline_result *r, pv_buf *out, pv_error *err);
/* The same answer as a tree (read back from what the writer wrote); NULL
 * only when memory runs out. */
json_t *pv_input_pipeline_to_json(const pv_input_pipeline_result *r);

/* Pieces the overview page reuses. */
void pv_input_pipeline_step_table_write(const pv_input_pipeline_result *r, pv__jw *w);
json_t *pv_input_pipeline_diagnostics_json(const pv_diagnostic *d, size_t n);
const char *pv_input_cat_name(uint32_t cat);

/* ---- shared inside tools/ (input_pipeline_legacy.c) -------------------- */

/* Advice for the input op with the most self time, naming it and the
 * numbers; arena-owned. Cannot fail. */
const char *pv__input_advice(pv_arena *a, const pv_input_op *b, double input_percent);

/* Everything after the steps and host ops (steps, host_ops and
 * n_steps_dropped already filled in out): input ops, breakdown, verdict
 * and the diagnostics of every model. For overview_multi.c. */
void pv__input_pipeline_finish(const pv_model *const *ms, size_t n_models, pv_arena *a,
                               pv_input_pipeline_result *out);

/* ALL_HOSTS (overview_multi.c): the first host's steps limited to the
 * run of steps every host shares once lined up by time
 * (step_intersection.h; the first host's others are counted in
 * n_steps_dropped), the step-time summary from each shared step's
 * slowest host, and every host's host ops added up. n_models >= 1.
 * Returns 0; cannot fail on sane models. */
int pv_tool_input_pipeline_multi(const pv_model *const *ms, size_t n_models,
                                 const pv_input_pipeline_query *q, pv_arena *a,
                                 pv_input_pipeline_result *out, pv_error *err);

#endif
