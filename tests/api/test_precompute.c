/* Precompute and read-only replicas (#17), with the real binary on the
 * shared real profiles (../shared/testdata/logdirs: twelve runs, one of
 * two hosts, some with TensorFlow's per-tool files only; and
 * ../shared/testdata/traces: PyTorch and TensorFlow trace JSON, six runs,
 * one of two workers).
 *
 * Two shards run at once into one folder, which then holds every
 * profile's model and trace index; then a server with
 * --cache-read-only on that folder and a server that decodes for itself
 * are asked every tool of every run on every host (ALL_HOSTS included),
 * as JSON and as CSV, and the trace viewer's meta and first tile of every
 * profile: status, type and bytes must be equal, the replica must have
 * decoded nothing (/api/index "loads") while the other decoded every
 * profile, and the folder must be exactly as the shards left it. A
 * second run of a shard makes nothing and decodes nothing; two writers of
 * every entry at once leave a folder that serves the same bytes; bad
 * --shard values are refused. */
#include "httpc.h"
#include "index/index.h"
#include "served.h"
#include "testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#define LOGDIR pv_test_data_path("/logdirs")
#define TRACES pv_test_data_path("/traces")

static const char *logdir; /* the one the test at hand precomputes */

static char dir[128];       /* the test's own folder */
static char cache[200];     /* the shards' folder, made by precompute */
static char own_cache[200]; /* the self-decoding server's */

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pv_precompute_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cache, sizeof cache, "%s/shared", dir);
    snprintf(own_cache, sizeof own_cache, "%s/own", dir);
}

static void teardown(void)
{
    pv_test_remove_tree(dir);
}

/* ---- running precompute ------------------------------------------------------ */

typedef struct shard_run {
    pid_t pid;
    int out_fd;
    char line[1024];   /* its summary line */
    int status;        /* exit code */
} shard_run;

static void shard_start(shard_run *r, const char *shard)
{
    const char *bin = getenv("PROFVIEW_BIN");
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    r->pid = fork();
    ck_assert_int_ge(r->pid, 0);
    if (r->pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(bin, bin, "precompute", logdir, "--cache-dir", cache, "--shard", shard,
              (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    r->out_fd = fds[0];
}

static void shard_wait(shard_run *r)
{
    size_t n = 0;
    ssize_t got;
    while (n < sizeof r->line - 1 && (got = read(r->out_fd, r->line + n, sizeof r->line - 1 - n)) > 0)
        n += (size_t)got;
    r->line[n] = '\0';
    close(r->out_fd);
    int st;
    ck_assert_int_eq(waitpid(r->pid, &st, 0), r->pid);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs the shards given at once and checks each exits 0. */
static void run_shards(shard_run *runs, const char *const *shards, size_t n)
{
    for (size_t i = 0; i < n; i++)
        shard_start(&runs[i], shards[i]);
    for (size_t i = 0; i < n; i++) {
        shard_wait(&runs[i]);
        ck_assert_msg(runs[i].status == 0, "shard %s exited %d: %s", shards[i], runs[i].status,
                      runs[i].line);
    }
}

/* The summary's numbers: "precompute shard I/N: A of B units, P profile
 * bytes, M answers made, K kept already, F failed, D decoded, R read from
 * the cache, S s". */
typedef struct summary {
    unsigned shard, shards;
    unsigned long mine, units, made, kept, failed, decoded;
} summary;

static summary parse_summary(const char *line)
{
    summary s;
    unsigned long long bytes, from_disk;
    int n = sscanf(line, "precompute shard %u/%u: %lu of %lu units, %llu profile bytes, %lu "
                   "answers made, %lu kept already, %lu failed, %lu decoded, %llu read from",
                   &s.shard, &s.shards, &s.mine, &s.units, &bytes, &s.made, &s.kept, &s.failed,
                   &s.decoded, &from_disk);
    ck_assert_msg(n == 10, "summary not understood: %s", line);
    return s;
}

/* Profiles below logdir, and runs with two or more, counted from the
 * index: the units precompute must split. */
static void count_units(size_t *profiles, size_t *multi)
{
    pv_index *ix = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_index_scan(logdir, NULL, (int64_t)time(NULL) * 1000000000LL, &ix, &err),
                     0);
    *profiles = 0;
    *multi = 0;
    for (size_t r = 0; r < ix->n_runs; r++) {
        size_t n = pv_run_profiles(&ix->runs[r]);
        *profiles += n;
        *multi += n >= 2;
    }
    pv_index_unref(ix);
}

/* ---- the folder ----------------------------------------------------------------- */

/* Names, sizes and mtimes of the folder's files, sorted by name; also
 * counts the saved models (.pvm), their trace indexes (.pvi) and
 * temporaries in it. */
static char *folder_state(const char *d, size_t *pvm, size_t *pvi, size_t *tmp)
{
    struct dirent **names;
    int n = scandir(d, &names, NULL, alphasort);
    ck_assert_int_ge(n, 0);
    size_t cap = (size_t)n * 128 + 1, len = 0;
    char *out = malloc(cap);
    out[0] = '\0';
    *pvm = 0;
    *pvi = 0;
    *tmp = 0;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char path[400];
        snprintf(path, sizeof path, "%s/%.100s", d, name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            len += (size_t)snprintf(out + len, cap - len, "%.40s %lld %lld.%09ld\n", name,
                                    (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                                    st.st_mtim.tv_nsec);
            size_t nl = strlen(name);
            *pvm += nl > 4 && strcmp(name + nl - 4, ".pvm") == 0;
            *pvi += nl > 4 && strcmp(name + nl - 4, ".pvi") == 0;
            *tmp += nl > 4 && strcmp(name + nl - 4, ".tmp") == 0;
        }
        free(names[i]);
    }
    free(names);
    return out;
}

/* ---- asking both servers ---------------------------------------------------------- */

static pv_test_server replica, own;

static json_t *get_json(const pv_test_server *s, const char *path)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == 200, "%s: %d", path, r.status);
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    ck_assert_ptr_nonnull(j);
    pv_test_reply_free(&r);
    return j;
}

/* Asks both servers for path; returns the status after checking that
 * status, type and body are equal. */
static int same_answer(const char *path)
{
    pv_test_reply a, b;
    ck_assert_int_eq(pv_test_get(&replica, "GET", path, NULL, &a), 0);
    ck_assert_int_eq(pv_test_get(&own, "GET", path, NULL, &b), 0);
    ck_assert_msg(a.status == b.status, "%s: replica %d, own %d", path, a.status, b.status);
    char ta[128] = "", tb[128] = "";
    pv_test_header(&a, "content-type", ta, sizeof ta);
    pv_test_header(&b, "content-type", tb, sizeof tb);
    ck_assert_str_eq(ta, tb);
    ck_assert_msg(a.len == b.len && memcmp(a.body, b.body, a.len) == 0,
                  "%s: %zu bytes from the replica, %zu from the server that decoded", path, a.len,
                  b.len);
    int status = a.status;
    pv_test_reply_free(&a);
    pv_test_reply_free(&b);
    return status;
}

/* What the walk asked: answers of 200, of them ALL_HOSTS ones, and trace
 * views of 200. */
typedef struct walk_counts {
    size_t answers, all_hosts, traces;
} walk_counts;

/* The tool's JSON and CSV answers for one host (escaped: er, et, eh). */
static void walk_answers(const char *er, const char *et, const char *eh, walk_counts *c)
{
    static const char *const routes[] = {"data", "data_csv"};
    char path[900];
    for (size_t k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "/data/plugin/profile/%s?run=%s&tag=%s&host=%s", routes[k],
                 er, et, eh);
        if (same_answer(path) == 200) {
            c->answers++;
            c->all_hosts += strcmp(eh, "ALL_HOSTS") == 0;
        }
    }
}

/* Every host the run lists for the tool, and ALL_HOSTS where it is not
 * listed: tools that combine hosts without offering it (the trace viewer)
 * still answer it, and precompute keeps that answer too. */
static void walk_tool(const char *run, const char *tool, walk_counts *c)
{
    char er[300], et[100], path[900];
    pv_test_url_escape(run, er, sizeof er);
    pv_test_url_escape(tool, et, sizeof et);
    snprintf(path, sizeof path, "/data/plugin/profile/hosts?run=%s&tag=%s", er, et);
    json_t *hosts = get_json(&own, path);
    ck_assert_uint_gt(json_array_size(hosts), 0);
    bool all_listed = false;
    for (size_t h = 0; h < json_array_size(hosts); h++) {
        const char *host = json_string_value(json_object_get(json_array_get(hosts, h),
                                                             "hostname"));
        char eh[200];
        pv_test_url_escape(host, eh, sizeof eh);
        walk_answers(er, et, eh, c);
        all_listed |= strcmp(host, "ALL_HOSTS") == 0;
        if (strcmp(tool, "trace_viewer@") != 0 || strcmp(host, "ALL_HOSTS") == 0)
            continue;
        snprintf(path, sizeof path, "/api/trace/meta?run=%s&host=%s", er, eh);
        int meta = same_answer(path);
        snprintf(path, sizeof path, "/api/trace/tile?run=%s&host=%s&level=0&index=0&format=bin",
                 er, eh);
        c->traces += meta == 200 && same_answer(path) == 200;
    }
    if (!all_listed)
        walk_answers(er, et, "ALL_HOSTS", c);
    json_decref(hosts);
}

/* Every tool of every run, on every host it lists, from both servers. */
static walk_counts walk_all(void)
{
    walk_counts c = {0, 0, 0};
    json_t *runs = get_json(&own, "/data/plugin/profile/runs");
    ck_assert_uint_ge(json_array_size(runs), 4);
    for (size_t r = 0; r < json_array_size(runs); r++) {
        const char *run = json_string_value(json_array_get(runs, r));
        char er[300], path[400];
        pv_test_url_escape(run, er, sizeof er);
        snprintf(path, sizeof path, "/data/plugin/profile/run_tools?run=%s", er);
        json_t *tools = get_json(&own, path);
        for (size_t t = 0; t < json_array_size(tools); t++)
            walk_tool(run, json_string_value(json_array_get(tools, t)), &c);
        json_decref(tools);
    }
    json_decref(runs);
    return c;
}

/* The replica's and the other server's "loads" from /api/index. */
static void loads_of(const pv_test_server *s, json_int_t *decoded, json_int_t *from_disk)
{
    json_t *j = get_json(s, "/api/index");
    json_t *loads = json_object_get(j, "loads");
    *decoded = json_integer_value(json_object_get(loads, "decoded"));
    *from_disk = json_integer_value(json_object_get(loads, "from_disk"));
    json_decref(j);
}

/* Starts both servers, compares everything, checks the counts; returns
 * what was compared. */
static walk_counts compare_servers(size_t profiles)
{
    const char *ro[] = {"--cache-dir", cache, "--cache-read-only", NULL};
    const char *rw[] = {"--cache-dir", own_cache, NULL};
    ck_assert_int_eq(pv_test_server_start_indexed(&replica, logdir, ro), 0);
    ck_assert_int_eq(pv_test_server_start_indexed(&own, logdir, rw), 0);
    walk_counts c = walk_all();
    json_int_t decoded, from_disk;
    loads_of(&replica, &decoded, &from_disk);
    ck_assert_int_eq(decoded, 0);
    /* The trace views need the models: read from the folder, not decoded. */
    ck_assert_int_eq(from_disk, (json_int_t)c.traces);
    loads_of(&own, &decoded, &from_disk);
    ck_assert_int_eq(decoded, (json_int_t)profiles);
    ck_assert_int_eq(from_disk, 0);
    ck_assert_int_eq(pv_test_server_stop(&replica), 0);
    ck_assert_int_eq(pv_test_server_stop(&own), 0);
    return c;
}

/* ---- the tests -------------------------------------------------------------------- */

/* Two shards at once over logdir, then the replica against a server that
 * decodes for itself; then a shard run again makes nothing. only_models:
 * logdir has no per-tool files, so every answer of 200 the walk gets is
 * one the shards made. */
static void two_shards_replica(bool only_models)
{
    size_t profiles, multi;
    count_units(&profiles, &multi);
    ck_assert_uint_ge(profiles, 5);
    ck_assert_uint_ge(multi, 1);

    shard_run runs[2];
    static const char *const shards[] = {"0/2", "1/2"};
    run_shards(runs, shards, 2);
    summary a = parse_summary(runs[0].line), b = parse_summary(runs[1].line);
    ck_assert_uint_eq(a.units, profiles + multi);
    ck_assert_uint_eq(b.units, a.units);
    ck_assert_uint_eq(a.mine + b.mine, a.units);
    ck_assert_uint_gt(a.mine, 0);
    ck_assert_uint_gt(b.mine, 0);
    ck_assert_uint_eq(a.failed + b.failed, 0);
    ck_assert_uint_eq(a.kept + b.kept, 0);

    size_t pvm, pvi, tmp;
    char *before = folder_state(cache, &pvm, &pvi, &tmp);
    ck_assert_uint_eq(pvm, profiles);
    ck_assert_uint_eq(pvi, profiles);
    ck_assert_uint_eq(tmp, 0);
    struct stat st;
    ck_assert_int_eq(stat(cache, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0700);

    walk_counts c = compare_servers(profiles);
    /* the others are TensorFlow's per-tool files, served as they are */
    ck_assert_uint_ge(c.answers, a.made + b.made);
    if (only_models)
        ck_assert_uint_eq(c.answers, a.made + b.made);
    ck_assert_uint_gt(c.all_hosts, 0);
    ck_assert_uint_eq(c.traces, profiles);
    char *after = folder_state(cache, &pvm, &pvi, &tmp);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);

    /* again: everything is kept, nothing is decoded or made */
    static const char *const all[] = {"0/1"};
    run_shards(runs, all, 1);
    summary again = parse_summary(runs[0].line);
    ck_assert_uint_eq(again.mine, a.units);
    ck_assert_uint_eq(again.made, 0);
    ck_assert_uint_eq(again.kept, a.made + b.made);
    ck_assert_uint_eq(again.decoded, 0);
    ck_assert_uint_eq(again.failed, 0);
}

START_TEST(test_precompute_two_shards_replica)
{
    PV_NEED_TESTDATA("test_precompute_two_shards_replica");
    logdir = LOGDIR;
    two_shards_replica(false);
}
END_TEST

/* The same over trace JSON, decoded by another format's reader. */
START_TEST(test_precompute_two_shards_replica_trace_json)
{
    PV_NEED_TESTDATA("test_precompute_two_shards_replica_trace_json");
    logdir = TRACES;
    two_shards_replica(true);
}
END_TEST

/* Two writers of every entry at once (both do all the work): whichever
 * rename wins, each entry is whole and the replica serves the same bytes
 * with nothing decoded. */
START_TEST(test_precompute_two_writers_same_entries)
{
    PV_NEED_TESTDATA("test_precompute_two_writers_same_entries");
    logdir = LOGDIR;
    size_t profiles, multi;
    count_units(&profiles, &multi);
    shard_run runs[2];
    static const char *const shards[] = {"0/1", "0/1"};
    run_shards(runs, shards, 2);
    summary a = parse_summary(runs[0].line), b = parse_summary(runs[1].line);
    ck_assert_uint_eq(a.failed + b.failed, 0);
    size_t pvm, pvi, tmp;
    free(folder_state(cache, &pvm, &pvi, &tmp));
    ck_assert_uint_eq(pvm, profiles);
    ck_assert_uint_eq(pvi, profiles);
    ck_assert_uint_eq(tmp, 0);
    walk_counts c = compare_servers(profiles);
    ck_assert_uint_eq(c.traces, profiles);
    ck_assert_uint_gt(c.answers, profiles);
}
END_TEST

/* Exit 2, nothing made, for a shard that is not I/N with I < N, a size
 * that is not one, and without --cache-dir or LOGDIR ("@" is the
 * folder). */
START_TEST(test_precompute_refuses_bad_flags)
{
    const char *const bad[][7] = {
        {"precompute", LOGDIR, "--cache-dir", "@", "--shard", "2/2", NULL},
        {"precompute", LOGDIR, "--cache-dir", "@", "--shard", "1/0", NULL},
        {"precompute", LOGDIR, "--cache-dir", "@", "--shard", "-1/2", NULL},
        {"precompute", LOGDIR, "--cache-dir", "@", "--shard", "1", NULL},
        {"precompute", LOGDIR, "--cache-dir", "@", "--cache-max", "lots", NULL},
        {"precompute", LOGDIR, NULL},
        {"precompute", "--cache-dir", "@", NULL},
    };
    const char *bin = getenv("PROFVIEW_BIN");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *argv[8] = {bin};
        size_t n = 1;
        for (size_t k = 0; bad[i][k] != NULL; k++)
            argv[n++] = strcmp(bad[i][k], "@") == 0 ? cache : bad[i][k];
        argv[n] = NULL;
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            execv(bin, (char *const *)argv);
            _exit(127);
        }
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "case %zu: exit %d", i,
                      WEXITSTATUS(st));
        ck_assert_int_ne(access(cache, F_OK), 0);
    }
}
END_TEST

static Suite *precompute_suite(void)
{
    Suite *s = suite_create("precompute");
    TCase *tc = tcase_create("precompute");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_precompute_two_shards_replica);
    tcase_add_test(tc, test_precompute_two_shards_replica_trace_json);
    tcase_add_test(tc, test_precompute_two_writers_same_entries);
    tcase_add_test(tc, test_precompute_refuses_bad_flags);
    tcase_set_timeout(tc, 240);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (getenv("PROFVIEW_BIN") == NULL) {
        printf("SKIP test_precompute: PROFVIEW_BIN is not set\n");
        return 77;
    }
    return pv_test_run(precompute_suite());
}
