/* Unit tests of the memory profile's address map: put/find/erase by hand,
 * then a long random sequence checked against a plain array (the oracle)
 * with few distinct keys, so probe runs collide, wrap around the table and
 * lose entries from their middle. */
#include "tools/memory_profile/memory_profile_addrmap.h"
#include "testutil.h"

#include <stdlib.h>

START_TEST(test_pv__addrmap_put_find_erase)
{
    pv__addrmap h;
    pv__addrmap_init(&h, 4);
    ck_assert_uint_eq(h.cap, 16);   /* the smallest table */
    ck_assert_ptr_null(pv__addrmap_find(&h, 0));
    pv__addrmap_put(&h, 0, 7);      /* address 0 is a key like any other */
    pv__addrmap_put(&h, 256, 8);
    ck_assert_int_eq(*pv__addrmap_find(&h, 0), 7);
    pv__addrmap_put(&h, 0, 9);      /* replaces, does not add */
    ck_assert_uint_eq(h.n, 2);
    ck_assert_int_eq(*pv__addrmap_find(&h, 0), 9);
    ck_assert(pv__addrmap_erase(&h, 0));
    ck_assert(!pv__addrmap_erase(&h, 0));
    ck_assert_ptr_null(pv__addrmap_find(&h, 0));
    ck_assert_int_eq(*pv__addrmap_find(&h, 256), 8);
    ck_assert_uint_eq(h.n, 1);
    pv__addrmap_fini(&h);
    pv__addrmap_fini(&h);           /* a released map may be released again */
    ck_assert_ptr_null(pv__addrmap_find(&h, 256));
    ck_assert(!pv__addrmap_erase(&h, 256));
}
END_TEST

START_TEST(test_pv__addrmap_random_against_array)
{
    enum { KEYS = 24, OPS = 20000 };
    int64_t oracle[KEYS];
    bool present[KEYS] = {false};
    pv__addrmap h;
    pv__addrmap_init(&h, KEYS);
    uint64_t seed = 12345;
    for (int op = 0; op < OPS; op++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size_t k = (size_t)((seed >> 33) % KEYS);
        uint64_t key = (uint64_t)k << 8;   /* 256-byte aligned like allocator blocks */
        switch ((seed >> 20) % 3) {
        case 0:
            pv__addrmap_put(&h, key, op);
            oracle[k] = op;
            present[k] = true;
            break;
        case 1:
            ck_assert(pv__addrmap_erase(&h, key) == present[k]);
            present[k] = false;
            break;
        default:
            break;
        }
        /* plain comparisons, one assertion per step: Check records every
         * assertion it passes, which would dominate the run time */
        size_t n = 0;
        bool same = true;
        for (size_t i = 0; i < KEYS; i++) {
            int64_t *v = pv__addrmap_find(&h, (uint64_t)i << 8);
            same = same && present[i] == (v != NULL) && (v == NULL || *v == oracle[i]);
            n += present[i];
        }
        ck_assert_msg(same && h.n == n, "map and array differ after step %d", op);
    }
    pv__addrmap_fini(&h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("memory_profile_addrmap");
    TCase *tc = tcase_create("pv__addrmap");
    tcase_add_test(tc, test_pv__addrmap_put_find_erase);
    tcase_add_test(tc, test_pv__addrmap_random_against_array);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
