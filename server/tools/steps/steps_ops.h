/* steps_ops: framework-op time tables of one profile, as the overview
 * page and input pipeline analyzer need them (FORMATS.md §4.0 "OpStats"):
 *
 *  - host: per host thread, events that are framework ops (name:Type,
 *    Iterator::..., memcpy, or carrying tf_op) with self time = duration
 *    minus the duration of framework ops nested directly inside, found by
 *    replaying begin/end activities on a stack exactly as the reference
 *    does (including the spans it loses at tied end times);
 *  - device: per GPU stream, kernels and memcpys attributed to the
 *    framework op that launched them (tf_op stat, else the "level 0"
 *    annotation TensorFlow 2.x wrote), self time = duration.
 *
 * Each table is aggregated by op and sorted by self time descending,
 * ties by name. Pure: no I/O, no clock, no globals; arena-owned output. */
#ifndef PV_TOOLS_STEPS_STEPS_OPS_H
#define PV_TOOLS_STEPS_STEPS_OPS_H

#include "tools/common/tf_op_name.h"
#include "tools/steps/steps.h"

typedef struct pv_op_metrics {
    const char *name;        /* op name ("Iterator::Model" keeps its full name) */
    const char *type;        /* op type ("Conv2D", "Dataset"); "" when unknown */
    uint32_t category;       /* pv_tf_op_category */
    bool is_eager;
    uint64_t occurrences;
    int64_t time_ps;
    int64_t self_time_ps;
} pv_op_metrics;

typedef struct pv_op_db {
    size_t n_ops;
    pv_op_metrics *ops;      /* sorted by self_time_ps desc, then name */
    int64_t total_time_ps;   /* host: sum over threads of first-to-last op span;
                                device: first kernel start to last kernel end */
    int64_t op_time_ps;      /* sum of self times (total - op = idle) */
    int64_t eager_self_ps;   /* self time of ops run eagerly */
} pv_op_db;

/* Host framework ops of every host plane. Cannot fail. */
void pv_steps_host_ops(const pv_model *m, pv_arena *a, pv_op_db *out);

/* Device framework ops of every GPU plane (empty for CPU/TPU). Cannot fail. */
void pv_steps_device_ops(const pv_model *m, pv_arena *a, pv_op_db *out);

#endif
