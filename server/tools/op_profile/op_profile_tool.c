/* op_profile_tool: the descriptor of op_profile (tools/tool.h): the op
 * tree of one host, grouped by program (XProf's default) or by category
 * (group_by=category), with at most 100 ops per node as XProf keeps. */
#include "tools/common/json_out.h"
#include "tools/common/plane_stat.h"
#include "tools/op_profile/op_profile.h"
#include "tools/registry.h"

typedef struct op_profile_params {
    unsigned group_by;   /* pv_op_profile_grouping */
} op_profile_params;

typedef struct op_profile_result {
    pv_xla_op_db db;
    pv_op_profile tree;
    const char *device_type;   /* XProf's hardware type name */
} op_profile_result;

enum { P_GROUP_BY };
static const char *const groupings[] = {"program", "category", NULL};
static const pv_param_decl params[] = {
    [P_GROUP_BY] = {"group_by", PV_PARAM_CHOICE, "the op tree by program or by category",
                    .def = PV_OP_PROFILE_BY_PROGRAM, .choices = groupings},
};

static int make_query(const pv_param_values *v, void *out, pv_error *err)
{
    (void)err;
    ((op_profile_params *)out)->group_by = (unsigned)pv_param_u(v, P_GROUP_BY);
    return 0;
}

static int compute(const pv_tool_input *in, const void *q, pv_arena *a, void **result,
                   pv_error *err)
{
    const op_profile_params *k = q;
    op_profile_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    const pv_model *m = in->models[0];
    int rc = pv_xla_ops_build(m, a, &r->db, err);
    if (rc != 0)
        return rc;
    pv_op_profile_build(m, &r->db, (pv_op_profile_grouping)k->group_by, PV_OP_PROFILE_LIMIT, a,
                        &r->tree);
    r->device_type = r->db.env.kind == PV_DEVICE_GPU   ? "GPU"
                     : r->db.env.kind == PV_DEVICE_TPU ? "TPU"
                                                       : "CPU_ONLY";
    return 0;
}

static int write_json(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                      pv_error *err)
{
    (void)in;
    (void)q;
    const op_profile_result *r = result;
    return pv_json_write(pv_op_profile_to_json(&r->tree, r->device_type), out, err);
}

static const char *const aliases[] = {"hlo_op_profile", NULL};

const pv_tool pv_op_profile_tool = {
    .name = "op_profile",
    .title = "Op profile",
    .aliases = aliases,
    PV_PARAM_TABLE(params),
    .query_bytes = sizeof(op_profile_params),
    .make_query = make_query,
    .compute = compute,
    .needs = PV_PROFILE_XLA_OPS,
    .write_json = write_json,
};
