/* Every event in exactly one tile at every level, edges included (#39):
 * over HTTP with the real binary, on a hand-built trace whose every event
 * this test wrote itself (so its list is the independent count), every
 * tile of every level, in both forms (format=json, and format=bin read by
 * tile_decode.c from docs/trace_api.md).
 *
 * The trace is built around the tile edges of docs/trace_api.md, which
 * are floor(span * I / 2^L) for a span that is no power of two: at each
 * edge of the finest level (and so of every level) a track has an event
 * that starts on it, one that ends on it and an instant on it, one that
 * straddles it by a picosecond or more, a run of tiny events across it,
 * nested children, events of a pixel and a picosecond less, instants a
 * pixel and a pixel and a picosecond apart,
 * and a scatter of events between the edges. Durations
 * vary so that each event is wide at some levels and small at others.
 *
 * "Accounted for" (docs/trace_api.md, "tile"), at level L, pixel =
 * span / 2^L / 1024, an event wide when dur >= pixel:
 *   - a wide event is listed, with its own start, duration, depth and
 *     name, in every tile it overlaps ([start, start + dur) meets the
 *     tile's [start, end)) and in no other; the tile holding its start
 *     owns it, so it is owned exactly once;
 *   - a small event is in exactly one box of its track and depth, in the
 *     tile holding its start: the box's [start_ps, end_ps] holds it, the
 *     box's count is the number of such events, its busy_ps their summed
 *     durations, its start the first one's start and its end the latest
 *     end among them; and it follows the box rule: its events are
 *     consecutive at their depth, each within a pixel of the box's end so
 *     far, and the next event of that depth in the tile is wide or more
 *     than a pixel past its end;
 *   - nothing else is listed, and per track the events owned plus the box
 *     counts of a level add up to the events this test wrote there, which
 *     is also the meta's n_events for the thread. */
#include "httpc.h"
#include "testutil.h"
#include "tile_decode.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The span: no power of two, so floor() in the edges matters. */
#define SPAN 3000001
#define N_TIDS 7
#define MAX_EVENTS 8192
#define TILE_PX 1024

typedef struct ev {
    int tid;             /* 1 .. N_TIDS */
    int64_t start, dur;  /* ps from the trace's first start */
    int depth;           /* nesting depth by construction */
    bool instant;        /* written as "ph":"i" (dur 0) */
    /* per level and form, reset for each */
    int owned, in_boxes, drawn;
    json_int_t id;       /* the server's id, once seen; -1 before */
} ev;

static ev evs[MAX_EVENTS];
static size_t n_evs;

static void add(int tid, int64_t start, int64_t dur, int depth, bool instant)
{
    ck_assert_uint_lt(n_evs, MAX_EVENTS);
    ck_assert_int_ge(start, 0);
    ck_assert_int_le(start + dur, SPAN - 1);
    evs[n_evs++] = (ev){tid, start, dur, depth, instant, 0, 0, 0, -1};
}

/* The edge of docs/trace_api.md: floor(span * index / 2^level). */
static int64_t edge(int level, int64_t index)
{
    return (int64_t)(((unsigned __int128)SPAN * (unsigned __int128)index) >> level);
}

/* The finest level of trace_tiles.h: tiles of at most 16384 ps. */
static int finest_level(void)
{
    int l = 0;
    while ((SPAN >> l) > 16384)
        l++;
    return l;
}

/* Events around every edge of the finest level, and between them. Each
 * track keeps its depth-0 events apart (the edges are 11,718 ps apart and
 * no pattern reaches 5,000 ps from its edge), so the depths are the ones
 * written here. */
static void build(void)
{
    n_evs = 0;
    uint64_t rnd = 0x9e3779b97f4a7c15u;
    int top = finest_level();
    /* the first start and the last end fix t0 and the span */
    add(6, 0, 900, 0, false);
    for (int64_t i = 1; i < ((int64_t)1 << top); i++) {
        int64_t e = edge(top, i);
        /* a duration of exactly a pixel (rounded up) of some level, one
         * picosecond less, or any */
        int64_t unit = (int64_t)TILE_PX << ((i / 4) % (top + 1));
        int64_t d = i % 4 == 0   ? (SPAN + unit - 1) / unit
                    : i % 4 == 1 ? (SPAN + unit - 1) / unit - 1
                                 : 1 + (int64_t)(pv_test_random(&rnd) % 4000);
        /* tid 1: starts on the edge, a child from the same start */
        add(1, e, d, 0, false);
        if (d > 1)
            add(1, e, d / 2, 1, false);
        /* tid 2: ends on the edge, an instant on it, and one more after */
        add(2, e - d, d, 0, false);
        add(2, e, 0, 0, true);
        add(2, e + 1, 1 + (int64_t)(pv_test_random(&rnd) % 3000), 0, false);
        /* tid 3: straddles the edge by 1 ps, or by more */
        int64_t a = i % 3 == 0 ? 1 : 1 + (int64_t)(pv_test_random(&rnd) % 2000);
        int64_t b = i % 5 == 0 ? 1 : 1 + (int64_t)(pv_test_random(&rnd) % 2000);
        add(3, e - a, a + b, 0, false);
        add(3, e - a, a, 1, false);   /* its child up to the edge */
        /* tid 4: a run of tiny events across the edge */
        add(4, e - 3, 1, 0, false);
        add(4, e - 1, 1, 0, false);
        add(4, e, 2, 0, false);
        add(4, e + 2, 0, 0, true);
        add(4, e + 3, 1, 0, false);
        /* tid 5: instants just before, on and just after the edge */
        add(5, e - 1, 0, 0, true);
        add(5, e, 0, 0, true);
        add(5, e + 1, 0, 0, true);
        /* tid 7: three instants whose gaps are the floor of level
         * (i mod levels)'s pixel and one more: the first two share a box
         * at that level, the third opens another */
        int64_t px = SPAN / ((int64_t)TILE_PX << (i % (top + 1)));
        add(7, e + 1000, 0, 0, true);
        add(7, e + 1000 + px, 0, 0, true);
        add(7, e + 1000 + 2 * px + 1, 0, 0, true);
        /* tid 6: a few events between this edge and the next, some with
         * a child, of every size */
        int64_t next = edge(top, i + 1), at = e + 5000;
        while (at + 600 < next - 5000) {
            int64_t len = 1 + (int64_t)(pv_test_random(&rnd) % 500);
            add(6, at, len, 0, false);
            if (len > 2 && pv_test_random(&rnd) % 2 == 0)
                add(6, at + 1, len - 2, 1, false);
            at += len + (int64_t)(pv_test_random(&rnd) % 100);
        }
    }
    add(6, SPAN - 1 - 900, 900, 0, false);
}

/* The trace as Chrome JSON, times in microseconds to the picosecond. */
static char *trace_json(size_t *len)
{
    size_t cap = n_evs * 128 + 64, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "{\"traceEvents\":[\n");
    for (size_t i = 0; i < n_evs; i++) {
        const ev *e = &evs[i];
        /* 1 ms in front, so no time is 0 */
        int64_t t = 1000000000 + e->start;
        n += (size_t)snprintf(s + n, cap - n,
                              "%s{\"ph\":\"%s\",\"name\":\"e%05zu\",\"pid\":1,\"tid\":%d,"
                              "\"ts\":%lld.%06lld",
                              i ? ",\n" : "", e->instant ? "i" : "X", i, e->tid,
                              (long long)(t / 1000000), (long long)(t % 1000000));
        if (e->instant)
            n += (size_t)snprintf(s + n, cap - n, ",\"s\":\"t\"}");
        else
            n += (size_t)snprintf(s + n, cap - n, ",\"dur\":%lld.%06lld}",
                                  (long long)(e->dur / 1000000), (long long)(e->dur % 1000000));
    }
    n += (size_t)snprintf(s + n, cap - n, "\n]}\n");
    ck_assert_uint_lt(n, cap);
    *len = n;
    return s;
}

/* ---- one tile ------------------------------------------------------------------- */

typedef struct level_ctx {
    int level;
    int64_t tile_start, tile_end;
    int track_tid[64];      /* track id -> tid, 0 when none */
    const char *where;      /* "level L index I form" for messages */
} level_ctx;

static bool wide(const level_ctx *c, int64_t dur)
{
    /* dur >= span / 2^L / 1024, exactly */
    return (unsigned __int128)dur * ((unsigned __int128)TILE_PX << c->level) >=
           (unsigned __int128)SPAN;
}

static json_int_t num(const json_t *row, size_t k)
{
    const json_t *v = json_array_get(row, k);
    ck_assert(json_is_integer(v));
    return json_integer_value(v);
}

static void account_events(level_ctx *c, int tid, const json_t *events, const json_t *names)
{
    json_int_t last_depth = -1, last_start = 0;
    size_t i;
    json_t *row;
    json_array_foreach(events, i, row) {
        json_int_t id = num(row, 0), start = num(row, 1), dur = num(row, 2), depth = num(row, 3);
        const char *name = json_string_value(json_array_get(names, (size_t)num(row, 4)));
        ck_assert_msg(name != NULL && name[0] == 'e', "%s: event %lld has no name of ours",
                      c->where, (long long)id);
        size_t k = (size_t)strtoul(name + 1, NULL, 10);
        ck_assert_uint_lt(k, n_evs);
        ev *e = &evs[k];
        ck_assert_msg(e->tid == tid && e->start == start && e->dur == dur && e->depth == depth,
                      "%s: %s drawn as tid %d [%lld +%lld] depth %lld, written as tid %d "
                      "[%lld +%lld] depth %d",
                      c->where, name, tid, (long long)start, (long long)dur, (long long)depth,
                      e->tid, (long long)e->start, (long long)e->dur, e->depth);
        ck_assert_msg(e->id < 0 || e->id == id, "%s: %s has ids %lld and %lld", c->where, name,
                      (long long)e->id, (long long)id);
        e->id = id;
        ck_assert_msg(wide(c, dur), "%s: %s (%lld ps) drawn but smaller than a pixel", c->where,
                      name, (long long)dur);
        ck_assert_msg(start < c->tile_end && start + dur > c->tile_start,
                      "%s: %s [%lld, %lld) drawn outside the tile [%lld, %lld)", c->where, name,
                      (long long)start, (long long)(start + dur), (long long)c->tile_start,
                      (long long)c->tile_end);
        e->drawn++;
        if (start >= c->tile_start)
            e->owned++;
        /* by depth then start */
        ck_assert_msg(depth > last_depth || (depth == last_depth && start >= last_start),
                      "%s: events out of order at %s", c->where, name);
        last_depth = depth;
        last_start = start;
    }
}

/* Whether a gap of g ps is more than a pixel (span / 2^L / 1024), exactly. */
static bool past_pixel(const level_ctx *c, int64_t g)
{
    return g > 0 && (unsigned __int128)g * ((unsigned __int128)TILE_PX << c->level) >
                        (unsigned __int128)SPAN;
}

/* Event indices of each tid by depth, then start. */
static size_t *by_tid[N_TIDS + 1];
static size_t n_by_tid[N_TIDS + 1];

static int cmp_depth_start(const void *a, const void *b)
{
    const ev *x = &evs[*(const size_t *)a], *y = &evs[*(const size_t *)b];
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void sort_by_tid(void)
{
    for (int t = 1; t <= N_TIDS; t++) {
        free(by_tid[t]);
        by_tid[t] = calloc(n_evs, sizeof *by_tid[t]);
        n_by_tid[t] = 0;
        for (size_t k = 0; k < n_evs; k++)
            if (evs[k].tid == t)
                by_tid[t][n_by_tid[t]++] = k;
        qsort(by_tid[t], n_by_tid[t], sizeof *by_tid[t], cmp_depth_start);
    }
}

/* Each box holds the small events it says (count, busy time, start, end)
 * and follows the box rule: its events are consecutive at their depth,
 * each starts at most a pixel after the box's end so far, and the next
 * event of that depth in the tile is wide or starts more than a pixel
 * after the box's end. */
static void account_boxes(level_ctx *c, int tid, const json_t *boxes)
{
    const size_t *order = by_tid[tid];
    size_t n_order = n_by_tid[tid];
    size_t i;
    json_t *row;
    json_array_foreach(boxes, i, row) {
        json_int_t bs = num(row, 0), be = num(row, 1), depth = num(row, 2), count = num(row, 3),
                   busy = num(row, 4);
        json_int_t n = 0, sum = 0, first = INT64_MAX, last_end = INT64_MIN;
        size_t p_first = SIZE_MAX, p_last = 0;
        for (size_t p = 0; p < n_order; p++) {
            ev *e = &evs[order[p]];
            if (e->depth != depth || wide(c, e->dur) || e->start < bs || e->start > be ||
                e->start < c->tile_start || e->start >= c->tile_end)
                continue;
            ck_assert_msg(p_first == SIZE_MAX || p == p_last + 1,
                          "%s: tid %d box [%lld, %lld] skips e%05zu at its depth", c->where, tid,
                          (long long)bs, (long long)be, order[p_last + 1]);
            ck_assert_msg(n == 0 || !past_pixel(c, e->start - last_end),
                          "%s: tid %d box [%lld, %lld] holds e%05zu %lld ps after its end, more "
                          "than a pixel", c->where, tid, (long long)bs, (long long)be, order[p],
                          (long long)(e->start - last_end));
            if (p_first == SIZE_MAX)
                p_first = p;
            p_last = p;
            e->in_boxes++;
            n++;
            sum += e->dur;
            first = e->start < first ? e->start : first;
            last_end = e->start + e->dur > last_end ? e->start + e->dur : last_end;
        }
        ck_assert_msg(n == count && sum == busy && first == bs && last_end == be,
                      "%s: tid %d box [%lld, %lld] depth %lld says %lld events, %lld ps busy; "
                      "it holds %lld small events of ours, %lld ps, [%lld, %lld]",
                      c->where, tid, (long long)bs, (long long)be, (long long)depth,
                      (long long)count, (long long)busy, (long long)n, (long long)sum,
                      (long long)first, (long long)last_end);
        if (p_last + 1 < n_order) {
            const ev *next = &evs[order[p_last + 1]];
            ck_assert_msg(next->depth != depth || next->start >= c->tile_end ||
                              wide(c, next->dur) || past_pixel(c, next->start - be),
                          "%s: tid %d box [%lld, %lld] closed, but small e%05zu starts %lld ps "
                          "after its end, within a pixel",
                          c->where, tid, (long long)bs, (long long)be, order[p_last + 1],
                          (long long)(next->start - be));
        }
    }
}

static void account_tile(level_ctx *c, const json_t *tile, int64_t index)
{
    ck_assert_int_eq(json_integer_value(json_object_get(tile, "level")), c->level);
    ck_assert_int_eq(json_integer_value(json_object_get(tile, "index")), index);
    ck_assert_int_eq(json_integer_value(json_object_get(tile, "start_ps")), c->tile_start);
    ck_assert_int_eq(json_integer_value(json_object_get(tile, "end_ps")), c->tile_end);
    const json_t *names = json_object_get(tile, "names");
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(tile, "tracks"), i, t) {
        json_int_t track = json_integer_value(json_object_get(t, "track"));
        ck_assert_msg(track >= 0 && track < 64 && c->track_tid[track] != 0, "%s: track %lld",
                      c->where, (long long)track);
        const json_t *events = json_object_get(t, "events"), *boxes = json_object_get(t, "boxes");
        ck_assert_msg(json_array_size(events) + json_array_size(boxes) > 0,
                      "%s: track %lld listed with nothing in it", c->where, (long long)track);
        account_events(c, c->track_tid[track], events, names);
        account_boxes(c, c->track_tid[track], boxes);
    }
}

/* After every tile of a level in one form: each event accounted for once. */
static void check_level(const level_ctx *c, const char *form)
{
    for (size_t k = 0; k < n_evs; k++) {
        ev *e = &evs[k];
        if (wide(c, e->dur)) {
            /* the tiles it overlaps: from the one holding its start to the
             * one holding its last picosecond */
            int64_t first = -1, last = -1;
            for (int64_t i = 0; i < ((int64_t)1 << c->level); i++) {
                if (edge(c->level, i) <= e->start && e->start < edge(c->level, i + 1))
                    first = i;
                if (edge(c->level, i) <= e->start + e->dur - 1 &&
                    e->start + e->dur - 1 < edge(c->level, i + 1))
                    last = i;
            }
            ck_assert_msg(e->owned == 1 && e->in_boxes == 0 && e->drawn == last - first + 1,
                          "level %d %s: wide e%05zu (tid %d [%lld +%lld]) owned %d times, in %d "
                          "boxes, drawn in %d tiles, want 1, 0, %lld",
                          c->level, form, k, e->tid, (long long)e->start, (long long)e->dur,
                          e->owned, e->in_boxes, e->drawn, (long long)(last - first + 1));
        } else {
            ck_assert_msg(e->in_boxes == 1 && e->drawn == 0,
                          "level %d %s: small e%05zu (tid %d [%lld +%lld] depth %d) in %d boxes, "
                          "drawn %d times, want 1 and 0",
                          c->level, form, k, e->tid, (long long)e->start, (long long)e->dur,
                          e->depth, e->in_boxes, e->drawn);
        }
        e->owned = e->in_boxes = e->drawn = 0;
    }
}

/* ---- the test ---------------------------------------------------------------------- */

static json_t *get_json(const pv_test_server *s, const char *path)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == 200, "%s: %d %.300s", path, r.status, r.body);
    json_t *j = json_loadb(r.body, r.len, 0, NULL);
    ck_assert_msg(j != NULL, "%s: not JSON", path);
    pv_test_reply_free(&r);
    return j;
}

static json_t *get_bin(const pv_test_server *s, const char *path)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, NULL, &r), 0);
    ck_assert_msg(r.status == 200, "%s: %d", path, r.status);
    json_t *j = pv_test_tile_from_bin((const unsigned char *)r.body, r.len);
    ck_assert_msg(j != NULL, "%s: not a binary tile", path);
    pv_test_reply_free(&r);
    return j;
}

/* The meta: the span, the levels, and per thread the events written. */
static int read_meta(const pv_test_server *s, level_ctx *c)
{
    json_t *meta = get_json(s, "/api/trace/meta?run=r&host=h");
    ck_assert_int_eq(json_integer_value(json_object_get(meta, "span_ps")), SPAN);
    ck_assert_int_eq(json_integer_value(json_object_get(meta, "n_events")), (json_int_t)n_evs);
    ck_assert_int_eq(json_integer_value(json_object_get(meta, "tile_px")), TILE_PX);
    int max_level = (int)json_integer_value(json_object_get(meta, "max_level"));
    ck_assert_int_eq(max_level, finest_level());
    json_t *procs = json_object_get(meta, "processes");
    ck_assert_uint_eq(json_array_size(procs), 1);
    size_t i;
    json_t *t;
    memset(c->track_tid, 0, sizeof c->track_tid);
    json_array_foreach(json_object_get(json_array_get(procs, 0), "threads"), i, t) {
        json_int_t track = json_integer_value(json_object_get(t, "track"));
        int tid = (int)json_integer_value(json_object_get(t, "tid"));
        ck_assert(track >= 0 && track < 64 && tid >= 1 && tid <= N_TIDS);
        c->track_tid[track] = tid;
        json_int_t want = 0;
        for (size_t k = 0; k < n_evs; k++)
            want += evs[k].tid == tid;
        ck_assert_int_eq(json_integer_value(json_object_get(t, "n_events")), want);
    }
    ck_assert_uint_eq(i, N_TIDS);
    json_decref(meta);
    return max_level;
}

START_TEST(test_every_event_in_one_tile_per_level)
{
    char dir[] = "/tmp/pv_tile_accounting_XXXXXX", cache[] = "/tmp/pv_tile_cache_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(mkdtemp(cache));
    build();
    sort_by_tid();
    size_t len;
    char *json = trace_json(&len);
    pv_test_write_file(dir, "r/h.pt.trace.json", json, len, 60);
    free(json);
    pv_test_server s;
    const char *extra[] = {"--cache-dir", cache, NULL};
    ck_assert_int_eq(pv_test_server_start(&s, dir, extra), 0);
    ck_assert_int_eq(pv_test_server_wait_for(&s, "r", "h"), 0);
    level_ctx c = {0};
    int max_level = read_meta(&s, &c);
    size_t tiles = 0;
    for (int level = 0; level <= max_level; level++) {
        c.level = level;
        for (int form = 0; form < 2; form++) {
            for (int64_t i = 0; i < ((int64_t)1 << level); i++) {
                char path[256], where[96];
                snprintf(path, sizeof path, "/api/trace/tile?run=r&host=h&level=%d&index=%lld%s",
                         level, (long long)i, form ? "&format=bin" : "&format=json");
                snprintf(where, sizeof where, "level %d index %lld %s", level, (long long)i,
                         form ? "bin" : "json");
                c.where = where;
                c.tile_start = edge(level, i);
                c.tile_end = edge(level, i + 1);
                json_t *tile = form ? get_bin(&s, path) : get_json(&s, path);
                account_tile(&c, tile, i);
                json_decref(tile);
                tiles++;
            }
            check_level(&c, form ? "bin" : "json");
        }
    }
    printf("tile accounting: %zu events of %d tracks, levels 0-%d, %zu tiles in both forms\n",
           n_evs, N_TIDS, max_level, tiles);
    ck_assert_int_eq(pv_test_server_stop(&s), 0);
    for (int t = 1; t <= N_TIDS; t++) {
        free(by_tid[t]);
        by_tid[t] = NULL;
    }
    pv_test_remove_tree(dir);
    pv_test_remove_tree(cache);
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    Suite *s = suite_create("tile_accounting");
    TCase *tc = tcase_create("tiles");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_every_event_in_one_tile_per_level);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
