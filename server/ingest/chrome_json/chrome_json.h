/* chrome_json: the Chrome trace event format (FORMATS.md §6) as written by
 * PyTorch's profiler (Kineto, <worker>.<timestamp>.pt.trace.json[.gz]),
 * by TensorFlow's legacy tools (<host>.trace.json.gz) and by anything else
 * that writes trace events (<host>.trace.json): one streaming decoder, the
 * JSON object or bare-array form, plain or gzip'd (recognised by its
 * bytes, not its name). The folder's files are listed in cj_priv.h. */
#ifndef PV_INGEST_CHROME_JSON_CHROME_JSON_H
#define PV_INGEST_CHROME_JSON_CHROME_JSON_H

#include "ingest/formats.h"

extern const pv_format pv_format_pt_trace_json_gz;
extern const pv_format pv_format_pt_trace_json;
extern const pv_format pv_format_trace_json_gz;
extern const pv_format pv_format_trace_json;

/* Whether data (at most PV_INGEST_SNIFF_BYTES) starts like trace JSON: an
 * object with a string key, or an array, possibly gzip'd (the start is
 * inflated to see). Pure. */
bool pv_chrome_json_sniff(const uint8_t *data, size_t len);

/* Fills b from the trace in src, or fails with err naming the file and
 * the byte. A trace cut off (a crashed run) keeps the events before the
 * cut and says so in the model's warnings. */
int pv_decode_chrome_json(const pv_ingest_src *src, pv_model_builder *b, pv_error *err);

#endif
