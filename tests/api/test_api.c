/* API tests: the real profview binary on a loopback port, real HTTP
 * requests. Covers every route, every error path, gzip, ETag /
 * If-None-Match, --path-prefix, path traversal attempts, a bad profile
 * file, a run appearing while the server runs, and a clean SIGTERM.
 * Expected bodies are the fixture files this test writes itself. */
#include "httpc.h"
#include "served.h"
#include "testutil.h"
#include "util/buf.h"
#include "index/index.h"
#include "util/gzip.h"

#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char logdir[128];
static char cachedir[128];
static pv_test_server srv;

static const char overview_json[] = "[{\"cols\":[],\"rows\":[],\"p\":{\"k\":\"fixture\"}}]";
static const char memprof_json[] = "{\"memoryIds\":[\"0\"],\"numHosts\":1,\"version\":1}";

static void write_file(const char *rel, const void *data, size_t n, int age_s)
{
    pv_test_write_file(logdir, rel, data, n, age_s);
}

static void setup(void)
{
    snprintf(logdir, sizeof logdir, "/tmp/pv_api_test_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(logdir));
    /* Servers started by the tests keep their cache here, not in $HOME. */
    snprintf(cachedir, sizeof cachedir, "/tmp/pv_api_cache_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(cachedir));
    setenv("XDG_CACHE_HOME", cachedir, 1);
    write_file("plugins/profile/legacy run/10.0.0.1.overview_page.json", overview_json,
               strlen(overview_json), 60);
    pv_buf gz;
    pv_buf_init(&gz, 1 << 20);
    ck_assert_int_eq(pv_gzip_compress(memprof_json, strlen(memprof_json), &gz, NULL), 0);
    write_file("plugins/profile/legacy run/10.0.0.1.memory_profile.json.gz", gz.data, gz.len, 60);
    pv_buf_fini(&gz);
    write_file("plugins/profile/legacy run/10.0.0.1.kernel_stats.pb", "\x0a\x00", 2, 60);
    write_file("job/plugins/profile/bad/garbage.xplane.pb", "this is not a protobuf file", 27, 60);
    write_file("job/plugins/profile/bad/empty.xplane.pb", "", 0, 60);
    ck_assert_int_eq(pv_test_server_start_indexed(&srv, logdir, NULL), 0);
}

static void teardown(void)
{
    ck_assert_int_eq(pv_test_server_stop(&srv), 0);
    pv_test_remove_tree(logdir);
    pv_test_remove_tree(cachedir);
}

static json_t *get_json(const char *path, int want_status)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(&srv, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == want_status, "%s: status %d, want %d: %s", path, r.status,
                  want_status, r.body);
    char ct[128];
    ck_assert_ptr_nonnull(pv_test_header(&r, "content-type", ct, sizeof ct));
    ck_assert_ptr_nonnull(strstr(ct, "application/json"));
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    ck_assert_msg(j != NULL, "%s: body is not JSON: %s", path, r.body);
    pv_test_reply_free(&r);
    return j;
}

/* An error body names what went wrong: {"error":..., "detail": ... needle ...}. */
static void expect_error(const char *path, int status, const char *needle)
{
    json_t *j = get_json(path, status);
    ck_assert(json_is_string(json_object_get(j, "error")));
    const char *detail = json_string_value(json_object_get(j, "detail"));
    ck_assert_ptr_nonnull(detail);
    if (needle != NULL)
        ck_assert_msg(strstr(detail, needle) != NULL, "%s: detail \"%s\" lacks \"%s\"", path,
                      detail, needle);
    json_decref(j);
}

/* ---- listing routes ------------------------------------------------------- */

START_TEST(test_runs)
{
    json_t *j = get_json("/data/plugin/profile/runs", 200);
    ck_assert_uint_eq(json_array_size(j), 2);
    /* Reverse name order, as TensorBoard lists them. */
    ck_assert_str_eq(json_string_value(json_array_get(j, 0)), "legacy run");
    ck_assert_str_eq(json_string_value(json_array_get(j, 1)), "job/bad");
    json_decref(j);
}
END_TEST

START_TEST(test_run_tools)
{
    json_t *j = get_json("/data/plugin/profile/run_tools?run=legacy%20run", 200);
    ck_assert_uint_eq(json_array_size(j), 3);
    ck_assert_str_eq(json_string_value(json_array_get(j, 0)), "overview_page");
    ck_assert_str_eq(json_string_value(json_array_get(j, 1)), "kernel_stats");
    ck_assert_str_eq(json_string_value(json_array_get(j, 2)), "memory_profile");
    json_decref(j);
    j = get_json("/data/plugin/profile/run_tools?run=job%2Fbad", 200);
    ck_assert_uint_eq(json_array_size(j), 8);   /* no GPU plane: no kernel_stats */
    ck_assert_str_eq(json_string_value(json_array_get(j, 1)), "trace_viewer@");
    ck_assert_str_eq(json_string_value(json_array_get(j, 7)), "hlo_stats");
    json_decref(j);
    expect_error("/data/plugin/profile/run_tools?run=nope", 404, "nope");
    expect_error("/data/plugin/profile/run_tools", 400, "run");
}
END_TEST

START_TEST(test_hosts)
{
    /* overview_page combines hosts too (issue 4): ALL_HOSTS comes last. */
    json_t *j = get_json("/data/plugin/profile/hosts?run=job/bad&tag=overview_page", 200);
    ck_assert_uint_eq(json_array_size(j), 3);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(j, 0), "hostname")),
                     "empty");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(j, 1), "hostname")),
                     "garbage");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(j, 2), "hostname")),
                     "ALL_HOSTS");
    json_decref(j);
    j = get_json("/data/plugin/profile/hosts?run=legacy%20run&tag=trace_viewer", 200);
    ck_assert_uint_eq(json_array_size(j), 0);
    json_decref(j);
    /* Two hosts with an XSpace: a tool that combines hosts (kernel_stats)
     * lists the pseudo host ALL_HOSTS after them; one host never does. */
    j = get_json("/data/plugin/profile/hosts?run=job/bad&tag=kernel_stats", 200);
    ck_assert_uint_eq(json_array_size(j), 3);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(j, 2), "hostname")),
                     "ALL_HOSTS");
    json_decref(j);
    j = get_json("/data/plugin/profile/hosts?run=legacy%20run&tag=kernel_stats", 200);
    ck_assert_uint_eq(json_array_size(j), 1);
    json_decref(j);
}
END_TEST

START_TEST(test_misc_routes)
{
    json_t *j = get_json("/data/plugin/profile/config", 200);
    ck_assert(json_is_true(json_object_get(j, "hideCaptureProfileButton")));
    json_decref(j);
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/data/plugin/profile/version", NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, PV_VERSION);
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/healthz", NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "ok\n");
    pv_test_reply_free(&r);
    expect_error("/data/plugin/profile/capture_profile?service_addr=x", 501, "offline");
    j = get_json("/api/index", 200);
    json_t *runs = json_object_get(j, "runs");
    ck_assert_uint_eq(json_array_size(runs), 2);
    json_t *host = json_array_get(json_object_get(json_array_get(runs, 0), "hosts"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(host, "name")), "10.0.0.1");
    ck_assert_uint_eq(json_array_size(json_object_get(host, "files")), 3);
    json_decref(j);
}
END_TEST

/* ---- /data ---------------------------------------------------------------- */

START_TEST(test_data_legacy_json)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(&srv, "GET",
                                 "/data/plugin/profile/data?run=legacy%20run&tag=overview_page"
                                 "&host=10.0.0.1", NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, overview_json);
    pv_test_reply_free(&r);
}
END_TEST

START_TEST(test_data_legacy_gzip)
{
    const char *path = "/data/plugin/profile/data?run=legacy%20run&tag=memory_profile"
                       "&host=10.0.0.1";
    pv_test_reply r;
    char v[128];
    /* Without Accept-Encoding the server decompresses the stored file. */
    ck_assert_int_eq(pv_test_get(&srv, "GET", path, NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_null(pv_test_header(&r, "content-encoding", v, sizeof v));
    ck_assert_str_eq(r.body, memprof_json);
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_get(&srv, "GET", path, "Accept-Encoding: gzip\r\n", &r), 0);
    ck_assert_str_eq(pv_test_header(&r, "content-encoding", v, sizeof v), "gzip");
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_gzip_decompress(r.body, r.len, &out, "reply", NULL), 0);
    ck_assert_str_eq(out.data, memprof_json);
    pv_buf_fini(&out);
    pv_test_reply_free(&r);
}
END_TEST

START_TEST(test_data_errors)
{
    expect_error("/data/plugin/profile/data?run=nope&tag=overview_page&host=h", 404,
                 "no run named \"nope\"");
    expect_error("/data/plugin/profile/data?run=legacy%20run&tag=overview_page&host=zz", 404,
                 "no host named \"zz\"");
    expect_error("/data/plugin/profile/data?run=legacy%20run&tag=pod_viewer&host=10.0.0.1", 404,
                 "no tool \"pod_viewer\"");
    expect_error("/data/plugin/profile/data?tag=overview_page", 400, "required");
    expect_error("/data/plugin/profile/data?run=job/bad&tag=overview_page", 400, "host");
    expect_error("/no/such/route", 404, "no/such/route");
    expect_error("/data/plugin/profile/capture_profile", 501, NULL);
}
END_TEST

/* ---- every listed tool answers, and with what it promises ----------------------- */

/* What a tool's /data answer promises (FORMATS.md §4, the tools' README):
 * one DataTable (tables -1), an array of DataTables (tables >= 1: at least
 * that many), or an object (tables 0); and the column ids that some table
 * of it holds, or the object's members. */
typedef struct promise {
    const char *tool;
    int tables;
    const char *fields[5];
} promise;

static const promise promises[] = {
    {"overview_page", 6, {"operation", "stepnum", "tip_type", NULL}},
    {"input_pipeline_analyzer", 4, {"stepnum", "opName", NULL}},
    {"framework_op_stats", 2, {"rank", "host_or_device", "operation", "total_self_time", NULL}},
    {"kernel_stats", -1, {"kernel_name", "op_name", "occurrences", "total_duration_us", NULL}},
    {"hlo_stats", -1, {"hlo_op_name", "total_self_time", NULL}},
    {"roofline_model", 1, {"operation", "measured_flop_rate", "bound_by", NULL}},
    {"op_profile", 0, {"byProgram", "byProgramExcludeIdle", NULL}},
    {"memory_profile", 0, {"memoryIds", "memoryProfilePerAllocator", NULL}},
    {"trace_viewer", 0, {"traceEvents", NULL}},
    {"trace_viewer@", 0, {"traceEvents", NULL}},
};

static bool is_datatable(const json_t *t)
{
    return json_is_array(json_object_get(t, "cols")) && json_is_array(json_object_get(t, "rows"));
}

static bool table_has_column(const json_t *t, const char *id)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(t, "cols"), i, c) {
        const char *cid = json_string_value(json_object_get(c, "id"));
        if (cid != NULL && strcmp(cid, id) == 0)
            return true;
    }
    return false;
}

/* Fails unless answer j of path keeps tool's promise. */
static void expect_promise(const char *path, const char *tool, const json_t *j)
{
    const promise *p = NULL;
    for (size_t i = 0; i < sizeof promises / sizeof promises[0]; i++)
        if (strcmp(promises[i].tool, tool) == 0)
            p = &promises[i];
    ck_assert_msg(p != NULL, "%s: no promise written here for tool %s", path, tool);
    if (p->tables < 0)
        ck_assert_msg(is_datatable(j), "%s: not a DataTable", path);
    else if (p->tables > 0)
        ck_assert_msg(json_is_array(j) && json_array_size(j) >= (size_t)p->tables,
                      "%s: not an array of %d tables", path, p->tables);
    else
        ck_assert_msg(json_is_object(j), "%s: not an object", path);
    for (size_t k = 0; k < 5 && p->fields[k] != NULL; k++) {
        bool found = false;
        if (p->tables < 0) {
            found = table_has_column(j, p->fields[k]);
        } else if (p->tables > 0) {
            size_t i;
            json_t *t;
            json_array_foreach(j, i, t) {
                found = found || (is_datatable(t) && table_has_column(t, p->fields[k]));
            }
        } else {
            found = json_object_get(j, p->fields[k]) != NULL;
        }
        ck_assert_msg(found, "%s: no %s", path, p->fields[k]);
    }
}

/* The answer of path (status 200 with JSON), gzip'd or not. */
static json_t *get_answer(const pv_test_server *s, const char *path)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == 200, "%s -> %d %.300s", path, r.status, r.body);
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    ck_assert_msg(j != NULL, "%s: not JSON", path);
    pv_test_reply_free(&r);
    return j;
}

START_TEST(test_data_every_tool_answers)
{
    /* The legacy run, with TensorFlow's old Trace proto beside its files:
     * that is the one file profview lists and cannot read, so the trace
     * viewer, and only it, answers "not built" (501), naming the file.
     * Every other tool answers 200: the tool files as they are, the
     * kernel stats converted from their .pb into the tool's table. */
    write_file("plugins/profile/legacy run/10.0.0.1.trace", "\x0a\x00", 2, 60);
    pv_test_server p;
    ck_assert_int_eq(pv_test_server_start(&p, logdir, NULL), 0);
    json_t *tools = get_answer(&p, "/data/plugin/profile/run_tools?run=legacy%20run");
    ck_assert_uint_eq(json_array_size(tools), 4);
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t) {
        const char *tool = json_string_value(t);
        char path[256];
        snprintf(path, sizeof path,
                 "/data/plugin/profile/data?run=legacy%%20run&tag=%s&host=10.0.0.1", tool);
        if (strcmp(tool, "trace_viewer") == 0) {
            pv_test_reply r;
            ck_assert_int_eq(pv_test_get(&p, "GET", path, NULL, &r), 0);
            ck_assert_msg(r.status == 501, "%s -> %d", path, r.status);
            json_t *e = json_loadb(r.body, r.len, 0, NULL);
            const char *detail = json_string_value(json_object_get(e, "detail"));
            ck_assert_msg(detail != NULL && strstr(detail, "trace_viewer") != NULL &&
                              strstr(detail, "10.0.0.1.trace") != NULL,
                          "%s: %s", path, r.body);
            json_decref(e);
            pv_test_reply_free(&r);
            continue;
        }
        json_t *j = get_answer(&p, path);
        if (strcmp(tool, "overview_page") == 0 || strcmp(tool, "memory_profile") == 0) {
            json_t *file = json_loads(strcmp(tool, "overview_page") == 0 ? overview_json
                                                                          : memprof_json,
                                      0, NULL);
            ck_assert_msg(json_equal(j, file), "%s: not the tool file", path);
            json_decref(file);
        } else {
            expect_promise(path, tool, j);
        }
        json_decref(j);
    }
    json_decref(tools);
    ck_assert_int_eq(pv_test_server_stop(&p), 0);
}
END_TEST

/* Every tool each demo run lists answers 200, on every host it lists, with
 * the fields the tool promises: "not built" is no answer for a listed tool
 * that computes from a model. */
START_TEST(test_demo_every_tool_keeps_its_promise)
{
    pv_test_server p;
    ck_assert_int_eq(pv_test_server_start(&p, PV_SRCDIR "/demo", NULL), 0);
    json_t *runs = get_answer(&p, "/data/plugin/profile/runs");
    ck_assert_uint_eq(json_array_size(runs), 2);
    size_t i, k, h, n = 0;
    json_t *run, *tool, *host;
    json_array_foreach(runs, i, run) {
        char path[512];
        snprintf(path, sizeof path, "/data/plugin/profile/run_tools?run=%s",
                 json_string_value(run));
        json_t *tools = get_answer(&p, path);
        ck_assert_uint_ge(json_array_size(tools), 8);
        json_array_foreach(tools, k, tool) {
            const char *name = json_string_value(tool);
            snprintf(path, sizeof path, "/data/plugin/profile/hosts?run=%s&tag=%s",
                     json_string_value(run), name);
            json_t *hosts = get_answer(&p, path);
            ck_assert_uint_gt(json_array_size(hosts), 0);
            json_array_foreach(hosts, h, host) {
                snprintf(path, sizeof path, "/data/plugin/profile/data?run=%s&tag=%s&host=%s",
                         json_string_value(run), name,
                         json_string_value(json_object_get(host, "hostname")));
                json_t *j = get_answer(&p, path);
                expect_promise(path, name, j);
                json_decref(j);
                n++;
            }
            json_decref(hosts);
        }
        json_decref(tools);
    }
    json_decref(runs);
    ck_assert_uint_ge(n, 16);
    ck_assert_int_eq(pv_test_server_stop(&p), 0);
}
END_TEST

START_TEST(test_bad_profile_reported)
{
    /* The decode of a non-protobuf file fails with a message naming the
     * file; the load route reports it once the loader has finished. */
    const char *paths[] = {"/api/load?run=job/bad&host=garbage", "/api/load?run=job/bad&host=empty"};
    const char *names[] = {"garbage.xplane.pb", "empty.xplane.pb"};
    for (int k = 0; k < 2; k++) {
        pv_test_reply r = {0};
        for (int tries = 0; tries < 3600; tries++) {
            ck_assert_int_eq(pv_test_get(&srv, "GET", paths[k], NULL, &r), 0);
            if (r.status != 202)
                break;
            pv_test_reply_free(&r);
            usleep(50000);
        }
        ck_assert_msg(r.status == 422, "%s -> %d %s", paths[k], r.status, r.body);
        ck_assert_msg(strstr(r.body, names[k]) != NULL, "%s", r.body);
        pv_test_reply_free(&r);
    }
    /* /data for the same host fails the same way; everything else still works. */
    expect_error("/data/plugin/profile/data?run=job/bad&tag=overview_page&host=garbage", 422,
                 "garbage.xplane.pb");
    /* ALL_HOSTS loads every host: the first broken one is reported. Tools
     * that do not combine hosts, and runs without two XSpaces, say so. */
    expect_error("/data/plugin/profile/data?run=job/bad&tag=kernel_stats&host=ALL_HOSTS", 422,
                 "empty.xplane.pb");
    expect_error("/data/plugin/profile/data?run=job/bad&tag=overview_page&host=ALL_HOSTS", 422,
                 "empty.xplane.pb");
    expect_error("/data/plugin/profile/data?run=job/bad&tag=memory_profile&host=ALL_HOSTS", 404,
                 "ALL_HOSTS");
    expect_error("/data/plugin/profile/data?run=legacy%20run&tag=kernel_stats&host=ALL_HOSTS",
                 404, "needs at least two");
    json_t *j = get_json("/data/plugin/profile/runs", 200);
    ck_assert_uint_eq(json_array_size(j), 2);
    json_decref(j);
}
END_TEST

/* ---- protocol -------------------------------------------------------------- */

START_TEST(test_gzip_and_etag)
{
    pv_test_reply plain, gz, again;
    char tag[128], tag_gz[128], v[128];
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/", NULL, &plain), 0);
    ck_assert_int_eq(plain.status, 200);
    ck_assert_ptr_nonnull(strstr(plain.body, "<html"));
    ck_assert_ptr_nonnull(pv_test_header(&plain, "etag", tag, sizeof tag));
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/", "Accept-Encoding: gzip, deflate\r\n", &gz), 0);
    ck_assert_str_eq(pv_test_header(&gz, "content-encoding", v, sizeof v), "gzip");
    ck_assert_ptr_nonnull(pv_test_header(&gz, "etag", tag_gz, sizeof tag_gz));
    ck_assert_str_ne(tag, tag_gz);
    pv_buf out;
    pv_buf_init(&out, 1 << 24);
    ck_assert_int_eq(pv_gzip_decompress(gz.body, gz.len, &out, "reply", NULL), 0);
    ck_assert_uint_eq(out.len, plain.len);
    ck_assert_mem_eq(out.data, plain.body, plain.len);
    pv_buf_fini(&out);

    char hdr[256];
    snprintf(hdr, sizeof hdr, "If-None-Match: %s\r\n", tag);
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/", hdr, &again), 0);
    ck_assert_int_eq(again.status, 304);
    ck_assert_uint_eq(again.len, 0);
    pv_test_reply_free(&again);
    /* A tag from the other representation does not match. */
    snprintf(hdr, sizeof hdr, "If-None-Match: %s\r\n", tag_gz);
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/", hdr, &again), 0);
    ck_assert_int_eq(again.status, 200);
    pv_test_reply_free(&again);
    /* The gzip'd copy revalidates with its own tag (a browser's reload). */
    snprintf(hdr, sizeof hdr, "Accept-Encoding: gzip\r\nIf-None-Match: %s\r\n", tag_gz);
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/", hdr, &again), 0);
    ck_assert_int_eq(again.status, 304);
    ck_assert_uint_eq(again.len, 0);
    pv_test_reply_free(&again);
    /* JSON routes carry ETags too. */
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/data/plugin/profile/runs", NULL, &again), 0);
    ck_assert_ptr_nonnull(pv_test_header(&again, "etag", tag, sizeof tag));
    pv_test_reply_free(&again);
    snprintf(hdr, sizeof hdr, "If-None-Match: %s\r\n", tag);
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/data/plugin/profile/runs", hdr, &again), 0);
    ck_assert_int_eq(again.status, 304);
    pv_test_reply_free(&again);
    pv_test_reply_free(&plain);
    pv_test_reply_free(&gz);
}
END_TEST

START_TEST(test_static_assets)
{
    pv_test_reply r;
    char v[256];
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/vendor/chart.min.js", NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "Chart.js v3"));
    ck_assert_ptr_nonnull(strstr(pv_test_header(&r, "content-type", v, sizeof v), "javascript"));
    ck_assert_ptr_nonnull(strstr(pv_test_header(&r, "cache-control", v, sizeof v), "max-age"));
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_get(&srv, "GET", "/index.html", NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(pv_test_header(&r, "content-security-policy", v, sizeof v));
    ck_assert_ptr_nonnull(pv_test_header(&r, "x-content-type-options", v, sizeof v));
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_get(&srv, "POST", "/data/plugin/profile/runs", NULL, &r), 0);
    ck_assert_int_eq(r.status, 405);
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_get(&srv, "HEAD", "/healthz", NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(r.len, 0);
    pv_test_reply_free(&r);
}
END_TEST

START_TEST(test_path_traversal_refused)
{
    static const char *const attempts[] = {
        "/data/plugin/profile/data?run=..%2F..%2F..%2Fetc&tag=overview_page&host=passwd",
        "/data/plugin/profile/data?run=../../etc&tag=overview_page&host=passwd",
        "/data/plugin/profile/data?run=legacy%20run&tag=overview_page&host=..%2F..%2F..%2Fetc%2Fpasswd",
        "/data/plugin/profile/data?run=legacy%20run&tag=..%2F..%2Fetc%2Fpasswd&host=10.0.0.1",
        "/data/plugin/profile/data?run=legacy%20run%00x&tag=overview_page&host=10.0.0.1",
        "/data/plugin/profile/data?run=legacy%20run&tag=overview_page%00&host=10.0.0.1",
        "/data/plugin/profile/data?run=legacy%20run&tag=overview_page&host=10.0.0.1%00",
        "/data/plugin/profile/data?run=%C0%AE%C0%AE&tag=overview_page&host=10.0.0.1",
        "/data/plugin/profile/hosts?run=..%2F..",
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/views/..%2F..%2F..%2Fetc%2Fpasswd",
        "/vendor/%00chart.min.js",
    };
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++) {
        pv_test_reply r;
        ck_assert_int_eq(pv_test_get(&srv, "GET", attempts[i], NULL, &r), 0);
        ck_assert_msg(r.status == 400 || r.status == 404, "%s -> %d", attempts[i], r.status);
        ck_assert_ptr_null(strstr(r.body, "root:"));
        pv_test_reply_free(&r);
    }
}
END_TEST

START_TEST(test_new_run_appears)
{
    write_file("later/plugins/profile/r2/h.overview_page.json", overview_json,
               strlen(overview_json), 60);
    int found = 0;
    for (int tries = 0; tries < 1800 && !found; tries++) {
        json_t *j = get_json("/data/plugin/profile/runs", 200);
        found = json_array_size(j) == 3;
        json_decref(j);
        if (!found)
            usleep(100000);
    }
    ck_assert_msg(found, "the new run did not appear within 180 s");
}
END_TEST

/* A file still being written: one byte more every few milliseconds (a
 * space, so the JSON stays valid) until told to stop. */
typedef struct growing {
    char path[512];
    atomic_bool stop;
} growing;

static void *grow_main(void *arg)
{
    growing *g = arg;
    while (!atomic_load(&g->stop)) {
        FILE *f = fopen(g->path, "a");
        if (f != NULL) {
            fputc(' ', f);
            fclose(f);
        }
        usleep(5000);
    }
    return NULL;
}

START_TEST(test_half_written_file_waits)
{
    /* A file that changes between every two scans is never offered; once
     * it stops, a later scan that sees it unchanged offers it. The scans
     * are 2 s apart, so withholding fails only if the writer, which writes
     * every 5 ms, is kept off the CPU for two seconds in a row: the test
     * does not depend on how fast the machine is. */
    pv_test_server slow;
    const char *extra[] = {"--rescan-ms", "2000", NULL};
    ck_assert_int_eq(pv_test_server_start_indexed(&slow, logdir, extra), 0);
    write_file("fresh/plugins/profile/r/h.overview_page.json", overview_json,
               strlen(overview_json), 0);
    growing g = {.stop = false};
    snprintf(g.path, sizeof g.path, "%s/fresh/plugins/profile/r/h.overview_page.json", logdir);
    pthread_t writer;
    ck_assert_int_eq(pthread_create(&writer, NULL, grow_main, &g), 0);
    /* three scans while it grows */
    for (int i = 0; i < 60; i++) {
        usleep(100000);
        pv_test_reply r;
        ck_assert_int_eq(pv_test_get(&slow, "GET", "/data/plugin/profile/runs", NULL, &r), 0);
        json_t *j = json_loads(r.body, 0, NULL);
        ck_assert_msg(json_array_size(j) == 2, "a file being written was listed: %s", r.body);
        json_decref(j);
        pv_test_reply_free(&r);
    }
    atomic_store(&g.stop, true);
    pthread_join(writer, NULL);
    ck_assert_int_eq(pv_test_server_wait_for(&slow, "fresh/r", "h"), 0);
    ck_assert_int_eq(pv_test_server_stop(&slow), 0);
}
END_TEST

/* ---- --path-prefix --------------------------------------------------------- */

START_TEST(test_path_prefix)
{
    pv_test_server p;
    const char *extra[] = {"--path-prefix", "/p/", NULL};
    ck_assert_int_eq(pv_test_server_start_indexed(&p, logdir, extra), 0);
    ck_assert_str_eq(p.prefix, "/p/");
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(&p, "GET", "/p/healthz", NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_get(&p, "GET", "/p/", NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "<html"));
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_get(&p, "GET", "/p/data/plugin/profile/runs", NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    pv_test_reply_free(&r);
    /* Outside the prefix only /healthz answers, for container health checks
     * (tests/attack). */
    ck_assert_int_eq(pv_test_get(&p, "GET", "/data/plugin/profile/runs", NULL, &r), 0);
    ck_assert_int_eq(r.status, 404);
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_get(&p, "GET", "/p", NULL, &r), 0);
    ck_assert_int_eq(r.status, 308);
    char loc[64];
    ck_assert_str_eq(pv_test_header(&r, "location", loc, sizeof loc), "/p/");
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_get(&p, "GET", "/pp/healthz", NULL, &r), 0);
    ck_assert_int_eq(r.status, 404);
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_server_stop(&p), 0);
}
END_TEST

/* Waits until api/load says ready for the demo's Keras run; returns the status. */
static int wait_loaded(const pv_test_server *p, const char *query)
{
    pv_test_reply r = {0};
    int status = 0;
    for (int tries = 0; tries < 3600; tries++) {
        ck_assert_int_eq(pv_test_get(p, "GET", query, NULL, &r), 0);
        status = r.status;
        pv_test_reply_free(&r);
        if (status != 202)
            break;
        usleep(50000);
    }
    return status;
}

/* Size of the one saved model (*.pvm) in the cache folder, or -1. */
static long saved_model_size(char *path, size_t cap)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls %s/profview/*.pvm 2>/dev/null | head -n 1", cachedir);
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    path[0] = '\0';
    if (fgets(path, (int)cap, f) != NULL)
        path[strcspn(path, "\n")] = '\0';
    pclose(f);
    struct stat st;
    return path[0] != '\0' && stat(path, &st) == 0 ? (long)st.st_size : -1;
}

START_TEST(test_saved_model_reused_and_checked)
{
    /* A decoded model is saved under the cache folder; a damaged saved
     * model is detected and rebuilt, and the profile still loads. */
    char demo[600], query[300], path[600];
    snprintf(demo, sizeof demo, "%s/demo", PV_SRCDIR);
    pv_index *ix = NULL;
    ck_assert_int_eq(pv_index_scan(demo, NULL, INT64_MAX / 2, &ix, NULL), 0);
    ck_assert_uint_gt(ix->n_runs, 0);
    snprintf(query, sizeof query, "/api/load?run=%s&host=%s", ix->runs[ix->n_runs - 1].name,
             ix->runs[ix->n_runs - 1].hosts[0].name);
    pv_index_unref(ix);
    pv_test_server p;
    ck_assert_int_eq(pv_test_server_start_indexed(&p, demo, NULL), 0);
    ck_assert_int_eq(wait_loaded(&p, query), 200);
    ck_assert_int_eq(pv_test_server_stop(&p), 0);
    long full = saved_model_size(path, sizeof path);
    ck_assert_int_gt(full, 64);

    ck_assert_int_eq(truncate(path, full / 2), 0);
    ck_assert_int_eq(pv_test_server_start_indexed(&p, demo, NULL), 0);
    ck_assert_int_eq(wait_loaded(&p, query), 200);
    ck_assert_int_eq(pv_test_server_stop(&p), 0);
    ck_assert_int_eq(saved_model_size(path, sizeof path), full);
}
END_TEST

START_TEST(test_bad_flags)
{
    pv_test_server p;
    const char *extra[] = {"--bind", "not-an-address", NULL};
    ck_assert_int_eq(pv_test_server_start(&p, logdir, extra), -1);
    ck_assert_int_eq(pv_test_server_start(&p, "/nonexistent/logdir", NULL), -1);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("routes");
    tcase_set_timeout(tc, 30);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_runs);
    tcase_add_test(tc, test_run_tools);
    tcase_add_test(tc, test_hosts);
    tcase_add_test(tc, test_misc_routes);
    tcase_add_test(tc, test_data_legacy_json);
    tcase_add_test(tc, test_data_legacy_gzip);
    tcase_add_test(tc, test_data_errors);
    tcase_add_test(tc, test_data_every_tool_answers);
    tcase_add_test(tc, test_demo_every_tool_keeps_its_promise);
    tcase_add_test(tc, test_bad_profile_reported);
    tcase_add_test(tc, test_gzip_and_etag);
    tcase_add_test(tc, test_static_assets);
    tcase_add_test(tc, test_path_traversal_refused);
    tcase_add_test(tc, test_new_run_appears);
    tcase_add_test(tc, test_half_written_file_waits);
    tcase_add_test(tc, test_path_prefix);
    tcase_add_test(tc, test_saved_model_reused_and_checked);
    tcase_add_test(tc, test_bad_flags);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(api_suite());
}
