/* op_profile_json: the op tree in XProf's Profile JSON (op_profile.proto
 * as the plugin prints it). A node's metrics are what the page divides:
 * rawTime (ps), rawFlops (model flops) and bf16Flops (device flops),
 * rawBytesAccessedArray (HBM, on-chip read, on-chip write), occurrences
 * and avgTimePs, and utilizations: flops is the FLOP rate's share of the
 * peak (at most 1) times the node's share of the root's time (the page
 * divides it back), bandwidthUtils each memory's bandwidth as a share of
 * its peak (at most 1). */
#include "tools/op_profile/op_profile.h"

#include "tools/hlo/op_roofline.h"

#include <stdio.h>
#include <string.h>

static double ratio(double a, double b)
{
    return b != 0 ? a / b : 0;
}

static double cap(double u)
{
    return u < 1 ? u : 1;
}

static json_t *metrics_json(const pv_op_node *n, const pv_perf_env *e, uint64_t root_ps)
{
    double ns = (double)n->time_ps / 1e3;
    double share = ratio((double)n->time_ps, (double)root_ps);
    /* XProf 2.24.2 divides the flops by the time at the nominal clock where
     * there is one (a TPU's; the root's leaves IDLE out, so its rate is the
     * busy time's), by the time otherwise (GPU and CPU ops state none) */
    double flop_ns = n->normalized_ps != 0 ? (double)n->normalized_ps / 1e3 : ns;
    double uncapped = ratio(ratio(n->flops, flop_ns), e->peak_tflops * 1e3);
    double bytes[3] = {n->mem_bytes[PV_MEM_HBM], n->mem_bytes[PV_MEM_CMEM_RD] +
                                                     n->mem_bytes[PV_MEM_VMEM_RD],
                       n->mem_bytes[PV_MEM_CMEM_WR] + n->mem_bytes[PV_MEM_VMEM_WR]};
    static const int peaks[3] = {PV_BW_HBM, PV_BW_SRAM_RD, PV_BW_SRAM_WR};
    json_t *bw = json_array(), *raw = json_array();
    for (int k = 0; k < 3; k++) {
        double gib = pv_gb_to_gib(ratio(bytes[k], ns));
        json_array_append_new(bw, json_real(cap(ratio(gib, pv_gb_to_gib(e->peak_bw_gbps[peaks[k]])))));
        json_array_append_new(raw, json_real(bytes[k]));
    }
    return json_pack("{s:f, s:o, s:I, s:f, s:o, s:I, s:f, s:f, s:f, s:I}", "flops",
                     cap(uncapped) * share, "bandwidthUtils", bw, "rawTime",
                     (json_int_t)n->time_ps, "rawFlops", n->model_flops, "rawBytesAccessedArray",
                     raw, "occurrences", (json_int_t)n->occurrences, "avgTimePs",
                     ratio((double)n->time_ps, (double)n->occurrences), "bf16Flops", n->flops,
                     "uncappedFlops", uncapped * share, "normalizedTimePs", (json_int_t)n->normalized_ps);
}

/* A duplicates group shows its first op's details, but no framework op
 * for a fusion (XProf: the fusions it groups may come from several). */
static json_t *xla_json(const pv_xla_op *op, bool dedup_group)
{
    const char *provenance =
        dedup_group && strstr(op->category, "fusion") != NULL ? "" : op->provenance;
    char program[32];
    snprintf(program, sizeof program, "%llu", (unsigned long long)op->program_id);
    json_t *src = json_pack("{s:s, s:i, s:s}", "fileName", op->source_file, "lineNumber",
                            op->is_idle ? 0 : (int)op->source_line, "stackFrame", op->source_stack);
    return json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:o, s:s}", "op", "", "expression",
                     op->expression, "provenance", provenance, "category", op->category,
                     "computationPrimitiveSize", 0, "fingerprint", "0", "programId", program,
                     "sourceInfo", src, "xprofKernelMetadata", "");
}

static json_t *node_json(const pv_op_node *n, const pv_perf_env *e, uint64_t root_ps)
{
    json_t *children = json_array();
    for (size_t i = 0; i < n->n_children; i++)
        json_array_append_new(children, node_json(n->children[i], e, root_ps));
    json_t *j = json_pack("{s:s, s:o, s:o, s:I}", "name", n->name, "metrics",
                          metrics_json(n, e, root_ps), "children", children, "numChildren",
                          (json_int_t)n->num_children);
    if (n->op != NULL && j != NULL)
        json_object_set_new(j, "xla", xla_json(n->op, n->dedup_group));
    return j;
}

json_t *pv_op_profile_to_json(const pv_op_profile *p, const char *device_type)
{
    const char *key = p->grouping == PV_OP_PROFILE_BY_PROGRAM ? "byProgram" : "byCategory";
    const char *key_ex =
        p->grouping == PV_OP_PROFILE_BY_PROGRAM ? "byProgramExcludeIdle" : "byCategoryExcludeIdle";
    json_t *j = json_object();
    json_object_set_new(j, key, node_json(p->root, p->env, p->total_time_ps));
    json_object_set_new(j, key_ex, node_json(p->root_exclude_idle, p->env,
                                             p->total_time_ps - p->idle_ps));
    json_object_set_new(j, "deviceType", json_string(device_type));
    /* normalized over plain op time: 1 on a TPU, which scales its clock,
     * 0 where nothing was normalized */
    json_object_set_new(j, "aggDvfsTimeScaleMultiplier",
                        json_integer(p->env->kind == PV_DEVICE_TPU ? 1 : 0));
    return j;
}
