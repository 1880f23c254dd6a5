/* legacy_file: reading one of TensorFlow's legacy per-tool files whole and
 * answering a tool from it. api_data.c serves the JSON ones as they are;
 * tool_overview.c and tool_legacy_stats.c convert the .pb ones, and all
 * three read the file the same way, here. Internal to server/http. */
#ifndef PV_HTTP_LEGACY_FILE_H
#define PV_HTTP_LEGACY_FILE_H

#include "http/http.h"
#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Reads the whole file at path into a new buffer of *len bytes plus a NUL
 * the caller frees. Returns 0, or PV_EIO (cannot open or read) or
 * PV_ETOOBIG (not a regular file of at most max_bytes) with err set and
 * *out, *len unchanged. */
int pv__http_read_file(const char *path, size_t max_bytes, char **out, size_t *len,
                       pv_error *err);

/* Turns the len bytes of the legacy file at path into the tool's JSON in
 * *out, allocating from a. Returns 0, or a PV_E* code with err set. */
typedef int (*pv__legacy_convert_fn)(const uint8_t *data, size_t len, const char *path,
                                     pv_arena *a, json_t **out, pv_error *err);

/* Fills rs with what convert makes of the file at path (at most max_bytes):
 * 200 and the JSON, the error of reading or converting, or 500 when the
 * JSON could not be built. */
void pv__http_legacy_respond(pv_response *rs, const char *path, size_t max_bytes,
                             pv__legacy_convert_fn convert);

#endif
