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

/* ---- memos ---------------------------------------------------------------------- */

/* Makes the memos (model/memo.h) of the tools a page opens first and
 * that cost seconds on a big profile: the step grouping and host op
 * tables of overview_page and input_pipeline_analyzer, the host table of
 * framework_op_stats. The store's loader calls it beside the trace index
 * and saves them with the model, so after a restart the first answers
 * copy them instead of computing them. A PyTorch trace has none (its
 * tables are not kept). Cannot fail: a memo not made is made by the first
 * request instead. */
void pv_tools_warm(const pv_model *m);

/* ---- lookups ------------------------------------------------------------------ */

/* The tools in listing order; *n gets their count. Cannot fail. */
const pv_tool *const *pv_tools(size_t *n);
/* The tool called name or known by name as an alias, or NULL. Cannot fail. */
const pv_tool *pv_tool_find(const char *name);
/* The part of t called name, or NULL. Cannot fail. */
const pv_tool_part *pv_tool_part_find(const pv_tool *t, const char *name);

#endif
