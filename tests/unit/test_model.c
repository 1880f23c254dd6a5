/* test_model: the model builder and lookups (server/model/). Every
 * expected value below was worked out by hand from the events listed in
 * the test's comment, not taken from the code's output. */
#include "model/builder.h"
#include "model_fixture.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- pv_builder_finish: order and nesting ---------------------------------- */

/* Added out of order on one track: A[100,+50] B[0,+300] C[0,+100] D[150,+10].
 * Sorted by start, longer first on ties: B C A D. B is the root; C, A and
 * D all sit inside B and end before the next starts, so all at depth 1. */
START_TEST(test_builder_finish_sorts_and_nests)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 11, "python3", 0);
    const char *names[] = {"A", "B", "C", "D"};
    int64_t start[] = {100, 0, 0, 150}, dur[] = {50, 300, 100, 10};
    for (int i = 0; i < 4; i++) {
        uint32_t meta = pv_builder_meta(b, p, i + 1, names[i], NULL);
        pv_builder_event(b, t, meta, start[i], dur[i]);
    }
    pv_model *m = pv_test_finish(b);
    ck_assert_uint_eq(m->n_events, 4);
    const char *order[] = {"B", "C", "A", "D"};
    uint16_t depth[] = {0, 1, 1, 1};
    for (uint64_t e = 0; e < 4; e++) {
        ck_assert_str_eq(pv_model_event_name(m, e), order[e]);
        ck_assert_uint_eq(m->ev_depth[e], depth[e]);
    }
    const pv_track *tr = &m->tracks[0];
    ck_assert_uint_eq(tr->n_depths, 2);
    ck_assert_uint_eq(tr->depth_start[1], 1);
    ck_assert_uint_eq(tr->depth_start[2], 4);
    ck_assert_uint_eq(tr->depth_index[0], 0);
    ck_assert_uint_eq(tr->depth_index[1], 1);
    ck_assert_uint_eq(tr->depth_index[3], 3);
    ck_assert_int_eq(m->min_ps, 0);
    ck_assert_int_eq(m->max_ps, 300);
    pv_model_free(m);
}
END_TEST

/* X[0,+100] Y[50,+100] Z[120,+10]: Y overlaps X without fitting inside,
 * so it cannot share depth 0 and goes to 1; Z starts while Y is open
 * (Y ends at 150) and goes below it, at 2. No depth holds an overlap. */
START_TEST(test_builder_finish_partial_overlap)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 0);
    uint32_t meta = pv_builder_meta(b, p, 1, "op", NULL);
    pv_builder_event(b, t, meta, 0, 100);
    pv_builder_event(b, t, meta, 50, 100);
    pv_builder_event(b, t, meta, 120, 10);
    pv_model *m = pv_test_finish(b);
    ck_assert_uint_eq(m->ev_depth[0], 0);
    ck_assert_uint_eq(m->ev_depth[1], 1);
    ck_assert_uint_eq(m->ev_depth[2], 2);
    ck_assert_uint_eq(m->tracks[0].n_depths, 3);
    pv_model_free(m);
}
END_TEST

/* Tracks added plane 1 first, then plane 0: the model groups tracks by
 * plane, so plane 0's track "a" comes first. Stats added to an older
 * event still land on it. */
START_TEST(test_builder_finish_regroups_tracks)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p0 = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t p1 = pv_builder_plane(b, 1, "/device:GPU:3");
    uint32_t tb = pv_builder_track(b, p1, 7, "Stream #7", 0);
    uint32_t ta = pv_builder_track(b, p0, 1, "a", 0);
    uint32_t mb = pv_builder_meta(b, p1, 1, "k", NULL);
    uint32_t ma = pv_builder_meta(b, p0, 1, "h", NULL);
    uint64_t e1 = pv_builder_event(b, tb, mb, 10, 5);
    uint64_t e2 = pv_builder_event(b, ta, ma, 20, 5);
    pv_builder_event_stat_i64(b, e1, "x", 1);
    pv_builder_event_stat_i64(b, e2, "y", 2);
    pv_builder_event_stat_i64(b, e1, "z", 3);
    pv_model *m = pv_test_finish(b);
    ck_assert_uint_eq(m->planes[1].kind, PV_PLANE_GPU);
    ck_assert_int_eq(m->planes[1].device_ordinal, 3);
    ck_assert_uint_eq(m->planes[0].first_track, 0);
    ck_assert_uint_eq(m->planes[1].first_track, 1);
    ck_assert_str_eq(pv_model_str(m, m->tracks[0].name), "a");
    ck_assert_str_eq(pv_model_event_name(m, 0), "h");
    ck_assert_str_eq(pv_model_event_name(m, 1), "k");
    ck_assert_uint_eq(m->ev_stat_off[1] - m->ev_stat_off[0], 1);
    ck_assert_uint_eq(m->ev_stat_off[2] - m->ev_stat_off[1], 2);
    pv_stat z;
    ck_assert(pv_model_event_stat(m, 1, pv_model_str_find(m, "z"), &z) && z.v.i64 == 3);
    ck_assert(!pv_model_event_stat(m, 0, pv_model_str_find(m, "z"), &z));
    ck_assert_uint_eq(pv_model_event_own_stats(m, 1, NULL, 0), 2);
    ck_assert_uint_eq(pv_model_event_track(m, 0), 0);
    ck_assert_uint_eq(pv_model_event_track(m, 1), 1);
    pv_model_free(m);
}
END_TEST

/* Two tracks of 3000 back-to-back events of 10 ps: one added in reverse
 * (too far from order for the insertion pass: the merge sort takes over
 * from where it gave up), one in order but for every seventh event added
 * one place late (the insertion pass alone). Either way event k of a
 * track starts at 10 k, and its name is the order it was added in. */
START_TEST(test_builder_finish_sorts_far_and_near)
{
    enum { N = 3000 };
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t far = pv_builder_track(b, p, 1, "far", 0);
    uint32_t near = pv_builder_track(b, p, 2, "near", 0);
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        pv_builder_event(b, far, pv_builder_meta(b, p, (uint64_t)i, name, NULL),
                         10 * (int64_t)(N - 1 - i), 10);
    }
    for (int i = 0; i < N; i++) {
        /* slot i holds event i, but i % 7 == 5 and 6 swap places */
        int k = i % 7 == 5 && i + 1 < N ? i + 1 : i % 7 == 6 ? i - 1 : i;
        char name[16];
        snprintf(name, sizeof name, "n%d", i);
        pv_builder_event(b, near, pv_builder_meta(b, p, (uint64_t)(N + i), name, NULL),
                         10 * (int64_t)k, 10);
    }
    pv_model *m = pv_test_finish(b);
    ck_assert_uint_eq(m->n_events, 2 * N);
    for (uint32_t t = 0; t < 2; t++) {
        const pv_track *tr = &m->tracks[t];
        bool is_far = strcmp(pv_model_str(m, tr->name), "far") == 0;
        for (int k = 0; k < N; k++) {
            uint64_t e = tr->first_event + (uint64_t)k;
            ck_assert_int_eq(m->ev_start_ps[e], 10 * (int64_t)k);
            int added = is_far ? N - 1 - k : k % 7 == 6 ? k - 1 : k % 7 == 5 && k + 1 < N ? k + 1 : k;
            char name[16];
            snprintf(name, sizeof name, "%c%d", is_far ? 'f' : 'n', added);
            ck_assert_str_eq(pv_model_event_name(m, e), name);
        }
    }
    pv_model_free(m);
}
END_TEST

/* Events added in order, a stat added to the first after the second
 * exists: the first gets it ("late"), the second keeps its own. */
START_TEST(test_builder_finish_late_stat_in_order)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 0);
    uint32_t meta = pv_builder_meta(b, p, 1, "op", NULL);
    uint64_t e0 = pv_builder_event(b, t, meta, 0, 10);
    pv_builder_event_stat_i64(b, e0, "a", 1);
    uint64_t e1 = pv_builder_event(b, t, meta, 20, 10);
    pv_builder_event_stat_i64(b, e1, "b", 2);
    pv_builder_event_stat_i64(b, e0, "c", 3);
    pv_model *m = pv_test_finish(b);
    ck_assert_uint_eq(m->ev_stat_off[1], 2);
    ck_assert_uint_eq(m->ev_stat_off[2], 3);
    pv_stat st;
    ck_assert(pv_model_event_stat(m, 0, pv_model_str_find(m, "c"), &st) && st.v.i64 == 3);
    ck_assert(pv_model_event_stat(m, 1, pv_model_str_find(m, "b"), &st) && st.v.i64 == 2);
    ck_assert(!pv_model_event_stat(m, 1, pv_model_str_find(m, "c"), &st));
    pv_model_free(m);
}
END_TEST

/* A string or bytes stat made with its union's other half dirty (what a
 * compound literal may leave under clang) is stored with that half zero,
 * for event, metadata and plane stats alike, so a model saves to the same
 * bytes every time. */
START_TEST(test_builder_finish_zeroes_stat_tails)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 0);
    uint32_t meta = pv_builder_meta(b, p, 1, "op", NULL);
    uint64_t e = pv_builder_event(b, t, meta, 0, 10);
    pv_stat dirty[3];
    memset(dirty, 0xab, sizeof dirty);
    uint32_t str = pv_builder_intern_cstr(b, "value");
    uint8_t bytes[2] = {1, 2};
    uint32_t blob = pv_builder_blob(b, bytes, sizeof bytes);
    for (int i = 0; i < 3; i++) {
        dirty[i].name = pv_builder_intern_cstr(b, i == 1 ? "b" : "s");
        dirty[i].type = i == 1 ? PV_STAT_BYTES : PV_STAT_STR;
        if (i == 1)
            dirty[i].v.blob = blob;
        else
            dirty[i].v.str = str;
    }
    pv_builder_event_stat(b, e, dirty[0]);
    pv_builder_event_stat(b, e, dirty[1]);
    pv_builder_meta_stat(b, meta, dirty[2]);
    pv_builder_plane_stat(b, p, dirty[2]);
    pv_model *m = pv_test_finish(b);
    ck_assert_uint_eq(m->n_stats, 4);
    for (uint64_t i = 0; i < m->n_stats; i++) {
        uint8_t raw[sizeof m->stats[i].v];
        memcpy(raw, &m->stats[i].v, sizeof raw);
        uint32_t v = m->stats[i].type == PV_STAT_BYTES ? m->stats[i].v.blob : m->stats[i].v.str;
        ck_assert_uint_eq(v, m->stats[i].type == PV_STAT_BYTES ? blob : str);
        /* every byte that is not the value's own is zero */
        uint64_t rest = 0;
        for (size_t k = 0; k < sizeof raw; k++)
            rest += raw[k];
        ck_assert_uint_eq(rest, (v & 0xffu) + (v >> 8 & 0xffu) + (v >> 16 & 0xffu) + (v >> 24));
    }
    pv_model_free(m);
}
END_TEST

/* 65537 identical events [0,+10] nest one inside the next: depth 65536
 * is past PV_MAX_DEPTH. */
START_TEST(test_builder_finish_too_deep)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 0);
    uint32_t meta = pv_builder_meta(b, p, 1, "op", NULL);
    for (int i = 0; i < 65537; i++)
        pv_builder_event(b, t, meta, 0, 10);
    pv_model *m = (pv_model *)1;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), PV_ETOOBIG);
    ck_assert_ptr_null(m);
    ck_assert(strstr(err.reason, "deeper") != NULL);
}
END_TEST

/* A model big enough (1M events and more) for finish to work its depths
 * out on a thread of their own beside the grouping, where it has two
 * CPUs. Line 1 repeats a block of four events k*100 + A[0,+90] B[10,+40]
 * C[20,+10] D[60,+20]: C sits in B in A, D in A after B has ended, so
 * depths 0 1 2 1; line 2 holds [k*100,+50], one after the other at depth
 * 0. Every block has a group_id stat for the grouping to read. */
#define BIG_BLOCKS 200000u

static pv_model_builder *big_nested(uint32_t *line1, uint32_t *line2)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    *line1 = pv_builder_track(b, p, 1, "python3", 0);
    *line2 = pv_builder_track(b, p, 2, "flat", 0);
    uint32_t meta[4];
    for (int i = 0; i < 4; i++)
        meta[i] = pv_builder_meta(b, p, i + 1, (const char *[]){"A", "B", "C", "D"}[i], NULL);
    static const int64_t at[4] = {0, 10, 20, 60}, dur[4] = {90, 40, 10, 20};
    for (uint32_t k = 0; k < BIG_BLOCKS; k++) {
        for (int i = 0; i < 4; i++) {
            uint64_t e = pv_builder_event(b, *line1, meta[i], (int64_t)k * 100 + at[i], dur[i]);
            if (i == 0)
                pv_builder_event_stat_i64(b, e, "group_id", (int64_t)k);
        }
    }
    for (uint32_t k = 0; k < BIG_BLOCKS; k++)
        pv_builder_event(b, *line2, meta[0], (int64_t)k * 100, 50);
    return b;
}

START_TEST(test_builder_finish_big_depths)
{
    uint32_t l1, l2;
    pv_model *m = pv_test_finish(big_nested(&l1, &l2));
    ck_assert_uint_eq(m->n_events, 5 * BIG_BLOCKS);
    const pv_track *t1 = &m->tracks[0], *t2 = &m->tracks[1];
    ck_assert_uint_eq(t1->n_events, 4 * BIG_BLOCKS);
    static const uint16_t depth[4] = {0, 1, 2, 1};
    for (uint64_t e = 0; e < t1->n_events; e++)
        ck_assert_uint_eq(m->ev_depth[t1->first_event + e], depth[e % 4]);
    /* depth 0: the A's; 1: B and D of every block in order; 2: the C's */
    ck_assert_uint_eq(t1->n_depths, 3);
    ck_assert_uint_eq(t1->depth_start[1], BIG_BLOCKS);
    ck_assert_uint_eq(t1->depth_start[2], 3 * BIG_BLOCKS);
    ck_assert_uint_eq(t1->depth_start[3], 4 * BIG_BLOCKS);
    ck_assert_uint_eq(t1->depth_index[BIG_BLOCKS], 1);
    ck_assert_uint_eq(t1->depth_index[BIG_BLOCKS + 1], 3);
    ck_assert_uint_eq(t1->depth_index[BIG_BLOCKS + 2], 5);
    ck_assert_uint_eq(t1->depth_index[3 * BIG_BLOCKS - 1], 4 * BIG_BLOCKS - 1);
    ck_assert_uint_eq(t1->depth_index[3 * BIG_BLOCKS], 2);
    ck_assert_uint_eq(t2->n_depths, 1);
    ck_assert_uint_eq(t2->depth_start[1], BIG_BLOCKS);
    ck_assert_uint_eq(t2->depth_index[BIG_BLOCKS - 1], BIG_BLOCKS - 1);
    for (uint64_t e = 0; e < t2->n_events; e++)
        ck_assert_uint_eq(m->ev_depth[t2->first_event + e], 0);
    /* the grouping ran beside them: a group per block, as the stats say */
    ck_assert_uint_eq(m->n_groups, BIG_BLOCKS);
    ck_assert_int_eq(m->ev_group[t1->first_event + 4 * 1234], 1234);
    pv_model_free(m);
}
END_TEST

/* big_nested with 65537 events piled up at 0 (a depth past PV_MAX_DEPTH)
 * on line 2, and on line 1 too with both: finishing it must fail naming
 * the line `want` ("line 1"), and make no model. */
static void expect_piled_too_deep(bool both, const char *want)
{
    uint32_t l1, l2;
    pv_model_builder *b = big_nested(&l1, &l2);
    uint32_t meta = pv_builder_meta(b, 0, 99, "pile", NULL);
    for (int i = 0; i < 65537; i++) {
        if (both)
            pv_builder_event(b, l1, meta, 0, 10);
        pv_builder_event(b, l2, meta, 0, 10);
    }
    pv_model *m = (pv_model *)1;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), PV_ETOOBIG);
    ck_assert_ptr_null(m);
    char needle[32];
    snprintf(needle, sizeof needle, "%s nest deeper", want);
    ck_assert_msg(strstr(err.reason, needle) != NULL, "%s", err.reason);
}

/* The flat line piled up: the error comes back from the depths' thread,
 * the model is not made. */
START_TEST(test_builder_finish_big_too_deep)
{
    expect_piled_too_deep(false, "line 2");
}
END_TEST

/* Both lines piled up: whichever thread meets which line first, the error
 * names the first line in track order. */
START_TEST(test_builder_finish_big_first_too_deep)
{
    expect_piled_too_deep(true, "line 1");
}
END_TEST

/* ---- extras ------------------------------------------------------------------ */

START_TEST(test_builder_finish_extras)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 0);
    uint32_t alloc = pv_builder_meta(b, p, 1, "MemoryAllocation", NULL);
    uint32_t copy = pv_builder_meta(b, p, 2, "Memcpy", NULL);
    uint32_t plain = pv_builder_meta(b, p, 3, "Idle", NULL);
    uint32_t op = pv_builder_meta(b, p, 4, "MatMul", NULL);
    pv_builder_meta_stat_str(b, op, "tf_op", "dense/MatMul:MatMul");
    uint64_t e = pv_builder_event(b, t, alloc, 0, 1);
    pv_builder_event_stat_str(b, e, "allocator_name", "GPU_0_bfc");
    pv_builder_event_stat_i64(b, e, "bytes_allocated", 4096);
    pv_builder_event_stat_u64(b, e, "addr", 0xdead00);
    pv_builder_event_stat_f64(b, e, "fragmentation", 0.25);
    pv_builder_event_stat_i64(b, e, "data_type", 1);
    pv_builder_event_stat_i64(b, e, "group_id", 3);
    e = pv_builder_event(b, t, copy, 10, 1);
    pv_builder_event_stat_str(b, e, "memcpy_details", "kind_src:device kind_dst:pinned size:512");
    pv_builder_event(b, t, plain, 20, 1);
    e = pv_builder_event(b, t, op, 30, 1);
    pv_builder_event_stat_u64(b, e, "correlation_id", 77);
    pv_model *m = pv_test_finish(b);

    const pv_event_extra *x = pv_model_event_extra(m, 0);
    ck_assert_ptr_nonnull(x);
    ck_assert_uint_eq(x->flags & (PV_EXTRA_MEMORY | PV_EXTRA_MEM_ALLOC),
                      PV_EXTRA_MEMORY | PV_EXTRA_MEM_ALLOC);
    pv_memory_details md;
    ck_assert(pv_model_event_memory(m, 0, &md));
    ck_assert_ptr_null(pv_model_kernel(m, x));
    ck_assert_str_eq(pv_model_str(m, md.memory_id), "GPU_0_bfc");
    ck_assert_int_eq(md.bytes_allocated, 4096);
    ck_assert_uint_eq(md.address, 0xdead00);
    ck_assert(md.fragmentation == 0.25);
    ck_assert_int_eq(md.data_type, 1);
    ck_assert_int_eq(m->ev_group[0], 3);
    ck_assert_uint_eq(m->n_groups, 1);
    ck_assert_int_eq(m->groups[0].group_id, 3);

    x = pv_model_event_extra(m, 1);
    ck_assert_ptr_nonnull(x);
    ck_assert(x->flags & PV_EXTRA_MEMCPY);
    ck_assert_uint_eq(x->memcpy_kind, PV_MEMCPY_D2H);
    ck_assert_uint_eq(x->memcpy_bytes, 512);

    ck_assert_ptr_null(pv_model_event_extra(m, 2));
    ck_assert_int_eq(m->ev_group[2], PV_NO_GROUP);

    x = pv_model_event_extra(m, 3);
    ck_assert_ptr_nonnull(x);
    ck_assert_str_eq(pv_model_str(m, x->tf_op), "dense/MatMul:MatMul");
    ck_assert_uint_eq(x->correlation_id, 77);
    ck_assert_int_eq(pv_model_step_info(m, x)->step_id, -1);
    ck_assert_ptr_null(pv_model_kernel(m, x));
    ck_assert(!pv_model_event_memory(m, 3, &md));
    pv_model_free(m);
}
END_TEST

/* Rows without a per-event value are kept once. Events by start: three
 * MemoryAllocations on one allocator with tf_op "a:A" (0, 10, 20), one
 * with tf_op "b:B" (30), two launches of that op with correlation ids 1
 * and 2 (40, 50). By hand: the first three share one row, the fourth has
 * another (its tf_op differs), each launch has its own (its correlation
 * id is its alone): four rows for six events. */
START_TEST(test_builder_finish_shares_rows)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 0);
    uint32_t alloc = pv_builder_meta(b, p, 1, "MemoryAllocation", NULL);
    uint32_t launch = pv_builder_meta(b, p, 2, "cudaLaunchKernel", NULL);
    for (int i = 0; i < 4; i++) {
        uint64_t e = pv_builder_event(b, t, alloc, 10 * i, 1);
        pv_builder_event_stat_str(b, e, "tf_op", i < 3 ? "a:A" : "b:B");
        pv_builder_event_stat_i64(b, e, "bytes_allocated", 100 * i);
    }
    for (int i = 0; i < 2; i++) {
        uint64_t e = pv_builder_event(b, t, launch, 40 + 10 * i, 1);
        pv_builder_event_stat_str(b, e, "tf_op", "b:B");
        pv_builder_event_stat_u64(b, e, "correlation_id", (uint64_t)i + 1);
    }
    pv_model *m = pv_test_finish(b);
    ck_assert_uint_eq(m->n_extras, 4);
    ck_assert_uint_eq(m->ev_extra[0], m->ev_extra[1]);
    ck_assert_uint_eq(m->ev_extra[0], m->ev_extra[2]);
    ck_assert_uint_ne(m->ev_extra[0], m->ev_extra[3]);
    ck_assert_uint_ne(m->ev_extra[4], m->ev_extra[5]);
    ck_assert_str_eq(pv_model_str(m, pv_model_event_extra(m, 3)->tf_op), "b:B");
    ck_assert_uint_eq(pv_model_event_extra(m, 5)->correlation_id, 2);
    /* the details stay each event's own: they are read from its stats */
    pv_memory_details md;
    ck_assert(pv_model_event_memory(m, 2, &md));
    ck_assert_int_eq(md.bytes_allocated, 200);
    pv_model_free(m);
}
END_TEST

/* Stats read from the source as events are added (the decoder's way).
 * The source holds two events' stats, two each, counted by hand:
 *   bytes 0-11:  22 04 | 08 01 20 05   stat metadata 1, int64 5
 *                22 04 | 08 02 18 09   stat metadata 2, uint64 9
 *   bytes 12-23: the same with 6 and 8.
 * Event A (start 100) has the first, event B (start 20, added after A)
 * the second, so the model puts B first. With 1 = group_id and
 * 2 = correlation_id known before the events, both apply as each event is
 * added. When a name (late 1) or a metadata stat (late 2) comes after an
 * event, the values applied early no longer hold, and finish must apply
 * them all again: A then has them too. */
static const uint8_t wire_two_events[] = {0x22, 0x04, 0x08, 0x01, 0x20, 0x05,
                                          0x22, 0x04, 0x08, 0x02, 0x18, 0x09,
                                          0x22, 0x04, 0x08, 0x01, 0x20, 0x06,
                                          0x22, 0x04, 0x08, 0x02, 0x18, 0x08};

static pv_model *wire_model(int late)
{
    pv_model_builder *b = pv_builder_new();
    pv_builder_source(b, wire_two_events, sizeof wire_two_events, PV_SRC_NONE);
    uint32_t p = pv_builder_plane(b, 0, "/device:GPU:0");
    pv_builder_plane_stat_name(b, p, 1, pv_builder_intern_cstr(b, "group_id"));
    if (late != 1)
        pv_builder_plane_stat_name(b, p, 2, pv_builder_intern_cstr(b, "correlation_id"));
    uint32_t t = pv_builder_track(b, p, 1, "stream", 0);
    uint32_t k = pv_builder_meta(b, p, 1, "kernel", NULL);
    pv_builder_event(b, t, k, 100, 10);
    ck_assert(pv_builder_event_wire(b, 0, 12));
    if (late == 1)
        pv_builder_plane_stat_name(b, p, 2, pv_builder_intern_cstr(b, "correlation_id"));
    if (late == 2)
        pv_builder_meta_stat_str(b, k, "tf_op", "conv:Conv2D");
    pv_builder_event(b, t, k, 20, 10);
    ck_assert(pv_builder_event_wire(b, 12, 12));
    return pv_test_finish(b);
}

START_TEST(test_builder_wire_stats_applied)
{
    for (int late = 0; late < 3; late++) {
        pv_model *m = wire_model(late);
        ck_assert_uint_eq(m->n_events, 2);
        ck_assert_int_eq(m->ev_start_ps[0], 20);
        for (uint64_t e = 0; e < 2; e++) {
            const pv_event_extra *x = pv_model_event_extra(m, e);
            ck_assert_msg(x != NULL, "late %d event %llu has no row", late,
                          (unsigned long long)e);
            ck_assert_int_eq(m->ev_group[e], e == 0 ? 6 : 5);
            ck_assert_uint_eq(x->correlation_id, e == 0 ? 8 : 9);
            ck_assert(x->flags & PV_EXTRA_CORRELATION);
            ck_assert_str_eq(pv_model_str(m, x->tf_op), late == 2 ? "conv:Conv2D" : "");
        }
        ck_assert(m->has_group_stats);
        pv_model_free(m);
    }
}
END_TEST

START_TEST(test_builder_wire_stats_refused)
{
    /* a stat whose uint64 value is cut off: 22 03 | 08 01 18 */
    static const uint8_t cut[] = {0x22, 0x03, 0x08, 0x01, 0x18};
    pv_model_builder *b = pv_builder_new();
    pv_builder_source(b, cut, sizeof cut, PV_SRC_NONE);
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 0);
    pv_builder_event(b, t, pv_builder_meta(b, p, 1, "op", NULL), 0, 1);
    ck_assert(!pv_builder_event_wire(b, 0, sizeof cut));
    ck_assert(!pv_builder_event_wire(b, 1, sizeof cut));   /* past the source's end */
    pv_builder_free(b);
}
END_TEST

/* ---- step grouping ------------------------------------------------------------- */

/* Host thread: train#1 [0,+1000] (_r=1, step_num=42) containing launch
 * [100,+200] (correlation_id 9); train#2 [2000,+1000] (_r=1,
 * step_num=43) containing op [2100,+10]; stray [5000,+1].
 * GPU stream: kernel [300,+50] (correlation_id 9).
 * Roots sorted by start: train#1 -> group 0 with its launch and, through
 * correlation 9, the kernel; train#2 -> group 1 with op; stray none. */
START_TEST(test_builder_finish_groups_steps)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t th = pv_builder_track(b, host, 1, "python3", 0);
    uint32_t ts = pv_builder_track(b, gpu, 7, "Stream #7", 0);
    uint32_t train = pv_builder_meta(b, host, 1, "train", NULL);
    uint32_t launch = pv_builder_meta(b, host, 2, "cudaLaunchKernel", NULL);
    uint32_t op = pv_builder_meta(b, host, 3, "op", NULL);
    uint32_t kern = pv_builder_meta(b, gpu, 1, "kernel", NULL);
    uint64_t e = pv_builder_event(b, th, train, 0, 1000);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    pv_builder_event_stat_i64(b, e, "step_num", 42);
    e = pv_builder_event(b, th, launch, 100, 200);
    pv_builder_event_stat_u64(b, e, "correlation_id", 9);
    e = pv_builder_event(b, th, train, 2000, 1000);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    pv_builder_event_stat_i64(b, e, "step_num", 43);
    pv_builder_event(b, th, op, 2100, 10);
    pv_builder_event(b, th, op, 5000, 1);
    e = pv_builder_event(b, ts, kern, 300, 50);
    pv_builder_event_stat_u64(b, e, "correlation_id", 9);
    pv_model *m = pv_test_finish(b);

    int32_t expect[] = {0, 0, 1, 1, PV_NO_GROUP, 0};
    for (uint64_t i = 0; i < 6; i++)
        ck_assert_int_eq(m->ev_group[i], expect[i]);
    ck_assert_uint_eq(m->n_groups, 2);
    ck_assert_str_eq(pv_model_str(m, m->groups[0].name), "train 42");
    ck_assert_int_eq(m->groups[1].step_num, 43);
    ck_assert_str_eq(pv_model_str(m, pv_model_group_find(m, 1)->name), "train 43");
    ck_assert_ptr_null(pv_model_group_find(m, 2));
    pv_model_free(m);
}
END_TEST

/* Two threads run a TF while loop: ExecutorState::Process with id 5 at
 * iter_num 0 [0,+100] and 1 [200,+100] on thread A, iter_num 1 again
 * [210,+50] on thread B, and a _r root [1000,+10] elsewhere. Id 5
 * iterates past 0, so loop roots replace the _r root: iteration 0's
 * earliest event is group 0; iteration 1's earliest (A at 200) is group
 * 1 and B's event joins it; the _r event stays ungrouped. Process is an
 * implicit root, so a group name is its number alone (group_events.cc
 * GetGroupName): "1". */
START_TEST(test_builder_finish_groups_loop_iterations)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t ta = pv_builder_track(b, host, 1, "a", 0);
    uint32_t tb = pv_builder_track(b, host, 2, "b", 0);
    uint32_t exec = pv_builder_meta(b, host, 1, "ExecutorState::Process", NULL);
    uint32_t user = pv_builder_meta(b, host, 2, "train", NULL);
    int64_t start[] = {0, 200, 210}, dur[] = {100, 100, 50}, iter[] = {0, 1, 1};
    uint32_t track[] = {ta, ta, tb};
    for (int i = 0; i < 3; i++) {
        uint64_t e = pv_builder_event(b, track[i], exec, start[i], dur[i]);
        pv_builder_event_stat_i64(b, e, "id", 5);
        pv_builder_event_stat_i64(b, e, "iter_num", iter[i]);
    }
    uint64_t e = pv_builder_event(b, ta, user, 1000, 10);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    pv_model *m = pv_test_finish(b);
    /* track a: [0] [200] [1000]; track b: [210] */
    ck_assert_int_eq(m->ev_group[0], 0);
    ck_assert_int_eq(m->ev_group[1], 1);
    ck_assert_int_eq(m->ev_group[2], PV_NO_GROUP);
    ck_assert_int_eq(m->ev_group[3], 1);
    ck_assert_uint_eq(m->n_groups, 2);
    ck_assert_str_eq(pv_model_str(m, m->groups[1].name), "1");
    pv_model_free(m);
}
END_TEST

/* ---- lookups ----------------------------------------------------------------- */

START_TEST(test_model_lookups)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 5);   /* 5 ns = 5000 ps */
    uint32_t meta = pv_builder_meta(b, p, 1, "op", "short");
    for (int i = 0; i < 5; i++)
        pv_builder_event(b, t, meta, 5000 + 100 * i, 10);
    pv_builder_hostname(b, "host-a", 6);
    pv_model *m = pv_test_finish(b);
    const pv_track *tr = &m->tracks[0];
    ck_assert_int_eq(tr->timestamp_ns, 5);
    ck_assert_uint_eq(pv_model_track_lower_bound(m, tr, 5150), 2);
    ck_assert_uint_eq(pv_model_track_lower_bound(m, tr, 5200), 2);
    ck_assert_uint_eq(pv_model_track_lower_bound(m, tr, 9999), 5);
    ck_assert_uint_eq(pv_model_track_lower_bound(m, tr, 0), 0);
    ck_assert_str_eq(pv_model_event_name(m, 0), "short");
    ck_assert_uint_eq(pv_model_str_find(m, "never interned"), 0);
    ck_assert_str_eq(pv_model_str(m, 0), "");
    ck_assert_str_eq(pv_model_str(m, 999999), "");
    ck_assert_str_eq(pv_model_str(m, m->hostnames[0]), "host-a");
    ck_assert_uint_gt(m->mem_bytes, 0);
    pv_model_free(m);
    pv_model_free(NULL);
}
END_TEST

START_TEST(test_model_empty)
{
    pv_model *m = pv_test_finish(pv_builder_new());
    ck_assert_uint_eq(m->n_events, 0);
    ck_assert_int_eq(m->min_ps, 0);
    ck_assert_int_eq(m->max_ps, 0);
    pv_model_free(m);
    pv_builder_free(NULL);
}
END_TEST

/* Empty tracks between full ones: an event belongs to the track whose
 * range holds it (tracks 0 and 2 here, by hand), and a track's lower
 * bound is the first of its events not starting before the time. */
START_TEST(test_model_event_track_skips_empty_tracks)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t0 = pv_builder_track(b, p, 1, "a", 0);
    pv_builder_track(b, p, 2, "empty", 0);
    uint32_t t2 = pv_builder_track(b, p, 3, "c", 0);
    pv_builder_track(b, p, 4, "empty too", 0);
    uint32_t meta = pv_builder_meta(b, p, 1, "op", NULL);
    pv_builder_event(b, t0, meta, 0, 10);
    pv_builder_event(b, t0, meta, 20, 10);
    pv_builder_event(b, t2, meta, 5, 1);
    pv_builder_event(b, t2, meta, 7, 1);
    pv_builder_event(b, t2, meta, 9, 1);
    pv_model *m = pv_test_finish(b);
    ck_assert_uint_eq(m->n_tracks, 4);
    const uint32_t want[5] = {0, 0, 2, 2, 2};
    for (uint64_t ev = 0; ev < 5; ev++)
        ck_assert_uint_eq(pv_model_event_track(m, ev), want[ev]);
    ck_assert_uint_eq(pv_model_event_track(m, 5), 3);   /* past the end: the last track */
    const pv_track *c = &m->tracks[2];
    ck_assert_uint_eq(pv_model_track_lower_bound(m, c, 0), 2);
    ck_assert_uint_eq(pv_model_track_lower_bound(m, c, 7), 3);
    ck_assert_uint_eq(pv_model_track_lower_bound(m, c, 8), 4);
    ck_assert_uint_eq(pv_model_track_lower_bound(m, c, 10), 5);
    ck_assert_uint_eq(pv_model_track_lower_bound(m, &m->tracks[1], 0), m->tracks[1].first_event);
    pv_model_free(m);
}
END_TEST

static Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *fin = tcase_create("pv_builder_finish");
    tcase_add_test(fin, test_builder_finish_sorts_and_nests);
    tcase_add_test(fin, test_builder_finish_sorts_far_and_near);
    tcase_add_test(fin, test_builder_finish_partial_overlap);
    tcase_add_test(fin, test_builder_finish_regroups_tracks);
    tcase_add_test(fin, test_builder_finish_too_deep);
    tcase_add_test(fin, test_builder_finish_big_depths);
    tcase_add_test(fin, test_builder_finish_big_too_deep);
    tcase_add_test(fin, test_builder_finish_big_first_too_deep);
    tcase_add_test(fin, test_builder_finish_late_stat_in_order);
    tcase_add_test(fin, test_builder_finish_zeroes_stat_tails);
    tcase_add_test(fin, test_builder_finish_extras);
    tcase_add_test(fin, test_builder_finish_shares_rows);
    tcase_add_test(fin, test_builder_wire_stats_applied);
    tcase_add_test(fin, test_builder_wire_stats_refused);
    tcase_add_test(fin, test_builder_finish_groups_steps);
    tcase_add_test(fin, test_builder_finish_groups_loop_iterations);
    suite_add_tcase(s, fin);
    TCase *look = tcase_create("lookups");
    tcase_add_test(look, test_model_lookups);
    tcase_add_test(look, test_model_empty);
    tcase_add_test(look, test_model_event_track_skips_empty_tracks);
    suite_add_tcase(s, look);
    return s;
}

int main(void)
{
    return pv_test_run(model_suite());
}
