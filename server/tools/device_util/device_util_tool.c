/* device_util_tool: the descriptor of device_utilization (tools/tool.h).
 * The overview page draws it as a curve and the trace viewer as a counter
 * track per device, so it is hidden from run_tools wherever the overview
 * page is listed, rather than shown as a page of its own. One parameter:
 * buckets, how many the window is cut into. */
#include "tools/common/json_out.h"
#include "tools/device_util/device_util.h"
#include "tools/registry.h"

enum { P_BUCKETS };
static const pv_param_decl params[] = {
    [P_BUCKETS] = {"buckets", PV_PARAM_UINT, "how many parts the window is cut into",
                   .def = PV_DEVICE_UTIL_BUCKETS, .min = 1, .max = PV_DEVICE_UTIL_MAX_BUCKETS},
};

static int make_query(const pv_param_values *v, void *q, pv_error *err)
{
    (void)err;
    ((pv_device_util_query *)q)->n_buckets = (uint32_t)pv_param_u(v, P_BUCKETS);
    return 0;
}

static int compute(const pv_tool_input *in, const void *q, pv_arena *a, void **result,
                   pv_error *err)
{
    pv_device_util_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    return pv_tool_device_util(in->models[0], q, a, r, err);
}

static int write_json(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                      pv_error *err)
{
    (void)in;
    (void)q;
    return pv_json_write(pv_device_util_to_json(result), out, err);
}

const pv_tool pv_device_utilization_tool = {
    .name = "device_utilization",
    .title = "Device utilization",
    .hidden_by = "overview_page",
    PV_PARAM_TABLE(params),
    .query_bytes = sizeof(pv_device_util_query),
    .make_query = make_query,
    .compute = compute,
    .write_json = write_json,
};
