/* memory_viewer_tool: the memory_viewer descriptor (tools/tool.h). The
 * module is named as XProf's frontend names it, module_name
 * "<name>(<program id>)" from the module list, or by program_id; the
 * memory space by memory_space (0, the device's main memory, when
 * absent). XProf offers it per host. */
#include "tools/common/json_out.h"
#include "tools/hlo/hlo_modules.h"
#include "tools/memory_viewer/memory_viewer.h"
#include "tools/registry.h"

#include <inttypes.h>
#include <string.h>

typedef struct mv_query {
    pv_hlo_module_query module;
    uint64_t memory_space;
} mv_query;

enum { P_MEMORY_SPACE = PV_HLO_MODULE_N_PARAMS };
static const pv_param_decl params[] = {
    PV_HLO_MODULE_PARAMS,
    [P_MEMORY_SPACE] = {"memory_space", PV_PARAM_UINT,
                        "the memory space (0: the device's main memory)", .max = INT32_MAX},
};

static int make_query(const pv_param_values *v, void *out, pv_error *err)
{
    (void)err;
    mv_query *q = out;
    pv_hlo_module_query_of(v, &q->module);
    q->memory_space = pv_param_u(v, P_MEMORY_SPACE);
    return 0;
}

static int compute(const pv_tool_input *in, const void *qv, pv_arena *a, void **result,
                   pv_error *err)
{
    const mv_query *q = qv;
    const pv_model *m = in->models[0];
    uint64_t program;
    int rc = pv_hlo_module_query_program(m, &q->module, &program, err);
    if (rc != 0)
        return rc;
    pv_memory_viewer *mv = pv_arena_zalloc(a, sizeof *mv);
    *result = mv;
    return pv_memory_viewer_build(m, program, (int64_t)q->memory_space, a, mv, err);
}

static int write_json(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                      pv_error *err)
{
    (void)in;
    (void)q;
    return pv_json_write(pv_memory_viewer_json(result), out, err);
}

const pv_tool pv_memory_viewer_tool = {
    .name = "memory_viewer",
    .title = "Memory viewer",
    PV_PARAM_TABLE(params),
    .query_bytes = sizeof(mv_query),
    .make_query = make_query,
    .compute = compute,
    .needs = PV_PROFILE_HLO,
    .per_module = true,
    .write_json = write_json,
};
