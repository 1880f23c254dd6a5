/* json_out: how every tool's JSON answer is written into a buffer: compact,
 * keys sorted (as the reference's Python json.dumps(sort_keys=True) writes
 * them, so answers compare byte for byte), straight into the caller's
 * pv_buf with no intermediate string. */
#ifndef PV_TOOLS_COMMON_JSON_OUT_H
#define PV_TOOLS_COMMON_JSON_OUT_H

#include "util/buf.h"
#include "util/error.h"

#include <jansson.h>

/* Appends j (consumed; NULL is fine) to out. Returns 0, PV_ENOMEM when j is
 * NULL (a builder ran out of memory) or PV_ETOOBIG past out's cap, with err
 * set. */
int pv_json_write(json_t *j, pv_buf *out, pv_error *err);

#endif
