/* Tests of http/limit: slots for expensive answers. The expected outcomes
 * are the rules of limit.h, with times measured against the wait asked for. */
#include "util/limit.h"
#include "testutil.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

START_TEST(test_limit_take_and_give)
{
    pv_limit l;
    pv_limit_init(&l, 2);
    ck_assert(pv_limit_take(&l, 0));
    ck_assert(pv_limit_take(&l, 0));
    double t0 = now_ms();
    ck_assert(!pv_limit_take(&l, 60));
    ck_assert_double_ge(now_ms() - t0, 55.0);   /* it waited, then gave up */
    pv_limit_give(&l);
    ck_assert(pv_limit_take(&l, 0));
    pv_limit_give(&l);
    pv_limit_give(&l);
    ck_assert_uint_eq(l.busy, 0);
    pv_limit_fini(&l);
    /* No limit: 0 slots means any number; NULL gives one. */
    pv_limit_init(&l, 0);
    for (int i = 0; i < 100; i++)
        ck_assert(pv_limit_take(&l, 0));
    pv_limit_fini(&l);
    ck_assert(pv_limit_take(NULL, 0));
    pv_limit_give(NULL);
}
END_TEST

static void *give_later(void *arg)
{
    usleep(50000);
    pv_limit_give(arg);
    return NULL;
}

/* A waiter gets the slot as soon as it is given back: it asks to wait an
 * hour, far beyond the case's timeout, so only the give can end its wait. */
START_TEST(test_limit_waiter_wakes)
{
    pv_limit l;
    pv_limit_init(&l, 1);
    ck_assert(pv_limit_take(&l, 0));
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, give_later, &l), 0);
    ck_assert(pv_limit_take(&l, 3600u * 1000u));
    pthread_join(t, NULL);
    pv_limit_give(&l);
    pv_limit_fini(&l);
}
END_TEST

static Suite *limit_suite(void)
{
    Suite *s = suite_create("limit");
    TCase *tc = tcase_create("pv_limit");
    tcase_add_test(tc, test_limit_take_and_give);
    tcase_add_test(tc, test_limit_waiter_wakes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(limit_suite());
}
