/* tool_trace_viewer: /data?tag=trace_viewer and tag=trace_viewer@, the
 * TensorBoard routes, answered with Chrome trace JSON and no event cap so
 * scripts written against TensorBoard keep working. trace_viewer@ honours
 * start_time_ms/end_time_ms (milliseconds in the same base as "ts") and
 * resolution (default 8000, as the plugin sends), decimating as XProf does
 * on profiles of at least 500,000 events (docs/trace_api.md); the
 * profview-only visibility_threshold changes that bound. */
#include "http/target.h"
#include "http/tool_table.h"
#include "index/index.h"
#include "tools/chrome_trace/trace_chrome.h"
#include "tools/chrome_trace/trace_visibility.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_JSON_MAX_BYTES ((size_t)4 << 30)

/* Parameter name as a finite number in [lo, hi) into *x; 1 when absent,
 * 0 when read, -1 (after a 400 saying why) when it is not such a number.
 * *text is the parameter's text when read. */
static int number_param(pv_request *rq, pv_response *rs, const char *name, double lo, double hi,
                        const char *why, double *x, const char **text)
{
    bool bad = false;
    const char *v = pv_http_param(rq, name, &bad);
    if (v == NULL && !bad)
        return 1;
    char *end = NULL;
    errno = 0;
    *x = bad ? lo - 1 : strtod(v, &end);
    if (bad || end == v || *end != 0 || errno != 0 || !isfinite(*x) || *x < lo || *x >= hi) {
        pv_respond_error(rs, 400, "bad parameter", why);
        return -1;
    }
    *text = v;
    return 0;
}

/* A millisecond parameter as absolute ps; absent or 0 gives def. */
static int ms_param(pv_request *rq, pv_response *rs, const char *name, int64_t def,
                    int64_t *out)
{
    double ms = 0;
    const char *text;
    *out = def;
    int rc = number_param(rq, rs, name, -9.2e9, 9.2e9,
                          "start_time_ms and end_time_ms are numbers", &ms, &text);
    /* XProf converts with a plain cast, which truncates. */
    if (rc == 0 && ms != 0)
        *out = (int64_t)(ms * 1e9);
    return rc < 0 ? -1 : 0;
}

/* A count parameter (resolution, visibility_threshold): a non-negative
 * number, a fraction cut off as XProf does; absent gives def. */
static int count_param(pv_request *rq, pv_response *rs, const char *name, uint64_t def,
                       uint64_t *out)
{
    double x = 0;
    const char *v = NULL;
    *out = def;
    int rc = number_param(rq, rs, name, 0, 1.8e19,
                          "resolution and visibility_threshold are non-negative numbers", &x,
                          &v);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    /* Integers are read exactly; strtod would round those above 2^53. */
    char *iend = NULL;
    unsigned long long u = strtoull(v, &iend, 10);
    *out = *iend == 0 && v[0] != '-' ? (uint64_t)u : (uint64_t)x;
    return 0;
}

/* The file host names of the n models, as the reference names processes:
 * the hosts= list, else (ALL_HOSTS) the run's hosts with an XSpace in
 * order, else the host asked for or the run's only one. NULLs where
 * unknown; the names live in the request's arena. */
static const char **host_names(pv_request *rq, size_t n)
{
    const char **names = pv_arena_zalloc(&rq->arena, (n + 1) * sizeof *names);
    bool bad = false;
    const char *list = pv_http_param(rq, "hosts", &bad);
    const char *host = pv_http_param(rq, "host", &bad);
    const char *run_name = pv_http_param(rq, "run", &bad);
    if (bad)
        return names;
    if (list != NULL) {
        char *copy = pv_arena_strdup(&rq->arena, list);
        size_t i = 0;
        for (char *save = NULL, *name = strtok_r(copy, ",", &save); name != NULL && i < n;
             name = strtok_r(NULL, ",", &save))
            names[i++] = name;
        return names;
    }
    if (host != NULL && strcmp(host, "ALL_HOSTS") != 0) {
        names[0] = host;
        return names;
    }
    if (run_name == NULL)
        return names;
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    const pv_run *run = pv_index_run_find(ix, run_name);
    size_t k = 0;
    for (size_t i = 0; run != NULL && i < run->n_hosts && k < n; i++)
        if (n == 1 || pv_host_file_find(&run->hosts[i], PV_FILE_XPLANE) != NULL)
            names[k++] = pv_arena_strdup(&rq->arena, run->hosts[i].name);
    pv_index_store_release(rq->app->index, ix);
    return names;
}

/* models: one per host, in the run's order. */
static void serve(pv_request *rq, pv_response *rs, const pv_model *const *models, size_t n,
                  bool streaming)
{
    pv_trace_chrome_query q = {streaming, INT64_MIN, INT64_MAX, 0, PV_TRACE_VIS_MIN_EVENTS};
    if (streaming && (ms_param(rq, rs, "start_time_ms", INT64_MIN, &q.start_ps) != 0 ||
                      ms_param(rq, rs, "end_time_ms", INT64_MAX, &q.end_ps) != 0 ||
                      count_param(rq, rs, "resolution", 8000, &q.resolution) != 0 ||
                      count_param(rq, rs, "visibility_threshold", PV_TRACE_VIS_MIN_EVENTS,
                                  &q.filter_min_events) != 0))
        return;
    pv_buf b;
    pv_buf_init(&b, TRACE_JSON_MAX_BYTES);
    pv_error err = {0};
    const char **hosts = host_names(rq, n);
    if (pv_trace_chrome_write_hosts(models, hosts, n, &q, &b, &err) != 0) {
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
    serve(rq, rs, &m, 1, false);
}

void pv_http_tool_trace_viewer_streaming(pv_request *rq, pv_response *rs, const pv_model *m)
{
    serve(rq, rs, &m, 1, true);
}

void pv_http_tool_trace_viewer_multi(pv_request *rq, pv_response *rs,
                                     const pv_model *const *models, size_t n_models)
{
    serve(rq, rs, models, n_models, false);
}

void pv_http_tool_trace_viewer_streaming_multi(pv_request *rq, pv_response *rs,
                                               const pv_model *const *models, size_t n_models)
{
    serve(rq, rs, models, n_models, true);
}
