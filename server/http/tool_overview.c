/* tool_overview: /data?tag=overview_page and /data?tag=input_pipeline_analyzer.
 * Both answer the reference's DataTable arrays from the same step
 * analysis. By default the steps are XProf's (device events only when a
 * device exists; first and last step dropped when there are more than 5).
 * host_steps=1 also counts the host threads' events inside each device
 * step, as TensorFlow 2.x did, which is what shows input waits and kernel
 * launch time on GPU profiles; the page offers it as a switch.
 * pv_http_legacy_overview answers the same tools from the per-tool .pb
 * files older TensorFlow wrote (api_data.c calls it for those files). */
#include "http/tool_table.h"
#include "tools/input_pipeline_legacy.h"
#include "tools/overview.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

/* Legacy tool files are small (tens of KB); this cap only keeps a stray
 * huge file from being read into memory whole. */
#define LEGACY_MAX_BYTES (256u << 20)

static int read_file(const char *path, pv_arena *a, uint8_t **data, size_t *len, pv_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
        fclose(f);
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot stat");
    }
    if ((uint64_t)st.st_size > LEGACY_MAX_BYTES) {
        fclose(f);
        return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                            "legacy tool file of %lld bytes is past the %u byte cap",
                            (long long)st.st_size, LEGACY_MAX_BYTES);
    }
    *len = (size_t)st.st_size;
    *data = pv_arena_alloc(a, *len ? *len : 1);
    size_t got = *len ? fread(*data, 1, *len, f) : 0;
    fclose(f);
    if (got != *len)
        return pv_error_set(err, PV_EIO, path, (uint64_t)got, "short read");
    return 0;
}

void pv_http_legacy_overview(pv_response *rs, const char *path, bool overview)
{
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_error err = {0};
    uint8_t *data = NULL;
    size_t len = 0;
    json_t *j = NULL;
    if (read_file(path, &a, &data, &len, &err) != 0)
        goto fail;
    if (overview) {
        pv_overview_result r;
        if (pv_overview_legacy_read(data, len, path, &a, &r, &err) != 0)
            goto fail;
        j = pv_overview_to_json(&r);
    } else {
        pv_input_pipeline_result r;
        if (pv_input_pipeline_legacy_read(data, len, path, &a, &r, &err) != 0)
            goto fail;
        j = pv_input_pipeline_to_json(&r);
    }
    pv_arena_fini(&a);
    respond(rs, j);
    return;
fail:
    pv_arena_fini(&a);
    pv_respond_pv_error(rs, &err);
}
