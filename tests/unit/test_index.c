/* Unit tests of the logdir index: run naming, which file answers a tool,
 * tool lists, and the scan over hand-made trees (nesting, many runs,
 * unusual names, empty and unreadable folders, symlink loops and escapes,
 * files still being written). Expected values are counted by hand from
 * the trees each test builds. */
#include "index/index.h"
#include "tools/registry.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char root[128];

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Creates every folder of rel below root. */
static void mkdirs(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    }
    mkdir(path, 0755);
}

/* Writes a file of n bytes at rel, with its mtime set seconds_ago back. */
static void put_file(const char *rel, size_t n, int seconds_ago)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char *dir = strdup(rel);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) {
        *slash = '\0';
        mkdirs(dir);
    }
    free(dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    for (size_t i = 0; i < n; i++)
        fputc('x', f);
    fclose(f);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= seconds_ago;
    t[1] = t[0];
    utimensat(AT_FDCWD, path, t, 0);
}

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/pv_index_test_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", root, root);
    ck_assert_int_eq(system(cmd), 0);
}

static pv_index *scan_now(void)
{
    pv_index *ix = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_index_scan(root, NULL, now_ns(), &ix, &err), 0);
    return ix;
}

/* ---- pv_index_scan: naming ------------------------------------------------- */

START_TEST(test_scan_run_names)
{
    put_file("plugins/profile/run1/h.xplane.pb", 10, 60);
    put_file("train/plugins/profile/run1/h.xplane.pb", 10, 60);
    put_file("train/plugins/profile/run2/h.xplane.pb", 10, 60);
    put_file("new_job/tensorboard/plugins/profile/run1/h.xplane.pb", 10, 60);
    pv_index *ix = scan_now();
    ck_assert_uint_eq(ix->n_runs, 4);
    /* Sorted ascending in the snapshot; the API reverses. */
    ck_assert_str_eq(ix->runs[0].name, "new_job/tensorboard/run1");
    ck_assert_str_eq(ix->runs[1].name, "run1");
    ck_assert_str_eq(ix->runs[2].name, "train/run1");
    ck_assert_str_eq(ix->runs[3].name, "train/run2");
    ck_assert_ptr_nonnull(pv_index_run_find(ix, "train/run2"));
    ck_assert_ptr_null(pv_index_run_find(ix, "train"));
    pv_index_unref(ix);
}
END_TEST

/* Appends a length-delimited protobuf field to w (n bytes in use). */
static void pb_field(uint8_t *w, size_t *n, unsigned field, const void *p, size_t len)
{
    w[(*n)++] = (uint8_t)(field << 3 | 2);
    w[(*n)++] = (uint8_t)len;   /* the test's fields are all under 128 bytes */
    memcpy(w + *n, p, len);
    *n += len;
}

/* An XSpace whose /host:metadata plane names the "Hlo Proto" stat (or
 * another): the index's probe lists the HLO tools for the first only. */
static void put_xspace(const char *rel, const char *stat)
{
    uint8_t smd[64], entry[80], plane[128], space[160];
    size_t n_smd = 0, n_entry = 0, n_plane = 0, n_space = 0;
    pb_field(smd, &n_smd, 2, stat, strlen(stat));
    pb_field(entry, &n_entry, 2, smd, n_smd);
    pb_field(plane, &n_plane, 2, "/host:metadata", 14);
    pb_field(plane, &n_plane, 5, entry, n_entry);
    pb_field(space, &n_space, 1, plane, n_plane);
    put_file(rel, 0, 60);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(space, 1, n_space, f), n_space);
    fclose(f);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= 60;
    t[1] = t[0];
    utimensat(AT_FDCWD, path, t, 0);
}

/* XProf 2.24.2 lists memory_viewer and graph_viewer for a profile with HLO
 * protos only (tests/data/reference's MANIFESTs: tool_names). */
START_TEST(test_hlo_tools_listed_with_hlo)
{
    put_xspace("plugins/profile/jax/h.xplane.pb", "Hlo Proto");
    put_xspace("plugins/profile/tf/h.xplane.pb", "step_num");
    pv_index *ix = scan_now();
    const pv_tool *tools[32];
    const pv_run *jax = pv_index_run_find(ix, "jax");
    const pv_run *tf = pv_index_run_find(ix, "tf");
    ck_assert_ptr_nonnull(jax);
    ck_assert_ptr_nonnull(tf);
    ck_assert_uint_eq(jax->hosts[0].files[0].holds, PV_PROFILE_HLO);
    ck_assert_uint_eq(tf->hosts[0].files[0].holds, 0);
    /* XProf's lists for such CPU profiles (routes/corpus.json: jax_train
     * 10 tools, the Keras runs 8): no kernel_stats without a GPU plane */
    size_t n = pv_run_tools(jax, tools, 32);
    ck_assert_uint_eq(n, 10);
    ck_assert(pv_host_has_tool(&jax->hosts[0], pv_tool_find("memory_viewer")));
    ck_assert(pv_host_has_tool(&jax->hosts[0], pv_tool_find("graph_viewer")));
    ck_assert_uint_eq(pv_run_tools(tf, tools, 32), 8);
    for (size_t i = 0; i < 8; i++)
        ck_assert_str_ne(tools[i]->name, "kernel_stats");
    /* not listed, but answered, as XProf answers it */
    ck_assert(pv_host_has_tool(&tf->hosts[0], pv_tool_find("kernel_stats")));
    ck_assert(!pv_host_has_tool(&tf->hosts[0], pv_tool_find("memory_viewer")));
    pv_index_unref(ix);
}
END_TEST

/* PyTorch's layout, as torch-tb-profiler finds it: any folder holding a
 * trace JSON is a run named by its path (the logdir's own name for the
 * logdir), a file per worker; the same trace JSON in a TensorBoard session
 * folder is a host there. By hand, five runs: the PyTorch folder a/ and
 * the session plugins/profile/a/ (one of them "a (2)": equal names are
 * told apart), "deep/er/run", the logdir itself, and "tb". */
START_TEST(test_scan_pytorch_runs)
{
    put_file("a/worker0.1623143089861.pt.trace.json.gz", 10, 60);
    put_file("a/worker0.1623143566756.pt.trace.json.gz", 10, 60);
    put_file("a/worker1.pt.trace.json", 10, 60);
    put_file("a/notes.txt", 10, 60);
    put_file("a/h.xplane.pb", 10, 60);        /* not a PyTorch file: not a host here */
    put_file("deep/er/run/rank0.trace.json.gz", 10, 60);
    put_file("deep/nothing.json", 10, 60);
    put_file("top.trace.json", 10, 60);
    put_file("plugins/profile/a/host.xplane.pb", 10, 60);
    put_file("plugins/profile/tb/w.pt.trace.json.gz", 10, 60);
    pv_index *ix = scan_now();
    const char *base = strrchr(root, '/') + 1;
    ck_assert_uint_eq(ix->n_runs, 5);
    const pv_run *a = pv_index_run_find(ix, "a");
    const pv_run *a2 = pv_index_run_find(ix, "a (2)");
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(a2);
    /* one of the two is the PyTorch folder, with its three workers */
    const pv_run *py = a->n_hosts == 3 ? a : a2;
    ck_assert_uint_eq(py->n_hosts, 3);
    ck_assert_str_eq(py->hosts[0].name, "worker0.1623143089861");
    ck_assert_str_eq(py->hosts[1].name, "worker0.1623143566756");
    ck_assert_str_eq(py->hosts[2].name, "worker1");
    ck_assert_uint_eq((a == py ? a2 : a)->n_hosts, 1);
    const pv_run *deep = pv_index_run_find(ix, "deep/er/run");
    ck_assert_ptr_nonnull(deep);
    ck_assert_str_eq(deep->hosts[0].name, "rank0");
    const pv_run *top = pv_index_run_find(ix, base);
    ck_assert_ptr_nonnull(top);
    ck_assert_str_eq(top->hosts[0].name, "top");
    const pv_run *tb = pv_index_run_find(ix, "tb");
    ck_assert_ptr_nonnull(tb);
    ck_assert_str_eq(tb->hosts[0].name, "w");
    /* a trace JSON is a profile: every tool that computes from models */
    const pv_tool *tools[32];
    ck_assert_uint_ge(pv_run_tools(py, tools, 32), 4);
    ck_assert(pv_host_has_tool(&py->hosts[0], pv_tool_find("trace_viewer")));
    ck_assert(pv_host_has_tool(&py->hosts[0], pv_tool_find("kernel_stats")));
    /* PyTorch's distributed view is offered by trace JSON only */
    ck_assert(pv_host_has_tool(&py->hosts[0], pv_tool_find("distributed_view")));
    const pv_run *xs = a->n_hosts == 3 ? a2 : a;
    ck_assert(!pv_host_has_tool(&xs->hosts[0], pv_tool_find("distributed_view")));
    /* XProf's XLA tables are an XSpace's, never a PyTorch trace's */
    static const char *const xla[] = {"op_profile", "hlo_stats", "roofline_model"};
    for (size_t i = 0; i < 3; i++) {
        ck_assert(!pv_host_has_tool(&py->hosts[0], pv_tool_find(xla[i])));
        ck_assert(pv_host_has_tool(&xs->hosts[0], pv_tool_find(xla[i])));
    }
    pv_index_unref(ix);
}
END_TEST

/* TensorFlow's legacy trace.json.gz is the host's profile, for every tool
 * that computes from models, except where TensorFlow wrote the tool's own
 * answer beside it. */
START_TEST(test_scan_legacy_trace_json)
{
    put_file("plugins/profile/old/localhost.trace.json.gz", 10, 60);
    put_file("plugins/profile/old/localhost.overview_page.pb", 10, 60);
    pv_index *ix = scan_now();
    const pv_run *r = pv_index_run_find(ix, "old");
    ck_assert_ptr_nonnull(r);
    const pv_host *h = &r->hosts[0];
    ck_assert_ptr_nonnull(pv_host_profile(h));
    bool from_model = false;
    const pv_host_file *f = pv_host_answer(h, pv_tool_find("trace_viewer"), &from_model);
    ck_assert(from_model);
    ck_assert_str_eq(f->format->suffix, "trace.json.gz");
    f = pv_host_answer(h, pv_tool_find("overview_page"), &from_model);
    ck_assert(!from_model);
    ck_assert_str_eq(f->format->suffix, "overview_page.pb");
    f = pv_host_answer(h, pv_tool_find("kernel_stats"), &from_model);
    ck_assert(from_model);
    pv_index_unref(ix);
}
END_TEST

START_TEST(test_scan_hosts_and_tools)
{
    put_file("plugins/profile/r/a.xplane.pb", 10, 60);
    put_file("plugins/profile/r/b.xplane.pb", 20, 60);
    put_file("plugins/profile/r/b.op_stats.pb", 20, 60);         /* side file */
    put_file("plugins/profile/r/.cached_tools.json", 20, 60);    /* side file */
    put_file("plugins/profile/legacy/10.0.0.1.overview_page.json", 5, 60);
    put_file("plugins/profile/legacy/10.0.0.1.kernel_stats.pb", 5, 60);
    pv_index *ix = scan_now();
    const pv_run *r = pv_index_run_find(ix, "r");
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->n_hosts, 2);
    ck_assert_str_eq(r->hosts[0].name, "a");
    ck_assert_str_eq(r->hosts[1].name, "b");
    ck_assert_uint_eq(r->hosts[1].n_files, 1);
    ck_assert_uint_eq(r->hosts[1].files[0].id.size_bytes, 20);
    const pv_tool *tools[32];
    size_t n = pv_run_tools(r, tools, 32);
    /* XProf 2.24.2 lists op_profile, roofline_model and hlo_stats for every
     * XSpace, kernel_stats only for one with a GPU plane (routes/corpus.json:
     * the Keras CPU runs' eight tools, in this order). */
    ck_assert_uint_eq(n, 8);
    static const char *const xprof[] = {"overview_page", "trace_viewer@", "op_profile",
                                        "input_pipeline_analyzer", "memory_profile",
                                        "roofline_model", "framework_op_stats", "hlo_stats"};
    for (size_t i = 0; i < 8; i++)
        ck_assert_str_eq(tools[i]->name, xprof[i]);
    ck_assert(pv_host_has_tool(&r->hosts[0], pv_tool_find("tensorflow_stats")));
    ck_assert(pv_host_has_tool(&r->hosts[0], pv_tool_find("trace_viewer")));
    ck_assert(!pv_host_has_tool(&r->hosts[0], pv_tool_find("pod_viewer")));
    bool from_model = false;
    ck_assert_ptr_eq(pv_host_answer(&r->hosts[1], &pv_kernel_stats_tool, &from_model),
                     &r->hosts[1].files[0]);
    ck_assert(from_model);

    const pv_run *l = pv_index_run_find(ix, "legacy");
    ck_assert_ptr_nonnull(l);
    ck_assert_uint_eq(l->n_hosts, 1);
    ck_assert_str_eq(l->hosts[0].name, "10.0.0.1");
    n = pv_run_tools(l, tools, 32);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(tools[0]->name, "overview_page");
    ck_assert_str_eq(tools[1]->name, "kernel_stats");
    /* The files are kept in the format table's order: the JSON file first. */
    const pv_host_file *f = pv_host_answer(&l->hosts[0], &pv_kernel_stats_tool, &from_model);
    ck_assert(!from_model);
    ck_assert_ptr_eq(f, &l->hosts[0].files[1]);
    ck_assert_str_eq(f->format->suffix, "kernel_stats.pb");
    ck_assert_ptr_null(pv_host_answer(&l->hosts[0], &pv_memory_profile_tool, &from_model));
    pv_index_unref(ix);
}
END_TEST

START_TEST(test_scan_many_runs)
{
    char rel[256];
    for (int i = 0; i < 300; i++) {
        snprintf(rel, sizeof rel, "job%d/plugins/profile/2024_01_01_00_00_%03d/host.xplane.pb",
                 i % 7, i);
        put_file(rel, 1, 60);
    }
    pv_index *ix = scan_now();
    ck_assert_uint_eq(ix->n_runs, 300);
    ck_assert_uint_eq(ix->n_files, 300);
    for (size_t i = 1; i < ix->n_runs; i++)
        ck_assert_int_lt(strcmp(ix->runs[i - 1].name, ix->runs[i].name), 0);
    pv_index_unref(ix);
}
END_TEST

START_TEST(test_scan_unusual_names)
{
    put_file("my logs/plugins/profile/run with spaces/host name.xplane.pb", 3, 60);
    put_file("実験/plugins/profile/ラン/ホスト.xplane.pb", 3, 60);
    pv_index *ix = scan_now();
    ck_assert_uint_eq(ix->n_runs, 2);
    const pv_run *r = pv_index_run_find(ix, "my logs/run with spaces");
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r->hosts[0].name, "host name");
    r = pv_index_run_find(ix, "実験/ラン");
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r->hosts[0].name, "ホスト");
    pv_index_unref(ix);
}
END_TEST

/* ---- pv_index_scan: odd trees ---------------------------------------------- */

START_TEST(test_scan_empty)
{
    mkdirs("plugins/profile/empty_run");
    mkdirs("a/b/c");
    pv_index *ix = scan_now();
    /* A session folder with no host files offers nothing, so it is not a run. */
    ck_assert_uint_eq(ix->n_runs, 0);
    pv_index_unref(ix);
}
END_TEST

START_TEST(test_scan_missing_logdir)
{
    pv_index *ix = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_index_scan("/nonexistent/pv/logdir", NULL, now_ns(), &ix, &err), PV_EIO);
    ck_assert_ptr_null(ix);
    ck_assert_str_eq(err.path, "/nonexistent/pv/logdir");
}
END_TEST

START_TEST(test_scan_unreadable_folder)
{
    put_file("ok/plugins/profile/r/h.xplane.pb", 1, 60);
    put_file("locked/plugins/profile/r/h.xplane.pb", 1, 60);
    char locked[512];
    snprintf(locked, sizeof locked, "%s/locked", root);
    ck_assert_int_eq(chmod(locked, 0), 0);
    chmod(root, 0755);
    /* root reads any folder regardless of its mode, so the scan runs in a
     * child that has dropped to an unprivileged user. */
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(10);
        pv_index *ix = NULL;
        pv_error err = {0};
        if (pv_index_scan(root, NULL, now_ns(), &ix, &err) != 0)
            _exit(11);
        int ok = ix->n_runs == 1 && strcmp(ix->runs[0].name, "ok/r") == 0;
        pv_index_unref(ix);
        _exit(ok ? 0 : 12);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

START_TEST(test_scan_symlink_loop)
{
    put_file("a/plugins/profile/r/h.xplane.pb", 1, 60);
    char link[512], target[512];
    snprintf(link, sizeof link, "%s/a/loop", root);
    snprintf(target, sizeof target, "%s/a", root);
    ck_assert_int_eq(symlink(target, link), 0);
    snprintf(link, sizeof link, "%s/a/self", root);
    ck_assert_int_eq(symlink(".", link), 0);
    pv_index *ix = scan_now();
    /* The loop is entered at most once: one run, not one per path. */
    ck_assert_uint_eq(ix->n_runs, 1);
    ck_assert_str_eq(ix->runs[0].name, "a/r");
    pv_index_unref(ix);
}
END_TEST

START_TEST(test_scan_symlink_escape)
{
    char outside[256];
    snprintf(outside, sizeof outside, "/tmp/pv_index_outside_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(outside));
    char path[512], cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/plugins/profile/secret' && "
             "echo x > '%s/plugins/profile/secret/h.xplane.pb'", outside, outside);
    ck_assert_int_eq(system(cmd), 0);
    put_file("inside/plugins/profile/r/h.xplane.pb", 1, 60);
    snprintf(path, sizeof path, "%s/escape", root);
    ck_assert_int_eq(symlink(outside, path), 0);
    /* A link to a file outside, dressed as a host file inside a run. */
    snprintf(cmd, sizeof cmd, "%s/plugins/profile/secret/h.xplane.pb", outside);
    snprintf(path, sizeof path, "%s/inside/plugins/profile/r/evil.xplane.pb", root);
    ck_assert_int_eq(symlink(cmd, path), 0);
    pv_index *ix = scan_now();
    ck_assert_uint_eq(ix->n_runs, 1);
    ck_assert_str_eq(ix->runs[0].name, "inside/r");
    ck_assert_uint_eq(ix->runs[0].n_hosts, 1);
    ck_assert_str_eq(ix->runs[0].hosts[0].name, "h");
    pv_index_unref(ix);
    pv_test_remove_tree(outside);
}
END_TEST

START_TEST(test_scan_symlink_inside_followed)
{
    put_file("real/plugins/profile/r/h.xplane.pb", 1, 60);
    char link[512], target[512];
    snprintf(link, sizeof link, "%s/alias", root);
    snprintf(target, sizeof target, "%s/real/plugins", root);
    mkdirs("other");
    snprintf(link, sizeof link, "%s/other/plugins", root);
    ck_assert_int_eq(symlink(target, link), 0);
    pv_index *ix = scan_now();
    /* The same folder reached twice is entered once; whichever path the
     * walk meets first names the run. */
    ck_assert_uint_eq(ix->n_runs, 1);
    pv_index_unref(ix);
}
END_TEST

/* ---- files appearing during a scan --------------------------------------- */

START_TEST(test_scan_settles_new_files)
{
    put_file("plugins/profile/old/h.xplane.pb", 100, 60);
    put_file("plugins/profile/new/h.xplane.pb", 100, 0);   /* just written */
    int64_t t0 = now_ns();
    pv_index *first = NULL;
    ck_assert_int_eq(pv_index_scan(root, NULL, t0, &first, NULL), 0);
    ck_assert_uint_eq(first->n_runs, 1);
    ck_assert_str_eq(first->runs[0].name, "old");
    ck_assert_uint_eq(first->n_files, 2);

    /* Seen again unchanged: now it is offered. */
    pv_index *second = NULL;
    ck_assert_int_eq(pv_index_scan(root, first, t0 + 1000000, &second, NULL), 0);
    ck_assert_uint_eq(second->n_runs, 2);
    ck_assert_uint_gt(second->generation, first->generation);

    /* It grows: withheld again until it stops. */
    put_file("plugins/profile/new/h.xplane.pb", 200, 0);
    pv_index *third = NULL;
    ck_assert_int_eq(pv_index_scan(root, second, t0 + 2000000, &third, NULL), 0);
    ck_assert_uint_eq(third->n_runs, 1);

    pv_index *fourth = NULL;
    ck_assert_int_eq(pv_index_scan(root, third, t0 + 3000000, &fourth, NULL), 0);
    ck_assert_uint_eq(fourth->n_runs, 2);
    pv_index_unref(first);
    pv_index_unref(second);
    pv_index_unref(third);
    pv_index_unref(fourth);
}
END_TEST

START_TEST(test_scan_generation_stable)
{
    put_file("plugins/profile/r/h.xplane.pb", 10, 60);
    pv_index *a = scan_now();
    pv_index *b = NULL;
    ck_assert_int_eq(pv_index_scan(root, a, now_ns(), &b, NULL), 0);
    ck_assert(pv_index_same(a, b));
    ck_assert_uint_eq(a->generation, b->generation);
    pv_index_unref(a);
    pv_index_unref(b);
}
END_TEST

static Suite *index_suite(void)
{
    Suite *s = suite_create("index");
    TCase *tc = tcase_create("pv_index_scan");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_scan_run_names);
    tcase_add_test(tc, test_scan_hosts_and_tools);
    tcase_add_test(tc, test_hlo_tools_listed_with_hlo);
    tcase_add_test(tc, test_scan_pytorch_runs);
    tcase_add_test(tc, test_scan_legacy_trace_json);
    tcase_add_test(tc, test_scan_many_runs);
    tcase_add_test(tc, test_scan_unusual_names);
    tcase_add_test(tc, test_scan_empty);
    tcase_add_test(tc, test_scan_missing_logdir);
    tcase_add_test(tc, test_scan_unreadable_folder);
    tcase_add_test(tc, test_scan_symlink_loop);
    tcase_add_test(tc, test_scan_symlink_escape);
    tcase_add_test(tc, test_scan_symlink_inside_followed);
    tcase_add_test(tc, test_scan_settles_new_files);
    tcase_add_test(tc, test_scan_generation_stable);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(index_suite());
}
