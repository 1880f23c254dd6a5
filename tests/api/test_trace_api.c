/* API tests of the trace viewer routes (docs/trace_api.md) on the real
 * GPU profile in ../shared/testdata, over HTTP with the real binary.
 * Expected counts come from tests/data/trace_viewer/tf_keras_gpu_gcp.txt
 * (protoc --decode, tools/reference/trace_expected.py), not from
 * profview itself. */
#include "served.h"
#include "testutil.h"
#include "tile_decode.h"
#include "util/buf.h"
#include "util/gzip.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUN "run=tf_keras_gpu_gcp/train/2022_11_04_21_26_12&host=instance-ecbm"

static pv_test_served served;

static void setup(void)
{
    pv_test_serve(&served, "logdirs", "trace_api_cache");
}

static void teardown(void)
{
    pv_test_unserve(&served);
}

static json_t *get_json(const char *path, int want_status, pv_test_reply *keep)
{
    return pv_test_get_json(&served, path, want_status, keep);
}

/* The expected value of key in the protoc-derived file. */
static long long expected(const char *key)
{
    char path[1024], line[2048];
    snprintf(path, sizeof path, "%s/tests/data/trace_viewer/tf_keras_gpu_gcp.txt", PV_SRCDIR);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    long long v = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, key, n) == 0 && line[n] == ' ')
            v = strtoll(strrchr(line, ' ') + 1, NULL, 10);
    fclose(f);
    return v;
}

#define MAX_TRACKS 256

/* The meta's tracks of run (their counts in want[track id]) and the
 * levels 0 and 3 of its tiles: own events (start in the tile) + box
 * counts per track add up to them, and each binary tile says what its
 * JSON form says. Returns the meta's n_events. */
static json_int_t check_tiles(const char *run, json_int_t *want)
{
    char path[400];
    snprintf(path, sizeof path, "/api/trace/meta?%s", run);
    json_t *meta = get_json(path, 200, NULL);
    json_int_t n_events = json_integer_value(json_object_get(meta, "n_events")), total = 0;
    json_t *procs = json_object_get(meta, "processes");
    for (size_t i = 0; i < json_array_size(procs); i++) {
        json_t *th = json_object_get(json_array_get(procs, i), "threads");
        for (size_t k = 0; k < json_array_size(th); k++) {
            json_t *t = json_array_get(th, k);
            json_int_t id = json_integer_value(json_object_get(t, "track"));
            ck_assert_int_lt(id, MAX_TRACKS);
            want[id] = json_integer_value(json_object_get(t, "n_events"));
            total += want[id];
        }
    }
    ck_assert_int_eq(total, n_events);
    for (int level = 0; level <= 3; level += 3) {
        json_int_t got[MAX_TRACKS] = {0};
        for (int i = 0; i < (1 << level); i++) {
            snprintf(path, sizeof path, "/api/trace/tile?%s&level=%d&index=%d", run, level, i);
            pv_test_reply r;
            json_t *tile = get_json(path, 200, &r);
            char cc[200];
            ck_assert_ptr_nonnull(pv_test_header(&r, "cache-control", cc, sizeof cc));
            ck_assert_str_eq(cc, "public, max-age=31536000, immutable");
            ck_assert_ptr_nonnull(pv_test_header(&r, "etag", cc, sizeof cc));
            pv_test_reply_free(&r);
            json_int_t ts = json_integer_value(json_object_get(tile, "start_ps"));
            json_t *tracks = json_object_get(tile, "tracks");
            for (size_t k = 0; k < json_array_size(tracks); k++) {
                json_t *t = json_array_get(tracks, k);
                json_int_t id = json_integer_value(json_object_get(t, "track"));
                ck_assert_int_lt(id, MAX_TRACKS);
                json_t *ev = json_object_get(t, "events");
                for (size_t e = 0; e < json_array_size(ev); e++)
                    got[id] += json_integer_value(json_array_get(json_array_get(ev, e), 1)) >= ts;
                json_t *bx = json_object_get(t, "boxes");
                for (size_t b = 0; b < json_array_size(bx); b++)
                    got[id] += json_integer_value(json_array_get(json_array_get(bx, b), 3));
            }
            /* the binary form of the same tile says the same */
            strcat(path, "&format=bin");
            ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, NULL, &r), 0);
            ck_assert_int_eq(r.status, 200);
            ck_assert_ptr_nonnull(pv_test_header(&r, "content-type", cc, sizeof cc));
            ck_assert_str_eq(cc, "application/octet-stream");
            json_t *bin = pv_test_tile_from_bin((const unsigned char *)r.body, r.len);
            ck_assert_msg(bin != NULL, "%s: not a binary tile", path);
            ck_assert_msg(json_equal(bin, tile), "%s: differs from the JSON form", path);
            json_decref(bin);
            pv_test_reply_free(&r);
            json_decref(tile);
        }
        for (int id = 0; id < MAX_TRACKS; id++)
            ck_assert_msg(got[id] == want[id], "level %d track %d: %lld, want %lld", level, id,
                          (long long)got[id], (long long)want[id]);
    }
    json_decref(meta);
    return n_events;
}

START_TEST(test_meta_and_tiles_account_for_every_event)
{
    PV_NEED_TESTDATA("test_meta_and_tiles_account_for_every_event");
    json_int_t want[MAX_TRACKS] = {0};
    ck_assert_int_eq(check_tiles(RUN, want), expected("n_events"));
}
END_TEST

/* On a JAX GPU profile the lines XProf derives are tracks too (derived:
 * true), counted in n_events; their tiles account for their events in
 * both forms, and one of their events' details name its line. */
START_TEST(test_derived_lines_tiles_and_details)
{
    PV_NEED_TESTDATA("test_derived_lines_tiles_and_details");
    const char *run = "run=jax_rocm_mi300/jax_conv_minimal_08&host=tw003";
    json_int_t want[MAX_TRACKS] = {0};
    check_tiles(run, want);
    char path[400];
    snprintf(path, sizeof path, "/api/trace/meta?%s", run);
    json_t *meta = get_json(path, 200, NULL);
    json_t *gpu0 = NULL, *procs = json_object_get(meta, "processes");
    for (size_t i = 0; i < json_array_size(procs); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(procs, i), "name")),
                   "/device:GPU:0") == 0)
            gpu0 = json_object_get(json_array_get(procs, i), "threads");
    ck_assert_ptr_nonnull(gpu0);
    /* XProf's order (its golden trace, tests/unit/test_trace_xprof_lines.c
     * reads it whole): the busiest stream, its five lines, the others */
    const char *order[] = {"Stream #16(Kernel)", "Framework Name Scope - from #16",
                           "Framework Ops - from #16", "XLA Modules - from #16",
                           "XLA Ops - from #16", "Source code - from #16",
                           "Stream #17(Kernel)", "Stream #15(Kernel)", "Stream #18(Kernel)"};
    ck_assert_uint_eq(json_array_size(gpu0), 9);
    json_int_t xla_ops = -1;
    for (size_t k = 0; k < 9; k++) {
        json_t *t = json_array_get(gpu0, k);
        ck_assert_str_eq(json_string_value(json_object_get(t, "name")), order[k]);
        ck_assert_int_eq(json_is_true(json_object_get(t, "derived")), k >= 1 && k <= 5);
        if (k == 4) {
            ck_assert_str_eq(json_string_value(json_object_get(t, "kind")), "xla_ops");
            /* XProf's trace holds 19 events on that line (counted by hand) */
            ck_assert_int_eq(json_integer_value(json_object_get(t, "n_events")), 19);
            xla_ops = json_integer_value(json_object_get(t, "track"));
        }
    }
    /* a search for an XLA op finds it on that line; its details say so */
    snprintf(path, sizeof path, "/api/trace/search?%s&q=cudnn-conv.1&limit=1000", run);
    json_t *found = get_json(path, 200, NULL);
    json_int_t id = -1;
    json_t *res = json_object_get(found, "results");
    for (size_t i = 0; i < json_array_size(res) && id < 0; i++)
        if (json_integer_value(json_object_get(json_array_get(res, i), "track")) == xla_ops)
            id = json_integer_value(json_object_get(json_array_get(res, i), "id"));
    ck_assert_int_ge(id, 0);
    snprintf(path, sizeof path, "/api/trace/event?%s&id=%lld", run, (long long)id);
    json_t *ev = get_json(path, 200, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(ev, "name")), "cudnn-conv.1");
    ck_assert_int_eq(json_integer_value(json_object_get(ev, "track")), xla_ops);
    ck_assert_int_eq(json_integer_value(json_object_get(ev, "tid")), 5);
    ck_assert_uint_eq(json_array_size(json_object_get(ev, "flows")), 0);
    ck_assert_ptr_nonnull(json_string_value(json_object_get(ev, "long_name")));
    json_decref(ev);
    json_decref(found);
    json_decref(meta);
}
END_TEST

START_TEST(test_search_then_event)
{
    PV_NEED_TESTDATA("test_search_then_event");
    json_t *s = get_json("/api/trace/search?" RUN "&q=FFT2D&limit=5", 200, NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "total")), expected("search fft2d"));
    json_t *res = json_object_get(s, "results");
    ck_assert_uint_eq(json_array_size(res), 5);
    json_t *first = json_array_get(res, 0);
    char path[300];
    snprintf(path, sizeof path, "/api/trace/event?" RUN "&id=%lld",
             (long long)json_integer_value(json_object_get(first, "id")));
    json_t *ev = get_json(path, 200, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(ev, "name")),
                     json_string_value(json_object_get(first, "name")));
    ck_assert_int_eq(json_integer_value(json_object_get(ev, "start_ps")),
                     json_integer_value(json_object_get(first, "start_ps")));
    ck_assert(json_is_object(json_object_get(ev, "stats")));
    ck_assert(json_is_array(json_object_get(ev, "flows")));
    json_decref(ev);
    json_decref(s);
}
END_TEST

START_TEST(test_tile_served_again_from_cache)
{
    PV_NEED_TESTDATA("test_tile_served_again_from_cache");
    /* The first binary answer is computed and kept; the second comes from
     * the cache as the same bytes. It is gzip'd exactly when the tile is
     * at most 64 KiB; a client without gzip gets the plain tile. */
    const char *path = "/api/trace/tile?" RUN "&level=1&index=1&format=bin";
    pv_test_reply a, b, c;
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, "Accept-Encoding: gzip\r\n", &a), 0);
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, "Accept-Encoding: gzip\r\n", &b), 0);
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, NULL, &c), 0);
    ck_assert_int_eq(a.status, 200);
    ck_assert_int_eq(b.status, 200);
    ck_assert_int_eq(c.status, 200);
    ck_assert_uint_eq(a.len, b.len);
    ck_assert(memcmp(a.body, b.body, a.len) == 0);
    char enc[64];
    ck_assert_ptr_null(pv_test_header(&c, "content-encoding", enc, sizeof enc));
    bool gz = pv_test_header(&b, "content-encoding", enc, sizeof enc) != NULL;
    ck_assert(gz == (c.len <= 64 * 1024));
    pv_buf plain;
    pv_buf_init(&plain, 1 << 26);
    if (gz) {
        ck_assert_str_eq(enc, "gzip");
        ck_assert_int_eq(pv_gzip_decompress(b.body, b.len, &plain, NULL, NULL), 0);
    } else {
        ck_assert_int_eq(pv_buf_add(&plain, b.body, b.len), 0);
    }
    ck_assert_uint_eq(plain.len, c.len);
    ck_assert(memcmp(plain.data, c.body, c.len) == 0);
    pv_buf_fini(&plain);
    json_t *j = pv_test_tile_from_bin((const unsigned char *)c.body, c.len);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "level")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "index")), 1);
    json_decref(j);
    /* the JSON form is its own representation, gzip'd for this client */
    pv_test_reply d;
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", "/api/trace/tile?" RUN "&level=1&index=1",
                                 "Accept-Encoding: gzip\r\n", &d), 0);
    ck_assert_int_eq(d.status, 200);
    ck_assert_ptr_nonnull(pv_test_header(&d, "content-encoding", enc, sizeof enc));
    ck_assert_str_eq(enc, "gzip");
    pv_test_reply_free(&a);
    pv_test_reply_free(&b);
    pv_test_reply_free(&c);
    pv_test_reply_free(&d);
}
END_TEST

/* A box over every track and the whole span holds every event once: the
 * counts add up to the meta's n_events, and the wall time of each name is
 * at least its self time. */
START_TEST(test_aggregate_whole_trace)
{
    PV_NEED_TESTDATA("test_aggregate_whole_trace");
    json_t *meta = get_json("/api/trace/meta?" RUN, 200, NULL);
    char path[4096];
    int len = snprintf(path, sizeof path, "/api/trace/aggregate?" RUN "&start_ps=0&end_ps=%lld"
                       "&tracks=", (long long)json_integer_value(json_object_get(meta, "span_ps")));
    json_t *procs = json_object_get(meta, "processes");
    const char *sep = "";
    for (size_t i = 0; i < json_array_size(procs); i++) {
        json_t *threads = json_object_get(json_array_get(procs, i), "threads");
        for (size_t k = 0; k < json_array_size(threads); k++) {
            len += snprintf(path + len, sizeof path - (size_t)len, "%s%lld", sep,
                            (long long)json_integer_value(
                                json_object_get(json_array_get(threads, k), "track")));
            sep = ",";
        }
    }
    ck_assert_int_lt(len, (int)sizeof path);
    json_t *agg = get_json(path, 200, NULL);
    json_int_t n = json_integer_value(json_object_get(meta, "n_events"));
    ck_assert_int_eq(json_integer_value(json_object_get(agg, "n_events")), n);
    json_int_t sum = 0;
    json_t *rows = json_object_get(agg, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        sum += json_integer_value(json_object_get(r, "count"));
        ck_assert_int_ge(json_integer_value(json_object_get(r, "wall_ps")),
                         json_integer_value(json_object_get(r, "self_ps")));
    }
    ck_assert_int_eq(sum, n);
    json_decref(agg);
    json_decref(meta);
}
END_TEST

START_TEST(test_bad_requests)
{
    PV_NEED_TESTDATA("test_bad_requests");
    json_decref(get_json("/api/trace/tile?" RUN "&level=99&index=0", 400, NULL));
    json_decref(get_json("/api/trace/tile?" RUN "&level=1&index=2", 400, NULL));
    json_decref(get_json("/api/trace/tile?" RUN "&level=x", 400, NULL));
    json_decref(get_json("/api/trace/tile?" RUN "&level=1&index=0&format=xml", 400, NULL));
    json_decref(get_json("/api/trace/event?" RUN "&id=99999999", 404, NULL));
    json_decref(get_json("/api/trace/event?" RUN, 400, NULL));
    json_decref(get_json("/api/trace/search?" RUN "&q=", 400, NULL));
    json_decref(get_json("/api/trace/meta?run=no_such_run", 404, NULL));
    json_decref(get_json("/api/trace/aggregate?" RUN "&start_ps=0&end_ps=9", 400, NULL));
    json_decref(get_json("/api/trace/aggregate?" RUN "&start_ps=0&end_ps=9&tracks=1,x", 400, NULL));
    json_decref(get_json("/api/trace/aggregate?" RUN "&start_ps=9&end_ps=9&tracks=1", 400, NULL));
    json_decref(get_json("/api/trace/aggregate?" RUN "&start_ps=0&end_ps=9&tracks=99999", 400,
                         NULL));
}
END_TEST

START_TEST(test_tensorboard_trace_routes)
{
    PV_NEED_TESTDATA("test_tensorboard_trace_routes");
    json_t *j = get_json("/data/plugin/profile/data?" RUN "&tag=trace_viewer", 200, NULL);
    json_t *ev = json_object_get(j, "traceEvents");
    size_t n_x = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        const char *ph = json_string_value(json_object_get(json_array_get(ev, i), "ph"));
        n_x += ph != NULL && strcmp(ph, "X") == 0;
    }
    /* every event but the 160 memory events and 2 tf.data markers that the
     * reference hides (TensorFlow's own trace.json.gz has 544) */
    ck_assert_uint_eq(n_x, 544);
    json_decref(j);
    j = get_json("/data/plugin/profile/data?" RUN "&tag=trace_viewer%40&resolution=8000"
                 "&start_time_ms=303&end_time_ms=304",
                 200, NULL);
    /* XProf 2.24.2 always says true; under 500,000 events it keeps every
     * event of the window whatever the resolution: 112 of them overlap
     * [303, 304] ms (tools/reference/trace_visibility.py keras0.json 0 303
     * 304 on the resolution=0 answer). */
    ck_assert(json_is_true(json_object_get(j, "filteredByVisibility")));
    ck_assert_int_eq(json_integer_value(json_object_get(j, "returnedEventsSize")), 112);
    json_decref(j);
}
END_TEST

static json_int_t returned(const char *query)
{
    char path[512];
    snprintf(path, sizeof path, "/data/plugin/profile/data?" RUN "&tag=trace_viewer%%40&%s",
             query);
    json_t *j = get_json(path, 200, NULL);
    json_int_t n = json_integer_value(json_object_get(j, "returnedEventsSize"));
    json_decref(j);
    return n;
}

/* Decimation as XProf does it, forced on this small profile with
 * visibility_threshold=0. The expected counts come from
 * tools/reference/trace_visibility.py (an independent Python reading of
 * XProf's rule) over the resolution=0 answer; that script and profview
 * both give XProf 2.24.2's own counts on a 672,300-event profile
 * (docs/trace_api.md). */
START_TEST(test_trace_viewer_resolution)
{
    PV_NEED_TESTDATA("test_trace_viewer_resolution");
    ck_assert_int_eq(returned("resolution=0"), 544);
    ck_assert_int_eq(returned("resolution=50"), 544);   /* under 500,000 events */
    ck_assert_int_eq(returned("resolution=50&visibility_threshold=0"), 124);
    ck_assert_int_eq(returned("resolution=500&visibility_threshold=0"), 321);
    ck_assert_int_eq(returned("resolution=0&visibility_threshold=0"), 544);
    ck_assert_int_eq(returned("resolution=20&visibility_threshold=0&start_time_ms=303"
                              "&end_time_ms=304"),
                     53);
    json_decref(get_json("/data/plugin/profile/data?" RUN "&tag=trace_viewer%40&resolution=-1",
                         400, NULL));
    json_decref(get_json("/data/plugin/profile/data?" RUN "&tag=trace_viewer%40&resolution=x",
                         400, NULL));
}
END_TEST

/* ---- helper "index" (#3): trace index built at load, one memory budget ---- */

/* /api/load of RUN once the model and its trace index are settled. */
static json_t *load_settled(void)
{
    for (int i = 0; i < 1800; i++) {
        pv_test_reply r;
        ck_assert_int_eq(pv_test_get(&served.srv, "GET", "/api/load?" RUN, NULL, &r), 0);
        json_t *j = json_loadb(r.body, r.len, 0, NULL);
        pv_test_reply_free(&r);
        ck_assert_ptr_nonnull(j);
        const char *ix = json_string_value(json_object_get(j, "trace_index"));
        ck_assert_ptr_nonnull(ix);
        if (strcmp(ix, "building") != 0)
            return j;
        json_decref(j);
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    ck_abort_msg("the trace index was not built in 180 s");
    return NULL;
}

START_TEST(test_index_built_at_load)
{
    PV_NEED_TESTDATA("test_index_built_at_load");
    /* No trace route is asked before the index is reported ready. */
    json_t *j = load_settled();
    ck_assert_str_eq(json_string_value(json_object_get(j, "state")), "ready");
    ck_assert_str_eq(json_string_value(json_object_get(j, "trace_index")), "ready");
    json_int_t model = json_integer_value(json_object_get(j, "model_bytes"));
    json_int_t index = json_integer_value(json_object_get(j, "trace_index_bytes"));
    ck_assert_int_gt(model, 0);
    ck_assert_int_gt(index, 0);
    /* the only profile this server loaded: the budget holds exactly both */
    ck_assert_int_eq(json_integer_value(json_object_get(j, "held_bytes")), model + index);
    ck_assert_int_gt(json_integer_value(json_object_get(j, "budget_bytes")), 0);
    json_decref(j);
    /* meta is answered from that index: nothing new is built or held */
    json_t *meta = get_json("/api/trace/meta?" RUN, 200, NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(meta, "n_events")), expected("n_events"));
    json_decref(meta);
    j = load_settled();
    ck_assert_int_eq(json_integer_value(json_object_get(j, "trace_index_bytes")), index);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "held_bytes")), model + index);
    json_decref(j);
}
END_TEST

/* A fine tile (past the kept levels, so made per request) comes gzip'd
 * with a tag that does not depend on who asks or when, and the same tile
 * uncompressed for a client without gzip; If-None-Match gets 304. The
 * binary form has a tag of its own. */
START_TEST(test_tile_tag_and_revalidation)
{
    PV_NEED_TESTDATA("test_tile_tag_and_revalidation");
    json_t *meta = get_json("/api/trace/meta?" RUN, 200, NULL);
    json_int_t max_level = json_integer_value(json_object_get(meta, "max_level"));
    json_decref(meta);
    ck_assert_int_ge(max_level, 12);
    char path[300], inm[200], tag1[64], tag2[64], plain_tag[64], enc[32];
    snprintf(path, sizeof path, "/api/trace/tile?" RUN "&level=%lld&index=%lld",
             (long long)max_level, (long long)(1ll << max_level) / 2);
    pv_test_reply a, b, c, d;
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, "Accept-Encoding: gzip\r\n", &a), 0);
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, "Accept-Encoding: gzip\r\n", &b), 0);
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, NULL, &c), 0);
    ck_assert_int_eq(a.status, 200);
    ck_assert_ptr_nonnull(pv_test_header(&a, "content-encoding", enc, sizeof enc));
    ck_assert_str_eq(enc, "gzip");
    ck_assert_ptr_nonnull(pv_test_header(&a, "etag", tag1, sizeof tag1));
    ck_assert_ptr_nonnull(pv_test_header(&b, "etag", tag2, sizeof tag2));
    ck_assert_ptr_nonnull(pv_test_header(&c, "etag", plain_tag, sizeof plain_tag));
    ck_assert_str_eq(tag1, tag2);
    ck_assert_uint_eq(a.len, b.len);
    ck_assert(memcmp(a.body, b.body, a.len) == 0);
    /* the plain variant has its own tag: the gzip one without "-gz" */
    ck_assert_uint_eq(strlen(tag1), strlen(plain_tag) + 3);
    ck_assert(strncmp(tag1, plain_tag, strlen(plain_tag) - 1) == 0);
    json_t *j = json_loadb(c.body, c.len, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "level")), max_level);
    json_decref(j);
    snprintf(inm, sizeof inm, "Accept-Encoding: gzip\r\nIf-None-Match: %s\r\n", tag1);
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, inm, &d), 0);
    ck_assert_int_eq(d.status, 304);
    ck_assert_uint_eq(d.len, 0);
    pv_test_reply_free(&d);
    snprintf(inm, sizeof inm, "If-None-Match: %s\r\n", plain_tag);
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, inm, &d), 0);
    ck_assert_int_eq(d.status, 304);
    pv_test_reply_free(&d);
    /* the binary form has tags of its own (this small tile is gzip'd for
     * a client that takes gzip), each answered 304 */
    char bin_tag[64], bin_plain[64];
    strcat(path, "&format=bin");
    pv_test_reply_free(&c);
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, "Accept-Encoding: gzip\r\n", &c), 0);
    ck_assert_int_eq(c.status, 200);
    ck_assert_ptr_nonnull(pv_test_header(&c, "etag", bin_tag, sizeof bin_tag));
    ck_assert_str_ne(bin_tag, tag1);
    pv_test_reply_free(&d);
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, NULL, &d), 0);
    ck_assert_ptr_nonnull(pv_test_header(&d, "etag", bin_plain, sizeof bin_plain));
    ck_assert_str_ne(bin_plain, plain_tag);
    ck_assert(d.len <= 64 * 1024);
    ck_assert_uint_eq(strlen(bin_tag), strlen(bin_plain) + 3);   /* "-gz" */
    pv_test_reply_free(&d);
    snprintf(inm, sizeof inm, "Accept-Encoding: gzip\r\nIf-None-Match: %s\r\n", bin_tag);
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, inm, &d), 0);
    ck_assert_int_eq(d.status, 304);
    pv_test_reply_free(&d);
    snprintf(inm, sizeof inm, "If-None-Match: %s\r\n", bin_plain);
    ck_assert_int_eq(pv_test_get(&served.srv, "GET", path, inm, &d), 0);
    ck_assert_int_eq(d.status, 304);
    pv_test_reply_free(&a);
    pv_test_reply_free(&b);
    pv_test_reply_free(&c);
    pv_test_reply_free(&d);
}
END_TEST

/* Both hosts of the multi-worker run in one answer, as XProf 2.24.2's
 * converter answers trace_viewer@ for the two files (41,262 events, 12,857
 * on each host CPU; pids 1000 x the host's place + the plane's pid,
 * process names "<host> <plane>"). */
START_TEST(test_trace_viewer_all_hosts)
{
    PV_NEED_TESTDATA("test_trace_viewer_all_hosts");
    json_t *j = get_json("/data/plugin/profile/data?run=tf2_gpu_multi_worker/GPU-multi-worker"
                         "&host=ALL_HOSTS&tag=trace_viewer%40&resolution=0",
                         200, NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "returnedEventsSize")), 41262);
    json_t *ev = json_object_get(j, "traceEvents");
    size_t host1 = 0, host2 = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph == NULL || strcmp(ph, "M") == 0)
            continue;
        json_int_t pid = json_integer_value(json_object_get(e, "pid"));
        host1 += pid == 1701;
        host2 += pid == 2701;
    }
    ck_assert_uint_eq(host1, 12857);
    ck_assert_uint_eq(host2, 12857);
    json_decref(j);
    /* hosts= picks hosts in its order: the second file becomes host 1 */
    j = get_json("/data/plugin/profile/data?run=tf2_gpu_multi_worker/GPU-multi-worker"
                 "&hosts=34.83.195.180_6003,34.83.195.179_6003&tag=trace_viewer%40&resolution=0",
                 200, NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "returnedEventsSize")), 41262);
    ev = json_object_get(j, "traceEvents");
    const char *first_host = NULL;
    for (size_t i = 0; i < json_array_size(ev) && first_host == NULL; i++) {
        json_t *e = json_array_get(ev, i);
        const char *name = json_string_value(json_object_get(e, "name"));
        if (name != NULL && strcmp(name, "process_name") == 0 &&
            json_integer_value(json_object_get(e, "pid")) == 1701)
            first_host = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
    }
    ck_assert_ptr_nonnull(first_host);
    ck_assert_str_eq(first_host, "34.83.195.180_6003 /host:CPU");
    json_decref(j);
    json_decref(get_json("/data/plugin/profile/data?run=tf2_gpu_multi_worker/GPU-multi-worker"
                         "&hosts=nope&tag=trace_viewer%40",
                         404, NULL));
    /* XProf offers only the real hosts for the trace viewer */
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(&served.srv, "GET",
                                 "/data/plugin/profile/hosts?run=tf2_gpu_multi_worker/"
                                 "GPU-multi-worker&tag=trace_viewer%40",
                                 NULL, &r),
                     0);
    ck_assert_ptr_null(strstr(r.body, "ALL_HOSTS"));
    pv_test_reply_free(&r);
}
END_TEST

static int cmp_line(const void *pa, const void *pb)
{
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    if (a == NULL || b == NULL)
        return (a == NULL) - (b == NULL);
    return strcmp(a, b);
}

/* (phase, pid, tid, ts, dur, name) of every complete or instant event, and the
 * process and thread names by id, one sorted line each: what a script
 * reading the Chrome JSON sees, args aside (XProf 2.24.2's trace_viewer@
 * writes only group_id and a uid there and serves the rest on click). */
static char *event_lines(json_t *j)
{
    json_t *ev = json_object_get(j, "traceEvents");
    size_t n = json_array_size(ev);
    char **lines = calloc(n + 1, sizeof *lines);
    size_t total = 1;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(ev, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        char line[4096];
        long long pid = (long long)json_integer_value(json_object_get(e, "pid"));
        long long tid = (long long)json_integer_value(json_object_get(e, "tid"));
        if (ph == NULL || name == NULL)
            continue;
        if (strcmp(ph, "M") == 0 && (strcmp(name, "process_name") == 0 ||
                                     strcmp(name, "thread_name") == 0)) {
            const char *v = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
            snprintf(line, sizeof line, "M %lld %lld %s %.3000s", pid, tid, name, v ? v : "");
        } else if (strcmp(ph, "X") == 0 || strcmp(ph, "i") == 0) {
            /* µs with 3 decimals are whole ns: exact for both writers */
            snprintf(line, sizeof line, "%s %lld %lld %.3f %.3f %.3000s", ph, pid, tid,
                     json_number_value(json_object_get(e, "ts")),
                     json_number_value(json_object_get(e, "dur")), name);
        } else {
            continue;
        }
        lines[i] = strdup(line);
        total += strlen(line) + 1;
    }
    qsort(lines, n, sizeof *lines, cmp_line);
    char *out = calloc(total, 1);
    for (size_t i = 0; i < n; i++) {
        if (lines[i] == NULL)
            continue;
        strcat(out, lines[i]);
        strcat(out, "\n");
        free(lines[i]);
    }
    free(lines);
    return out;
}

/* The same events, threads and processes as XProf 2.24.2's own answer in
 * golden (under tests/data/reference/shared_golden/logdirs/) to the
 * request query; at least min_lines of them. */
static void check_golden(const char *golden, const char *query, size_t min_lines)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/reference/shared_golden/logdirs/%s", PV_SRCDIR,
             golden);
    size_t len = 0;
    uint8_t *gz = pv_test_read_file(path, &len);
    ck_assert_ptr_nonnull(gz);
    pv_buf plain;
    pv_buf_init(&plain, (size_t)64 << 20);
    ck_assert_int_eq(pv_gzip_decompress(gz, len, &plain, path, NULL), 0);
    free(gz);
    json_t *want = json_loadb(plain.data, plain.len, 0, NULL);
    ck_assert_ptr_nonnull(want);
    pv_buf_fini(&plain);
    char url[1024];
    snprintf(url, sizeof url, "/data/plugin/profile/data?%s", query);
    json_t *got = get_json(url, 200, NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(got, "returnedEventsSize")),
                     json_integer_value(json_object_get(want, "returnedEventsSize")));
    char *a = event_lines(want), *b = event_lines(got);
    size_t n_lines = 0;
    for (const char *p = a; *p != '\0'; p++)
        n_lines += *p == '\n';
    ck_assert_uint_ge(n_lines, min_lines);   /* not empty */
    ck_assert_str_eq(b, a);
    free(a);
    free(b);
    json_decref(want);
    json_decref(got);
}

/* trace_viewer@ of the Keras GPU profile (the golden written by
 * tools/reference/trace_viewer_at.py): 544 events, 15 threads. */
START_TEST(test_trace_viewer_streaming_golden)
{
    PV_NEED_TESTDATA("test_trace_viewer_streaming_golden");
    check_golden("tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12/"
                 "instance-ecbm.trace_viewer_at.json.gz",
                 RUN "&tag=trace_viewer%40&resolution=0", 544 + 15);
}
END_TEST

/* A JAX profile on ROCm, both writers: the GPU streams and the lines
 * derived from them numbered as XProf numbers them (1-6 and 8, not the
 * lines' ids 16, 17 and 0xdeadbeef + 290..), zero-length events as
 * instants in the legacy trace but 1 ps long in trace_viewer@, and the
 * seven GPUs that recorded nothing listed by the legacy one only. */
START_TEST(test_trace_viewer_rocm_golden)
{
    PV_NEED_TESTDATA("test_trace_viewer_rocm_golden");
#define GEMM "jax_rocm_mi300/plugins/profile/jax08_gemm/tw003"
    check_golden(GEMM ".trace_viewer_at.json.gz",
                 "run=jax_rocm_mi300/jax08_gemm&host=tw003&tag=trace_viewer%40&resolution=0",
                 3773 + 7);
    check_golden(GEMM ".trace_viewer.json.gz",
                 "run=jax_rocm_mi300/jax08_gemm&host=tw003&tag=trace_viewer", 3773 + 7 + 9);
#undef GEMM
}
END_TEST

/* The legacy trace of a thread without a name has no thread_name entry
 * (the macOS CPU profile's thread 1912594), as XProf's writes it. */
START_TEST(test_trace_viewer_unnamed_thread_golden)
{
    PV_NEED_TESTDATA("test_trace_viewer_unnamed_thread_golden");
    check_golden("tf_keras_cpu_macos/train/plugins/profile/2022_10_31_19_09_08/"
                 "gaoyihaodeMacBook-Pro.local.trace_viewer.json.gz",
                 "run=tf_keras_cpu_macos/train/2022_10_31_19_09_08&"
                 "host=gaoyihaodeMacBook-Pro.local&tag=trace_viewer",
                 196);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace_api");
    TCase *tc = tcase_create("routes");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_meta_and_tiles_account_for_every_event);
    tcase_add_test(tc, test_derived_lines_tiles_and_details);
    tcase_add_test(tc, test_search_then_event);
    tcase_add_test(tc, test_tile_served_again_from_cache);
    tcase_add_test(tc, test_aggregate_whole_trace);
    tcase_add_test(tc, test_bad_requests);
    tcase_add_test(tc, test_tensorboard_trace_routes);
    tcase_add_test(tc, test_trace_viewer_resolution);
    tcase_add_test(tc, test_trace_viewer_all_hosts);
    tcase_add_test(tc, test_trace_viewer_streaming_golden);
    tcase_add_test(tc, test_trace_viewer_rocm_golden);
    tcase_add_test(tc, test_trace_viewer_unnamed_thread_golden);
    tcase_add_test(tc, test_index_built_at_load);
    tcase_add_test(tc, test_tile_tag_and_revalidation);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
