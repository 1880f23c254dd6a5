/* filename: suffix table for host files. A host name may itself contain
 * dots (10.240.1.50.overview_page.json), so we match known suffixes at the
 * end of the name rather than splitting at the first dot. */
#include "index/filename.h"

#include <string.h>

typedef struct suffix_rule {
    const char *suffix;   /* without the leading dot */
    pv_file_kind kind;
    const char *tool;     /* tool it answers; NULL for xplane */
} suffix_rule;

/* Longer suffixes first where one ends another ("trace.json.gz" vs none). */
static const suffix_rule rules[] = {
    {"xplane.pb", PV_FILE_XPLANE, NULL},
    {"trace.json.gz", PV_FILE_TRACE_JSON_GZ, "trace_viewer"},
    {"trace", PV_FILE_TRACE_PB, "trace_viewer"},
    {"overview_page.json", PV_FILE_OVERVIEW_JSON, "overview_page"},
    {"overview_page.pb", PV_FILE_OVERVIEW_PB, "overview_page"},
    {"input_pipeline.json", PV_FILE_INPUT_PIPELINE_JSON, "input_pipeline_analyzer"},
    {"input_pipeline.pb", PV_FILE_INPUT_PIPELINE_PB, "input_pipeline_analyzer"},
    {"tensorflow_stats.pb", PV_FILE_TF_STATS_PB, "framework_op_stats"},
    {"kernel_stats.pb", PV_FILE_KERNEL_STATS_PB, "kernel_stats"},
    {"memory_profile.json.gz", PV_FILE_MEMORY_PROFILE_JSON_GZ, "memory_profile"},
    {"op_profile.json", PV_FILE_OP_PROFILE_JSON, "op_profile"},
    {"memory_viewer.json", PV_FILE_MEMORY_VIEWER_JSON, "memory_viewer"},
    {"pod_viewer.json", PV_FILE_POD_VIEWER_JSON, "pod_viewer"},
};

pv_file_kind pv_filename_classify(const char *name, size_t *host_len)
{
    size_t n = strlen(name);
    *host_len = 0;
    if (n == 0 || name[0] == '.')
        return PV_FILE_NONE;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        size_t s = strlen(rules[i].suffix);
        if (n == s && strcmp(name, rules[i].suffix) == 0) {
            /* A bare legacy file with no host; an xplane needs a host. */
            return rules[i].kind == PV_FILE_XPLANE ? PV_FILE_NONE : rules[i].kind;
        }
        if (n > s + 1 && name[n - s - 1] == '.' && strcmp(name + n - s, rules[i].suffix) == 0) {
            *host_len = n - s - 1;
            return rules[i].kind;
        }
    }
    return PV_FILE_NONE;
}

const char *pv_filename_tool(pv_file_kind kind)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].kind == kind)
            return rules[i].tool;
    return NULL;
}
