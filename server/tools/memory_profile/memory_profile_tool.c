/* memory_profile_tool: the descriptor of memory_profile (tools/tool.h). The
 * answer is the reference's MemoryProfile JSON; profview's page adds
 * pv_extras=1 to also get the allocation and free times and the event
 * counts it shows (docs/memory_profile.md). One host at a time, as in the
 * reference. */
#include "tools/common/json_out.h"
#include "tools/memory_profile/memory_profile.h"
#include "tools/registry.h"

typedef struct memory_profile_params {
    bool extras;   /* pv_extras=1 */
} memory_profile_params;

enum { P_EXTRAS };
static const pv_param_decl params[] = {
    [P_EXTRAS] = {"pv_extras", PV_PARAM_SWITCH,
                  "adds the allocation and free times and the event counts"},
};

static int make_query(const pv_param_values *v, void *out, pv_error *err)
{
    (void)err;
    ((memory_profile_params *)out)->extras = pv_param_on(v, P_EXTRAS);
    return 0;
}

static int compute(const pv_tool_input *in, const void *q, pv_arena *a, void **result,
                   pv_error *err)
{
    (void)q;
    pv_memory_profile_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    return pv_tool_memory_profile(in->models[0], NULL, a, r, err);
}

static int write_json(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                      pv_error *err)
{
    return pv_json_write(pv_memory_profile_to_json(in->models[0], result,
                                                   ((const memory_profile_params *)q)->extras),
                         out, err);
}

const pv_tool pv_memory_profile_tool = {
    .name = "memory_profile",
    .title = "Memory profile",
    PV_PARAM_TABLE(params),
    .query_bytes = sizeof(memory_profile_params),
    .make_query = make_query,
    .compute = compute,
    .write_json = write_json,
};
