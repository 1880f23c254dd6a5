/* API tests of the report routes (#20): /metrics (promtool's linter, the
 * request counters by hand count, each run's figures against the tool
 * routes' answers, --metrics-runs), the Grafana dashboard naming only what
 * /metrics exposes, and api/summary, api/compare and api/history against
 * the command line and the tool routes. The logdir holds the two Keras
 * reference runs, "bound" written before "fixed". */
#include "httpc.h"
#include "testutil.h"

#include <jansson.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#define REF PV_SRCDIR "/tests/data/reference"
#define DASHBOARD PV_SRCDIR "/docs/grafana-dashboard.json"

static char logdir[] = "/tmp/pv_report_api_XXXXXX";
static char cache[] = "/tmp/pv_report_cache_XXXXXX";

static void copy_run(const char *from, const char *run, int age_s)
{
    size_t len;
    uint8_t *data = pv_test_read_file(from, &len);
    char rel[256];
    snprintf(rel, sizeof rel, "plugins/profile/%s/vm.xplane.pb", run);
    pv_test_write_file(logdir, rel, data, len, age_s);
    free(data);
}

/* Not waited for through the routes, since test_metrics counts every
 * request answered: make_logdir writes the runs older than the scan's
 * settle window, so the first scan, before the ready line, offers them. */
static void start(pv_test_server *s, const char *metrics_runs)
{
    const char *extra[] = {"--cache-dir", cache, "--metrics-runs", metrics_runs, NULL};
    ck_assert_int_eq(pv_test_server_start(s, logdir, extra), 0);
}

static char *get_text(const pv_test_server *s, const char *path)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == 200, "%s: %d %s", path, r.status, r.body);
    char *body = strdup(r.body);
    pv_test_reply_free(&r);
    return body;
}

static json_t *get_json(const pv_test_server *s, const char *path, int want)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == want, "%s: %d %s", path, r.status, r.body);
    json_t *j = json_loads(r.body, 0, NULL);
    ck_assert_ptr_nonnull(j);
    pv_test_reply_free(&r);
    return j;
}

/* The value of the sample written exactly as series ("name{labels}"), or
 * NAN when there is none. */
static double sample(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : p)
        if (strncmp(p, series, n) == 0 && p[n] == ' ')
            return strtod(p + n + 1, NULL);
    return NAN;
}

/* The mean step time (ms) and input share (%) of a run, added up here
 * from its overview step table's rows. */
static void route_steps(const pv_test_server *s, const char *run, double *mean_ms,
                        double *input_pct)
{
    char path[256];
    snprintf(path, sizeof path, "/data/plugin/profile/data?run=%s&host=vm&tag=overview_page",
             run);
    json_t *ov = get_json(s, path, 200);
    const json_t *rows = json_object_get(json_array_get(ov, 1), "rows");
    double step = 0, input = 0;
    /* Columns of today's step table: infeedTimeMs is 7th, stepTimeMs 12th. */
    for (size_t i = 0; i < json_array_size(rows); i++) {
        const json_t *c = json_object_get(json_array_get(rows, i), "c");
        input += json_number_value(json_object_get(json_array_get(c, 6), "v"));
        step += json_number_value(json_object_get(json_array_get(c, 11), "v"));
    }
    *mean_ms = step / (double)json_array_size(rows);
    *input_pct = 100 * input / step;
    json_decref(ov);
}

/* ---- /metrics ------------------------------------------------------------------------ */

static void promtool(const char *text)
{
    if (system("command -v promtool >/dev/null 2>&1") != 0) {
        pv_test_skip("test_metrics promtool check", "promtool not installed (Debian: prometheus)");
        return;
    }
    FILE *p = popen("promtool check metrics > /tmp/pv_promtool.out 2>&1", "w");
    ck_assert_ptr_nonnull(p);
    fputs(text, p);
    int st = pclose(p);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "promtool check metrics failed; see "
                  "/tmp/pv_promtool.out");
}

START_TEST(test_metrics)
{
    pv_test_server s;
    start(&s, "20");
    double mean[2], input[2];
    route_steps(&s, "bound", &mean[0], &input[0]);
    route_steps(&s, "fixed", &mean[1], &input[1]);
    char *text = get_text(&s, "/metrics");
    promtool(text);
    /* Two overview answers so far; this scrape is counted after it is sent. */
    ck_assert_double_eq(sample(text, "profview_http_requests_total{route=\"/data/plugin/profile/"
                                     "data\",status=\"200\"}"), 2);
    ck_assert(isnan(sample(text, "profview_http_requests_total{route=\"/metrics\","
                                 "status=\"200\"}")));
    ck_assert_double_eq(sample(text, "profview_runs"), 2);
    ck_assert_double_eq(sample(text, "profview_answer_cache_misses_total"), 2);
    ck_assert_double_eq(sample(text, "profview_http_request_duration_seconds_count"), 2);
    const char *runs[2] = {"bound", "fixed"};
    for (int i = 0; i < 2; i++) {
        char series[128];
        snprintf(series, sizeof series, "profview_run_step_time_seconds{run=\"%s\",host=\"vm\"}",
                 runs[i]);
        ck_assert_double_eq_tol(sample(text, series), mean[i] / 1e3, 1e-12);
        snprintf(series, sizeof series, "profview_run_input_bound_ratio{run=\"%s\",host=\"vm\"}",
                 runs[i]);
        ck_assert_double_eq_tol(sample(text, series), input[i] / 100, 1e-12);
        /* No device on these CPU runs: no idle share to report. */
        snprintf(series, sizeof series, "profview_run_device_idle_ratio{run=\"%s\",host=\"vm\"}",
                 runs[i]);
        ck_assert(isnan(sample(text, series)));
    }
    json_t *mem = get_json(&s, "/data/plugin/profile/data?run=bound&host=vm&tag=memory_profile",
                           200);
    const char *peak = json_string_value(json_object_get(
        json_object_get(json_object_get(json_object_get(json_object_get(
                                            mem, "memoryProfilePerAllocator"), "mklcpu"),
                                        "profileSummary"), "peakStats"), "peakBytesInUse"));
    ck_assert_double_eq(sample(text, "profview_run_peak_memory_bytes{run=\"bound\",host=\"vm\","
                                     "allocator=\"mklcpu\"}"), strtod(peak, NULL));
    free(text);
    /* A second scrape counts the first, and the memory answer a hit or a miss. */
    text = get_text(&s, "/metrics");
    ck_assert_double_eq(sample(text, "profview_http_requests_total{route=\"/metrics\","
                                     "status=\"200\"}"), 1);
    ck_assert_double_eq(sample(text, "profview_http_request_duration_seconds_count"), 4);
    free(text);
    json_decref(mem);
    pv_test_server_stop(&s);
}
END_TEST

START_TEST(test_metrics_runs_bounded)
{
    pv_test_server s;
    start(&s, "1");
    char *text = get_text(&s, "/metrics");
    ck_assert(!isnan(sample(text, "profview_run_step_time_seconds{run=\"fixed\",host=\"vm\"}")));
    ck_assert(isnan(sample(text, "profview_run_step_time_seconds{run=\"bound\",host=\"vm\"}")));
    free(text);
    pv_test_server_stop(&s);
    start(&s, "0");
    text = get_text(&s, "/metrics");
    ck_assert_ptr_null(strstr(text, "profview_run_"));
    ck_assert_double_eq(sample(text, "profview_runs"), 2);
    free(text);
    pv_test_server_stop(&s);
}
END_TEST

/* Whether /metrics (text) declares the series name: a family of its own,
 * or the _bucket, _sum or _count series of a histogram. */
static bool declared(const char *text, const char *name)
{
    char type[160];
    snprintf(type, sizeof type, "# TYPE %s ", name);
    if (strstr(text, type) != NULL)
        return true;
    static const char *const parts[] = {"_bucket", "_sum", "_count"};
    for (int i = 0; i < 3; i++) {
        size_t k = strlen(name), s = strlen(parts[i]);
        if (k <= s || strcmp(name + k - s, parts[i]) != 0)
            continue;
        snprintf(type, sizeof type, "# TYPE %.*s histogram", (int)(k - s), name);
        if (strstr(text, type) != NULL)
            return true;
    }
    return false;
}

/* Every metric a query of j (any depth) names is one /metrics declares;
 * *n_names counts them. */
static void check_exprs(const json_t *j, const char *text, size_t *n_names)
{
    if (json_is_array(j)) {
        for (size_t i = 0; i < json_array_size(j); i++)
            check_exprs(json_array_get(j, i), text, n_names);
        return;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)j, key, v) {
        const char *expr = strcmp(key, "expr") == 0 ? json_string_value(v) : NULL;
        for (const char *p = expr ? strstr(expr, "profview_") : NULL; p != NULL;
             p = strstr(p, "profview_")) {
            size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)n, p);
            ck_assert_msg(declared(text, name), "the dashboard names %s, which /metrics does "
                          "not expose", name);
            (*n_names)++;
            p += n;
        }
        check_exprs(v, text, n_names);
    }
}

START_TEST(test_dashboard_names_exposed_metrics)
{
    json_error_t e;
    json_t *dash = json_load_file(DASHBOARD, 0, &e);
    ck_assert_msg(dash != NULL, "%s: %s", DASHBOARD, e.text);
    ck_assert_uint_ge(json_array_size(json_object_get(dash, "panels")), 8);
    pv_test_server s;
    start(&s, "20");
    char *text = get_text(&s, "/metrics");
    size_t n = 0;
    check_exprs(dash, text, &n);
    ck_assert_uint_ge(n, 20);
    free(text);
    json_decref(dash);
    pv_test_server_stop(&s);
}
END_TEST

/* ---- api/summary, api/compare, api/history ----------------------------------------------- */

START_TEST(test_api_summary_is_the_clis)
{
    pv_test_server s;
    start(&s, "20");
    json_t *api = get_json(&s, "/api/summary?run=bound&top=0", 200);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s' summary '%s/plugins/profile/bound' --json --top 0",
             getenv("PROFVIEW_BIN"), logdir);
    FILE *p = popen(cmd, "r");
    json_t *cli = json_loadf(p, 0, NULL);
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_ptr_nonnull(cli);
    /* The run is named by its folder on the command line, as in the logdir. */
    ck_assert_msg(json_equal(api, cli), "api/summary and profview summary differ");
    json_decref(cli);
    json_decref(api);
    json_t *bad = get_json(&s, "/api/summary?run=nope", 404);
    json_decref(bad);
    bad = get_json(&s, "/api/summary?run=bound&top=x", 400);
    json_decref(bad);
    bad = get_json(&s, "/api/summary?run=bound&host=nope", 404);
    json_decref(bad);
    pv_test_server_stop(&s);
}
END_TEST

START_TEST(test_api_compare)
{
    pv_test_server s;
    start(&s, "20");
    double mean[2], input[2];
    route_steps(&s, "fixed", &mean[0], &input[0]);
    route_steps(&s, "bound", &mean[1], &input[1]);
    json_t *c = get_json(&s, "/api/compare?base=fixed&new=bound&max_step_time_ratio=1.1", 200);
    ck_assert_double_eq_tol(
        json_number_value(json_object_get(json_object_get(c, "step_time_ms"), "ratio")),
        mean[1] / mean[0], 1e-9);
    ck_assert_str_eq(json_string_value(json_object_get(c, "verdict")), "fails");
    ck_assert_double_eq_tol(
        json_number_value(json_object_get(json_object_get(c, "input_percent"), "new")),
        input[1], 1e-9);
    /* top=0: every op that moved. */
    const json_t *ops = json_object_get(c, "ops");
    ck_assert_uint_eq(json_array_size(json_object_get(ops, "top")),
                      (size_t)(json_integer_value(json_object_get(ops, "added")) +
                               json_integer_value(json_object_get(ops, "removed")) +
                               json_integer_value(json_object_get(ops, "changed"))));
    json_decref(c);
    json_t *bad = get_json(&s, "/api/compare?base=fixed", 400);
    json_decref(bad);
    bad = get_json(&s, "/api/compare?base=fixed&new=bound&max_step_time_ratio=-1", 400);
    json_decref(bad);
    pv_test_server_stop(&s);
}
END_TEST

START_TEST(test_api_history)
{
    pv_test_server s;
    start(&s, "20");
    double mean[2], input[2];
    route_steps(&s, "bound", &mean[0], &input[0]);
    route_steps(&s, "fixed", &mean[1], &input[1]);
    json_t *h = get_json(&s, "/api/history", 200);
    ck_assert_int_eq(json_integer_value(json_object_get(h, "pending")), 0);
    const json_t *runs = json_object_get(h, "runs");
    ck_assert_uint_eq(json_array_size(runs), 2);
    const char *names[2] = {"bound", "fixed"};   /* oldest first */
    for (size_t i = 0; i < 2; i++) {
        const json_t *r = json_array_get(runs, i);
        ck_assert_str_eq(json_string_value(json_object_get(r, "run")), names[i]);
        const json_t *b = json_object_get(r, "brief");
        ck_assert_double_eq_tol(json_number_value(json_object_get(b, "step_time_ms")), mean[i],
                                1e-9);
        ck_assert_double_eq_tol(json_number_value(json_object_get(b, "input_percent")), input[i],
                                1e-9);
        ck_assert(json_is_null(json_object_get(b, "device_idle_percent")));
    }
    ck_assert_double_lt(json_number_value(json_object_get(json_array_get(runs, 0), "time_s")),
                        json_number_value(json_object_get(json_array_get(runs, 1), "time_s")));
    json_decref(h);
    h = get_json(&s, "/api/history?prefix=fix", 200);
    ck_assert_uint_eq(json_array_size(json_object_get(h, "runs")), 1);
    json_decref(h);
    pv_test_server_stop(&s);
}
END_TEST

/* The logdir: the input-bound Keras run, then the fixed one written later. */
static void make_logdir(void)
{
    copy_run(REF "/keras_input_bound/plugins/profile/2026_11_29_17_36_18/vm.xplane.pb", "bound",
             200);
    copy_run(REF "/keras_input_fixed/plugins/profile/2026_11_29_17_36_24/vm.xplane.pb", "fixed",
             100);
}

int main(void)
{
    if (mkdtemp(logdir) == NULL || mkdtemp(cache) == NULL)
        return 1;
    Suite *s = suite_create("report_api");
    TCase *tc = tcase_create("report_api");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, make_logdir, NULL);
    tcase_add_test(tc, test_metrics);
    tcase_add_test(tc, test_metrics_runs_bounded);
    tcase_add_test(tc, test_dashboard_names_exposed_metrics);
    tcase_add_test(tc, test_api_summary_is_the_clis);
    tcase_add_test(tc, test_api_compare);
    tcase_add_test(tc, test_api_history);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
