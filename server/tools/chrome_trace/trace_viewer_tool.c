/* trace_viewer_tool: the descriptors of trace_viewer and trace_viewer@ on
 * TensorBoard's routes (tools/tool.h), answered with Chrome trace JSON and
 * no event cap, so scripts written against TensorBoard keep working.
 * trace_viewer@ honours start_time_ms / end_time_ms (milliseconds in the
 * same base as "ts") and resolution (default 8000, as the plugin sends),
 * decimating as XProf does on profiles of at least 500,000 events
 * (docs/trace_api.md); the profview-only visibility_threshold changes that
 * bound. Several hosts (ALL_HOSTS, or the hosts= list XProf's trace viewer
 * sends) are written as one trace, a process group per host. */
#include "tools/chrome_trace/trace_chrome.h"
#include "tools/chrome_trace/trace_visibility.h"
#include "tools/common/params.h"
#include "tools/registry.h"

#include <stdint.h>

/* A millisecond parameter as absolute ps; absent or 0 gives def. XProf
 * converts with a plain cast, which truncates. */
static int ms_param(const pv_params *p, const char *name, int64_t def, int64_t *out,
                    pv_error *err)
{
    double ms = 0;
    bool present;
    *out = def;
    if (pv_param_number(p, name, -9.2e9, 9.2e9, &ms, &present, err) != 0)
        return PV_EINVAL;
    if (present && ms != 0)
        *out = (int64_t)(ms * 1e9);
    return 0;
}

static int streaming_query(const pv_params *p, void *out, pv_error *err)
{
    pv_trace_chrome_query *q = out;
    q->streaming = true;
    if (ms_param(p, "start_time_ms", INT64_MIN, &q->start_ps, err) != 0 ||
        ms_param(p, "end_time_ms", INT64_MAX, &q->end_ps, err) != 0 ||
        pv_param_uint(p, "resolution", 8000, UINT64_MAX, &q->resolution, err) != 0 ||
        pv_param_uint(p, "visibility_threshold", PV_TRACE_VIS_MIN_EVENTS, UINT64_MAX,
                      &q->filter_min_events, err) != 0)
        return PV_EINVAL;
    return 0;
}

static int whole_query(const pv_params *p, void *out, pv_error *err)
{
    (void)p;
    (void)err;
    pv_trace_chrome_query *q = out;
    *q = (pv_trace_chrome_query){false, INT64_MIN, INT64_MAX, 0, PV_TRACE_VIS_MIN_EVENTS};
    return 0;
}

static int write_json(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                      pv_error *err)
{
    (void)result;
    return pv_trace_chrome_write_hosts(in->models, in->hosts, in->n, q, out, err);
}

static const char *const streaming_params[] = {"start_time_ms", "end_time_ms", "resolution",
                                               "visibility_threshold", NULL};
static const char *const no_params[] = {NULL};

const pv_tool pv_trace_viewer_tool = {
    .name = "trace_viewer",
    .title = "Trace viewer",
    .hidden_by = "trace_viewer@",
    .params = no_params,
    .query_bytes = sizeof(pv_trace_chrome_query),
    .read_query = whole_query,
    .combines_hosts = true,
    .reads_hosts_list = true,
    .write_json = write_json,
};

const pv_tool pv_trace_viewer_streaming_tool = {
    .name = "trace_viewer@",
    .title = "Trace viewer",
    .files_of = "trace_viewer",
    .params = streaming_params,
    .query_bytes = sizeof(pv_trace_chrome_query),
    .read_query = streaming_query,
    .combines_hosts = true,
    .reads_hosts_list = true,
    .write_json = write_json,
};
