/* Tests of trace_tiles: hand-worked tiles, the accounting identity at every
 * level, tile edges, instants, deep nesting, and the pyramid agreeing with
 * tiles cut directly from the model. */
#include "model/builder.h"
#include "model_fixture.h"
#include "tools/trace_tiles/trace_tiles.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* ---- fixtures ------------------------------------------------------------- */

typedef struct ev_spec {
    int64_t start_ps, dur_ps;
} ev_spec;

/* One host track holding the given events, each with its own name. */
static pv_model *one_track(const ev_spec *ev, size_t n)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t pl = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t tr = pv_builder_track(b, pl, 7, "python3", 0);
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "e%zu", i);
        uint32_t meta = pv_builder_meta(b, pl, (int64_t)i + 1, name, NULL);
        pv_builder_event(b, tr, meta, ev[i].start_ps, ev[i].dur_ps);
    }
    return pv_test_finish(b);
}

/* The event id starting at start_ps (starts are unique in the fixtures). */
static uint64_t ev_at(const pv_model *m, int64_t start_ps)
{
    for (uint64_t e = 0; e < m->n_events; e++)
        if (m->ev_start_ps[e] == start_ps)
            return e;
    ck_abort_msg("no event starts at %lld", (long long)start_ps);
    return 0;
}

static pv_trace_tile get_tile(const pv_model *m, const pv_trace_pyramid *p, uint32_t level,
                              uint64_t index, pv_arena *a)
{
    pv_trace_tile t;
    pv_trace_tile_query q = {level, index};
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_trace_tile(m, p, &q, a, &t, &err), 0);
    return t;
}

static void ck_box(const pv_trace_box *b, int64_t s, int64_t e, uint32_t depth, uint64_t count,
                   int64_t busy)
{
    ck_assert_int_eq(b->start_ps, s);
    ck_assert_int_eq(b->end_ps, e);
    ck_assert_uint_eq(b->depth, depth);
    ck_assert_uint_eq(b->count, count);
    ck_assert_int_eq(b->busy_ps, busy);
}

/* The hand-worked fixture: a parent over 2^20 - 1 ps (so span = 2^20 and
 * the level-0 pixel is exactly 1024 ps, level 1 512 ps) and children. */
static const ev_spec hand[] = {
    {0, (1 << 20) - 1},  /* E0, depth 0, wide everywhere */
    {100, 10},           /* c1 */
    {200, 10},           /* c2: 90 ps after c1 */
    {5000, 2000},        /* c3: wide at level 0 (2000 >= 1024) */
    {8000, 0},           /* c4: instant */
    {9000, 5},           /* c5: 1000 ps after c4 (same box at level 0, not at 1) */
    {524000, 1000},      /* c7: crosses the level-1 edge at 524288; wide at 1 only */
    {600000, 100},       /* c6 */
};

/* ---- pv_trace_geom_of ------------------------------------------------------ */

START_TEST(test_geom_of_hand)
{
    pv_model *m = one_track(hand, sizeof hand / sizeof hand[0]);
    pv_trace_geom g = pv_trace_geom_of(m);
    ck_assert_int_eq(g.t0_ps, 0);
    ck_assert_int_eq(g.span_ps, 1 << 20);
    /* 2^20 >> 6 = 16384: the first level with tiles of at most 16384 ps */
    ck_assert_uint_eq(g.max_level, 6);
    ck_assert_int_eq(pv_trace_tile_edge(&g, 1, 1), 524288);
    ck_assert_int_eq(pv_trace_tile_edge(&g, 1, 2), 1 << 20);
    pv_model_free(m);
}
END_TEST

START_TEST(test_geom_of_empty)
{
    pv_model *m = one_track(NULL, 0);
    pv_trace_geom g = pv_trace_geom_of(m);
    ck_assert_int_eq(g.span_ps, 1);
    ck_assert_uint_eq(g.max_level, 0);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_tile t = get_tile(m, NULL, 0, 0, &a);
    ck_assert_uint_eq(t.n_rows, 0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- pv_tool_trace_tile ---------------------------------------------------- */

static void check_hand_level0(const pv_model *m, const pv_trace_tile *t)
{
    ck_assert_uint_eq(t->n_rows, 1);
    const pv_trace_row *r = &t->rows[0];
    ck_assert_uint_eq(r->n_events, 2);
    ck_assert_uint_eq(r->n_crossing, 0);
    ck_assert_uint_eq(r->events[0], ev_at(m, 0));
    ck_assert_uint_eq(r->events[1], ev_at(m, 5000));
    ck_assert_uint_eq(r->n_boxes, 4);
    ck_box(&r->boxes[0], 100, 210, 1, 2, 20);
    ck_box(&r->boxes[1], 8000, 9005, 1, 2, 5);
    ck_box(&r->boxes[2], 524000, 525000, 1, 1, 1000);
    ck_box(&r->boxes[3], 600000, 600100, 1, 1, 100);
}

START_TEST(test_tile_hand_level0)
{
    pv_model *m = one_track(hand, sizeof hand / sizeof hand[0]);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_tile t = get_tile(m, NULL, 0, 0, &a);
    ck_assert_int_eq(t.start_ps, 0);
    ck_assert_int_eq(t.end_ps, 1 << 20);
    check_hand_level0(m, &t);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

static void check_hand_level1(const pv_model *m, const pv_trace_tile *t0,
                              const pv_trace_tile *t1)
{
    const pv_trace_row *r = &t0->rows[0];
    ck_assert_uint_eq(r->n_events, 3);
    ck_assert_uint_eq(r->events[0], ev_at(m, 0));
    ck_assert_uint_eq(r->events[1], ev_at(m, 5000));
    ck_assert_uint_eq(r->events[2], ev_at(m, 524000));
    ck_assert_uint_eq(r->n_boxes, 3);
    ck_box(&r->boxes[0], 100, 210, 1, 2, 20);
    ck_box(&r->boxes[1], 8000, 8000, 1, 1, 0);
    ck_box(&r->boxes[2], 9000, 9005, 1, 1, 5);
    /* Second tile: the parent and c7 cross into it and are listed first of
     * their depth, but counted in the first tile only. */
    r = &t1->rows[0];
    ck_assert_int_eq(t1->start_ps, 524288);
    ck_assert_uint_eq(r->n_events, 2);
    ck_assert_uint_eq(r->n_crossing, 2);
    ck_assert_uint_eq(r->events[0], ev_at(m, 0));
    ck_assert_uint_eq(r->events[1], ev_at(m, 524000));
    ck_assert_uint_eq(r->n_boxes, 1);
    ck_box(&r->boxes[0], 600000, 600100, 1, 1, 100);
}

START_TEST(test_tile_hand_level1_edge)
{
    pv_model *m = one_track(hand, sizeof hand / sizeof hand[0]);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_tile t0 = get_tile(m, NULL, 1, 0, &a);
    pv_trace_tile t1 = get_tile(m, NULL, 1, 1, &a);
    check_hand_level1(m, &t0, &t1);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_tile_hand_from_pyramid)
{
    pv_model *m = one_track(hand, sizeof hand / sizeof hand[0]);
    pv_trace_pyramid_opts o = {0, (size_t)64 << 20, NULL, 0};   /* precompute every level */
    pv_trace_pyramid *p = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_trace_pyramid_new(m, NULL, &o, &p, &err), 0);
    ck_assert_uint_eq(pv_trace_pyramid_levels(p), 7);
    ck_assert_uint_gt(pv_trace_pyramid_bytes(p), 0);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_tile t = get_tile(m, p, 0, 0, &a);
    check_hand_level0(m, &t);
    pv_trace_tile t0 = get_tile(m, p, 1, 0, &a);
    pv_trace_tile t1 = get_tile(m, p, 1, 1, &a);
    check_hand_level1(m, &t0, &t1);
    pv_arena_fini(&a);
    pv_trace_pyramid_free(p);
    pv_model_free(m);
}
END_TEST

START_TEST(test_tile_bad_query)
{
    pv_model *m = one_track(hand, sizeof hand / sizeof hand[0]);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_tile t;
    pv_error err = {0};
    pv_trace_tile_query q = {7, 0};
    ck_assert_int_eq(pv_tool_trace_tile(m, NULL, &q, &a, &t, &err), PV_EINVAL);
    q = (pv_trace_tile_query){2, 4};
    ck_assert_int_eq(pv_tool_trace_tile(m, NULL, &q, &a, &t, &err), PV_EINVAL);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- identity and agreement on generated models ------------------------------ */

/* Checks, for every level, that each track's events starting in their tile
 * plus box counts add up to the track's n_events, that every event
 * overlapping a tile and wide enough is in it, and that direct and
 * pyramid tiles agree item by item. */
static void check_all_levels(const pv_model *m, const pv_trace_pyramid *p, uint32_t max_check)
{
    pv_trace_geom g = pv_trace_geom_of(m);
    uint32_t top = g.max_level < max_check ? g.max_level : max_check;
    uint64_t *count = calloc(m->n_tracks, sizeof *count);
    for (uint32_t level = 0; level <= top; level++) {
        memset(count, 0, m->n_tracks * sizeof *count);
        for (uint64_t i = 0; i < (1ull << level); i++) {
            pv_arena a;
            pv_arena_init(&a, 1 << 16);
            pv_trace_tile t = get_tile(m, NULL, level, i, &a);
            pv_trace_tile tp = get_tile(m, p, level, i, &a);
            ck_assert_uint_eq(t.n_rows, tp.n_rows);
            for (size_t r = 0; r < t.n_rows; r++) {
                const pv_trace_row *row = &t.rows[r], *rp = &tp.rows[r];
                ck_assert_uint_eq(row->track, rp->track);
                ck_assert_uint_eq(row->n_events, rp->n_events);
                ck_assert_uint_eq(row->n_crossing, rp->n_crossing);
                ck_assert_uint_eq(row->n_boxes, rp->n_boxes);
                ck_assert(memcmp(row->events, rp->events, row->n_events * 8) == 0);
                for (size_t k = 0; k < row->n_boxes; k++)
                    ck_box(&rp->boxes[k], row->boxes[k].start_ps, row->boxes[k].end_ps,
                           row->boxes[k].depth, row->boxes[k].count, row->boxes[k].busy_ps);
                uint64_t own = 0;
                for (size_t k = 0; k < row->n_events; k++) {
                    int64_t s = m->ev_start_ps[row->events[k]];
                    ck_assert(s < t.end_ps);
                    ck_assert(s + m->ev_dur_ps[row->events[k]] > t.start_ps ||
                              s >= t.start_ps);
                    own += s >= t.start_ps;
                }
                ck_assert_uint_eq(own, row->n_events - row->n_crossing);
                count[row->track] += own;
                for (size_t k = 0; k < row->n_boxes; k++) {
                    ck_assert(row->boxes[k].start_ps >= t.start_ps);
                    ck_assert(row->boxes[k].start_ps < t.end_ps);
                    count[row->track] += row->boxes[k].count;
                }
            }
            pv_arena_fini(&a);
        }
        for (uint32_t ti = 0; ti < m->n_tracks; ti++)
            ck_assert_msg(count[ti] == m->tracks[ti].n_events,
                          "level %u track %u: %llu counted, %llu events", level, ti,
                          (unsigned long long)count[ti],
                          (unsigned long long)m->tracks[ti].n_events);
    }
    free(count);
}

/* Deterministic pseudo-random numbers (xorshift), so failures repeat. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Three tracks: nested bursts of every size, instants on tile edges. */
static pv_model *random_model(uint64_t seed)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t pl = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t meta[4];
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "op%d", i);
        meta[i] = pv_builder_meta(b, pl, i + 1, name, NULL);
    }
    for (int tr = 0; tr < 3; tr++) {
        uint32_t t = pv_builder_track(b, pl, tr + 1, "thread", 0);
        int64_t at = 0;
        while (at < 40000000) {
            int64_t len = (int64_t)(rnd(&seed) % 2000000) + 1;
            pv_builder_event(b, t, meta[0], at, len);
            /* children inside the parent, at shrinking sizes */
            int64_t c = at;
            while (c < at + len - 10) {
                int64_t cl = (int64_t)(rnd(&seed) % (uint64_t)(len / 8 + 1));
                if (c + cl > at + len)
                    break;
                pv_builder_event(b, t, meta[1 + rnd(&seed) % 3], c, cl);
                c += cl + (int64_t)(rnd(&seed) % 3000);
            }
            at += len + (int64_t)(rnd(&seed) % 500000);
        }
    }
    /* instants exactly on level-3 tile edges of [0, 2^26) */
    uint32_t t = pv_builder_track(b, pl, 99, "marks", 0);
    for (int64_t k = 0; k <= 8; k++)
        pv_builder_event(b, t, meta[0], k << 23, 0);
    return pv_test_finish(b);
}

START_TEST(test_tile_identity_every_level)
{
    pv_model *m = random_model(88172645463325252ull);
    pv_trace_pyramid_opts o = {200, (size_t)64 << 20, NULL, 0};
    pv_trace_pyramid *p = NULL;
    ck_assert_int_eq(pv_trace_pyramid_new(m, NULL, &o, &p, NULL), 0);
    ck_assert_uint_gt(pv_trace_pyramid_levels(p), 2);
    check_all_levels(m, p, 12);
    pv_trace_pyramid_free(p);
    pv_model_free(m);
}
END_TEST

START_TEST(test_tile_instants_on_edges)
{
    /* Instants at 0, 1/4 and 1/2 of the span, and at its last ps. */
    static const ev_spec inst[] = {{0, 0}, {1 << 18, 0}, {1 << 19, 0}, {(1 << 20) - 1, 0}};
    pv_model *m = one_track(inst, 4);
    pv_trace_geom g = pv_trace_geom_of(m);
    ck_assert_int_eq(g.span_ps, 1 << 20);
    pv_arena a;
    pv_arena_init(&a, 4096);
    /* Level 2: each instant is a box of one in the tile it starts in; the
     * last one (at span - 1) is in the last tile. */
    uint64_t expect[4] = {1, 1, 1, 1};
    for (uint64_t i = 0; i < 4; i++) {
        pv_trace_tile t = get_tile(m, NULL, 2, i, &a);
        uint64_t n = 0;
        for (size_t r = 0; r < t.n_rows; r++) {
            ck_assert_uint_eq(t.rows[r].n_events, 0);
            for (size_t k = 0; k < t.rows[r].n_boxes; k++)
                n += t.rows[r].boxes[k].count;
        }
        ck_assert_uint_eq(n, expect[i]);
    }
    pv_arena_fini(&a);
    pv_trace_pyramid *p = NULL;
    pv_trace_pyramid_opts o = {0, (size_t)1 << 20, NULL, 0};
    ck_assert_int_eq(pv_trace_pyramid_new(m, NULL, &o, &p, NULL), 0);
    check_all_levels(m, p, 20);
    pv_trace_pyramid_free(p);
    pv_model_free(m);
}
END_TEST

START_TEST(test_tile_deep_nesting)
{
    /* 200 events each inside the previous: depth 0..199. */
    ev_spec deep[200];
    for (int i = 0; i < 200; i++)
        deep[i] = (ev_spec){(int64_t)i * 1000, 1000000 - (int64_t)i * 2000};
    pv_model *m = one_track(deep, 200);
    ck_assert_uint_eq(m->tracks[0].n_depths, 200);
    pv_arena a;
    pv_arena_init(&a, 4096);
    /* span 10^6 + 1 - ... : the outermost is 10^6 ps; level-0 pixel ~977 ps,
     * so an event is wide while its duration is >= 977 ps: all 200 are
     * (the innermost is 602000 ps). */
    pv_trace_tile t = get_tile(m, NULL, 0, 0, &a);
    ck_assert_uint_eq(t.rows[0].n_events, 200);
    for (size_t k = 0; k < 200; k++)
        ck_assert_uint_eq(m->ev_depth[t.rows[0].events[k]], k);
    pv_arena_fini(&a);
    pv_trace_pyramid *p = NULL;
    pv_trace_pyramid_opts o = {0, (size_t)1 << 20, NULL, 0};
    ck_assert_int_eq(pv_trace_pyramid_new(m, NULL, &o, &p, NULL), 0);
    check_all_levels(m, p, 8);
    pv_trace_pyramid_free(p);
    pv_model_free(m);
}
END_TEST

START_TEST(test_tile_blocks_of_small_events)
{
    /* 1000 events of 10 ps every 15 ps, then a wide one, then 1000 more:
     * span 30010 + ... ; at level 0 (pixel ~30 ps) the runs are boxes of
     * 1000 each around the wide event, whether blocks are skipped (with a
     * pyramid) or every event is walked (without). */
    ev_spec *ev = calloc(2001, sizeof *ev);
    for (int i = 0; i < 1000; i++)
        ev[i] = (ev_spec){(int64_t)i * 15, 10};
    ev[1000] = (ev_spec){15000, 100};
    for (int i = 0; i < 1000; i++)
        ev[1001 + i] = (ev_spec){15100 + (int64_t)i * 15, 10};
    pv_model *m = one_track(ev, 2001);
    free(ev);
    pv_trace_geom g = pv_trace_geom_of(m);
    ck_assert_int_eq(g.span_ps, 15100 + 999 * 15 + 10 + 1);   /* pixel 29.4 ps */
    pv_trace_pyramid_opts o = {1u << 20, (size_t)1 << 20, NULL, 0};  /* level 0 only */
    pv_trace_pyramid *p = NULL;
    ck_assert_int_eq(pv_trace_pyramid_new(m, NULL, &o, &p, NULL), 0);
    ck_assert_uint_eq(pv_trace_pyramid_levels(p), 1);
    pv_arena a;
    pv_arena_init(&a, 4096);
    /* level 1 is cut with blocks: tile 0 is [0, 15048), pixel 14.7 ps */
    pv_trace_tile t = get_tile(m, p, 1, 0, &a);
    ck_assert_uint_eq(t.rows[0].n_events, 1);      /* the 100 ps event (pixel 14.7) */
    ck_assert_uint_eq(t.rows[0].n_boxes, 1);
    ck_box(&t.rows[0].boxes[0], 0, 999 * 15 + 10, 0, 1000, 10000);
    pv_trace_tile t1 = get_tile(m, p, 1, 1, &a);
    ck_assert_uint_eq(t1.rows[0].n_events, 1);     /* the wide one, crossing in */
    ck_assert_uint_eq(t1.rows[0].n_crossing, 1);
    ck_assert_uint_eq(t1.rows[0].n_boxes, 1);
    ck_box(&t1.rows[0].boxes[0], 15100, 30095, 0, 1000, 10000);
    pv_arena_fini(&a);
    check_all_levels(m, p, 14);
    pv_trace_pyramid_free(p);
    pv_model_free(m);
}
END_TEST

/* ---- pv_trace_tile_write_json ------------------------------------------------- */

START_TEST(test_write_json_hand)
{
    pv_model *m = one_track(hand, 3);   /* E0, c1, c2: span 2^20 */
    pv_trace_geom g = pv_trace_geom_of(m);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_tile t = get_tile(m, NULL, 0, 0, &a);
    pv_buf b;
    pv_buf_init(&b, 1 << 20);
    ck_assert_int_eq(pv_trace_tile_write_json(m, &g, &t, NULL, &a, &b), 0);
    char expect[512];
    snprintf(expect, sizeof expect,
             "{\"level\":0,\"index\":0,\"start_ps\":0,\"end_ps\":1048576,\"tracks\":"
             "[{\"track\":0,\"events\":[[%llu,0,1048575,0,0]],\"boxes\":[[100,210,1,2,20]]}],"
             "\"names\":[\"e0\"],\"counters\":[]}",
             (unsigned long long)ev_at(m, 0));
    ck_assert_str_eq(b.data, expect);
    pv_buf_fini(&b);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- pv_trace_tile_write_bin -------------------------------------------------- */

/* Writes tile (level, index) of m in binary, its rows dropped when
 * no_rows is set and the counters section given, and checks the bytes
 * against want. Frees m. */
static void check_bin(pv_model *m, uint32_t level, uint64_t index, bool no_rows,
                      const unsigned char *counters, size_t n_counters,
                      const unsigned char *want, size_t n_want)
{
    pv_trace_geom g = pv_trace_geom_of(m);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_trace_tile t = get_tile(m, NULL, level, index, &a);
    if (no_rows)
        t.n_rows = 0;
    pv_buf b;
    pv_buf_init(&b, 1 << 20);
    ck_assert_int_eq(pv_trace_tile_write_bin(m, &g, &t, counters, n_counters, &a, &b), 0);
    ck_assert_uint_eq(b.len, n_want);
    for (size_t i = 0; i < n_want; i++)
        ck_assert_msg((unsigned char)b.data[i] == want[i], "byte %zu: %02x, want %02x", i,
                      (unsigned char)b.data[i], want[i]);
    pv_buf_fini(&b);
    pv_arena_fini(&a);
    pv_model_free(m);
}

/* Tile 1 of level 1 of the hand model, encoded by hand (docs/trace_api.md,
 * "Binary tiles"): E0 and c7 cross into it from the left, so their start
 * deltas are negative. */
START_TEST(test_write_bin_hand)
{
    pv_model *m = one_track(hand, sizeof hand / sizeof hand[0]);
    /* one track, events numbered by start: E0 is 0, c7 (starts 524000) 6 */
    ck_assert_uint_eq(ev_at(m, 0), 0);
    ck_assert_uint_eq(ev_at(m, 524000), 6);
    static const unsigned char expect[] = {
        'P', 'V', 'T', '1',
        0x01, 0x01,                  /* level 1, index 1 */
        0x80, 0x80, 0x20,            /* start 524288 = 2^19 */
        0x80, 0x80, 0x20,            /* end - start 524288 */
        0x01,                        /* time unit 1 ps: E0 lasts 1048575 ps */
        0x01,                        /* one track */
        0x00, 0x02, 0x01,            /* track 0: 2 events, 1 box */
        0x00, 0x0c,                  /* ids: 0 - 0 -> zz 0; 6 - 0 -> zz 12 */
        0xff, 0xff, 0x3f,            /* start 0 - 524288 -> zz 2^20 - 1 */
        0xc0, 0xfb, 0x3f,            /* 524000 - 0 -> zz 1048000 = 63*2^14 + 123*2^7 + 64 */
        0xff, 0xff, 0x3f,            /* dur 1048575 */
        0xe8, 0x07,                  /* dur 1000 = 7*128 + 104 */
        0x00, 0x01,                  /* depths */
        0x00, 0x01,                  /* names "e0", "e6" */
        0x80, 0x9f, 0x09,            /* box start 600000 - 524288 = 75712 -> zz 151424 */
        0x64, 0x01, 0x01, 0x64,      /* end - start 100, depth 1, count 1, busy 100 */
        0x02, 0x05, 'e', '0', 0, 'e', '6',   /* 2 names, 5 bytes */
        0x00,                        /* no counters */
    };
    check_bin(m, 1, 1, false, NULL, 0, expect, sizeof expect);
}
END_TEST

/* A tile without rows (as one of an empty region): the header, no tracks,
 * no names, the counters section as given. Instants at 0 and 2^35 ps make
 * the span 2^35 + 1, a six-byte varint; with no times to divide, the
 * unit is the largest, 10^6 ps. */
START_TEST(test_write_bin_empty_tile)
{
    ev_spec two[] = {{0, 0}, {(int64_t)1 << 35, 0}};
    pv_model *m = one_track(two, 2);
    const unsigned char counters[] = {0x00};
    static const unsigned char expect[] = {
        'P', 'V', 'T', '1', 0, 0, 0,              /* level, index, start 0 */
        0x81, 0x80, 0x80, 0x80, 0x80, 0x01,       /* 2^35 + 1 */
        0xc0, 0x84, 0x3d,                         /* 10^6 = 61*2^14 + 4*2^7 + 64 */
        0, 0, 0,                                  /* no tracks, no names (0 bytes) */
        0,                                        /* the counters as given */
    };
    check_bin(m, 0, 0, true, counters, 1, expect, sizeof expect);
}
END_TEST

/* Whole nanoseconds: the unit is 1000 ps and every time is sent in it.
 * E at 1000 for 4000 ps holds c at 3000 for 1000 ps; t0 = 1000, span
 * 4001, both wide at level 0 (pixel 4001 / 1024 ps). */
START_TEST(test_write_bin_unit)
{
    ev_spec ns[] = {{1000, 4000}, {3000, 1000}};
    pv_model *m = one_track(ns, 2);
    ck_assert_uint_eq(ev_at(m, 1000), 0);
    ck_assert_uint_eq(ev_at(m, 3000), 1);
    static const unsigned char expect[] = {
        'P', 'V', 'T', '1', 0x00, 0x00, 0x00,   /* level 0, index 0, start 0 */
        0xa1, 0x1f,                  /* span 4001 = 31*128 + 33 */
        0xe8, 0x07,                  /* unit 1000 */
        0x01, 0x00, 0x02, 0x00,      /* track 0: 2 events, no box */
        0x00, 0x02,                  /* ids 0, 1 */
        0x00, 0x04,                  /* starts 0, 2 units (zz 4) after */
        0x04, 0x01,                  /* durations 4 and 1 units */
        0x00, 0x01, 0x00, 0x01,      /* depths, names */
        0x02, 0x05, 'e', '0', 0, 'e', '1',
        0x00,
    };
    check_bin(m, 0, 0, false, NULL, 0, expect, sizeof expect);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace_tiles");
    TCase *tc = tcase_create("pv_trace_geom_of");
    tcase_add_test(tc, test_geom_of_hand);
    tcase_add_test(tc, test_geom_of_empty);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_trace_tile");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_tile_hand_level0);
    tcase_add_test(tc, test_tile_hand_level1_edge);
    tcase_add_test(tc, test_tile_hand_from_pyramid);
    tcase_add_test(tc, test_tile_bad_query);
    tcase_add_test(tc, test_tile_identity_every_level);
    tcase_add_test(tc, test_tile_instants_on_edges);
    tcase_add_test(tc, test_tile_deep_nesting);
    tcase_add_test(tc, test_tile_blocks_of_small_events);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_trace_tile_write_json");
    tcase_add_test(tc, test_write_json_hand);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_trace_tile_write_bin");
    tcase_add_test(tc, test_write_bin_hand);
    tcase_add_test(tc, test_write_bin_empty_tile);
    tcase_add_test(tc, test_write_bin_unit);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
