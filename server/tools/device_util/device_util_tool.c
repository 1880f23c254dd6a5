/* device_util_tool: the descriptor of device_utilization (tools/tool.h).
 * The overview page draws it as a curve and the trace viewer as a counter
 * track per device, so it is hidden from run_tools wherever the overview
 * page is listed, rather than shown as a page of its own. One parameter:
 * buckets, how many the window is cut into. */
#include "tools/common/json_out.h"
#include "tools/common/params.h"
#include "tools/device_util/device_util.h"
#include "tools/registry.h"

static int read_query(const pv_params *p, void *q, pv_error *err)
{
    uint64_t n;
    if (pv_param_uint(p, "buckets", PV_DEVICE_UTIL_BUCKETS, PV_DEVICE_UTIL_MAX_BUCKETS, &n,
                      err) != 0)
        return PV_EINVAL;
    if (n == 0)
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "buckets must be a whole number from 1 to %u",
                            PV_DEVICE_UTIL_MAX_BUCKETS);
    ((pv_device_util_query *)q)->n_buckets = (uint32_t)n;
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

static const char *const params[] = {"buckets", NULL};

const pv_tool pv_device_utilization_tool = {
    .name = "device_utilization",
    .title = "Device utilization",
    .hidden_by = "overview_page",
    .params = params,
    .query_bytes = sizeof(pv_device_util_query),
    .read_query = read_query,
    .compute = compute,
    .write_json = write_json,
};
