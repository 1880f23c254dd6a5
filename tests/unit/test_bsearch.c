/* Unit tests of util/bsearch.h's PV_LOWER_BOUND: hand-counted answers on a
 * small array with runs of equal keys, empty and one-element ranges and
 * sub-ranges, then random sorted arrays against a linear scan (the first
 * index not below the key) and against libc's qsort + bsearch (whether the
 * key is there), with both index widths the server uses. The test counts
 * its evaluations and checks they stay inside the range. */
#include "util/bsearch.h"
#include "util/sort.h"
#include "testutil.h"

#include <stdlib.h>

/* Records one test of index i: counts it and notes one outside [lo, hi). */
typedef struct tally {
    uint32_t lo, hi;
    int n;
    bool strayed;
} tally;

static bool counted(tally *t, uint32_t i)
{
    t->n++;
    t->strayed = t->strayed || i < t->lo || i >= t->hi;
    return true;
}

/* The lower bound of key in v[lo, hi) with uint32_t indices; the tests
 * the macro made in *n_tests. Fails on a test outside [lo, hi). */
static uint32_t lower32(const int *v, uint32_t lo, uint32_t hi, int key, int *n_tests)
{
    tally t = {lo, hi, 0, false};
    PV_LOWER_BOUND(uint32_t, lo, hi, i, counted(&t, i) && v[i] < key);
    ck_assert_msg(!t.strayed, "tested an index outside [%u, %u)", t.lo, t.hi);
    *n_tests = t.n;
    return lo;
}

/* The same with size_t indices. */
static size_t lower_size(const int *v, size_t lo, size_t hi, int key)
{
    PV_LOWER_BOUND(size_t, lo, hi, k, v[k] < key);
    return lo;
}

/* ---- by hand ----------------------------------------------------------- */

START_TEST(test_lower_bound_by_hand)
{
    const int v[5] = {1, 3, 3, 3, 7};
    const int key[8] = {0, 1, 2, 3, 4, 6, 7, 8};
    const uint32_t want[8] = {0, 0, 1, 1, 4, 4, 4, 5};
    int n;
    for (int k = 0; k < 8; k++) {
        ck_assert_uint_eq(lower32(v, 0, 5, key[k], &n), want[k]);
        ck_assert_int_le(n, 3);    /* floor(log2 5) + 1 */
        ck_assert_uint_eq(lower_size(v, 0, 5, key[k]), want[k]);
    }
}
END_TEST

START_TEST(test_lower_bound_empty_and_one)
{
    const int v[3] = {4, 5, 6};
    int n;
    ck_assert_uint_eq(lower32(v, 0, 0, 5, &n), 0);
    ck_assert_int_eq(n, 0);        /* an empty range tests nothing */
    ck_assert_uint_eq(lower32(v, 2, 2, 5, &n), 2);
    ck_assert_int_eq(n, 0);
    ck_assert_uint_eq(lower_size(NULL, 0, 0, 5), 0);   /* nothing read, so NULL is fine */
    ck_assert_uint_eq(lower32(v, 1, 2, 4, &n), 1);     /* {5}: 4 goes before it */
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(lower32(v, 1, 2, 5, &n), 1);
    ck_assert_uint_eq(lower32(v, 1, 2, 6, &n), 2);     /* after it: the range's end */
}
END_TEST

START_TEST(test_lower_bound_sub_range)
{
    /* v[2, 6) is {2, 4, 4, 8}; the values outside would mislead a search
     * that strayed out of the range */
    const int v[8] = {100, 100, 2, 4, 4, 8, -100, -100};
    int n;
    ck_assert_uint_eq(lower32(v, 2, 6, 1, &n), 2);
    ck_assert_uint_eq(lower32(v, 2, 6, 4, &n), 3);
    ck_assert_uint_eq(lower32(v, 2, 6, 5, &n), 5);
    ck_assert_uint_eq(lower32(v, 2, 6, 9, &n), 6);
    ck_assert_uint_eq(lower_size(v, 2, 6, 8), 5);
}
END_TEST

START_TEST(test_lower_bound_index_through_another_array)
{
    /* the shape of a depth's events: the sorted order is in idx, the
     * times in t (t[idx[i]] ascending) */
    const int t[6] = {50, 10, 40, 20, 60, 30};
    const uint32_t idx[6] = {1, 3, 5, 2, 0, 4};
    uint32_t lo = 0;
    PV_LOWER_BOUND(uint32_t, lo, 6u, i, t[idx[i]] < 35);
    ck_assert_uint_eq(lo, 3);      /* 10, 20, 30 come before 35 */
    lo = 0;
    PV_LOWER_BOUND(uint32_t, lo, 6u, i, t[idx[i]] < 61);
    ck_assert_uint_eq(lo, 6);
}
END_TEST

/* ---- random, against a linear scan and libc ------------------------------ */

static int cmp_int(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

START_TEST(test_lower_bound_random_against_scan_and_libc)
{
    enum { MAX_N = 200 };
    int v[MAX_N];
    for (uint32_t n = 0; n <= MAX_N; n++) {
        int spread = (int)(n / 2 + 1);     /* about two of each key */
        for (uint32_t i = 0; i < n; i++)
            v[i] = (int)(pv_test_random(&rng) % (uint32_t)spread) * 2;
        pv_sort(v, n, sizeof *v, cmp_int);
        int max_tests = 1;                 /* floor(log2 n) + 1 */
        while ((1u << max_tests) <= n)
            max_tests++;
        for (int key = -1; key <= 2 * spread + 1; key++) {
            uint32_t scan = 0;
            while (scan < n && v[scan] < key)
                scan++;
            int tests;
            uint32_t got = lower32(v, 0, n, key, &tests);
            ck_assert_msg(got == scan, "n %u key %d: %u, want %u", n, key, got, scan);
            ck_assert_int_le(tests, max_tests);
            ck_assert_uint_eq(lower_size(v, 0, n, key), scan);
            bool found = got < n && v[got] == key;
            bool libc = n > 0 && bsearch(&key, v, n, sizeof *v, cmp_int) != NULL;
            ck_assert_msg(found == libc, "n %u key %d: found %d, libc %d", n, key, found, libc);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bsearch");
    TCase *tc = tcase_create("PV_LOWER_BOUND");
    tcase_add_test(tc, test_lower_bound_by_hand);
    tcase_add_test(tc, test_lower_bound_empty_and_one);
    tcase_add_test(tc, test_lower_bound_sub_range);
    tcase_add_test(tc, test_lower_bound_index_through_another_array);
    tcase_add_test(tc, test_lower_bound_random_against_scan_and_libc);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
