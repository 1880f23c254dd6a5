/* tf_legacy: the formats of tf_legacy.h. */
#include "ingest/tf_legacy/tf_legacy.h"

/* Per-tool files are small (tens of KB); the caps only keep a stray huge
 * file from being read into memory whole. */
#define TOOL_FILE_MAX_BYTES ((uint64_t)1 << 30)
#define TOOL_PB_MAX_BYTES ((uint64_t)256 << 20)

#define TOOL_FILE(ident, suffix_, tool_, gzip_)                                               \
    const pv_format ident = {.name = suffix_, .suffix = suffix_, .role = PV_FORMAT_TOOL_FILE, \
                             .tool = tool_, .gzip = gzip_, .max_bytes = TOOL_FILE_MAX_BYTES}
#define TOOL_PB(ident, suffix_, tool_, answer_)                                             \
    const pv_format ident = {.name = suffix_, .suffix = suffix_, .role = PV_FORMAT_TOOL_PB, \
                             .tool = tool_, .max_bytes = TOOL_PB_MAX_BYTES, .answer = answer_}

/* The Trace proto TensorFlow 1.x and early 2.x wrote. */
const pv_format pv_format_tf_trace_pb = {.name = "trace", .suffix = "trace",
                                         .role = PV_FORMAT_UNREAD, .tool = "trace_viewer"};
TOOL_FILE(pv_format_tf_overview_json, "overview_page.json", "overview_page", false);
TOOL_PB(pv_format_tf_overview_pb, "overview_page.pb", "overview_page", pv__tf_legacy_overview);
TOOL_FILE(pv_format_tf_input_pipeline_json, "input_pipeline.json", "input_pipeline_analyzer",
          false);
TOOL_PB(pv_format_tf_input_pipeline_pb, "input_pipeline.pb", "input_pipeline_analyzer",
        pv__tf_legacy_input_pipeline);
TOOL_PB(pv_format_tf_stats_pb, "tensorflow_stats.pb", "framework_op_stats",
        pv__tf_legacy_op_stats);
TOOL_PB(pv_format_tf_kernel_stats_pb, "kernel_stats.pb", "kernel_stats",
        pv__tf_legacy_kernel_stats);
TOOL_FILE(pv_format_tf_memory_profile_json_gz, "memory_profile.json.gz", "memory_profile", true);
TOOL_FILE(pv_format_tf_op_profile_json, "op_profile.json", "op_profile", false);
TOOL_FILE(pv_format_tf_memory_viewer_json, "memory_viewer.json", "memory_viewer", false);
TOOL_FILE(pv_format_tf_pod_viewer_json, "pod_viewer.json", "pod_viewer", false);
