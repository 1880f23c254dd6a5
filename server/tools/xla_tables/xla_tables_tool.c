/* xla_tables_tool: the descriptors of hlo_stats and roofline_model
 * (tools/tool.h). Both compute the device op metrics of one host
 * (tools/hlo/xla_ops.h) and write XProf's DataTables; the CSV export of
 * each is its op table. Neither combines hosts: XProf offers them per
 * host. */
#include "tools/common/datatable.h"
#include "tools/common/json_out.h"
#include "tools/common/plane_stat.h"
#include "tools/registry.h"
#include "tools/steps/steps.h"
#include "tools/xla_tables/xla_tables.h"

#include <string.h>

typedef struct xla_result {
    pv_xla_op_db db;
    pv_roofline_ctx ctx;
} xla_result;

static int compute(const pv_tool_input *in, const void *q, pv_arena *a, void **result,
                   pv_error *err)
{
    (void)q;
    xla_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    const pv_model *m = in->models[0];
    int rc = pv_xla_ops_build(m, a, &r->db, err);
    if (rc != 0)
        return rc;
    const char *dev = pv_device_type_name(m);
    r->ctx.device_type = dev != NULL ? dev : "";
    pv_steps_result steps;
    rc = pv_tool_steps(m, NULL, a, &steps, err);
    if (rc != 0)
        return rc;
    r->ctx.device_cores = steps.n_device_planes;
    int64_t *nums = pv_arena_alloc(a, (steps.n_steps + 1) * sizeof *nums);
    for (size_t i = 0; i < steps.n_steps; i++)
        nums[i] = steps.steps[i].group_id;
    r->ctx.step_nums = nums;
    /* XProf numbers a TPU's steps from its own step lines, which these
     * traces lack; profview's generic TPU steps are not those */
    r->ctx.n_steps = r->db.env.kind == PV_DEVICE_TPU ? 0 : steps.n_steps;
    return 0;
}

/* ---- hlo_stats -------------------------------------------------------------------- */

/* The tables' strings (program ids, source cells) need an arena that
 * lives while the table is written. */
static json_t *hlo_stats_json(const xla_result *r)
{
    pv_arena a;
    pv_arena_init(&a, (size_t)64 << 10);
    json_t *t = pv_hlo_stats_table(&r->db, &a);
    pv_arena_fini(&a);
    return t;
}

static int hlo_stats_write_json(const pv_tool_input *in, const void *q, const void *result,
                                pv_buf *out, pv_error *err)
{
    (void)in;
    (void)q;
    return pv_json_write(hlo_stats_json(result), out, err);
}

static int write_table_csv(json_t *table, pv_buf *out, pv_error *err)
{
    int rc = table != NULL ? pv_dt_write_csv(table, out, err)
                           : pv_error_set(err, PV_ENOMEM, NULL, PV_NO_OFFSET,
                                          "the table could not be built (out of memory)");
    json_decref(table);
    return rc;
}

static int hlo_stats_write_csv(const pv_tool_input *in, const void *q, const void *result,
                               pv_buf *out, pv_error *err)
{
    (void)in;
    (void)q;
    return write_table_csv(hlo_stats_json(result), out, err);
}

static const char *const hlo_stats_aliases[] = {"hlo_op_stats", NULL};

const pv_tool pv_hlo_stats_tool = {
    .name = "hlo_stats",
    .needs = PV_PROFILE_XLA_OPS,
    .title = "HLO op stats",
    .aliases = hlo_stats_aliases,
    .query_bytes = 1,
    .compute = compute,
    .write_json = hlo_stats_write_json,
    .write_csv = hlo_stats_write_csv,
};

/* ---- roofline_model ------------------------------------------------------------------ */

static json_t *roofline_json(const xla_result *r)
{
    pv_arena a;
    pv_arena_init(&a, (size_t)64 << 10);
    json_t *t = pv_roofline_model_tables(&r->db, &r->ctx, &a);
    pv_arena_fini(&a);
    return t;
}

static int roofline_write_json(const pv_tool_input *in, const void *q, const void *result,
                               pv_buf *out, pv_error *err)
{
    (void)in;
    (void)q;
    return pv_json_write(roofline_json(result), out, err);
}

static int roofline_write_csv(const pv_tool_input *in, const void *q, const void *result,
                              pv_buf *out, pv_error *err)
{
    (void)in;
    (void)q;
    json_t *tables = roofline_json(result);
    json_t *first = json_incref(json_array_get(tables, 0));
    json_decref(tables);
    return write_table_csv(first, out, err);
}

const pv_tool pv_roofline_model_tool = {
    .name = "roofline_model",
    .needs = PV_PROFILE_XLA_OPS,
    .title = "Roofline model",
    .query_bytes = 1,
    .compute = compute,
    .write_json = roofline_write_json,
    .write_csv = roofline_write_csv,
};
