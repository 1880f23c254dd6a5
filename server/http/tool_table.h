/* tool_table: which tools profview computes from a profile model, and the
 * handler that turns a model into each tool's response. A tool missing
 * here answers 501 (not built yet) rather than an empty 200. */
#ifndef PV_HTTP_TOOL_TABLE_H
#define PV_HTTP_TOOL_TABLE_H

#include "http/http.h"
#include "model/model.h"

/* Fills rs from the model for the request's parameters. */
typedef void (*pv_model_tool_fn)(pv_request *rq, pv_response *rs, const pv_model *m);

/* The handler for a tool name (aliases accepted), or NULL when profview
 * does not compute that tool. */
pv_model_tool_fn pv_tool_table_find(const char *tool);

/* Fills rs from several hosts' models (the ALL_HOSTS pseudo host). */
typedef void (*pv_multi_tool_fn)(pv_request *rq, pv_response *rs,
                                 const pv_model *const *models, size_t n_models);

/* The ALL_HOSTS handler for a tool name, or NULL when profview does not
 * combine hosts for that tool (ALL_HOSTS then answers 404). */
pv_multi_tool_fn pv_tool_table_find_multi(const char *tool);

/* ---- handlers, one file each (tool_<name>.c) ---- */
void pv_http_tool_memory_profile(pv_request *rq, pv_response *rs, const pv_model *m);
void pv_http_tool_trace_viewer(pv_request *rq, pv_response *rs, const pv_model *m);
void pv_http_tool_trace_viewer_streaming(pv_request *rq, pv_response *rs, const pv_model *m);
/* ALL_HOSTS: every host's trace in one Chrome JSON (tool_trace_viewer.c). */
void pv_http_tool_trace_viewer_multi(pv_request *rq, pv_response *rs,
                                     const pv_model *const *models, size_t n_models);
void pv_http_tool_trace_viewer_streaming_multi(pv_request *rq, pv_response *rs,
                                               const pv_model *const *models, size_t n_models);
void pv_http_tool_overview(pv_request *rq, pv_response *rs, const pv_model *m);
void pv_http_tool_input_pipeline(pv_request *rq, pv_response *rs, const pv_model *m);
void pv_http_tool_overview_multi(pv_request *rq, pv_response *rs, const pv_model *const *models,
                                 size_t n_models);
void pv_http_tool_input_pipeline_multi(pv_request *rq, pv_response *rs,
                                       const pv_model *const *models, size_t n_models);
/* overview_page (overview true) or input_pipeline_analyzer from a legacy
 * overview_page.pb / input_pipeline.pb at path (tool_overview.c). */
void pv_http_legacy_overview(pv_response *rs, const char *path, bool overview);
void pv_http_tool_kernel_stats(pv_request *rq, pv_response *rs, const pv_model *m);
void pv_http_tool_op_stats(pv_request *rq, pv_response *rs, const pv_model *m);
void pv_http_tool_kernel_stats_multi(pv_request *rq, pv_response *rs,
                                     const pv_model *const *models, size_t n_models);
void pv_http_tool_op_stats_multi(pv_request *rq, pv_response *rs, const pv_model *const *models,
                                 size_t n_models);
/* kernel_stats.pb (kernel_stats true) or tensorflow_stats.pb at path. */
void pv_http_legacy_kernel_op_stats(pv_response *rs, const char *path, bool kernel_stats);

#endif
