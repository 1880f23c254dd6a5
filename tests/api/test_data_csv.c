/* /data_csv cell by cell against /data, over HTTP with the real binary:
 * on every run of the demo logdir and of ../shared/testdata (its logdirs
 * and its PyTorch traces), for every tool a run lists and every host the
 * tool lists (ALL_HOSTS included), the CSV export must be the JSON
 * answer's table as pv_dt_write_csv documents it (csv_table.h): the same
 * records, columns and cells, each number reading back as exactly the
 * JSON's. The JSON route is the oracle here: the route itself is checked
 * against XProf's and TensorFlow's answers by tests/api/compare.
 *
 * Which table of the JSON a tool's CSV is, and with which parameters, is
 * what each tool's descriptor documents (the list below); every tool a
 * run lists that is not in the list must answer "no CSV" (404), so a
 * tool that gains a CSV fails here until its table is named below. */
#include "compare_io.h"
#include "csv_table.h"
#include "httpc.h"
#include "served.h"
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* A tool's CSV export: what /data_csv is asked with (after run, host and
 * tag), what /data is asked with, and which table of the JSON answer it
 * is (-1: the answer is the table). */
typedef struct csv_view {
    const char *tool;
    const char *csv_query;
    const char *json_query;
    int table;
} csv_view;

static const csv_view views[] = {
    /* kernel_stats_tool.c: the table in rows, as many as max_rows asks */
    {"kernel_stats", "", "", -1},
    {"kernel_stats", "&max_rows=0", "&max_rows=0", -1},
    /* op_stats_tool.c: the table without IDLE, with it when include_idle=1 */
    {"framework_op_stats", "", "", 1},
    {"framework_op_stats", "&include_idle=1", "", 0},
    {"framework_op_stats", "&max_ops=0&include_idle=1", "&max_ops=0", 0},
    /* xla_tables_tool.c: hlo_stats' one table, roofline_model's first */
    {"hlo_stats", "", "", -1},
    {"roofline_model", "", "", 0},
    /* distributed_tool.c: the first table (torch-tb-profiler's) */
    {"distributed_view", "", "", 0},
};
#define N_VIEWS (sizeof views / sizeof views[0])

/* What a walk compared, per view. */
typedef struct tally {
    size_t answers[N_VIEWS];   /* CSV answers compared */
    size_t rows[N_VIEWS];      /* their rows */
    size_t cells;              /* cells compared in all */
} tally;

static char cache_dir[] = "/tmp/pv_data_csv_XXXXXX";

/* A server on logdir that lists every run and host logdir holds. */
static void start(pv_test_server *s, const char *logdir)
{
    const char *extra[] = {"--cache-dir", cache_dir, NULL};
    ck_assert_int_eq(pv_test_server_start_indexed(s, logdir, extra), 0);
}

static json_t *get_json(const pv_test_server *s, const char *path)
{
    int status = 0;
    char detail[1200];
    json_t *j = pv_cmp_get_json(s, path, &status, detail, sizeof detail);
    ck_assert_msg(j != NULL, "%s: %s", path, detail);
    return j;
}

/* The JSON table the view's CSV is written from. */
static json_t *json_table(const pv_test_server *s, const char *base, const csv_view *v)
{
    char path[4096];
    snprintf(path, sizeof path, "/data/plugin/profile/data?%s%s", base, v->json_query);
    json_t *answer = get_json(s, path);
    json_t *t = v->table < 0 ? answer : json_array_get(answer, (size_t)v->table);
    ck_assert_msg(t != NULL, "%s: no table %d", path, v->table);
    json_incref(t);
    json_decref(answer);
    return t;
}

static void check_view(const pv_test_server *s, const char *base, size_t vi, tally *t)
{
    const csv_view *v = &views[vi];
    char path[4096];
    snprintf(path, sizeof path, "/data/plugin/profile/data_csv?%s%s", base, v->csv_query);
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == 200, "%s: %d %.300s", path, r.status, r.body);
    char h[256], want[256];
    ck_assert_ptr_nonnull(pv_test_header(&r, "content-type", h, sizeof h));
    ck_assert_str_eq(h, "text/csv; charset=utf-8");
    snprintf(want, sizeof want, "attachment; filename=\"%s.csv\"", v->tool);
    ck_assert_ptr_nonnull(pv_test_header(&r, "content-disposition", h, sizeof h));
    ck_assert_str_eq(h, want);
    pv_csv csv;
    char why[1024];
    ck_assert_msg(pv_csv_parse(r.body, r.len, &csv, why, sizeof why), "%s: %s", path, why);
    pv_test_reply_free(&r);
    json_t *table = json_table(s, base, v);
    size_t cells = 0;
    ck_assert_msg(pv_csv_matches_table(&csv, table, &cells, why, sizeof why), "%s: %s", path,
                  why);
    t->answers[vi]++;
    t->rows[vi] += csv.n - 1;
    t->cells += cells;
    pv_csv_fini(&csv);
    json_decref(table);
}

/* A tool without a CSV says so. */
static void check_no_csv(const pv_test_server *s, const char *base)
{
    char path[4096];
    snprintf(path, sizeof path, "/data/plugin/profile/data_csv?%s", base);
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, NULL, &r), 0);
    json_t *e = json_loadb(r.body, r.len, 0, NULL);
    ck_assert_msg(r.status == 404 && e != NULL &&
                      strcmp(json_string_value(json_object_get(e, "error")), "no CSV") == 0,
                  "%s: %d %.300s (a tool with a CSV must be named in this test's views)", path,
                  r.status, r.body);
    json_decref(e);
    pv_test_reply_free(&r);
}

/* Every run, tool and host of the server; returns the tally. */
static tally walk(const pv_test_server *s)
{
    tally t = {0};
    json_t *runs = get_json(s, "/data/plugin/profile/runs");
    ck_assert_uint_gt(json_array_size(runs), 0);
    size_t i, k, h;
    json_t *run, *tool, *host;
    json_array_foreach(runs, i, run) {
        char erun[1024], path[4096];
        pv_test_url_escape(json_string_value(run), erun, sizeof erun);
        snprintf(path, sizeof path, "/data/plugin/profile/run_tools?run=%s", erun);
        json_t *tools = get_json(s, path);
        json_array_foreach(tools, k, tool) {
            const char *name = json_string_value(tool);
            snprintf(path, sizeof path, "/data/plugin/profile/hosts?run=%s&tag=%s", erun, name);
            json_t *hosts = get_json(s, path);
            json_array_foreach(hosts, h, host) {
                char ehost[1024], base[3072];
                pv_test_url_escape(json_string_value(json_object_get(host, "hostname")), ehost,
                                   sizeof ehost);
                snprintf(base, sizeof base, "run=%s&host=%s&tag=%s", erun, ehost, name);
                bool has_csv = false;
                for (size_t v = 0; v < N_VIEWS; v++) {
                    if (strcmp(views[v].tool, name) == 0) {
                        check_view(s, base, v, &t);
                        has_csv = true;
                    }
                }
                if (!has_csv)
                    check_no_csv(s, base);
            }
            json_decref(hosts);
        }
        json_decref(tools);
    }
    json_decref(runs);
    return t;
}

static void print_tally(const char *what, const tally *t)
{
    printf("%s: %zu cells\n", what, t->cells);
    for (size_t v = 0; v < N_VIEWS; v++)
        printf("  %s%s: %zu answers, %zu rows\n", views[v].tool, views[v].csv_query,
               t->answers[v], t->rows[v]);
}

/* The demo's two CPU runs: op stats with rows; HLO op stats and the
 * roofline hold no op there (a Keras CPU run has no XLA op), so only their
 * headers are compared. */
START_TEST(test_demo_csv_is_the_json)
{
    pv_test_server s;
    start(&s, PV_SRCDIR "/demo");
    tally t = walk(&s);
    ck_assert_int_eq(pv_test_server_stop(&s), 0);
    print_tally("demo", &t);
    for (size_t v = 0; v < N_VIEWS; v++) {
        const char *tool = views[v].tool;
        if (strcmp(tool, "framework_op_stats") == 0)
            ck_assert_msg(t.rows[v] > 0, "demo: no row of %s%s compared", tool,
                          views[v].csv_query);
        if (strcmp(tool, "hlo_stats") == 0 || strcmp(tool, "roofline_model") == 0)
            ck_assert_msg(t.answers[v] == 2, "demo: %s answered %zu runs, want 2", tool,
                          t.answers[v]);
    }
}
END_TEST

/* Every logdir and trace of ../shared/testdata: every view with rows. */
START_TEST(test_shared_csv_is_the_json)
{
    PV_NEED_TESTDATA("test_shared_csv_is_the_json");
    pv_test_server s;
    start(&s, PV_TESTDATA);
    tally t = walk(&s);
    ck_assert_int_eq(pv_test_server_stop(&s), 0);
    print_tally("shared", &t);
    for (size_t v = 0; v < N_VIEWS; v++)
        ck_assert_msg(t.rows[v] > 0, "shared: no row of %s%s compared", views[v].tool,
                      views[v].csv_query);
}
END_TEST

int main(void)
{
    if (mkdtemp(cache_dir) == NULL)
        return 1;
    /* the tallies reach the log also from a test that then fails */
    setvbuf(stdout, NULL, _IOLBF, 0);
    Suite *s = suite_create("data_csv");
    TCase *tc = tcase_create("csv");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_demo_csv_is_the_json);
    tcase_add_test(tc, test_shared_csv_is_the_json);
    suite_add_tcase(s, tc);
    int rc = pv_test_run(s);
    char cmd[sizeof cache_dir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
