/* steps_ops: the host's framework-op time table of one profile, as the
 * overview page and input pipeline analyzer need it (FORMATS.md §4.0
 * "OpStats"): per host thread, events that are framework ops (name:Type,
 * Iterator::..., memcpy, or carrying tf_op) with self time = duration
 * minus the duration of framework ops nested directly inside, found by
 * replaying begin/end activities on a stack exactly as the reference
 * does (including the spans it loses at tied end times). The device's
 * table is op_stats' (tools/op_stats/op_metrics.h).
 *
 * The table is aggregated by op and sorted by self time descending, ties
 * by name. Pure: no I/O, no clock, no globals; arena-owned output. */
#ifndef PV_TOOLS_STEPS_STEPS_OPS_H
#define PV_TOOLS_STEPS_STEPS_OPS_H

#include "tools/common/tf_op_name.h"
#include "tools/steps/steps.h"

typedef struct pv_steps_op {
    const char *name;        /* op name ("Iterator::Model" keeps its full name) */
    const char *type;        /* op type ("Conv2D", "Dataset"); "" when unknown */
    uint32_t category;       /* pv_tf_op_category */
    bool is_eager;
    uint64_t occurrences;
    int64_t time_ps;
    int64_t self_time_ps;
} pv_steps_op;

typedef struct pv_steps_op_db {
    size_t n_ops;
    pv_steps_op *ops;      /* sorted by self_time_ps desc, then name */
    int64_t total_time_ps;   /* sum over threads of first-to-last op span */
    int64_t op_time_ps;      /* sum of self times (total - op = idle) */
    int64_t eager_self_ps;   /* self time of ops run eagerly */
} pv_steps_op_db;

/* Host framework ops of every host plane, from the model's memo of them
 * (steps_memo.c; made on first use). Cannot fail. */
void pv_steps_host_ops(const pv_model *m, pv_arena *a, pv_steps_op_db *out);
/* The same, computed (for the memo). */
void pv__steps_host_ops_compute(const pv_model *m, pv_arena *a, pv_steps_op_db *out);

#endif
