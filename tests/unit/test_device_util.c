/* Tests of tools/device_util on the hand-built GPU profile of
 * gpu_fixture.h. Worked out by hand from its table (times in us):
 *
 *   Stream #1  [1,11] [20,24] [30,36] [40,41.5] [42,42.0005] [43,46]
 *   Stream #2  [5,7.5] [10,11] [12,19] [50,51] [53,54]
 *   union      [1,11] [12,19] [20,24] [30,36] [40,41.5] [42,42.0005]
 *              [43,46] [50,51] [53,54]: 33.5005 us busy
 *   window     [1, 54]: 53 us, so the mean is 63.2085 % (to four places)
 *   gaps       1, 1, 6, 4, 0.5, ~1, 4, 2 us; 1 % of the window is 0.53 us,
 *              so seven count; the longest are 6 (at 23), 4 (35), 4 (45).
 * The derived "TensorFlow Ops" line's [40,49] is not the device's work. */
#include "gpu_fixture.h"
#include "testutil.h"
#include "tools/device_util/device_util.h"

#define US 1000000LL

static pv_device_util_result run(const pv_model *m, pv_arena *a, uint32_t buckets)
{
    pv_device_util_query q = {buckets};
    pv_device_util_result r;
    ck_assert_int_eq(pv_tool_device_util(m, &q, a, &r, NULL), 0);
    return r;
}

START_TEST(test_pv_tool_device_util_union)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_device_util_result r = run(m, &a, 53);
    ck_assert_uint_eq(r.n_devices, 1);
    ck_assert_str_eq(r.devices[0].name, "/device:GPU:0");
    ck_assert_int_eq(r.window_start_ps, 1 * US);
    ck_assert_int_eq(r.window_ps, 53 * US);
    ck_assert_int_eq(r.devices[0].busy_ps, 33 * US + US / 2 + 500);
    ck_assert_double_eq_tol(r.devices[0].mean_percent, 100.0 * 33.5005 / 53, 1e-9);
    ck_assert_double_eq_tol(r.mean_percent, r.devices[0].mean_percent, 1e-12);
    /* 53 buckets of 1 us: [1,2] busy, [11,12] idle, [41,42] half busy, [42,43] 0.0005 us of 1. */
    ck_assert_double_eq_tol(r.devices[0].busy_percent[0], 100, 1e-9);
    ck_assert_double_eq_tol(r.devices[0].busy_percent[10], 0, 1e-9);
    ck_assert_double_eq_tol(r.devices[0].busy_percent[40], 50, 1e-9);
    ck_assert_double_eq_tol(r.devices[0].busy_percent[41], 0.05, 1e-9);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_device_util_gaps)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_device_util_result r = run(m, &a, 10);
    const pv_device_util *d = &r.devices[0];
    ck_assert_uint_eq(d->n_gaps, 7);
    ck_assert_uint_eq(d->n_longest, PV_DEVICE_UTIL_GAPS);
    ck_assert_int_eq(d->longest[0].start_ps, 23 * US);
    ck_assert_int_eq(d->longest[0].dur_ps, 6 * US);
    ck_assert_int_eq(d->longest[1].dur_ps, 4 * US);
    ck_assert_int_eq(d->longest[2].dur_ps, 4 * US);
    ck_assert_int_eq(d->longest[3].dur_ps, 2 * US);
    ck_assert_int_eq(d->longest[3].start_ps, 50 * US);
    /* The buckets add up to the busy time whatever their count. */
    double sum = 0;
    for (uint32_t b = 0; b < r.n_buckets; b++)
        sum += d->busy_percent[b] *
               (double)(pv_device_util_edge_ps(&r, b + 1) - pv_device_util_edge_ps(&r, b));
    ck_assert_double_eq_tol(sum / 100, (double)d->busy_ps, 1);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_device_util_cpu_only)
{
    pv_model *m = fx_cpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_device_util_result r = run(m, &a, 0);
    ck_assert_uint_eq(r.n_devices, 0);
    ck_assert_int_eq(r.window_ps, 0);
    json_t *j = pv_device_util_to_json(&r);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "devices")), 0);
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_device_util_to_json_shape)
{
    pv_model *m = fx_gpu_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_device_util_result r = run(m, &a, 53);
    json_t *j = pv_device_util_to_json(&r);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "window_ps")), 53 * US);
    /* The host event at 0 is time 0 of the trace; the window starts 1 us later. */
    ck_assert_int_eq(json_integer_value(json_object_get(j, "window_start_ps")), 1 * US);
    json_t *d = json_array_get(json_object_get(j, "devices"), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(d, "busy_percent")), 53);
    ck_assert_double_eq_tol(json_real_value(json_object_get(d, "mean_percent")), 63.2085,
                            1e-9);
    ck_assert_int_eq(json_integer_value(json_object_get(d, "idle_gaps")), 7);
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("device_util");
    TCase *tc = tcase_create("pv_tool_device_util");
    tcase_add_test(tc, test_pv_tool_device_util_union);
    tcase_add_test(tc, test_pv_tool_device_util_gaps);
    tcase_add_test(tc, test_pv_tool_device_util_cpu_only);
    suite_add_tcase(s, tc);
    TCase *tj = tcase_create("pv_device_util_to_json");
    tcase_add_test(tj, test_pv_device_util_to_json_shape);
    suite_add_tcase(s, tj);
    return pv_test_run(s);
}
