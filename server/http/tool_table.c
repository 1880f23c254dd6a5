/* tool_table: one line per tool computed from the model. */
#include "http/tool_table.h"

#include <string.h>

typedef struct tool_entry {
    const char *name;
    pv_model_tool_fn fn;
} tool_entry;

static const tool_entry tools[] = {
    {"memory_profile", pv_http_tool_memory_profile},
    {"trace_viewer", pv_http_tool_trace_viewer},
    {"trace_viewer@", pv_http_tool_trace_viewer_streaming},
    {"overview_page", pv_http_tool_overview},
    {"input_pipeline_analyzer", pv_http_tool_input_pipeline},
    {"kernel_stats", pv_http_tool_kernel_stats},
    {"framework_op_stats", pv_http_tool_op_stats},
    {"tensorflow_stats", pv_http_tool_op_stats},
    {NULL, NULL},
};

pv_model_tool_fn pv_tool_table_find(const char *tool)
{
    for (size_t i = 0; tools[i].name != NULL; i++)
        if (strcmp(tools[i].name, tool) == 0)
            return tools[i].fn;
    return NULL;
}
