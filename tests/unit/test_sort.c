/* Unit test of util/sort.h's PV_MERGE_SORT against qsort: arrays of every
 * length up to 300 and a few long ones, of random keys with many
 * duplicates, already sorted, reversed; the merge sort must give qsort's
 * order and keep equal keys in their input order (stable). PV_HEAP, made
 * both ways, must pop the same arrays in qsort's order. */
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

/* Fills a with n items of kind: 0 random with few distinct keys, 1
 * random, 2 sorted, 3 reversed. */
static void make_items(item *a, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t k = kind == 0   ? pv_test_random(&rng) % 7
                     : kind == 1 ? pv_test_random(&rng)
                     : kind == 2 ? (uint32_t)i
                                 : (uint32_t)(n - i);
        a[i] = (item){k, (uint32_t)i, 0};
    }
}

/* Sorts n items of kind both ways and compares. */
static void check(size_t n, int kind)
{
    item *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    make_items(a, n, kind);
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

/* The heap orders by key, then by input position (so no two are equal),
 * with the positions' offset as its context. */
static inline bool heap_before(const uint32_t *base, const item *a, const item *b)
{
    return a->key != b->key ? a->key < b->key : a->pos + *base < b->pos + *base;
}

PV_HEAP(items, item, uint32_t, heap_before)

/* Heap-sorts n items of kind as check does (made by moving down, then
 * popped; pushed one by one, then popped) and compares with qsort. */
static void check_heap(size_t n, int kind)
{
    item *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    item *h = malloc((n ? n : 1) * sizeof *h);
    uint32_t base = 3;
    make_items(a, n, kind);
    memcpy(b, a, n * sizeof *a);
    pv_sort(b, n, sizeof *b, item_cmp);
    for (int built = 0; built < 2; built++) {
        size_t nh = 0;
        if (built) {
            memcpy(h, a, n * sizeof *a);
            nh = n;
            for (size_t i = nh / 2; i-- > 0;)
                items_down(&base, h, nh, i);
        } else {
            for (size_t i = 0; i < n; i++) {
                h[nh] = a[i];
                items_up(&base, h, nh++);
            }
        }
        for (size_t i = 0; i < n; i++) {
            ck_assert_msg(h[0].key == b[i].key && h[0].pos == b[i].pos,
                          "heap (%s) n %zu kind %d at %zu: key %u pos %u, want key %u pos %u",
                          built ? "made" : "pushed", n, kind, i, h[0].key, h[0].pos, b[i].key,
                          b[i].pos);
            h[0] = h[--nh];
            items_down(&base, h, nh, 0);
        }
    }
    free(a);
    free(b);
    free(h);
}

START_TEST(test_heap_pops_in_order)
{
    for (int kind = 0; kind < 4; kind++) {
        for (size_t n = 0; n <= 100; n++)
            check_heap(n, kind);
        check_heap(5000, kind);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sort");
    TCase *tc = tcase_create("merge sort");
    tcase_add_test(tc, test_merge_sort_matches_qsort);
    tcase_add_test(tc, test_heap_pops_in_order);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
