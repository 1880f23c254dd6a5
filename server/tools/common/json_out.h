/* json_out: how every tool's JSON answer is written into a buffer: compact,
 * keys sorted (as the reference's Python json.dumps(sort_keys=True) writes
 * them, so answers compare byte for byte), straight into the caller's
 * pv_buf with no intermediate string.
 *
 * A small answer is a jansson tree dumped whole (pv_json_write). A big one
 * (a step table of 70,000 rows is a million jansson values: seconds to
 * build and sort) is streamed through the trace tools' staging writer
 * (tools/common/json_stream.h), its small parts still dumped from trees
 * (pv_json_tree) and its rows written with pv_json_real and pv_json_text,
 * which give exactly the bytes jansson gives for the same values, so a
 * streamed answer is byte for byte the dump of the tree it replaces. */
#ifndef PV_TOOLS_COMMON_JSON_OUT_H
#define PV_TOOLS_COMMON_JSON_OUT_H

#include "tools/common/json_stream.h"
#include "util/buf.h"
#include "util/error.h"

#include <jansson.h>

/* Appends j (consumed; NULL is fine) to out. Returns 0, PV_ENOMEM when j is
 * NULL (a builder ran out of memory) or PV_ETOOBIG past out's cap, with err
 * set. */
int pv_json_write(json_t *j, pv_buf *out, pv_error *err);

/* Appends j (consumed) as pv_json_write would. A NULL j (out of memory)
 * sets w->rc to PV_ENOMEM, so the writer's single check at the end sees
 * it. */
void pv_json_tree(pv__jw *w, json_t *j);

/* d as jansson dumps json_real(d) (%.17g, ".0" added to a whole number,
 * the exponent without '+' or leading zeros); a NaN or infinity as 0.0, as
 * pv_dt_real makes it. */
void pv_json_real(pv__jw *w, double d);

/* s as jansson dumps pv_dt_text(s): quoted, with jansson's escapes; a
 * string that is not UTF-8 with every non-ASCII byte as '?'. */
void pv_json_text(pv__jw *w, const char *s);

/* The tree of the JSON text in b (NULL when it is not JSON or memory runs
 * out): a streamed answer as a tree, for those that read it as one. */
json_t *pv_json_loadb(const pv_buf *b);

/* Flushes w and turns its code into err: 0, PV_ENOMEM or PV_ETOOBIG. */
int pv_json_finish(pv__jw *w, pv_error *err);

#endif
