/* Tests of model/memo.h: a memo is made once per model and name, waited
 * for by concurrent askers, not kept when making it fails, given back
 * from a saved copy, and counted in the model's added bytes; packed
 * bytes read back within their bounds. The makers below count their
 * calls; every expected count follows from the rules. */
#include "model/builder.h"
#include "model/memo.h"
#include "model_fixture.h"
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pv_model *tiny_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 0);
    pv_builder_event(b, t, pv_builder_meta(b, p, 1, "a", NULL), 0, 10);
    return pv_test_finish(b);
}

typedef struct maker {
    atomic_int calls;
    int fail;            /* the error code to fail with, or 0 */
    long sleep_ms;       /* how long making takes */
    size_t len;          /* the memo's length; every byte is len & 0xff */
} maker;

static int make(const pv_model *m, void *arg, uint8_t **data, size_t *len, pv_error *err)
{
    (void)m;
    maker *k = arg;
    atomic_fetch_add(&k->calls, 1);
    if (k->sleep_ms > 0)
        nanosleep(&(struct timespec){0, k->sleep_ms * 1000000L}, NULL);
    if (k->fail != 0)
        return pv_error_set(err, k->fail, NULL, PV_NO_OFFSET, "made to fail");
    *data = malloc(k->len);
    memset(*data, (int)(k->len & 0xffu), k->len);
    *len = k->len;
    return 0;
}

START_TEST(test_memo_made_once)
{
    pv_model *m = tiny_model();
    ck_assert_uint_eq(pv_model_memo_count(m), 0);
    size_t before = pv_model_added_bytes(m);
    maker k = {.len = 100};
    const uint8_t *d1, *d2;
    size_t l1, l2;
    bool owned;
    ck_assert_int_eq(pv_model_memo(m, "x", make, &k, &d1, &l1, &owned, NULL), 0);
    ck_assert(!owned);
    ck_assert_int_eq(pv_model_memo(m, "x", make, &k, &d2, &l2, &owned, NULL), 0);
    ck_assert_int_eq(atomic_load(&k.calls), 1);
    ck_assert_ptr_eq(d1, d2);
    ck_assert_uint_eq(l2, 100);
    ck_assert_uint_eq(d2[99], 100);
    ck_assert_uint_eq(pv_model_memo_count(m), 1);
    const char *name;
    const uint8_t *d;
    size_t l;
    pv_model_memo_at(m, 0, &name, &d, &l);
    ck_assert_str_eq(name, "x");
    ck_assert_ptr_eq(d, d1);
    ck_assert_uint_eq(pv_model_added_bytes(m), before + 100);
    pv_model_free(m);
}
END_TEST

START_TEST(test_memo_failure_not_kept)
{
    pv_model *m = tiny_model();
    maker bad = {.fail = PV_EINVAL};
    const uint8_t *d;
    size_t l;
    bool owned;
    pv_error err = {0};
    ck_assert_int_eq(pv_model_memo(m, "x", make, &bad, &d, &l, &owned, &err), PV_EINVAL);
    ck_assert_str_eq(err.reason, "made to fail");
    ck_assert_uint_eq(pv_model_memo_count(m), 0);
    maker good = {.len = 8};
    ck_assert_int_eq(pv_model_memo(m, "x", make, &good, &d, &l, &owned, NULL), 0);
    ck_assert_int_eq(atomic_load(&good.calls), 1);
    ck_assert_uint_eq(l, 8);
    ck_assert_uint_eq(pv_model_memo_count(m), 1);
    pv_model_free(m);
}
END_TEST

typedef struct asker {
    pv_model *m;
    maker *k;
    const uint8_t *got;
} asker;

static void *ask(void *arg)
{
    asker *a = arg;
    size_t l;
    bool owned;
    ck_assert_int_eq(pv_model_memo(a->m, "slow", make, a->k, &a->got, &l, &owned, NULL), 0);
    return NULL;
}

/* Four askers at once while the first makes it for 50 ms: one making,
 * every one given the same bytes. */
START_TEST(test_memo_waiters_share_one)
{
    pv_model *m = tiny_model();
    maker k = {.len = 16, .sleep_ms = 50};
    asker a[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        a[i] = (asker){m, &k, NULL};
        ck_assert_int_eq(pthread_create(&th[i], NULL, ask, &a[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    ck_assert_int_eq(atomic_load(&k.calls), 1);
    for (int i = 1; i < 4; i++)
        ck_assert_ptr_eq(a[i].got, a[0].got);
    pv_model_free(m);
}
END_TEST

START_TEST(test_memo_given_back)
{
    pv_model *m = tiny_model();
    size_t before = pv_model_added_bytes(m);
    uint8_t *saved = malloc(5);
    memcpy(saved, "abcde", 5);
    pv_model_memo_give(m, "x", saved, 5);
    maker k = {.len = 100};
    const uint8_t *d;
    size_t l;
    bool owned;
    ck_assert_int_eq(pv_model_memo(m, "x", make, &k, &d, &l, &owned, NULL), 0);
    ck_assert_int_eq(atomic_load(&k.calls), 0);
    ck_assert_uint_eq(l, 5);
    ck_assert_int_eq(memcmp(d, "abcde", 5), 0);
    ck_assert_uint_eq(pv_model_added_bytes(m), before + 5);
    /* a second copy of the name replaces the first */
    uint8_t *again = malloc(3);
    memcpy(again, "xyz", 3);
    pv_model_memo_give(m, "x", again, 3);
    ck_assert_uint_eq(pv_model_memo_count(m), 1);
    ck_assert_uint_eq(pv_model_added_bytes(m), before + 3);
    pv_model_free(m);
}
END_TEST

/* With every slot taken, a new name is made for its asker alone. */
START_TEST(test_memo_full_hands_over)
{
    pv_model *m = tiny_model();
    maker k = {.len = 4};
    const uint8_t *d;
    size_t l;
    bool owned;
    char name[8];
    for (int i = 0; i < PV_MODEL_MEMOS_MAX; i++) {
        snprintf(name, sizeof name, "n%d", i);
        ck_assert_int_eq(pv_model_memo(m, name, make, &k, &d, &l, &owned, NULL), 0);
        ck_assert(!owned);
    }
    ck_assert_int_eq(pv_model_memo(m, "one more", make, &k, &d, &l, &owned, NULL), 0);
    ck_assert(owned);
    ck_assert_uint_eq(l, 4);
    free((void *)(uintptr_t)d);
    ck_assert_uint_eq(pv_model_memo_count(m), PV_MODEL_MEMOS_MAX);
    ck_assert_int_eq(atomic_load(&k.calls), PV_MODEL_MEMOS_MAX + 1);
    pv_model_free(m);
}
END_TEST

/* Packing and reading back by hand: a 4-byte head, two 2-byte records,
 * then the pool "ab\0c\0" (offsets 0 and 3). Every cut of the bytes
 * short of what the head promises is refused, not read past. */
START_TEST(test_memo_pack_read_by_hand)
{
    pv_memo_packer recs = {0}, pool = {0};
    uint32_t head = 2;
    pv_memo_put(&recs, &head, sizeof head);
    ck_assert_uint_eq(pv_memo_put_str(&pool, "ab"), 0);
    ck_assert_uint_eq(pv_memo_put_str(&pool, "c"), 3);
    uint16_t r0 = 3, r1 = 0;
    ck_assert_uint_eq(pv_memo_put(&recs, &r0, sizeof r0), 4);
    ck_assert_uint_eq(pv_memo_put(&recs, &r1, sizeof r1), 6);
    uint8_t *d;
    size_t len;
    pv_memo_pack_finish(&recs, &pool, &d, &len);
    ck_assert_uint_eq(len, 4 + 2 * 2 + 5);

    pv_arena a;
    pv_arena_init(&a, 256);
    uint32_t h = 0;
    pv_memo_reader r;
    ck_assert(pv_memo_read_head(d, len, &h, sizeof h));
    ck_assert_uint_eq(h, 2);
    ck_assert(pv_memo_read_recs(d, len, sizeof h, h, sizeof r0, &r));
    ck_assert_uint_eq(r.pool_len, 5);
    uint16_t x;
    pv_memo_read_rec(&r, 0, &x);
    ck_assert_str_eq(pv_memo_read_str(&r, x, &a), "c");
    pv_memo_read_rec(&r, 1, &x);
    ck_assert_str_eq(pv_memo_read_str(&r, x, &a), "ab");
    ck_assert_ptr_null(pv_memo_read_str(&r, 5, &a));   /* past the pool */

    ck_assert(!pv_memo_read_head(d, 3, &h, sizeof h));
    ck_assert(!pv_memo_read_recs(d, 7, sizeof h, 2, sizeof r0, &r));  /* a record cut */
    ck_assert(!pv_memo_read_recs(d, len, sizeof h, UINT64_MAX, sizeof r0, &r));
    /* Cut inside the pool: "c" no longer ends in it. */
    ck_assert(pv_memo_read_recs(d, len - 1, sizeof h, 2, sizeof r0, &r));
    ck_assert_ptr_null(pv_memo_read_str(&r, 3, &a));
    ck_assert_str_eq(pv_memo_read_str(&r, 0, &a), "ab");
    pv_arena_fini(&a);
    free(d);
}
END_TEST

static Suite *memo_suite(void)
{
    Suite *s = suite_create("memo");
    TCase *tc = tcase_create("pv_model_memo");
    tcase_add_test(tc, test_memo_made_once);
    tcase_add_test(tc, test_memo_failure_not_kept);
    tcase_add_test(tc, test_memo_waiters_share_one);
    tcase_add_test(tc, test_memo_given_back);
    tcase_add_test(tc, test_memo_full_hands_over);
    tcase_add_test(tc, test_memo_pack_read_by_hand);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(memo_suite());
}
