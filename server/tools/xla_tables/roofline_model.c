/* roofline_model: XProf's roofline table
 * (xprof/convert/op_stats_to_roofline_model.cc). For the whole profile,
 * with and then without infeed and outfeed ops: a "Program" row (the
 * innermost ops' flops and bytes over the device time, idle included),
 * then a row per op by self time (at most 1000), each with its rates, its
 * share of the time, what bounds it and how close it runs to its roof
 * (roofline efficiency: the larger of its FLOP rate and its busiest
 * memory's bandwidth as shares of their peaks). A TPU profile adds an
 * "Average" program row over its complete steps, and every profile a
 * program row per step; XProf fills those from per-step op metrics only a
 * TPU's step lines give, which these traces do not have: they are zeros,
 * as XProf writes them. The device's peaks and ridge points (peak FLOP/s
 * over the bandwidth in GB/s) are the table's properties; a GPU's table
 * names its shared memory "vmem write" and leaves out the TPU's other
 * memories. The second table warns when the profile has no steps. */
#include "tools/xla_tables/xla_tables.h"

#include "tools/common/datatable.h"
#include "tools/hlo/op_roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_RECORDS 1000

/* Columns of the TPU table; the GPU table has those marked gpu. */
static const struct {
    const char *id, *type, *label, *gpu_label;
} cols[] = {
    {"step", "string", "Step", "Step"},
    {"rank", "number", "Rank", "Rank"},
    {"category", "string", "Category", "Category"},
    {"operation", "string", "Operation", "Operation"},
    {"occurrences", "number", "# Occurrences", "# Occurrences"},
    {"total_time", "number", "Total Time (us)", "Total Time (us)"},
    {"avg_time", "number", "Avg. time (us)", "Avg. time (us)"},
    {"total_self_time", "number", "Total self time (us)", "Total self time (us)"},
    {"avg_self_time", "number", "Avg. self time (us)", "Avg. self time (us)"},
    {"total_self_time_percent", "number", "Total self time (%)", "Total self time (%)"},
    {"cumulative_total_self_time_percent", "number", "Cumulative total self time (%)",
     "Cumulative total self time (%)"},
    {"dma_stall_percent", "number", "%time stalled by DMA", NULL},
    {"measured_flop_rate", "number", "Normalized FLOP Rate (GFLOP/s)",
     "Normalized FLOP Rate (GFLOP/s)"},
    {"model_flop_rate", "number", "Model FLOP Rate (GFLOP/s)", "Model FLOP Rate (GFLOP/s)"},
    {"measured_memory_bw", "number", "Memory BW (GiB/s)", "Memory BW (GiB/s)"},
    {"hbm_bw", "number", "HBM BW (GiB/s)", "HBM BW (GiB/s)"},
    {"cmem_read_bw", "number", "CMEM Read BW (GiB/s)", NULL},
    {"cmem_write_bw", "number", "CMEM Write BW (GiB/s)", NULL},
    {"vmem_read_bw", "number", "VMEM Read BW (GiB/s)", NULL},
    {"vmem_write_bw", "number", "VMEM Write BW (GiB/s)", "SHM/L1 BW (GiB/s)"},
    {"operational_intensity", "number", "Operational Intensity (FLOP/Byte)",
     "Operational Intensity (FLOP/Byte)"},
    {"hbm_operational_intensity", "number", "HBM Operational Intensity (FLOP/Byte)",
     "HBM Operational Intensity (FLOP/Byte)"},
    {"cmem_read_operational_intensity", "number", "CMEM Read Operational Intensity (FLOP/Byte)",
     NULL},
    {"cmem_write_operational_intensity", "number",
     "CMEM Write Operational Intensity (FLOP/Byte)", NULL},
    {"vmem_read_operational_intensity", "number", "VMEM Read Operational Intensity (FLOP/Byte)",
     NULL},
    {"vmem_write_operational_intensity", "number",
     "VMEM Write Operational Intensity (FLOP/Byte)",
     "SHM/L1 Operational Intensity (FLOP/Byte)"},
    {"bottleneck_operational_intensity", "number", "Bottleneck Operational Intensity (FLOP/Byte)",
     "Bottleneck Operational Intensity (FLOP/Byte)"},
    {"bound_by", "string", "Bound by", "Bound by"},
    {"total_time_per_core", "number", "Total Time per core (us)", "Total Time per core (us)"},
    {"total_time_in_percentage", "number", "Total Time (%)", "Total Time (%)"},
    {"optimal_flop_rate", "number", "Optimal FLOP Rate (GFLOP/s)", "Optimal FLOP Rate (GFLOP/s)"},
    {"roofline_efficiency", "number", "Roofline efficiency (%)", "Roofline efficiency (%)"},
    {"compute_efficiency", "number", "FLOP Rate / Peak (%)", "FLOP Rate / Peak (%)"},
    {"max_mem_bw_utilization", "number",
     "Max memory BW utilization (among supported memories) (%)",
     "Max memory BW utilization (among supported memories) (%)"},
    {"include_infeed_outfeed", "boolean", "Include Infeed/Outfeed", "Include Infeed/Outfeed"},
    {"hlo_module_id", "string", "Program ID", "Program ID"},
    {"source_info", "string", "Source Info", "Source Info"},
};
#define N_COLS (sizeof cols / sizeof cols[0])

/* The table's peaks in the units it shows (GFLOP/s, GiB/s). */
typedef struct roof {
    bool gpu;
    double peak_flops, hbm, cmem_rd, cmem_wr, vmem_rd, vmem_wr;
    bool has_cmem, has_merged_vmem;
    unsigned cores;
} roof;

static double ratio(double a, double b)
{
    return b != 0 ? a / b : 0;
}

static bool is_feed(const char *category)
{
    return strstr(category, "infeed") != NULL || strstr(category, "outfeed") != NULL;
}

/* Ops whose time holds other ops' (a loop, a call): the program row adds
 * only the innermost ops' flops and bytes. */
static bool has_inner_ops(const char *category)
{
    return strcmp(category, "while") == 0 || strcmp(category, "call") == 0 ||
           strcmp(category, "conditional") == 0 || strcmp(category, "megacore fusion") == 0;
}

/* One row's values, id by id (NULL cell: not in the GPU table). */
typedef struct record {
    const char *step, *category, *name, *source;
    double rank, occurrences, time_us, self_us, self_share, cum_share;
    uint64_t program_id;
    pv_op_roofline r;
    double share_of_time;
    bool feeds;
} record;

static void add_row(json_t *t, const roof *rf, const record *rec, pv_arena *a)
{
    const pv_op_roofline *r = &rec->r;
    double flops_util = ratio(r->flop_rate, rf->peak_flops);
    double mem_util = ratio(r->bw[PV_MEM_HBM], rf->hbm);
    if (rf->has_cmem) {
        mem_util = fmax(mem_util, ratio(r->bw[PV_MEM_CMEM_RD], rf->cmem_rd));
        mem_util = fmax(mem_util, ratio(r->bw[PV_MEM_CMEM_WR], rf->cmem_wr));
    }
    if (rf->has_merged_vmem) {
        mem_util = fmax(mem_util, ratio(r->bw[PV_MEM_VMEM_RD], rf->vmem_rd));
        mem_util = fmax(mem_util, ratio(r->bw[PV_MEM_VMEM_WR], rf->vmem_wr));
    }
    double efficiency = fmax(mem_util, flops_util);
    double n = rec->occurrences;
    double v[N_COLS];
    const char *s[N_COLS];
    memset(s, 0, sizeof s);
    s[0] = rec->step;
    v[1] = rec->rank;
    s[2] = rec->category;
    s[3] = rec->name;
    v[4] = n;
    v[5] = rec->time_us;
    v[6] = ratio(rec->time_us, n);
    v[7] = rec->self_us;
    v[8] = ratio(rec->self_us, n);
    v[9] = rec->self_share;
    v[10] = rec->cum_share;
    v[11] = 0;
    v[12] = r->flop_rate;
    v[13] = r->model_flop_rate;
    v[14] = r->memory_bw;
    v[15] = r->bw[PV_MEM_HBM];
    v[16] = r->bw[PV_MEM_CMEM_RD];
    v[17] = r->bw[PV_MEM_CMEM_WR];
    v[18] = r->bw[PV_MEM_VMEM_RD];
    v[19] = r->bw[PV_MEM_VMEM_WR];
    v[20] = r->intensity;
    v[21] = r->mem_intensity[PV_MEM_HBM];
    v[22] = r->mem_intensity[PV_MEM_CMEM_RD];
    v[23] = r->mem_intensity[PV_MEM_CMEM_WR];
    v[24] = r->mem_intensity[PV_MEM_VMEM_RD];
    v[25] = r->mem_intensity[PV_MEM_VMEM_WR];
    v[26] = r->bound_intensity;
    s[27] = r->bound_by;
    v[28] = ratio(rec->time_us, rf->cores);
    v[29] = rec->share_of_time;
    v[30] = ratio(r->flop_rate, efficiency);
    v[31] = efficiency;
    v[32] = flops_util;
    v[33] = mem_util;
    v[34] = rec->feeds;
    s[35] = pv_arena_printf(a, "%llu", (unsigned long long)rec->program_id);
    s[36] = rec->source;
    json_t *row = pv_dt_row(t);
    for (size_t c = 0; c < N_COLS; c++) {
        if (rf->gpu && cols[c].gpu_label == NULL)
            continue;
        if (strcmp(cols[c].type, "string") == 0)
            pv_dt_str(row, s[c]);
        else if (strcmp(cols[c].type, "boolean") == 0)
            pv_dt_bool(row, v[c] != 0);
        else
            pv_dt_num(row, v[c]);
    }
}

/* The program row of a record type ("Total", "Average", a step number):
 * for "Total" the innermost ops' flops and bytes over the device's time
 * (less the feeds' when they are left out); zeros for the others. */
static void program_row(json_t *t, const roof *rf, const pv_xla_op_db *db, bool feeds,
                        const char *step, pv_arena *a)
{
    pv_xla_op prog;
    memset(&prog, 0, sizeof prog);
    prog.name = prog.category = "Program";
    prog.occurrences = 1;
    bool total = strcmp(step, "Total") == 0;
    uint64_t feed_ps = 0;
    for (size_t i = 0; total && i < db->n_ops; i++) {
        const pv_xla_op *op = &db->ops[i];
        if (has_inner_ops(op->category))
            continue;
        if (!feeds && is_feed(op->category)) {
            feed_ps += op->time_ps;
            continue;
        }
        prog.flops += op->flops;
        prog.model_flops += op->model_flops;
        prog.bytes += op->bytes;
        for (int k = 0; k < PV_MEM_COUNT; k++)
            prog.mem_bytes[k] += op->mem_bytes[k];
        prog.has_mem_breakdown = prog.has_mem_breakdown || op->has_mem_breakdown;
    }
    prog.time_ps = total ? db->total_time_ps - feed_ps : 0;
    double us = (double)prog.time_ps / 1e6;
    record rec = {.step = step,
                  .category = "Program",
                  .name = "Program",
                  .source = "",
                  .occurrences = 1,
                  .time_us = us,
                  .share_of_time = total ? 1 : 0,
                  .feeds = feeds};
    pv_op_roofline_of(&prog, &db->env, &rec.r);
    add_row(t, rf, &rec, a);
}

static void op_rows(json_t *t, const roof *rf, const pv_xla_op_db *db, bool feeds, pv_arena *a)
{
    uint64_t feed_ps = 0;
    for (size_t i = 0; !feeds && i < db->n_ops; i++)
        if (is_feed(db->ops[i].category))
            feed_ps += db->ops[i].time_ps;
    uint64_t total = db->total_time_ps - feed_ps;
    double total_us = (double)total / 1e6, cum = 0;
    unsigned rank = 0;
    for (size_t i = 0; i < db->n_ops && rank < MAX_RECORDS; i++) {
        const pv_xla_op *op = &db->ops[i];
        if (op->occurrences == 0 || (!feeds && is_feed(op->category)))
            continue;
        double self_us = (double)op->self_time_ps / 1e6;
        double share = ratio(self_us, total_us);
        cum += share;
        record rec = {.step = "Total",
                      .category = op->category,
                      .name = op->name,
                      .source = pv_xla_op_source_html(op, a),
                      .rank = ++rank,
                      .occurrences = (double)op->occurrences,
                      .time_us = (double)op->time_ps / 1e6,
                      .self_us = self_us,
                      .self_share = share,
                      .cum_share = cum,
                      .program_id = op->program_id,
                      .share_of_time = ratio((double)op->time_ps, (double)total),
                      .feeds = feeds};
        pv_op_roofline_of(op, &db->env, &rec.r);
        add_row(t, rf, &rec, a);
    }
}

static void prop_num(json_t *t, const char *key, double v)
{
    /* printed as XProf's absl::StrCat prints a double: six significant
     * digits, no trailing zeros */
    char buf[64];
    snprintf(buf, sizeof buf, "%.6g", v);
    pv_dt_prop(t, key, buf);
}

/* The diagnostics table; its one warning when a device ran without step
 * markers. */
static json_t *diagnostics(bool no_steps)
{
    json_t *t = pv_dt_new();
    pv_dt_col(t, "severity", "string", "Severity", NULL);
    pv_dt_col(t, "message", "string", "Message", NULL);
    if (!no_steps)
        return t;
    json_t *row = pv_dt_row(t);
    pv_dt_str(row, "WARNING");
    pv_dt_str(row, "No step marker observed and hence the step time is unknown. This may "
                   "happen if (1) training steps are not instrumented (e.g., if you are not "
                   "using Keras) or (2) the profiling duration is shorter than the step time. "
                   "For (1), you need to add step instrumentation; for (2), you may try to "
                   "profile longer.");
    return t;
}

/* A ridge point as XProf prints it: GFLOP/s over a bandwidth given in
 * GiB/s, taken back to GB/s. */
static double ridge(double peak_flops, double bw_gib)
{
    return ratio(peak_flops, bw_gib * 1073741824.0 / 1e9);
}

json_t *pv_roofline_model_tables(const pv_xla_op_db *db, const pv_roofline_ctx *ctx,
                                 pv_arena *a)
{
    const pv_perf_env *e = &db->env;
    roof rf = {e->kind == PV_DEVICE_GPU, e->peak_tflops * 1e3,
               pv_gb_to_gib(e->peak_bw_gbps[PV_BW_HBM]), 0, 0, 0, 0, false, false,
               ctx->device_cores};
    if (e->kind == PV_DEVICE_TPU) {
        rf.has_cmem = e->peak_bw_gbps[PV_BW_CMEM_RD] > 0 || e->peak_bw_gbps[PV_BW_CMEM_WR] > 0;
        rf.has_merged_vmem = e->has_merged_vmem;
        if (rf.has_cmem) {
            rf.cmem_rd = pv_gb_to_gib(e->peak_bw_gbps[PV_BW_CMEM_RD]);
            rf.cmem_wr = pv_gb_to_gib(e->peak_bw_gbps[PV_BW_CMEM_WR]);
        } else if (rf.has_merged_vmem) {
            rf.vmem_rd = pv_gb_to_gib(e->peak_bw_gbps[PV_BW_VMEM_RD]);
            rf.vmem_wr = pv_gb_to_gib(e->peak_bw_gbps[PV_BW_VMEM_WR]);
        }
    } else if (e->kind == PV_DEVICE_GPU) {
        rf.has_merged_vmem = true;
        rf.vmem_rd = pv_gb_to_gib(e->peak_bw_gbps[PV_BW_SRAM_RD]);
        rf.vmem_wr = pv_gb_to_gib(e->peak_bw_gbps[PV_BW_SRAM_WR]);
    }
    json_t *t = pv_dt_new();
    for (size_t c = 0; c < N_COLS; c++)
        if (!rf.gpu || cols[c].gpu_label != NULL)
            pv_dt_col(t, cols[c].id, cols[c].type, rf.gpu ? cols[c].gpu_label : cols[c].label,
                      NULL);
    if (e->kind != PV_DEVICE_NONE) {
        for (int feeds = 1; feeds >= 0; feeds--) {
            program_row(t, &rf, db, feeds != 0, "Total", a);
            op_rows(t, &rf, db, feeds != 0, a);
            if (e->kind == PV_DEVICE_TPU)
                program_row(t, &rf, db, feeds != 0, "Average", a);
            for (size_t k = 0; k < ctx->n_steps; k++)
                program_row(t, &rf, db, feeds != 0,
                            pv_arena_printf(a, "%lld", (long long)ctx->step_nums[k]), a);
        }
    }
    pv_dt_prop(t, "device_type", ctx->device_type);
    if (!rf.gpu) {
        pv_dt_prop(t, "megacore", e->has_megacore ? "1" : "0");
        pv_dt_prop(t, "has_cmem", rf.has_cmem ? "1" : "0");
        pv_dt_prop(t, "has_merged_vmem", rf.has_merged_vmem ? "1" : "0");
    }
    prop_num(t, "peak_flop_rate", rf.peak_flops);
    prop_num(t, "peak_hbm_bw", rf.hbm);
    if (!rf.gpu) {
        prop_num(t, "peak_cmem_read_bw", rf.cmem_rd);
        prop_num(t, "peak_cmem_write_bw", rf.cmem_wr);
        prop_num(t, "peak_vmem_read_bw", rf.vmem_rd);
    }
    prop_num(t, "peak_vmem_write_bw", rf.vmem_wr);
    prop_num(t, "hbm_ridge_point", ridge(rf.peak_flops, rf.hbm));
    if (!rf.gpu) {
        prop_num(t, "cmem_read_ridge_point", ridge(rf.peak_flops, rf.cmem_rd));
        prop_num(t, "cmem_write_ridge_point", ridge(rf.peak_flops, rf.cmem_wr));
        prop_num(t, "vmem_read_ridge_point", ridge(rf.peak_flops, rf.vmem_rd));
    }
    prop_num(t, "vmem_write_ridge_point", ridge(rf.peak_flops, rf.vmem_wr));
    if (!rf.gpu)
        prop_num(t, "time_scale_multiplier", e->kind == PV_DEVICE_TPU ? 1 : 0);
    json_t *out = json_array();
    json_array_append_new(out, t);
    json_array_append_new(out, diagnostics(ctx->n_steps == 0 && e->kind != PV_DEVICE_NONE));
    return out;
}
