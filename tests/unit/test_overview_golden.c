/* Overview page and input pipeline analyzer against the reference
 * implementation's own answers: XProf 2.24's /data JSON for every profile
 * of tests/data/reference (see the README there) and for the shared
 * profiles under ../shared/testdata (golden answers kept in
 * tests/data/reference/shared_golden).
 *
 * Compared (issue 4): the step table row by row — the step count exactly,
 * the step names, every number within 0.5 % — the summary and verdict
 * properties as the same strings, the host input-op table and its
 * breakdown, and on the overview the bottleneck, statement, hardware and
 * run environment.
 *
 * Not compared, on purpose:
 *  - ALL_HOSTS answers (several hosts combined): profview serves one host
 *    at a time.
 *  - TPU profiles: the reference finds no step there ("No step time
 *    measured"); profview deliberately shows one step per group of the
 *    TPU ops (FORMATS.md §4.4, steps.c). Its own answer is checked by
 *    test_pv_tool_steps_tpu_xprof_groups against steps made from XProf's
 *    own grouping of the same ops (tests/data/steps/README.md).
 *  - "*_sdv" properties when there is one step: the reference divides 0 by
 *    0 and prints "-nan"; profview prints 0.0.
 *  - idle, duty-cycle, roofline and TF-op-share properties of the analysis
 *    table and its top device ops: the reference prints 0.0% for its TPU
 *    keys without a TPU and finds no device ops in TensorFlow 2.x GPU
 *    traces, which carry their framework op only in the "level 0"
 *    annotation; profview computes them (or says "unknown"). The tests at
 *    the end check profview's own answers: the host idle share against
 *    XProf's framework_op_stats, the device share against TensorFlow's
 *    and XProf's op tables; test_pv_tool_overview_rocm_device_ops its top
 *    device ops on ROCm against XProf's. */
#include "stats_oracle.h"

#include "ingest/ingest.h"
#include "tools/steps/overview.h"

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *load_gz_json(const char *path)
{
    json_t *j = pv_test_load_gz_json(path, SIZE_MAX);
    ck_assert_msg(j != NULL, "cannot open %s", path);
    return j;
}

static const char *prop(json_t *table, const char *key)
{
    return json_string_value(json_object_get(json_object_get(table, "p"), key));
}

static void same_prop(json_t *ours, json_t *ref, const char *key, const char *where)
{
    const char *a = prop(ours, key), *b = prop(ref, key);
    ck_assert_msg(a != NULL && b != NULL && strcmp(a, b) == 0,
                  "%s: p.%s is \"%s\", reference \"%s\"",
                  where, key, a ? a : "(none)", b ? b : "(none)");
}

/* Rows cell by cell: strings equal, numbers within 0.5 %. */
static void same_rows(json_t *ours, json_t *ref, const char *where)
{
    json_t *ra = json_object_get(ours, "rows"), *rb = json_object_get(ref, "rows");
    ck_assert_msg(json_array_size(ra) == json_array_size(rb), "%s: %zu rows, reference %zu", where,
                  json_array_size(ra), json_array_size(rb));
    for (size_t i = 0; i < json_array_size(rb); i++) {
        json_t *ca = json_object_get(json_array_get(ra, i), "c");
        json_t *cb = json_object_get(json_array_get(rb, i), "c");
        ck_assert_uint_eq(json_array_size(ca), json_array_size(cb));
        for (size_t k = 0; k < json_array_size(cb); k++) {
            json_t *a = json_object_get(json_array_get(ca, k), "v");
            json_t *b = json_object_get(json_array_get(cb, k), "v");
            if (json_is_number(b)) {
                double x = json_number_value(a), y = json_number_value(b);
                ck_assert_msg(json_is_number(a) && fabs(x - y) <= fmax(fabs(y) * 0.005, 1e-9),
                              "%s: row %zu cell %zu is %.9g, reference %.9g", where, i, k, x, y);
            } else if (json_is_string(b)) {
                ck_assert_msg(json_is_string(a) &&
                                  strcmp(json_string_value(a), json_string_value(b)) == 0,
                              "%s: row %zu cell %zu is \"%s\", reference \"%s\"", where, i, k,
                              json_string_value(a) ? json_string_value(a) : "(none)",
                              json_string_value(b));
            }
        }
    }
}

static const char *const STEP_PROPS[] = {
    "hardware_type", "steptime_ms_average", "steptime_ms_standard_deviation",
    "steptime_ms_minimum", "steptime_ms_maximum", "input_conclusion", "summary_nextstep",
    "kernel_launch_statement", "all_other_statement", "device_collectives_statement",
    "device_compute_time_ms_avg", "infeed_time_ms_avg", "host_compute_time_ms_avg",
    "kernel_launch_time_ms_avg", "other_time_ms_avg", "outfeed_time_ms_avg", NULL};

static void check_step_table(json_t *ours, json_t *ref, const char *where)
{
    same_rows(ours, ref, where);
    bool one_step = json_array_size(json_object_get(ref, "rows")) == 1;
    for (size_t i = 0; STEP_PROPS[i] != NULL; i++)
        same_prop(ours, ref, STEP_PROPS[i], where);
    if (!one_step)
        same_prop(ours, ref, "host_compute_time_ms_sdv", where);
}

typedef struct golden_case {
    char xplane[4096];
    char golden[1024];
    const char *tool;   /* "overview_page" or "input_pipeline_analyzer" */
} golden_case;

static int check_case(const golden_case *c)
{
    json_t *ref = load_gz_json(c->golden);
    json_t *ref_steps = json_array_get(ref, 1);
    /* TPU step tables have other columns: not compared (see above). */
    const char *ref_hw = prop(ref_steps, "hardware_type");
    if (ref_hw != NULL && strcmp(ref_hw, "TPU") == 0) {
        json_decref(ref);
        return 0;
    }
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_msg(pv_ingest_file(c->xplane, NULL, &m, &err) == 0, "%s: %s", c->xplane, err.reason);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    json_t *ours;
    bool overview = strcmp(c->tool, "overview_page") == 0;
    if (overview) {
        pv_overview_result r;
        ck_assert_int_eq(pv_tool_overview(m, NULL, &a, &r, &err), 0);
        ours = pv_overview_to_json(&r);
    } else {
        pv_input_pipeline_result r;
        ck_assert_int_eq(pv_tool_input_pipeline(m, NULL, &a, &r, &err), 0);
        ours = pv_input_pipeline_to_json(&r);
    }
    check_step_table(json_array_get(ours, 1), ref_steps, c->golden);
    if (overview) {
        json_t *ra = json_array_get(ours, 3), *rb = json_array_get(ref, 3);
        static const char *const keys[] = {"bottleneck", "statement", "kernel_launch_bottleneck",
                                           "kernel_launch_statement", "all_other_bottleneck",
                                           "all_other_statement", "precision_statement",
                                           "non_bottleneck_tip_types"};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            same_prop(ra, rb, keys[i], c->golden);
        json_t *ea = json_array_get(ours, 2), *eb = json_array_get(ref, 2);
        same_prop(ea, eb, "device_type", c->golden);
        same_prop(ea, eb, "device_core_count", c->golden);
        same_prop(ea, eb, "host_count", c->golden);
        same_prop(json_array_get(ours, 0), json_array_get(ref, 0), "host_op_time_eager_percent",
                  c->golden);
        ck_assert_uint_eq(json_array_size(ours), 7);
    } else {
        json_t *ha = json_array_get(ours, 2), *hb = json_array_get(ref, 2);
        same_rows(ha, hb, c->golden);
        static const char *const keys[] = {"enqueue_us", "demanded_file_read_us",
                                           "advanced_file_read_us", "preprocessing_us",
                                           "unclassified_nonequeue_us"};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            same_prop(ha, hb, keys[i], c->golden);
        same_rows(json_array_get(ours, 3), json_array_get(ref, 3), c->golden);
        same_rows(json_array_get(ours, 4), json_array_get(ref, 4), c->golden);
        ck_assert_uint_eq(json_array_size(ours), 5);
    }
    json_decref(ours);
    json_decref(ref);
    pv_arena_fini(&a);
    pv_model_free(m);
    return 1;
}

/* <dir>/<host>.<tool>.json.gz -> host, or false for ALL_HOSTS. */
static bool host_of(const char *golden, const char *tool, char *host, size_t cap)
{
    const char *base = strrchr(golden, '/') + 1;
    size_t n = strlen(base) - strlen(tool) - strlen("..json.gz");
    if (n >= cap)
        return false;
    memcpy(host, base, n);
    host[n] = '\0';
    return strcmp(host, "ALL_HOSTS") != 0;
}

static int run_corpus(const char *tool)
{
    char pattern[1024];
    snprintf(pattern, sizeof pattern, "%s/tests/data/reference/*/golden/*/*.%s.json.gz", PV_SRCDIR,
             tool);
    glob_t g;
    int checked = 0;
    if (glob(pattern, 0, NULL, &g) != 0)
        return 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        golden_case c = {.tool = tool};
        char host[256], dir[1024];
        if (!host_of(g.gl_pathv[i], tool, host, sizeof host))
            continue;
        /* .../reference/<name>/golden/<run>/x -> .../reference/<name>/plugins/profile/<run>/ */
        snprintf(dir, sizeof dir, "%s", g.gl_pathv[i]);
        char *slash = strrchr(dir, '/');
        *slash = '\0';
        char *run = strrchr(dir, '/') + 1;
        char *golden_dir = run - 1;
        *golden_dir = '\0';
        char *name_end = strrchr(dir, '/');
        *name_end = '\0';
        snprintf(c.xplane, sizeof c.xplane, "%s/plugins/profile/%s/%s.xplane.pb", dir, run, host);
        snprintf(c.golden, sizeof c.golden, "%s", g.gl_pathv[i]);
        checked += check_case(&c);
    }
    globfree(&g);
    return checked;
}

static int run_shared(const char *tool)
{
    static const char *const dirs[] = {
        "logdirs/tf_keras_cpu_macos/train/plugins/profile/2022_10_31_19_09_08",
        "logdirs/tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12",
        "logdirs/tf2_gpu_multi_worker/plugins/profile/GPU-multi-worker",
        "logdirs/jax_rocm_mi300/plugins/profile/jax08_gemm",
        "logdirs/jax_tpu_v6e_inference/plugins/profile/tpu_inference",
    };
    int checked = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char pattern[1024];
        snprintf(pattern, sizeof pattern, "%s/tests/data/reference/shared_golden/%s/*.%s.json.gz",
                 PV_SRCDIR, dirs[d], tool);
        glob_t g;
        if (glob(pattern, 0, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            golden_case c = {.tool = tool};
            char host[256];
            if (!host_of(g.gl_pathv[i], tool, host, sizeof host))
                continue;
            snprintf(c.xplane, sizeof c.xplane, "%s/%s/%s.xplane.pb", PV_TESTDATA, dirs[d], host);
            snprintf(c.golden, sizeof c.golden, "%s", g.gl_pathv[i]);
            checked += check_case(&c);
        }
        globfree(&g);
    }
    return checked;
}

START_TEST(test_pv_tool_input_pipeline_golden_corpus)
{
    /* keras_input_bound, keras_input_fixed, tf_compute_bound, tf_memory,
     * jax_train, and the two hosts of multi_host. */
    ck_assert_int_ge(run_corpus("input_pipeline_analyzer"), 7);
}
END_TEST

START_TEST(test_pv_tool_overview_golden_corpus)
{
    ck_assert_int_ge(run_corpus("overview_page"), 5);
}
END_TEST

START_TEST(test_pv_tool_input_pipeline_golden_shared)
{
    PV_NEED_TESTDATA("test_pv_tool_input_pipeline_golden_shared");
    /* both Keras runs, both multi-worker hosts, ROCm (TPU skipped) */
    ck_assert_int_ge(run_shared("input_pipeline_analyzer"), 5);
}
END_TEST

START_TEST(test_pv_tool_overview_golden_shared)
{
    PV_NEED_TESTDATA("test_pv_tool_overview_golden_shared");
    ck_assert_int_ge(run_shared("overview_page"), 3);
}
END_TEST

/* The overview of the profile at xplane (arena a, set up here): the
 * model, to free with pv_model_free. */
static pv_model *overview_of(const char *xplane, pv_arena *a, pv_overview_result *r)
{
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_msg(pv_ingest_file(xplane, NULL, &m, &err) == 0, "%s: %s", xplane, err.reason);
    pv_arena_init(a, 1 << 16);
    ck_assert_int_eq(pv_tool_overview(m, NULL, a, r, &err), 0);
    return m;
}

/* The host's IDLE share in XProf's framework_op_stats golden at gz, or
 * -1 when the host recorded no op (an IDLE row of 0 time). */
static double xprof_host_idle(const char *gz)
{
    json_t *ref = load_gz_json(gz);
    json_t *t = json_array_get(ref, 0), *cols = json_object_get(t, "cols");
    int c_side = -1, c_op = -1, c_share = -1;
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *id = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        c_side = strcmp(id, "host_or_device") == 0 ? (int)i : c_side;
        c_op = strcmp(id, "operation") == 0 ? (int)i : c_op;
        c_share = strcmp(id, "host_total_self_time_percent") == 0 ? (int)i : c_share;
    }
    double share = -1;
    json_t *rows = json_object_get(t, "rows");
    for (size_t r = 0; r < json_array_size(rows); r++) {
        json_t *c = json_object_get(json_array_get(rows, r), "c");
        json_t *sv = json_object_get(json_array_get(c, (size_t)c_side), "v");
        json_t *ov = json_object_get(json_array_get(c, (size_t)c_op), "v");
        const char *side = json_string_value(sv), *op = json_string_value(ov);
        if (strcmp(side, "Host") == 0 && strcmp(op, "IDLE") == 0 && json_array_size(rows) > 1)
            share = 100.0 * json_number_value(json_object_get(json_array_get(c, (size_t)c_share),
                                                             "v"));
    }
    json_decref(ref);
    return share;
}

/* host_idle_time_percent, which XProf fills for TPUs only (0.0% here) and
 * profview for every profile, against XProf's own host IDLE share in its
 * framework_op_stats answer for the same profile. */
START_TEST(test_pv_tool_overview_host_idle_oracle)
{
    static const char *const runs[][2] = {
        {"keras_input_bound", "2026_11_29_17_36_18"}, {"keras_input_fixed", "2026_11_29_17_36_24"},
        {"tf_compute_bound", "2026_11_29_17_36_30"},  {"tf_memory", "2026_11_29_17_36_35"},
        {"jax_train", "2026_11_29_17_36_39"}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char gz[1024], xplane[1024];
        const char *ref = PV_SRCDIR "/tests/data/reference";
        snprintf(gz, sizeof gz, "%s/%s/golden/%s/vm.framework_op_stats.json.gz", ref, runs[i][0],
                 runs[i][1]);
        snprintf(xplane, sizeof xplane, "%s/%s/plugins/profile/%s/vm.xplane.pb", ref, runs[i][0],
                 runs[i][1]);
        double want = xprof_host_idle(gz);
        pv_arena a;
        pv_overview_result r;
        pv_model *m = overview_of(xplane, &a, &r);
        if (want < 0)
            ck_assert_msg(r.host_idle_percent < 0, "%s: host idle %.3f%%, XProf saw no host op",
                          runs[i][0], r.host_idle_percent);
        else
            ck_assert_msg(fabs(r.host_idle_percent - want) <= 1e-6 * want + 1e-9,
                          "%s: host idle %.6f%%, XProf's IDLE row %.6f%%", runs[i][0],
                          r.host_idle_percent, want);
        pv_arena_fini(&a);
        pv_model_free(m);
    }
}
END_TEST

/* XProf's top device ops on ROCm are the XLA ops of the device database,
 * named from the HLO protos (jax08_gemm: jit(dot)/dot_general first, a
 * GEMM using the matrix cores); profview's must be the same rows with the
 * same shares and flags. The FLOP rate of the cuBLAS program is a named
 * cost-model difference (compare_rules.c GEMM_COST), so only the ops
 * without flops are held to XProf's 0. */
START_TEST(test_pv_tool_overview_rocm_device_ops)
{
    PV_NEED_TESTDATA("test_pv_tool_overview_rocm_device_ops");
    const char *dir = "logdirs/jax_rocm_mi300/plugins/profile/jax08_gemm/tw003";
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/reference/shared_golden/%s.overview_page.json.gz",
             PV_SRCDIR, dir);
    json_t *ref = load_gz_json(path);
    json_t *rows = json_object_get(json_array_get(ref, 0), "rows");
    snprintf(path, sizeof path, "%s/%s.xplane.pb", PV_TESTDATA, dir);
    pv_arena a;
    pv_overview_result r;
    pv_model *m = overview_of(path, &a, &r);
    ck_assert_uint_eq(json_array_size(rows), 3);
    ck_assert_uint_eq(r.n_top_device, json_array_size(rows));
    for (size_t i = 0; i < r.n_top_device; i++) {
        json_t *c = json_object_get(json_array_get(rows, i), "c");
        const pv_overview_op *op = &r.top_device[i];
        double self = json_real_value(json_object_get(json_array_get(c, 0), "v"));
        double cum = json_real_value(json_object_get(json_array_get(c, 1), "v"));
        const char *category = json_string_value(json_object_get(json_array_get(c, 2), "v"));
        const char *name = json_string_value(json_object_get(json_array_get(c, 3), "v"));
        double flop_rate = json_real_value(json_object_get(json_array_get(c, 4), "v"));
        ck_assert_str_eq(op->name, name);
        ck_assert_str_eq(op->category, category);
        ck_assert_double_eq_tol(op->self_time_fraction, self, 0.005 * self);
        ck_assert_double_eq_tol(op->cumulative_time_fraction, cum, 0.005 * cum);
        ck_assert_int_eq(op->tc_eligible,
                         json_is_true(json_object_get(json_array_get(c, 5), "v")));
        ck_assert_int_eq(op->tc_using, json_is_true(json_object_get(json_array_get(c, 6), "v")));
        if (flop_rate == 0.0)
            ck_assert_double_eq(op->flop_rate, 0.0);
    }
    /* the hand-checked first row: XProf's 94.69 % GEMM on the matrix cores */
    ck_assert_str_eq(r.top_device[0].name, "jit(dot)/dot_general");
    ck_assert(r.top_device[0].tc_eligible && r.top_device[0].tc_using);
    json_decref(ref);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* tests/data/steps/<file>: "<group> <cores> <step ps>" lines. */
static size_t load_group_steps(const char *file, int64_t *group, int64_t *step_ps, size_t cap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/steps/%s", PV_SRCDIR, file);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char line[256];
    size_t n = 0;
    while (fgets(line, sizeof line, f) != NULL && n < cap) {
        long long g, cores, ps;
        if (line[0] != '#' && sscanf(line, "%lld %lld %lld", &g, &cores, &ps) == 3) {
            group[n] = g;
            step_ps[n++] = ps;
        }
    }
    fclose(f);
    return n;
}

/* The TPU profile: XProf gave every TPU op a group (its trace_viewer
 * answer), but shows no step. profview's steps must be those groups, each
 * as long as its longest span of ops on one core, to the picosecond, the
 * first and last dropped as incomplete (more than 5 steps). */
START_TEST(test_pv_tool_steps_tpu_xprof_groups)
{
    PV_NEED_TESTDATA("test_pv_tool_steps_tpu_xprof_groups");
    enum { CAP = 512 };
    int64_t group[CAP], step_ps[CAP];
    size_t n = load_group_steps("tpu_inference_2.steps.tsv", group, step_ps, CAP);
    ck_assert_uint_eq(n, 105);
    pv_model *m = NULL;
    pv_error err = {0};
    const char *xplane = pv_test_data_path("/logdirs/jax_tpu_v6e_inference/plugins/profile/"
                                           "tpu_inference/tpu_inference_2.xplane.pb");
    ck_assert_msg(pv_ingest_file(xplane, NULL, &m, &err) == 0, "%s", err.reason);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_steps_result r;
    ck_assert_int_eq(pv_tool_steps(m, NULL, &a, &r, &err), 0);
    ck_assert_uint_eq(r.hardware, PV_HW_TPU);
    ck_assert_uint_eq(r.n_steps, n - 2);
    ck_assert_uint_eq(r.n_incomplete, 2);
    for (size_t i = 0; i < r.n_steps; i++) {
        ck_assert_int_eq(r.steps[i].group_id, group[i + 1]);
        ck_assert_msg(r.steps[i].dur_ps == step_ps[i + 1], "group %lld: %lld ps, XProf's %lld",
                      (long long)group[i + 1], (long long)r.steps[i].dur_ps,
                      (long long)step_ps[i + 1]);
    }
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* Sum of the occurrences of one side's rows (IDLE has none) in a
 * framework_op_stats DataTable. */
static double side_occurrences(json_t *table, const char *side)
{
    int c_side = -1, c_occ = -1;
    json_t *cols = json_object_get(table, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *id = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        if (strcmp(id, "host_or_device") == 0)
            c_side = (int)i;
        else if (strcmp(id, "occurrences") == 0)
            c_occ = (int)i;
    }
    ck_assert(c_side >= 0 && c_occ >= 0);
    double n = 0;
    json_t *rows = json_object_get(table, "rows");
    for (size_t r = 0; r < json_array_size(rows); r++) {
        json_t *c = json_object_get(json_array_get(rows, r), "c");
        if (strcmp(json_string_value(json_object_get(json_array_get(c, (size_t)c_side), "v")),
                   side) == 0)
            n += json_number_value(json_object_get(json_array_get(c, (size_t)c_occ), "v"));
    }
    return n;
}

/* The device share of the Keras GPU profile, which XProf leaves at 0.0 %
 * (it finds no device op in this TF 2.4-era trace) while profview names
 * the ops from their "level 0" annotation. The share counts op runs on
 * each side; the oracles: the device op runs TensorFlow's own converter
 * wrote (tests/data/op_stats, 81: an op that launched several kernels ran
 * once, not 124 times as its kernels would say) and the host op runs of
 * XProf's framework_op_stats golden (127). */
START_TEST(test_pv_tool_overview_device_share_oracle)
{
    PV_NEED_TESTDATA("test_pv_tool_overview_device_share_oracle");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/op_stats/tf_keras_gpu_gcp.tf_stats.tsv", PV_SRCDIR);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char line[4096];
    double device = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char side[16];
        double occ;
        if (line[0] != '#' && sscanf(line, "%15s %*s %*s %lf", side, &occ) == 2 &&
            strcmp(side, "Device") == 0)
            device += occ;
    }
    fclose(f);
    ck_assert_double_eq(device, 81);
    json_t *ref = load_gz_json(PV_SRCDIR "/tests/data/reference/shared_golden/logdirs/"
                               "tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12/"
                               "instance-ecbm.framework_op_stats.json.gz");
    double host = side_occurrences(json_array_get(ref, 0), "Host");
    json_decref(ref);
    ck_assert_double_eq(host, 127);
    pv_arena a;
    pv_overview_result r;
    pv_model *m = overview_of(pv_test_data_path("/logdirs/tf_keras_gpu_gcp/train/plugins/profile/"
                                                "2022_11_04_21_26_12/instance-ecbm.xplane.pb"),
                              &a, &r);
    ck_assert_double_eq_tol(r.device_tf_op_percent, 100.0 * device / (device + host), 1e-9);
    ck_assert_double_eq_tol(r.host_tf_op_percent, 100.0 * host / (device + host), 1e-9);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("overview_golden");
    TCase *tc = tcase_create("pv_tool_input_pipeline");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pv_tool_input_pipeline_golden_corpus);
    tcase_add_test(tc, test_pv_tool_input_pipeline_golden_shared);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_overview");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pv_tool_overview_golden_corpus);
    tcase_add_test(tc, test_pv_tool_overview_golden_shared);
    tcase_add_test(tc, test_pv_tool_overview_device_share_oracle);
    tcase_add_test(tc, test_pv_tool_overview_host_idle_oracle);
    tcase_add_test(tc, test_pv_tool_overview_rocm_device_ops);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_steps");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pv_tool_steps_tpu_xprof_groups);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
