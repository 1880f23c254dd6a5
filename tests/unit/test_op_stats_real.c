/* framework_op_stats on real profiles, against two independent oracles:
 *
 *  - tensorflow_stats.pb, which TensorFlow (2.10 era) itself converted from
 *    the same xplane (tf_keras_gpu_gcp, tf_keras_cpu_macos; extracted to
 *    tests/data/op_stats/<profile>.tf_stats.tsv by
 *    tools/reference/oracles/extract_tf_oracles.py);
 *  - XProf 2.24.2's /data answer (tests/data/reference/shared_golden).
 * Rows are compared as sets keyed by (host/device, op name): occurrences
 * exactly, total and self time within 0.5 %; the tables with IDLE.
 *
 * Intended differences, and how the comparison allows for them:
 *  - The old GPU profile's kernels carry the op only in the `level 0`
 *    annotation (no `tf_op`). profview, like TF then, counts them as device
 *    ops; XProf today finds no device op at all and reports the whole
 *    device time as IDLE. Against XProf the device side is compared by its
 *    total time (all our device rows together = XProf's IDLE).
 *  - TF 2.10 did not split "...-LayoutOptimizer:Transpose" (its op-name
 *    pattern had no '-'); its names containing ':' are re-parsed.
 *  - Today's reference also counts host events that carry a `tf_op` stat
 *    (launch events), which TF 2.10 did not: against the TF file the host
 *    side is checked as a subset (every TF op is here with the same times),
 *    without occurrence counts and IDLE, both of which those extra events
 *    change. XProf agrees with profview on the host side exactly.
 *  - Against XProf the op type is part of the key too (XLA ops take theirs
 *    from the HLO proto's metadata; host ops without a type keep ""). */
#include "stats_oracle.h"
#include "ingest/tf_legacy/legacy_stats.h"
#include "tools/op_stats/op_stats.h"
#include "tools/registry.h"
#include "tools/common/tf_op_name.h"

#include <stdio.h>

#define GCP "logdirs/tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12/instance-ecbm"
#define MAC "logdirs/tf_keras_cpu_macos/train/plugins/profile/2022_10_31_19_09_08/" \
            "gaoyihaodeMacBook-Pro.local"
#define GOLDEN PV_SRCDIR "/tests/data/reference/shared_golden/"

enum { SIDE_DEVICE = 1, SIDE_HOST = 2, SIDE_BOTH = 3 };

static void row_key(char *buf, size_t cap, bool device, const char *name, size_t len)
{
    snprintf(buf, cap, "%s|%.*s", device ? "Device" : "Host", (int)len, name);
}

/* Our with-IDLE rows of the chosen sides; with_type adds the op type to
 * the key. */
static void our_rows(const pv_op_stats_result *r, int sides, bool with_idle, bool with_type,
                     oracle_set *out)
{
    char key[8192];
    char typed[8400];
    for (size_t i = 0; i < r->with_idle.n_rows; i++) {
        const pv_op_stats_row *row = &r->with_idle.rows[i];
        if (!(sides & (row->on_device ? SIDE_DEVICE : SIDE_HOST)))
            continue;
        if (row->op->is_idle && !with_idle)
            continue;
        row_key(key, sizeof key, row->on_device, row->op->name, strlen(row->op->name));
        snprintf(typed, sizeof typed, "%s|%s", key, with_type ? row->op->type : "");
        oracle_add(out, typed, (double)row->op->occurrences, row->total_time_us,
                   row->total_self_time_us);
    }
}

static void tf_rows(const char *tsv, int sides, bool with_idle, oracle_set *out)
{
    FILE *f = fopen(tsv, "r");
    ck_assert_msg(f != NULL, "%s", tsv);
    char line[8192], key[8192];
    while (fgets(line, sizeof line, f) != NULL) {
        if (line[0] == '#')
            continue;
        char *fld[6];
        ck_assert_uint_eq(oracle_split_tsv(line, fld, 6), 6);
        bool device = strcmp(fld[0], "Device") == 0;
        if (!(sides & (device ? SIDE_DEVICE : SIDE_HOST)))
            continue;
        if (strcmp(fld[1], "IDLE") == 0 && !with_idle)
            continue;
        pv_tf_op op = {0, fld[2], strlen(fld[2]), "", 0};
        if (strchr(fld[2], ':') != NULL)
            pv_tf_op_parse(fld[2], strlen(fld[2]), &op);
        row_key(key, sizeof key, device, op.name, op.name_len);
        strcat(key, "|");
        oracle_add(out, key, atof(fld[3]), atof(fld[4]), atof(fld[5]));
    }
    fclose(f);
}

static void golden_rows(json_t *table, int sides, oracle_set *out)
{
    int c_side = oracle_col(table, "host_or_device"), c_op = oracle_col(table, "operation");
    int c_occ = oracle_col(table, "occurrences"), c_total = oracle_col(table, "total_time");
    int c_self = oracle_col(table, "total_self_time");
    int c_type = oracle_col(table, "type");
    char key[8192];
    char typed[8400];
    for (size_t i = 0; i < json_array_size(json_object_get(table, "rows")); i++) {
        bool device = strcmp(json_string_value(oracle_cell(table, i, c_side)), "Device") == 0;
        if (!(sides & (device ? SIDE_DEVICE : SIDE_HOST)))
            continue;
        const char *name = json_string_value(oracle_cell(table, i, c_op));
        row_key(key, sizeof key, device, name, strlen(name));
        snprintf(typed, sizeof typed, "%s|%s", key,
                 json_string_value(oracle_cell(table, i, c_type)));
        oracle_add(out, typed, json_number_value(oracle_cell(table, i, c_occ)),
                   json_number_value(oracle_cell(table, i, c_total)),
                   json_number_value(oracle_cell(table, i, c_self)));
    }
}

static pv_model *run(const char *rel, pv_arena *a, pv_op_stats_result *r)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.xplane.pb", PV_TESTDATA, rel);
    pv_model *m = oracle_load_xplane(path);
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_op_stats(m, NULL, a, r, &err), 0);
    return m;
}

START_TEST(test_pv_tool_op_stats_vs_tf_gpu)
{
    PV_NEED_TESTDATA("test_pv_tool_op_stats_vs_tf_gpu");
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_op_stats_result r;
    pv_model *m = run(GCP, &a, &r);
    const char *tsv = PV_SRCDIR "/tests/data/op_stats/tf_keras_gpu_gcp.tf_stats.tsv";
    oracle_set got = {0}, want = {0};
    our_rows(&r, SIDE_DEVICE, true, false, &got);
    tf_rows(tsv, SIDE_DEVICE, true, &want);
    ck_assert_uint_eq(want.n, 80);   /* the file's device rows, by hand */
    oracle_compare(&got, &want, false, false, "device vs TF tensorflow_stats.pb");
    oracle_free(&got);
    oracle_free(&want);
    our_rows(&r, SIDE_HOST, false, false, &got);
    tf_rows(tsv, SIDE_HOST, false, &want);
    ck_assert_uint_eq(want.n, 18);
    oracle_compare(&got, &want, true, true, "host vs TF tensorflow_stats.pb (subset)");
    oracle_free(&got);
    oracle_free(&want);
    ck_assert_str_eq(r.task_type, "Training");
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_op_stats_vs_tf_cpu)
{
    PV_NEED_TESTDATA("test_pv_tool_op_stats_vs_tf_cpu");
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_op_stats_result r;
    pv_model *m = run(MAC, &a, &r);
    oracle_set got = {0}, want = {0};
    our_rows(&r, SIDE_BOTH, true, false, &got);
    tf_rows(PV_SRCDIR "/tests/data/op_stats/tf_keras_cpu_macos.tf_stats.tsv", SIDE_BOTH, true,
            &want);
    ck_assert_uint_eq(want.n, 84);
    oracle_compare(&got, &want, false, false, "CPU vs TF tensorflow_stats.pb");
    ck_assert(!r.is_gpu);
    oracle_free(&got);
    oracle_free(&want);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_op_stats_vs_xprof)
{
    PV_NEED_TESTDATA("test_pv_tool_op_stats_vs_xprof");
    static const struct {
        const char *xplane;  /* under ../shared/testdata */
        bool device_is_idle; /* XProf found no device op: compare the device total */
        bool device_rows;    /* compare device rows as a set */
    } cases[] = {
        {GCP, true, false},
        {MAC, false, true},
        {"logdirs/tf2_gpu_multi_worker/plugins/profile/GPU-multi-worker/34.83.195.179_6003", true,
         false},
        {"logdirs/jax_rocm_mi300/plugins/profile/jax08_gemm/tw003", false, true},
        {"logdirs/jax_rocm_mi300/plugins/profile/jax08_elementwise/tw003", false, true},
        {"logdirs/jax_rocm_mi300/plugins/profile/jax_conv_minimal_08/tw003", false, true},
        {"logdirs/jax_rocm_mi300/plugins/profile/jax_conv_minimal_legacy/"
         "chi-mi300x-013.ord.vultr.cpe.ice.amd.com", false, true},
    };
    char golden[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pv_arena a;
        pv_arena_init(&a, 1 << 16);
        pv_op_stats_result r;
        pv_model *m = run(cases[i].xplane, &a, &r);
        snprintf(golden, sizeof golden, "%s%s.framework_op_stats.json.gz", GOLDEN,
                 cases[i].xplane);
        json_t *g = oracle_load_gz_json(golden);
        ck_assert_ptr_nonnull(g);
        json_t *t = json_array_get(g, 0);
        int sides = SIDE_HOST | (cases[i].device_rows ? SIDE_DEVICE : 0);
        oracle_set got = {0}, want = {0};
        our_rows(&r, sides, true, true, &got);
        golden_rows(t, sides, &want);
        oracle_compare(&got, &want, false, false, golden);
        oracle_free(&got);
        oracle_free(&want);
        if (cases[i].device_is_idle) {
            golden_rows(t, SIDE_DEVICE, &want);
            ck_assert_uint_eq(want.n, 1);
            double ours_total = (double)r.device.total_time_ps / 1e6;
            ck_assert_msg(oracle_close(ours_total, want.rows[0].total),
                          "%s: device time %.3f us here, %.3f us there", golden, ours_total,
                          want.rows[0].total);
            oracle_free(&want);
        }
        json_t *p = json_object_get(t, "p");
        if (cases[i].device_rows)
            ck_assert_str_eq(r.task_type, json_string_value(json_object_get(p, "task_type")));
        json_decref(g);
        pv_arena_fini(&a);
        pv_model_free(m);
    }
}
END_TEST

#define ROCM_GEMM "logdirs/jax_rocm_mi300/plugins/profile/jax08_gemm/tw003"
#define TPU_2 "logdirs/jax_tpu_v6e_inference/plugins/profile/tpu_inference/tpu_inference_2"

/* A device row of jax08_gemm, ours and XProf's. */
typedef struct dot_rows {
    pv_model *m;                 /* ours, to free */
    const pv_op_stats_row *ours;
    json_t *golden;              /* XProf's answer, to release */
    json_t *table;               /* its table with IDLE */
    size_t ref;                  /* the row in it */
} dot_rows;

static dot_rows rocm_row(pv_arena *a, pv_op_stats_result *r, const char *op)
{
    dot_rows d = {run(ROCM_GEMM, a, r), NULL, NULL, NULL, 0};
    for (size_t i = 0; i < r->with_idle.n_rows && d.ours == NULL; i++) {
        const pv_op_stats_row *row = &r->with_idle.rows[i];
        if (row->on_device && strcmp(row->op->name, op) == 0)
            d.ours = row;
    }
    ck_assert_ptr_nonnull(d.ours);
    d.golden = oracle_load_gz_json(GOLDEN ROCM_GEMM ".framework_op_stats.json.gz");
    d.table = json_array_get(d.golden, 0);
    int i = oracle_find_row(d.table, "host_or_device", "Device", "operation", op);
    ck_assert_int_ge(i, 0);
    d.ref = (size_t)i;
    return d;
}

static dot_rows rocm_dot(pv_arena *a, pv_op_stats_result *r)
{
    return rocm_row(a, r, "jit(dot)/dot_general");
}

static json_t *ref_cell(const dot_rows *d, const char *col)
{
    return oracle_cell(d->table, d->ref, oracle_col(d->table, col));
}

/* XProf's roofline columns for an XLA op come from the HLO cost data:
 * the broadcast_in_dim and copy rows of jax08_gemm have XProf's FLOP rate,
 * bandwidth, intensity and "HBM" bound. (The cuBLAS dot_general's flops
 * are a named cost-model difference: compare_rules.c GEMM_COST.) */
START_TEST(test_pv_tool_op_stats_rocm_roofline)
{
    PV_NEED_TESTDATA("test_pv_tool_op_stats_rocm_roofline");
    static const char *const ops[] = {"jit(broadcast_in_dim)/broadcast_in_dim", "copy.1"};
    static const char *const cols[] = {"measured_flop_rate", "model_flop_rate",
                                       "measured_memory_bw", "operational_intensity"};
    for (size_t k = 0; k < 2; k++) {
        pv_arena a;
        pv_arena_init(&a, 1 << 16);
        pv_op_stats_result r;
        dot_rows d = rocm_row(&a, &r, ops[k]);
        const double ours[] = {d.ours->measured_flop_rate, d.ours->model_flop_rate,
                               d.ours->measured_memory_bw, d.ours->operational_intensity};
        for (size_t i = 0; i < 4; i++) {
            double want = json_number_value(ref_cell(&d, cols[i]));
            ck_assert_msg(oracle_close(ours[i], want), "%s %s: %.6g here, %.6g in XProf", ops[k],
                          cols[i], ours[i], want);
        }
        ck_assert_str_eq(d.ours->bound_by, json_string_value(ref_cell(&d, "bound_by")));
        ck_assert_str_eq(d.ours->bound_by, "HBM");
        ck_assert(d.ours->measured_memory_bw > 0);
        json_decref(d.golden);
        pv_arena_fini(&a);
        pv_model_free(d.m);
    }
}
END_TEST
/* XProf counts the ROCm matrix-core kernels of that op as TensorCore time
 * (utilization 1), and so does profview. */
START_TEST(test_pv_tool_op_stats_rocm_tensor_core_utilization)
{
    PV_NEED_TESTDATA("test_pv_tool_op_stats_rocm_tensor_core_utilization");
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_op_stats_result r;
    dot_rows d = rocm_dot(&a, &r);
    ck_assert_double_eq(json_number_value(ref_cell(&d, "gpu_tensorcore_utilization")), 1.0);
    ck_assert_double_eq_tol(d.ours->gpu_tensorcore_utilization, 1.0, 1e-9);
    json_decref(d.golden);
    pv_arena_fini(&a);
    pv_model_free(d.m);
}
END_TEST

/* XProf reads a TPU's XLA ops into its device table (15 ops besides IDLE
 * on tpu_inference_2); profview's device side is the same 15 ops, and
 * op_profile, which XProf's TPU tip names, computes. */
START_TEST(test_pv_tool_op_stats_tpu_device_ops)
{
    PV_NEED_TESTDATA("test_pv_tool_op_stats_tpu_device_ops");
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_op_stats_result r;
    pv_model *m = run(TPU_2, &a, &r);
    json_t *g = oracle_load_gz_json(GOLDEN TPU_2 ".framework_op_stats.json.gz");
    json_t *t = json_array_get(g, 1);   /* without IDLE */
    oracle_set got = {0}, want = {0};
    our_rows(&r, SIDE_DEVICE, false, true, &got);
    golden_rows(t, SIDE_DEVICE, &want);
    ck_assert_uint_eq(want.n, 15);
    oracle_compare(&got, &want, false, false, GOLDEN TPU_2);
    oracle_free(&got);
    oracle_free(&want);
    const pv_tool *op_profile = pv_tool_find("op_profile");
    ck_assert(op_profile != NULL && op_profile->compute != NULL);
    json_decref(g);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* The legacy converter against protoc's decoding of the same
 * tensorflow_stats.pb (the TSV files): the same rows, values as written. */
START_TEST(test_pv_legacy_op_stats_vs_protoc)
{
    PV_NEED_TESTDATA("test_pv_legacy_op_stats_vs_protoc");
    static const char *const cases[][2] = {
        {GCP, "tf_keras_gpu_gcp"},
        {MAC, "tf_keras_cpu_macos"},
    };
    for (size_t i = 0; i < 2; i++) {
        char path[1024], tsv[1024];
        snprintf(path, sizeof path, "%s/%s.tensorflow_stats.pb", PV_TESTDATA, cases[i][0]);
        snprintf(tsv, sizeof tsv, "%s/tests/data/op_stats/%s.tf_stats.tsv", PV_SRCDIR,
                 cases[i][1]);
        size_t len;
        uint8_t *data = pv_test_read_file(path, &len);
        pv_arena a;
        pv_arena_init(&a, 1 << 16);
        pv_op_stats_result r;
        pv_error err = {0};
        ck_assert_int_eq(pv_legacy_op_stats(data, len, path, &a, &r, &err), 0);
        oracle_set got = {0}, want = {0};
        /* Keys as written (no re-parsing: both sides are TF's own names). */
        char key[8192];
        for (size_t k = 0; k < r.with_idle.n_rows; k++) {
            const pv_op_stats_row *row = &r.with_idle.rows[k];
            snprintf(key, sizeof key, "%s|%s", row->on_device ? "Device" : "Host",
                     row->op->name);
            oracle_add(&got, key, (double)row->op->occurrences, row->total_time_us,
                       row->total_self_time_us);
        }
        FILE *f = fopen(tsv, "r");
        char line[8192];
        while (fgets(line, sizeof line, f) != NULL) {
            char *fld[6];
            if (line[0] == '#' || oracle_split_tsv(line, fld, 6) != 6)
                continue;
            snprintf(key, sizeof key, "%s|%s", fld[0], fld[2]);
            oracle_add(&want, key, atof(fld[3]), atof(fld[4]), atof(fld[5]));
        }
        fclose(f);
        oracle_compare(&got, &want, false, false, path);
        ck_assert_uint_eq(r.with_idle.rows[0].rank, 1);
        size_t idle = 0;
        for (size_t k = 0; k < r.with_idle.n_rows; k++)
            idle += r.with_idle.rows[k].op->is_idle;
        ck_assert_uint_eq(idle, i == 0 ? 2 : 1);   /* device and host; host only */
        ck_assert_uint_eq(r.without_idle.n_rows + idle, r.with_idle.n_rows);
        oracle_free(&got);
        oracle_free(&want);
        /* Cut short anywhere inside, it is refused, never read past. */
        ck_assert_int_eq(pv_legacy_op_stats(data, len - 7, path, &a, &r, &err), PV_EFORMAT);
        pv_arena_fini(&a);
        free(data);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("op_stats_real");
    TCase *tc = tcase_create("pv_tool_op_stats");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pv_tool_op_stats_vs_tf_gpu);
    tcase_add_test(tc, test_pv_tool_op_stats_vs_tf_cpu);
    tcase_add_test(tc, test_pv_tool_op_stats_vs_xprof);
    tcase_add_test(tc, test_pv_legacy_op_stats_vs_protoc);
    tcase_add_test(tc, test_pv_tool_op_stats_rocm_roofline);
    tcase_add_test(tc, test_pv_tool_op_stats_rocm_tensor_core_utilization);
    tcase_add_test(tc, test_pv_tool_op_stats_tpu_device_ops);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
