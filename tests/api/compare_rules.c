/* compare_rules: how rows are matched, which values must be equal, and
 * the differences from XProf 2.24.2 the harness accepts. Paths are the
 * ones json_compare prints: "[1]/p/x" is member p.x of the second table,
 * "[0]/rows[key]/column" a DataTable cell; "\\[" and "\\]" match the
 * brackets literally.
 *
 * Every accepted difference (STYLE rule 23) names its tools, the profiles
 * it covers and its exact fields (wildcards only inside a row key or
 * index), the values it accepts on both sides (ref_is, ours_is: never a
 * bare "*") and the rows it may touch, with a reason true today, and is
 * one of three kinds:
 *  - deliberate: profview answers otherwise on purpose, and the test named
 *    in the reason checks profview's own answer against another oracle;
 *  - gap #16: XProf reads HLO protos, cost data and TPU planes in ways the
 *    XLA-tools issue (#16) adds; the test named in the reason shows the
 *    gap today and fails once #16 closes it, so the rule goes with it;
 *  - gap: a difference not fixed yet, with what is missing.
 * The harness fails on a rule that is too broad, on one whose tool,
 * profile or path alternative had its chance and accepted nothing, and on
 * one that touched more rows than it declares. A difference no rule
 * covers is a finding, not a rule to add here.
 *
 * Numbers agree within json_compare.h's PV_JC_REL and PV_JC_ABS (the same
 * arithmetic in another order) unless a TOLERANCE rule below says more,
 * with its reason. */
#include "compare_rules.h"

#include <stddef.h>

/* ---- profiles ---------------------------------------------------------------- */

/* Profiles without any device plane. */
#define CPU_ONLY                                                                        \
    "keras_input_bound/*, keras_input_fixed/*, tf_compute_bound/*, tf_memory/*, "       \
    "jax_train/*, multi_host/*, demo/*, shared/tf_keras_cpu_macos/*"
/* TensorFlow 2.4-era GPU profiles whose kernels name their op only in the
 * "level 0" annotation; XProf finds no device op in them. */
#define OLD_TF_GPU "shared/tf_keras_gpu_gcp/*, shared/tf2_gpu_multi_worker/*"
/* The profiles with exactly one step. */
#define ONE_STEP "shared/tf_keras_cpu_macos/*, " OLD_TF_GPU
#define ROCM "shared/jax_rocm_mi300/*"
#define TPU "shared/jax_tpu_v6e_inference/*"

/* The XLA tools' GPU cost model gaps (tools/hlo/hlo_cost.h, docs/xla_tools.md). */
#define GEMM_SET "shared/jax_rocm_mi300/jax08_gemm/*"
#define ELEMENTWISE_SET "shared/jax_rocm_mi300/jax08_elementwise/*"
#define GEMM_COST                                                                          \
    "deliberate: cuBLAS GEMM programs, XProf 2.24.2 leaves every op of a program with a "  \
    "__cublas$gemm custom call at 0 flops and 0 bytes (XLA's GPU cost pass does not run "  \
    "on it there); profview counts the GEMM's 2*M*N*K flops and its operand and result "   \
    "bytes, and so do the totals above it (test_xla_ops.c)"
#define ELEMENTWISE_FLOPS                                                                  \
    "deliberate: elementwise GPU ops, XProf charges each the cycles of XLA's per-GPU op "  \
    "profile table (668 flops per element for a bf16 sine on gfx942), profview XLA's "     \
    "device-independent count (one per element, none for a transcendental); flops, FLOP " \
    "rates and intensities differ, bytes and times agree (test_xla_ops.c)"
#define BLOCK_COLOR                                                                        \
    "deliberate: profview colors an allocation chart block with its own palette (the "     \
    "color of its place at the peak, else its place in the chart), XProf with its "        \
    "209-color table (test_memory_viewer.c)"

/* ---- values an accepted difference may take ------------------------------------ */

/* A value that starts with a digit: a number of at least 0 as
 * json_compare prints it (%.9g), or a string holding one. */
#define NUMBER "[0-9]*"
/* A share printed with its percent sign. */
#define PERCENT "[0-9]*%"
/* A chart color, "#rrggbb". */
#define COLOR "#[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]"

/* ---- reasons ------------------------------------------------------------------- */

#define XPROF_FLOAT                                                                        \
    "XProf's measured bandwidth carries single-precision rounding (relative error up to "  \
    "2^-24, 6e-8; seen up to 3e-8, on jax08_elementwise); profview computes it in double"

#define NO_DEVICE_UNKNOWN                                                                  \
    "deliberate: no device, so XProf prints 0.0% for its TPU keys (duty cycle, device "   \
    "idle, roofline use); profview says unknown rather than a made-up 0 "                 \
    "(test_pv_tool_overview_cpu_unknown)"
#define HOST_IDLE                                                                          \
    "deliberate: XProf fills host_idle_time_percent on TPUs only and prints 0.0%; "        \
    "profview gives the host's IDLE share everywhere (unknown without a host op), which "   \
    "is the IDLE row of XProf's own framework_op_stats (test_pv_tool_overview_host_idle_oracle)"
#define ONE_STEP_SDV                                                                       \
    "deliberate: one step, XProf divides 0 by 0 and prints -nan, profview prints the "     \
    "deviation of one value as 0.0 (test_pv_tool_steps_one_step)"
#define NO_DEVICE_OP                                                                       \
    "deliberate: old TF GPU trace, XProf finds no device op (its kernels name their op "   \
    "only in the level-0 annotation) and calls all device time IDLE; profview takes the "  \
    "op from that annotation, as TensorFlow's own converter did (test_op_stats_real.c), "  \
    "so device rows are added and host ranks move down"
#define DEVICE_SHARE                                                                       \
    "deliberate: old TF GPU trace, XProf counts no device op run; profview counts them "   \
    "(test_pv_tool_overview_device_share_oracle)"
#define TOP_DEVICE_OPS                                                                     \
    "deliberate: old TF GPU trace, XProf lists no top device op; profview lists those "    \
    "TensorFlow's own converter listed (test_overview_ref.c)"
#define DEVICE_EAGER                                                                       \
    "deliberate: old TF GPU trace, XProf has no device op to be eager; profview's 0.1% "   \
    "is TensorFlow's own converter's 0.094% (test_overview_ref.c)"
#define TASK_TYPE                                                                          \
    "gap: XProf calls this profile Inference though its own host table holds "             \
    "gradient_tape ops (its rule is not known here); profview's rule (a gradient scope "   \
    "in the op table, op_stats.c) says Training, as XProf does on the other TF profiles"
#define OLD_TF_KERNEL_OP                                                                   \
    "deliberate: old TF GPU trace, XProf names no kernel's op (its key has an empty op, "  \
    "so it merges the kernels of every op into one row); profview names each from its "    \
    "level-0 annotation, as TensorFlow's own converter did "                               \
    "(test_pv_tool_kernel_stats_vs_tf): our rows are merged as XProf merges them and the " \
    "op names of the merged rows shown against its empty one"
#define OLD_TF_KERNEL_ELIGIBLE                                                             \
    "deliberate: old TF GPU trace, with the op named profview can tell it TensorCore "     \
    "eligible; XProf, without an op, says false (test_pv_kernel_predicates)"
#define OLD_TF_KERNEL_SHM                                                                  \
    "deliberate: old TF GPU trace, profview reads the shared memory of the old shm: key "  \
    "of kernel_details, XProf reads only static_shared/dynamic_shared and shows 0 "        \
    "(test_pv_tool_kernel_stats_sub_microsecond)"
#define MEMORY_PICK                                                                        \
    "deliberate: identical allocations live at the peak are one row; XProf shows the "     \
    "first of them in the iteration order of its address-keyed hash table (the same in a " \
    "fresh process, not after other conversions: reference README), profview the "         \
    "earliest (test_pv_tool_memory_profile_unknown_free_and_ties); the pick's time, "      \
    "address and the heap at that moment differ, its allocation fields do not"
#define TPU_STEPS                                                                          \
    "deliberate: TPU, XProf finds no step (No step time measured), profview shows a step " \
    "per group of TPU ops in its generic step table (test_pv_tool_steps_tpu_xprof_groups)"
#define TPU_STEP_SUMMARY                                                                   \
    "gap: XProf's TPU step summary (TensorCore, SparseCore, infeed and host-transfer "     \
    "averages, all 0 here as it found no step) and its per-core infeed table; profview's " \
    "generic step table has no TPU breakdown"
#define TPU_ROOFLINE_USE                                                                   \
    "gap: XProf 2.24.2 prints 0.0% for a TPU's FLOP-rate and bandwidth use of its "        \
    "roofline (its overview computes them only when given the chip's performance limits, " \
    "which ConvertOpStatsToOverviewPage never passes); profview does not compute them for " \
    "a TPU yet and says unknown"
#define TPU_DUTY_CYCLE                                                                     \
    "gap: XProf computes a TPU's duty cycle and idle time; profview does not yet "         \
    "(unknown)"
#define TPU_OFFLOAD_ROWS                                                                   \
    "deliberate: which Host Offload Ops row a TPU copy lands in follows the order XProf's " \
    "unstable sort leaves zero-length copy-done ops of one picosecond in; profview takes " \
    "them in file order; the copies themselves are compared exactly (test_trace_derived.c)"

const pv_jc_rule pv_compare_rules[] = {
    /* ---- how rows are matched ------------------------------------------------ */
    {"framework_op_stats", NULL, "\\[*\\]/rows", PV_JC_KEYED, "host_or_device,operation",
     "op rows are matched by side and op name, so one row more or less does not shift "
     "every row after it; rank is still compared", NULL, NULL, 0, 0, 0},
    /* XProf names no op there: its rows are one per kernel and launch */
    {"kernel_stats", OLD_TF_GPU, "/rows", PV_JC_KEYED,
     "kernel_name,registers_per_thread,block_dim,grid_dim",
     "old TF GPU trace: kernel rows are matched by kernel and launch configuration, as "
     "XProf names no op there; every column, rank and op included, is compared", NULL, NULL,
     0, 0, 0},
    {"kernel_stats", NULL, "/rows", PV_JC_KEYED,
     "kernel_name,registers_per_thread,block_dim,grid_dim,op_name",
     "kernel rows are matched by kernel, launch configuration and op; every column, rank "
     "included, is compared", NULL, NULL, 0, 0, 0},
    {"hlo_stats", NULL, "/rows", PV_JC_KEYED, "program_id,hlo_op_name",
     "HLO op rows are matched by program and op name: ops of equal self time may come in "
     "either order; rank is still compared", NULL, NULL, 0, 0, 0},
    {"roofline_model", NULL, "\\[0\\]/rows", PV_JC_KEYED,
     "step,include_infeed_outfeed,hlo_module_id,operation",
     "roofline rows are matched by record, program and op: ops of equal self time may come "
     "in either order; rank is still compared", NULL, NULL, 0, 0, 0},
    {"op_profile", NULL, "*/children", PV_JC_KEYED, "name",
     "op tree nodes are matched by name: XProf orders nodes of equal time as its partial "
     "sort leaves them", NULL, NULL, 0, 0, 0},

    /* ---- values that must be equal, not close ---------------------------------- */
    {NULL, NULL, "*/occurrences", PV_JC_EXACT, NULL, "a count", NULL, NULL, 0, 0, 0},
    {"trace_viewer", NULL, "/n_events, /n_with_flow, /names/*, /threads/*", PV_JC_EXACT, NULL,
     "a count", NULL, NULL, 0, 0, 0},
    {"trace_viewer", TPU, "/offload_rows/*", PV_JC_EXACT, NULL, "a count", NULL, NULL, 0, 0, 0},
    {"trace_viewer", NULL, "/events/*/flow_partners", PV_JC_EXACT, NULL, "a count", NULL, NULL,
     0, 0, 0},
    {"trace_viewer", NULL, "/events/*/ts, /events/*/dur", PV_JC_EXACT, NULL,
     "a time: both print it to the picosecond", NULL, NULL, 0, 0, 0},
    /* group ids: the model numbers its step groups in XProf's order
     * (server/model/group.c, issue #2), so they must be equal. */
    {"trace_viewer", NULL, "/events/*/args/group_id", PV_JC_EXACT, NULL, "a group id", NULL,
     NULL, 0, 0, 0},
    {"memory_profile", NULL, "*Bytes*, *memoryCapacity", PV_JC_EXACT, NULL, "bytes", NULL,
     NULL, 0, 0, 0},
    {"memory_profile", NULL, "*address", PV_JC_EXACT, NULL, "an address", NULL, NULL, 0, 0, 0},
    {"memory_profile", NULL, "*Ps", PV_JC_EXACT, NULL, "a time stamp", NULL, NULL, 0, 0, 0},
    {"memory_profile", NULL, "*numOccurrences", PV_JC_EXACT, NULL, "a count", NULL, NULL, 0, 0,
     0},
    {"memory_profile", NULL, "*Index", PV_JC_EXACT, NULL, "an index", NULL, NULL, 0, 0, 0},
    /* step ids: the model numbers its step groups in XProf's order
     * (server/model/group.c, issue #2), so they must be equal. */
    {"memory_profile", NULL, "*/stepId", PV_JC_EXACT, NULL, "a step id", NULL, NULL, 0, 0, 0},

    /* ---- values that may differ by more than PV_JC_REL ---------------------------- */
    {"framework_op_stats, roofline_model", NULL, "\\[*\\]/rows\\[*\\]/measured_memory_bw",
     PV_JC_TOLERANCE, NULL, XPROF_FLOAT, NULL, NULL, 0, 1e-7, 0},
    {"hlo_stats", NULL, "/rows\\[*\\]/measured_memory_bw", PV_JC_TOLERANCE, NULL, XPROF_FLOAT,
     NULL, NULL, 0, 1e-7, 0},

    /* ---- accepted: overview page and input pipeline -------------------------------- */
    {"overview_page", CPU_ONLY,
     "\\[0\\]/p/device_duty_cycle_high_confidence_percent, "
     "\\[0\\]/p/device_duty_cycle_percent, \\[0\\]/p/device_idle_time_percent, "
     "\\[0\\]/p/flop_rate_utilization_relative_to_roofline, "
     "\\[0\\]/p/memory_bw_utilization_relative_to_hw_limit",
     PV_JC_ACCEPT, NULL, NO_DEVICE_UNKNOWN, "0.0%", "unknown", 9, 0, 0},
    {"overview_page", CPU_ONLY, "\\[0\\]/p/host_idle_time_percent", PV_JC_ACCEPT, NULL,
     HOST_IDLE, "0.0%", PERCENT ", unknown", 9, 0, 0},
    {"overview_page, input_pipeline_analyzer", ONE_STEP,
     "\\[1\\]/p/compile_time_ms_sdv, \\[1\\]/p/device_collectives_time_ms_sdv, "
     "\\[1\\]/p/device_compute_time_ms_sdv, \\[1\\]/p/device_to_device_time_ms_sdv, "
     "\\[1\\]/p/host_compute_time_ms_sdv, \\[1\\]/p/infeed_time_ms_sdv, "
     "\\[1\\]/p/kernel_launch_time_ms_sdv, \\[1\\]/p/outfeed_time_ms_sdv",
     PV_JC_ACCEPT, NULL, ONE_STEP_SDV, "*nan", "0.0", 5, 0, 0},
    {"overview_page", OLD_TF_GPU, "\\[0\\]/p/device_tf_op_percent", PV_JC_ACCEPT, NULL,
     DEVICE_SHARE, "0.0%", PERCENT, 2, 0, 0},
    {"overview_page", OLD_TF_GPU, "\\[0\\]/p/host_tf_op_percent", PV_JC_ACCEPT, NULL,
     DEVICE_SHARE, "100.0%", PERCENT, 2, 0, 0},
    {"overview_page", OLD_TF_GPU, "\\[0\\]/rows", PV_JC_ACCEPT, NULL, TOP_DEVICE_OPS, "0",
     "10", 2, 0, 0},
    {"overview_page", "shared/tf_keras_gpu_gcp/*", "\\[0\\]/p/device_op_time_eager_percent",
     PV_JC_ACCEPT, NULL, DEVICE_EAGER, "0.0%", "0.1%", 1, 0, 0},
    {"overview_page", GEMM_SET, "\\[0\\]/rows\\[*\\]/flopRate", PV_JC_ACCEPT, NULL, GEMM_COST,
     NUMBER, NUMBER, 1, 0, 0},
    {"overview_page", ELEMENTWISE_SET, "\\[0\\]/rows\\[*\\]/flopRate", PV_JC_ACCEPT, NULL,
     ELEMENTWISE_FLOPS, NUMBER, NUMBER, 6, 0, 0},

    /* the TPU profile: XProf's TPU step table (its columns, no step) against
     * profview's generic one */
    {"overview_page, input_pipeline_analyzer", TPU, "\\[1\\]/cols\\[*\\]/id", PV_JC_ACCEPT, NULL,
     TPU_STEPS,
     "stepnum, tcComputeTimeMs, scv0ComputeTimeMs, scv0InfeedTimeMs, tcInfeedTimeMs, "
     "tcOutfeedTimeMs, tcIdleTimeMs, hostTransferTimeMs, infeedPercentAverage, "
     "infeedPercentMin, infeedPercentMax, tooltip",
     "stepnum, deviceComputeTimeMs, deviceToDeviceTimeMs, deviceCollectivesTimeMs, "
     "hostComputeTimeMs, kernelLaunchTimeMs, infeedTimeMs, outfeedTimeMs, compileTimeMs, "
     "otherTimeMs, tooltip, stepTimeMs",
     11, 0, 0},
    {"overview_page, input_pipeline_analyzer", TPU, "\\[1\\]/cols\\[*\\]/label", PV_JC_ACCEPT,
     NULL, TPU_STEPS,
     "stepnum, TensorCore compute (in ms), SparseCoreV0 compute (in ms), SparseCoreV0 input "
     "(in ms), TensorCore input (in ms), TensorCore output (in ms), TensorCore idle (in ms), "
     "Host transfer (in ms), % step time waiting for input data, Infeed percent min, "
     "Infeed percent max, tooltip",
     "Step number, Device compute, Device to device, Device collective communication, "
     "Host compute, Kernel launch, Input, Output, Compilation, All others, tooltip, "
     "Step time",
     12, 0, 0},
    {"overview_page, input_pipeline_analyzer", TPU,
     "\\[1\\]/cols\\[*\\]/type, \\[1\\]/cols\\[*\\]/p/role", PV_JC_ACCEPT, NULL, TPU_STEPS,
     "number, string, interval", "number, string, tooltip", 2, 0, 0},
    {"overview_page, input_pipeline_analyzer", TPU, "\\[1\\]/cols\\[*\\]/p", PV_JC_ACCEPT, NULL,
     TPU_STEPS, "(object)", "(missing)", 2, 0, 0},
    {"overview_page, input_pipeline_analyzer", TPU, "\\[1\\]/rows", PV_JC_ACCEPT, NULL,
     TPU_STEPS, "0", NUMBER, 1, 0, 0},
    {"overview_page, input_pipeline_analyzer", TPU, "\\[4\\]/rows, \\[6\\]/rows", PV_JC_ACCEPT,
     NULL, TPU_STEPS, "1", "0", 2, 0, 0},
    {"overview_page, input_pipeline_analyzer", TPU,
     "\\[1\\]/p/steptime_ms_average, \\[1\\]/p/steptime_ms_maximum, "
     "\\[1\\]/p/steptime_ms_minimum, \\[1\\]/p/steptime_ms_standard_deviation",
     PV_JC_ACCEPT, NULL, TPU_STEPS, "0.00", NUMBER, 1, 0, 0},
    {"overview_page, input_pipeline_analyzer", TPU,
     "\\[1\\]/p/input_conclusion, \\[3\\]/p/statement", PV_JC_ACCEPT, NULL, TPU_STEPS,
     "No step time measured. *", "Your program is *", 2, 0, 0},
    {"overview_page, input_pipeline_analyzer", TPU, "\\[1\\]/p/step_time_graph_column_ids",
     PV_JC_ACCEPT, NULL, TPU_STEPS,
     "stepnum,tcComputeTimeMs,*", "stepnum,deviceComputeTimeMs,*", 1, 0, 0},
    {"overview_page", TPU,
     "\\[3\\]/p/bottleneck, \\[3\\]/p/non_bottleneck_tip_types, \\[3\\]/p/precision_statement",
     PV_JC_ACCEPT, NULL, TPU_STEPS, "unknown, ",
     "device, host, Only * of device computation is 16 bit.*", 1, 0, 0},
    {"input_pipeline_analyzer", TPU, "\\[0\\]/cols, \\[0\\]/rows", PV_JC_ACCEPT, NULL,
     TPU_STEP_SUMMARY, NUMBER, "0", 1, 0, 0},
    {"overview_page, input_pipeline_analyzer", TPU,
     "\\[1\\]/p/active_steptime_ms_average, \\[1\\]/p/host_transfer_ms_average, "
     "\\[1\\]/p/infeed_percent_average, \\[1\\]/p/infeed_percent_maximum, "
     "\\[1\\]/p/infeed_percent_minimum, \\[1\\]/p/infeed_percent_standard_deviation, "
     "\\[1\\]/p/output_conclusion, \\[1\\]/p/scv0_compute_ms_average, "
     "\\[1\\]/p/scv0_infeed_ms_average, \\[1\\]/p/tc_active_ms_average, "
     "\\[1\\]/p/tc_compute_ms_average, \\[1\\]/p/tc_idle_ms_average, "
     "\\[1\\]/p/tc_infeed_ms_average, \\[1\\]/p/tc_outfeed_ms_average",
     PV_JC_ACCEPT, NULL, TPU_STEP_SUMMARY, "0.0, 0.00, ", "(missing)", 1, 0, 0},
    {"overview_page", TPU,
     "\\[0\\]/p/device_duty_cycle_high_confidence_percent, \\[0\\]/p/device_duty_cycle_percent",
     PV_JC_ACCEPT, NULL, TPU_DUTY_CYCLE, PERCENT, "unknown", 1, 0, 0},
    {"overview_page", TPU, "\\[0\\]/p/idle_time_high_confidence_ps", PV_JC_ACCEPT, NULL,
     TPU_DUTY_CYCLE, NUMBER, "(missing)", 1, 0, 0},
    {"overview_page", TPU,
     "\\[0\\]/p/flop_rate_utilization_relative_to_roofline, "
     "\\[0\\]/p/memory_bw_utilization_relative_to_hw_limit",
     PV_JC_ACCEPT, NULL, TPU_ROOFLINE_USE, "0.0%", "unknown", 1, 0, 0},

    /* ---- accepted: framework op stats -------------------------------------------- */
    {"framework_op_stats", OLD_TF_GPU, "\\[0\\]/rows, \\[1\\]/rows", PV_JC_ACCEPT, NULL,
     NO_DEVICE_OP " (the number of rows)", NUMBER, NUMBER, 8, 0, 0},
    {"framework_op_stats", OLD_TF_GPU, "\\[*\\]/rows\\[Device|*\\]", PV_JC_ACCEPT, NULL,
     NO_DEVICE_OP " (a device row)", "(missing)", "(object)", 3152, 0, 0},
    {"framework_op_stats", OLD_TF_GPU,
     "\\[*\\]/rows\\[Host|*\\]/rank, \\[0\\]/rows\\[Device|IDLE\\]/total_time, "
     "\\[0\\]/rows\\[Device|IDLE\\]/total_self_time, "
     "\\[0\\]/rows\\[Device|IDLE\\]/device_total_self_time_percent, "
     "\\[0\\]/rows\\[Device|IDLE\\]/device_cumulative_total_self_time_percent",
     PV_JC_ACCEPT, NULL, NO_DEVICE_OP " (host ranks, device idle time)", NUMBER, NUMBER, 3132, 0,
     0},
    {"framework_op_stats", "shared/tf_keras_gpu_gcp/*", "\\[*\\]/p/task_type", PV_JC_ACCEPT,
     NULL, TASK_TYPE, "Inference", "Training", 2, 0, 0},
    {"framework_op_stats", GEMM_SET,
     "\\[*\\]/rows\\[Device|*\\]/measured_flop_rate, \\[*\\]/rows\\[Device|*\\]/model_flop_rate, "
     "\\[*\\]/rows\\[Device|*\\]/measured_memory_bw, "
     "\\[*\\]/rows\\[Device|*\\]/operational_intensity",
     PV_JC_ACCEPT, NULL, GEMM_COST, NUMBER, NUMBER, 2, 0, 0},
    {"framework_op_stats", GEMM_SET, "\\[*\\]/rows\\[Device|*\\]/bound_by", PV_JC_ACCEPT, NULL,
     GEMM_COST, "HBM", "Compute", 2, 0, 0},
    {"framework_op_stats", ELEMENTWISE_SET,
     "\\[*\\]/rows\\[Device|*\\]/measured_flop_rate, \\[*\\]/rows\\[Device|*\\]/model_flop_rate, "
     "\\[*\\]/rows\\[Device|*\\]/operational_intensity",
     PV_JC_ACCEPT, NULL, ELEMENTWISE_FLOPS, NUMBER, NUMBER, 12, 0, 0},

    /* ---- kernel stats: XProf's view of the old TF GPU traces, then its flags ------ */
    {"kernel_stats", OLD_TF_GPU, "op_name", PV_JC_UNSEEN, NULL, OLD_TF_KERNEL_OP, NULL, NULL, 0,
     0, 0},
    {"kernel_stats", OLD_TF_GPU, "/rows\\[*\\]/op_name", PV_JC_ACCEPT, NULL, OLD_TF_KERNEL_OP,
     "", "?*", 106, 0, 0},
    {"kernel_stats", "shared/tf_keras_gpu_gcp/*", "is_op_tensor_core_eligible",
     PV_JC_AS_REFERENCE, "false", OLD_TF_KERNEL_ELIGIBLE, NULL, "true", 31, 0, 0},
    {"kernel_stats", "shared/tf_keras_gpu_gcp/*", "shmem_bytes", PV_JC_AS_REFERENCE, "0",
     OLD_TF_KERNEL_SHM, NULL, "[1-9]*", 21, 0, 0},

    /* ---- accepted: the XLA tools' GPU cost model ----------------------------------- */
    {"hlo_stats", GEMM_SET,
     "/rows\\[*\\]/model_flop_rate, /rows\\[*\\]/normalized_flop_rate, "
     "/rows\\[*\\]/measured_memory_bw, /rows\\[*\\]/hbm_bw, /rows\\[*\\]/operational_intensity",
     PV_JC_ACCEPT, NULL, GEMM_COST, NUMBER, NUMBER, 5, 0, 0},
    {"hlo_stats", GEMM_SET, "/rows\\[*\\]/bound_by", PV_JC_ACCEPT, NULL, GEMM_COST, "Unknown",
     "Compute, HBM", 5, 0, 0},
    {"hlo_stats", ELEMENTWISE_SET,
     "/rows\\[*\\]/model_flop_rate, /rows\\[*\\]/normalized_flop_rate, "
     "/rows\\[*\\]/operational_intensity",
     PV_JC_ACCEPT, NULL, ELEMENTWISE_FLOPS, NUMBER, NUMBER, 13, 0, 0},
#define ROOFLINE(col) "\\[0\\]/rows\\[*\\]/" col
    {"roofline_model", GEMM_SET,
     ROOFLINE("measured_flop_rate") ", " ROOFLINE("model_flop_rate") ", "
     ROOFLINE("measured_memory_bw") ", " ROOFLINE("hbm_bw") ", "
     ROOFLINE("operational_intensity") ", " ROOFLINE("hbm_operational_intensity") ", "
     ROOFLINE("bottleneck_operational_intensity") ", " ROOFLINE("optimal_flop_rate") ", "
     ROOFLINE("compute_efficiency") ", " ROOFLINE("max_mem_bw_utilization") ", "
     ROOFLINE("roofline_efficiency"),
     PV_JC_ACCEPT, NULL, GEMM_COST, NUMBER, NUMBER, 6, 0, 0},
    {"roofline_model", GEMM_SET, ROOFLINE("bound_by"), PV_JC_ACCEPT, NULL, GEMM_COST,
     "Unknown, HBM", "Compute, HBM", 6, 0, 0},
    {"roofline_model", ELEMENTWISE_SET,
     ROOFLINE("measured_flop_rate") ", " ROOFLINE("model_flop_rate") ", "
     ROOFLINE("operational_intensity") ", " ROOFLINE("hbm_operational_intensity") ", "
     ROOFLINE("bottleneck_operational_intensity") ", " ROOFLINE("optimal_flop_rate") ", "
     ROOFLINE("compute_efficiency"),
     PV_JC_ACCEPT, NULL, ELEMENTWISE_FLOPS, NUMBER, NUMBER, 14, 0, 0},
#undef ROOFLINE
/* A metric of the op tree's root and of the program, category and op
 * levels below it, with or without IDLE. */
#define NODE_LEVELS(root, m)                                                               \
    "/" root "/metrics/" m ", /" root "/children\\[*\\]/metrics/" m ", "                    \
    "/" root "/children\\[*\\]/children\\[*\\]/metrics/" m ", "                           \
    "/" root "/children\\[*\\]/children\\[*\\]/children\\[*\\]/metrics/" m
#define TREE(m) NODE_LEVELS("byProgram", m) ", " NODE_LEVELS("byProgramExcludeIdle", m)
    {"op_profile", GEMM_SET,
     TREE("flops") ", " TREE("rawFlops") ", " TREE("bf16Flops") ", " TREE("uncappedFlops") ", "
     TREE("bandwidthUtils\\[*\\]") ", " TREE("rawBytesAccessedArray\\[*\\]"),
     PV_JC_ACCEPT, NULL, GEMM_COST, NUMBER, NUMBER, 102, 0, 0},
    {"op_profile", ELEMENTWISE_SET,
     TREE("flops") ", " TREE("rawFlops") ", " TREE("bf16Flops") ", " TREE("uncappedFlops"),
     PV_JC_ACCEPT, NULL, ELEMENTWISE_FLOPS, NUMBER, NUMBER, 80, 0, 0},
#undef TREE
#undef NODE_LEVELS

    /* ---- accepted: the memory viewer ------------------------------------------------- */
    {"memory_viewer", "jax_train/*, " ROCM ", " TPU, "/bufferBlocks\\[*\\]/color", PV_JC_ACCEPT,
     NULL, BLOCK_COLOR, COLOR, COLOR, 43, 0, 0},

    /* ---- accepted: memory profile ---------------------------------------------------- */
#define SNAPSHOT(alloc, i) "/memoryProfilePerAllocator/" alloc "/memoryProfileSnapshots\\[" i "\\]"
#define PICK(alloc, i)                                                                     \
    SNAPSHOT(alloc, i) "/timeOffsetPs, " SNAPSHOT(alloc, i) "/activityMetadata/address"
#define PICK_HEAP(alloc, i)                                                                \
    PICK(alloc, i) ", " SNAPSHOT(alloc, i) "/aggregationStats/heapAllocatedBytes, "        \
        SNAPSHOT(alloc, i) "/aggregationStats/freeMemoryBytes"
    {"memory_profile", "shared/tf2_gpu_multi_worker/*/34.83.195.179_6003",
     PICK_HEAP("gpu_host_bfc", "0") ", " PICK_HEAP("gpu_host_bfc", "1") ", "
     PICK_HEAP("gpu_host_bfc", "2") ", " PICK_HEAP("gpu_host_bfc", "3"),
     PV_JC_ACCEPT, NULL, MEMORY_PICK, NUMBER, NUMBER, 4, 0, 0},
    {"memory_profile", "shared/tf2_gpu_multi_worker/*/34.83.195.180_6003",
     PICK_HEAP("gpu_host_bfc", "2") ", " PICK_HEAP("gpu_host_bfc", "3"), PV_JC_ACCEPT, NULL,
     MEMORY_PICK, NUMBER, NUMBER, 2, 0, 0},
    {"memory_profile", "shared/jax_rocm_mi300/jax08_elementwise/*",
     PICK_HEAP("GPU_0_bfc", "0") ", " SNAPSHOT("GPU_0_bfc", "0") "/aggregationStats/fragmentation",
     PV_JC_ACCEPT, NULL, MEMORY_PICK, NUMBER, NUMBER, 1, 0, 0},
    {"memory_profile", "shared/jax_rocm_mi300/jax08_gemm/*",
     PICK_HEAP("GPU_0_bfc", "2") ", " SNAPSHOT("GPU_0_bfc", "2") "/aggregationStats/fragmentation",
     PV_JC_ACCEPT, NULL, MEMORY_PICK, NUMBER, NUMBER, 1, 0, 0},
    {"memory_profile", "shared/jax_rocm_mi300/jax_conv_minimal_08/*",
     PICK("GPU_1_bfc", "1") ", " PICK("GPU_2_bfc", "1") ", " PICK("GPU_4_bfc", "1") ", "
     PICK("GPU_6_bfc", "1") ", " PICK("GPU_7_bfc", "1"),
     PV_JC_ACCEPT, NULL, MEMORY_PICK, NUMBER, NUMBER, 5, 0, 0},
    {"memory_profile", "shared/jax_rocm_mi300/jax_conv_minimal_legacy/*",
     PICK("GPU_0_bfc", "1") ", " PICK("GPU_3_bfc", "1") ", " PICK("GPU_4_bfc", "1"),
     PV_JC_ACCEPT, NULL, MEMORY_PICK, NUMBER, NUMBER, 3, 0, 0},
    {"memory_profile", TPU, PICK("0", "4") ", " PICK("3", "4"), PV_JC_ACCEPT, NULL, MEMORY_PICK,
     NUMBER, NUMBER, 2, 0, 0},
#undef PICK_HEAP
#undef PICK
#undef SNAPSHOT

    /* ---- accepted: trace viewer ------------------------------------------------------ */
    {"trace_viewer", TPU,
     "/offload_rows//device:TPU:0, /offload_rows//device:TPU:0\\[*\\], "
     "/offload_rows//device:TPU:1, /offload_rows//device:TPU:1\\[*\\], "
     "/offload_rows//device:TPU:2, /offload_rows//device:TPU:2\\[*\\], "
     "/offload_rows//device:TPU:3, /offload_rows//device:TPU:3\\[*\\]",
     PV_JC_ACCEPT, NULL, TPU_OFFLOAD_ROWS, NUMBER, NUMBER, 16, 0, 0},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0},
};
