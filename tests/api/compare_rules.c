/* compare_rules: matching keys per tool, exact values, and the accepted
 * differences. Paths are the ones json_compare prints: "[1]/p/x" is member
 * p.x of the second table, "rows[key]/column" a DataTable cell.
 *
 * Every ACCEPT entry is a difference the tool's owner has explained in the
 * tool's own golden test (named in the reason) or an instability of XProf
 * recorded in tests/data/reference/README.md ("Things a comparison must
 * know"). A difference that no entry covers is a finding, not a rule to
 * add here. */
#include "compare_rules.h"

#include <stddef.h>

#define OVERVIEW_TEST "(test_overview_golden.c)"
#define MEMORY_TEST "(test_memory_profile_real.c)"
#define OP_STATS_TEST "(test_op_stats_real.c)"

#define ANALYSIS                                                                       \
    "idle, duty-cycle, roofline and TF-op shares: XProf leaves them 0 on CPU/GPU and " \
    "finds no device op in TF 2.x GPU traces; profview computes them or says "         \
    "unknown " OVERVIEW_TEST

/* TensorFlow 2.4-era GPU profiles whose kernels name their op only in the
 * "level 0" annotation. */
#define OLD_TF_GPU "shared/tf*_gpu_*"
#define NO_DEVICE_OP                                                                    \
    "old TF GPU trace: XProf finds no device op (all device time is IDLE), profview "  \
    "takes the op from the level-0 annotation; device rows, their ranks and shares "   \
    "differ " OP_STATS_TEST

/* GPU cost model gaps of the XLA tools (tools/hlo/hlo_cost.h,
 * docs/xla_tools.md). */
#define GEMM_SET "shared/jax_rocm_mi300/jax08_gemm/*"
#define GEMM_COST                                                                       \
    "cuBLAS GEMM programs: XProf 2.24.2 leaves every op of a program with a "           \
    "__cublas$gemm custom call at 0 flops and 0 bytes (XLA's GPU cost pass does not "    \
    "run on it there); profview counts the GEMM's 2*M*N*K flops and its operand and "   \
    "result bytes, and so do the totals above it (test_xla_ops.c)"
#define ELEMENTWISE_SET "shared/jax_rocm_mi300/jax08_elementwise/*"
#define ELEMENTWISE_FLOPS                                                               \
    "elementwise GPU ops: XProf charges each the cycles of XLA's per-GPU op profile "   \
    "table (668 flops per element for a bf16 sine on gfx942), profview XLA's "          \
    "device-independent count (one per element, none for a transcendental); flops, "   \
    "FLOP rates and intensities differ, bytes and times agree (test_xla_ops.c)"

/* Trace viewer gaps on the JAX device profiles (finding 3 f). */
#define TPU "shared/jax_tpu_v6e_inference/*"
#define TPU_OFFLOAD                                                                     \
    "host-offload rows: which \"Host Offload Ops row N\" a copy lands in depends on "  \
    "the order XProf's unstable sort leaves zero-length copy-done ops of the same "    \
    "picosecond in; profview takes them in file order, so the rows differ while the "  \
    "copies (start, duration, name, args) are the same 600 per TPU "                   \
    "(test_trace_derived.c)"

const pv_jc_rule pv_compare_rules[] = {
    /* ---- how rows are matched ------------------------------------------ */
    {"framework_op_stats", NULL, "*/rows", PV_JC_KEYED, "host_or_device,operation",
     "op rows are matched by side and op name, so one row more or less does not shift "
     "every row after it; rank is still compared", NULL},
    {"hlo_stats", NULL, "/rows", PV_JC_KEYED, "program_id,hlo_op_name",
     "HLO op rows are matched by program and op name: ops of equal self time may come in "
     "either order; rank is still compared", NULL},
    {"roofline_model", NULL, "\\[0\\]/rows", PV_JC_KEYED,
     "step,include_infeed_outfeed,hlo_module_id,operation",
     "roofline rows are matched by record, program and op: ops of equal self time may come "
     "in either order; rank is still compared", NULL},
    {"op_profile", NULL, "*/children", PV_JC_KEYED, "name",
     "op tree nodes are matched by name: XProf orders nodes of equal time as its partial "
     "sort leaves them", NULL},
    /* kernel_stats is compared as sums per launch configuration
     * (compare_kernels.h says why) */

    /* ---- values that must be equal, not close ------------------------------ */
    {NULL, NULL, "*/occurrences", PV_JC_EXACT, NULL, "a count", NULL},
    {"trace_viewer", NULL, "/n_events", PV_JC_EXACT, NULL, "a count", NULL},
    {"trace_viewer", NULL, "/n_with_flow", PV_JC_EXACT, NULL, "a count", NULL},
    {"trace_viewer", NULL, "/names/*", PV_JC_EXACT, NULL, "a count", NULL},
    {"trace_viewer", NULL, "/threads/*", PV_JC_EXACT, NULL, "a count", NULL},
    {"memory_profile", NULL, "*Bytes*", PV_JC_EXACT, NULL, "bytes", NULL},
    {"memory_profile", NULL, "*memoryCapacity", PV_JC_EXACT, NULL, "bytes", NULL},
    {"memory_profile", NULL, "*address", PV_JC_EXACT, NULL, "an address", NULL},
    {"memory_profile", NULL, "*Ps", PV_JC_EXACT, NULL, "a time stamp", NULL},
    {"memory_profile", NULL, "*numOccurrences", PV_JC_EXACT, NULL, "a count", NULL},
    {"memory_profile", NULL, "*Index", PV_JC_EXACT, NULL, "an index", NULL},
    /* step ids: the model numbers its step groups in XProf's order
     * (server/model/group.c, issue #2), so they must be equal. */
    {"memory_profile", NULL, "*/stepId", PV_JC_EXACT, NULL, "a step id", NULL},

    /* ---- accepted: overview page and input pipeline ---------------------- */
    {"overview_page", NULL, "\\[0\\]/p/device_duty_cycle*", PV_JC_ACCEPT, NULL, ANALYSIS, NULL},
    {"overview_page", NULL, "\\[0\\]/p/*idle_time_percent", PV_JC_ACCEPT, NULL, ANALYSIS, NULL},
    {"overview_page", OLD_TF_GPU, "\\[0\\]/p/*_tf_op_percent", PV_JC_ACCEPT, NULL,
     NO_DEVICE_OP, NULL},
    {"overview_page", NULL, "\\[0\\]/p/device_op_time_eager_percent", PV_JC_ACCEPT, NULL, ANALYSIS,
     NULL},
    {"overview_page", NULL, "\\[0\\]/p/*_relative_to_*", PV_JC_ACCEPT, NULL, ANALYSIS, NULL},
    {"overview_page", OLD_TF_GPU, "\\[0\\]/rows*", PV_JC_ACCEPT, NULL, NO_DEVICE_OP, NULL},
    {"overview_page", NULL, "\\[1\\]/p/*_sdv", PV_JC_ACCEPT, NULL,
     "one step: XProf divides 0 by 0 and prints -nan, profview 0.0 " OVERVIEW_TEST, "*nan"},
    {"input_pipeline_analyzer", NULL, "\\[1\\]/p/*_sdv", PV_JC_ACCEPT, NULL,
     "one step: XProf divides 0 by 0 and prints -nan, profview 0.0 " OVERVIEW_TEST, "*nan"},
    {"overview_page", "shared/jax_tpu_v6e_inference/*", "*", PV_JC_ACCEPT, NULL,
     "TPU: XProf draws its TPU step table, profview reads TPU planes generically "
     OVERVIEW_TEST, NULL},
    {"input_pipeline_analyzer", "shared/jax_tpu_v6e_inference/*", "*", PV_JC_ACCEPT, NULL,
     "TPU: XProf draws its TPU step table, profview reads TPU planes generically "
     OVERVIEW_TEST, NULL},

    /* ---- accepted: memory profile ---------------------------------------- */
    {"memory_profile", NULL, "*/memoryProfileSnapshots\\[*\\]/timeOffsetPs", PV_JC_ACCEPT, NULL,
     "identical allocations at the peak: XProf keeps an arbitrary one as the representative "
     "(its time, address and stats at that moment) " MEMORY_TEST, NULL},
    {"memory_profile", NULL, "*/memoryProfileSnapshots\\[*\\]/activityMetadata/address",
     PV_JC_ACCEPT, NULL,
     "identical allocations at the peak: XProf keeps an arbitrary one as the representative "
     "(its time, address and stats at that moment) " MEMORY_TEST, NULL},
    {"memory_profile", NULL, "*/memoryProfileSnapshots\\[*\\]/aggregationStats/*", PV_JC_ACCEPT,
     NULL,
     "identical allocations at the peak: XProf keeps an arbitrary one as the representative "
     "(its time, address and stats at that moment) " MEMORY_TEST, NULL},

    /* ---- trace viewer ------------------------------------------------------ */
    /* group ids: the model numbers its step groups in XProf's order
     * (server/model/group.c, issue #2), so they must be equal. */
    {"trace_viewer", NULL, "/sample/*/args/group_id", PV_JC_EXACT, NULL, "a group id", NULL},

    /* ---- accepted: trace viewer, an order XProf leaves to chance ---------- */
    /* What is left of finding 3 f (docs/compare.md): the rows the TPU's
     * host-offload copies are laid out in. Every other trace difference,
     * the derived device lines and TPU group ids included, is compared as
     * above. */
    {"trace_viewer", TPU, "/threads/*/Host Offload Ops row *", PV_JC_ACCEPT, NULL, TPU_OFFLOAD,
     NULL},
    {"trace_viewer", TPU, "/sample/*/Host Offload Ops row *@*", PV_JC_ACCEPT, NULL, TPU_OFFLOAD,
     NULL},

    /* ---- accepted: framework op stats ---------------------------------- */
    {"framework_op_stats", OLD_TF_GPU, "*/rows\\[Device|*", PV_JC_ACCEPT, NULL, NO_DEVICE_OP,
     NULL},
    {"framework_op_stats", OLD_TF_GPU, "*/rows", PV_JC_ACCEPT, NULL, NO_DEVICE_OP, NULL},
    {"framework_op_stats", OLD_TF_GPU, "*/rank", PV_JC_ACCEPT, NULL, NO_DEVICE_OP, NULL},
    {"framework_op_stats", OLD_TF_GPU, "*/host_total_self_time_percent", PV_JC_ACCEPT, NULL,
     NO_DEVICE_OP, NULL},
    {"framework_op_stats", OLD_TF_GPU, "*/Host_cumulative_total_self_time_percent",
     PV_JC_ACCEPT, NULL, NO_DEVICE_OP, NULL},
    {"framework_op_stats", OLD_TF_GPU, "\\[*\\]/p/task_type", PV_JC_ACCEPT, NULL, NO_DEVICE_OP,
     NULL},

    /* ---- accepted: the XLA tools' GPU cost model ------------------------ */
    {"hlo_stats", GEMM_SET, "/rows\\[*|custom-call.1\\]/*_flop_rate", PV_JC_ACCEPT, NULL,
     GEMM_COST, NULL},
    {"hlo_stats", GEMM_SET, "/rows\\[*|custom-call.1\\]/*_bw", PV_JC_ACCEPT, NULL, GEMM_COST,
     NULL},
    {"hlo_stats", GEMM_SET, "/rows\\[*|custom-call.1\\]/operational_intensity", PV_JC_ACCEPT,
     NULL, GEMM_COST, NULL},
    {"hlo_stats", GEMM_SET, "/rows\\[*|custom-call.1\\]/bound_by", PV_JC_ACCEPT, NULL,
     GEMM_COST, NULL},
    {"roofline_model", GEMM_SET, "\\[0\\]/rows\\[*|custom-call.1\\]/*", PV_JC_ACCEPT, NULL,
     GEMM_COST, NULL},
    {"roofline_model", GEMM_SET, "\\[0\\]/rows\\[Total|*|0|Program\\]/*", PV_JC_ACCEPT, NULL,
     GEMM_COST, NULL},
    {"op_profile", GEMM_SET, "/byProgram*/metrics/*", PV_JC_ACCEPT, NULL, GEMM_COST, NULL},
    {"op_profile", GEMM_SET, "/byProgram*/children\\[jit_dot([0-9][0-9])\\]*/metrics/*",
     PV_JC_ACCEPT, NULL, GEMM_COST, NULL},
    {"hlo_stats", ELEMENTWISE_SET, "/rows\\[*\\]/*_flop_rate", PV_JC_ACCEPT, NULL,
     ELEMENTWISE_FLOPS, NULL},
    {"hlo_stats", ELEMENTWISE_SET, "/rows\\[*\\]/operational_intensity", PV_JC_ACCEPT, NULL,
     ELEMENTWISE_FLOPS, NULL},
    {"roofline_model", ELEMENTWISE_SET, "\\[0\\]/rows\\[*\\]/*_flop_rate", PV_JC_ACCEPT, NULL,
     ELEMENTWISE_FLOPS, NULL},
    {"roofline_model", ELEMENTWISE_SET, "\\[0\\]/rows\\[*\\]/*operational_intensity",
     PV_JC_ACCEPT, NULL, ELEMENTWISE_FLOPS, NULL},
    {"roofline_model", ELEMENTWISE_SET, "\\[0\\]/rows\\[*\\]/compute_efficiency", PV_JC_ACCEPT,
     NULL, ELEMENTWISE_FLOPS, NULL},
    {"op_profile", ELEMENTWISE_SET, "*/metrics/*[fF]lops", PV_JC_ACCEPT, NULL, ELEMENTWISE_FLOPS,
     NULL},
    /* the same costs added up per framework op */
    {"framework_op_stats", GEMM_SET, "*/rows\\[Device|jit(dot)/dot_general\\]/*", PV_JC_ACCEPT,
     NULL, GEMM_COST, NULL},
    {"overview_page", GEMM_SET, "\\[0\\]/rows\\[*\\]/flopRate", PV_JC_ACCEPT, NULL, GEMM_COST,
     NULL},
    {"framework_op_stats", ELEMENTWISE_SET, "*/rows\\[Device|*\\]/*_flop_rate", PV_JC_ACCEPT,
     NULL, ELEMENTWISE_FLOPS, NULL},
    {"framework_op_stats", ELEMENTWISE_SET, "*/rows\\[Device|*\\]/operational_intensity",
     PV_JC_ACCEPT, NULL, ELEMENTWISE_FLOPS, NULL},
    {"overview_page", ELEMENTWISE_SET, "\\[0\\]/rows\\[*\\]/flopRate", PV_JC_ACCEPT, NULL,
     ELEMENTWISE_FLOPS, NULL},
    /* ---- accepted: the memory viewer's chart colors --------------------- */
    {"memory_viewer", NULL, "/bufferBlocks\\[*\\]/color", PV_JC_ACCEPT, NULL,
     "allocation chart colors: profview colors a block with its own palette (the color of "
     "its place at the peak, else its place in the chart), XProf with its 209-color table "
     "(test_memory_viewer.c)", NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL},
};
