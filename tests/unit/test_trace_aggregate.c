/* Tests of trace_aggregate (the sums of a box dragged over the timeline)
 * on one hand-built profile. Every expected value is worked out by hand
 * from the fixture below. */
#include "model/builder.h"
#include "model_fixture.h"
#include "tools/trace_tiles/trace_aggregate.h"
#include "testutil.h"

#include <jansson.h>
#include <string.h>

/* Times in ps.
 *   track A: step 1000+1000 { op 1100+200, op 1500+300 { k 1550+100 } },
 *            step 3000+500
 *   track B: op 1200+50
 *   track C: step 1000+5000 (a track the boxes below leave out) */
static pv_model *fixture(uint32_t *ta, uint32_t *tb)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 1, "/host:CPU");
    *ta = pv_builder_track(b, host, 10, "A", 0);
    *tb = pv_builder_track(b, host, 11, "B", 0);
    uint32_t tc = pv_builder_track(b, host, 12, "C", 0);
    uint32_t step = pv_builder_meta(b, host, 1, "step", NULL);
    uint32_t op = pv_builder_meta(b, host, 2, "op", NULL);
    uint32_t k = pv_builder_meta(b, host, 3, "k", NULL);
    pv_builder_event(b, *ta, step, 1000, 1000);
    pv_builder_event(b, *ta, op, 1100, 200);
    pv_builder_event(b, *ta, op, 1500, 300);
    pv_builder_event(b, *ta, k, 1550, 100);
    pv_builder_event(b, *ta, step, 3000, 500);
    pv_builder_event(b, *tb, op, 1200, 50);
    pv_builder_event(b, tc, step, 1000, 5000);
    return pv_test_finish(b);
}

static void check_row(const pv_trace_aggregate_row *r, const char *name,
                      uint64_t count, int64_t wall, int64_t self, int64_t min, int64_t max)
{
    ck_assert_str_eq(r->name, name);
    ck_assert_uint_eq(r->count, count);
    ck_assert_int_eq(r->wall_ps, wall);
    ck_assert_int_eq(r->self_ps, self);
    ck_assert_int_eq(r->min_ps, min);
    ck_assert_int_eq(r->max_ps, max);
}

START_TEST(test_trace_aggregate_nesting)
{
    uint32_t ta, tb;
    pv_model *m = fixture(&ta, &tb);
    pv_arena a;
    pv_arena_init(&a, 4096);
    /* Track A twice counts once. In [1000, 2000): the first step, both ops
     * and k on A, the op on B. step: self 1000 - 200 - 300 = 500; ops:
     * 200 + 300 + 50 wall, 200 + (300 - 100) + 50 = 450 self; k 100. */
    uint32_t tracks[] = {ta, tb, ta};
    pv_trace_aggregate_query q = {1000, 2000, 3, tracks};
    pv_trace_aggregate r;
    ck_assert_int_eq(pv_tool_trace_aggregate(m, NULL, &q, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.n_events, 5);
    ck_assert_uint_eq(r.n_rows, 3);
    check_row(&r.rows[0], "step", 1, 1000, 500, 1000, 1000);
    check_row(&r.rows[1], "op", 3, 550, 450, 50, 300);
    check_row(&r.rows[2], "k", 1, 100, 100, 100, 100);

    json_t *j = pv_trace_aggregate_to_json(&r);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "n_events")), 5);
    json_t *op = json_array_get(json_object_get(j, "rows"), 1);
    ck_assert_str_eq(json_string_value(json_object_get(op, "name")), "op");
    ck_assert_int_eq(json_integer_value(json_object_get(op, "self_ps")), 450);
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_trace_aggregate_window_edges)
{
    uint32_t ta, tb;
    pv_model *m = fixture(&ta, &tb);
    pv_arena a;
    pv_arena_init(&a, 4096);
    /* [1900, 3100) on A: the first step ends at 2000 (inside), the ops and
     * k ended by 1800, the second step starts at 3000 (inside). */
    uint32_t tracks[] = {ta};
    pv_trace_aggregate_query q = {1900, 3100, 1, tracks};
    pv_trace_aggregate r;
    ck_assert_int_eq(pv_tool_trace_aggregate(m, NULL, &q, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.n_rows, 1);
    check_row(&r.rows[0], "step", 2, 1500, 1000, 500, 1000);
    /* [2000, 3000) touches neither step: ends and starts are exclusive. */
    q = (pv_trace_aggregate_query){2000, 3000, 1, tracks};
    ck_assert_int_eq(pv_tool_trace_aggregate(m, NULL, &q, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.n_events, 0);
    ck_assert_uint_eq(r.n_rows, 0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_trace_aggregate_bad_query)
{
    uint32_t ta, tb;
    pv_model *m = fixture(&ta, &tb);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_aggregate r;
    pv_error err = {0};
    uint32_t tracks[] = {ta, 99};
    pv_trace_aggregate_query q = {1000, 1000, 1, tracks};
    ck_assert_int_eq(pv_tool_trace_aggregate(m, NULL, &q, &a, &r, &err), PV_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.reason, "window is empty"));
    q = (pv_trace_aggregate_query){1000, 2000, 2, tracks};
    ck_assert_int_eq(pv_tool_trace_aggregate(m, NULL, &q, &a, &r, &err), PV_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.reason, "track 99"));
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace_aggregate");
    TCase *tc = tcase_create("pv_tool_trace_aggregate");
    tcase_add_test(tc, test_trace_aggregate_nesting);
    tcase_add_test(tc, test_trace_aggregate_window_edges);
    tcase_add_test(tc, test_trace_aggregate_bad_query);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
