/* Tests of tools/common/json_out.c's streamed values: every real and
 * string is written as jansson itself dumps the same value (the reference
 * here is jansson's own json_dumps of json_real / pv_dt_text), so an
 * answer streamed row by row is byte for byte the tree's dump. */
#include "testutil.h"

#include "tools/common/datatable.h"
#include "tools/common/json_out.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What pv_json_real / pv_json_text wrote for one value. */
static char *streamed(double d, const char *s)
{
    pv_buf b;
    pv_buf_init(&b, 1 << 20);
    pv__jw w;
    pv__jw_init(&w, &b);
    if (s != NULL)
        pv_json_text(&w, s);
    else
        pv_json_real(&w, d);
    pv_error err = {0};
    ck_assert_int_eq(pv_json_finish(&w, &err), 0);
    return pv_buf_take(&b, NULL);
}

/* jansson's dump of j (consumed). */
static char *jansson(json_t *j)
{
    ck_assert_ptr_nonnull(j);
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(j);
    ck_assert_ptr_nonnull(s);
    return s;
}

static void same_real(double d)
{
    char *ours = streamed(d, NULL), *ref = jansson(pv_dt_real(d));
    ck_assert_msg(strcmp(ours, ref) == 0, "%.17g: ours %s, jansson %s", d, ours, ref);
    free(ours);
    free(ref);
}

static void same_text(const char *s)
{
    char *ours = streamed(0, s), *ref = jansson(pv_dt_text(s));
    ck_assert_msg(strcmp(ours, ref) == 0, "ours %s, jansson %s", ours, ref);
    free(ours);
    free(ref);
}

START_TEST(reals_as_jansson)
{
    static const double cases[] = {
        0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1.0 / 3.0, 100.0, 1e5, 1e15, 1e16, 1e17, 1e21, 1e22,
        123456789012345678.0, 1e-4, 1e-5, 1.5e-7, 2.5e-300, 1e300, -7.25e-12, DBL_MAX,
        DBL_MIN, 4.9e-324, 12.34, 1234.5678, 0.30000000000000004,
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        same_real(cases[i]);
    /* a spread of magnitudes and digits, from a fixed seed */
    unsigned long long x = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double mant = (double)(x >> 11) / 9007199254740992.0;
        int e = (int)(x % 80) - 40;
        same_real((x & 1 ? -1 : 1) * mant * pow(10, e));
        same_real((double)(int64_t)(x % 100000));
    }
}
END_TEST

START_TEST(nonfinite_as_zero)
{
    char *s = streamed(NAN, NULL);
    ck_assert_str_eq(s, "0.0");
    free(s);
    s = streamed(-INFINITY, NULL);
    ck_assert_str_eq(s, "0.0");
    free(s);
}
END_TEST

START_TEST(texts_as_jansson)
{
    same_text("");
    same_text("plain");
    same_text("Step 12, duration: 1.00 ms\n-All others: 0.00 ms");
    same_text("quote \" and backslash \\ and slash /");
    same_text("\x01\x02\x08\x09\x0a\x0b\x0c\x0d\x1f\x7f end");
    same_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");   /* valid UTF-8 */
    same_text("bad \xc3 byte \xff and \"q\"\n");               /* not UTF-8: '?' */
    same_text("\xed\xa0\x80 surrogate");                       /* refused by both */
}
END_TEST

START_TEST(tree_and_cap)
{
    pv_buf b;
    pv_buf_init(&b, 16);
    pv__jw w;
    pv__jw_init(&w, &b);
    pv_json_tree(&w, json_pack("{s:i,s:[i]}", "b", 2, "a", 1));
    pv_error err = {0};
    ck_assert_int_eq(pv_json_finish(&w, &err), 0);
    ck_assert_str_eq(b.data, "{\"a\":[1],\"b\":2}");
    /* past the cap: one error at the end */
    pv__jw_init(&w, &b);
    pv_json_text(&w, "more than the sixteen bytes left");
    ck_assert_int_eq(pv_json_finish(&w, &err), PV_ETOOBIG);
    pv_buf_fini(&b);
    /* a tree that could not be built */
    pv_buf_init(&b, 1024);
    pv__jw_init(&w, &b);
    pv_json_tree(&w, NULL);
    ck_assert_int_eq(pv_json_finish(&w, &err), PV_ENOMEM);
    pv_buf_fini(&b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("json_out");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, reals_as_jansson);
    tcase_add_test(tc, nonfinite_as_zero);
    tcase_add_test(tc, texts_as_jansson);
    tcase_add_test(tc, tree_and_cap);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
