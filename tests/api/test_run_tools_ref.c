/* The tool lists against XProf 2.24.2's own: /run_tools for every run of
 * tests/data/reference (routes/corpus.json) and of ../shared/testdata
 * (routes/shared.json, SKIP when absent), as TensorBoard answered them
 * (tools/reference/server_check --write-routes). The same tools in the same
 * order: the XLA tools for every XSpace, memory_viewer and graph_viewer
 * with HLO protos, kernel_stats with a GPU plane.
 *
 * One deliberate difference, named run by run: XProf lists nothing for a
 * run of TensorFlow's per-tool files alone (no .xplane.pb), where profview
 * answers the tools those files hold (FORMATS.md); there the list must be
 * the tools of the files, which test_index.c checks, and XProf's empty. */
#include "httpc.h"
#include "served.h"
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define REF PV_SRCDIR "/tests/data/reference"

/* XProf lists no tool for these runs of per-tool files only. */
static const char *const files_only[] = {
    "tf_legacy_demo_2020/Cloud-TPU",
    "tf_legacy_demo_2020/GPU-compute-bound",
    "tf_legacy_demo_2020/GPU-input-bound",
    "xprof_plugin_demo/demo",
};

static bool is_files_only(const char *run)
{
    for (size_t i = 0; i < sizeof files_only / sizeof files_only[0]; i++)
        if (strcmp(files_only[i], run) == 0)
            return true;
    return false;
}

static json_t *run_tools(const pv_test_server *s, const char *run)
{
    char path[1024];
    size_t n = (size_t)snprintf(path, sizeof path, "/data/plugin/profile/run_tools?run=");
    for (const char *p = run; *p != '\0' && n + 4 < sizeof path; p++)
        n += (size_t)snprintf(path + n, sizeof path - n, *p == '/' ? "%%2F" : "%c", *p);
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == 200, "%s: %d %s", path, r.status, r.body);
    json_t *j = json_loads(r.body, 0, NULL);
    ck_assert_ptr_nonnull(j);
    pv_test_reply_free(&r);
    return j;
}

/* Every run of routes (one of the routes files) served from logdir lists XProf's
 * tools; returns how many runs were compared. */
static size_t compare_routes(const char *logdir, const char *routes)
{
    char cache[] = "/tmp/pv_run_tools_cache_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(cache));
    const char *extra[] = {"--cache-dir", cache, NULL};
    pv_test_server s;
    ck_assert_int_eq(pv_test_server_start_indexed(&s, logdir, extra), 0);
    json_t *ref = json_load_file(routes, 0, NULL);
    ck_assert_ptr_nonnull(ref);
    const char *run;
    json_t *want;
    size_t n = 0, files_only_seen = 0;
    json_object_foreach(json_object_get(ref, "run_tools"), run, want) {
        json_t *ours = run_tools(&s, run);
        if (is_files_only(run)) {
            ck_assert_uint_eq(json_array_size(want), 0);
            ck_assert_uint_gt(json_array_size(ours), 0);
            files_only_seen++;
        } else {
            char *a = json_dumps(ours, JSON_COMPACT), *b = json_dumps(want, JSON_COMPACT);
            ck_assert_msg(json_equal(ours, want), "%s: profview %s, XProf %s", run, a, b);
            free(a);
            free(b);
            n++;
        }
        json_decref(ours);
    }
    /* a name in files_only that no run matches is a rule left over */
    if (strstr(routes, "shared") != NULL)
        ck_assert_uint_eq(files_only_seen, sizeof files_only / sizeof files_only[0]);
    json_decref(ref);
    ck_assert_int_eq(pv_test_server_stop(&s), 0);
    char rm[256];
    snprintf(rm, sizeof rm, "rm -rf %s", cache);
    ck_assert_int_eq(system(rm), 0);
    return n;
}

START_TEST(test_run_tools_corpus)
{
    /* hand count of routes/corpus.json: jax_train and five TF runs */
    ck_assert_uint_eq(compare_routes(REF, REF "/routes/corpus.json"), 6);
}
END_TEST

START_TEST(test_run_tools_shared)
{
    PV_NEED_TESTDATA("test_run_tools_shared");
    /* routes/shared.json: 12 runs, 4 of them per-tool files only */
    ck_assert_uint_eq(compare_routes(pv_test_data_path("/logdirs"), REF "/routes/shared.json"), 8);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("run_tools_ref");
    TCase *tc = tcase_create("run_tools");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_run_tools_corpus);
    tcase_add_test(tc, test_run_tools_shared);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
