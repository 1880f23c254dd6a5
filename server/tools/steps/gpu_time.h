/* gpu_time: HolisticTraceAnalysis' view of one rank's GPU time (its
 * temporal breakdown, comm-comp overlap and kernel type breakdown), from
 * the kernels, memcpys and memsets of a PyTorch trace:
 *
 *   span         the first activity's start to the last one's end
 *   idle         the span's time with no activity running
 *   computation  time with a computation kernel running
 *   non-compute  busy time without one (communication, memory, other)
 *   overlap      communication time during which a computation kernel
 *                runs too, and the communication time it is a share of
 *   by type      the span's busy time split by the set of kernel types
 *                running at once (computation alone, computation
 *                overlapping communication, ...)
 *
 * Kernel types as HTA names them: communication a kernel named
 * nccl...Kernel (NCCL's and RCCL's), memory a memcpy or memset (or a
 * kernel named Memcpy..., Memset..., dma...), computation any other kernel
 * except names HTA keeps apart (holding "Memcpy" or "Sync"), which count as
 * busy and as no type. Unlike torch-tb-profiler's distributed view (a
 * collective operator's host time, per step) this reads the GPU's own
 * kernels over the whole trace. Pure: reads the model. */
#ifndef PV_TOOLS_STEPS_GPU_TIME_H
#define PV_TOOLS_STEPS_GPU_TIME_H

#include "model/model.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    PV_GPU_COMPUTATION = 1,
    PV_GPU_COMMUNICATION = 2,
    PV_GPU_MEMORY = 4,
    PV_GPU_TYPE_SETS = 8        /* by_types_ps' size: every set of the three types */
};

typedef struct pv_gpu_time {
    bool any;                   /* some kernel, memcpy or memset */
    int64_t span_ps;
    int64_t idle_ps;
    int64_t computation_ps;
    int64_t non_compute_ps;
    int64_t communication_ps;   /* time with a communication kernel running */
    int64_t overlap_ps;         /* of that, time with a computation kernel too */
    int64_t by_types_ps[PV_GPU_TYPE_SETS];   /* by set of types running; [0] unused */
} pv_gpu_time;

/* Fills out for m's device activities (by their roles: none on a model
 * without). Cannot fail (aborts only when memory runs out). */
void pv_gpu_time_of(const pv_model *m, pv_gpu_time *out);

/* HTA's name of a set of types: "COMPUTATION", "COMPUTATION overlapping
 * COMMUNICATION", ...; set in 1..7. */
const char *pv_gpu_type_set_name(unsigned set);

#endif
