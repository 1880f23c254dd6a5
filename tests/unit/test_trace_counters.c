/* The trace index's counters built on one thread and on two: the
 * counters' pass shared between the side thread and the pyramid's
 * (tools/trace_tiles/trace_index.c), checked against a model counted by hand.
 * The index's other parts on two threads: test_trace_real.c. */
#include "model/builder.h"
#include "model_fixture.h"
#include "tools/trace_tiles/trace_index.h"
#include "testutil.h"

#include <string.h>

/* Enough memory events for the counters' pass to be shared by two
 * threads. Thread "one" allocates on gpu_A 50,000 times (at 10 ps each,
 * bytes_allocated k); thread "two" 50,000 times at 10 ps each plus 5,
 * alternating gpu_B (even k) and gpu_A (odd k) below k = 5,000, and from
 * there gpu_C (even) and gpu_A (odd), with 1,000,000 + k bytes and 7
 * reserved. Counted by hand: gpu_A 50,000 + 2,500 + 22,500 points, gpu_B
 * 2,500, gpu_C 22,500, met in the order A, B, C. */
#define SPLIT_EVENTS 50000

static pv_model *many_memory_events(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t one = pv_builder_track(b, p, 1, "one", 0);
    uint32_t two = pv_builder_track(b, p, 2, "two", 0);
    uint32_t alloc = pv_builder_meta(b, p, 1, "MemoryAllocation", NULL);
    for (int64_t k = 0; k < SPLIT_EVENTS; k++) {
        uint64_t e = pv_builder_event(b, one, alloc, 10 * k, 0);
        pv_builder_event_stat_str(b, e, "allocator_name", "gpu_A");
        pv_builder_event_stat_i64(b, e, "bytes_allocated", k);
    }
    for (int64_t k = 0; k < SPLIT_EVENTS; k++) {
        uint64_t e = pv_builder_event(b, two, alloc, 10 * k + 5, 0);
        const char *name = k % 2 ? "gpu_A" : k < 5000 ? "gpu_B" : "gpu_C";
        pv_builder_event_stat_str(b, e, "allocator_name", name);
        pv_builder_event_stat_i64(b, e, "bytes_allocated", 1000000 + k);
        pv_builder_event_stat_i64(b, e, "bytes_reserved", 7);
    }
    return pv_test_finish(b);
}

/* The counters' pass shared by two threads gives what one gives, and
 * what the events say: per allocator, its events' stack + heap in time
 * order. */
START_TEST(test_counters_on_two_threads)
{
    pv_model *m = many_memory_events();
    pv_trace_index *ix[2];
    for (unsigned t = 0; t < 2; t++) {
        pv_trace_pyramid_opts o = pv_trace_pyramid_defaults();
        o.threads = t + 1;
        ck_assert_int_eq(pv_trace_index_new(m, &o, &ix[t], NULL), 0);
    }
    ck_assert_uint_eq(ix[0]->bytes, ix[1]->bytes);
    for (unsigned t = 0; t < 2; t++) {
        ck_assert_uint_eq(ix[t]->n_counters, 3);
        const pv_trace_counter *a = &ix[t]->counters[0], *b = &ix[t]->counters[1],
                               *c = &ix[t]->counters[2];
        ck_assert_str_eq(a->name, "Memory in use (bytes): gpu_A");
        ck_assert_str_eq(b->name, "Memory in use (bytes): gpu_B");
        ck_assert_str_eq(c->name, "Memory in use (bytes): gpu_C");
        ck_assert_uint_eq(a->n_points, 75000);
        ck_assert_uint_eq(b->n_points, 2500);
        ck_assert_uint_eq(c->n_points, 22500);
        /* gpu_A: one's k = 0 at 0, two's k = 1 at 15 after one's k = 1 at 10 */
        ck_assert_int_eq(a->t_ps[0], 0);
        ck_assert_int_eq(a->t_ps[1], 10);
        ck_assert_int_eq(a->t_ps[2], 15);
        ck_assert_double_eq(a->value[2], 1000001 + 7);
        ck_assert_int_eq(a->t_ps[a->n_points - 1], 10 * (SPLIT_EVENTS - 1) + 5);
        ck_assert_double_eq(a->value[a->n_points - 1], 1000000 + SPLIT_EVENTS - 1 + 7);
        ck_assert_double_eq(a->min, 0);
        ck_assert_double_eq(b->value[b->n_points - 1], 1004998 + 7);
        ck_assert_int_eq(c->t_ps[0], 50005);
        ck_assert_double_eq(c->min, 1005000 + 7);
        for (size_t i = 1; i < a->n_points; i++)
            ck_assert_int_lt(a->t_ps[i - 1], a->t_ps[i]);
    }
    for (size_t c = 0; c < 3; c++) {
        const pv_trace_counter *x = &ix[0]->counters[c], *y = &ix[1]->counters[c];
        ck_assert(memcmp(x->t_ps, y->t_ps, x->n_points * sizeof *x->t_ps) == 0);
        ck_assert(memcmp(x->value, y->value, x->n_points * sizeof *x->value) == 0);
    }
    pv_trace_index_free(ix[0]);
    pv_trace_index_free(ix[1]);
    pv_model_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace_counters");
    TCase *tc = tcase_create("pv_trace_index_new");
    tcase_add_test(tc, test_counters_on_two_threads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
