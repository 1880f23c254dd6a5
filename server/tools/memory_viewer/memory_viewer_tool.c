/* memory_viewer_tool: the memory_viewer descriptor (tools/tool.h). The
 * module is named as XProf's frontend names it, module_name
 * "<name>(<program id>)" from the module list, or by program_id; the
 * memory space by memory_space (0, the device's main memory, when
 * absent). XProf offers it per host. */
#include "tools/common/json_out.h"
#include "tools/common/params.h"
#include "tools/memory_viewer/memory_viewer.h"
#include "tools/registry.h"

#include <inttypes.h>
#include <string.h>

typedef struct mv_query {
    const char *module_name;   /* NULL when absent */
    uint64_t program_id;
    bool has_program_id;
    uint64_t memory_space;
} mv_query;

static int read_query(const pv_params *p, void *out, pv_error *err)
{
    mv_query *q = out;
    int rc = pv_param_text(p, "module_name", &q->module_name, err);
    if (rc == 0)
        rc = pv_param_uint(p, "program_id", UINT64_MAX, UINT64_MAX, &q->program_id, err);
    q->has_program_id = q->program_id != UINT64_MAX;
    if (rc == 0)
        rc = pv_param_uint(p, "memory_space", 0, INT32_MAX, &q->memory_space, err);
    return rc;
}

static int compute(const pv_tool_input *in, const void *qv, pv_arena *a, void **result,
                   pv_error *err)
{
    const mv_query *q = qv;
    const pv_model *m = in->models[0];
    uint64_t program = q->program_id;
    if (!q->has_program_id) {
        if (q->module_name == NULL || q->module_name[0] == '\0')
            return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                                "module_name or program_id must name an HLO module "
                                "(module_list lists them)");
        if (!pv_memory_viewer_program(m, q->module_name, &program))
            return pv_error_set(err, PV_ENOTFOUND, NULL, PV_NO_OFFSET,
                                "no HLO module %s in this profile", q->module_name);
    }
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

static const char *const params[] = {"module_name", "program_id", "memory_space", NULL};

const pv_tool pv_memory_viewer_tool = {
    .name = "memory_viewer",
    .title = "Memory viewer",
    .params = params,
    .query_bytes = sizeof(mv_query),
    .read_query = read_query,
    .compute = compute,
    .needs_hlo = true,
    .write_json = write_json,
};
