/* target: the run and host (and tool) a request names, looked up in the
 * index by exact name (so no parameter ever becomes part of a file path),
 * shared by /data and the api/ routes. A resolved target holds an index
 * snapshot until released; its pointers are valid until then. */
#ifndef PV_HTTP_TARGET_H
#define PV_HTTP_TARGET_H

#include "http/http.h"

#include <stdbool.h>

typedef struct pv_http_target {
    pv_index *ix;          /* held snapshot; release with pv_http_target_release */
    const pv_run *run;
    const pv_host *host;
} pv_http_target;

/* The tool named by ?tag= (or ?tool=), aliases included, or NULL with rs
 * filled (400 when absent, 404 when no tool has that name). */
const pv_tool *pv_http_target_tool(pv_request *rq, pv_response *rs);
/* Resolves ?run=&host=. host may be left out when the run has one. When t
 * is not NULL, the host must have something that answers t. Returns 0, or
 * -1 with rs filled (400/404) and nothing held. */
int pv_http_target_resolve(pv_request *rq, pv_response *rs, const pv_tool *t,
                           pv_http_target *out);
/* The run named name in ix, or NULL with rs filled (404 naming it). */
const pv_run *pv_http_target_find_run(pv_response *rs, const pv_index *ix, const char *name);
/* Releases the snapshot. A zeroed or already released target is fine. */
void pv_http_target_release(pv_request *rq, pv_http_target *t);

#endif
