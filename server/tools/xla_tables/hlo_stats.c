/* hlo_stats: XProf's HLO op stats table (xprof/convert/op_stats_to_hlo_stats.cc):
 * one row per XLA op that ran on the device, by self time, with its
 * program, category, name and text, framework op, occurrences, times,
 * shares of the device's time (idle included), FLOP rates, bandwidths,
 * intensity, what bounds it, and its source. IDLE is not a row. */
#include "tools/xla_tables/xla_tables.h"

#include "tools/common/datatable.h"
#include "tools/hlo/op_roofline.h"

#include <string.h>

static const char *const cols[][3] = {
    {"rank", "number", "Rank"},
    {"program_id", "string", "Program id"},
    {"category", "string", "HLO op category"},
    {"hlo_op_name", "string", "HLO op name"},
    {"hlo_op_expression", "string", "HLO op text"},
    {"tf_op_name", "string", "Framework op name"},
    {"occurrences", "number", "#Occurrences"},
    {"total_time", "number", "Total time (us)"},
    {"avg_time", "number", "Avg. time (us)"},
    {"total_self_time", "number", "Total self time (us)"},
    {"avg_self_time", "number", "Avg. self time (us)"},
    {"total_self_time_percent", "number", "Total self time (%)"},
    {"cumulative_total_self_time_percent", "number", "Cumulative total self time (%)"},
    {"dma_stall_percent", "number", "%time stalled by DMA"},
    {"model_flop_rate", "number", "Model GFLOP/s"},
    {"normalized_flop_rate", "number", "Normalized GFLOP/s"},
    {"measured_memory_bw", "number", "Measured memory BW (GiB/s)"},
    {"hbm_bw", "number", "HBM BW (GiB/s)"},
    {"cmem_read_bw", "number", "CMEM Read BW (GiB/s)"},
    {"cmem_write_bw", "number", "CMEM Write BW (GiB/s)"},
    {"operational_intensity", "number", "Operational intensity (FLOPS/Byte)"},
    {"bound_by", "string", "Bound by"},
    {"hlo_rematerialization", "string", "Rematerialization"},
    {"outside_compilation", "string", "Outside Compilation"},
    {"autotuned", "string", "Autotuned"},
    {"source_info", "string", "Source Info"},
    {"core_type", "string", "TPU core type"},
    {"parent_op_name", "string", "Parent op name"},
    {"vdd_energy", "number", "VDD Energy (J)"},
};

bool pv_xla_op_is_remat(const pv_xla_op *op)
{
    /* ".remat" in the instruction's name (the text before " = "), or a
     * framework op inside a rematted computation */
    const char *eq = strchr(op->expression, '=');
    size_t n = eq != NULL ? (size_t)(eq - op->expression) : strlen(op->expression);
    for (size_t i = 0; i + 6 <= n; i++)
        if (memcmp(op->expression + i, ".remat", 6) == 0)
            return true;
    return strstr(op->provenance, "/rematted_computation/") != NULL;
}

bool pv_xla_op_is_outside_compilation(const pv_xla_op *op)
{
    size_t n = strlen(op->provenance);
    static const char suffix[] = ":XlaSendToHost";
    return n >= sizeof suffix - 1 && strcmp(op->provenance + n - (sizeof suffix - 1), suffix) == 0;
}

json_t *pv_hlo_stats_table(const pv_xla_op_db *db, pv_arena *a)
{
    json_t *t = pv_dt_new();
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        pv_dt_col(t, cols[c][0], cols[c][1], cols[c][2], NULL);
    double total_us = (double)db->total_time_ps / 1e6;
    double cum = 0;
    unsigned rank = 0;
    for (size_t i = 0; i < db->n_ops; i++) {
        const pv_xla_op *op = &db->ops[i];
        if (op->occurrences == 0)
            continue;
        pv_op_roofline r;
        pv_op_roofline_of(op, &db->env, &r);
        double n = (double)op->occurrences;
        double time_us = (double)op->time_ps / 1e6, self_us = (double)op->self_time_ps / 1e6;
        double share = total_us > 0 ? self_us / total_us : 0;
        cum += share;
        json_t *row = pv_dt_row(t);
        pv_dt_num(row, ++rank);
        pv_dt_str(row, pv_arena_printf(a, "%llu", (unsigned long long)op->program_id));
        pv_dt_str(row, op->category);
        pv_dt_str(row, op->name);
        pv_dt_str(row, op->expression[0] != '\0' ? op->expression : op->name);
        pv_dt_str(row, op->provenance);
        pv_dt_num(row, n);
        pv_dt_num(row, time_us);
        pv_dt_num(row, time_us / n);
        pv_dt_num(row, self_us);
        pv_dt_num(row, self_us / n);
        pv_dt_num(row, share * 100);
        pv_dt_num(row, cum * 100);
        pv_dt_num(row, 0);   /* DMA stalls: no trace here states them */
        pv_dt_num(row, r.model_flop_rate);
        pv_dt_num(row, r.flop_rate);
        pv_dt_num(row, r.memory_bw);
        pv_dt_num(row, r.bw[PV_MEM_HBM]);
        pv_dt_num(row, r.bw[PV_MEM_CMEM_RD]);
        pv_dt_num(row, r.bw[PV_MEM_CMEM_WR]);
        pv_dt_num(row, r.intensity);
        pv_dt_str(row, r.bound_by);
        pv_dt_str(row, pv_xla_op_is_remat(op) ? "Yes" : "No");
        pv_dt_str(row, pv_xla_op_is_outside_compilation(op) ? "Yes" : "No");
        pv_dt_str(row, "No");   /* autotuning is not in the trace */
        pv_dt_str(row, pv_xla_op_source_html(op, a));
        pv_dt_str(row, db->env.kind == PV_DEVICE_TPU ? "TensorCore" : "");
        pv_dt_str(row, "");
        pv_dt_num(row, 0);
    }
    return t;
}
