/* input_pipeline_legacy: the overview page and input pipeline analyzer
 * from the per-tool files TensorFlow 2.2 - 2.x wrote before XPlane
 * (<host>.overview_page.pb, <host>.input_pipeline.pb; FORMATS.md §1.3).
 * The bytes are read into the same result structures the XPlane path
 * fills, so the same JSON writers answer and both pages look the same:
 * per-step times, input ops, breakdown and diagnostics are the file's;
 * summaries are recomputed from its steps, and the verdict statements are
 * the file's own when it has them.
 *
 * Reads protobuf wire format by hand (tools/ does not link protobuf-c);
 * only the fields listed in the .c file are read, everything else is
 * skipped. Pure: no I/O (the caller reads the file), output in the arena. */
#ifndef PV_INGEST_TF_LEGACY_INPUT_PIPELINE_LEGACY_H
#define PV_INGEST_TF_LEGACY_INPUT_PIPELINE_LEGACY_H

#include "tools/steps/overview.h"

/* Reads an InputPipelineAnalysisResult. Returns 0, or PV_EFORMAT (bytes
 * that are not protobuf wire format, or a truncated file) with err set
 * naming path. out is valid only on success. */
int pv_input_pipeline_legacy_read(const uint8_t *data, size_t len, const char *path,
                                  pv_arena *a, pv_input_pipeline_result *out, pv_error *err);

/* Reads an OverviewPage the same way. */
int pv_overview_legacy_read(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                            pv_overview_result *out, pv_error *err);

#endif
