/* api_data: /data (a tool's payload for one run and host), /data_csv, and
 * the native /api/load progress route.
 *
 * A host with an XSpace gets every tool computed from its model; a host
 * with only legacy per-tool files gets those files: JSON served as is,
 * .json.gz served still compressed (the reference does the same). The
 * pseudo host ALL_HOSTS combines every host with an XSpace, for the tools
 * whose table entry can (tool_table.h). */
#include "cache/disk.h"
#include "cache/store.h"
#include "http/http.h"
#include "http/legacy_file.h"
#include "http/target.h"
#include "http/tool_table.h"
#include "util/gzip.h"
#include "util/hash.h"
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Answers from GZ_KEEP_MIN_BYTES up are kept gzip-compressed, after 17
 * bytes holding their ETag (16 hex digits of the hash server.c gives the
 * uncompressed body, and a newline): a repeat is sent from the file as it
 * is, with no hashing, compressing or reading into memory, and a
 * revalidation is answered 304 from the tag alone. */
#define GZ_KEEP_MIN_BYTES ((size_t)1 << 20)
#define TAG_BYTES 17

static pv_cache_key gz_key(pv_request *rq, const pv_cache_key *key)
{
    pv_cache_key g = *key;
    g.what = pv_arena_printf(&rq->arena, "gz %s", key->what);
    return g;
}

static bool cached_gz_answer(pv_request *rq, pv_response *rs, const pv_cache_key *key)
{
    pv_cache_key gk = gz_key(rq, key);
    pv_disk_entry e;
    if (pv_disk_cache_open(rq->app->disk, &gk, &e) != 0)
        return false;
    char tag[TAG_BYTES];
    if (e.len < TAG_BYTES || pread(e.fd, tag, TAG_BYTES, (off_t)e.offset) != TAG_BYTES ||
        tag[TAG_BYTES - 1] != '\n') {
        close(e.fd);
        return false;
    }
    tag[TAG_BYTES - 1] = '\0';
    rs->status = 200;
    rs->content_type = "application/json";
    rs->etag = pv_arena_strdup(&rq->arena, tag);
    rs->body_is_gzip = true;
    if (pv_http_not_modified_gz(rq, tag)) {
        close(e.fd);
        rs->body = pv_xstrdup("");
        return true;
    }
    if (pv_disk_cache_check(rq->app->disk, &gk, &e) != 0) {
        rs->etag = NULL;
        rs->body_is_gzip = false;
        return false;
    }
    rs->body_from_fd = true;
    rs->body_fd = e.fd;
    rs->body_offset = e.offset + TAG_BYTES;
    rs->len = (size_t)(e.len - TAG_BYTES);
    return true;
}

/* Fills rs with the answer kept under key and returns true, or false. */
static bool cached_answer(pv_request *rq, pv_response *rs, const pv_cache_key *key)
{
    if (cached_gz_answer(rq, rs, key))
        return true;
    pv_buf cached;
    pv_buf_init(&cached, MAX_LEGACY_BYTES * 4);
    if (pv_disk_cache_get(rq->app->disk, key, &cached) != 0) {
        pv_buf_fini(&cached);
        return false;
    }
    rs->status = 200;
    rs->content_type = "application/json";
    rs->body = pv_buf_take(&cached, &rs->len);
    if (rs->body == NULL)
        rs->body = pv_xstrdup("");
    return true;
}

/* Keeps a large answer compressed with its tag and swaps rs's body for
 * the compressed one, so the identity body is freed before the response
 * is queued and this request does not compress it again. */
static void keep_gz_answer(pv_request *rq, pv_response *rs, const pv_cache_key *key)
{
    char tag[TAG_BYTES + 1];
    snprintf(tag, sizeof tag, "%016llx\n",
             (unsigned long long)pv_hash_bytes(PV_HASH_SEED, rs->body, rs->len));
    pv_buf gz;
    pv_buf_init(&gz, rs->len + rs->len / 8 + 1024);
    if (pv_gzip_compress(rs->body, rs->len, &gz, NULL) != 0) {
        pv_buf_fini(&gz);
        return;
    }
    pv_cache_key gk = gz_key(rq, key);
    pv_disk_cache_put2(rq->app->disk, &gk, tag, TAG_BYTES, gz.data, gz.len);
    tag[TAG_BYTES - 1] = '\0';
    rs->etag = pv_arena_strdup(&rq->arena, tag);
    if (!rs->body_static)
        free(rs->body);
    rs->body_static = false;
    rs->body = pv_buf_take(&gz, &rs->len);
    rs->body_is_gzip = true;
}

static void keep_answer(pv_request *rq, pv_response *rs, const pv_cache_key *key)
{
    if (rs->status != 200 || rs->body_is_gzip || rs->body_from_fd || rs->content_type == NULL ||
        strcmp(rs->content_type, "application/json") != 0)
        return;
    if (rs->len >= GZ_KEEP_MIN_BYTES && rq->app->disk->dir != NULL)
        keep_gz_answer(rq, rs, key);
    else
        pv_disk_cache_put(rq->app->disk, key, rs->body, rs->len);
}

/* "data:<tool>?<the request's own parameters>": what a cached answer is. */
static const char *answer_what(pv_request *rq, const char *tool)
{
    static const char *const skip[] = {"run", "host", "tag", "tool", NULL};
    return pv_arena_printf(&rq->arena, "data:%s?%s", tool, pv_http_query_canonical(rq, skip));
}

/* A tool's answer depends only on the source file and the request's
 * parameters, so a 200 JSON answer is kept on disk: after a restart the
 * same request is answered without decoding the profile again. */
static void serve_model_tool(pv_request *rq, pv_response *rs, const pv_host_file *xplane,
                             const char *tool, pv_model_tool_fn fn)
{
    pv_source src = source_of(xplane);
    pv_cache_key key = {xplane->path, xplane->size_bytes, xplane->mtime_ns,
                        answer_what(rq, tool)};
    if (cached_answer(rq, rs, &key))
        return;
    const pv_model *m;
    pv_model_entry *entry;
    pv_error err = {0};
    if (pv_model_store_get(rq->app->models, &src, &m, &entry, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    fn(rq, rs, m);
    pv_model_store_put(rq->app->models, entry);
    keep_answer(rq, rs, &key);
}

#define ALL_HOSTS "ALL_HOSTS"

/* Answers tool for every host of run with an XSpace, combined, holding
 * all their models at once. The answer is kept on disk under the first
 * file, with every other file's identity in what was computed, so a
 * change to any host's file is a new key. */
/* The XSpaces of the hosts a hosts= list names, in its order; n_out 0
 * with rs filled (404) when one has none. */
static const pv_host_file **listed_xplanes(pv_request *rq, pv_response *rs, const pv_run *run,
                                           const char *list, size_t *n_out)
{
    size_t cap = 1;
    for (const char *p = list; *p != '\0'; p++)
        cap += *p == ',';
    const pv_host_file **xplanes = pv_arena_zalloc(&rq->arena, (cap + 1) * sizeof *xplanes);
    char *names = pv_arena_strdup(&rq->arena, list);
    size_t n = 0;
    for (char *save = NULL, *name = strtok_r(names, ",", &save); name != NULL;
         name = strtok_r(NULL, ",", &save)) {
        const pv_host *h = pv_run_host_find(run, name);
        xplanes[n] = h != NULL ? pv_host_file_find(h, PV_FILE_XPLANE) : NULL;
        if (xplanes[n] == NULL) {
            char detail[600];
            snprintf(detail, sizeof detail, "run \"%.200s\" has no .xplane.pb for host \"%.200s\"",
                     run->name, name);
            pv_respond_error(rs, 404, "unknown host", detail);
            *n_out = 0;
            return NULL;
        }
        n++;
    }
    if (n == 0)
        pv_respond_error(rs, 404, "unknown host", "hosts= names no host");
    *n_out = n;
    return xplanes;
}

/* list: the hosts= parameter (trace viewer), or NULL for ALL_HOSTS. */
static void serve_all_hosts_models(pv_request *rq, pv_response *rs, const pv_run *run,
                                   const char *tool, const char *list)
{
    char detail[600];
    pv_multi_tool_fn fn = pv_tool_table_find_multi(tool);
    if (fn == NULL) {
        snprintf(detail, sizeof detail,
                 "profview does not combine hosts (" ALL_HOSTS ") for the %.200s tool yet; ask "
                 "for one host",
                 tool);
        pv_respond_error(rs, 404, "unknown host", detail);
        return;
    }
    const pv_host_file **xplanes = NULL;
    size_t n = 0;
    if (list != NULL) {
        xplanes = listed_xplanes(rq, rs, run, list, &n);
        if (n == 0)
            return;
    } else {
        xplanes = pv_arena_zalloc(&rq->arena, (run->n_hosts + 1) * sizeof *xplanes);
        for (size_t i = 0; i < run->n_hosts; i++)
            if ((xplanes[n] = pv_host_file_find(&run->hosts[i], PV_FILE_XPLANE)) != NULL)
                n++;
    }
    if (list == NULL && n < 2) {
        snprintf(detail, sizeof detail,
                 "run \"%.400s\" has %zu host(s) with an .xplane.pb; " ALL_HOSTS
                 " needs at least two",
                 run->name, n);
        pv_respond_error(rs, 404, "unknown host", detail);
        return;
    }
    /* One host's keys start "data:", so this one never equals them. */
    const char *what = pv_arena_printf(&rq->arena, ALL_HOSTS " %s", answer_what(rq, tool));
    for (size_t i = 1; i < n; i++)
        what = pv_arena_printf(&rq->arena, "%s|%s:%llu:%lld", what, xplanes[i]->path,
                               (unsigned long long)xplanes[i]->size_bytes,
                               (long long)xplanes[i]->mtime_ns);
    pv_cache_key key = {xplanes[0]->path, xplanes[0]->size_bytes, xplanes[0]->mtime_ns, what};
    if (cached_answer(rq, rs, &key))
        return;
    const pv_model **models = pv_arena_zalloc(&rq->arena, n * sizeof *models);
    pv_model_entry **entries = pv_arena_zalloc(&rq->arena, n * sizeof *entries);
    size_t held = 0;
    pv_error err = {0};
    for (; held < n; held++) {
        pv_source src = source_of(xplanes[held]);
        if (pv_model_store_get(rq->app->models, &src, &models[held], &entries[held], &err) != 0)
            break;
    }
    if (held == n)
        fn(rq, rs, models, n);
    else
        pv_respond_pv_error(rs, &err);
    for (size_t i = 0; i < held; i++)
        pv_model_store_put(rq->app->models, entries[i]);
    keep_answer(rq, rs, &key);
}

/* The ALL_HOSTS pseudo host (FORMATS.md §5), and the trace viewer's
 * hosts=h1,h2 (which, as in XProf, wins over host=). Returns false,
 * answering nothing, when the request names neither or the run has a real
 * host called ALL_HOSTS. */
static bool serve_all_hosts(pv_request *rq, pv_response *rs)
{
    bool bad = false;
    const char *host = pv_http_param(rq, "host", &bad);
    const char *run_name = pv_http_param(rq, "run", &bad);
    const char *tool = pv_http_param(rq, "tag", &bad);
    if (tool == NULL && !bad)
        tool = pv_http_param(rq, "tool", &bad);
    const char *list = pv_http_param(rq, "hosts", &bad);
    if (list != NULL && (tool == NULL || strncmp(tool, "trace_viewer", 12) != 0))
        list = NULL;
    bool all = host != NULL && strcmp(host, ALL_HOSTS) == 0;
    if (bad || (!all && list == NULL) || run_name == NULL || tool == NULL)
        return false;
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    const pv_run *run = pv_index_run_find(ix, run_name);
    bool mine = run != NULL && (list != NULL || pv_run_host_find(run, ALL_HOSTS) == NULL);
    if (mine)
        serve_all_hosts_models(rq, rs, run, tool, list);
    pv_index_store_release(rq->app->index, ix);
    return mine;
}

void pv_serve_data(pv_request *rq, pv_response *rs)
{
    if (serve_all_hosts(rq, rs))
        return;
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
    /* The trace index is built after the model is ready, so "state" says
     * when the other tools can answer and "trace_index" when the trace
     * viewer can; the byte counts are what the memory budget sees. */
    static const char *const index_state[] = {"building", "ready", "failed"};
    json_t *j = json_pack("{s:s, s:I, s:I, s:s, s:I, s:I, s:I, s:I}", "state",
                          st.state == PV_LOAD_READY ? "ready" : "loading", "done_bytes",
                          (json_int_t)st.done_bytes, "total_bytes", (json_int_t)st.total_bytes,
                          "trace_index", index_state[st.companion_state], "model_bytes",
                          (json_int_t)st.model_bytes, "trace_index_bytes",
                          (json_int_t)st.companion_bytes, "held_bytes",
                          (json_int_t)pv_model_store_bytes(rq->app->models), "budget_bytes",
                          (json_int_t)pv_model_store_budget(rq->app->models));
    if (j != NULL && st.companion_state == PV_LOAD_FAILED) {
        char msg[1200];
        pv_error_format(&st.companion_err, msg, sizeof msg);
        json_object_set_new(j, "trace_index_error", json_string(msg));
    }
    pv_respond_json(rs, st.state == PV_LOAD_READY ? 200 : 202, j);
}
