/* perf_env: peaks from a device plane's capability stats (perf_env.h).
 * The per-core-per-cycle rates below are the vendors' published figures
 * (AMD's CDNA whitepapers' FLOPS/clock/CU tables, NVIDIA's architecture
 * whitepapers' dense Tensor Core rates divided by SMs and boost clock). */
#include "tools/hlo/perf_env.h"

#include "tools/common/plane_stat.h"

#include <string.h>

/* The FLOPs one core (SM, CU) can do per cycle at best, and the shared
 * memory (LDS) bytes it can move per cycle. */
typedef struct core_rate {
    double flops_per_cycle;
    double shm_bytes_per_cycle;
} core_rate;

/* AMD CDNA by gfx version: the largest of the fp32/fp16 vector and matrix
 * rates (the fp16 matrix rate), LDS of 32 (CDNA 4: 64) four-byte banks. */
static core_rate amd_rate(const char *gfx)
{
    static const struct {
        const char *gfx;
        core_rate r;
    } t[] = {
        {"gfx908", {1024, 128}},   /* MI100, CDNA 1 */
        {"gfx90a", {1024, 128}},   /* MI200, CDNA 2 */
        {"gfx942", {2048, 128}},   /* MI300, CDNA 3 */
        {"gfx950", {4096, 256}},   /* MI350, CDNA 4 */
    };
    for (size_t i = 0; gfx != NULL && i < sizeof t / sizeof t[0]; i++)
        if (strcmp(gfx, t[i].gfx) == 0)
            return t[i].r;
    return (core_rate){0, 0};
}

/* NVIDIA by compute capability: the dense fp16 Tensor Core rate per SM,
 * 32 four-byte shared memory banks per SM. */
static core_rate nvidia_rate(int major, int minor)
{
    double f = 0;
    switch (major) {
    case 7: f = 1024; break;                      /* Volta, Turing */
    case 8: f = minor == 0 ? 2048 : 1024; break;  /* A100; GA10x, Ada */
    case 9: f = 4096; break;                      /* Hopper */
    case 10: f = 8192; break;                     /* Blackwell */
    default: f = 0; break;
    }
    return (core_rate){f, f > 0 ? 128 : 0};
}

/* The gfx version of an AMD plane: its device name when it is one
 * ("gfx942"), else the one architecture its compute capability names. */
static const char *amd_gfx(const char *device_name, int major, int minor)
{
    if (device_name != NULL && strncmp(device_name, "gfx", 3) == 0 && strlen(device_name) >= 6)
        return device_name;
    if (major == 9 && minor == 4)
        return "gfx942";
    if (major == 9 && minor == 5)
        return "gfx950";
    return NULL;
}

static double stat_or_0(const pv_model *m, const pv_plane *p, const char *name)
{
    double v = 0;
    pv_plane_stat_num(m, p, pv_model_str_find(m, name), &v);
    return v;
}

static void gpu_env(const pv_model *m, const pv_plane *p, pv_perf_env *out)
{
    double clock_ghz = stat_or_0(m, p, "clock_rate") / 1e6;   /* stated in kHz */
    double cores = stat_or_0(m, p, "core_count");
    int major = (int)stat_or_0(m, p, "compute_cap_major");
    int minor = (int)stat_or_0(m, p, "compute_cap_minor");
    const char *vendor = pv_plane_stat_str(m, p, pv_model_str_find(m, "device_vendor"));
    core_rate r = {0, 0};
    if (vendor != NULL && strcmp(vendor, "AMD") == 0)
        r = amd_rate(amd_gfx(pv_plane_stat_str(m, p, pv_model_str_find(m, "gpu_device_name")),
                             major, minor));
    else if (vendor != NULL && strcmp(vendor, "Nvidia") == 0)
        r = nvidia_rate(major, minor);
    out->peak_tflops = stat_or_0(m, p, "peak_teraflops_per_second");
    if (out->peak_tflops <= 0)
        out->peak_tflops = cores * clock_ghz * r.flops_per_cycle / 1e3;
    out->peak_bw_gbps[PV_BW_HBM] = stat_or_0(m, p, "memory_bandwidth") / 1e9;
    double shm = cores * clock_ghz * r.shm_bytes_per_cycle;
    double rd = stat_or_0(m, p, "peak_sram_rd_bw_gigabytes_per_second");
    double wr = stat_or_0(m, p, "peak_sram_wr_bw_gigabytes_per_second");
    out->peak_bw_gbps[PV_BW_SRAM_RD] = rd > 0 ? rd : shm;
    out->peak_bw_gbps[PV_BW_SRAM_WR] = wr > 0 ? wr : shm;
    out->n_bws = 3;
}

static void tpu_env(const pv_model *m, const pv_plane *p, pv_perf_env *out)
{
    static const char *const names[PV_BW_COUNT] = {
        "peak_hbm_bw_gigabytes_per_second",     "peak_sram_rd_bw_gigabytes_per_second",
        "peak_sram_wr_bw_gigabytes_per_second", "peak_cmem_rd_bw_gigabytes_per_second",
        "peak_cmem_wr_bw_gigabytes_per_second", "peak_vmem_rd_bw_gigabytes_per_second",
        "peak_vmem_wr_bw_gigabytes_per_second"};
    out->peak_tflops = stat_or_0(m, p, "peak_teraflops_per_second");
    for (int k = 0; k < PV_BW_COUNT; k++)
        out->peak_bw_gbps[k] = stat_or_0(m, p, names[k]);
    out->has_merged_vmem = stat_or_0(m, p, "has_merged_vmem") != 0;
    out->has_megacore = stat_or_0(m, p, "has_megacore") != 0;
    out->n_bws = PV_BW_COUNT;
}

void pv_perf_env_of(const pv_model *m, pv_perf_env *out)
{
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < m->n_planes; i++) {
        const pv_plane *p = &m->planes[i];
        if (p->kind == PV_PLANE_TPU) {
            out->kind = PV_DEVICE_TPU;
            tpu_env(m, p, out);
            return;
        }
        if (p->kind == PV_PLANE_GPU) {
            out->kind = PV_DEVICE_GPU;
            gpu_env(m, p, out);
            return;
        }
    }
}

double pv_perf_env_ridge(const pv_perf_env *e, int bw)
{
    double b = bw >= 0 && bw < PV_BW_COUNT ? e->peak_bw_gbps[bw] : 0;
    return b > 0 ? e->peak_tflops * 1e3 / b : 0;
}
