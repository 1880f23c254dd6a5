/* tool_memory_profile: /data?tag=memory_profile. Answers the reference's
 * MemoryProfile JSON; the profview page adds pv_extras=1 to also get the
 * allocation/free times and event counts it shows. */
#include "http/tool_table.h"
#include "tools/memory_profile/memory_profile.h"

#include <string.h>

void pv_http_tool_memory_profile(pv_request *rq, pv_response *rs, const pv_model *m)
{
    bool bad = false;
    const char *extras = pv_http_param(rq, "pv_extras", &bad);
    if (bad) {
        pv_respond_error(rs, 400, "bad parameter", "pv_extras must be 0 or 1");
        return;
    }
    pv_memory_profile_result r;
    pv_error err = {0};
    if (pv_tool_memory_profile(m, NULL, &rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    json_t *j = pv_memory_profile_to_json(m, &r, extras != NULL && strcmp(extras, "1") == 0);
    if (j == NULL) {
        pv_respond_error(rs, 500, "internal error", "the memory profile could not be serialised");
        return;
    }
    pv_respond_json(rs, 200, j);
}
