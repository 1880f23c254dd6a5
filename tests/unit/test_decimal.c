/* Unit test of util/decimal.h against snprintf("%lld"): the edges of the
 * int64 range, every power of ten and its neighbours, both signs. */
#include "util/decimal.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>

static void check(int64_t v)
{
    char want[32];
    snprintf(want, sizeof want, "%lld", (long long)v);
    char buf[PV_I64_TEXT_MAX + 4];
    memset(buf, 'x', sizeof buf);
    char *end = buf + 2 + PV_I64_TEXT_MAX;
    char *got = pv_fmt_i64(end, v);
    ck_assert_msg((size_t)(end - got) == strlen(want) && memcmp(got, want, strlen(want)) == 0,
                  "%s: got %.*s", want, (int)(end - got), got);
    ck_assert_int_eq(buf[0], 'x');   /* nothing written before the room given */
    ck_assert_int_eq(buf[1], 'x');
    ck_assert_int_eq(*end, 'x');     /* nor at end */
}

START_TEST(test_decimal_matches_printf)
{
    check(0);
    check(INT64_MAX);
    check(INT64_MIN);
    check(INT64_MIN + 1);
    for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10) {
        for (int64_t d = -1; d <= 1; d++) {
            check(p + d);
            check(-(p + d));
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("decimal");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, test_decimal_matches_printf);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
