/* Unit test of util/quiet.h: when a wait returns. Only bounds that hold on
 * any machine are asserted: a wait that must last at least the gap (or its
 * budget) after the last request is measured against that lower bound; one
 * that must return at once is given a gap and a budget of days, so a wrong
 * one outlasts the case's timeout and fails it, however slow the machine. */
#include "util/quiet.h"
#include "testutil.h"

#include <pthread.h>

#define MS 1000000LL
#define LONG_NS (1000000000 * MS)

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* How long a wait on q took, with a budget of *budget (LONG_NS when NULL). */
static int64_t timed_wait(pv_quiet *q, int64_t *budget)
{
    int64_t mine = LONG_NS;
    int64_t t0 = mono_ns();
    pv_quiet_wait(q, budget != NULL ? budget : &mine);
    return mono_ns() - t0;
}

START_TEST(test_wait_without_requests_returns_at_once)
{
    int64_t budget = LONG_NS;
    pv_quiet_wait(NULL, &budget);
    pv_quiet q;
    pv_quiet_init(&q, LONG_NS);
    timed_wait(&q, NULL);
}
END_TEST

/* A request that ended just now keeps a wait for the gap. */
START_TEST(test_wait_lasts_the_gap_after_a_request)
{
    pv_quiet q;
    pv_quiet_init(&q, 60 * MS);
    pv_quiet_enter(&q);
    pv_quiet_leave(&q);
    int64_t budget = LONG_NS;
    int64_t took = timed_wait(&q, &budget);
    ck_assert_int_ge(took, 60 * MS);
    /* the budget went down by about what was waited */
    ck_assert_int_le(budget, LONG_NS - 60 * MS);
    ck_assert_int_ge(budget, LONG_NS - took);
    /* the gap has passed now: the next wait does not start another */
    timed_wait(&q, NULL);
}
END_TEST

typedef struct waiter {
    pv_quiet *q;
    atomic_bool done;
    int64_t left_ns;     /* when it returned */
} waiter;

static void *wait_main(void *arg)
{
    waiter *w = arg;
    int64_t budget = LONG_NS;
    pv_quiet_wait(w->q, &budget);
    w->left_ns = mono_ns();
    atomic_store(&w->done, true);
    return NULL;
}

/* Starts a wait on q, a request in flight, on a thread of its own, and
 * checks it has not returned after ms milliseconds. */
static pthread_t start_waiter(waiter *w, pv_quiet *q, long ms)
{
    *w = (waiter){q, false, 0};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, wait_main, w), 0);
    nanosleep(&(struct timespec){0, ms * MS}, NULL);
    ck_assert(!atomic_load(&w->done));
    return t;
}

/* A request in flight holds a wait however long it lasts (below max); the
 * wait ends a gap after the request does. */
START_TEST(test_wait_holds_while_a_request_runs)
{
    pv_quiet q;
    pv_quiet_init(&q, 40 * MS);
    pv_quiet_enter(&q);
    waiter w;
    pthread_t t = start_waiter(&w, &q, 300);
    int64_t ended = mono_ns();
    pv_quiet_leave(&q);
    pthread_join(t, NULL);
    ck_assert(atomic_load(&w.done));
    ck_assert_int_ge(w.left_ns - ended, 40 * MS);
}
END_TEST

/* A server busy for good still gets its writes done: the budget bounds
 * the waits together, and once spent a wait returns at once. */
START_TEST(test_waits_end_with_the_budget)
{
    pv_quiet q;
    pv_quiet_init(&q, LONG_NS);
    pv_quiet_enter(&q);
    int64_t budget = 80 * MS;
    int64_t took = timed_wait(&q, &budget);
    ck_assert_int_ge(took, 80 * MS);
    ck_assert_int_le(budget, 0);
    timed_wait(&q, &budget);
}
END_TEST

/* Once off, a wait returns at once even with a request in flight, and one
 * already waiting returns too. */
START_TEST(test_off_ends_waits)
{
    pv_quiet q;
    pv_quiet_init(&q, LONG_NS);
    pv_quiet_enter(&q);
    waiter w;
    pthread_t t = start_waiter(&w, &q, 100);
    pv_quiet_off(&q);
    pthread_join(t, NULL);
    timed_wait(&q, NULL);
}
END_TEST

static Suite *quiet_suite(void)
{
    Suite *s = suite_create("quiet");
    TCase *tc = tcase_create("wait");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_wait_without_requests_returns_at_once);
    tcase_add_test(tc, test_wait_lasts_the_gap_after_a_request);
    tcase_add_test(tc, test_wait_holds_while_a_request_runs);
    tcase_add_test(tc, test_waits_end_with_the_budget);
    tcase_add_test(tc, test_off_ends_waits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(quiet_suite());
}
