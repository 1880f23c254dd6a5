/* Unit test of util/sort.h's PV_MERGE_SORT against qsort: arrays of every
 * length up to 300 and a few long ones, of random keys with many
 * duplicates, already sorted, reversed; the merge sort must give qsort's
 * order and keep equal keys in their input order (stable). */
#include "util/sort.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

typedef struct item {
    uint32_t key;
    uint32_t pos;       /* input position: tells a stable sort's ties */
    uint64_t pad;       /* makes it 16 bytes, like the sorted structs */
} item;

static inline bool item_before(const item *a, const item *b)
{
    return a->key < b->key;
}

PV_MERGE_SORT(sort_items, item, item_before)

/* qsort's order for the same keys, ties by input position. */
static int item_cmp(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->pos < b->pos ? -1 : (a->pos > b->pos);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

/* Sorts n items made by kind (0 random with few distinct keys, 1 random,
 * 2 sorted, 3 reversed) both ways and compares. */
static void check(size_t n, int kind)
{
    item *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = kind == 0   ? pv_test_random(&rng) % 7
                     : kind == 1 ? pv_test_random(&rng)
                     : kind == 2 ? (uint32_t)i
                                 : (uint32_t)(n - i);
        a[i] = (item){k, (uint32_t)i, 0};
    }
    memcpy(b, a, n * sizeof *a);
    sort_items(a, n);
    pv_sort(b, n, sizeof *b, item_cmp);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(a[i].key == b[i].key && a[i].pos == b[i].pos,
                      "n %zu kind %d at %zu: key %u pos %u, want key %u pos %u", n, kind, i,
                      a[i].key, a[i].pos, b[i].key, b[i].pos);
    free(a);
    free(b);
}

START_TEST(test_merge_sort_matches_qsort)
{
    for (int kind = 0; kind < 4; kind++) {
        for (size_t n = 0; n <= 300; n++)
            check(n, kind);
        check(5000, kind);
        check(65537, kind);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sort");
    TCase *tc = tcase_create("merge sort");
    tcase_add_test(tc, test_merge_sort_matches_qsort);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
