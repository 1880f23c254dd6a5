/* trace_viewer_tool: the descriptors of trace_viewer and trace_viewer@ on
 * TensorBoard's routes (tools/tool.h), answered with Chrome trace JSON and
 * no event cap, so scripts written against TensorBoard keep working.
 * trace_viewer@ honours start_time_ms / end_time_ms (milliseconds in the
 * same base as "ts") and resolution (default 8000, as the plugin sends),
 * decimating as XProf does on profiles of at least 500,000 events
 * (docs/trace_api.md); the profview-only visibility_threshold changes that
 * bound. Several hosts (ALL_HOSTS, or the hosts= list XProf's trace viewer
 * sends) are written as one trace, a process group per host. The trace
 * viewer's own queries (track list, tiles, events, search, boxes) are
 * parts of trace_viewer (tools/trace_tiles/trace_parts.h). */
#include "tools/chrome_trace/trace_chrome.h"
#include "tools/chrome_trace/trace_visibility.h"
#include "tools/registry.h"
#include "tools/trace_tiles/trace_parts.h"

#include <stdint.h>

enum { P_START, P_END, P_RESOLUTION, P_VISIBILITY };
static const pv_param_decl streaming_params[] = {
    [P_START] = {"start_time_ms", PV_PARAM_NUMBER, "the window's start, in ms as \"ts\" counts",
                 .lo = -9.2e9, .hi = 9.2e9},
    [P_END] = {"end_time_ms", PV_PARAM_NUMBER, "the window's end, in ms as \"ts\" counts",
               .lo = -9.2e9, .hi = 9.2e9},
    [P_RESOLUTION] = {"resolution", PV_PARAM_UINT, "how many pixels the events are kept for",
                      .def = 8000, .max = UINT64_MAX},
    [P_VISIBILITY] = {"visibility_threshold", PV_PARAM_UINT,
                      "the fewest events a profile has before it is decimated",
                      .def = PV_TRACE_VIS_MIN_EVENTS, .max = UINT64_MAX},
};

/* A millisecond parameter as absolute ps; absent or 0 gives def. XProf
 * converts with a plain cast, which truncates. */
static int64_t ms_param(const pv_param_values *v, size_t i, int64_t def)
{
    const pv_param_value *ms = pv_param_at(v, i, PV_PARAM_NUMBER);
    return ms->present && ms->x != 0 ? (int64_t)(ms->x * 1e9) : def;
}

static int streaming_query(const pv_param_values *v, void *out, pv_error *err)
{
    (void)err;
    pv_trace_chrome_query *q = out;
    q->streaming = true;
    q->start_ps = ms_param(v, P_START, INT64_MIN);
    q->end_ps = ms_param(v, P_END, INT64_MAX);
    q->resolution = pv_param_u(v, P_RESOLUTION);
    q->filter_min_events = pv_param_u(v, P_VISIBILITY);
    return 0;
}

static int whole_query(const pv_param_values *v, void *out, pv_error *err)
{
    (void)v;
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


const pv_tool pv_trace_viewer_tool = {
    .name = "trace_viewer",
    .title = "Trace viewer",
    .hidden_by = "trace_viewer@",
    .query_bytes = sizeof(pv_trace_chrome_query),
    .make_query = whole_query,
    .combines_hosts = true,
    .reads_hosts_list = true,
    .write_json = write_json,
    .parts = pv_trace_parts,
    .n_parts = PV_TRACE_N_PARTS,
};

const pv_tool pv_trace_viewer_streaming_tool = {
    .name = "trace_viewer@",
    .title = "Trace viewer",
    .files_of = "trace_viewer",
    PV_PARAM_TABLE(streaming_params),
    .query_bytes = sizeof(pv_trace_chrome_query),
    .make_query = streaming_query,
    .combines_hosts = true,
    .reads_hosts_list = true,
    .write_json = write_json,
};
