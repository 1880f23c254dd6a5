/* filename: what a file in a profile session folder is, from its name
 * alone (FORMATS.md §1.2–1.3). Pure functions, thread-safe. */
#ifndef PV_INDEX_FILENAME_H
#define PV_INDEX_FILENAME_H

#include <stddef.h>

/* Kinds of host file, most preferred first within a tool. */
typedef enum pv_file_kind {
    PV_FILE_NONE = 0,
    PV_FILE_XPLANE,                /* <host>.xplane.pb: every tool */
    PV_FILE_TRACE_JSON_GZ,         /* <host>.trace.json.gz: Chrome trace */
    PV_FILE_TRACE_PB,              /* <host>.trace: legacy Trace proto */
    PV_FILE_OVERVIEW_JSON,         /* overview_page.json */
    PV_FILE_OVERVIEW_PB,           /* overview_page.pb */
    PV_FILE_INPUT_PIPELINE_JSON,   /* input_pipeline.json */
    PV_FILE_INPUT_PIPELINE_PB,     /* input_pipeline.pb */
    PV_FILE_TF_STATS_PB,           /* tensorflow_stats.pb */
    PV_FILE_KERNEL_STATS_PB,       /* kernel_stats.pb */
    PV_FILE_MEMORY_PROFILE_JSON_GZ,/* memory_profile.json.gz */
    PV_FILE_OP_PROFILE_JSON,       /* op_profile.json */
    PV_FILE_MEMORY_VIEWER_JSON,    /* memory_viewer.json */
    PV_FILE_POD_VIEWER_JSON,       /* pod_viewer.json */
    PV_FILE_KIND_COUNT
} pv_file_kind;

/* Classifies a file name (no directory part). On a host file returns its
 * kind and sets *host_len to the length of the host prefix (the host is
 * name[0 .. host_len)); a legacy file with no host part gets host_len 0.
 * Returns PV_FILE_NONE for anything else: side files the reference server
 * writes (.cached_tools.json, *.SSTABLE, op_stats.pb, ...), *.hlo_proto.pb,
 * hidden files. Cannot fail. */
pv_file_kind pv_filename_classify(const char *name, size_t *host_len);

/* The tool a legacy file answers (e.g. "overview_page"); NULL for
 * PV_FILE_XPLANE (which answers every tool) and PV_FILE_NONE. */
const char *pv_filename_tool(pv_file_kind kind);

#endif
