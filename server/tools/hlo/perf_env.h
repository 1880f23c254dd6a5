/* perf_env: a device's peak FLOP rate and memory bandwidths, the roof of
 * the roofline, from its plane's capability stats as XProf 2.24.2 reads
 * them (xprof/convert/xplane_to_op_stats.cc, GetPerfEnvFromXPlane):
 *  - a TPU states them (peak_teraflops_per_second, peak_*_bw_gigabytes_
 *    per_second);
 *  - a GPU states its clock, core count, memory bandwidth, vendor and
 *    compute capability; the peak is cores x clock x the FLOPs per core
 *    per cycle of its architecture (the larger of its vector and matrix
 *    units' fp32/fp16 rates, from the vendors' whitepapers), the on-chip
 *    bandwidth cores x clock x the shared memory (LDS) bytes per core per
 *    cycle. A GPU without a vendor stat (TensorFlow's older profiles) has
 *    no known peak: 0, as XProf says.
 * The first device plane speaks for all.
 *
 * Pure; cannot fail. */
#ifndef PV_TOOLS_HLO_PERF_ENV_H
#define PV_TOOLS_HLO_PERF_ENV_H

#include "model/model.h"

#include <stdbool.h>

/* The bandwidths, in XProf's order (its MemBwType). */
enum {
    PV_BW_HBM,
    PV_BW_SRAM_RD,
    PV_BW_SRAM_WR,
    PV_BW_CMEM_RD,
    PV_BW_CMEM_WR,
    PV_BW_VMEM_RD,
    PV_BW_VMEM_WR,
    PV_BW_COUNT
};

typedef enum pv_device_kind { PV_DEVICE_NONE, PV_DEVICE_GPU, PV_DEVICE_TPU } pv_device_kind;

typedef struct pv_perf_env {
    pv_device_kind kind;
    double peak_tflops;            /* TFLOP/s; 0 unknown */
    double peak_bw_gbps[PV_BW_COUNT]; /* GB/s (10^9); 0 unknown */
    bool has_merged_vmem;          /* a TPU whose VMEM reads and writes share */
    bool has_megacore;
    int n_bws;                     /* how many of peak_bw_gbps the device states:
                                      3 on a GPU, 7 on a TPU, 0 without a device */
} pv_perf_env;

/* The perf env of m's first GPU or TPU plane (kind NONE without one). */
void pv_perf_env_of(const pv_model *m, pv_perf_env *out);

/* Peak GFLOP/s over a bandwidth in GB/s (the ridge point, FLOP/byte); 0
 * when either is unknown. */
double pv_perf_env_ridge(const pv_perf_env *e, int bw);

#endif
