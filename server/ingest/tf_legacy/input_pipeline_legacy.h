/* input_pipeline_legacy: the overview page and input pipeline analyzer
 * from the per-tool files TensorFlow 2.2 - 2.x wrote before XPlane
 * (<host>.overview_page.pb, <host>.input_pipeline.pb; FORMATS.md §1.3).
 * The bytes are read into the same result structures the XPlane path
 * fills, so the same JSON writers answer and both pages look the same:
 * per-step times, input ops, breakdown and diagnostics are the file's;
 * summaries are recomputed from its steps, and the verdict statements are
 * the file's own when it has them.
 *
 * The bytes are unpacked with the code protoc-c generates from
 * proto/overview_page.proto and proto/input_pipeline.proto (only the
 * fields declared there are read), into the caller's arena under a cap
 * proportional to the file (ingest/pb_arena.h). Pure: no I/O (the caller
 * reads the file); the result, strings included, lives in the arena. */
#ifndef PV_INGEST_TF_LEGACY_INPUT_PIPELINE_LEGACY_H
#define PV_INGEST_TF_LEGACY_INPUT_PIPELINE_LEGACY_H

#include "tools/steps/overview.h"

/* Reads an InputPipelineAnalysisResult. Returns 0, or with err set naming
 * path: PV_EFORMAT (bytes that are not that message: cut short, a field
 * of the wrong wire type, a length past the end), PV_ETOOBIG (past the
 * unpacking cap) or PV_ENOTIMPL (TPU step details). out is valid only on
 * success. */
int pv_input_pipeline_legacy_read(const uint8_t *data, size_t len, const char *path,
                                  pv_arena *a, pv_input_pipeline_result *out, pv_error *err);

/* Reads an OverviewPage the same way. */
int pv_overview_legacy_read(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                            pv_overview_result *out, pv_error *err);

#endif
