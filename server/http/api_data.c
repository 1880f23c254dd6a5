/* api_data: /data (a tool's payload for one run and host), /data_csv, and
 * the native /api/load progress route.
 *
 * A host with an XSpace gets every tool computed from its model; a host
 * with only legacy per-tool files gets those files: JSON served as is,
 * .json.gz served still compressed (the reference does the same). */
#include "cache/disk.h"
#include "cache/store.h"
#include "http/http.h"
#include "http/legacy_file.h"
#include "http/target.h"
#include "http/tool_table.h"
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEGACY_BYTES ((size_t)1 << 30)

/* The legacy file that answers tool on this host, or NULL. */
static const pv_host_file *legacy_file(const pv_host *h, const char *tool)
{
    for (size_t i = 0; i < h->n_files; i++) {
        const char *t = pv_filename_tool(h->files[i].kind);
        if (t != NULL && (strcmp(t, tool) == 0 ||
                          (strcmp(t, "framework_op_stats") == 0 &&
                           strcmp(tool, "tensorflow_stats") == 0) ||
                          (strcmp(t, "trace_viewer") == 0 && strcmp(tool, "trace_viewer@") == 0)))
            return &h->files[i];
    }
    return NULL;
}

static void serve_legacy(pv_response *rs, const pv_host_file *f, const char *tool)
{
    bool json = f->kind == PV_FILE_OVERVIEW_JSON || f->kind == PV_FILE_INPUT_PIPELINE_JSON ||
                f->kind == PV_FILE_OP_PROFILE_JSON || f->kind == PV_FILE_MEMORY_VIEWER_JSON ||
                f->kind == PV_FILE_POD_VIEWER_JSON;
    bool json_gz = f->kind == PV_FILE_TRACE_JSON_GZ || f->kind == PV_FILE_MEMORY_PROFILE_JSON_GZ;
    if (f->kind == PV_FILE_OVERVIEW_PB || f->kind == PV_FILE_INPUT_PIPELINE_PB) {
        pv_http_legacy_overview(rs, f->path, f->kind == PV_FILE_OVERVIEW_PB);
        return;
    }
    if (f->kind == PV_FILE_KERNEL_STATS_PB || f->kind == PV_FILE_TF_STATS_PB) {
        pv_http_legacy_kernel_op_stats(rs, f->path, f->kind == PV_FILE_KERNEL_STATS_PB);
        return;
    }
    if (!json && !json_gz) {
        char detail[600];
        snprintf(detail, sizeof detail,
                 "reading %s from a legacy protobuf file (%s) is not built yet", tool,
                 strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path);
        pv_respond_error(rs, 501, "not implemented", detail);
        return;
    }
    pv_error err = {0};
    if (pv__http_read_file(f->path, MAX_LEGACY_BYTES, &rs->body, &rs->len, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    rs->status = 200;
    rs->content_type = "application/json";
    rs->body_is_gzip = json_gz;
}

static pv_source source_of(const pv_host_file *f)
{
    return (pv_source){f->path, f->size_bytes, f->mtime_ns};
}

/* A tool's answer depends only on the source file and the request's
 * parameters, so a 200 JSON answer is kept on disk: after a restart the
 * same request is answered without decoding the profile again. */
static void serve_model_tool(pv_request *rq, pv_response *rs, const pv_host_file *xplane,
                             const char *tool, pv_model_tool_fn fn)
{
    static const char *const skip[] = {"run", "host", "tag", "tool", NULL};
    pv_source src = source_of(xplane);
    pv_cache_key key = {xplane->path, xplane->size_bytes, xplane->mtime_ns,
                        pv_arena_printf(&rq->arena, "data:%s?%s", tool,
                                        pv_http_query_canonical(rq, skip))};
    pv_buf cached;
    pv_buf_init(&cached, MAX_LEGACY_BYTES * 4);
    if (pv_disk_cache_get(rq->app->disk, &key, &cached) == 0) {
        rs->status = 200;
        rs->content_type = "application/json";
        rs->body = pv_buf_take(&cached, &rs->len);
        if (rs->body == NULL)
            rs->body = pv_xstrdup("");
        return;
    }
    pv_buf_fini(&cached);
    const pv_model *m;
    pv_model_entry *entry;
    pv_error err = {0};
    if (pv_model_store_get(rq->app->models, &src, &m, &entry, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    fn(rq, rs, m);
    pv_model_store_put(rq->app->models, entry);
    if (rs->status == 200 && !rs->body_is_gzip && rs->content_type != NULL &&
        strcmp(rs->content_type, "application/json") == 0)
        pv_disk_cache_put(rq->app->disk, &key, rs->body, rs->len);
}

void pv_serve_data(pv_request *rq, pv_response *rs)
{
    pv_http_target t = {0};
    if (pv_http_target_resolve(rq, rs, true, &t) != 0)
        return;
    const pv_host_file *xplane = pv_host_file_find(t.host, PV_FILE_XPLANE);
    pv_model_tool_fn fn = pv_tool_table_find(t.tool);
    if (xplane != NULL && fn != NULL) {
        serve_model_tool(rq, rs, xplane, t.tool, fn);
    } else if (legacy_file(t.host, t.tool) != NULL) {
        serve_legacy(rs, legacy_file(t.host, t.tool), t.tool);
    } else {
        char detail[600];
        snprintf(detail, sizeof detail, "the %s tool is not built yet in profview %s", t.tool,
                 PV_VERSION);
        pv_respond_error(rs, 501, "not implemented", detail);
    }
    pv_http_target_release(rq, &t);
}

void pv_serve_data_csv(pv_request *rq, pv_response *rs)
{
    pv_http_target t = {0};
    if (pv_http_target_resolve(rq, rs, true, &t) != 0)
        return;
    char detail[600];
    snprintf(detail, sizeof detail, "CSV export of %s is not built yet", t.tool);
    pv_respond_error(rs, 501, "not implemented", detail);
    pv_http_target_release(rq, &t);
}

void pv_serve_api_load(pv_request *rq, pv_response *rs)
{
    pv_http_target t = {0};
    if (pv_http_target_resolve(rq, rs, false, &t) != 0)
        return;
    const pv_host_file *xplane = pv_host_file_find(t.host, PV_FILE_XPLANE);
    if (xplane == NULL) {
        /* Legacy files are read per request; there is nothing to load. */
        pv_respond_json(rs, 200, json_pack("{s:s}", "state", "ready"));
        pv_http_target_release(rq, &t);
        return;
    }
    pv_source src = source_of(xplane);
    pv_load_status st;
    pv_model_store_poll(rq->app->models, &src, &st);
    pv_http_target_release(rq, &t);
    if (st.state == PV_LOAD_FAILED) {
        pv_respond_pv_error(rs, &st.err);
        return;
    }
    rs->cache_control = "no-store";
    pv_respond_json(rs, st.state == PV_LOAD_READY ? 200 : 202,
                    json_pack("{s:s, s:I, s:I}", "state",
                              st.state == PV_LOAD_READY ? "ready" : "loading", "done_bytes",
                              (json_int_t)st.done_bytes, "total_bytes",
                              (json_int_t)st.total_bytes));
}
