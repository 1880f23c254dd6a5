/* op_stats_tool: the descriptor of framework_op_stats (TensorBoard's older
 * name: tensorflow_stats; tools/tool.h). The answer is the reference's
 * [with IDLE, without IDLE] DataTables, 500 ops per side; max_ops=N (0 =
 * all) raises the cap for profview's page; group_by=input_shape or
 * call_stack gives a PyTorch trace's operators a row per operator and
 * input shape, or call stack (group_by=operator, the default: per name).
 * The CSV export is one of the two tables: without IDLE unless
 * include_idle=1, as the page shows it. */
#include "tools/common/datatable.h"
#include "tools/common/json_out.h"
#include "tools/op_stats/op_stats.h"
#include "tools/registry.h"

#include <stdint.h>

typedef struct op_stats_params {
    pv_op_stats_query q;
    bool include_idle;   /* CSV: the table with the IDLE row */
} op_stats_params;

enum { P_MAX_OPS, P_INCLUDE_IDLE, P_GROUP_BY };
static const char *const groups[] = {"operator", "input_shape", "call_stack", NULL};
static const pv_param_decl params[] = {
    [P_MAX_OPS] = {"max_ops", PV_PARAM_UINT, "ops kept on each side, the longest first (0: all)",
                   .def = PV_OP_STATS_REFERENCE_OPS, .max = SIZE_MAX},
    [P_INCLUDE_IDLE] = {"include_idle", PV_PARAM_SWITCH,
                        "the CSV export is the table with the IDLE row"},
    [P_GROUP_BY] = {"group_by", PV_PARAM_CHOICE,
                    "a row per operator, per operator and input shape, or per call stack",
                    .def = PV_OP_GROUP_OPERATOR, .choices = groups},
};

static int make_query(const pv_param_values *v, void *out, pv_error *err)
{
    (void)err;
    op_stats_params *q = out;
    uint64_t max_ops = pv_param_u(v, P_MAX_OPS);
    /* 0 asks for every op: the tool's own "no cap" is SIZE_MAX. */
    q->q.max_ops_per_side = max_ops == 0 ? SIZE_MAX : (size_t)max_ops;
    q->q.group = (pv_op_group)pv_param_u(v, P_GROUP_BY);
    q->include_idle = pv_param_on(v, P_INCLUDE_IDLE);
    return 0;
}

static int compute(const pv_tool_input *in, const void *q, pv_arena *a, void **result,
                   pv_error *err)
{
    const op_stats_params *o = q;
    pv_op_stats_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    return in->n == 1 ? pv_tool_op_stats(in->models[0], &o->q, a, r, err)
                      : pv_tool_op_stats_multi(in->models, in->n, &o->q, a, r, err);
}

static int write_json(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                      pv_error *err)
{
    (void)in;
    (void)q;
    return pv_json_write(pv_op_stats_to_json(result), out, err);
}

static int write_csv(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                     pv_error *err)
{
    (void)in;
    json_t *both = pv_op_stats_to_json(result);
    const json_t *table = json_array_get(both, ((const op_stats_params *)q)->include_idle ? 0 : 1);
    int rc = pv_dt_write_csv(table, out, err);
    json_decref(both);
    return rc;
}

static const char *const aliases[] = {"tensorflow_stats", NULL};

const pv_tool pv_framework_op_stats_tool = {
    .name = "framework_op_stats",
    .title = "Framework op stats",
    .aliases = aliases,
    PV_PARAM_TABLE(params),
    .query_bytes = sizeof(op_stats_params),
    .make_query = make_query,
    .compute = compute,
    .combines_hosts = true,
    .lists_all_hosts = true,
    .write_json = write_json,
    .write_csv = write_csv,
};
