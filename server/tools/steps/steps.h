/* steps: the per-step event classification, de-overlap and breakdown that
 * the overview page and the input pipeline analyzer share (FORMATS.md
 * §4.4 "Step events and breakdown"), so both pages agree on every number.
 *
 * For every step group of the model it collects step markers (the
 * device "Steps" line, host train/test/TraceContext events and events
 * with a step_name) and typed event spans (device kernels and memcpys,
 * host ops), picks the step's time span, splits that span by the
 * highest-priority event type active at each instant, and keeps the
 * well-formed steps in group order.
 *
 * Pure function of the model (STYLE rule 12): no I/O, no clock, no
 * globals. Results live in the caller's arena. Any thread may call it on
 * a finished model. */
#ifndef PV_TOOLS_STEPS_STEPS_H
#define PV_TOOLS_STEPS_STEPS_H

#include "model/model.h"
#include "util/arena.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Event types of the reference's EventType enum. The value / 10 is the
 * index into pv_step.type_ps, and a larger value wins the de-overlap. */
typedef enum pv_step_type {
    PV_STEP_UNKNOWN = 0,
    PV_STEP_HOST_COMPUTE,
    PV_STEP_HOST_PREPROCESS,
    PV_STEP_HOST_POSTPROCESS,
    PV_STEP_HOST_BATCH_FORMATION,
    PV_STEP_HOST_RUNTIME,
    PV_STEP_HOST_COMPILE,
    PV_STEP_HOST_TO_HOST,
    PV_STEP_HOST_TO_DEVICE,
    PV_STEP_HOST_PREPARE,
    PV_STEP_DEVICE_COLLECTIVES,
    PV_STEP_HOST_WAIT_INPUT,
    PV_STEP_DEVICE_TO_DEVICE,
    PV_STEP_DEVICE_TO_HOST,
    PV_STEP_DEVICE_COMPUTE_32,
    PV_STEP_DEVICE_COMPUTE_16,
    PV_STEP_DEVICE_WAIT_DEVICE,
    PV_STEP_DEVICE_WAIT_HOST,
    PV_STEP_N_TYPES
} pv_step_type;

/* Hardware of the profile, as the reference's HardwareType names it. */
typedef enum pv_hardware {
    PV_HW_CPU_ONLY,   /* no device plane */
    PV_HW_GPU,        /* at least one /device:GPU: plane */
    PV_HW_TPU         /* at least one /device:TPU: plane */
} pv_hardware;

typedef struct pv_step {
    int64_t group_id;                 /* step group (model->groups) */
    const char *name;                 /* with host events: their step_name, else
                                         the group's name; else (and as a last
                                         resort) the group id; arena-owned */
    int64_t begin_ps;                 /* absolute, same clock as the model */
    int64_t dur_ps;                   /* step time; > 0 */
    int64_t type_ps[PV_STEP_N_TYPES]; /* de-overlapped time per type within the
                                         step; sums to dur_ps */
} pv_step;

typedef struct pv_steps_query {
    /* Add host-thread events to steps also when a device exists
     * (restricted to groups the device has). TensorFlow 2.x up to 2022
     * did this; today's reference does it only for CPU-only profiles. */
    bool merge_host_with_device;
    /* With more than 5 steps, drop the first and last (they are usually
     * cut by the profiling window). XProf 2.24 does this on every
     * platform (its goldens: 6 -> 4, 10 -> 8 steps). */
    bool drop_incomplete;
} pv_steps_query;

typedef struct pv_steps_result {
    uint32_t hardware;        /* pv_hardware */
    uint32_t n_device_planes; /* GPU or TPU planes, with events or not */
    int64_t t0_ps;            /* model->min_ps: time 0 of the trace viewer */
    bool has_trace_times;     /* begin_ps/dur_ps are known (false for steps read
                                 from a legacy tool file) */
    bool host_merged;         /* host events took part in the breakdown */
    bool derived_markers;     /* some device plane had no Steps line, so its
                                 markers were derived from grouped kernels */
    size_t n_groups;          /* groups that had any step event or marker */
    size_t n_no_marker;       /* of those, dropped for lack of a step marker */
    size_t n_not_compute;     /* dropped: no device (or host) compute in the step */
    size_t n_incomplete;      /* dropped as first/last incomplete step */
    size_t n_steps;
    pv_step *steps;           /* n_steps, ordered by group id; arena-owned */
} pv_steps_result;

/* ---- computation ------------------------------------------------------ */

/* Fills out with the well-formed steps of m. q may be NULL for the
 * reference's behaviour (XProf 2.24): no host events when a device
 * exists, incomplete steps dropped. Returns 0; cannot fail on a sane
 * model (scratch memory aborts when it runs out). */
int pv_tool_steps(const pv_model *m, const pv_steps_query *q, pv_arena *a,
                  pv_steps_result *out, pv_error *err);

/* The steps of a PyTorch trace (a model with roles, pv_model_has_roles)
 * and their breakdown as torch-tb-profiler's overview draws them
 * (steps_kineto.c). Returns 0; aborts only when memory runs out. */
int pv_steps_kineto(const pv_model *m, pv_arena *a, pv_steps_result *out);

/* One step's time as torch-tb-profiler's distributed view splits it
 * (overall_parser.py): computation (kernels; operators on a CPU-only
 * trace) and communication (collectives) apart and together, and the
 * rest. The four add up to the step's time. */
typedef struct pv_step_overlap {
    const char *name;              /* the step's number (arena) */
    int64_t computation_ps;        /* computing and not communicating */
    int64_t overlap_ps;            /* both */
    int64_t communication_ps;      /* communicating and not computing */
    int64_t other_ps;              /* neither */
} pv_step_overlap;

/* The overlap of each step of pv_steps_kineto's, in *out (arena, *n of
 * them). Returns 0; aborts only when memory runs out. */
int pv_steps_kineto_overlap(const pv_model *m, pv_arena *a,
                            pv_step_overlap **out, size_t *n);

/* ---- helpers shared with the other tools of this page pair ------------- */

/* The reference's name of a hardware kind ("CPU_ONLY", "GPU", "TPU"). */
const char *pv_hardware_name(uint32_t hw);

/* Makes the memos the step tools read (steps_memo.c) for the reference's
 * query (pv_tools_warm, for an XSpace model). Cannot fail (a memo not
 * made is made by the first request instead). */
void pv_steps_warm(const pv_model *m);

/* ---- shared inside tools/steps (steps_memo.c) ---------------------------- */

/* pv_tool_steps of an XSpace model (q not NULL), computed. */
int pv__steps_compute(const pv_model *m, const pv_steps_query *q, pv_arena *a,
                      pv_steps_result *out, pv_error *err);
/* The same from the model's memo of it, made on first use. */
int pv__steps_kept(const pv_model *m, const pv_steps_query *q, pv_arena *a,
                   pv_steps_result *out, pv_error *err);

#endif
