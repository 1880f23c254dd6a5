/* registry: the list. The tools only TensorFlow's per-tool files answer
 * (no compute, no writer: ingest/formats.c names the files) are described
 * here, as they have no folder of their own yet. */
#include "tools/registry.h"
#include "tools/op_stats/op_metrics.h"
#include "tools/steps/steps.h"

#include <string.h>

static const pv_tool pod_viewer = {.name = "pod_viewer", .title = "Pod viewer"};

static const pv_tool *const tools[] = {
    &pv_overview_page_tool,
    &pv_trace_viewer_tool,
    &pv_trace_viewer_streaming_tool,
    &pv_graph_viewer_tool,
    &pv_op_profile_tool,
    &pv_input_pipeline_analyzer_tool,
    &pv_kernel_stats_tool,
    &pv_memory_profile_tool,
    &pv_memory_viewer_tool,
    &pv_roofline_model_tool,
    &pod_viewer,
    &pv_framework_op_stats_tool,
    &pv_hlo_stats_tool,
    &pv_device_utilization_tool,
    &pv_distributed_view_tool,
};

const pv_tool *const *pv_tools(size_t *n)
{
    *n = sizeof tools / sizeof tools[0];
    return tools;
}

const pv_tool *pv_tool_find(const char *name)
{
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        if (strcmp(tools[i]->name, name) == 0)
            return tools[i];
        for (size_t k = 0; tools[i]->aliases != NULL && tools[i]->aliases[k] != NULL; k++)
            if (strcmp(tools[i]->aliases[k], name) == 0)
                return tools[i];
    }
    return NULL;
}

const pv_tool_part *pv_tool_part_find(const pv_tool *t, const char *name)
{
    for (size_t i = 0; i < t->n_parts; i++)
        if (strcmp(t->parts[i].name, name) == 0)
            return &t->parts[i];
    return NULL;
}

void pv_tools_warm(const pv_model *m)
{
    /* a model with roles (a PyTorch trace) has no memos to make */
    if (pv_model_has_roles(m))
        return;
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_steps_warm(m);
    pv_op_metrics_db db;
    pv_error err = {0};
    pv_op_metrics_host(m, &a, &db, &err);
    pv_arena_fini(&a);
}
