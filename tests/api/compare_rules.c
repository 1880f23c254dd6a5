/* compare_rules: how rows are matched, which values must be equal, and
 * the differences from XProf 2.24.2 the harness accepts. Paths are the
 * ones json_compare prints: "[1]/p/x" is member p.x of the second table,
 * "[0]/rows[key]/column" a DataTable cell; "\\[" and "\\]" match the
 * brackets literally.
 *
 * Every accepted difference (STYLE rule 23) names its tools, the profiles
 * it covers and its exact fields (wildcards only inside a row key or
 * index), with a reason true today, and is one of three kinds:
 *  - deliberate: profview answers otherwise on purpose, and the test named
 *    in the reason checks profview's own answer against another oracle;
 *  - gap #16: XProf reads HLO protos, cost data and TPU planes in ways the
 *    XLA-tools issue (#16) adds; the test named in the reason shows the
 *    gap today and fails once #16 closes it, so the rule goes with it;
 *  - gap: a difference not fixed yet, with what is missing.
 * The harness fails on a rule that is too broad, and on one whose tool,
 * profile or path alternative had its chance and accepted nothing. A
 * difference no rule covers is a finding, not a rule to add here. */
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

/* ---- reasons ------------------------------------------------------------------- */

#define NO_DEVICE_UNKNOWN                                                                  \
    "deliberate: no device, so XProf prints 0.0% for its TPU keys (duty cycle, device "   \
    "idle, roofline use); profview says unknown rather than a made-up 0 "                 \
    "(test_pv_tool_overview_cpu_unknown)"
#define HOST_IDLE                                                                          \
    "deliberate: XProf fills host_idle_time_percent on TPUs only and prints 0.0%; "        \
    "profview gives the host's IDLE share everywhere (unknown without a host op), which "   \
    "is the IDLE row of XProf's own framework_op_stats (test_pv_tool_overview_host_idle_oracle)"
#define IS_TRAINING                                                                        \
    "gap: XProf calls the jitted JAX step training (it reads the HLO modules); profview "  \
    "does not decide it and always says false"
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
    "deliberate: old TF GPU trace, profview names a kernel's op from its level-0 "         \
    "annotation (XProf leaves it empty, TensorFlow's own converter named it: "             \
    "test_pv_tool_kernel_stats_vs_tf), so its rows split what XProf merges"
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
#define TPU_DUTY_CYCLE                                                                     \
    "gap: XProf computes a TPU's duty cycle and idle time; profview does not yet "         \
    "(unknown)"
#define TPU_OFFLOAD_ROWS                                                                   \
    "deliberate: which Host Offload Ops row a TPU copy lands in follows the order XProf's " \
    "unstable sort leaves zero-length copy-done ops of one picosecond in; profview takes " \
    "them in file order; the copies themselves are compared exactly (test_trace_derived.c)"
/* Gaps the XLA tools issue (#16) closes; each test named fails once it
 * does, and the rule goes then. */
#define GAP16_ROOFLINE                                                                     \
    "gap: issue #16, XProf computes roofline fields (FLOP rate, bandwidth, intensity, "    \
    "bound by) from HLO cost data; profview leaves them 0 and Unknown "                    \
    "(test_gap16_rocm_roofline)"
#define GAP16_TC_UTIL                                                                      \
    "gap: issue #16, XProf counts ROCm matrix-core kernels as TensorCore use; profview "   \
    "does not (test_gap16_rocm_tensor_core_utilization)"
#define GAP16_TC_FLAGS                                                                     \
    "gap: issue #16, XProf marks ROCm matrix-core kernels as using TensorCores and XLA "   \
    "dot and convolution ops as eligible; profview does not (test_gap16_rocm_tensor_core)"
#define GAP16_TOP_OPS                                                                      \
    "gap: issue #16, XProf's top device ops are the XLA ops named from the HLO protos "    \
    "with their FLOP rate and TensorCore flags; profview's are the XLA modules "           \
    "(test_gap16_overview_device_ops)"
#define GAP16_TPU_OPS                                                                      \
    "gap: issue #16, XProf reads a TPU's XLA ops into its device tables and shares; "      \
    "profview reads no TPU op (test_gap16_tpu_device_ops)"
#define GAP16_OP_PROFILE                                                                   \
    "gap: issue #16, on a TPU XProf's tip names op_profile, which #16 adds "               \
    "(test_gap16_tpu_device_ops)"

const pv_jc_rule pv_compare_rules[] = {
    /* ---- how rows are matched ------------------------------------------------ */
    {"framework_op_stats", NULL, "\\[*\\]/rows", PV_JC_KEYED, "host_or_device,operation",
     "op rows are matched by side and op name, so one row more or less does not shift "
     "every row after it; rank is still compared", NULL, NULL},
    {"kernel_stats", NULL, "/rows", PV_JC_KEYED,
     "kernel_name,registers_per_thread,block_dim,grid_dim,op_name",
     "kernel rows are matched by kernel, launch configuration and op; every column, rank "
     "included, is compared", NULL, NULL},

    /* ---- values that must be equal, not close ---------------------------------- */
    {NULL, NULL, "*/occurrences", PV_JC_EXACT, NULL, "a count", NULL, NULL},
    {"trace_viewer", NULL, "/n_events, /n_with_flow, /names/*, /threads/*", PV_JC_EXACT, NULL,
     "a count", NULL, NULL},
    {"trace_viewer", TPU, "/offload_rows/*", PV_JC_EXACT, NULL, "a count", NULL, NULL},
    {"trace_viewer", NULL, "/events/*/flow_partners", PV_JC_EXACT, NULL, "a count", NULL,
     NULL},
    {"trace_viewer", NULL, "/events/*/ts, /events/*/dur", PV_JC_EXACT, NULL,
     "a time: both print it to the picosecond", NULL, NULL},
    /* group ids: the model numbers its step groups in XProf's order
     * (server/model/group.c, issue #2), so they must be equal. */
    {"trace_viewer", NULL, "/events/*/args/group_id", PV_JC_EXACT, NULL, "a group id", NULL,
     NULL},
    {"memory_profile", NULL, "*Bytes*, *memoryCapacity", PV_JC_EXACT, NULL, "bytes", NULL,
     NULL},
    {"memory_profile", NULL, "*address", PV_JC_EXACT, NULL, "an address", NULL, NULL},
    {"memory_profile", NULL, "*Ps", PV_JC_EXACT, NULL, "a time stamp", NULL, NULL},
    {"memory_profile", NULL, "*numOccurrences", PV_JC_EXACT, NULL, "a count", NULL, NULL},
    {"memory_profile", NULL, "*Index", PV_JC_EXACT, NULL, "an index", NULL, NULL},
    /* step ids: the model numbers its step groups in XProf's order
     * (server/model/group.c, issue #2), so they must be equal. */
    {"memory_profile", NULL, "*/stepId", PV_JC_EXACT, NULL, "a step id", NULL, NULL},

    /* ---- accepted: overview page and input pipeline -------------------------------- */
    {"overview_page", CPU_ONLY,
     "\\[0\\]/p/device_duty_cycle_high_confidence_percent, "
     "\\[0\\]/p/device_duty_cycle_percent, \\[0\\]/p/device_idle_time_percent, "
     "\\[0\\]/p/flop_rate_utilization_relative_to_roofline, "
     "\\[0\\]/p/memory_bw_utilization_relative_to_hw_limit",
     PV_JC_ACCEPT, NULL, NO_DEVICE_UNKNOWN, "0.0%", "unknown"},
    {"overview_page", CPU_ONLY, "\\[0\\]/p/host_idle_time_percent", PV_JC_ACCEPT, NULL,
     HOST_IDLE, "0.0%", NULL},
    {"overview_page", "jax_train/*", "\\[2\\]/p/is_training", PV_JC_ACCEPT, NULL, IS_TRAINING,
     "true", "false"},
    {"overview_page, input_pipeline_analyzer", ONE_STEP,
     "\\[1\\]/p/compile_time_ms_sdv, \\[1\\]/p/device_collectives_time_ms_sdv, "
     "\\[1\\]/p/device_compute_time_ms_sdv, \\[1\\]/p/device_to_device_time_ms_sdv, "
     "\\[1\\]/p/host_compute_time_ms_sdv, \\[1\\]/p/infeed_time_ms_sdv, "
     "\\[1\\]/p/kernel_launch_time_ms_sdv, \\[1\\]/p/outfeed_time_ms_sdv",
     PV_JC_ACCEPT, NULL, ONE_STEP_SDV, "*nan", "0.0"},
    {"overview_page", OLD_TF_GPU, "\\[0\\]/p/device_tf_op_percent", PV_JC_ACCEPT, NULL,
     DEVICE_SHARE, "0.0%", NULL},
    {"overview_page", OLD_TF_GPU, "\\[0\\]/p/host_tf_op_percent", PV_JC_ACCEPT, NULL,
     DEVICE_SHARE, "100.0%", NULL},
    {"overview_page", OLD_TF_GPU, "\\[0\\]/rows", PV_JC_ACCEPT, NULL, TOP_DEVICE_OPS, "0",
     "10"},
    {"overview_page", "shared/tf_keras_gpu_gcp/*", "\\[0\\]/p/device_op_time_eager_percent",
     PV_JC_ACCEPT, NULL, DEVICE_EAGER, "0.0%", "0.1%"},
    {"overview_page", ROCM,
     "\\[0\\]/rows, \\[0\\]/rows\\[*\\]/operation, \\[0\\]/rows\\[*\\]/category, "
     "\\[0\\]/rows\\[*\\]/selfTimePercent, \\[0\\]/rows\\[*\\]/cumulativeTimePercent, "
     "\\[0\\]/rows\\[*\\]/flopRate, \\[0\\]/rows\\[*\\]/tcEligibility, "
     "\\[0\\]/rows\\[*\\]/tcUtilization",
     PV_JC_ACCEPT, NULL, GAP16_TOP_OPS, NULL, NULL},

    /* the TPU profile */
    {"overview_page, input_pipeline_analyzer", TPU,
     "\\[1\\]/cols\\[*\\]/id, \\[1\\]/cols\\[*\\]/label, \\[1\\]/cols\\[*\\]/type, "
     "\\[1\\]/cols\\[*\\]/p, \\[1\\]/cols\\[*\\]/p/role, \\[1\\]/rows, "
     "\\[1\\]/p/steptime_ms_average, \\[1\\]/p/steptime_ms_maximum, "
     "\\[1\\]/p/steptime_ms_minimum, \\[1\\]/p/steptime_ms_standard_deviation, "
     "\\[1\\]/p/input_conclusion, \\[1\\]/p/step_time_graph_column_ids, "
     "\\[3\\]/p/bottleneck, \\[3\\]/p/non_bottleneck_tip_types, "
     "\\[3\\]/p/precision_statement, \\[3\\]/p/statement, \\[4\\]/rows, \\[6\\]/rows",
     PV_JC_ACCEPT, NULL, TPU_STEPS, NULL, NULL},
    {"input_pipeline_analyzer", TPU, "\\[0\\]/cols, \\[0\\]/rows", PV_JC_ACCEPT, NULL,
     TPU_STEP_SUMMARY, NULL, NULL},
    {"overview_page, input_pipeline_analyzer", TPU,
     "\\[1\\]/p/active_steptime_ms_average, \\[1\\]/p/host_transfer_ms_average, "
     "\\[1\\]/p/infeed_percent_average, \\[1\\]/p/infeed_percent_maximum, "
     "\\[1\\]/p/infeed_percent_minimum, \\[1\\]/p/infeed_percent_standard_deviation, "
     "\\[1\\]/p/output_conclusion, \\[1\\]/p/scv0_compute_ms_average, "
     "\\[1\\]/p/scv0_infeed_ms_average, \\[1\\]/p/tc_active_ms_average, "
     "\\[1\\]/p/tc_compute_ms_average, \\[1\\]/p/tc_idle_ms_average, "
     "\\[1\\]/p/tc_infeed_ms_average, \\[1\\]/p/tc_outfeed_ms_average",
     PV_JC_ACCEPT, NULL, TPU_STEP_SUMMARY, NULL, NULL},
    {"overview_page", TPU,
     "\\[0\\]/p/device_duty_cycle_high_confidence_percent, "
     "\\[0\\]/p/device_duty_cycle_percent, \\[0\\]/p/device_idle_time_percent, "
     "\\[0\\]/p/idle_time_high_confidence_ps",
     PV_JC_ACCEPT, NULL, TPU_DUTY_CYCLE, NULL, NULL},
    {"overview_page", TPU,
     "\\[0\\]/p/device_tf_op_percent, \\[0\\]/p/host_tf_op_percent, \\[0\\]/rows, "
     "\\[0\\]/p/flop_rate_utilization_relative_to_roofline, "
     "\\[0\\]/p/memory_bw_utilization_relative_to_hw_limit",
     PV_JC_ACCEPT, NULL, GAP16_TPU_OPS, NULL, NULL},
    {"overview_page", TPU, "\\[3\\]/rows\\[3\\]/link", PV_JC_ACCEPT, NULL, GAP16_OP_PROFILE,
     "op_profile *", NULL},

    /* ---- accepted: framework op stats -------------------------------------------- */
    {"framework_op_stats", OLD_TF_GPU,
     "\\[0\\]/rows, \\[1\\]/rows, \\[*\\]/rows\\[Device|*\\], \\[*\\]/rows\\[Host|*\\]/rank, "
     "\\[0\\]/rows\\[Device|IDLE\\]/total_time, \\[0\\]/rows\\[Device|IDLE\\]/total_self_time, "
     "\\[0\\]/rows\\[Device|IDLE\\]/device_total_self_time_percent, "
     "\\[0\\]/rows\\[Device|IDLE\\]/device_cumulative_total_self_time_percent",
     PV_JC_ACCEPT, NULL, NO_DEVICE_OP, NULL, NULL},
    {"framework_op_stats", "shared/tf_keras_gpu_gcp/*", "\\[*\\]/p/task_type", PV_JC_ACCEPT,
     NULL, TASK_TYPE, "Inference", "Training"},
    {"framework_op_stats", ROCM,
     "\\[*\\]/rows\\[Device|*\\]/measured_flop_rate, \\[*\\]/rows\\[Device|*\\]/model_flop_rate, "
     "\\[*\\]/rows\\[Device|*\\]/measured_memory_bw, "
     "\\[*\\]/rows\\[Device|*\\]/operational_intensity, \\[*\\]/rows\\[Device|*\\]/bound_by",
     PV_JC_ACCEPT, NULL, GAP16_ROOFLINE, NULL, NULL},
    {"framework_op_stats", ROCM, "\\[*\\]/rows\\[Device|*\\]/gpu_tensorcore_utilization",
     PV_JC_ACCEPT, NULL, GAP16_TC_UTIL, NULL, "0"},
    {"framework_op_stats", TPU,
     "\\[0\\]/rows, \\[1\\]/rows, \\[*\\]/rows\\[Device|*\\], \\[*\\]/rows\\[Host|*\\]/rank",
     PV_JC_ACCEPT, NULL, GAP16_TPU_OPS, NULL, NULL},

    /* ---- kernel stats: XProf's view of the old TF GPU traces, then its flags ------ */
    {"kernel_stats", OLD_TF_GPU, "op_name", PV_JC_AS_REFERENCE, "\"\"", OLD_TF_KERNEL_OP, NULL,
     NULL},
    {"kernel_stats", "shared/tf_keras_gpu_gcp/*", "is_op_tensor_core_eligible",
     PV_JC_AS_REFERENCE, "false",
     OLD_TF_KERNEL_ELIGIBLE, NULL, NULL},
    {"kernel_stats", OLD_TF_GPU, "shmem_bytes", PV_JC_AS_REFERENCE, "0", OLD_TF_KERNEL_SHM, NULL,
     NULL},
    {"kernel_stats", ROCM,
     "/rows\\[*\\]/is_kernel_using_tensor_core, /rows\\[*\\]/is_op_tensor_core_eligible",
     PV_JC_ACCEPT, NULL, GAP16_TC_FLAGS, "true", "false"},

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
     PV_JC_ACCEPT, NULL, MEMORY_PICK, NULL, NULL},
    {"memory_profile", "shared/tf2_gpu_multi_worker/*/34.83.195.180_6003",
     PICK_HEAP("gpu_host_bfc", "2") ", " PICK_HEAP("gpu_host_bfc", "3"), PV_JC_ACCEPT, NULL,
     MEMORY_PICK, NULL, NULL},
    {"memory_profile", "shared/jax_rocm_mi300/jax08_elementwise/*",
     PICK_HEAP("GPU_0_bfc", "0") ", " SNAPSHOT("GPU_0_bfc", "0") "/aggregationStats/fragmentation",
     PV_JC_ACCEPT, NULL, MEMORY_PICK, NULL, NULL},
    {"memory_profile", "shared/jax_rocm_mi300/jax08_gemm/*",
     PICK_HEAP("GPU_0_bfc", "2") ", " SNAPSHOT("GPU_0_bfc", "2") "/aggregationStats/fragmentation",
     PV_JC_ACCEPT, NULL, MEMORY_PICK, NULL, NULL},
    {"memory_profile", "shared/jax_rocm_mi300/jax_conv_minimal_08/*",
     PICK("GPU_1_bfc", "1") ", " PICK("GPU_2_bfc", "1") ", " PICK("GPU_4_bfc", "1") ", "
     PICK("GPU_6_bfc", "1") ", " PICK("GPU_7_bfc", "1"),
     PV_JC_ACCEPT, NULL, MEMORY_PICK, NULL, NULL},
    {"memory_profile", "shared/jax_rocm_mi300/jax_conv_minimal_legacy/*",
     PICK("GPU_0_bfc", "1") ", " PICK("GPU_3_bfc", "1") ", " PICK("GPU_4_bfc", "1"),
     PV_JC_ACCEPT, NULL, MEMORY_PICK, NULL, NULL},
    {"memory_profile", TPU, PICK("0", "4") ", " PICK("3", "4"), PV_JC_ACCEPT, NULL, MEMORY_PICK,
     NULL, NULL},
#undef PICK_HEAP
#undef PICK
#undef SNAPSHOT

    /* ---- accepted: trace viewer ------------------------------------------------------ */
    {"trace_viewer", TPU,
     "/offload_rows//device:TPU:0, /offload_rows//device:TPU:0\\[*\\], "
     "/offload_rows//device:TPU:1, /offload_rows//device:TPU:1\\[*\\], "
     "/offload_rows//device:TPU:2, /offload_rows//device:TPU:2\\[*\\], "
     "/offload_rows//device:TPU:3, /offload_rows//device:TPU:3\\[*\\]",
     PV_JC_ACCEPT, NULL, TPU_OFFLOAD_ROWS, NULL, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL},
};
