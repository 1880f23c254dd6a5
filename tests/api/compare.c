/* compare: profview against the reference implementation's golden output
 * (issue 7). For every golden set under tests/data/reference (the six
 * reference logdirs, the demo logdir, and the shared logdirs under
 * ../shared/testdata/logdirs when present) it starts the real profview
 * binary on that logdir, fetches each tool's answer through the
 * TensorBoard route /data/plugin/profile/data?run=&tag=&host= for every
 * (run, host, tool) the reference answered (MANIFEST.json), and compares
 * it with the golden file number by number (json_compare.h says how).
 *
 * Prints one line per (profile, run, host, tool):
 *   match      every value agrees (perhaps with accepted differences,
 *              counted and named by their reason)
 *   DIFF       the first differing JSON paths with both values
 *   not built  profview has no such view (501, or no ALL_HOSTS host)
 * A DIFF fails the test, and so does "not built": the reference answered,
 * so a registered tool must too.
 *
 * The accepted differences are the table in compare_rules.c, each naming
 * its tools, profiles and fields with its reason; a match line that had
 * some says so, with their number. A rule too broad for STYLE rule 23,
 * one that had its chance and decided nothing (a tolerance that no value
 * needed included), and one that touched more rows than it declares fail
 * the test (a "RULE" line); each accepting rule's line says how many
 * values and rows it accepted. Everything else that differs is a finding
 * for the tool's owner.
 *
 * trace_viewer and kernel_stats answers are reshaped before comparing
 * (compare_trace.h, compare_kernels.h).
 * Run by hand: PROFVIEW_BIN=./profview tests/api/compare [-v]; -v lists
 * every difference under its line. */
#include "compare_io.h"
#include "compare_kernels.h"
#include "compare_rules.h"
#include "compare_trace.h"
#include "httpc.h"
#include "json_compare.h"
#include "served.h"
#include "testutil.h"

#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#define PATH_CAP 4096
#define MAX_SETS 64
#define VERBOSE_DIFFS 200  /* differences listed per line with -v */

typedef struct golden_set {
    char logdir[PATH_CAP];   /* what the server is started on */
    char profile[256];       /* name printed on the lines */
    char run[1024];          /* TensorBoard's run name inside logdir */
    char dir[PATH_CAP];      /* folder with MANIFEST.json and the .json.gz */
} golden_set;

typedef struct tally {
    size_t match, diff, not_built, error, accepted;
    bool verbose;          /* -v: every difference, one per line */
    pv_jc_use *use;        /* per rule: what it decided */
    pv_jc_use *seen;       /* per rule: which of its tools and profiles were compared */
} tally;

/* ---- reading ----------------------------------------------------------------- */

/* ---- one comparison ---------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void print_line(const char *status, const golden_set *g, const char *host,
                       const char *tool, const char *detail)
{
    printf("%-9s %s %s %s %s%s%s\n", status, g->profile, g->run, host, tool,
           detail[0] ? ": " : "", detail);
}

/* The entry's "params" (what the reference was asked besides run, tag
 * and host: a module tool's module) as "&name=value..." into out. */
static void params_query(const json_t *params, char *out, size_t cap)
{
    size_t n = 0;
    const char *k;
    json_t *v;
    out[0] = '\0';
    json_object_foreach((json_t *)params, k, v) {
        char ek[256], ev[1024];
        pv_test_url_escape(k, ek, sizeof ek);
        pv_test_url_escape(json_string_value(v) ? json_string_value(v) : "", ev, sizeof ev);
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "&%s=%s", ek, ev);
    }
}

/* Fetches ours; returns the parsed JSON, or NULL with status set. */
static json_t *fetch(const pv_test_server *s, const golden_set *g, const char *host,
                     const char *tool, const char *extra, int *status, char *detail, size_t cap)
{
    char run[3 * sizeof g->run], h[1024], path[8192];
    pv_test_url_escape(g->run, run, sizeof run);
    pv_test_url_escape(host, h, sizeof h);
    /* kernel_stats: every row, because rows XProf merges (compare_kernels.h)
     * are merged after the cut otherwise (tf2_gpu_multi_worker: 1,330 rows
     * here, 15 there); the cut itself is test_kernel_stats.c's. */
    const char *more = strcmp(tool, "kernel_stats") == 0 ? "&max_rows=0" : "";
    snprintf(path, sizeof path, "%sdata/plugin/profile/data?run=%s&tag=%s&host=%s%s%s",
             s->prefix, run, tool, h, more, extra);
    return pv_cmp_get_json(s, path, status, detail, cap);
}

/* Which alternatives of each rule's tools and profiles this comparison
 * offers a chance to decide something. */
static void note_seen(tally *t, const char *tool, const char *where)
{
    for (size_t i = 0; pv_compare_rules[i].path != NULL; i++) {
        uint64_t tb = pv_jc_alternatives_match(pv_compare_rules[i].tool, tool);
        uint64_t wb = pv_jc_alternatives_match(pv_compare_rules[i].where, where);
        if (tb != 0 && wb != 0) {
            t->seen[i].tools |= tb;
            t->seen[i].wheres |= wb;
        }
    }
}

static void report_alternatives(size_t rule, const char *what, const char *list, uint64_t seen,
                                uint64_t used, size_t *bad)
{
    unsigned n = pv_jc_alternatives_count(list);
    for (unsigned k = 0; k < n && k < PV_JC_MAX_ALTS; k++) {
        uint64_t bit = (uint64_t)1 << k;
        if ((seen & bit) != 0 && (used & bit) == 0) {
            printf("RULE      %zu (%s): its %s #%u (of %s) matched nothing\n", rule + 1,
                   pv_compare_rules[rule].reason, what, k + 1, list ? list : "any");
            (*bad)++;
        }
    }
}

/* Rules too broad to accept (STYLE rule 23), every alternative of a rule
 * that had its chance and decided nothing (a rule left over from a fixed
 * difference would otherwise absorb the next one silently), and an
 * accepting rule that touched more rows than it declares. Prints a line
 * per accepting rule with what it accepted, and per tolerance the values
 * that needed it. A rule for profiles not
 * compared here (no ../shared/testdata) is not judged. */
static size_t check_rules(const tally *t)
{
    size_t bad = 0, n_accept = 0, values = 0, rows = 0;
    for (size_t i = 0; pv_compare_rules[i].path != NULL; i++) {
        const pv_jc_rule *r = &pv_compare_rules[i];
        const char *why = pv_jc_rule_too_broad(r);
        if (why != NULL) {
            printf("RULE      %zu (%s): too broad: %s\n", i + 1, r->reason, why);
            bad++;
        }
        if (r->kind == PV_JC_ACCEPT || r->kind == PV_JC_AS_REFERENCE) {
            const char *over = pv_jc_rule_overused(r, &t->use[i]);
            printf("%s %zu %s %.60s: %zu values on %zu rows (declares %u)%s%s\n",
                   over ? "RULE     " : "accept   ", i + 1, r->tool, r->reason, t->use[i].n,
                   t->use[i].n_rows, r->rows, over ? ": " : "", over ? over : "");
            bad += over != NULL;
            n_accept++;
            values += t->use[i].n;
            rows += t->use[i].n_rows;
        }
        if (r->kind == PV_JC_TOLERANCE)
            printf("tolerance %zu %s %.60s: %zu values beyond PV_JC_REL, within %g\n", i + 1,
                   r->tool, r->reason, t->use[i].n, r->rel);
        if (t->seen[i].wheres == 0)
            continue;
        report_alternatives(i, "tool", r->tool, t->seen[i].tools, t->use[i].tools, &bad);
        report_alternatives(i, "profile", r->where, t->seen[i].wheres, t->use[i].wheres, &bad);
        uint64_t all = pv_jc_alternatives_count(r->path) >= PV_JC_MAX_ALTS
                           ? UINT64_MAX
                           : ((uint64_t)1 << pv_jc_alternatives_count(r->path)) - 1;
        report_alternatives(i, "path", r->path, all, t->use[i].paths, &bad);
    }
    printf("compare: %zu accept rules, %zu values accepted on %zu rows\n", n_accept, values,
           rows);
    return bad;
}

static void compare_one(const pv_test_server *s, const golden_set *g, const char *host,
                        const char *tool, const char *file, const json_t *params, tally *t)
{
    char where[2048], detail[4096] = "", golden[PATH_CAP + 256], extra[2048];
    snprintf(where, sizeof where, "%s/%s/%s", g->profile, g->run, host);
    snprintf(golden, sizeof golden, "%s/%s", g->dir, file);
    params_query(params, extra, sizeof extra);
    /* a module tool's line names its module */
    const char *module = json_string_value(json_object_get(params, "module_name"));
    char label[512];
    snprintf(label, sizeof label, "%s%s%s%s", tool, module ? "[" : "", module ? module : "",
             module ? "]" : "");
    int status = 0;
    json_t *ours = fetch(s, g, host, tool, extra, &status, detail, sizeof detail);
    note_seen(t, tool, where);
    if (ours == NULL) {
        /* A registered tool answers every (run, host) the reference
         * answered: a 501, or a 404 for ALL_HOSTS, is a view missing. */
        bool no_view = status == 501 || (status == 404 && strcmp(host, "ALL_HOSTS") == 0);
        print_line(no_view ? "not built" : "ERROR", g, host, label, detail);
        if (no_view)
            t->not_built++;
        else
            t->error++;
        return;
    }
    json_t *ref = pv_cmp_load_gz_json(golden);
    if (ref == NULL) {
        print_line("ERROR", g, host, label, "cannot read the golden file");
        t->error++;
        json_decref(ours);
        return;
    }
    if (strcmp(tool, "trace_viewer") == 0) {
        json_t *rs = pv_trace_summary(ref);
        json_t *os = pv_trace_summary(ours);
        json_decref(ref);
        json_decref(ours);
        ref = rs;
        ours = os;
    }
    pv_jc_result r = {
        .keep = t->verbose ? VERBOSE_DIFFS : 0, .keep_accepted = t->verbose, .use = t->use};
    if (strcmp(tool, "kernel_stats") == 0) {
        json_t *os = pv_kernel_table(ours, pv_compare_rules, tool, where, &r);
        json_decref(ours);
        ours = os;
    }
    if (ours == NULL || ref == NULL)
        pv_jc_note(&r, pv_compare_rules, tool, where, "", "not the JSON shape of this tool");
    else
        pv_jc_compare(ours, ref, pv_compare_rules, tool, where, &r);
    size_t n = 0;
    for (size_t i = 0; !t->verbose && i < r.n_diffs && i < PV_JC_MAX_DIFFS && n < sizeof detail;
         i++)
        n += (size_t)snprintf(detail + n, sizeof detail - n, "%s%s", i ? "; " : "",
                              r.diffs[i] ? r.diffs[i] : "?");
    if (t->verbose)
        n = (size_t)snprintf(detail, sizeof detail, "%zu differences", r.n_diffs);
    else if (r.n_diffs > PV_JC_MAX_DIFFS && n < sizeof detail)
        n += (size_t)snprintf(detail + n, sizeof detail - n, "; ... %zu differences in all",
                              r.n_diffs);
    if (r.n_diffs == 0) {
        n = (size_t)snprintf(detail, sizeof detail, "%zu values", r.n_values);
        for (size_t i = 0; i < r.n_reasons && n < sizeof detail; i++)
            n += (size_t)snprintf(detail + n, sizeof detail - n, "%s%s", i ? "; " : "; accepted: ",
                                  r.reasons[i]);
        if (r.n_accepted > 0 && n < sizeof detail)
            snprintf(detail + n, sizeof detail - n, " (%zu values)", r.n_accepted);
    }
    print_line(r.n_diffs == 0 ? "match" : "DIFF", g, host, label, detail);
    for (size_t i = 0; t->verbose && i < r.n_diffs && i < VERBOSE_DIFFS; i++)
        printf("    %s\n", r.diffs[i] ? r.diffs[i] : "?");
    for (size_t i = 0; t->verbose && i < r.n_accepted && i < VERBOSE_DIFFS; i++)
        printf("    accepted %s\n", r.accepted[i] ? r.accepted[i] : "?");
    if (r.n_diffs == 0)
        t->match++;
    else
        t->diff++;
    if (r.n_accepted > 0)
        t->accepted++;
    pv_jc_result_fini(&r);
    json_decref(ours);
    json_decref(ref);
}

static void compare_set(const pv_test_server *s, const golden_set *g, tally *t)
{
    char manifest[PATH_CAP + 32];
    snprintf(manifest, sizeof manifest, "%s/MANIFEST.json", g->dir);
    json_t *m = json_load_file(manifest, 0, NULL);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(m, "results"), i, e) {
        const char *tool = json_string_value(json_object_get(e, "tool"));
        const char *host = json_string_value(json_object_get(e, "host"));
        const char *file = json_string_value(json_object_get(e, "file"));
        const char *st = json_string_value(json_object_get(e, "status"));
        if (tool == NULL || host == NULL)
            continue;
        if (st == NULL || strcmp(st, "ok") != 0 || file == NULL) {
            /* the reference had nothing to say: nothing to compare */
            print_line("skip", g, host, tool, st ? st : "no status in MANIFEST.json");
            continue;
        }
        compare_one(s, g, host, tool, file, json_object_get(e, "params"), t);
    }
    if (m == NULL) {
        print_line("ERROR", g, "-", "-", "cannot read MANIFEST.json");
        t->error++;
    }
    json_decref(m);
}

/* ---- finding the golden sets ------------------------------------------------ */

/* Adds every MANIFEST.json matching pattern. prefix_len: characters of the
 * manifest path before the part that names the run inside the logdir. */
static size_t add_sets(golden_set *sets, size_t n, const char *pattern, const char *logdir,
                       const char *profile, size_t prefix_len)
{
    glob_t gl;
    if (glob(pattern, 0, NULL, &gl) != 0)
        return n;
    for (size_t i = 0; i < gl.gl_pathc && n < MAX_SETS; i++) {
        golden_set *g = &sets[n++];
        const char *p = gl.gl_pathv[i];
        snprintf(g->dir, sizeof g->dir, "%.*s", (int)(strrchr(p, '/') - p), p);
        snprintf(g->logdir, sizeof g->logdir, "%s", logdir);
        snprintf(g->profile, sizeof g->profile, "%s", profile);
        /* run: the folder path below the logdir, without plugins/profile/ */
        char rel[1024];
        snprintf(rel, sizeof rel, "%s", g->dir + prefix_len);
        static const char pp_name[] = "plugins/profile/";
        char *pp = strstr(rel, pp_name);
        if (pp != NULL)
            memmove(pp, pp + strlen(pp_name), strlen(pp + strlen(pp_name)) + 1);
        snprintf(g->run, sizeof g->run, "%s", rel);
    }
    globfree(&gl);
    return n;
}

static size_t find_sets(golden_set *sets, bool *shared_missing)
{
    const char *ref = PV_SRCDIR "/tests/data/reference";
    char pattern[2 * PATH_CAP], logdir[PATH_CAP];
    size_t n = 0;
    static const char *const names[] = {"keras_input_bound", "keras_input_fixed",
                                        "tf_compute_bound",  "tf_memory",
                                        "jax_train",         "multi_host"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(pattern, sizeof pattern, "%s/%s/golden/*/MANIFEST.json", ref, names[i]);
        snprintf(logdir, sizeof logdir, "%s/%s", ref, names[i]);
        n = add_sets(sets, n, pattern, logdir, names[i], strlen(logdir) + strlen("/golden/"));
    }
    snprintf(pattern, sizeof pattern, "%s/demo_golden/*/MANIFEST.json", ref);
    n = add_sets(sets, n, pattern, PV_SRCDIR "/demo", "demo",
                 strlen(ref) + strlen("/demo_golden/"));
    struct stat st;
    *shared_missing = stat(pv_test_data_path("/logdirs"), &st) != 0;
    static const char *const shared[] = {"tf_keras_cpu_macos", "tf_keras_gpu_gcp",
                                         "tf2_gpu_multi_worker", "jax_rocm_mi300",
                                         "jax_tpu_v6e_inference"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
        if (*shared_missing) {
            printf("SKIP compare shared/%s: ../shared/testdata not found\n", shared[i]);
            continue;
        }
        snprintf(logdir, sizeof logdir, "%s/logdirs/%s", PV_TESTDATA, shared[i]);
        char base[PATH_CAP];
        snprintf(base, sizeof base, "%s/shared_golden/logdirs/%s/", ref, shared[i]);
        char profile[256];
        snprintf(profile, sizeof profile, "shared/%s", shared[i]);
        snprintf(pattern, sizeof pattern, "%splugins/profile/*/MANIFEST.json", base);
        n = add_sets(sets, n, pattern, logdir, profile, strlen(base));
        snprintf(pattern, sizeof pattern, "%s*/plugins/profile/*/MANIFEST.json", base);
        n = add_sets(sets, n, pattern, logdir, profile, strlen(base));
    }
    return n;
}

int main(int argc, char **argv)
{
    double t0 = now_s();
    /* Line by line: the servers share our stderr, and a line of theirs
     * must not land inside one of ours in the test log. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    char cache[] = "/tmp/pv_compare_cache_XXXXXX";
    if (mkdtemp(cache) == NULL)
        return 99;
    /* A fresh cache: every answer is computed, none read back. */
    setenv("XDG_CACHE_HOME", cache, 1);
    static golden_set sets[MAX_SETS];
    bool shared_missing = false;
    size_t n = find_sets(sets, &shared_missing);
    size_t n_rules = 0;
    while (pv_compare_rules[n_rules].path != NULL)
        n_rules++;
    tally t = {.verbose = argc > 1 && strcmp(argv[1], "-v") == 0,
               .use = calloc(n_rules + 1, sizeof *t.use),
               .seen = calloc(n_rules + 1, sizeof *t.seen)};
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(sets[i].logdir, sets[i - 1].logdir) == 0)
            continue;
        pv_test_server s;
        if (pv_test_server_start_indexed(&s, sets[i].logdir, NULL) != 0) {
            printf("ERROR     %s: profview did not start on %s\n", sets[i].profile, sets[i].logdir);
            t.error++;
            continue;
        }
        for (size_t j = i; j < n && strcmp(sets[j].logdir, sets[i].logdir) == 0; j++)
            compare_set(&s, &sets[j], &t);
        pv_test_server_stop(&s);
    }
    char cmd[sizeof cache + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", cache);
    size_t bad_rules = check_rules(&t);
    size_t used_rules = 0;
    for (size_t i = 0; i < n_rules; i++)
        used_rules += t.use[i].n > 0;
    printf("compare: %zu golden sets, %zu match (%zu with accepted differences), %zu DIFF, "
           "%zu not built, %zu errors; %zu rules, %zu decided something, %zu at fault; %.1f s\n",
           n, t.match, t.accepted, t.diff, t.not_built, t.error, n_rules, used_rules, bad_rules,
           now_s() - t0);
    for (size_t i = 0; i < n_rules; i++)
        pv_jc_use_fini(&t.use[i]);
    free(t.use);
    free(t.seen);
    bool pass = t.diff == 0 && t.error == 0 && t.not_built == 0 && bad_rules == 0 && t.match > 0;
    printf("%s: compare\n", pass ? "PASS" : "FAIL");
    return !pass ? 1 : shared_missing ? pv_test_testdata_exit("compare shared/*") : 0;
}
