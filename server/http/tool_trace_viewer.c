/* tool_trace_viewer: /data?tag=trace_viewer and tag=trace_viewer@, the
 * TensorBoard routes, answered with Chrome trace JSON and no event cap so
 * scripts written against TensorBoard keep working. trace_viewer@ honours
 * start_time_ms/end_time_ms (milliseconds in the same base as "ts");
 * resolution is accepted but every event of the window is returned. */
#include "http/tool_table.h"
#include "tools/trace_chrome.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define TRACE_JSON_MAX_BYTES ((size_t)4 << 30)

/* A millisecond parameter as absolute ps; absent or 0 gives def. */
static int ms_param(pv_request *rq, pv_response *rs, const char *name, int64_t def,
                    int64_t *out)
{
    bool bad = false;
    const char *v = pv_http_param(rq, name, &bad);
    *out = def;
    if (v == NULL && !bad)
        return 0;
    char *end = NULL;
    errno = 0;
    double ms = bad ? 0 : strtod(v, &end);
    if (bad || end == v || *end != 0 || errno != 0 || !isfinite(ms) || fabs(ms) > 9.2e9) {
        pv_respond_error(rs, 400, "bad parameter", "start_time_ms and end_time_ms are numbers");
        return -1;
    }
    if (ms != 0)
        *out = (int64_t)llround(ms * 1e9);
    return 0;
}

static void serve(pv_request *rq, pv_response *rs, const pv_model *m, bool streaming)
{
    pv_trace_chrome_query q = {streaming, INT64_MIN, INT64_MAX};
    if (streaming && (ms_param(rq, rs, "start_time_ms", INT64_MIN, &q.start_ps) != 0 ||
                      ms_param(rq, rs, "end_time_ms", INT64_MAX, &q.end_ps) != 0))
        return;
    pv_buf b;
    pv_buf_init(&b, TRACE_JSON_MAX_BYTES);
    pv_error err = {0};
    if (pv_trace_chrome_write(m, &q, &b, &err) != 0) {
        pv_buf_fini(&b);
        pv_respond_pv_error(rs, &err);
        return;
    }
    rs->status = 200;
    rs->content_type = "application/json";
    rs->body = pv_buf_take(&b, &rs->len);
}

void pv_http_tool_trace_viewer(pv_request *rq, pv_response *rs, const pv_model *m)
{
    serve(rq, rs, m, false);
}

void pv_http_tool_trace_viewer_streaming(pv_request *rq, pv_response *rs, const pv_model *m)
{
    serve(rq, rs, m, true);
}
