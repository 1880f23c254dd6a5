/* Unit test of tools/common/op_replay: a thread counted by hand (a span
 * overlapping its parent without nesting, which loses the parent as the
 * reference does; a zero-length span; equal times), and random threads
 * against the reference's own way, written out here: every begin and end
 * stably sorted by time, replayed on a stack. */
#include "tools/common/op_replay.h"
#include "util/sort.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

typedef struct done_op {
    uint32_t key;
    bool eager;
    int64_t dur_ps, children_ps;
} done_op;

typedef struct done_list {
    done_op v[4096];
    size_t n;
    int stop_after;     /* > 0: done returns 7 at that call */
} done_list;

static int record(void *ctx, uint32_t key, bool eager, int64_t dur_ps, int64_t children_ps)
{
    done_list *d = ctx;
    ck_assert_uint_lt(d->n, sizeof d->v / sizeof d->v[0]);
    d->v[d->n++] = (done_op){key, eager, dur_ps, children_ps};
    return d->stop_after > 0 && (int)d->n == d->stop_after ? 7 : 0;
}

typedef struct span {
    uint32_t key;
    bool eager;
    int64_t begin_ps, end_ps;
} span;

START_TEST(test_op_replay_by_hand)
{
    /* A [0,100) holds B [10,50); C [20,60) starts inside B and ends after
     * it. B's end pops C, so C's end finds no begin and empties the stack:
     * A is lost. D [70,70) ends before E [70,90) begins. */
    static const span spans[] = {
        {1, false, 0, 100}, {2, true, 10, 50}, {3, false, 20, 60},
        {4, false, 70, 70}, {5, false, 70, 90},
    };
    done_list d = {.n = 0};
    pv_op_replay r;
    pv_op_replay_init(&r, record, &d);
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++)
        ck_assert_int_eq(pv_op_replay_add(&r, spans[i].key, spans[i].eager, spans[i].begin_ps,
                                          spans[i].end_ps), 0);
    int64_t span_ps = -1;
    ck_assert_int_eq(pv_op_replay_thread_end(&r, &span_ps), 0);
    ck_assert_int_eq(span_ps, 100);
    ck_assert_uint_eq(d.n, 3);
    ck_assert(d.v[0].key == 2 && d.v[0].eager && d.v[0].dur_ps == 40 && d.v[0].children_ps == 0);
    ck_assert(d.v[1].key == 4 && d.v[1].dur_ps == 0 && d.v[1].children_ps == 0);
    ck_assert(d.v[2].key == 5 && d.v[2].dur_ps == 20 && d.v[2].children_ps == 0);

    /* The next thread starts clean: a parent with two children, one of
     * them ending where the other begins; an end before its begin counts
     * as the begin. */
    d.n = 0;
    ck_assert_int_eq(pv_op_replay_add(&r, 10, false, 1000, 2000), 0);
    ck_assert_int_eq(pv_op_replay_add(&r, 11, false, 1100, 1300), 0);
    ck_assert_int_eq(pv_op_replay_add(&r, 12, false, 1300, 1250), 0);
    ck_assert_int_eq(pv_op_replay_thread_end(&r, &span_ps), 0);
    ck_assert_int_eq(span_ps, 1000);
    ck_assert_uint_eq(d.n, 3);
    ck_assert(d.v[0].key == 11 && d.v[0].dur_ps == 200);
    ck_assert(d.v[1].key == 12 && d.v[1].dur_ps == 0);
    ck_assert(d.v[2].key == 10 && d.v[2].dur_ps == 1000 && d.v[2].children_ps == 200);

    /* A thread without spans spans nothing. */
    ck_assert_int_eq(pv_op_replay_thread_end(&r, &span_ps), 0);
    ck_assert_int_eq(span_ps, 0);
    pv_op_replay_fini(&r);
}
END_TEST

START_TEST(test_op_replay_stops_when_told)
{
    done_list d = {.n = 0, .stop_after = 2};
    pv_op_replay r;
    pv_op_replay_init(&r, record, &d);
    ck_assert_int_eq(pv_op_replay_add(&r, 1, false, 0, 10), 0);
    ck_assert_int_eq(pv_op_replay_add(&r, 2, false, 20, 30), 0);
    /* the third begin ends the second span: done's 7 comes back */
    ck_assert_int_eq(pv_op_replay_add(&r, 3, false, 40, 50), 7);
    ck_assert_uint_eq(d.n, 2);
    pv_op_replay_fini(&r);
}
END_TEST

/* ---- the reference's way ------------------------------------------------- */

typedef struct activity {
    int64_t ts_ps;
    size_t order;       /* position added: the sort is stable */
    size_t span;
    bool begin;
} activity;

static int activity_cmp(const void *pa, const void *pb)
{
    const activity *a = pa, *b = pb;
    if (a->ts_ps != b->ts_ps)
        return a->ts_ps < b->ts_ps ? -1 : 1;
    return a->order < b->order ? -1 : (a->order > b->order);
}

typedef struct frame {
    size_t span;
    int64_t start_ps, children_ps;
} frame;

static int64_t reference(const span *s, size_t n, done_list *d)
{
    activity *acts = malloc(2 * n * sizeof *acts);
    frame *stack = malloc(n * sizeof *stack);
    for (size_t i = 0; i < n; i++) {
        acts[2 * i] = (activity){s[i].begin_ps, 2 * i, i, true};
        acts[2 * i + 1] = (activity){s[i].end_ps, 2 * i + 1, i, false};
    }
    pv_sort(acts, 2 * n, sizeof *acts, activity_cmp);
    size_t depth = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        const activity *a = &acts[i];
        if (a->begin) {
            stack[depth++] = (frame){a->span, a->ts_ps, 0};
            continue;
        }
        frame f = {0, 0, 0};
        bool found = false;
        while (depth > 0 && !found) {
            f = stack[--depth];
            found = f.span == a->span;
        }
        if (!found)
            continue;
        int64_t dur = a->ts_ps - f.start_ps;
        if (depth > 0)
            stack[depth - 1].children_ps += dur;
        (void)record(d, s[a->span].key, s[a->span].eager, dur, f.children_ps);
    }
    int64_t span_ps = n > 0 ? acts[2 * n - 1].ts_ps - acts[0].ts_ps : 0;
    free(acts);
    free(stack);
    return span_ps;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

START_TEST(test_op_replay_matches_the_sorted_replay)
{
    span *s = malloc(1500 * sizeof *s);
    done_list *want = malloc(sizeof *want), *got = malloc(sizeof *got);
    pv_op_replay r;
    pv_op_replay_init(&r, record, got);
    for (int round = 0; round < 400; round++) {
        /* Begins in order with many equal times; lengths from zero to
         * long, so spans nest, overlap and end together. */
        size_t n = pv_test_random(&rng) % 1500;
        uint32_t step = 1 + pv_test_random(&rng) % 20, len = 1 + pv_test_random(&rng) % 400;
        int64_t t = 0;
        for (size_t i = 0; i < n; i++) {
            t += pv_test_random(&rng) % step;
            int64_t l = pv_test_random(&rng) % 4 == 0 ? 0 : (int64_t)(pv_test_random(&rng) % len);
            s[i] = (span){(uint32_t)i, pv_test_random(&rng) % 2 == 0, t, t + l};
        }
        want->n = got->n = 0;
        want->stop_after = got->stop_after = 0;
        int64_t want_span = reference(s, n, want);
        for (size_t i = 0; i < n; i++)
            ck_assert_int_eq(pv_op_replay_add(&r, s[i].key, s[i].eager, s[i].begin_ps,
                                              s[i].end_ps), 0);
        int64_t got_span = -1;
        ck_assert_int_eq(pv_op_replay_thread_end(&r, &got_span), 0);
        ck_assert_int_eq(got_span, want_span);
        ck_assert_msg(got->n == want->n, "round %d: %zu ops, want %zu", round, got->n, want->n);
        for (size_t i = 0; i < want->n; i++)
            ck_assert_msg(got->v[i].key == want->v[i].key && got->v[i].eager == want->v[i].eager &&
                              got->v[i].dur_ps == want->v[i].dur_ps &&
                              got->v[i].children_ps == want->v[i].children_ps,
                          "round %d op %zu: key %u dur %lld children %lld, want key %u dur "
                          "%lld children %lld", round, i, got->v[i].key,
                          (long long)got->v[i].dur_ps, (long long)got->v[i].children_ps,
                          want->v[i].key, (long long)want->v[i].dur_ps,
                          (long long)want->v[i].children_ps);
    }
    pv_op_replay_fini(&r);
    free(s);
    free(want);
    free(got);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("op_replay");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_op_replay_by_hand);
    tcase_add_test(tc, test_op_replay_stops_when_told);
    tcase_add_test(tc, test_op_replay_matches_the_sorted_replay);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
