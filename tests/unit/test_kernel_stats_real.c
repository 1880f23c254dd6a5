/* kernel_stats on real profiles, against two independent oracles:
 *
 *  - kernel_stats.pb, which TensorFlow (2.10 era) itself converted from the
 *    same xplane when it wrote tf_keras_gpu_gcp (extracted to
 *    tests/data/kernel_stats/<profile>.tf_kernel_stats.tsv by
 *    tools/reference/oracles/extract_tf_oracles.py);
 *  - XProf 2.24.2's /data answer (tests/data/reference/shared_golden).
 *
 * Intended differences, and how the comparison allows for them:
 *  - That TF release did not parse this profile's kernel_details
 *    ("regs:16 shm:0 grid:..."): all its rows have registers 0 and grid and
 *    block 1,1,1, so its rows are keyed by (kernel, op) only. Ours are
 *    compared after summing them per (kernel, op).
 *  - TF 2.10's op-name pattern did not allow '-', so it left
 *    "...-LayoutOptimizer:Transpose" unsplit; today's rule (FORMATS §3.6)
 *    splits it. TF's names containing ':' are re-parsed before comparing.
 *  - This old profile has no `tf_op` stat on kernels, only the `level 0`
 *    annotation; profview (like TF then) takes the op from it, XProf today
 *    leaves the op empty and so also marks no op TensorCore-eligible.
 *    XProf also ignores the old "shm:" key. Against XProf, rows are
 *    therefore summed per (kernel, registers, block, grid).
 *  - For XLA kernels both name the op from the HLO proto's metadata, so on
 *    the JAX profiles the op name is part of the key. XProf 2.24.2 also
 *    marks ROCm matrix-core kernels (Cijk_..._MI16x16x16) as using Tensor
 *    Cores and JAX convolutions as eligible, by rules that are neither in
 *    FORMATS.md nor in today's xprof source; the flags are not compared. */
#include "stats_oracle.h"
#include "tools/kernel_stats/kernel_stats.h"
#include "ingest/tf_legacy/legacy_stats.h"
#include "tools/common/tf_op_name.h"

#include <stdio.h>

#define GCP "logdirs/tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12/instance-ecbm"
#define GOLDEN PV_SRCDIR "/tests/data/reference/shared_golden/"

static pv_kernel_stats_result ours(const pv_model *m, pv_arena *a)
{
    pv_kernel_stats_query q = {0};   /* every row: the oracles are summed */
    pv_kernel_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_kernel_stats(m, &q, a, &r, &err), 0);
    return r;
}

static void config_key(char *buf, size_t cap, const char *name, double regs, const char *block,
                       const char *grid, const char *op)
{
    snprintf(buf, cap, "%s|%.0f|%s|%s|%s", name, regs, block, grid, op != NULL ? op : "");
}

START_TEST(test_pv_tool_kernel_stats_vs_tf)
{
    PV_NEED_TESTDATA("test_pv_tool_kernel_stats_vs_tf");
    pv_model *m = oracle_load_xplane(pv_test_data_path("/" GCP ".xplane.pb"));
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_kernel_stats_result r = ours(m, &a);
    oracle_set got = {0}, want = {0};
    char key[8192];
    for (size_t i = 0; i < r.n_rows; i++) {
        snprintf(key, sizeof key, "%s|%s", r.rows[i].kernel_name, r.rows[i].op_name);
        oracle_add(&got, key, (double)r.rows[i].occurrences, (double)r.rows[i].total_ns, 0);
    }
    FILE *f = fopen(PV_SRCDIR "/tests/data/kernel_stats/tf_keras_gpu_gcp.tf_kernel_stats.tsv", "r");
    ck_assert_ptr_nonnull(f);
    char line[8192];
    while (fgets(line, sizeof line, f) != NULL) {
        if (line[0] == '#')
            continue;
        char *fld[6];
        ck_assert_uint_eq(oracle_split_tsv(line, fld, 6), 6);
        pv_tf_op op = {0, fld[1], strlen(fld[1]), "", 0};
        if (strchr(fld[1], ':') != NULL)
            pv_tf_op_parse(fld[1], strlen(fld[1]), &op);
        snprintf(key, sizeof key, "%s|%.*s", fld[0], (int)op.name_len, op.name);
        oracle_add(&want, key, atof(fld[2]), atof(fld[3]), 0);
    }
    fclose(f);
    ck_assert_uint_eq(want.n, 114);   /* the file's row count, by hand */
    oracle_compare(&got, &want, false, false, "kernel_stats vs TF kernel_stats.pb");
    oracle_free(&got);
    oracle_free(&want);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* Sums our rows and XProf's per (kernel, registers, block, grid, and the
 * op name when with_op) and compares; returns the number of XProf rows. */
static size_t compare_golden(const char *xplane, const char *golden, bool with_op)
{
    pv_model *m = oracle_load_xplane(xplane);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_kernel_stats_result r = ours(m, &a);
    json_t *g = oracle_load_gz_json(golden);
    ck_assert_ptr_nonnull(g);
    oracle_set got = {0}, want = {0};
    char key[8192];
    char block[48], grid[48];
    for (size_t i = 0; i < r.n_rows; i++) {
        const pv_kernel_row *k = &r.rows[i];
        snprintf(block, sizeof block, "%u,%u,%u", k->block[0], k->block[1], k->block[2]);
        snprintf(grid, sizeof grid, "%u,%u,%u", k->grid[0], k->grid[1], k->grid[2]);
        /* With the op, the TensorCore flags too: both follow from the
         * kernel and its op. */
        char op[4096];
        snprintf(op, sizeof op, "%s|using %d|eligible %d", k->op_name,
                 k->is_kernel_using_tensor_core, k->is_op_tensor_core_eligible);
        config_key(key, sizeof key, k->kernel_name, k->registers_per_thread, block, grid,
                   with_op ? op : NULL);
        oracle_add(&got, key, (double)k->occurrences, (double)k->total_ns / 1000.0, 0);
    }
    int c_name = oracle_col(g, "kernel_name"), c_regs = oracle_col(g, "registers_per_thread");
    int c_block = oracle_col(g, "block_dim"), c_grid = oracle_col(g, "grid_dim");
    int c_occ = oracle_col(g, "occurrences"), c_total = oracle_col(g, "total_duration_us");
    int c_op = oracle_col(g, "op_name");
    int c_using = oracle_col(g, "is_kernel_using_tensor_core");
    int c_eligible = oracle_col(g, "is_op_tensor_core_eligible");
    size_t n = json_array_size(json_object_get(g, "rows"));
    for (size_t i = 0; i < n; i++) {
        char op[4096];
        snprintf(op, sizeof op, "%s|using %d|eligible %d",
                 json_string_value(oracle_cell(g, i, c_op)),
                 json_is_true(oracle_cell(g, i, c_using)),
                 json_is_true(oracle_cell(g, i, c_eligible)));
        config_key(key, sizeof key, json_string_value(oracle_cell(g, i, c_name)),
                   json_number_value(oracle_cell(g, i, c_regs)),
                   json_string_value(oracle_cell(g, i, c_block)),
                   json_string_value(oracle_cell(g, i, c_grid)), with_op ? op : NULL);
        oracle_add(&want, key, json_number_value(oracle_cell(g, i, c_occ)),
                   json_number_value(oracle_cell(g, i, c_total)), 0);
    }
    oracle_compare(&got, &want, false, false, golden);
    oracle_free(&got);
    oracle_free(&want);
    json_decref(g);
    pv_arena_fini(&a);
    pv_model_free(m);
    return n;
}

START_TEST(test_pv_tool_kernel_stats_vs_xprof)
{
    PV_NEED_TESTDATA("test_pv_tool_kernel_stats_vs_xprof");
    static const struct {
        const char *xplane;   /* under ../shared/testdata */
        size_t golden_rows;   /* XProf's row count, read from the golden by hand */
        bool with_op;         /* op names comparable (see above) */
    } cases[] = {
        {GCP, 63, false},
        {"logdirs/tf_keras_cpu_macos/train/plugins/profile/2022_10_31_19_09_08/"
         "gaoyihaodeMacBook-Pro.local", 0, true},
        {"logdirs/tf2_gpu_multi_worker/plugins/profile/GPU-multi-worker/34.83.195.179_6003", 15,
         false},
        {"logdirs/jax_rocm_mi300/plugins/profile/jax08_gemm/tw003", 12, true},
        {"logdirs/jax_rocm_mi300/plugins/profile/jax08_elementwise/tw003", 8, true},
        {"logdirs/jax_rocm_mi300/plugins/profile/jax_conv_minimal_08/tw003", 8, true},
        {"logdirs/jax_rocm_mi300/plugins/profile/jax_conv_minimal_legacy/"
         "chi-mi300x-013.ord.vultr.cpe.ice.amd.com", 5, true},
    };
    char xplane[1024], golden[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(xplane, sizeof xplane, "%s/%s.xplane.pb", PV_TESTDATA, cases[i].xplane);
        snprintf(golden, sizeof golden, "%s%s.kernel_stats.json.gz", GOLDEN, cases[i].xplane);
        size_t n = compare_golden(xplane, golden, cases[i].with_op);
        ck_assert_uint_eq(n, cases[i].golden_rows);
    }
}
END_TEST

/* The GPU planes' vendor, which the page names the matrix units by: the
 * MI300X planes say "AMD" (their device_vendor stat: `strings` shows it);
 * the GCP file has no such stat, and a CPU profile no GPU plane. */
START_TEST(test_pv_tool_kernel_stats_vendor)
{
    PV_NEED_TESTDATA("test_pv_tool_kernel_stats_vendor");
    static const struct {
        const char *xplane;
        const char *vendor;
    } cases[] = {
        {"logdirs/jax_rocm_mi300/plugins/profile/jax08_gemm/tw003", "AMD"},
        {GCP, NULL},
        {"logdirs/tf_keras_cpu_macos/train/plugins/profile/2022_10_31_19_09_08/"
         "gaoyihaodeMacBook-Pro.local", NULL},
    };
    char xplane[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(xplane, sizeof xplane, "%s/%s.xplane.pb", PV_TESTDATA, cases[i].xplane);
        pv_model *m = oracle_load_xplane(xplane);
        pv_arena a;
        pv_arena_init(&a, 1 << 16);
        pv_kernel_stats_result r = ours(m, &a);
        if (cases[i].vendor == NULL)
            ck_assert_ptr_null(r.gpu_vendor);
        else
            ck_assert_str_eq(r.gpu_vendor, cases[i].vendor);
        pv_kernel_stats_result both;
        pv_kernel_stats_query q = {0};
        pv_kernel_stats_combine((pv_kernel_stats_result[]){{0}, r}, 2, &q, &a, &both);
        ck_assert_ptr_eq(both.gpu_vendor, r.gpu_vendor);
        pv_arena_fini(&a);
        pv_model_free(m);
    }
}
END_TEST

/* XProf marks XLA's GEMM fusion on ROCm as using the TensorCores (matrix
 * cores) and its dot op as eligible, and so does profview (all rows'
 * flags: test_pv_tool_kernel_stats_vs_xprof). */
START_TEST(test_pv_tool_kernel_stats_rocm_tensor_core)
{
    PV_NEED_TESTDATA("test_pv_tool_kernel_stats_rocm_tensor_core");
    const char *rel = "logdirs/jax_rocm_mi300/plugins/profile/jax08_gemm/tw003";
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.xplane.pb", PV_TESTDATA, rel);
    pv_model *m = oracle_load_xplane(path);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_kernel_stats_result r = ours(m, &a);
    snprintf(path, sizeof path, "%s%s.kernel_stats.json.gz", GOLDEN, rel);
    json_t *t = oracle_load_gz_json(path);
    const char *kernel = "gemm_fusion_dot_general_1.kd";
    int i = oracle_find_row(t, "kernel_name", kernel, NULL, NULL);
    ck_assert_int_ge(i, 0);
    size_t row = (size_t)i;
    ck_assert(json_is_true(oracle_cell(t, row, oracle_col(t, "is_kernel_using_tensor_core"))));
    ck_assert(json_is_true(oracle_cell(t, row, oracle_col(t, "is_op_tensor_core_eligible"))));
    size_t k = 0;
    while (k < r.n_rows && strcmp(r.rows[k].kernel_name, kernel) != 0)
        k++;
    ck_assert_uint_lt(k, r.n_rows);
    ck_assert(r.rows[k].is_kernel_using_tensor_core && r.rows[k].is_op_tensor_core_eligible);
    json_decref(t);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* The legacy converter against protoc's decoding of the same
 * kernel_stats.pb (the TSV file): every row, in TF's order. */
START_TEST(test_pv_legacy_kernel_stats_vs_protoc)
{
    PV_NEED_TESTDATA("test_pv_legacy_kernel_stats_vs_protoc");
    const char *path = pv_test_data_path("/" GCP ".kernel_stats.pb");
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static uint8_t data[1 << 20];
    size_t len = fread(data, 1, sizeof data, f);
    fclose(f);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_kernel_stats_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_legacy_kernel_stats(data, len, path, &a, &r, &err), 0);
    ck_assert_uint_eq(r.n_rows, 114);
    FILE *t = fopen(PV_SRCDIR "/tests/data/kernel_stats/tf_keras_gpu_gcp.tf_kernel_stats.tsv", "r");
    ck_assert_ptr_nonnull(t);
    char line[8192];
    size_t i = 0;
    while (fgets(line, sizeof line, t) != NULL) {
        char *fld[6];
        if (line[0] == '#' || oracle_split_tsv(line, fld, 6) != 6)
            continue;
        ck_assert_uint_lt(i, r.n_rows);
        const pv_kernel_row *k = &r.rows[i++];
        ck_assert_str_eq(k->kernel_name, fld[0]);
        ck_assert_str_eq(k->op_name, fld[1]);
        ck_assert_uint_eq(k->occurrences, strtoull(fld[2], NULL, 10));
        ck_assert_uint_eq(k->total_ns, strtoull(fld[3], NULL, 10));
        ck_assert_uint_eq(k->min_ns, strtoull(fld[4], NULL, 10));
        ck_assert_uint_eq(k->max_ns, strtoull(fld[5], NULL, 10));
        ck_assert_uint_eq(k->grid[2], 1);   /* TF wrote 1,1,1 (see above) */
    }
    fclose(t);
    ck_assert_uint_eq(i, 114);
    ck_assert_int_eq(pv_legacy_kernel_stats(data, len - 5, path, &a, &r, &err), PV_EFORMAT);
    /* TensorFlow writes an empty file for a CPU profile: an empty table. */
    ck_assert_int_eq(pv_legacy_kernel_stats(data, 0, path, &a, &r, &err), 0);
    ck_assert_uint_eq(r.n_rows, 0);
    pv_arena_fini(&a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel_stats_real");
    TCase *tc = tcase_create("pv_tool_kernel_stats");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pv_tool_kernel_stats_vs_tf);
    tcase_add_test(tc, test_pv_tool_kernel_stats_vs_xprof);
    tcase_add_test(tc, test_pv_tool_kernel_stats_vendor);
    tcase_add_test(tc, test_pv_legacy_kernel_stats_vs_protoc);
    tcase_add_test(tc, test_pv_tool_kernel_stats_rocm_tensor_core);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
