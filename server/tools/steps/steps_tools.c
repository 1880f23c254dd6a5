/* steps_tools: the descriptors of overview_page and input_pipeline_analyzer
 * (tools/tool.h). Both read the steps of steps.h and take one parameter:
 * host_steps=1 also counts the host threads' events inside each device
 * step, as TensorFlow 2.x did, which is what shows input waits and kernel
 * launch time on GPU profiles (the page offers it as a switch); by default
 * the steps are XProf's (device events only when a device exists, first
 * and last step dropped when there are more than 5). Several hosts
 * (ALL_HOSTS) are combined over the steps every host recorded. */
#include "tools/registry.h"
#include "tools/steps/overview.h"

enum { P_HOST_STEPS };
static const pv_param_decl steps_params[] = {
    [P_HOST_STEPS] = {"host_steps", PV_PARAM_SWITCH,
                      "also counts the host threads' events inside each device step"},
};

static void read_steps(const pv_param_values *v, pv_steps_query *q)
{
    q->drop_incomplete = true;
    q->merge_host_with_device = pv_param_on(v, P_HOST_STEPS);
}

/* ---- overview_page ----------------------------------------------------------- */

static int overview_query(const pv_param_values *v, void *q, pv_error *err)
{
    (void)err;
    read_steps(v, &((pv_overview_query *)q)->steps);
    return 0;
}

static int overview_compute(const pv_tool_input *in, const void *q, pv_arena *a, void **result,
                            pv_error *err)
{
    pv_overview_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    return in->n == 1 ? pv_tool_overview(in->models[0], q, a, r, err)
                      : pv_tool_overview_multi(in->models, in->n, q, a, r, err);
}

static int overview_json(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                         pv_error *err)
{
    (void)in;
    (void)q;
    return pv_overview_write(result, out, err);
}

const pv_tool pv_overview_page_tool = {
    .name = "overview_page",
    .title = "Overview",
    PV_PARAM_TABLE(steps_params),
    .query_bytes = sizeof(pv_overview_query),
    .make_query = overview_query,
    .compute = overview_compute,
    .combines_hosts = true,
    .lists_all_hosts = true,
    .write_json = overview_json,
};

/* ---- input_pipeline_analyzer --------------------------------------------------- */

static int input_pipeline_query(const pv_param_values *v, void *q, pv_error *err)
{
    (void)err;
    read_steps(v, &((pv_input_pipeline_query *)q)->steps);
    return 0;
}

static int input_pipeline_compute(const pv_tool_input *in, const void *q, pv_arena *a,
                                  void **result, pv_error *err)
{
    pv_input_pipeline_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    return in->n == 1 ? pv_tool_input_pipeline(in->models[0], q, a, r, err)
                      : pv_tool_input_pipeline_multi(in->models, in->n, q, a, r, err);
}

static int input_pipeline_json(const pv_tool_input *in, const void *q, const void *result,
                               pv_buf *out, pv_error *err)
{
    (void)in;
    (void)q;
    return pv_input_pipeline_write(result, out, err);
}

static const char *const input_pipeline_aliases[] = {"input_pipeline", NULL};

const pv_tool pv_input_pipeline_analyzer_tool = {
    .name = "input_pipeline_analyzer",
    .title = "Input pipeline analyzer",
    .aliases = input_pipeline_aliases,
    PV_PARAM_TABLE(steps_params),
    .query_bytes = sizeof(pv_input_pipeline_query),
    .make_query = input_pipeline_query,
    .compute = input_pipeline_compute,
    .combines_hosts = true,
    .lists_all_hosts = true,
    .write_json = input_pipeline_json,
};
