/* overview_pytorch: what torch-tb-profiler 0.4.3's overview adds on a
 * PyTorch trace: its GPU summary (gpu_metrics_parser.py) per GPU that ran
 * kernels, over the time from the first step's start to the last step's
 * end,
 *
 *   utilization      the kernels' united time, of that span
 *   SM efficiency    per instant min(1, the running kernels' "blocks per
 *                    SM" summed), averaged over the span (estimated)
 *   occupancy        the kernels' "est. achieved occupancy %" weighted by
 *                    their time inside the span
 *
 * and its performance recommendations (RunProfileData.analyze), which the
 * overview gives in place of TensorFlow's verdict:
 *
 *   data_loading     DataLoader takes more than 5 % of the steps' time
 *   data_parallel    a host event DataParallel.forward, and kernels, memcpys
 *                    or memsets on more than one device
 *   ddp_backend      a host event DistributedDataParallel.forward, no NCCL
 *                    operation (nccl:..., any of them), and a GPU whose
 *                    deviceProperties give compute capability 3.5 or more
 *   communication    communication takes more than 10 % of it
 *   gpu_utilization  a GPU's kernels cover less than 50 % of the time from
 *                    the first step's start to the last step's end
 *   tensor_cores     on a GPU of compute capability 7 or more, no kernel
 *                    time is in Tensor Core kernels while operators that
 *                    TensorCores can run launched some (the share of
 *                    kernel time they launched, rounded as there)
 *   memory           a GPU's [memory] events' Total Allocated peaks above
 *                    90 % of its deviceProperties' totalGlobalMem
 *
 * in that order. The three rules on parallelism and memory say it in
 * profview's own words. Pure: reads the model, writes the caller's
 * arena. */
#ifndef PV_TOOLS_STEPS_OVERVIEW_PYTORCH_H
#define PV_TOOLS_STEPS_OVERVIEW_PYTORCH_H

#include "tools/steps/steps.h"

#define PV_PYTORCH_ADVICE_MAX 8

typedef struct pv_pytorch_advice {
    const char *kind;       /* data_loading, data_parallel, ddp_backend, communication,
                               gpu_utilization, tensor_cores, memory */
    double percent;         /* the share the rule measured (of step time, GPU time, kernel
                               time or device memory), as the text shows it; 0 for
                               data_parallel and ddp_backend, which measure none */
    const char *text;       /* the advice: torch-tb-profiler's sentence without its links, or
                               profview's own for the three it words itself (arena) */
    const char *link;       /* the page that sentence links to; "" when none */
} pv_pytorch_advice;

typedef struct pv_pytorch_gpu {
    int32_t device;         /* N of /device:GPU:N */
    double utilization;     /* 0..1 */
    double sm_efficiency;   /* 0..1; < 0 when no kernel says its blocks per SM */
    double occupancy_pct;   /* 0..100; < 0 when no kernel says its occupancy */
} pv_pytorch_gpu;

typedef struct pv_pytorch_overview {
    bool present;           /* the model is a PyTorch trace */
    size_t n;
    pv_pytorch_advice items[PV_PYTORCH_ADVICE_MAX];
    size_t n_gpus;          /* GPUs with kernels, by plane order; 0 without steps */
    pv_pytorch_gpu *gpus;   /* arena */
} pv_pytorch_overview;

/* Fills out for m (read through its roles and launch links) and its
 * steps (pv_steps_kineto's). With several workers' steps combined
 * (ALL_HOSTS), one_model false: only the rules on step shares, the others
 * being one worker's. out->present is false when m has no roles
 * (pv_model_has_roles). Cannot fail (aborts only when memory runs out). */
void pv_overview_pytorch(const pv_model *m, const pv_steps_result *steps, bool one_model,
                         pv_arena *a, pv_pytorch_overview *out);

#endif
