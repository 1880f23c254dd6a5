/* op_roofline: an op's rates against its device's roof, as hlo_stats,
 * op_profile and roofline_model print them (XProf's SetRooflineMetrics,
 * xprof/convert/op_metrics_to_record.h):
 *  - FLOP rates in GFLOP/s (flops over time, not self time: an op's flops
 *    include its nested ops');
 *  - bandwidths in GiB/s, overall and per memory (all bytes are HBM
 *    bytes when the trace gave no breakdown);
 *  - operational intensity in FLOP/byte, overall and per memory;
 *  - what bounds the op: the resource it uses the largest share of
 *    ("Compute", "HBM"; on a TPU also "CMEM Read/Write", "VMEM
 *    Read/Write"; on a GPU "Shm/L1" against the shared memory's peak),
 *    "Unknown" when it uses none, and that resource's intensity.
 * Pure; cannot fail. */
#ifndef PV_TOOLS_HLO_OP_ROOFLINE_H
#define PV_TOOLS_HLO_OP_ROOFLINE_H

#include "tools/hlo/xla_ops.h"

typedef struct pv_op_roofline {
    double flop_rate;          /* GFLOP/s, measured (device) flops */
    double model_flop_rate;    /* GFLOP/s, model flops */
    double memory_bw;          /* GiB/s, all bytes */
    double bw[PV_MEM_COUNT];   /* GiB/s per memory (PV_MEM_*) */
    double intensity;          /* FLOP/byte, all bytes */
    double mem_intensity[PV_MEM_COUNT];
    const char *bound_by;      /* a literal */
    double bound_intensity;    /* the bounding resource's FLOP/byte */
    double bound_utilization;  /* its share of the resource's peak, 0..1 */
} pv_op_roofline;

/* op's rates on the device e describes. */
void pv_op_roofline_of(const pv_xla_op *op, const pv_perf_env *e, pv_op_roofline *out);

/* GB/s (10^9) as GiB/s (2^30). */
static inline double pv_gb_to_gib(double gb)
{
    return gb * 1e9 / 1073741824.0;
}

#endif
