/* API test of the load bar's measures (#18): /api/load polled as fast as
 * it answers through a real load of a generated profile (bench/gen_xspace,
 * 64 MB) reports every phase in the loader's order (reading, finishing,
 * indexing, done), and across polls neither the phase, nor its done count,
 * nor the whole load's fraction ever goes back; done never passes total,
 * and the reading phase counts the file's own size. */
#include "httpc.h"
#include "served.h"
#include "testutil.h"

#include <jansson.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LOAD "/api/load?run=r&host=h"
/* The finishing phase is about a twentieth of a load: at 24 MB it lasted
 * a few ms, and on a busy machine, where the two decode threads had both
 * cores, a poll could miss it. */
#define SIZE_MB 64

static const char *const phases[] = {"reading", "finishing", "indexing", "done"};

static int phase_rank(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (name != NULL && strcmp(name, phases[i]) == 0)
            return i;
    ck_abort_msg("unknown phase %s", name != NULL ? name : "(none)");
    return -1;
}

/* Writes the generated profile as DIR/plugins/profile/r/h.xplane.pb;
 * returns its size. gen_xspace is built beside the profview under test. */
static long long make_profile(const char *dir)
{
    const char *bin = getenv("PROFVIEW_BIN");
    char bindir[1024];
    snprintf(bindir, sizeof bindir, "%s", bin != NULL ? bin : "./profview");
    char cmd[3000], file[1200];
    snprintf(file, sizeof file, "%s/plugins/profile/r/h.xplane.pb", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/plugins/profile/r' && '%s/bench/gen_xspace' '%s' %d 1"
             " >/dev/null", dir, dirname(bindir), file, SIZE_MB);
    ck_assert_int_eq(system(cmd), 0);
    struct stat st;
    ck_assert_int_eq(stat(file, &st), 0);
    return (long long)st.st_size;
}

START_TEST(test_load_phases_move_forward)
{
    char dir[] = "/tmp/pv_load_progress_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    long long size = make_profile(dir);
    char cache[1100];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("XDG_CACHE_HOME", cache, 1);
    pv_test_server srv;
    ck_assert_int_eq(pv_test_server_start_indexed(&srv, dir, NULL), 0);

    bool seen[4] = {false};
    int rank = -1;
    json_int_t done = 0, total = 0;
    double fraction = 0;
    int polls = 0;
    for (; polls < 200000 && rank < 3; polls++) {
        pv_test_reply r;
        ck_assert_int_eq(pv_test_get(&srv, "GET", LOAD, NULL, &r), 0);
        if (r.status == 404) {  /* the run is not scanned yet */
            pv_test_reply_free(&r);
            continue;
        }
        ck_assert_msg(r.status == 200 || r.status == 202, "status %d: %.200s", r.status, r.body);
        json_t *j = json_loadb(r.body, r.len, 0, NULL);
        pv_test_reply_free(&r);
        ck_assert_ptr_nonnull(j);
        int now = phase_rank(json_string_value(json_object_get(j, "phase")));
        json_int_t d = json_integer_value(json_object_get(j, "phase_done"));
        json_int_t t = json_integer_value(json_object_get(j, "phase_total"));
        double f = json_number_value(json_object_get(j, "progress"));
        ck_assert_int_ge(now, rank);
        ck_assert_int_le(d, t);
        ck_assert(f >= fraction && f <= 1.0);
        if (now == rank) {
            ck_assert_int_ge(d, done);
            ck_assert(total == 0 || t == total);
        }
        if (now == 0)
            ck_assert_int_eq(t, size);
        /* the model answers once it is finished, before the index is */
        ck_assert_str_eq(json_string_value(json_object_get(j, "state")),
                         now >= 2 ? "ready" : "loading");
        seen[now] = true;
        rank = now;
        done = d;
        total = t;
        fraction = f;
        json_decref(j);
    }
    ck_assert_int_eq(rank, 3);
    ck_assert(fraction == 1.0);
    for (int i = 0; i < 4; i++)
        ck_assert_msg(seen[i], "phase %s never reported in %d polls", phases[i], polls);
    ck_assert_int_eq(pv_test_server_stop(&srv), 0);
    pv_test_remove_tree(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("load_progress");
    TCase *tc = tcase_create("load_progress");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_load_phases_move_forward);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
