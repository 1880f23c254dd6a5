/* tool_overview: /data?tag=overview_page and /data?tag=input_pipeline_analyzer.
 * Both answer the reference's DataTable arrays from the same step
 * analysis. By default the steps are XProf's (device events only when a
 * device exists; first and last step dropped when there are more than 5).
 * host_steps=1 also counts the host threads' events inside each device
 * step, as TensorFlow 2.x did, which is what shows input waits and kernel
 * launch time on GPU profiles; the page offers it as a switch.
 * pv_http_legacy_overview answers the same tools from the per-tool .pb
 * files older TensorFlow wrote (api_data.c calls it for those files).
 * The _multi handlers answer the ALL_HOSTS pseudo host. */
#include "http/legacy_file.h"
#include "http/tool_table.h"
#include "ingest/tf_legacy/input_pipeline_legacy.h"
#include "tools/steps/overview.h"

#include <string.h>

/* Reads host_steps; returns false (and answers 400) when malformed. */
static bool steps_query(pv_request *rq, pv_response *rs, pv_steps_query *q)
{
    bool bad = false;
    const char *v = pv_http_param(rq, "host_steps", &bad);
    if (bad || (v != NULL && strcmp(v, "0") != 0 && strcmp(v, "1") != 0)) {
        pv_respond_error(rs, 400, "bad parameter", "host_steps must be 0 or 1");
        return false;
    }
    q->merge_host_with_device = v != NULL && strcmp(v, "1") == 0;
    q->drop_incomplete = true;
    return true;
}

static void respond(pv_response *rs, json_t *j)
{
    if (j == NULL) {
        pv_respond_error(rs, 500, "internal error", "the result could not be serialised");
        return;
    }
    pv_respond_json(rs, 200, j);
}

void pv_http_tool_overview(pv_request *rq, pv_response *rs, const pv_model *m)
{
    pv_overview_query q;
    if (!steps_query(rq, rs, &q.steps))
        return;
    pv_overview_result r;
    pv_error err = {0};
    if (pv_tool_overview(m, &q, &rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    respond(rs, pv_overview_to_json(&r));
}

void pv_http_tool_input_pipeline(pv_request *rq, pv_response *rs, const pv_model *m)
{
    pv_input_pipeline_query q;
    if (!steps_query(rq, rs, &q.steps))
        return;
    pv_input_pipeline_result r;
    pv_error err = {0};
    if (pv_tool_input_pipeline(m, &q, &rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    respond(rs, pv_input_pipeline_to_json(&r));
}

void pv_http_tool_overview_multi(pv_request *rq, pv_response *rs, const pv_model *const *models,
                                 size_t n_models)
{
    pv_overview_query q;
    if (!steps_query(rq, rs, &q.steps))
        return;
    pv_overview_result r;
    pv_error err = {0};
    if (pv_tool_overview_multi(models, n_models, &q, &rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    respond(rs, pv_overview_to_json(&r));
}

void pv_http_tool_input_pipeline_multi(pv_request *rq, pv_response *rs,
                                       const pv_model *const *models, size_t n_models)
{
    pv_input_pipeline_query q;
    if (!steps_query(rq, rs, &q.steps))
        return;
    pv_input_pipeline_result r;
    pv_error err = {0};
    if (pv_tool_input_pipeline_multi(models, n_models, &q, &rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    respond(rs, pv_input_pipeline_to_json(&r));
}

/* Legacy tool files are small (tens of KB); this cap only keeps a stray
 * huge file from being read into memory whole. */
#define LEGACY_MAX_BYTES ((size_t)256 << 20)

static int legacy_overview(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                           json_t **out, pv_error *err)
{
    pv_overview_result r;
    int rc = pv_overview_legacy_read(data, len, path, a, &r, err);
    if (rc == 0)
        *out = pv_overview_to_json(&r);
    return rc;
}

static int legacy_input_pipeline(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                                 json_t **out, pv_error *err)
{
    pv_input_pipeline_result r;
    int rc = pv_input_pipeline_legacy_read(data, len, path, a, &r, err);
    if (rc == 0)
        *out = pv_input_pipeline_to_json(&r);
    return rc;
}

void pv_http_legacy_overview(pv_response *rs, const char *path, bool overview)
{
    pv__http_legacy_respond(rs, path, LEGACY_MAX_BYTES,
                            overview ? legacy_overview : legacy_input_pipeline);
}
