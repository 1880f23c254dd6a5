/* tf_legacy: TensorFlow's legacy per-tool files, the answers TensorFlow
 * wrote beside (or, before TensorFlow 2.2, instead of) the XSpace
 * (FORMATS.md §1.3): JSON served as it is, and protobufs converted into the
 * results of the tools that answer from them (input_pipeline_legacy.h,
 * legacy_stats.h). One pv_format each, listed by ingest/formats.c.
 * TensorFlow wrote tools' answers here, not events, so this folder fills
 * tools' result structs: the one arrow from ingest/ into tools/. */
#ifndef PV_INGEST_TF_LEGACY_TF_LEGACY_H
#define PV_INGEST_TF_LEGACY_TF_LEGACY_H

#include "ingest/formats.h"

extern const pv_format pv_format_tf_trace_pb;
extern const pv_format pv_format_tf_overview_json;
extern const pv_format pv_format_tf_overview_pb;
extern const pv_format pv_format_tf_input_pipeline_json;
extern const pv_format pv_format_tf_input_pipeline_pb;
extern const pv_format pv_format_tf_stats_pb;
extern const pv_format pv_format_tf_kernel_stats_pb;
extern const pv_format pv_format_tf_memory_profile_json_gz;
extern const pv_format pv_format_tf_op_profile_json;
extern const pv_format pv_format_tf_memory_viewer_json;
extern const pv_format pv_format_tf_pod_viewer_json;

/* ---- the protobuf files' decoders (pv_answer_decode_fn), inside this folder */
int pv__tf_legacy_overview(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                           void **result, pv_error *err);
int pv__tf_legacy_input_pipeline(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                                 void **result, pv_error *err);
int pv__tf_legacy_kernel_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                               void **result, pv_error *err);
int pv__tf_legacy_op_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                           void **result, pv_error *err);

#endif
