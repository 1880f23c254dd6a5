/* Tests of tool_trace_cache: an index is built once per file identity,
 * shared while held, dropped least-recently-used when the budget needs
 * room (never while held), and coarse tiles are kept and copied out. */
#include "http/tool_trace_cache.h"
#include "model/builder.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static pv_model *small_model(int n)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t pl = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t tr = pv_builder_track(b, pl, 1, "t", 0);
    uint32_t meta = pv_builder_meta(b, pl, 1, "e", NULL);
    for (int i = 0; i < n; i++)
        pv_builder_event(b, tr, meta, (int64_t)i * 100, 50);
    pv_model *m = NULL;
    ck_assert_int_eq(pv_builder_finish(b, &m, NULL), 0);
    return m;
}

START_TEST(test_cache_get_shares_one_index)
{
    pv_model *m = small_model(100);
    pv_trace_cache *c = pv_trace_cache_new(0);
    pv_source src = {"/x/a.xplane.pb", 10, 1};
    const pv_trace_index *i1, *i2;
    pv_trace_hold *h1, *h2;
    ck_assert_int_eq(pv_trace_cache_get(c, &src, m, &i1, &h1, NULL), 0);
    ck_assert_int_eq(pv_trace_cache_get(c, &src, m, &i2, &h2, NULL), 0);
    ck_assert_ptr_eq(i1, i2);
    ck_assert_uint_eq(pv_trace_cache_bytes(c), i1->bytes);
    /* a changed file (new mtime) is a new index */
    pv_source changed = {"/x/a.xplane.pb", 10, 2};
    const pv_trace_index *i3;
    pv_trace_hold *h3;
    ck_assert_int_eq(pv_trace_cache_get(c, &changed, m, &i3, &h3, NULL), 0);
    ck_assert_ptr_ne(i1, i3);
    pv_trace_cache_put(c, h1);
    pv_trace_cache_put(c, h2);
    pv_trace_cache_put(c, h3);
    pv_trace_cache_free(c);
    pv_model_free(m);
}
END_TEST

START_TEST(test_cache_budget_evicts_unheld_only)
{
    pv_model *m = small_model(1000);
    pv_source a = {"/x/a.xplane.pb", 1, 1}, b = {"/x/b.xplane.pb", 1, 1};
    /* Measure one index, then allow a little more than one. */
    pv_trace_cache *probe = pv_trace_cache_new(0);
    const pv_trace_index *ix;
    pv_trace_hold *h;
    ck_assert_int_eq(pv_trace_cache_get(probe, &a, m, &ix, &h, NULL), 0);
    size_t one = ix->bytes;
    pv_trace_cache_put(probe, h);
    pv_trace_cache_free(probe);

    pv_trace_cache *c = pv_trace_cache_new(one + one / 2);
    const pv_trace_index *ia, *ib;
    pv_trace_hold *ha, *hb;
    ck_assert_int_eq(pv_trace_cache_get(c, &a, m, &ia, &ha, NULL), 0);
    /* a is held: b cannot evict it, so b is built for this request only */
    ck_assert_int_eq(pv_trace_cache_get(c, &b, m, &ib, &hb, NULL), 0);
    ck_assert_uint_eq(pv_trace_cache_bytes(c), one);
    pv_trace_cache_put(c, hb);
    pv_trace_cache_put(c, ha);
    /* a unheld: b evicts it and stays */
    ck_assert_int_eq(pv_trace_cache_get(c, &b, m, &ib, &hb, NULL), 0);
    ck_assert_uint_eq(pv_trace_cache_bytes(c), one);
    pv_trace_cache_put(c, hb);
    const pv_trace_index *ib2;
    ck_assert_int_eq(pv_trace_cache_get(c, &b, m, &ib2, &hb, NULL), 0);
    ck_assert_ptr_eq(ib, ib2);   /* b is the one kept */
    pv_trace_cache_put(c, hb);
    pv_trace_cache_free(c);
    pv_model_free(m);
}
END_TEST

START_TEST(test_cache_tiles)
{
    pv_model *m = small_model(10);
    pv_trace_cache *c = pv_trace_cache_new(0);
    pv_source src = {"/x/a.xplane.pb", 10, 1};
    const pv_trace_index *ix;
    pv_trace_hold *h;
    ck_assert_int_eq(pv_trace_cache_get(c, &src, m, &ix, &h, NULL), 0);
    char *gz;
    size_t len;
    ck_assert_int_eq(pv_trace_cache_tile_get(c, h, 3, 5, &gz, &len), PV_ENOTFOUND);
    pv_trace_cache_tile_put(c, h, 3, 5, "abc", 3);
    ck_assert_int_eq(pv_trace_cache_tile_get(c, h, 3, 5, &gz, &len), 0);
    ck_assert_uint_eq(len, 3);
    ck_assert(memcmp(gz, "abc", 3) == 0);
    free(gz);
    ck_assert_int_eq(pv_trace_cache_tile_get(c, h, 3, 4, &gz, &len), PV_ENOTFOUND);
    /* levels past the cached ones are not kept */
    pv_trace_cache_tile_put(c, h, PV_TRACE_CACHE_TILE_LEVELS, 0, "x", 1);
    ck_assert_int_eq(pv_trace_cache_tile_get(c, h, PV_TRACE_CACHE_TILE_LEVELS, 0, &gz, &len),
                     PV_ENOTFOUND);
    ck_assert_uint_eq(pv_trace_cache_bytes(c), ix->bytes + 3);
    pv_trace_cache_put(c, h);
    /* without a cache every request builds its own index, nothing is kept */
    ck_assert_int_eq(pv_trace_cache_get(NULL, &src, m, &ix, &h, NULL), 0);
    pv_trace_cache_tile_put(NULL, h, 0, 0, "abc", 3);
    ck_assert_int_eq(pv_trace_cache_tile_get(NULL, h, 0, 0, &gz, &len), PV_ENOTFOUND);
    pv_trace_cache_put(NULL, h);
    pv_trace_cache_free(c);
    pv_model_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace_cache");
    TCase *tc = tcase_create("pv_trace_cache_get");
    tcase_add_test(tc, test_cache_get_shares_one_index);
    tcase_add_test(tc, test_cache_budget_evicts_unheld_only);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_trace_cache_tile_get");
    tcase_add_test(tc, test_cache_tiles);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
