/* tool_table: one line per tool computed from the model. */
#include "http/tool_table.h"

#include <string.h>

typedef struct tool_entry {
    const char *name;
    pv_model_tool_fn fn;
    pv_multi_tool_fn multi;   /* ALL_HOSTS; NULL: not combined */
} tool_entry;

static const tool_entry tools[] = {
    {"memory_profile", pv_http_tool_memory_profile, NULL},
    {"trace_viewer", pv_http_tool_trace_viewer, pv_http_tool_trace_viewer_multi},
    {"trace_viewer@", pv_http_tool_trace_viewer_streaming,
     pv_http_tool_trace_viewer_streaming_multi},
    {"overview_page", pv_http_tool_overview, pv_http_tool_overview_multi},
    {"input_pipeline_analyzer", pv_http_tool_input_pipeline, pv_http_tool_input_pipeline_multi},
    {"kernel_stats", pv_http_tool_kernel_stats, pv_http_tool_kernel_stats_multi},
    {"framework_op_stats", pv_http_tool_op_stats, pv_http_tool_op_stats_multi},
    {"tensorflow_stats", pv_http_tool_op_stats, pv_http_tool_op_stats_multi},
    {NULL, NULL, NULL},
};

pv_model_tool_fn pv_tool_table_find(const char *tool)
{
    for (size_t i = 0; tools[i].name != NULL; i++)
        if (strcmp(tools[i].name, tool) == 0)
            return tools[i].fn;
    return NULL;
}

pv_multi_tool_fn pv_tool_table_find_multi(const char *tool)
{
    for (size_t i = 0; tools[i].name != NULL; i++)
        if (strcmp(tools[i].name, tool) == 0)
            return tools[i].multi;
    return NULL;
}
