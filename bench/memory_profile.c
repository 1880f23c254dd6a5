/* bench/memory_profile: the memory profile tool on a synthetic host plane
 * with many allocation events, or on a profile.
 *
 *   bench/memory_profile [N]     (N memory events, default 1000000)
 *   bench/memory_profile FILE    (a profile, e.g. bench/gen_xspace's)
 *
 * Builds a model with N MemoryAllocation / MemoryDeallocation events on
 * four threads and two allocators (a random walk of live blocks, some
 * never freed), or decodes FILE, then prints
 *   memory_profile_events <N> events       (the model's events)
 *   memory_profile_tool_time <ms> ms        (pv_tool_memory_profile, best of 3)
 *   memory_profile_json_time <ms> ms        (pv_memory_profile_to_json + dump, extras on)
 *   memory_profile_result_bytes <MB> MB     (request arena used by the result)
 *   memory_profile_json_bytes <KB> KB       (the response body, extras on)
 *   memory_profile_timeline_points <n> points (per allocator, reference sampling)
 * Asserts nothing (STYLE rule 19). */
#include "ingest/ingest.h"
#include "model/builder.h"
#include "tools/memory_profile/memory_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define THREADS 4
#define LIVE_MAX 4096   /* live blocks per allocator in the walk */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* xorshift64: a fixed sequence so every run measures the same profile */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct walk {
    uint64_t live_addr[LIVE_MAX];
    int64_t live_bytes[LIVE_MAX];
    size_t n_live;
    int64_t heap;
    int64_t peak;
    uint64_t next_addr;
} walk;

static pv_model *build(uint64_t n)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t tracks[THREADS];
    for (int t = 0; t < THREADS; t++)
        tracks[t] = pv_builder_track(b, host, t + 1, "tf_Compute", 1000);
    const char *names[2] = {"GPU_0_bfc", "gpu_host_bfc"};
    uint32_t alloc_meta[2], free_meta[2];
    for (int k = 0; k < 2; k++) {
        alloc_meta[k] = pv_builder_meta(b, host, 2 * k + 1, "MemoryAllocation", NULL);
        free_meta[k] = pv_builder_meta(b, host, 2 * k + 2, "MemoryDeallocation", NULL);
        pv_builder_meta_stat_str(b, alloc_meta[k], "allocator_name", names[k]);
        pv_builder_meta_stat_str(b, free_meta[k], "allocator_name", names[k]);
        pv_builder_meta_stat_str(b, alloc_meta[k], "region_type", "output");
        pv_builder_meta_stat_i64(b, alloc_meta[k], "data_type", 1);
    }
    walk *w = calloc(2, sizeof *w);
    w[0].next_addr = 1u << 20;
    w[1].next_addr = 1u << 30;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    const int64_t capacity = (int64_t)16 << 30;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = next_rand(&seed);
        int k = (r & 7) == 0 ? 1 : 0;
        walk *wk = &w[k];
        bool do_free = wk->n_live == LIVE_MAX || (wk->n_live > 0 && (r >> 8) % 100 < 48);
        uint64_t addr;
        int64_t bytes;
        uint32_t meta;
        if (do_free) {
            size_t j = (size_t)((r >> 20) % wk->n_live);
            addr = wk->live_addr[j];
            bytes = wk->live_bytes[j];
            wk->live_addr[j] = wk->live_addr[wk->n_live - 1];
            wk->live_bytes[j] = wk->live_bytes[wk->n_live - 1];
            wk->n_live--;
            wk->heap -= bytes;
            meta = free_meta[k];
        } else {
            bytes = (int64_t)(256u << ((r >> 12) % 12));
            addr = wk->next_addr;
            wk->next_addr += (uint64_t)bytes;
            wk->live_addr[wk->n_live] = addr;
            wk->live_bytes[wk->n_live] = bytes;
            wk->n_live++;
            wk->heap += bytes;
            meta = alloc_meta[k];
        }
        if (wk->heap > wk->peak)
            wk->peak = wk->heap;
        int64_t start_ps = 1000000 + (int64_t)i * 1000;
        uint64_t e = pv_builder_event(b, tracks[i % THREADS], meta, start_ps, 0);
        pv_builder_event_stat_i64(b, e, "bytes_allocated", wk->heap);
        pv_builder_event_stat_i64(b, e, "bytes_available", capacity - wk->heap);
        pv_builder_event_stat_i64(b, e, "peak_bytes_in_use", wk->peak);
        pv_builder_event_stat_u64(b, e, "addr", addr);
        pv_builder_event_stat_i64(b, e, "allocation_bytes", bytes);
        pv_builder_event_stat_i64(b, e, "requested_bytes", bytes - 16);
        pv_builder_event_stat_i64(b, e, "group_id", (int64_t)(i / 50000));
    }
    free(w);
    pv_model *m = NULL;
    pv_error err = {0};
    if (pv_builder_finish(b, &m, &err) != 0) {
        fprintf(stderr, "builder: %s\n", err.reason);
        exit(1);
    }
    return m;
}

int main(int argc, char **argv)
{
    char *rest = NULL;
    uint64_t n = argc > 1 ? strtoull(argv[1], &rest, 10) : 1000000;
    pv_model *m = NULL;
    if (argc > 1 && (rest == argv[1] || *rest != '\0')) {
        pv_error err = {0};
        if (pv_ingest_file(argv[1], NULL, &m, &err) != 0) {
            char msg[1200];
            pv_error_format(&err, msg, sizeof msg);
            fprintf(stderr, "%s\n", msg);
            return 1;
        }
        n = m->n_events;
    } else {
        m = build(n);
    }
    double best = 1e30;
    size_t arena_bytes = 0;
    for (int run = 0; run < 3; run++) {
        pv_arena a;
        pv_arena_init(&a, 1 << 20);
        pv_memory_profile_result r;
        pv_error err = {0};
        double t0 = now_ms();
        if (pv_tool_memory_profile(m, NULL, &a, &r, &err) != 0) {
            fprintf(stderr, "tool: %s\n", err.reason);
            return 1;
        }
        double t1 = now_ms();
        best = t1 - t0 < best ? t1 - t0 : best;
        arena_bytes = a.total_bytes;
        if (run == 2) {
            double j0 = now_ms();
            json_t *j = pv_memory_profile_to_json(m, &r, true);
            char *body = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
            double j1 = now_ms();
            printf("memory_profile_events %llu events\n", (unsigned long long)n);
            printf("memory_profile_tool_time %.1f ms\n", best);
            printf("memory_profile_json_time %.1f ms\n", j1 - j0);
            printf("memory_profile_result_bytes %.1f MB\n", (double)arena_bytes / 1e6);
            printf("memory_profile_json_bytes %.1f KB\n", (double)strlen(body) / 1e3);
            for (size_t i = 0; i < r.n_allocators; i++)
                printf("memory_profile_timeline_points[%s] %zu points\n",
                       r.allocators[i].memory_id, r.allocators[i].n_timeline);
            free(body);
            json_decref(j);
        }
        pv_arena_fini(&a);
    }
    pv_model_free(m);
    return 0;
}
