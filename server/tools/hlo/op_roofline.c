/* op_roofline: rates and the bounding resource of one op (op_roofline.h). */
#include "tools/hlo/op_roofline.h"

#include <string.h>

static double ratio(double a, double b)
{
    return b != 0 ? a / b : 0;
}

/* The memory whose peak bounds bw[k] on the device (PV_BW_*). */
static const int peak_of_mem[PV_MEM_COUNT] = {PV_BW_HBM, PV_BW_CMEM_RD, PV_BW_CMEM_WR,
                                              PV_BW_VMEM_RD, PV_BW_VMEM_WR};
static const char *const mem_names[PV_MEM_COUNT] = {"HBM", "CMEM Read", "CMEM Write",
                                                    "VMEM Read", "VMEM Write"};

void pv_op_roofline_of(const pv_xla_op *op, const pv_perf_env *e, pv_op_roofline *out)
{
    memset(out, 0, sizeof *out);
    double ns = (double)op->time_ps / 1e3;
    double mem[PV_MEM_COUNT];
    memcpy(mem, op->mem_bytes, sizeof mem);
    if (!op->has_mem_breakdown) {
        /* no breakdown: every byte is an HBM byte */
        memset(mem, 0, sizeof mem);
        mem[PV_MEM_HBM] = op->bytes;
    }
    out->flop_rate = ratio(op->flops, ns);
    out->model_flop_rate = ratio(op->model_flops, ns);
    out->memory_bw = pv_gb_to_gib(ratio(op->bytes, ns));
    out->intensity = ratio(op->flops, op->bytes);
    for (int k = 0; k < PV_MEM_COUNT; k++) {
        out->bw[k] = pv_gb_to_gib(ratio(mem[k], ns));
        out->mem_intensity[k] = ratio(op->flops, mem[k]);
    }
    out->bound_by = "Unknown";
    double best = 0;
    double compute = ratio(out->flop_rate, e->peak_tflops * 1e3);
    if (compute > best) {
        best = compute;
        out->bound_by = "Compute";
        out->bound_intensity = out->intensity;
    }
    /* HBM always; the on-chip memories on a TPU when the op used them */
    for (int k = 0; k < PV_MEM_COUNT; k++) {
        if (k != PV_MEM_HBM && (e->kind != PV_DEVICE_TPU || mem[k] <= 0))
            continue;
        double peak = e->peak_bw_gbps[peak_of_mem[k]];
        double u = ratio(out->bw[k], pv_gb_to_gib(peak));
        if (peak > 0 && u > best) {
            best = u;
            out->bound_by = mem_names[k];
            out->bound_intensity = out->mem_intensity[k];
        }
    }
    if (e->kind == PV_DEVICE_GPU) {
        double u = ratio(out->bw[PV_MEM_HBM], pv_gb_to_gib(e->peak_bw_gbps[PV_BW_SRAM_WR]));
        if (e->peak_bw_gbps[PV_BW_SRAM_WR] > 0 && u > best) {
            best = u;
            out->bound_by = "Shm/L1";
            out->bound_intensity = out->mem_intensity[PV_MEM_HBM];
        }
    }
    out->bound_utilization = best;
}
