/* api_trace: the trace viewer's own routes (docs/trace_api.md):
 * api/trace/meta, tile, event, search and aggregate, each a part of the
 * trace viewer's descriptor (tools/trace_tiles/trace_parts.h) answered for the
 * run and host the request names; how each is kept, tagged and sent is the
 * part's and the answer layer's. */
#include "http/http.h"
#include "http/target.h"
#include "tools/registry.h"

#include <string.h>

/* Answers the part of trace_viewer the path names (api/trace/<part>) for
 * ?run=&host=. */
void pv_serve_trace_part(pv_request *rq, pv_response *rs)
{
    const char *slash = strrchr(rq->path, '/');
    const pv_tool *tv = pv_tool_find("trace_viewer");
    const pv_tool_part *part = slash != NULL ? pv_tool_part_find(tv, slash + 1) : NULL;
    if (part == NULL) {
        pv_respond_error(rs, 404, "not found", "the trace viewer has no such query");
        return;
    }
    pv_http_target t = {0};
    if (pv_http_target_resolve(rq, rs, NULL, &t) != 0)
        return;
    pv_ask ask = pv_http_ask(rq, tv, part, PV_ANSWER_JSON, t.run->name, t.ix->logdir, &t.host, 1,
                             false);
    pv_http_answer(rq, rs, &ask);
    pv_http_target_release(rq, &t);
}
