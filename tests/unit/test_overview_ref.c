/* Overview page and input pipeline analyzer on real profiles, compared
 * with an independent oracle: the overview_page.pb / input_pipeline.pb
 * that TensorFlow itself converted from the same xplane when it wrote the
 * profile (extracted into tests/data/{overview,input_pipeline}/ by
 * tools/reference/extract_overview.py; see the README there). The same
 * extracted numbers check the reader of legacy .pb files (profiles that
 * have only those files), decoded here by profview's own wire reader.
 *
 * Tolerances (issue 4): step count exact; step time, input percentage
 * and every breakdown category within 0.5 %; the same verdict text.
 *
 * Intentional differences from that old (2022) TensorFlow converter,
 * not compared here:
 *  - profview counts host-thread events of the device's steps (the TF
 *    converter did too; today's xprof does not on GPU) — this is the
 *    query flag merge_host_with_device, which these tests set.
 *  - None in the host tf.data op table: TF 2.x and today's reference
 *    replay begin/end activities on a stack that loses spans when two end
 *    at the same picosecond in the other order (the CPU profile loses one
 *    Iterator::...::FromTensor call and the whole ...::Zip span that way);
 *    profview replays them the same way, so these match exactly too.
 *  - device_type: TF wrote "GPU"; today's reference names the
 *    architecture from the compute capability ("Nvidia GPU (Turing)").
 *  - host/device TF-op occurrence percentages: TF's device op count
 *    rules differed; not part of the tolerance list. */
#include "testutil.h"

#include "ingest/ingest.h"
#include "ingest/tf_legacy/input_pipeline_legacy.h"
#include "tools/steps/overview.h"

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- expected-value files: "key value" lines ----------------------- */

typedef struct kv {
    char *key;
    char *val;
} kv;

typedef struct kvfile {
    kv *v;
    size_t n;
} kvfile;

static kvfile load_kv(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PV_SRCDIR, rel);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    kvfile k = {NULL, 0};
    char line[8192];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *sp = strchr(line, ' ');
        if (sp == NULL)
            continue;
        *sp = '\0';
        k.v = realloc(k.v, (k.n + 1) * sizeof *k.v);
        k.v[k.n].key = strdup(line);
        k.v[k.n].val = strdup(sp + 1);
        k.n++;
    }
    fclose(f);
    return k;
}

static void free_kv(kvfile *k)
{
    for (size_t i = 0; i < k->n; i++) {
        free(k->v[i].key);
        free(k->v[i].val);
    }
    free(k->v);
}

static const char *get(const kvfile *k, const char *key)
{
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->v[i].key, key) == 0)
            return k->v[i].val;
    return NULL;
}

/* proto3 leaves zero fields out, so a missing number is 0. */
static double num(const kvfile *k, const char *key)
{
    const char *v = get(k, key);
    return v != NULL ? strtod(v, NULL) : 0.0;
}

static void near(double got, double want, const char *what)
{
    double tol = fabs(want) * 0.005;
    if (tol < 1e-6)
        tol = 1e-6;
    ck_assert_msg(fabs(got - want) <= tol, "%s: got %.9g, TensorFlow wrote %.9g", what, got, want);
}

/* ---- loading the profile ----------------------------------------------- */

static pv_model *load_xplane(const char *run)
{
    char pattern[1024];
    snprintf(pattern, sizeof pattern, "%s/logdirs/%s/train/plugins/profile/*/*.xplane.pb",
             PV_TESTDATA, run);
    glob_t g;
    ck_assert_int_eq(glob(pattern, 0, NULL, &g), 0);
    ck_assert_uint_eq(g.gl_pathc, 1);
    pv_model *m = NULL;
    pv_error err = {0};
    int rc = pv_ingest_file(g.gl_pathv[0], NULL, &m, &err);
    ck_assert_msg(rc == 0, "ingest %s: %s", g.gl_pathv[0], err.reason);
    globfree(&g);
    return m;
}

static const struct {
    const char *key;
    int field;
} STEP_FIELDS[] = {
    {"step_time_ms", PV_BD_STEP_TIME},
    {"unknown_time_ms", PV_BD_UNKNOWN},
    {"host_wait_input_ms", PV_BD_HOST_WAIT_INPUT},
    {"host_to_device_ms", PV_BD_HOST_TO_DEVICE},
    {"output_ms", PV_BD_OUTPUT},
    {"device_compute_ms", PV_BD_DEVICE_COMPUTE},
    {"device_to_device_ms", PV_BD_DEVICE_TO_DEVICE},
    {"device_collectives_ms", PV_BD_DEVICE_COLLECTIVES},
    {"host_compute_ms", PV_BD_HOST_COMPUTE},
    {"host_prepare_ms", PV_BD_HOST_PREPARE},
    {"host_compile_ms", PV_BD_HOST_COMPILE},
};

/* Compares the analyzer's step analysis with input_pipeline.pb (prefix
 * "") or with the copy embedded in overview_page.pb ("input_analysis[0]."). */
static void check_steps(const pv_input_pipeline_result *r, const kvfile *k, const char *prefix)
{
    char key[256];
    size_t want_steps = 0;
    for (;; want_steps++) {
        snprintf(key, sizeof key, "%sstep_details[%zu].step_time_ms", prefix, want_steps);
        if (get(k, key) == NULL)
            break;
    }
    ck_assert_uint_gt(want_steps, 0);
    ck_assert_uint_eq(r->analysis.n_steps, want_steps);
    for (size_t i = 0; i < want_steps; i++) {
        for (size_t f = 0; f < sizeof STEP_FIELDS / sizeof STEP_FIELDS[0]; f++) {
            snprintf(key, sizeof key, "%sstep_details[%zu].%s", prefix, i, STEP_FIELDS[f].key);
            near(r->analysis.steps[i].ms[STEP_FIELDS[f].field], num(k, key), key);
        }
    }
    snprintf(key, sizeof key, "%sstep_time_summary[0].average", prefix);
    near(r->analysis.summary[PV_BD_STEP_TIME].average, num(k, key), key);
    snprintf(key, sizeof key, "%sinput_percent", prefix);
    if (get(k, key) != NULL)   /* TF 2.2 files predate this field */
        near(r->analysis.bottleneck.input_percent, num(k, key), key);
    snprintf(key, sizeof key, "%shardware_type", prefix);
    ck_assert_str_eq(pv_hardware_name(r->steps.hardware), get(k, key));

    static const char *const verdict[] = {"input_classification", "input_statement",
                                          "kernel_launch_classification",
                                          "kernel_launch_statement", "all_other_classification",
                                          "all_other_statement"};
    const char *ours[] = {r->analysis.bottleneck.input_classification,
                          r->analysis.bottleneck.input_statement,
                          r->analysis.bottleneck.kernel_launch_classification,
                          r->analysis.bottleneck.kernel_launch_statement,
                          r->analysis.bottleneck.all_other_classification,
                          r->analysis.bottleneck.all_other_statement};
    for (size_t i = 0; i < sizeof verdict / sizeof verdict[0]; i++) {
        snprintf(key, sizeof key, "%srecommendation[0].bottleneck_analysis[0].%s", prefix,
                 verdict[i]);
        const char *want = get(k, key);
        ck_assert_str_eq(ours[i], want != NULL ? want : "");
    }
    snprintf(key, sizeof key, "%srecommendation[0].summary_next_step", prefix);
    ck_assert_str_eq(r->analysis.bottleneck.summary_next_step, get(k, key));
}

/* Every input op TensorFlow listed, with its count and times; skip names
 * the CPU profile's TF converter got wrong (see the file comment). */
static void check_input_ops(const pv_input_pipeline_result *r, const kvfile *k, const char *prefix,
                            const char *const *skip)
{
    char key[256];
    for (size_t i = 0;; i++) {
        snprintf(key, sizeof key, "%sinput_op_details[%zu].op_name", prefix, i);
        const char *name = get(k, key);
        if (name == NULL)
            break;
        bool skipped = false;
        for (size_t s = 0; skip != NULL && skip[s] != NULL; s++)
            skipped = skipped || strcmp(skip[s], name) == 0;
        if (skipped)
            continue;
        const pv_input_op *op = NULL;
        for (size_t j = 0; j < r->n_input_ops; j++)
            if (strcmp(r->input_ops[j].op->name, name) == 0)
                op = &r->input_ops[j];
        ck_assert_msg(op != NULL, "input op %s missing", name);
        snprintf(key, sizeof key, "%sinput_op_details[%zu].count", prefix, i);
        ck_assert_uint_eq(op->op->occurrences, (uint64_t)num(k, key));
        snprintf(key, sizeof key, "%sinput_op_details[%zu].time_in_ms", prefix, i);
        near((double)op->op->time_ps / 1e9, num(k, key), key);
        snprintf(key, sizeof key, "%sinput_op_details[%zu].self_time_in_ms", prefix, i);
        near((double)op->op->self_time_ps / 1e9, num(k, key), key);
        snprintf(key, sizeof key, "%sinput_op_details[%zu].category", prefix, i);
        ck_assert_str_eq(pv_input_cat_name(op->category), get(k, key));
    }
}

static void run_input_pipeline(const char *run, const char *const *skip_ops)
{
    pv_model *m = load_xplane(run);
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/input_pipeline/%s.input_pipeline.txt", run);
    kvfile k = load_kv(rel);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_input_pipeline_query q = {.steps = {.merge_host_with_device = true}};
    pv_input_pipeline_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_input_pipeline(m, &q, &a, &r, &err), 0);
    check_steps(&r, &k, "");
    check_input_ops(&r, &k, "", skip_ops);
    json_t *j = pv_input_pipeline_to_json(&r);
    ck_assert_uint_eq(json_array_size(j), 5);
    json_decref(j);
    pv_arena_fini(&a);
    free_kv(&k);
    pv_model_free(m);
}

START_TEST(test_pv_tool_input_pipeline_tf_keras_gpu)
{
    PV_NEED_TESTDATA("test_pv_tool_input_pipeline_tf_keras_gpu");
    run_input_pipeline("tf_keras_gpu_gcp", NULL);
}
END_TEST

START_TEST(test_pv_tool_input_pipeline_tf_keras_cpu)
{
    PV_NEED_TESTDATA("test_pv_tool_input_pipeline_tf_keras_cpu");
    run_input_pipeline("tf_keras_cpu_macos", NULL);
}
END_TEST

static void run_overview(const char *run, bool gpu)
{
    pv_model *m = load_xplane(run);
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/overview/%s.overview_page.txt", run);
    kvfile k = load_kv(rel);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_overview_query q = {.steps = {.merge_host_with_device = true}};
    pv_overview_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_overview(m, &q, &a, &r, &err), 0);
    check_steps(&r.ip, &k, "input_analysis[0].");
    ck_assert_str_eq(r.ip.analysis.bottleneck.input_statement,
                     get(&k, "recommendation[0].statement"));
    ck_assert_str_eq(r.ip.analysis.bottleneck.input_classification,
                     get(&k, "recommendation[0].bottleneck"));
    const char *prec = get(&k, "recommendation[0].recommendation[0].precision_statement");
    ck_assert_str_eq(r.precision_statement, prec != NULL ? prec : "");
    near(r.host_op_time_eager_percent, num(&k, "analysis[0].host_op_time_eager_percent"),
         "host_op_time_eager_percent");
    /* XProf, which finds no device op in this trace, says 0.0 % (a
     * difference the compare harness accepts by naming this check). */
    if (gpu)
        near(r.device_op_time_eager_percent,
             num(&k, "analysis[0].device_op_time_eager_percent"), "device_op_time_eager_percent");
    ck_assert_uint_eq(r.device_core_count,
                      (uint32_t)num(&k, "run_environment[0].device_core_count"));
    /* Top device ops: same ops in the same order, same shares. */
    char key[256];
    size_t n = 0;
    for (;; n++) {
        snprintf(key, sizeof key, "analysis[0].top_device_ops[%zu].name", n);
        const char *name = get(&k, key);
        if (name == NULL)
            break;
        ck_assert_uint_lt(n, r.n_top_device);
        const pv_overview_op *op = &r.top_device[n];
        ck_assert_str_eq(op->name, name);
        snprintf(key, sizeof key, "analysis[0].top_device_ops[%zu].category", n);
        ck_assert_str_eq(op->category, get(&k, key));
        /* Shares of the device ops' own time, as TensorFlow divided them
         * (not of the kernels' time, unattributed kernels included): the
         * same to the last digit, not within a tolerance. */
        snprintf(key, sizeof key, "analysis[0].top_device_ops[%zu].self_time_fraction", n);
        ck_assert_double_eq_tol(op->self_time_fraction, num(&k, key), 1e-12);
        snprintf(key, sizeof key, "analysis[0].top_device_ops[%zu].cumulative_time_fraction", n);
        ck_assert_double_eq_tol(op->cumulative_time_fraction, num(&k, key), 1e-12);
        /* TensorCore flags: eligible where TensorFlow marked the op (field
         * 6), used where it saw TensorCore kernel time (field 7; none here). */
        snprintf(key, sizeof key, "analysis[0].top_device_ops[%zu].is_op_tensorcore_eligible", n);
        ck_assert_int_eq(op->tc_eligible, get(&k, key) != NULL);
        snprintf(key, sizeof key, "analysis[0].top_device_ops[%zu].is_op_using_tensorcore", n);
        ck_assert_int_eq(op->tc_using, get(&k, key) != NULL);
    }
    ck_assert_uint_eq(n, gpu ? 10 : 0);
    json_t *j = pv_overview_to_json(&r);
    ck_assert_uint_eq(json_array_size(j), 7);
    json_decref(j);
    pv_arena_fini(&a);
    free_kv(&k);
    pv_model_free(m);
}

START_TEST(test_pv_tool_overview_tf_keras_gpu)
{
    PV_NEED_TESTDATA("test_pv_tool_overview_tf_keras_gpu");
    run_overview("tf_keras_gpu_gcp", true);
}
END_TEST

START_TEST(test_pv_tool_overview_tf_keras_cpu)
{
    PV_NEED_TESTDATA("test_pv_tool_overview_tf_keras_cpu");
    run_overview("tf_keras_cpu_macos", false);
}
END_TEST

/* ---- legacy per-tool files: read back what TensorFlow wrote ---------- */

static uint8_t *slurp(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/logdirs/%s", PV_TESTDATA, rel);
    return pv_test_read_file(path, len);
}

/* The steps and input ops are the file's; the summaries are recomputed
 * from its steps and must agree with the summaries TF stored beside them. */
static void check_legacy(const pv_input_pipeline_result *r, const kvfile *k, const char *prefix)
{
    check_steps(r, k, prefix);
    char key[256];
    snprintf(key, sizeof key, "%sstep_time_summary[0].standard_deviation", prefix);
    near(r->analysis.summary[PV_BD_STEP_TIME].standard_deviation, num(k, key), key);
    snprintf(key, sizeof key, "%sinput_percent_summary[0].average", prefix);
    near(r->analysis.input_percent.average, num(k, key), key);
    snprintf(key, sizeof key, "%sstep_time_breakdown[0].host_wait_input_ms_summary[0].average",
             prefix);
    near(r->analysis.summary[PV_BD_HOST_WAIT_INPUT].average, num(k, key), key);
    check_input_ops(r, k, prefix, NULL);
    snprintf(key, sizeof key, "%sinput_time_breakdown[0].preprocessing_us", prefix);
    near(r->breakdown.preprocessing_us, num(k, key), key);
}

START_TEST(test_pv_input_pipeline_legacy_read_gpu_input_bound)
{
    PV_NEED_TESTDATA("test_pv_input_pipeline_legacy_read_gpu_input_bound");
    size_t len;
    uint8_t *data = slurp("tf_legacy_demo_2020/plugins/profile/GPU-input-bound/"
                          "localhost.input_pipeline.pb", &len);
    kvfile k = load_kv("tests/data/input_pipeline/"
                       "tf_legacy_demo_2020_GPU-input-bound.input_pipeline.txt");
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_input_pipeline_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_input_pipeline_legacy_read(data, len, "x", &a, &r, &err), 0);
    check_legacy(&r, &k, "");
    ck_assert(!r.steps.has_trace_times);
    json_t *j = pv_input_pipeline_to_json(&r);
    ck_assert_uint_eq(json_array_size(j), 5);
    json_decref(j);
    /* A cut file is malformed protobuf, not a crash. */
    ck_assert_int_eq(pv_input_pipeline_legacy_read(data, len / 2, "x", &a, &r, &err), PV_EFORMAT);
    pv_arena_fini(&a);
    free_kv(&k);
    free(data);
}
END_TEST

START_TEST(test_pv_overview_legacy_read_plugin_demo)
{
    PV_NEED_TESTDATA("test_pv_overview_legacy_read_plugin_demo");
    size_t len;
    uint8_t *data = slurp("xprof_plugin_demo/plugins/profile/demo/profile_demo.overview_page.pb",
                          &len);
    kvfile k = load_kv("tests/data/overview/xprof_plugin_demo.overview_page.txt");
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_overview_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_overview_legacy_read(data, len, "x", &a, &r, &err), 0);
    check_legacy(&r.ip, &k, "input_analysis[0].");
    ck_assert_str_eq(r.device_type, get(&k, "run_environment[0].device_type"));
    ck_assert_uint_eq(r.device_core_count,
                      (uint32_t)num(&k, "run_environment[0].device_core_count"));
    ck_assert_str_eq(r.precision_statement,
                     get(&k, "recommendation[0].recommendation[0].precision_statement"));
    ck_assert_uint_eq(r.n_top_device, 10);
    ck_assert_str_eq(r.top_device[9].name, get(&k, "analysis[0].top_device_ops[9].name"));
    near(r.top_device[9].cumulative_time_fraction,
         num(&k, "analysis[0].top_device_ops[9].cumulative_time_fraction"), "top op 9");
    json_t *j = pv_overview_to_json(&r);
    ck_assert_uint_eq(json_array_size(j), 7);
    json_decref(j);
    pv_arena_fini(&a);
    free_kv(&k);
    free(data);
}
END_TEST

/* The top device ops' fields 5-7 (FLOP rate, TensorCore eligibility and
 * use) of the file TensorFlow wrote next to the Keras GPU run. */
START_TEST(test_pv_overview_legacy_read_tensor_core)
{
    PV_NEED_TESTDATA("test_pv_overview_legacy_read_tensor_core");
    size_t len;
    uint8_t *data = slurp("tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12/"
                          "instance-ecbm.overview_page.pb", &len);
    kvfile k = load_kv("tests/data/overview/tf_keras_gpu_gcp.overview_page.txt");
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_overview_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_overview_legacy_read(data, len, "x", &a, &r, &err), 0);
    ck_assert_uint_eq(r.n_top_device, 10);
    size_t n_eligible = 0;
    for (size_t i = 0; i < r.n_top_device; i++) {
        char key[128];
        snprintf(key, sizeof key, "analysis[0].top_device_ops[%zu].is_op_tensorcore_eligible", i);
        ck_assert_int_eq(r.top_device[i].tc_eligible, get(&k, key) != NULL);
        n_eligible += r.top_device[i].tc_eligible;
        snprintf(key, sizeof key, "analysis[0].top_device_ops[%zu].flop_rate", i);
        ck_assert_double_eq(r.top_device[i].flop_rate, num(&k, key));
        ck_assert(!r.top_device[i].tc_using);
    }
    ck_assert_uint_eq(n_eligible, 6);   /* the count: six of the top ten */
    json_t *j = pv_overview_to_json(&r);
    json_t *row0 = json_object_get(json_array_get(json_object_get(json_array_get(j, 0), "rows"),
                                                  0), "c");
    ck_assert(json_is_true(json_object_get(json_array_get(row0, 5), "v")));
    json_decref(j);
    pv_arena_fini(&a);
    free_kv(&k);
    free(data);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("overview_ref");
    TCase *tc = tcase_create("pv_tool_input_pipeline");
    tcase_add_test(tc, test_pv_tool_input_pipeline_tf_keras_gpu);
    tcase_add_test(tc, test_pv_tool_input_pipeline_tf_keras_cpu);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_overview");
    tcase_add_test(tc, test_pv_tool_overview_tf_keras_gpu);
    tcase_add_test(tc, test_pv_tool_overview_tf_keras_cpu);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_input_pipeline_legacy_read");
    tcase_add_test(tc, test_pv_input_pipeline_legacy_read_gpu_input_bound);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_overview_legacy_read");
    tcase_add_test(tc, test_pv_overview_legacy_read_plugin_demo);
    tcase_add_test(tc, test_pv_overview_legacy_read_tensor_core);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
