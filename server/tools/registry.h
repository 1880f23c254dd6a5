/* registry: the one list of tools (tools/tool.h), in the order TensorBoard
 * shows them (FORMATS.md §4.8). Every route, the cache key and the page's
 * tool list read it; adding a tool is one line in registry.c. Immutable,
 * so any thread may read it. */
#ifndef PV_TOOLS_REGISTRY_H
#define PV_TOOLS_REGISTRY_H

#include "tools/tool.h"

#include <stddef.h>

/* ---- the descriptors, each defined in its family's folder -------------------- */

extern const pv_tool pv_overview_page_tool; /* steps/steps_tools.c */
extern const pv_tool pv_input_pipeline_analyzer_tool; /* steps/steps_tools.c */
extern const pv_tool pv_distributed_view_tool; /* steps/distributed_tool.c */
extern const pv_tool pv_trace_viewer_tool; /* chrome_trace/trace_viewer_tool.c */
extern const pv_tool pv_trace_viewer_streaming_tool; /* chrome_trace/trace_viewer_tool.c */
extern const pv_tool pv_framework_op_stats_tool; /* op_stats/op_stats_tool.c */
extern const pv_tool pv_kernel_stats_tool; /* kernel_stats/kernel_stats_tool.c */
extern const pv_tool pv_memory_profile_tool; /* memory_profile/memory_profile_tool.c */
extern const pv_tool pv_hlo_stats_tool; /* xla_tables/xla_tables_tool.c */
extern const pv_tool pv_op_profile_tool; /* op_profile/op_profile_tool.c */
extern const pv_tool pv_roofline_model_tool; /* xla_tables/xla_tables_tool.c */
extern const pv_tool pv_memory_viewer_tool; /* memory_viewer/memory_viewer_tool.c */
extern const pv_tool pv_graph_viewer_tool; /* graph_viewer/graph_viewer_tool.c */
extern const pv_tool pv_device_utilization_tool; /* device_util/device_util_tool.c */

/* ---- lookups ------------------------------------------------------------------ */

/* The tools in listing order; *n gets their count. Cannot fail. */
const pv_tool *const *pv_tools(size_t *n);
/* The tool called name or known by name as an alias, or NULL. Cannot fail. */
const pv_tool *pv_tool_find(const char *name);

#endif
