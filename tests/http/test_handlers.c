/* In-process tests of the HTTP handlers: a request built in memory (its
 * parameters and headers from a list, no socket, no libmicrohttpd), the
 * handler called directly, its answer checked. They test what the handlers
 * decide — parameter rules, which tool and hosts, cache keys, CSV — on the
 * committed reference logdir (tests/data/reference), without a server.
 * Oracles: the rules of tools/common/params.h, TensorBoard's own
 * /run_tools answers (routes/corpus.json), the JSON route itself for the
 * CSV route, and file counts of the disk cache folder. */
#include "../api/csv_table.h"
#include "cache/disk.h"
#include "cache/store.h"
#include "http/http.h"
#include "util/limit.h"
#include "pv_config.h"
#include "testutil.h"
#include "tools/registry.h"
#include "util/gzip.h"

#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define MULTI "multi_host/2026_11_29_17_37_21"
#define HOST_A "localhost_40135"
#define HOST_B "localhost_47649"

/* The one global (STYLE rule 13); main.c defines it in the program. */
pv_config pv_cfg;

static pv_index_store index_store;
static pv_disk_cache disk;
static pv_app app;
static char cache_dir[64];
/* The Accept-Encoding the fake client sends; NULL: none, as curl. */
static const char *accept_encoding;

static void setup(void)
{
    accept_encoding = NULL;
    pv_index *ix = NULL;
    pv_error err = {0};
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ck_assert_int_eq(pv_index_scan(PV_SRCDIR "/tests/data/reference", NULL,
                                   (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec, &ix, &err),
                     0);
    pv_index_store_init(&index_store, ix);
    snprintf(cache_dir, sizeof cache_dir, "/tmp/pv-handlers-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(cache_dir));
    pv_disk_cache_init(&disk, cache_dir, PV_DISK_CACHE_MAX_AUTO);
    app = (pv_app){.index = &index_store, .models = pv_model_store_new(0, &disk, NULL),
                   .disk = &disk};
}

static void teardown(void)
{
    pv_model_store_free(app.models);
    pv_disk_cache_fini(&disk);
    pv_index_store_fini(&index_store);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cache_dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* ---- a request from a query string ----------------------------------------------- */

typedef struct fake {
    char *names[64];
    char *values[64];
    size_t n;
} fake;

static const char *fake_param(void *ctx, const char *name, size_t *len)
{
    fake *f = ctx;
    for (size_t i = 0; i < f->n; i++) {
        if (strcmp(f->names[i], name) == 0) {
            *len = strlen(f->values[i]);
            return f->values[i];
        }
    }
    return NULL;
}

static const char *fake_header(void *ctx, const char *name)
{
    (void)ctx;
    return strcasecmp(name, "Accept-Encoding") == 0 ? accept_encoding : NULL;
}

/* Retry-After, how the body came and the tag of the last answer. */
static unsigned last_retry_after;
static bool last_from_fd, last_gzip;
static char last_etag[64];

/* Answers handler for query ("a=1&b=2", no %-escapes); the body is returned
 * NUL-terminated, uncompressed and owned by the caller. */
static char *call(pv_handler handler, const char *query, unsigned *status)
{
    fake f = {0};
    char *copy = strdup(query);
    for (char *save = NULL, *kv = strtok_r(copy, "&", &save); kv != NULL;
         kv = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(kv, '=');
        ck_assert_ptr_nonnull(eq);
        *eq = '\0';
        f.names[f.n] = kv;
        f.values[f.n++] = eq + 1;
    }
    pv_request rq = {.src = {fake_param, fake_header, &f}, .path = "/", .app = &app};
    pv_arena_init(&rq.arena, 4096);
    pv_response rs = {0};
    handler(&rq, &rs);
    *status = rs.status;
    last_retry_after = rs.retry_after_s;
    last_from_fd = rs.body_from_fd;
    last_gzip = rs.body_is_gzip;
    snprintf(last_etag, sizeof last_etag, "%s", rs.etag != NULL ? rs.etag : "");
    if (rs.body_from_fd) {
        /* A kept answer is sent from its file. */
        char *kept = malloc(rs.len);
        ck_assert_int_eq(pread(rs.body_fd, kept, rs.len, (off_t)rs.body_offset), (ssize_t)rs.len);
        close(rs.body_fd);
        rs.body = kept;
        rs.body_static = false;
    }
    char *body;
    if (rs.body_is_gzip) {
        /* Answers of 4 KiB or more are kept, and sent, gzip'd. */
        pv_buf plain;
        pv_buf_init(&plain, (size_t)1 << 30);
        ck_assert_int_eq(pv_gzip_decompress(rs.body, rs.len, &plain, NULL, NULL), 0);
        body = pv_buf_take(&plain, NULL);
    } else {
        body = malloc(rs.len + 1);
        memcpy(body, rs.body, rs.len);
        body[rs.len] = '\0';
    }
    if (!rs.body_static)
        free(rs.body);
    pv_arena_fini(&rq.arena);
    free(copy);
    return body;
}

static json_t *call_json(pv_handler handler, const char *query, unsigned want_status)
{
    unsigned status;
    char *body = call(handler, query, &status);
    ck_assert_msg(status == want_status, "%s -> %u %s", query, status, body);
    json_t *j = json_loads(body, 0, NULL);
    ck_assert_msg(j != NULL, "%s: not JSON: %.200s", query, body);
    free(body);
    return j;
}

/* The answer is 400 and its detail is exactly detail. */
static void expect_400(const char *query, const char *detail)
{
    json_t *j = call_json(pv_serve_data, query, 400);
    ck_assert_str_eq(json_string_value(json_object_get(j, "error")), "bad parameter");
    ck_assert_str_eq(json_string_value(json_object_get(j, "detail")), detail);
    json_decref(j);
}

/* ---- parameters ---------------------------------------------------------------------- */

/* One rule per kind of parameter (params.h), whatever the tool. */
START_TEST(test_data_parameter_rules)
{
    const char *ks = "run=" MULTI "&host=" HOST_A "&tag=kernel_stats";
    char q[512];
    static const char *const bad_counts[] = {"-1", "+3", " 3", "3.5", "1e3", "", "0x10",
                                             "18446744073709551616"};
    for (size_t i = 0; i < sizeof bad_counts / sizeof bad_counts[0]; i++) {
        snprintf(q, sizeof q, "%s&max_rows=%s", ks, bad_counts[i]);
        expect_400(q, "max_rows must be a whole number from 0 to 18446744073709551615");
    }
    snprintf(q, sizeof q, "%s&pv_format=xml", ks);
    expect_400(q, "pv_format must be one of rows, columns");
    /* Today's switches all follow one rule: pv_extras no longer takes any
     * value as "off", host_steps no longer refuses "true". */
    snprintf(q, sizeof q, "%s&pv_extras=yes", ks);
    expect_400(q, "pv_extras must be 0 or 1");
    expect_400("run=" MULTI "&host=" HOST_A "&tag=overview_page&host_steps=2",
               "host_steps must be 0 or 1");
    json_decref(call_json(pv_serve_data,
                          "run=" MULTI "&host=" HOST_A "&tag=overview_page&host_steps=true", 200));
    expect_400("run=" MULTI "&host=" HOST_A "&tag=trace_viewer@&start_time_ms=inf",
               "start_time_ms must be a number from -9.2e+09 to 9.2e+09");
    expect_400("run=" MULTI "&host=" HOST_A "&tag=trace_viewer@&resolution=8000.5",
               "resolution must be a whole number from 0 to 18446744073709551615");
}
END_TEST

START_TEST(test_data_names)
{
    json_t *j = call_json(pv_serve_data, "run=" MULTI "&host=" HOST_A "&tag=no_such_tool", 404);
    ck_assert_str_eq(json_string_value(json_object_get(j, "error")), "unknown tool");
    json_decref(j);
    json_decref(call_json(pv_serve_data, "host=" HOST_A "&tag=kernel_stats", 400));
    json_decref(call_json(pv_serve_data, "run=" MULTI "&tag=kernel_stats", 400));
    json_decref(call_json(pv_serve_data, "run=" MULTI "&host=nobody&tag=kernel_stats", 404));
    json_decref(call_json(pv_serve_data, "run=nothing&host=" HOST_A "&tag=kernel_stats", 404));
    /* Only TensorFlow's pod_viewer.json answers pod_viewer: none here. */
    json_decref(call_json(pv_serve_data, "run=" MULTI "&host=" HOST_A "&tag=pod_viewer", 404));
    /* A host with no device has an empty op profile, as XProf 2.24.2 answers for it
     * (tests/data/reference/multi_host's golden). */
    j = call_json(pv_serve_data, "run=" MULTI "&host=" HOST_A "&tag=op_profile", 200);
    ck_assert_str_eq(json_string_value(json_object_get(j, "deviceType")), "CPU_ONLY");
    ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(j, "byProgram"),
                                                      "children")), 0);
    json_decref(j);
    /* memory_profile does not combine hosts. */
    j = call_json(pv_serve_data, "run=" MULTI "&host=ALL_HOSTS&tag=memory_profile", 404);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(j, "detail")),
                                 "does not combine hosts"));
    json_decref(j);
}
END_TEST

/* An alias is the same tool: the same answer. */
START_TEST(test_data_alias)
{
    json_t *a = call_json(pv_serve_data, "run=" MULTI "&host=" HOST_A "&tag=framework_op_stats",
                          200);
    json_t *b = call_json(pv_serve_data, "run=" MULTI "&host=" HOST_A "&tag=tensorflow_stats",
                          200);
    ck_assert(json_equal(a, b));
    json_decref(a);
    json_decref(b);
}
END_TEST

/* ---- hosts ----------------------------------------------------------------------------- */

/* hosts= names each host once whatever the request repeats: 200 repeats
 * cost what one does. */
START_TEST(test_data_hosts_list_repeats)
{
    const char *base = "run=" MULTI "&tag=trace_viewer@&resolution=0&hosts=";
    size_t cap = strlen(base) + 200 * (strlen(HOST_A) + 1) + strlen(HOST_B) + 1;
    char *q = malloc(cap);
    strcpy(q, base);
    for (int i = 0; i < 200; i++)
        strcat(strcat(q, HOST_A), ",");
    strcat(q, HOST_B);
    unsigned s1, s2;
    char *many = call(pv_serve_data, q, &s1);
    char *two = call(pv_serve_data, "run=" MULTI "&tag=trace_viewer@&resolution=0&hosts=" HOST_A
                                    "," HOST_B, &s2);
    ck_assert_uint_eq(s1, 200);
    ck_assert_uint_eq(s2, 200);
    ck_assert_str_eq(many, two);
    json_t *j = json_loads(two, 0, NULL);
    ck_assert_ptr_nonnull(j);
    json_decref(j);
    free(many);
    free(two);
    free(q);
    json_decref(call_json(pv_serve_data, "run=" MULTI "&tag=trace_viewer@&hosts=" HOST_A ",nobody",
                          404));
}
END_TEST

/* ---- cache keys ----------------------------------------------------------------------- */

/* The kept answers in dir (docs/cache.md: entries end in ".pvc"); the
 * saved model and its memos, written by the loader thread whenever it gets
 * to them, and temporaries are not counted. */
static size_t files_in(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        n += len > 4 && strcmp(de->d_name + len - 4, ".pvc") == 0 &&
             !pv_test_is_memos_entry(path);
    }
    closedir(d);
    return n;
}

/* Only the parameters a tool reads enter its answer's key: junk makes no
 * new entries (issue #15: 200 requests with &junk=$i grew the cache). */
START_TEST(test_data_cache_key_ignores_other_parameters)
{
    accept_encoding = "gzip";
    free(call(pv_serve_data, "run=" MULTI "&host=" HOST_A "&tag=kernel_stats&junk=0",
              &(unsigned){0}));
    size_t after_first = files_in(cache_dir);
    for (int i = 1; i < 20; i++) {
        char q[200];
        snprintf(q, sizeof q, "run=" MULTI "&host=" HOST_A "&tag=kernel_stats&junk=%d", i);
        free(call(pv_serve_data, q, &(unsigned){0}));
    }
    ck_assert_uint_eq(files_in(cache_dir), after_first);
    /* A parameter the tool reads is a new answer. */
    free(call(pv_serve_data, "run=" MULTI "&host=" HOST_A "&tag=kernel_stats&max_rows=0",
              &(unsigned){0}));
    ck_assert_uint_eq(files_in(cache_dir), after_first + 1);
}
END_TEST

/* A client without gzip gets a kept answer inflated once, then from a plain
 * copy kept beside it: the same bytes and tag as the gzip'd one carries. */
START_TEST(test_data_plain_client_gets_plain_copy)
{
    const char *q = "run=" MULTI "&host=" HOST_A "&tag=framework_op_stats";
    accept_encoding = "gzip";
    char *made = call(pv_serve_data, q, &(unsigned){0});
    char *gz = call(pv_serve_data, q, &(unsigned){0});
    ck_assert(last_gzip && last_from_fd);
    char tag[64];
    snprintf(tag, sizeof tag, "%s", last_etag);
    ck_assert_uint_eq(strlen(tag), 16);
    size_t kept = files_in(cache_dir);
    accept_encoding = NULL;
    char *first = call(pv_serve_data, q, &(unsigned){0});
    ck_assert(last_gzip);   /* inflated by the server as it is sent */
    ck_assert_uint_eq(files_in(cache_dir), kept + 1);
    char *second = call(pv_serve_data, q, &(unsigned){0});
    ck_assert(!last_gzip && last_from_fd);
    ck_assert_str_eq(last_etag, tag);
    ck_assert_str_eq(second, made);
    ck_assert_str_eq(first, made);
    ck_assert_str_eq(gz, made);
    ck_assert_uint_eq(files_in(cache_dir), kept + 1);
    free(made);
    free(gz);
    free(first);
    free(second);
}
END_TEST

/* ---- expensive answers ------------------------------------------------------------ */

/* With every slot taken, an answer that must be made is 503 with
 * Retry-After; a kept one is still served. */
START_TEST(test_data_busy)
{
    const char *q = "run=" MULTI "&host=" HOST_A "&tag=kernel_stats";
    free(call(pv_serve_data, q, &(unsigned){0}));   /* made and kept */
    pv_limit heavy;
    pv_limit_init(&heavy, 1);
    ck_assert(pv_limit_take(&heavy, 0));
    app.heavy = &heavy;
    unsigned status;
    free(call(pv_serve_data, q, &status));
    ck_assert_uint_eq(status, 200);
    json_t *j = call_json(pv_serve_data, "run=" MULTI "&host=" HOST_A "&tag=overview_page", 503);
    ck_assert_str_eq(json_string_value(json_object_get(j, "error")), "busy");
    json_decref(j);
    ck_assert_uint_eq(last_retry_after, 2);
    app.heavy = NULL;
    pv_limit_give(&heavy);
    pv_limit_fini(&heavy);
}
END_TEST

/* ---- CSV -------------------------------------------------------------------------------- */

/* csv is table, cell by cell (csv_table.h: pv_dt_write_csv's rules). */
static void expect_csv_is(const char *csv, const json_t *table)
{
    pv_csv c;
    char why[1024];
    size_t cells = 0;
    ck_assert_msg(pv_csv_parse(csv, strlen(csv), &c, why, sizeof why), "%s", why);
    ck_assert_msg(pv_csv_matches_table(&c, table, &cells, why, sizeof why), "%s", why);
    /* a header and at least one row of eighteen columns (the IDLE row alone
     * in the table with IDLE would be too little to test) */
    ck_assert_uint_gt(c.n, 2);
    ck_assert_uint_ge(cells, 3 * 18);
    pv_csv_fini(&c);
}

/* The CSV is the JSON table's rows under a line of its column labels, each
 * cell as the JSON says: without IDLE, or with it for include_idle=1. */
START_TEST(test_data_csv)
{
    json_t *table = call_json(pv_serve_data,
                              "run=" MULTI "&host=ALL_HOSTS&tag=framework_op_stats&max_ops=0", 200);
    unsigned status;
    char *with_idle = call(pv_serve_data_csv, "run=" MULTI
                           "&host=ALL_HOSTS&tag=framework_op_stats&max_ops=0&include_idle=1",
                           &status);
    ck_assert_uint_eq(status, 200);
    char *without = call(pv_serve_data_csv,
                         "run=" MULTI "&host=ALL_HOSTS&tag=framework_op_stats&max_ops=0", &status);
    ck_assert_uint_eq(status, 200);
    expect_csv_is(with_idle, json_array_get(table, 0));
    expect_csv_is(without, json_array_get(table, 1));
    free(with_idle);
    free(without);
    json_decref(table);
    json_decref(call_json(pv_serve_data_csv, "run=" MULTI "&host=" HOST_A "&tag=overview_page",
                          404));
}
END_TEST

/* ---- listing -------------------------------------------------------------------------- */

/* run_tools lists tools in TensorBoard's order: the tools both list come in
 * the same order as XProf 2.24.2 answered (routes/corpus.json). */
START_TEST(test_run_tools_order)
{
    json_t *corpus = json_load_file(PV_SRCDIR "/tests/data/reference/routes/corpus.json", 0, NULL);
    ck_assert_ptr_nonnull(corpus);
    const char *run;
    json_t *want;
    json_object_foreach(json_object_get(corpus, "run_tools"), run, want) {
        char q[300];
        snprintf(q, sizeof q, "run=%s", run);
        json_t *got = call_json(pv_serve_run_tools, q, 200);
        size_t k = 0, common = 0;
        for (size_t i = 0; i < json_array_size(want); i++) {
            const char *name = json_string_value(json_array_get(want, i));
            for (size_t j = k; j < json_array_size(got); j++) {
                if (strcmp(name, json_string_value(json_array_get(got, j))) == 0) {
                    ck_assert_msg(j >= k, "%s: %s out of order", run, name);
                    k = j + 1;
                    common++;
                }
            }
        }
        /* overview, trace viewer, input pipeline, memory, op stats. */
        ck_assert_uint_ge(common, 5);
        json_decref(got);
    }
    json_decref(corpus);
}
END_TEST

static Suite *handlers_suite(void)
{
    Suite *s = suite_create("handlers");
    TCase *tc = tcase_create("pv_serve_data");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_data_parameter_rules);
    tcase_add_test(tc, test_data_names);
    tcase_add_test(tc, test_data_alias);
    tcase_add_test(tc, test_data_hosts_list_repeats);
    tcase_add_test(tc, test_data_cache_key_ignores_other_parameters);
    tcase_add_test(tc, test_data_plain_client_gets_plain_copy);
    tcase_add_test(tc, test_data_busy);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_serve_data_csv");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_data_csv);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_serve_run_tools");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_run_tools_order);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(handlers_suite());
}
