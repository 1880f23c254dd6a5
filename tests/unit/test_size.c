/* Unit tests of util/size: sizes as the flags take them, with values
 * worked out by hand (1536 = 1.5 KiB, 3 GiB = 3 * 2^30), and what is
 * refused (a sign, a fraction, an unknown suffix, a value past SIZE_MAX)
 * leaving the output as it was. */
#include "testutil.h"
#include "util/size.h"

#include <stdint.h>

START_TEST(test_size_parse_suffixes)
{
    size_t v = 0;
    ck_assert_int_eq(pv_size_parse("0", &v), 0);
    ck_assert_uint_eq(v, 0);
    ck_assert_int_eq(pv_size_parse("1536", &v), 0);
    ck_assert_uint_eq(v, 1536);
    ck_assert_int_eq(pv_size_parse("2k", &v), 0);
    ck_assert_uint_eq(v, 2048);
    ck_assert_int_eq(pv_size_parse("512M", &v), 0);
    ck_assert_uint_eq(v, 536870912);
    ck_assert_int_eq(pv_size_parse("3GiB", &v), 0);
    ck_assert_uint_eq(v, 3221225472u);
    ck_assert_int_eq(pv_size_parse("4GB", &v), 0);
    ck_assert_uint_eq(v, 4294967296u);
}
END_TEST

START_TEST(test_size_parse_refuses)
{
    static const char *const bad[] = {"", "G", "-1", "1.5G", "4T", "4Gb", "4 G", "4G ",
                                      "99999999999999999999", "17179869184G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t v = 77;
        ck_assert_msg(pv_size_parse(bad[i], &v) == -1, "\"%s\" was taken", bad[i]);
        ck_assert_uint_eq(v, 77);
    }
}
END_TEST

START_TEST(test_size_default_budget_quarter)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    ck_assert_int_gt(pages, 0);
    ck_assert_uint_eq(pv_size_default_budget(), (size_t)pages * (size_t)page / 4);
}
END_TEST

static Suite *size_suite(void)
{
    Suite *s = suite_create("size");
    TCase *tc = tcase_create("pv_size_parse");
    tcase_add_test(tc, test_size_parse_suffixes);
    tcase_add_test(tc, test_size_parse_refuses);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_size_default_budget");
    tcase_add_test(tc, test_size_default_budget_quarter);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(size_suite());
}
