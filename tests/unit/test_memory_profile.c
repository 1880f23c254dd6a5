/* Unit tests of the memory profile tool on hand-built allocation
 * sequences. Every expected number below was worked out by hand from the
 * sequence in the test, following FORMATS.md §4.7 (the reference's rules),
 * and is explained next to the assertion. */
#include "model/builder.h"
#include "model_fixture.h"
#include "tools/memory_profile/memory_profile.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* The line timestamp of every test track: 1 µs, so a snapshot's time
 * offset (relative to the line) differs from its absolute start. */
#define LINE_NS 1000
#define LINE_PS ((int64_t)LINE_NS * 1000)

enum { ALLOC = 1, FREE = 2 };

/* One MemoryAllocation / MemoryDeallocation event as the TF runtime
 * writes it: the allocator's state after the event plus the activity. */
typedef struct ev_spec {
    int kind;              /* ALLOC or FREE */
    int64_t t_ps;          /* offset from the line timestamp */
    const char *allocator;
    int64_t heap, stack, avail, peak;
    uint64_t addr;
    int64_t bytes, req;
    const char *op;        /* NULL: no tf_op stat */
    int64_t group;         /* -1: no group_id stat */
} ev_spec;

/* Builds a model with one /host:CPU plane and one track holding evs, and
 * optionally a second plane so the host plane is not the only one. */
static pv_model *build(const ev_spec *evs, size_t n)
{
    pv_model_builder *b = pv_builder_new();
    pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t host = pv_builder_plane(b, 2, "/host:CPU");
    uint32_t tr = pv_builder_track(b, host, 7, "tf_Compute", LINE_NS);
    uint32_t m_alloc = pv_builder_meta(b, host, 1, "MemoryAllocation", NULL);
    uint32_t m_free = pv_builder_meta(b, host, 2, "MemoryDeallocation", NULL);
    for (size_t i = 0; i < n; i++) {
        const ev_spec *s = &evs[i];
        uint64_t e = pv_builder_event(b, tr, s->kind == ALLOC ? m_alloc : m_free,
                                      LINE_PS + s->t_ps, 0);
        pv_builder_event_stat_str(b, e, "allocator_name", s->allocator);
        pv_builder_event_stat_i64(b, e, "bytes_allocated", s->heap);
        pv_builder_event_stat_i64(b, e, "bytes_reserved", s->stack);
        pv_builder_event_stat_i64(b, e, "bytes_available", s->avail);
        pv_builder_event_stat_i64(b, e, "peak_bytes_in_use", s->peak);
        pv_builder_event_stat_f64(b, e, "fragmentation", 0.25);
        pv_builder_event_stat_u64(b, e, "addr", s->addr);
        pv_builder_event_stat_i64(b, e, "allocation_bytes", s->bytes);
        pv_builder_event_stat_i64(b, e, "requested_bytes", s->req);
        if (s->op != NULL) {
            pv_builder_event_stat_str(b, e, "tf_op", s->op);
            pv_builder_event_stat_str(b, e, "region_type", "output");
            pv_builder_event_stat_i64(b, e, "data_type", 1);
            pv_builder_event_stat_str(b, e, "shape", "[5,5]");
        }
        if (s->group >= 0)
            pv_builder_event_stat_i64(b, e, "group_id", s->group);
    }
    return pv_test_finish(b);
}

static pv_arena arena;

static void setup(void)
{
    pv_arena_init(&arena, 1 << 16);
}

static void teardown(void)
{
    pv_arena_fini(&arena);
}

static const pv_memory_allocator *run(const pv_model *m, size_t max_points,
                                      pv_memory_profile_result *r, const char *id)
{
    pv_memory_profile_query q = {max_points};
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_memory_profile(m, &q, &arena, r, &err), 0);
    for (size_t i = 0; i < r->n_allocators; i++) {
        if (strcmp(r->allocators[i].memory_id, id) == 0)
            return &r->allocators[i];
    }
    ck_abort_msg("no allocator %s", id);
    return NULL;
}

/* ---- a plain sequence: two steps, peak in the second ---------------------- */

/* A: heap 100 -> 150 -> 50 (step 1), then 250 -> 50 (step 2); capacity
 * 1000 throughout (avail = 1000 - heap). */
static const ev_spec basic[] = {
    {ALLOC, 10, "A", 100, 0, 900, 100, 0x100, 100, 90, "op1", 1},
    {ALLOC, 20, "A", 150, 0, 850, 150, 0x200, 50, 50, "op2", 1},
    {FREE, 30, "A", 50, 0, 950, 150, 0x100, 100, 90, NULL, 1},
    {ALLOC, 40, "A", 250, 0, 750, 250, 0x300, 200, 180, "op3", 2},
    {FREE, 50, "A", 50, 0, 950, 260, 0x300, 200, 180, NULL, 2},
};

START_TEST(test_pv_tool_memory_profile_summary)
{
    pv_model *m = build(basic, 5);
    pv_memory_profile_result r;
    const pv_memory_allocator *al = run(m, 0, &r, "A");
    ck_assert(r.has_host_plane);
    ck_assert_uint_eq(r.n_allocators, 1);
    ck_assert_uint_eq(al->n_snapshots, 5);
    /* highest heap+stack is 250 at offset 40 */
    ck_assert_int_eq(al->summary.peak_stats.peak_bytes_in_use, 250);
    ck_assert_int_eq(al->summary.peak_stats.heap_allocated_bytes, 250);
    ck_assert_int_eq(al->summary.peak_stats.free_memory_bytes, 750);
    ck_assert_int_eq(al->summary.peak_stats_time_ps, 40);
    ck_assert_int_eq(al->summary.memory_capacity, 1000);
    /* lifetime peak is the last event's peak_bytes_in_use, not the max */
    ck_assert_int_eq(al->summary.peak_bytes_usage_lifetime, 260);
    ck_assert_uint_eq(al->peak_snapshot, 3);
    ck_assert_int_eq(al->peak_step_id, 2);
    ck_assert_uint_eq(al->n_allocations, 3);
    ck_assert_uint_eq(al->n_deallocations, 2);
    ck_assert_uint_eq(al->n_unmatched_frees, 0);
    /* 5 snapshots < 1000: the timeline is all of them */
    ck_assert_uint_eq(al->n_timeline, 5);
    for (size_t i = 0; i < 5; i++)
        ck_assert_uint_eq(al->timeline[i], i);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_free_takes_alloc_meta)
{
    pv_model *m = build(basic, 5);
    pv_memory_profile_result r;
    const pv_memory_allocator *al = run(m, 0, &r, "A");
    /* snapshot 2 frees 0x100, allocated by op1 in snapshot 0 */
    pv_memory_meta mt = pv_memory_snapshot_meta(m, pv_memory_snapshot_at(al, 2), &arena);
    ck_assert_uint_eq(mt.activity, PV_MEMORY_DEALLOCATION);
    ck_assert_str_eq(mt.tf_op_name, "op1");
    ck_assert_str_eq(mt.region_type, "output");
    ck_assert_str_eq(mt.data_type, "float");
    ck_assert_str_eq(mt.tensor_shape, "[5,5]");
    ck_assert_int_eq(mt.allocation_bytes, 100);
    ck_assert_int_eq(mt.step_id, 1);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_active_at_peak)
{
    pv_model *m = build(basic, 5);
    pv_memory_profile_result r;
    const pv_memory_allocator *al = run(m, 0, &r, "A");
    /* step 2 up to offset 40 replays only the op3 allocation (200 bytes);
     * the heap was 250, so 50 bytes are unexplained -> special row. Sorted
     * by size: op3 (200), then the special (50). */
    ck_assert_uint_eq(al->n_special, 1);
    ck_assert_str_eq(al->special[0].tf_op_name, "unused preallocated device memory");
    ck_assert_str_eq(al->special[0].region_type, "persist/dynamic");
    ck_assert_str_eq(al->special[0].data_type, "INVALID");
    ck_assert_str_eq(al->special[0].tensor_shape, "unknown");
    ck_assert_int_eq(al->special[0].allocation_bytes, 50);
    ck_assert_int_eq(al->special[0].step_id, 2);
    ck_assert_uint_eq(al->n_active, 2);
    ck_assert_int_eq(al->active[0].snapshot, 3);
    ck_assert_int_eq(al->active[0].num_occurrences, 1);
    /* freed by snapshot 4 at offset 50 */
    ck_assert_int_eq(al->active[0].free_start_ps, LINE_PS + 50);
    ck_assert_int_eq(al->active[1].snapshot, -1);
    pv_memory_meta mt = pv_memory_active_meta(m, al, &al->active[0], &arena);
    ck_assert_str_eq(mt.tf_op_name, "op3");
    ck_assert_int_eq(mt.requested_bytes, 180);
    pv_model_free(m);
}
END_TEST

/* ---- unknown frees, allocations never freed, ties, merging ----------------- */

/* B: a free of an address never allocated (before anything else), two
 * identical allocations that are never freed, and the peak of 200 bytes
 * reached twice (offsets 20 and 40). No group ids: every step id is
 * fixed to 0. */
static const ev_spec odd[] = {
    {FREE, 5, "B", 0, 0, 1000, 64, 0x999, 64, 64, NULL, -1},
    {ALLOC, 10, "B", 100, 0, 900, 100, 0x10, 100, 100, "x", -1},
    {ALLOC, 20, "B", 200, 0, 800, 200, 0x20, 100, 100, "y", -1},
    {FREE, 30, "B", 100, 0, 900, 200, 0x20, 100, 100, NULL, -1},
    {ALLOC, 40, "B", 200, 0, 800, 200, 0x30, 100, 100, "x", -1},
};

START_TEST(test_pv_tool_memory_profile_unknown_free_and_ties)
{
    pv_model *m = build(odd, 5);
    pv_memory_profile_result r;
    const pv_memory_allocator *al = run(m, 0, &r, "B");
    /* the tie at 200 moves the peak to the later event */
    ck_assert_int_eq(al->summary.peak_stats_time_ps, 40);
    ck_assert_uint_eq(al->peak_snapshot, 4);
    ck_assert_int_eq(al->peak_step_id, 0);
    ck_assert_uint_eq(al->n_unmatched_frees, 1);
    /* the unmatched free keeps empty metadata */
    pv_memory_meta mt = pv_memory_snapshot_meta(m, pv_memory_snapshot_at(al, 0), &arena);
    ck_assert_str_eq(mt.tf_op_name, "");
    ck_assert_str_eq(mt.data_type, "INVALID");
    /* replay: heap 200 +64 (free) -100 -100 +100 (free of 0x20) -100 = 64,
     * minus the 64 unmatched free bytes = 0 -> no special row. The two
     * live "x" allocations (0x10, 0x30) are identical and merge. */
    ck_assert_uint_eq(al->n_special, 0);
    ck_assert_uint_eq(al->n_active, 1);
    ck_assert_int_eq(al->active[0].num_occurrences, 2);
    ck_assert_int_eq(al->active[0].snapshot, 1);
    ck_assert(al->active[0].free_start_ps == INT64_MIN);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_step_fix)
{
    /* groups -1, 3, -1, 5, -1 become 0, 3, 4, 5, 6 */
    ev_spec evs[5];
    const int64_t groups[5] = {-1, 3, -1, 5, -1};
    for (int i = 0; i < 5; i++) {
        evs[i] = (ev_spec){ALLOC, 10 * (i + 1), "C", 10 * (i + 1), 0, 0, 0,
                           (uint64_t)(0x1000 + i), 10, 10, "z", groups[i]};
    }
    pv_model *m = build(evs, 5);
    pv_memory_profile_result r;
    const pv_memory_allocator *al = run(m, 0, &r, "C");
    const int64_t want[5] = {0, 3, 4, 5, 6};
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(pv_memory_snapshot_at(al, (size_t)i)->step_id, want[i]);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_stack_special)
{
    /* heap 300 with 40 bytes of stack at the peak; the only replayed
     * allocation is 100 bytes -> unmapped 200, stack 40: two specials in
     * that order, indices -1 and -2. */
    const ev_spec evs[] = {
        {ALLOC, 10, "D", 300, 40, 660, 340, 0x1, 100, 100, "w", 0},
    };
    pv_model *m = build(evs, 1);
    pv_memory_profile_result r;
    const pv_memory_allocator *al = run(m, 0, &r, "D");
    ck_assert_int_eq(al->summary.peak_stats.peak_bytes_in_use, 340);
    ck_assert_int_eq(al->summary.memory_capacity, 1000);
    ck_assert_uint_eq(al->n_special, 2);
    ck_assert_str_eq(al->special[0].tf_op_name, "unused preallocated device memory");
    ck_assert_int_eq(al->special[0].allocation_bytes, 200);
    ck_assert_str_eq(al->special[1].tf_op_name, "stack");
    ck_assert_str_eq(al->special[1].region_type, "stack");
    ck_assert_int_eq(al->special[1].allocation_bytes, 40);
    /* sorted by size: unmapped 200, w 100, stack 40 */
    ck_assert_uint_eq(al->n_active, 3);
    ck_assert_int_eq(al->active[0].snapshot, -1);
    ck_assert_int_eq(al->active[1].snapshot, 0);
    ck_assert_int_eq(al->active[2].snapshot, -2);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_two_threads_sorted)
{
    /* thread 1 allocates 0xa1 at 10 and 0xa2 at 30, thread 2 0xb1 at 10
     * and 0xb2 at 20 and frees 0xa1 at 25: time order is a1, b1 (same
     * time: file order, thread 1's line comes first), b2, the free, a2;
     * the free on the other thread meets thread 1's allocation */
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 2, "/host:CPU");
    uint32_t t1 = pv_builder_track(b, host, 1, "one", LINE_NS);
    uint32_t t2 = pv_builder_track(b, host, 2, "two", LINE_NS);
    uint32_t meta = pv_builder_meta(b, host, 1, "MemoryAllocation", NULL);
    uint32_t meta_free = pv_builder_meta(b, host, 2, "MemoryDeallocation", NULL);
    const struct { uint32_t track; int64_t t; uint64_t addr; bool free; } evs[] = {
        {t1, 10, 0xa1, false}, {t1, 30, 0xa2, false}, {t2, 10, 0xb1, false},
        {t2, 20, 0xb2, false}, {t2, 25, 0xa1, true},
    };
    for (size_t i = 0; i < 5; i++) {
        uint64_t e = pv_builder_event(b, evs[i].track, evs[i].free ? meta_free : meta,
                                      LINE_PS + evs[i].t, 0);
        pv_builder_event_stat_str(b, e, "allocator_name", "T");
        pv_builder_event_stat_u64(b, e, "addr", evs[i].addr);
        pv_builder_event_stat_i64(b, e, "bytes_allocated", (int64_t)i + 1);
    }
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), 0);
    pv_memory_profile_result r;
    const pv_memory_allocator *al = run(m, 0, &r, "T");
    const uint64_t want[5] = {0xa1, 0xb1, 0xb2, 0xa1, 0xa2};
    for (size_t i = 0; i < 5; i++) {
        pv_memory_meta mt = pv_memory_snapshot_meta(m, pv_memory_snapshot_at(al, i), &arena);
        ck_assert_uint_eq(mt.address, want[i]);
    }
    ck_assert_uint_eq(al->n_deallocations, 1);
    ck_assert_uint_eq(al->n_unmatched_frees, 0);
    pv_model_free(m);
}
END_TEST

/* ---- timeline sampling ---------------------------------------------------------- */

static pv_model *build_many(size_t n, int64_t (*heap_of)(size_t))
{
    ev_spec *evs = calloc(n, sizeof *evs);
    for (size_t i = 0; i < n; i++) {
        evs[i] = (ev_spec){ALLOC, (int64_t)(i + 1) * 10, "S", heap_of(i), 0, 0, 0,
                           (uint64_t)(0x10000 + i), 1, 1, "s", 0};
    }
    pv_model *m = build(evs, n);
    free(evs);
    return m;
}

static int64_t flat_heap(size_t i)
{
    (void)i;
    return 7;
}

static int64_t spiky_heap(size_t i)
{
    if (i == 1234)
        return 100000;
    return (int64_t)((i * 37) % 101);
}

START_TEST(test_pv_tool_memory_profile_sampling_windows)
{
    /* 2500 snapshots into 1000 points: width 2, count1 = 1000*3 - 2500 =
     * 500 windows of 2, then 500 windows of 3. All values equal, so each
     * window keeps its first snapshot: 2k for k < 500, 1000 + 3(k-500)
     * after. */
    pv_model *m = build_many(2500, flat_heap);
    pv_memory_profile_result r;
    const pv_memory_allocator *al = run(m, 1000, &r, "S");
    ck_assert_uint_eq(al->n_timeline, 1000);
    ck_assert_uint_eq(al->timeline[0], 0);
    ck_assert_uint_eq(al->timeline[499], 998);
    ck_assert_uint_eq(al->timeline[500], 1000);
    ck_assert_uint_eq(al->timeline[999], 2497);
    /* lowest and highest of a flat window are the same snapshot: one each */
    ck_assert_uint_eq(al->n_extremes, 1000);
    ck_assert_uint_eq(al->extremes[500], 1000);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_sampling_keeps_peak)
{
    /* heap(i) = 37i mod 101, with a spike at 1234. Window 0 = {0, 1}:
     * heap 0 and 37 -> 1. 1234 = 1000 + 3*78 starts window 578. Window
     * 1 = {2, 3}: 74 and 111 mod 101 = 10 -> 2. */
    pv_model *m = build_many(2500, spiky_heap);
    pv_memory_profile_result r;
    const pv_memory_allocator *al = run(m, 1000, &r, "S");
    ck_assert_uint_eq(al->timeline[0], 1);
    ck_assert_uint_eq(al->timeline[1], 2);
    ck_assert_uint_eq(al->timeline[578], 1234);
    ck_assert_int_eq(al->summary.peak_stats.peak_bytes_in_use, 100000);
    ck_assert_uint_eq(al->peak_snapshot, 1234);
    /* the kept snapshot is the top of its window: windows of 2 from 0 to
     * 999, then of 3 from 1000 to 2499 */
    for (size_t k = 0; k < al->n_timeline; k++) {
        size_t start = k < 500 ? 2 * k : 1000 + 3 * (k - 500);
        size_t width = k < 500 ? 2 : 3;
        size_t kept = al->timeline[k];
        ck_assert(kept >= start && kept < start + width);
        for (size_t i = start; i < start + width; i++)
            ck_assert_int_ge(spiky_heap(kept), spiky_heap(i));
    }
    /* profview's extremes: window 0 = {0 (heap 0), 1 (heap 37)} gives both,
     * lowest first; every window's lowest value is among them */
    ck_assert_uint_eq(al->extremes[0], 0);
    ck_assert_uint_eq(al->extremes[1], 1);
    size_t e = 0;
    for (size_t k = 0; k < al->n_timeline; k++) {
        size_t start = k < 500 ? 2 * k : 1000 + 3 * (k - 500);
        size_t width = k < 500 ? 2 : 3;
        int64_t lowest = INT64_MAX, kept_lowest = INT64_MAX;
        for (size_t i = start; i < start + width; i++)
            lowest = spiky_heap(i) < lowest ? spiky_heap(i) : lowest;
        for (; e < al->n_extremes && al->extremes[e] < start + width; e++) {
            ck_assert_uint_ge(al->extremes[e], start);
            if (spiky_heap(al->extremes[e]) < kept_lowest)
                kept_lowest = spiky_heap(al->extremes[e]);
        }
        ck_assert_int_eq(kept_lowest, lowest);
    }
    ck_assert_uint_eq(e, al->n_extremes);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_sampling_small)
{
    /* 1001 snapshots into 1000 points: width 1, count1 = 2000 - 1001 =
     * 999 windows of 1 (indices 0..998), then 1 window of 2 {999, 1000}. */
    pv_model *m = build_many(1001, spiky_heap);
    pv_memory_profile_result r;
    const pv_memory_allocator *al = run(m, 1000, &r, "S");
    ck_assert_uint_eq(al->n_timeline, 1000);
    ck_assert_uint_eq(al->timeline[998], 998);
    /* heap(999) = 36963 mod 101 = 98, heap(1000) = 37000 mod 101 = 34 */
    ck_assert_uint_eq(al->timeline[999], 999);
    pv_model_free(m);
}
END_TEST

/* ---- allocators, planes, data types -------------------------------------------- */

START_TEST(test_pv_tool_memory_profile_allocators_sorted)
{
    const ev_spec evs[] = {
        {ALLOC, 10, "gpu_host_bfc", 1, 0, 0, 1, 0x1, 1, 1, "a", 0},
        {ALLOC, 20, "GPU_0_bfc", 1, 0, 0, 1, 0x1, 1, 1, "a", 0},
        {ALLOC, 30, "gpu_host_bfc", 2, 0, 0, 2, 0x2, 1, 1, "a", 0},
    };
    pv_model *m = build(evs, 3);
    pv_memory_profile_result r;
    run(m, 0, &r, "GPU_0_bfc");
    /* bytewise: 'G' (0x47) sorts before 'g' (0x67) */
    ck_assert_uint_eq(r.n_allocators, 2);
    ck_assert_str_eq(r.allocators[0].memory_id, "GPU_0_bfc");
    ck_assert_str_eq(r.allocators[1].memory_id, "gpu_host_bfc");
    ck_assert_uint_eq(r.allocators[1].n_snapshots, 2);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_too_many_allocators)
{
    /* a new allocator name on each of 1025 events: one more than allowed */
    enum { N = PV_MEMORY_MAX_ALLOCATORS + 1 };
    static ev_spec evs[N];
    static char names[N][16];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "a%d", i);
        evs[i] = (ev_spec){ALLOC, i + 1, names[i], 1, 0, 0, 1, 0x1, 1, 1, "x", 0};
    }
    pv_model *m = build(evs, N);
    pv_memory_profile_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_memory_profile(m, NULL, &arena, &r, &err), PV_ETOOBIG);
    ck_assert_int_eq(err.code, PV_ETOOBIG);
    ck_assert_uint_eq(r.n_allocators, 0);
    pv_model_free(m);
    /* exactly the limit is fine */
    m = build(evs, N - 1);
    ck_assert_int_eq(pv_tool_memory_profile(m, NULL, &arena, &r, &err), 0);
    ck_assert_uint_eq(r.n_allocators, PV_MEMORY_MAX_ALLOCATORS);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_no_host_plane)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t tr = pv_builder_track(b, gpu, 1, "stream", 0);
    uint32_t meta = pv_builder_meta(b, gpu, 1, "MemoryAllocation", NULL);
    pv_builder_event(b, tr, meta, 10, 0);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), 0);
    pv_memory_profile_result r;
    ck_assert_int_eq(pv_tool_memory_profile(m, NULL, &arena, &r, &err), 0);
    ck_assert(!r.has_host_plane);
    ck_assert_uint_eq(r.n_allocators, 0);
    json_t *j = pv_memory_profile_to_json(m, &r, false);
    ck_assert_uint_eq(json_object_size(j), 0);
    json_decref(j);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_host_without_memory_events)
{
    pv_model *m = build(NULL, 0);
    pv_memory_profile_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_memory_profile(m, NULL, &arena, &r, &err), 0);
    ck_assert(r.has_host_plane);
    ck_assert_uint_eq(r.n_allocators, 0);
    json_t *j = pv_memory_profile_to_json(m, &r, false);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "memoryIds")), 0);
    ck_assert_uint_eq(json_object_size(json_object_get(j, "memoryProfilePerAllocator")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "numHosts")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "version")), 1);
    json_decref(j);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_tool_memory_profile_hlo_modules)
{
    /* two TPU planes; only "XLA Modules" lines count, numbered across
     * planes in file order; times are offsets from the line (5 µs) */
    pv_model_builder *b = pv_builder_new();
    pv_builder_plane(b, 1, "/host:CPU");
    uint32_t tpu0 = pv_builder_plane(b, 2, "/device:TPU:0");
    uint32_t tpu1 = pv_builder_plane(b, 3, "/device:TPU:1");
    uint32_t mods0 = pv_builder_track(b, tpu0, 1, "XLA Modules", 5);
    uint32_t ops0 = pv_builder_track(b, tpu0, 2, "XLA Ops", 5);
    uint32_t mods1 = pv_builder_track(b, tpu1, 1, "XLA Modules", 5);
    uint32_t f0 = pv_builder_meta(b, tpu0, 1, "jit_f(1)", NULL);
    uint32_t op0 = pv_builder_meta(b, tpu0, 2, "fusion.1", NULL);
    uint32_t g1 = pv_builder_meta(b, tpu1, 1, "jit_g(2)", NULL);
    pv_builder_event(b, mods0, f0, 5000 + 100, 50);
    pv_builder_event(b, mods0, f0, 5000 + 300, 70);
    pv_builder_event(b, ops0, op0, 5000 + 100, 10);
    pv_builder_event(b, mods1, g1, 5000 + 200, 40);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), 0);
    pv_memory_profile_result r;
    ck_assert_int_eq(pv_tool_memory_profile(m, NULL, &arena, &r, &err), 0);
    ck_assert_uint_eq(r.n_hlo_modules, 3);
    ck_assert_str_eq(r.hlo_modules[0].name, "jit_f(1)");
    ck_assert_int_eq(r.hlo_modules[0].start_time_ps, 100);
    ck_assert_int_eq(r.hlo_modules[0].end_time_ps, 150);
    ck_assert_str_eq(r.hlo_modules[0].plane_name, "TPU:0");
    ck_assert_int_eq(r.hlo_modules[1].start_time_ps, 300);
    ck_assert_int_eq(r.hlo_modules[1].end_time_ps, 370);
    ck_assert_str_eq(r.hlo_modules[2].name, "jit_g(2)");
    ck_assert_int_eq(r.hlo_modules[2].id, 2);
    ck_assert_str_eq(r.hlo_modules[2].plane_name, "TPU:1");
    json_t *j = pv_memory_profile_to_json(m, &r, false);
    json_t *h2 = json_array_get(json_object_get(j, "hloModules"), 2);
    ck_assert_str_eq(json_string_value(json_object_get(h2, "startTimePs")), "200");
    ck_assert_str_eq(json_string_value(json_object_get(h2, "endTimePs")), "240");
    ck_assert_str_eq(json_string_value(json_object_get(h2, "id")), "2");
    json_decref(j);
    pv_model_free(m);
}
END_TEST

START_TEST(test_pv_memory_data_type_name_values)
{
    /* names from TF's types.proto and the reference's DataTypeString */
    ck_assert_str_eq(pv_memory_data_type_name(0, &arena), "INVALID");
    ck_assert_str_eq(pv_memory_data_type_name(1, &arena), "float");
    ck_assert_str_eq(pv_memory_data_type_name(9, &arena), "int64");
    ck_assert_str_eq(pv_memory_data_type_name(14, &arena), "bfloat16");
    ck_assert_str_eq(pv_memory_data_type_name(19, &arena), "half");
    ck_assert_str_eq(pv_memory_data_type_name(30, &arena), "uint4");
    ck_assert_str_eq(pv_memory_data_type_name(101, &arena), "float_ref");
    ck_assert_str_eq(pv_memory_data_type_name(77, &arena), "unknown dtype enum (77)");
}
END_TEST

/* ---- JSON ------------------------------------------------------------------------ */

static const char *jstr(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    ck_assert_msg(json_is_string(v), "%s is not a string", key);
    return json_string_value(v);
}

START_TEST(test_pv_memory_profile_to_json_shape)
{
    pv_model *m = build(basic, 5);
    pv_memory_profile_result r;
    run(m, 0, &r, "A");
    json_t *j = pv_memory_profile_to_json(m, &r, true);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "memoryIds"), 0)), "A");
    json_t *a = json_object_get(json_object_get(j, "memoryProfilePerAllocator"), "A");
    json_t *sum = json_object_get(a, "profileSummary");
    ck_assert_str_eq(jstr(sum, "peakBytesUsageLifetime"), "260");
    ck_assert_str_eq(jstr(sum, "peakStatsTimePs"), "40");
    ck_assert_str_eq(jstr(sum, "memoryCapacity"), "1000");
    json_t *ps = json_object_get(sum, "peakStats");
    ck_assert_str_eq(jstr(ps, "peakBytesInUse"), "250");
    ck_assert_str_eq(jstr(ps, "stackReservedBytes"), "0");
    ck_assert(json_real_value(json_object_get(ps, "fragmentation")) == 0.25);
    /* snapshots reduced to the one the op3 row points at, re-indexed */
    json_t *snaps = json_object_get(a, "memoryProfileSnapshots");
    ck_assert_uint_eq(json_array_size(snaps), 1);
    json_t *s0 = json_array_get(snaps, 0);
    ck_assert_str_eq(jstr(s0, "timeOffsetPs"), "40");
    json_t *md = json_object_get(s0, "activityMetadata");
    ck_assert_str_eq(jstr(md, "memoryActivity"), "ALLOCATION");
    ck_assert_str_eq(jstr(md, "address"), "768");
    ck_assert_str_eq(jstr(md, "tfOpName"), "op3");
    ck_assert_str_eq(jstr(md, "stepId"), "2");
    ck_assert_str_eq(jstr(md, "dataType"), "float");
    json_t *rows = json_object_get(a, "activeAllocations");
    ck_assert_uint_eq(json_array_size(rows), 2);
    ck_assert_str_eq(jstr(json_array_get(rows, 0), "snapshotIndex"), "0");
    ck_assert_str_eq(jstr(json_array_get(rows, 0), "specialIndex"), "-1");
    ck_assert_str_eq(jstr(json_array_get(rows, 1), "snapshotIndex"), "-1");
    ck_assert_str_eq(jstr(json_array_get(rows, 1), "specialIndex"), "0");
    ck_assert_str_eq(jstr(json_array_get(rows, 1), "numOccurrences"), "1");
    ck_assert_uint_eq(json_array_size(json_object_get(a, "specialAllocations")), 1);
    ck_assert_uint_eq(json_array_size(json_object_get(a, "sampledTimelineSnapshots")), 5);
    /* extras: op3 allocated at offset 40, freed at 50; the model starts at
     * the first event (offset 10), so 30 and 40 ps into the trace */
    json_t *times = json_array_get(json_object_get(a, "pvActiveAllocationTimes"), 0);
    ck_assert_str_eq(jstr(times, "allocPs"), "30");
    ck_assert_str_eq(jstr(times, "freePs"), "40");
    ck_assert(json_is_null(json_array_get(json_object_get(a, "pvActiveAllocationTimes"), 1)));
    json_decref(j);
    /* without extras the reference's keys only */
    j = pv_memory_profile_to_json(m, &r, false);
    a = json_object_get(json_object_get(j, "memoryProfilePerAllocator"), "A");
    ck_assert_uint_eq(json_object_size(a), 5);
    json_decref(j);
    pv_model_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("memory_profile");
    TCase *tc = tcase_create("pv_tool_memory_profile");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_pv_tool_memory_profile_summary);
    tcase_add_test(tc, test_pv_tool_memory_profile_free_takes_alloc_meta);
    tcase_add_test(tc, test_pv_tool_memory_profile_active_at_peak);
    tcase_add_test(tc, test_pv_tool_memory_profile_unknown_free_and_ties);
    tcase_add_test(tc, test_pv_tool_memory_profile_step_fix);
    tcase_add_test(tc, test_pv_tool_memory_profile_stack_special);
    tcase_add_test(tc, test_pv_tool_memory_profile_two_threads_sorted);
    tcase_add_test(tc, test_pv_tool_memory_profile_sampling_windows);
    tcase_add_test(tc, test_pv_tool_memory_profile_sampling_keeps_peak);
    tcase_add_test(tc, test_pv_tool_memory_profile_sampling_small);
    tcase_add_test(tc, test_pv_tool_memory_profile_allocators_sorted);
    tcase_add_test(tc, test_pv_tool_memory_profile_too_many_allocators);
    tcase_add_test(tc, test_pv_tool_memory_profile_no_host_plane);
    tcase_add_test(tc, test_pv_tool_memory_profile_host_without_memory_events);
    tcase_add_test(tc, test_pv_tool_memory_profile_hlo_modules);
    suite_add_tcase(s, tc);
    TCase *tn = tcase_create("pv_memory_data_type_name");
    tcase_add_checked_fixture(tn, setup, teardown);
    tcase_add_test(tn, test_pv_memory_data_type_name_values);
    suite_add_tcase(s, tn);
    TCase *tj = tcase_create("pv_memory_profile_to_json");
    tcase_add_checked_fixture(tj, setup, teardown);
    tcase_add_test(tj, test_pv_memory_profile_to_json_shape);
    suite_add_tcase(s, tj);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
