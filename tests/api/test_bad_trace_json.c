/* API tests of bad trace JSON in a PyTorch run, over HTTP with the real
 * binary: each file gets a clear error that names it and the problem (or,
 * cut off mid-file, what was read and a warning), the other files of the
 * run are still served, and nothing in the logdir is written. The files
 * are written here; what each must say follows from its bytes:
 *   garbage    "not json at all": no format recognises it
 *   notarray   {"traceEvents": 12}
 *   deep       100,000 '[': deeper than the decoder's 512 levels
 *   cut        two complete events' worth, cut inside the second: one event
 *              and a warning naming byte 100, where the file ends
 *   huge       one event whose name is 65 MiB, past the 64 MiB an event
 *              may take */
#include "httpc.h"
#include "served.h"
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HUGE_NAME ((size_t)65 << 20)

static char tmpdir[128];
static char logdir[160];
static pv_test_server srv;
static char *before;   /* the logdir's listing before the server started */

static const char CUT[] = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,"
                          "\"pid\":1,\"tid\":1},{\"ph\":\"X\",\"name\":\"b\",\"ts\":5,\"du";

static void put(const char *name, const void *data, size_t n)
{
    char rel[256];
    snprintf(rel, sizeof rel, "logdir/run/%s.pt.trace.json", name);
    pv_test_write_file(tmpdir, rel, data, n, 3600);
}

/* The files of the logdir as "name size mtime" lines, to compare. */
static char *listing(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "cd '%s' && find . -printf '%%p %%s %%T@\\n' | sort", logdir);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    size_t n;
    while ((n = fread(out + len, 1, cap - len - 1, p)) > 0)
        len += n;
    out[len] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    return out;
}

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pv_bad_trace_json_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    snprintf(logdir, sizeof logdir, "%s/logdir", tmpdir);
    setenv("XDG_CACHE_HOME", tmpdir, 1);
    put("garbage", "not json at all", 15);
    put("notarray", "{\"traceEvents\": 12}", 19);
    size_t depth = 100000;
    char *deep = malloc(depth);
    memset(deep, '[', depth);
    put("deep", deep, depth);
    free(deep);
    put("cut", CUT, sizeof CUT - 1);
    static const char head[] = "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"";
    static const char tail[] = "\"}]}";
    size_t n = sizeof head - 1 + HUGE_NAME + sizeof tail - 1;
    char *huge = malloc(n);
    memcpy(huge, head, sizeof head - 1);
    memset(huge + sizeof head - 1, 'x', HUGE_NAME);
    memcpy(huge + sizeof head - 1 + HUGE_NAME, tail, sizeof tail - 1);
    put("huge", huge, n);
    free(huge);
    before = listing();
    ck_assert_msg(pv_test_server_start_indexed(&srv, logdir, NULL) == 0,
                  "the server did not start");
}

static void teardown(void)
{
    ck_assert_int_eq(pv_test_server_stop(&srv), 0);
    pv_test_remove_tree(tmpdir);
    free(before);
}

/* api/trace/meta of host: want_status, and for an error, a detail that
 * names the file and contains problem. Returns the answer (caller frees). */
static json_t *meta(const char *host, int want_status, const char *problem)
{
    char path[256];
    snprintf(path, sizeof path, "/api/trace/meta?run=run&host=%s", host);
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(&srv, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == want_status, "%s: status %d, want %d: %.300s", host, r.status,
                  want_status, r.body);
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    ck_assert_msg(j != NULL, "%s: not JSON: %.300s", host, r.body);
    pv_test_reply_free(&r);
    if (problem != NULL) {
        const char *detail = json_string_value(json_object_get(j, "detail"));
        char file[64];
        snprintf(file, sizeof file, "run/%s.pt.trace.json", host);
        ck_assert_msg(detail != NULL && strstr(detail, file) != NULL &&
                          strstr(detail, problem) != NULL,
                      "%s: detail \"%s\" should name %s and say \"%s\"", host,
                      detail ? detail : "(none)", file, problem);
    }
    return j;
}

START_TEST(test_each_bad_file_says_what_is_wrong)
{
    json_decref(meta("garbage", 422, "not a supported profile format"));
    json_decref(meta("notarray", 422, "no traceEvents array"));
    json_decref(meta("deep", 422, "nested too deeply"));
    json_decref(meta("huge", 413, "larger than 64 MiB"));
    json_t *cut = meta("cut", 200, NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(cut, "n_events")), 1);
    const char *warning = json_string_value(json_array_get(json_object_get(cut, "warnings"), 0));
    ck_assert_msg(warning != NULL && strstr(warning, "cut off at byte 100") != NULL, "%s",
                  warning ? warning : "(no warning)");
    json_decref(cut);
    char *after = listing();
    ck_assert_str_eq(after, before);
    free(after);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bad_trace_json");
    TCase *tc = tcase_create("trace JSON errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_each_bad_file_says_what_is_wrong);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
