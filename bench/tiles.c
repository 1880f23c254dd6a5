/* bench/tiles: trace viewer tiles on a synthetic profile.
 *
 *   bench/tiles [N_EVENTS] [N_TRACKS] [N_REQUESTS]
 *       (defaults: 10000000 events, 50 tracks, 1000 requests)
 *
 * Builds a model with the builder: per track, back-to-back steps of
 * 0.05-2 ms, each filled with 1-20 us children (gaps of 0-5 us), every
 * other child holding a grandchild; plus a memory counter. Then prints
 *   tiles_events <N> events
 *   tiles_model_build_time <s> s          (builder + finish)
 *   tiles_index_build_time <s> s          (pyramid, counters, flow links)
 *   tiles_index_bytes <MB> MB             (what the trace cache keeps)
 *   tiles_pyramid_levels <n> levels
 *   tiles_walk_p50 / _p99 / _max <ms> ms  (random walk of N_REQUESTS tile
 *                                          requests, each computed anew as
 *                                          served to the browser: tool +
 *                                          counters + binary encoding + gzip
 *                                          level 1 when at most 64 KiB;
 *                                          thread CPU time, so other work on
 *                                          a shared machine does not count)
 *   tiles_walk_wall_p99 <ms> ms           (the same in wall-clock time)
 *   tiles_walk_sent_p99 <KB> KB           (bytes sent)
 *   tiles_walk_make_p99 <ms> ms           (binary, never compressed)
 *   tiles_walk_bin_p99 <KB> KB            (binary body size)
 *   tiles_walk_gzip_p99 <ms> ms           (binary, always gzip'd at level 1)
 *   tiles_walk_bin_gz_p99 <KB> KB         (binary size after gzip level 1)
 *   tiles_walk_json_make_p99 <ms> ms      (the JSON form, format=json)
 *   tiles_walk_json_gzip_p99 <ms> ms      (JSON plus gzip level 1, as
 *                                          format=json is served; what the
 *                                          viewer was served before)
 *   tiles_walk_json_p99 <KB> KB           (JSON size before gzip)
 *   tiles_walk_json_gz_p99 <KB> KB        (JSON size after gzip level 1)
 *   tiles_pyramid_throughput <n> tiles/s  (levels the pyramid holds, as
 *                                          served, one core, per second of
 *                                          CPU time)
 * The walk starts at level 0 and zooms in (40%), out (20%) or pans (40%),
 * staying inside the profile; it uses a fixed seed. Asserts nothing. */
#include "model/builder.h"
#include "tools/trace_tiles/trace_index.h"
#include "tools/trace_tiles/trace_tiles.h"
#include "util/gzip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_ms(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double now_ms(void)
{
    return clock_ms(CLOCK_MONOTONIC);
}

/* CPU time of this thread: the server's own cost, not the time other
 * processes on a shared machine took from it. */
static double cpu_ms(void)
{
    return clock_ms(CLOCK_THREAD_CPUTIME_ID);
}

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static pv_model *build(uint64_t n_events, uint32_t n_tracks)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t pl = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t metas[16];
    for (int i = 0; i < 16; i++) {
        char name[32];
        snprintf(name, sizeof name, "op_%d", i);
        metas[i] = pv_builder_meta(b, pl, i + 1, name, NULL);
    }
    uint32_t m_alloc = pv_builder_meta(b, pl, 100, "MemoryAllocation", NULL);
    uint64_t seed = 0x9e3779b97f4a7c15ull, per_track = n_events / n_tracks;
    for (uint32_t t = 0; t < n_tracks; t++) {
        char name[32];
        snprintf(name, sizeof name, "thread_%u", t);
        uint32_t tr = pv_builder_track(b, pl, t + 1, name, 0);
        int64_t at = 0;
        uint64_t n = 0;
        while (n < per_track) {
            int64_t len = 50000000 + (int64_t)(next_rand(&seed) % 1950000000);
            pv_builder_event(b, tr, metas[0], at, len);
            n++;
            int64_t c = at;
            for (int k = 0; n < per_track; k++) {
                int64_t cl = 1000000 + (int64_t)(next_rand(&seed) % 19000000);
                if (c + cl > at + len)
                    break;
                pv_builder_event(b, tr, metas[1 + next_rand(&seed) % 15], c, cl);
                n++;
                if (k % 2 == 0 && n < per_track) {
                    pv_builder_event(b, tr, metas[1 + next_rand(&seed) % 15], c + cl / 4, cl / 2);
                    n++;
                }
                c += cl + (int64_t)(next_rand(&seed) % 5000000);
            }
            if (t == 0) {   /* a memory counter sample per step */
                uint64_t e = pv_builder_event(b, tr, m_alloc, at, 0);
                pv_builder_event_stat_str(b, e, "allocator_name", "GPU_0_bfc");
                pv_builder_event_stat_i64(b, e, "bytes_allocated",
                                          (int64_t)(next_rand(&seed) % 1000000000));
                n++;
            }
            at += len + (int64_t)(next_rand(&seed) % 100000000);
        }
    }
    pv_model *m = NULL;
    pv_error err = {0};
    if (pv_builder_finish(b, &m, &err) != 0) {
        fprintf(stderr, "tiles: %s\n", err.reason);
        exit(1);
    }
    return m;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One tile as the server makes it (bin: the binary form, else JSON);
 * returns the body size. gz: 0 never compress, 1 always (gzip level 1),
 * 2 as served (a binary tile only up to PV_TRACE_TILE_GZIP_MAX_BYTES);
 * adds the compression time to *gz_ms and sets *gz_len to the size sent. */
static size_t serve_tile(const pv_model *m, const pv_trace_index *ix, uint32_t level,
                         uint64_t index, int bin, int gz, double *gz_ms, size_t *gz_len)
{
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_trace_tile t;
    pv_trace_tile_query q = {level, index};
    pv_trace_index_tile(m, ix, &q, &a, &t, NULL);
    pv_buf counters, body;
    pv_buf_init(&counters, (size_t)1 << 30);
    pv_buf_init(&body, (size_t)1 << 30);
    if (bin) {
        pv_trace_counters_tile_bin(ix, t.start_ps, t.end_ps, &counters);
        pv_trace_tile_write_bin(m, &ix->geom, &t, counters.data, counters.len, &a, &body);
    } else {
        pv_trace_counters_tile_json(ix, t.start_ps, t.end_ps, &counters);
        pv_trace_tile_write_json(m, &ix->geom, &t, counters.data, &a, &body);
    }
    size_t len = body.len;
    *gz_len = len;
    if (gz == 1 || (gz == 2 && (!bin || len <= PV_TRACE_TILE_GZIP_MAX_BYTES))) {
        double t0 = cpu_ms();
        pv_buf out;
        pv_buf_init(&out, (size_t)1 << 30);
        pv_gzip_compress_level(body.data, body.len, 1, &out, NULL);
        *gz_len = out.len;
        pv_buf_fini(&out);
        *gz_ms += cpu_ms() - t0;
    }
    pv_buf_fini(&counters);
    pv_buf_fini(&body);
    pv_arena_fini(&a);
    return len;
}

int main(int argc, char **argv)
{
    uint64_t n_events = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    uint32_t n_tracks = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 50;
    int n_req = argc > 3 ? atoi(argv[3]) : 1000;

    double t0 = now_ms();
    pv_model *m = build(n_events, n_tracks);
    double t1 = now_ms();
    pv_trace_index *ix = NULL;
    pv_trace_index_new(m, NULL, &ix, NULL);
    double t2 = now_ms();
    printf("tiles_events %llu events\n", (unsigned long long)m->n_events);
    printf("tiles_model_build_time %.2f s\n", (t1 - t0) / 1e3);
    printf("tiles_index_build_time %.2f s\n", (t2 - t1) / 1e3);
    printf("tiles_index_bytes %.1f MB\n", (double)ix->bytes / 1048576.0);
    printf("tiles_pyramid_levels %u levels\n", pv_trace_pyramid_levels(ix->pyramid));
    printf("tiles_max_level %u level\n", ix->geom.max_level);

    /* per request: the binary form as served (gzip'd when small), its wall
     * time, binary never / always gzip'd, JSON, JSON + gzip; sizes: binary,
     * binary as sent, binary gz, JSON, JSON gz */
    enum { SERVED_MS, WALL_MS, BIN_MS, BIN_GZ_MS, JSON_MS, JSON_GZ_MS, BIN_KB, SENT_KB,
           BIN_GZ_KB, JSON_KB, JSON_GZ_KB, N_COLS };
    double *col[N_COLS];
    for (int c = 0; c < N_COLS; c++)
        col[c] = malloc((size_t)n_req * sizeof *col[c]);
    uint64_t seed = 12345;
    uint32_t level = 0;
    uint64_t index = 0, levels_seen = 0;
    for (int i = 0; i < n_req; i++) {
        double gz = 0;
        size_t gl = 0;
        double w = now_ms(), s = cpu_ms();
        serve_tile(m, ix, level, index, 1, 2, &gz, &gl);
        col[SERVED_MS][i] = cpu_ms() - s;
        col[WALL_MS][i] = now_ms() - w;
        col[SENT_KB][i] = (double)gl / 1024.0;
        for (int bin = 1; bin >= 0; bin--) {
            s = cpu_ms();
            size_t len = serve_tile(m, ix, level, index, bin, 0, &gz, &gl);
            col[bin ? BIN_MS : JSON_MS][i] = cpu_ms() - s;
            s = cpu_ms();
            serve_tile(m, ix, level, index, bin, 1, &gz, &gl);
            col[bin ? BIN_GZ_MS : JSON_GZ_MS][i] = cpu_ms() - s;
            col[bin ? BIN_KB : JSON_KB][i] = (double)len / 1024.0;
            col[bin ? BIN_GZ_KB : JSON_GZ_KB][i] = (double)gl / 1024.0;
        }
        if (level > levels_seen)
            levels_seen = level;
        uint64_t r = next_rand(&seed) % 10;
        if (r < 4 && level < ix->geom.max_level) {
            level++;
            index = index * 2 + (next_rand(&seed) & 1);
        } else if (r < 6 && level > 0) {
            level--;
            index /= 2;
        } else if (r < 8 && index + 1 < (1ull << level)) {
            index++;
        } else if (index > 0) {
            index--;
        }
    }
    for (int c = 0; c < N_COLS; c++)
        qsort(col[c], (size_t)n_req, sizeof *col[c], cmp_double);
    int p99 = (n_req * 99) / 100 - (n_req >= 100 ? 1 : 0);
    printf("tiles_walk_levels %llu deepest\n", (unsigned long long)levels_seen);
    printf("tiles_walk_p50 %.3f ms\n", col[SERVED_MS][n_req / 2]);
    printf("tiles_walk_p99 %.3f ms\n", col[SERVED_MS][p99]);
    printf("tiles_walk_max %.3f ms\n", col[SERVED_MS][n_req - 1]);
    printf("tiles_walk_wall_p99 %.3f ms\n", col[WALL_MS][p99]);
    printf("tiles_walk_sent_p99 %.1f KB\n", col[SENT_KB][p99]);
    printf("tiles_walk_make_p99 %.3f ms\n", col[BIN_MS][p99]);
    printf("tiles_walk_bin_p99 %.1f KB\n", col[BIN_KB][p99]);
    printf("tiles_walk_gzip_p99 %.3f ms\n", col[BIN_GZ_MS][p99]);
    printf("tiles_walk_bin_gz_p99 %.1f KB\n", col[BIN_GZ_KB][p99]);
    printf("tiles_walk_json_make_p99 %.3f ms\n", col[JSON_MS][p99]);
    printf("tiles_walk_json_gzip_p99 %.3f ms\n", col[JSON_GZ_MS][p99]);
    printf("tiles_walk_json_p99 %.1f KB\n", col[JSON_KB][p99]);
    printf("tiles_walk_json_gz_p99 %.1f KB\n", col[JSON_GZ_KB][p99]);
    for (int c = 0; c < N_COLS; c++)
        free(col[c]);

    /* Throughput over the precomputed levels, round robin. */
    uint32_t pl = pv_trace_pyramid_levels(ix->pyramid);
    double s = cpu_ms();
    int done = 0;
    while (cpu_ms() - s < 1000.0) {
        for (uint32_t l = 0; l < pl; l++) {
            double gz = 0;
            size_t gl;
            serve_tile(m, ix, l, (uint64_t)done % ((uint64_t)1 << l), 1, 2, &gz, &gl);
            done++;
        }
    }
    printf("tiles_pyramid_throughput %.0f tiles/s\n", done / ((cpu_ms() - s) / 1e3));
    pv_trace_index_free(ix);
    pv_model_free(m);
    return 0;
}
