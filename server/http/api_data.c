/* api_data: /data and /data_csv (a tool's answer for one run and host, or
 * several), and the native /api/load progress route. One handler serves
 * every tool through its descriptor (tools/tool.h):
 *
 *   1. the tool named by tag= (or tool=), aliases included;
 *   2. which hosts: host= (or the run's only one); the pseudo host
 *      ALL_HOSTS (every host with a profile, for tools that combine
 *      hosts, FORMATS.md §5); or, for tools that read it, hosts=h1,h2
 *      (XProf's trace viewer), which wins over host=;
 *   3. what answers on each host (index.h, pv_host_answer): the model of
 *      the host's profile, or one of TensorFlow's per-tool files;
 *   4. the tool's query from its parameters (400 when one is malformed);
 *   5. a kept answer (cache/answer.h), else the models from the store, the
 *      tool's compute and writer, and the answer kept for next time. */
#include "cache/answer.h"
#include "cache/store.h"
#include "http/conn.h"
#include "http/http.h"
#include "http/limit.h"
#include "http/metrics.h"
#include "http/target.h"
#include "ingest/formats.h"
#include "tools/hlo/hlo_modules.h"
#include "tools/registry.h"
#include "util/mem.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALL_HOSTS "ALL_HOSTS"
/* How long an expensive answer waits for a slot before the 503. */
#define HEAVY_WAIT_MS 1500
/* Plain bytes held at most while an answer is written: past them it is
 * compressed as it goes (a whole trace as JSON is gigabytes). */
#define STREAM_AT ((size_t)64 << 20)

typedef enum answer_kind { ANSWER_JSON, ANSWER_CSV } answer_kind;

static const char *content_type(answer_kind kind)
{
    return kind == ANSWER_CSV ? "text/csv; charset=utf-8" : "application/json";
}

static pv_source source_of(const char *root, const pv_host_file *f)
{
    return (pv_source){f->path, root, f->id};
}

/* Reads t's query into storage from the request arena; on a malformed
 * parameter fills rs (400) and returns NULL. */
static void *read_query(pv_request *rq, pv_response *rs, const pv_tool *t)
{
    void *q = pv_arena_zalloc(&rq->arena, t->query_bytes > 0 ? t->query_bytes : 1);
    pv_params p = pv_http_params(rq);
    pv_error err = {0};
    if (t->read_query != NULL && t->read_query(&p, q, &err) != 0) {
        pv_respond_error(rs, 400, "bad parameter", err.reason);
        return NULL;
    }
    return q;
}

/* ---- kept answers --------------------------------------------------------------- */

/* Fills rs's head with the kept answer g (its tag, opened, not yet
 * checked) and returns true when the client already holds it: 304 from
 * the tag alone, the file closed, nothing read. */
static bool kept_head(pv_request *rq, pv_response *rs, answer_kind kind, pv_kept_gz *g)
{
    rs->status = 200;
    rs->content_type = content_type(kind);
    rs->etag = pv_arena_strdup(&rq->arena, g->tag);
    if (!pv_http_not_modified_gz(rq, g->tag))
        return false;
    close(g->entry.fd);
    rs->body = pv_xstrdup("");
    return true;
}

/* rs's body is the checked kept answer g, sent from its file. */
static void kept_body(pv_response *rs, const pv_kept_gz *g)
{
    rs->body_from_fd = true;
    rs->body_fd = g->entry.fd;
    rs->body_offset = g->entry.offset;
    rs->len = (size_t)g->entry.len;
}

/* The plain copy of a gzip'd answer for a client that does not take gzip. */
static bool kept_plain(pv_request *rq, pv_response *rs, const pv_cache_key *key,
                       answer_kind kind)
{
    pv_kept_gz g;
    if (pv_answer_open_plain(rq->app->disk, key, &g) != 0)
        return false;
    if (kept_head(rq, rs, kind, &g))
        return true;
    if (pv_answer_check_plain(rq->app->disk, key, &g) != 0) {
        rs->etag = NULL;
        return false;
    }
    kept_body(rs, &g);
    return true;
}

static bool kept_gz(pv_request *rq, pv_response *rs, const pv_cache_key *key, answer_kind kind)
{
    bool plain_client = !pv__http_accepts_gzip(rq);
    if (plain_client && kept_plain(rq, rs, key, kind))
        return true;
    pv_kept_gz g;
    if (pv_answer_open_gz(rq->app->disk, key, &g) != 0)
        return false;
    rs->body_is_gzip = true;
    if (kept_head(rq, rs, kind, &g))
        return true;
    if (pv_answer_check_gz(rq->app->disk, key, &g) != 0) {
        rs->etag = NULL;
        rs->body_is_gzip = false;
        return false;
    }
    /* This client gets it inflated as it is sent; the next from the copy. */
    if (plain_client)
        pv_answer_keep_plain(rq->app->disk, key, &g);
    kept_body(rs, &g);
    rs->plain_bytes = g.plain_bytes;
    return true;
}

/* Fills rs with the answer kept under key and returns true, or false. */
static bool kept(pv_request *rq, pv_response *rs, const pv_cache_key *key, answer_kind kind)
{
    if (kept_gz(rq, rs, key, kind))
        return true;
    pv_buf body;
    pv_buf_init(&body, PV_ANSWER_MAX_BYTES);
    if (pv_answer_get(rq->app->disk, key, &body) != 0) {
        pv_buf_fini(&body);
        return false;
    }
    rs->status = 200;
    rs->content_type = content_type(kind);
    rs->body = pv_buf_take(&body, &rs->len);
    if (rs->body == NULL)
        rs->body = pv_xstrdup("");
    return true;
}

/* Keeps a fresh 200 answer; a large one is then sent as the compressed
 * copy just kept, so this request does not compress it again. */
static void keep(pv_request *rq, pv_response *rs, const pv_cache_key *key)
{
    if (rs->status != 200 || rs->body_is_gzip || rs->body_from_fd)
        return;
    char tag[PV_ANSWER_TAG_CHARS + 1];
    char *gz;
    size_t gz_len;
    pv_answer_keep(rq->app->disk, key, rs->body, rs->len, &gz, &gz_len, tag);
    if (rq->app->disk->dir != NULL)
        pv__metrics_kept(rq->app->metrics, gz != NULL ? gz_len : rs->len);
    if (gz == NULL)
        return;
    rs->etag = pv_arena_strdup(&rq->arena, tag);
    if (!rs->body_static)
        free(rs->body);
    rs->body_static = false;
    rs->body = gz;
    rs->len = gz_len;
    rs->body_is_gzip = true;
}

/* ---- answering from models ---------------------------------------------------------- */

/* Answers what a writer wrote into body (taken), or the error it met. */
static void respond_written(pv_response *rs, answer_kind kind, int rc, pv_buf *body,
                            const pv_error *err)
{
    if (rc != 0) {
        pv_buf_fini(body);
        pv_respond_pv_error(rs, err);
        return;
    }
    rs->status = 200;
    rs->content_type = content_type(kind);
    rs->body = pv_buf_take(body, &rs->len);
    if (rs->body == NULL)
        rs->body = pv_xstrdup("");
}

/* The hosts an answer comes from: their profiles and names. */
typedef struct host_set {
    const char *root;            /* the logdir they are below */
    const pv_host_file *const *files;
    const char *const *names;
    size_t n;
} host_set;

/* Answers the gzip body a stream made of a writer's answer, whose tail is
 * still in body, and keeps it under key. */
static void respond_streamed(pv_request *rq, pv_response *rs, answer_kind kind,
                             pv_answer_stream *st, pv_buf *body, const pv_cache_key *key)
{
    pv_answer_gz a;
    int rc = pv_answer_stream_keep(rq->app->disk, key, st, body->data, body->len, &a);
    pv_buf_fini(body);
    if (rc != 0) {
        pv_respond_error(rs, 500, "answer too large", "the compressed answer passes its cap");
        return;
    }
    if (rq->app->disk->dir != NULL)
        pv__metrics_kept(rq->app->metrics, a.gz_len);
    /* A client without gzip gets the kept copy inflated as it is sent,
     * not the whole body inflated in memory first. */
    if (!pv__http_accepts_gzip(rq) && rq->app->disk->dir != NULL && kept_gz(rq, rs, key, kind)) {
        free(a.gz);
        return;
    }
    rs->status = 200;
    rs->content_type = content_type(kind);
    rs->etag = pv_arena_strdup(&rq->arena, a.tag);
    rs->body = a.gz;
    rs->len = a.gz_len;
    rs->body_is_gzip = true;
    rs->plain_bytes = a.plain_bytes;
}

/* Makes t's answer from the models of srcs through pv_answer_make, as
 * precompute makes it, and writes it into rs. An answer past STREAM_AT
 * bytes is compressed as it is written and kept under key here, so its
 * plain bytes are never held whole (keep then leaves it). */
static void run_tool(pv_request *rq, pv_response *rs, const pv_tool *t, const void *q,
                     const pv_source *srcs, const host_set *hs, answer_kind kind,
                     const pv_cache_key *key)
{
    pv_buf body;
    pv_buf_init(&body, PV_ANSWER_MAX_BYTES);
    pv_answer_stream *st = pv_answer_stream_new(PV_ANSWER_MAX_BYTES);
    if (st != NULL)
        pv_buf_drain_to(&body, STREAM_AT, pv_answer_stream_add, st);
    pv_error err = {0};
    int rc = pv_answer_make(rq->app->models, t, q, kind == ANSWER_CSV, srcs, hs->names, hs->n,
                            &rq->arena, &body, &err);
    /* A tool knows no file: a bad profile it found is the one it was given. */
    if (rc == PV_EFORMAT && err.path[0] == '\0' && hs->n == 1) {
        char reason[sizeof err.reason];
        snprintf(reason, sizeof reason, "%s", err.reason);
        pv_error_set(&err, rc, hs->files[0]->path, err.offset, "%s", reason);
    }
    if (rc == 0 && body.drained > 0)
        respond_streamed(rq, rs, kind, st, &body, key);
    else
        respond_written(rs, kind, rc, &body, &err);
    pv_answer_stream_free(st);
}

/* Answers t from the models of hs, kept under the key every maker of
 * this answer uses (cache/answer.h). */
static void serve_models(pv_request *rq, pv_response *rs, const pv_tool *t, const host_set *hs,
                         bool all_hosts, answer_kind kind)
{
    const void *q = read_query(rq, rs, t);
    if (q == NULL)
        return;
    pv_source *srcs = pv_arena_zalloc(&rq->arena, hs->n * sizeof *srcs);
    for (size_t i = 0; i < hs->n; i++)
        srcs[i] = source_of(hs->root, hs->files[i]);
    pv_params p = pv_http_params(rq);
    bool csv = kind == ANSWER_CSV;
    pv_cache_key key = pv_answer_key(&rq->arena, t, &p, csv, all_hosts || hs->n > 1, srcs, hs->n);
    bool hit = kept(rq, rs, &key, kind);
    pv__metrics_cache(rq->app->metrics, hit);
    if (!hit) {
        if (!pv_limit_take(rq->app->heavy, HEAVY_WAIT_MS)) {
            pv_respond_busy(rs);
            return;
        }
        run_tool(rq, rs, t, q, srcs, hs, kind, &key);
        pv_limit_give(rq->app->heavy);
        keep(rq, rs, &key);
    }
    if (rs->status == 200 && kind == ANSWER_JSON && t->content_type != NULL)
        rs->content_type = t->content_type(q);
}

/* ---- answering from a per-tool file ----------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

static void serve_file(pv_request *rq, pv_response *rs, const pv_tool *t, const char *root,
                       const pv_host_file *f, answer_kind kind)
{
    const pv_format *fmt = f->format;
    char detail[600];
    if (fmt->role == PV_FORMAT_UNREAD || (kind == ANSWER_CSV && fmt->role != PV_FORMAT_TOOL_PB)) {
        snprintf(detail, sizeof detail, "reading %s%s from TensorFlow's %s file (%.300s) is not "
                 "built yet", t->name, kind == ANSWER_CSV ? " as CSV" : "", fmt->name,
                 base_name(f->path));
        pv_respond_error(rs, 501, "not implemented", detail);
        return;
    }
    const void *q = NULL;
    if (fmt->role == PV_FORMAT_TOOL_PB && (q = read_query(rq, rs, t)) == NULL)
        return;
    pv_error err = {0};
    int fd = pv_safe_open(root, f->path, &f->id, &err);
    if (fd < 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    if (fmt->role == PV_FORMAT_TOOL_FILE) {
        /* JSON sent from the file as it is, .json.gz still compressed (as
         * the reference does), never read into memory here; its tag is
         * the file's identity. */
        rs->status = 200;
        rs->content_type = "application/json";
        rs->body_from_fd = true;
        rs->body_fd = fd;
        rs->body_offset = 0;
        rs->len = (size_t)f->id.size_bytes;
        rs->body_is_gzip = fmt->gzip;
        char tag[PV_ANSWER_TAG_CHARS + 1];
        char id[PATH_MAX + 80];
        pv_source src = source_of(root, f);
        pv_source_ident(&src, id, sizeof id);
        pv_answer_tag(id, strlen(id), tag);
        rs->etag = pv_arena_strdup(&rq->arena, tag);
        return;
    }
    if (!pv_limit_take(rq->app->heavy, HEAVY_WAIT_MS)) {
        close(fd);
        pv_respond_busy(rs);
        return;
    }
    char *data;
    size_t len;
    int rc = pv_ingest_read_whole(fd, f->path, fmt->max_bytes, &data, &len, &err);
    close(fd);
    if (rc != 0) {
        pv_limit_give(rq->app->heavy);
        pv_respond_pv_error(rs, &err);
        return;
    }
    void *result;
    pv_buf body;
    pv_buf_init(&body, PV_ANSWER_MAX_BYTES);
    pv_tool_input none = {NULL, NULL, 0};
    rc = fmt->answer((const uint8_t *)data, len, f->path, &rq->arena, &result, &err);
    if (rc == 0)
        rc = (kind == ANSWER_CSV ? t->write_csv : t->write_json)(&none, q, result, &body, &err);
    /* The result may point into the file's bytes: they go only now. */
    free(data);
    pv_limit_give(rq->app->heavy);
    respond_written(rs, kind, rc, &body, &err);
}

/* ---- which hosts ---------------------------------------------------------------------- */

/* The hosts of a hosts= list, each once, in the list's order; false with rs
 * filled (404) when one is not a host of run with a profile. The list can
 * name no more hosts than the run has, so its cost is bounded by the run,
 * whatever the request repeats. */
static bool listed_hosts(pv_request *rq, pv_response *rs, const char *root, const pv_run *run,
                         const char *list, host_set *hs)
{
    const pv_host_file **files = pv_arena_zalloc(&rq->arena, (run->n_hosts + 1) * sizeof *files);
    const char **host_names = pv_arena_zalloc(&rq->arena, (run->n_hosts + 1) * sizeof *host_names);
    *hs = (host_set){root, files, host_names, 0};
    char *names = pv_arena_strdup(&rq->arena, list);
    for (char *save = NULL, *name = strtok_r(names, ",", &save); name != NULL;
         name = strtok_r(NULL, ",", &save)) {
        const pv_host *h = pv_run_host_find(run, name);
        const pv_host_file *f = h != NULL ? pv_host_profile(h) : NULL;
        if (f == NULL) {
            char detail[600];
            snprintf(detail, sizeof detail, "run \"%.200s\" has no profile for host \"%.200s\"",
                     run->name, name);
            pv_respond_error(rs, 404, "unknown host", detail);
            return false;
        }
        bool seen = false;
        for (size_t i = 0; i < hs->n && !seen; i++)
            seen = files[i] == f;
        if (!seen) {
            files[hs->n] = f;
            host_names[hs->n++] = h->name;
        }
    }
    if (hs->n == 0) {
        pv_respond_error(rs, 404, "unknown host", "hosts= names no host");
        return false;
    }
    return true;
}

/* Every host of run with a profile; false with rs filled (404) when fewer
 * than two have one. */
static bool all_hosts(pv_request *rq, pv_response *rs, const char *root, const pv_run *run,
                      host_set *hs)
{
    const pv_host_file **files = pv_arena_zalloc(&rq->arena, (run->n_hosts + 1) * sizeof *files);
    const char **names = pv_arena_zalloc(&rq->arena, (run->n_hosts + 1) * sizeof *names);
    *hs = (host_set){root, files, names, 0};
    for (size_t i = 0; i < run->n_hosts; i++) {
        const pv_host_file *f = pv_host_profile(&run->hosts[i]);
        if (f != NULL) {
            files[hs->n] = f;
            names[hs->n++] = run->hosts[i].name;
        }
    }
    if (hs->n < 2) {
        char detail[600];
        snprintf(detail, sizeof detail,
                 "run \"%.400s\" has %zu host(s) with a profile; " ALL_HOSTS " needs at least two",
                 run->name, hs->n);
        pv_respond_error(rs, 404, "unknown host", detail);
        return false;
    }
    return true;
}

/* Answers a request for several hosts (ALL_HOSTS, or a hosts= list for a
 * tool that reads one) and returns true; returns false, answering nothing,
 * when the request names one host. */
static bool serve_several(pv_request *rq, pv_response *rs, const pv_tool *t, answer_kind kind)
{
    bool bad = false;
    const char *host = pv_http_param(rq, "host", &bad);
    const char *run_name = pv_http_param(rq, "run", &bad);
    const char *list = t->reads_hosts_list ? pv_http_param(rq, "hosts", &bad) : NULL;
    bool all = host != NULL && strcmp(host, ALL_HOSTS) == 0;
    if (bad || (!all && list == NULL) || run_name == NULL)
        return false;
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    const pv_run *run = pv_index_run_find(ix, run_name);
    /* A real host called ALL_HOSTS is asked for by name. */
    bool mine = run != NULL && (list != NULL || pv_run_host_find(run, ALL_HOSTS) == NULL);
    host_set hs;
    if (mine && !t->combines_hosts) {
        char detail[600];
        snprintf(detail, sizeof detail,
                 "profview does not combine hosts (" ALL_HOSTS ") for the %.200s tool; ask for "
                 "one host", t->name);
        pv_respond_error(rs, 404, "unknown host", detail);
    } else if (mine && (list != NULL ? listed_hosts(rq, rs, ix->logdir, run, list, &hs)
                                     : all_hosts(rq, rs, ix->logdir, run, &hs))) {
        serve_models(rq, rs, t, &hs, list == NULL, kind);
    }
    pv_index_store_release(rq->app->index, ix);
    return mine;
}

/* ---- the routes ----------------------------------------------------------------------- */

static void serve_tool(pv_request *rq, pv_response *rs, const pv_tool *t, answer_kind kind)
{
    pv_http_target tg = {0};
    if (serve_several(rq, rs, t, kind))
        return;
    if (pv_http_target_resolve(rq, rs, t, &tg) != 0)
        return;
    bool from_model;
    const pv_host_file *f = pv_host_answer(tg.host, t, &from_model);
    if (from_model) {
        const char *name = tg.host->name;
        host_set hs = {tg.ix->logdir, &f, &name, 1};
        serve_models(rq, rs, t, &hs, false, kind);
    } else {
        serve_file(rq, rs, t, tg.ix->logdir, f, kind);
    }
    pv_http_target_release(rq, &tg);
}

static void serve(pv_request *rq, pv_response *rs, answer_kind kind)
{
    const pv_tool *t = pv_http_target_tool(rq, rs);
    if (t == NULL)
        return;
    if (kind == ANSWER_CSV && t->write_csv == NULL) {
        char detail[300];
        snprintf(detail, sizeof detail, "the %s tool has no table to export as CSV", t->name);
        pv_respond_error(rs, 404, "no CSV", detail);
        return;
    }
    serve_tool(rq, rs, t, kind);
    if (kind == ANSWER_CSV && rs->status == 200)
        rs->disposition = pv_arena_printf(&rq->arena, "attachment; filename=\"%s.csv\"", t->name);
}

void pv_serve_data(pv_request *rq, pv_response *rs)
{
    serve(rq, rs, ANSWER_JSON);
}

void pv_serve_data_csv(pv_request *rq, pv_response *rs)
{
    serve(rq, rs, ANSWER_CSV);
}

void pv_serve_api_load(pv_request *rq, pv_response *rs)
{
    pv_http_target t = {0};
    if (pv_http_target_resolve(rq, rs, NULL, &t) != 0)
        return;
    const pv_host_file *profile = pv_host_profile(t.host);
    if (profile == NULL) {
        /* Per-tool files are read per request; there is nothing to load. */
        pv_respond_json(rs, 200, json_pack("{s:s}", "state", "ready"));
        pv_http_target_release(rq, &t);
        return;
    }
    pv_source src = source_of(t.ix->logdir, profile);
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
    /* "queued": waiting until the memory budget allows the load. */
    json_t *j = json_pack("{s:s, s:I, s:I, s:s, s:I, s:I, s:I, s:I}", "state",
                          st.state == PV_LOAD_READY ? "ready"
                          : st.queued               ? "queued"
                                                    : "loading",
                          "done_bytes",
                          (json_int_t)st.done_bytes, "total_bytes", (json_int_t)st.total_bytes,
                          "trace_index", index_state[st.companion_state], "model_bytes",
                          (json_int_t)st.model_bytes, "trace_index_bytes",
                          (json_int_t)st.companion_bytes, "held_bytes",
                          (json_int_t)pv_model_store_bytes(rq->app->models), "budget_bytes",
                          (json_int_t)pv_model_store_budget(rq->app->models));
    /* The page's bar: the phase by name, its own measure (bytes, then the
     * finish's and the index's passes over the events) and the whole load
     * as one fraction that never goes back. */
    static const char *const phase_name[] = {"reading", "finishing", "indexing", "done"};
    if (j != NULL)
        json_object_update_new(j, json_pack("{s:s, s:I, s:I, s:f}", "phase",
                                            phase_name[st.phase], "phase_done",
                                            (json_int_t)st.phase_done, "phase_total",
                                            (json_int_t)st.phase_total, "progress",
                                            pv_load_status_fraction(&st)));
    if (j != NULL && st.companion_state == PV_LOAD_FAILED) {
        char msg[1200];
        pv_error_format(&st.companion_err, msg, sizeof msg);
        json_object_set_new(j, "trace_index_error", json_string(msg));
    }
    pv_respond_json(rs, st.state == PV_LOAD_READY ? 200 : 202, j);
}

/* XProf's module list: the HLO modules of the host's profile as the memory
 * and graph viewers name them, "<name>(<program id>)" sorted and joined by
 * commas, as text; "" for a profile without HLO protos. */
void pv_serve_module_list(pv_request *rq, pv_response *rs)
{
    pv_http_target t = {0};
    if (pv_http_target_resolve(rq, rs, NULL, &t) != 0)
        return;
    const pv_host_file *profile = pv_host_profile(t.host);
    if (profile == NULL || (profile->holds & PV_PROFILE_HLO) == 0) {
        pv_respond_text(rs, 200, "text/plain", "");
        pv_http_target_release(rq, &t);
        return;
    }
    if (!pv_limit_take(rq->app->heavy, HEAVY_WAIT_MS)) {
        pv_respond_busy(rs);
        pv_http_target_release(rq, &t);
        return;
    }
    pv_source src = source_of(t.ix->logdir, profile);
    const pv_model *m;
    pv_model_entry *entry;
    pv_error err = {0};
    if (pv_model_store_get(rq->app->models, &src, &m, &entry, &err) != 0) {
        pv_respond_pv_error(rs, &err);
    } else {
        size_t n;
        const char **names = pv_hlo_module_names(m, &rq->arena, &n);
        pv_buf b;
        pv_buf_init(&b, PV_ANSWER_MAX_BYTES);
        for (size_t i = 0; i < n; i++) {
            if (i > 0)
                pv_buf_adds(&b, ",");
            pv_buf_adds(&b, names[i]);
        }
        pv_respond_text(rs, 200, "text/plain",
                        b.len > 0 ? pv_arena_strndup(&rq->arena, b.data, b.len) : "");
        pv_buf_fini(&b);
        pv_model_store_put(rq->app->models, entry);
    }
    pv_limit_give(rq->app->heavy);
    pv_http_target_release(rq, &t);
}
