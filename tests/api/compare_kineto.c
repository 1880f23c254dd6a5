/* compare_kineto: profview's views of PyTorch (Kineto) traces against
 * torch-tb-profiler 0.4.3's and HolisticTraceAnalysis 0.5.0's, the
 * references of issue 21 (written by tools/reference/kineto/tb_views.py
 * and tools/reference/hta/hta_views.py into tests/data/reference/kineto/).
 * For every golden folder <rel>/ it copies the trace
 * ../shared/testdata/traces/<rel>.json[.gz] into a temporary logdir as a
 * PyTorch run, starts the real profview binary and compares, through the
 * TensorBoard route /data/plugin/profile/data:
 *
 *   operator  each of torch-tb-profiler's operators against
 *             framework_op_stats' Host row (calls, host total and self
 *             time) and Device row (device total and self time; no row: 0)
 *   kernel    its kernels by name against kernel_stats' rows summed by
 *             kernel name (calls, total, min, max time), and their number
 *   kernel_op its kernel table by operator (kernel, operator, grid, block,
 *             registers, shared memory: calls, total, max, min, the Tensor
 *             Core flags) against kernel_stats' rows of the same key, each
 *             row both ways: the kernel-to-operator table
 *   steps     its overview's steps against input_pipeline_analyzer's step
 *             table (Kernel, Memcpy + Memset, Communication, Runtime,
 *             DataLoader, CPU Exec, Other per step), and their number
 *   memory    its "Peak Memory Usage" per device against memory_profile's
 *             peak per allocator
 *   distributed  its overlap of computation and communication per step
 *             (the worker's row of /distributed/overlap) against
 *             distributed_view's
 *   recommendations  its overview's recommendations (their text without
 *             the links' markup) against overview_page's PyTorch table,
 *             each and their number
 *   gpu       its GPU summary per GPU (utilization, est. SM efficiency,
 *             est. achieved occupancy) against overview_page's GPU table;
 *             a measure it has none of, null
 *
 * and HTA's (hta.json.gz) against distributed_view's second and third
 * tables and kernel_stats:
 *
 *   hta_temporal  its temporal breakdown (GPU span, idle, computation,
 *             non-compute time)
 *   hta_overlap   its comm-comp overlap (% of communication kernel time);
 *             none: null
 *   hta_types     its kernel type breakdown, each set of types running
 *   hta_kernels   its top computation and communication kernels by name
 *             (calls = sum / mean, total, max, min); its memory "kernels"
 *             are memcpys and memsets, which kernel_stats does not list
 *
 * Each view's times and shares match within the tolerance
 * compare_kineto_rules.c states for that field (with its reason), counts
 * and bytes exactly. A difference one of the rules there accepts (its
 * traces, view, fields, rows and the values it may take) is counted under
 * it. Prints one line per trace and view:
 *   match <trace> <view>: <n> values[; accepted by rule <k> (<n> values)]
 *   DIFF  <trace> <view>: <key> <field>: ours X, reference Y; ...
 * then a line per rule with what it accepted (values, rows, the range of
 * ours - reference), a rule at fault as "RULE" (too broad, unused, or on
 * more rows than it declares), and PASS or FAIL. Run by make check (SKIP without ../shared/testdata),
 * or by hand: PROFVIEW_BIN=./profview tests/api/compare_kineto [-v]. */
#include "compare_io.h"
#include "compare_kineto_views.h"
#include "httpc.h"
#include "served.h"
#include "testutil.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define PATH_CAP 4096
#define MAX_SETS 64

/* ---- golden sets -------------------------------------------------------------- */

typedef struct golden {
    char rel[1024];          /* folder under the reference, = trace path without .json[.gz] */
    char trace[PATH_CAP + 1100]; /* the trace in ../shared/testdata/traces */
    char run[32];
    bool read_by_reference;  /* no error.txt */
} golden;

static void find_goldens(const char *root, const char *rel, golden *g, size_t *n)
{
    char dir[PATH_CAP];
    snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *de;
    bool leaf = false, error = false;
    char subs[64][256];
    size_t n_subs = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (strcmp(de->d_name, "operator.json.gz") == 0)
            leaf = true;
        else if (strcmp(de->d_name, "error.txt") == 0)
            error = true;
        else if (!strstr(de->d_name, ".json.gz") && n_subs < 64)
            snprintf(subs[n_subs++], sizeof subs[0], "%s", de->d_name);
    }
    closedir(d);
    if ((leaf || error) && *n < MAX_SETS) {
        golden *x = &g[(*n)++];
        snprintf(x->rel, sizeof x->rel, "%s", rel);
        x->read_by_reference = leaf;
        return;
    }
    for (size_t i = 0; i < n_subs; i++) {
        char sub[1024];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", subs[i]);
        find_goldens(root, sub, g, n);
    }
}

static int cmp_golden(const void *a, const void *b)
{
    return strcmp(((const golden *)a)->rel, ((const golden *)b)->rel);
}

static bool copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    bool ok = in != NULL && out != NULL;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in != NULL)
        fclose(in);
    if (out != NULL)
        fclose(out);
    /* an hour old: the scan offers a file once it stopped changing */
    struct timeval tv[2];
    gettimeofday(&tv[0], NULL);
    tv[0].tv_sec -= 3600;
    tv[1] = tv[0];
    return ok && utimes(to, tv) == 0;
}

static json_t *ours_of(const pv_test_server *s, const golden *g, const char *tool, char *detail,
                       size_t cap)
{
    char path[512];
    snprintf(path, sizeof path, "/data/plugin/profile/data?run=%s&host=trace&tag=%s%s", g->run,
             tool, strcmp(tool, "kernel_stats") == 0 ? "&max_rows=0" : "");
    int status;
    return pv_cmp_get_json(s, path, &status, detail, cap);
}

int main(int argc, char **argv)
{
    bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    char traces[PATH_CAP], refdir[PATH_CAP];
    snprintf(traces, sizeof traces, "%s/traces", PV_TESTDATA);
    snprintf(refdir, sizeof refdir, "%s/tests/data/reference/kineto", PV_SRCDIR);
    struct stat st;
    if (stat(traces, &st) != 0)
        return pv_test_testdata_exit("compare_kineto");
    static golden g[MAX_SETS];
    size_t n = 0;
    find_goldens(refdir, "", g, &n);
    qsort(g, n, sizeof *g, cmp_golden);
    char logdir[] = "/tmp/pv_compare_kineto_XXXXXX";
    if (mkdtemp(logdir) == NULL)
        return 1;
    for (size_t i = 0; i < n; i++) {
        snprintf(g[i].run, sizeof g[i].run, "k%zu", i);
        bool gz = true;
        snprintf(g[i].trace, sizeof g[i].trace, "%s/%s.json.gz", traces, g[i].rel);
        if (stat(g[i].trace, &st) != 0) {
            snprintf(g[i].trace, sizeof g[i].trace, "%s/%s.json", traces, g[i].rel);
            gz = false;
        }
        char dir[PATH_CAP], to[PATH_CAP + 64];
        snprintf(dir, sizeof dir, "%s/%s", logdir, g[i].run);
        mkdir(dir, 0755);
        snprintf(to, sizeof to, "%s/trace.pt.trace.json%s", dir, gz ? ".gz" : "");
        if (g[i].read_by_reference && !copy_file(g[i].trace, to)) {
            printf("ERROR compare_kineto: cannot copy %s\n", g[i].trace);
            return 1;
        }
    }
    pv_test_server srv;
    if (pv_test_server_start_indexed(&srv, logdir, NULL) != 0) {
        printf("ERROR compare_kineto: profview did not start\n");
        return 1;
    }
    bool failed = false;
    size_t n_views = 0;
    for (size_t i = 0; i < n; i++) {
        if (!g[i].read_by_reference) {
            printf("not read  %s: torch-tb-profiler 0.4.3 cannot read it (error.txt)\n", g[i].rel);
            continue;
        }
        char file[2 * PATH_CAP];
        int n_file = snprintf(file, sizeof file, "%s/%s/hta_error.txt", refdir, g[i].rel);
        if (n_file > 0 && (size_t)n_file < sizeof file && stat(file, &st) == 0)
            printf("not read  %s: HolisticTraceAnalysis 0.5.0 fails on it (hta_error.txt)\n",
                   g[i].rel);
        for (size_t v = 0; v < kv_n_views; v++) {
            char detail[1024] = "";
            int len = snprintf(file, sizeof file, "%s/%s/%s.json.gz", refdir, g[i].rel,
                               kv_views[v].golden);
            if (len < 0 || (size_t)len >= sizeof file || stat(file, &st) != 0)
                continue;   /* memory: only traces recorded with profile_memory; hta: read */
            json_t *ref = pv_cmp_load_gz_json(file);
            json_t *ours = ours_of(&srv, &g[i], kv_views[v].tool, detail, sizeof detail);
            kv_tally t;
            kv_tally_init(&t, g[i].rel, kv_views[v].view, verbose);
            if (ref == NULL || ours == NULL) {
                printf("ERROR     %s %s: %s\n", g[i].rel, kv_views[v].view,
                       ref == NULL ? "golden unreadable" : detail);
                failed = true;
            } else {
                kv_views[v].compare(&t, ref, ours);
                failed = kv_report(&t) || failed;
                n_views++;
            }
            json_decref(ref);
            json_decref(ours);
        }
    }
    pv_test_server_stop(&srv);
    char cmd[PATH_CAP + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", logdir);
    if (system(cmd) != 0)
        failed = true;
    failed = kv_rules_judge() > 0 || failed;
    printf("compare_kineto: %zu traces, %zu views\n%s: compare_kineto\n", n, n_views,
           failed ? "FAIL" : "PASS");
    return failed ? 1 : 0;
}
