/* bench/kernel_stats: the kernel_stats tool (and framework_op_stats'
 * device side) on a synthetic GPU profile with many kernel events.
 *
 *   bench/kernel_stats [N]     (N kernel events, default 10000000)
 *
 * Builds a model with N kernel events on one GPU plane, four streams,
 * 300 kernel names x 4 launch configurations under 500 framework ops
 * (kernel_details and tf_op as per-event string stats, as CUPTI writes
 * them), then prints
 *   kernel_stats_events <N> events
 *   kernel_stats_build_time <ms> ms      (making the model; not the tool)
 *   kernel_stats_tool_time <ms> ms       (pv_tool_kernel_stats, all rows, best of 3, wall)
 *   kernel_stats_tool_cpu_time <ms> ms   (the same in CPU time: the tool uses one core)
 *   kernel_stats_rows <n> rows           (distinct rows)
 *   kernel_stats_json_time <ms> ms       (pv_kernel_stats_to_json + dump of the top 1000)
 *   op_stats_device_time <ms> ms         (pv_op_metrics_device, best of 3, wall)
 *   op_stats_device_cpu_time <ms> ms     (the same in CPU time)
 * Asserts nothing (STYLE rule 19). */
#include "model/builder.h"
#include "tools/kernel_stats/kernel_stats.h"
#include "tools/op_stats/op_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STREAMS 4
#define KERNELS 300
#define CONFIGS 4
#define OPS 500

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* CPU time of this process: on a shared box the wall clock also counts
 * other people's builds; the tool is single-threaded, so CPU time is its
 * time on one core. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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

static pv_model *build(uint64_t n)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t tracks[STREAMS];
    char buf[256];
    for (int s = 0; s < STREAMS; s++) {
        snprintf(buf, sizeof buf, "Stream #%d(Kernel)", s + 7);
        tracks[s] = pv_builder_track(b, gpu, s + 7, buf, 0);
    }
    uint32_t metas[KERNELS];
    for (int k = 0; k < KERNELS; k++) {
        snprintf(buf, sizeof buf, "%s_kernel_%d<float, %d>(float const*, float*, int)",
                 k % 7 == 0 ? "volta_h884gemm" : "void Eigen::internal::EigenMetaKernel", k,
                 k % 5);
        metas[k] = pv_builder_meta(b, gpu, k + 1, buf, NULL);
    }
    uint32_t details[CONFIGS];
    for (int c = 0; c < CONFIGS; c++) {
        snprintf(buf, sizeof buf,
                 "regs:%d static_shared:%d dynamic_shared:0 grid:%d,1,1 block:256,1,1 "
                 "occ_pct:%d.5", 32 + 8 * c, 1024 * c, 40 << c, 25 * c);
        details[c] = pv_builder_intern_cstr(b, buf);
    }
    uint32_t ops[OPS];
    for (int o = 0; o < OPS; o++) {
        snprintf(buf, sizeof buf, "model/layer_%d/%s_%d:%s", o / 10,
                 o % 3 == 0 ? "MatMul" : "Relu", o, o % 3 == 0 ? "MatMul" : "Relu");
        ops[o] = pv_builder_intern_cstr(b, buf);
    }
    uint32_t s_details = pv_builder_intern_cstr(b, "kernel_details");
    uint32_t s_tf_op = pv_builder_intern_cstr(b, "tf_op");
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int64_t t[STREAMS] = {0};
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = next_rand(&seed);
        int s = (int)(r % STREAMS);
        int op = (int)((r >> 8) % OPS);
        int k = (op * 7 + (int)((r >> 20) % 3)) % KERNELS;
        int c = (int)((r >> 30) % CONFIGS);
        int64_t dur_ps = 1000 * (int64_t)(2 + (r >> 40) % 500);
        uint64_t ev = pv_builder_event(b, tracks[s], metas[k], t[s], dur_ps);
        t[s] += dur_ps + 1000;
        pv_builder_event_stat(b, ev, (pv_stat){s_details, PV_STAT_STR, {.str = details[c]}});
        pv_builder_event_stat(b, ev, (pv_stat){s_tf_op, PV_STAT_STR, {.str = ops[op]}});
    }
    pv_model *m = NULL;
    pv_error err = {0};
    if (pv_builder_finish(b, &m, &err) != 0) {
        fprintf(stderr, "bench/kernel_stats: %s\n", err.reason);
        exit(1);
    }
    return m;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000ull;
    double t0 = now_ms();
    pv_model *m = build(n);
    double build_ms = now_ms() - t0;
    printf("kernel_stats_events %llu events\n", (unsigned long long)n);
    printf("kernel_stats_build_time %.0f ms\n", build_ms);

    double best = 1e300;
    double best_cpu = 1e300;
    size_t rows = 0;
    for (int rep = 0; rep < 3; rep++) {
        pv_arena a;
        pv_arena_init(&a, 1 << 20);
        pv_kernel_stats_query q = {0};
        pv_kernel_stats_result r;
        pv_error err = {0};
        double s = now_ms();
        double c = cpu_ms();
        if (pv_tool_kernel_stats(m, &q, &a, &r, &err) != 0) {
            fprintf(stderr, "bench/kernel_stats: %s\n", err.reason);
            return 1;
        }
        double d = now_ms() - s;
        double dc = cpu_ms() - c;
        best = d < best ? d : best;
        best_cpu = dc < best_cpu ? dc : best_cpu;
        rows = r.n_rows;
        if (rep == 2) {
            r.n_rows = r.n_rows < PV_KERNEL_STATS_REFERENCE_ROWS ? r.n_rows
                                                                  : PV_KERNEL_STATS_REFERENCE_ROWS;
            s = now_ms();
            json_t *j = pv_kernel_stats_to_json(&r);
            char *body = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
            printf("kernel_stats_json_time %.1f ms\n", now_ms() - s);
            free(body);
            json_decref(j);
        }
        pv_arena_fini(&a);
    }
    printf("kernel_stats_tool_time %.1f ms\n", best);
    printf("kernel_stats_tool_cpu_time %.1f ms\n", best_cpu);
    printf("kernel_stats_rows %zu rows\n", rows);

    best = 1e300;
    best_cpu = 1e300;
    for (int rep = 0; rep < 3; rep++) {
        pv_arena a;
        pv_arena_init(&a, 1 << 20);
        pv_op_metrics_db db;
        pv_error err = {0};
        double s = now_ms();
        double c = cpu_ms();
        if (pv_op_metrics_device(m, &a, &db, &err) != 0) {
            fprintf(stderr, "bench/kernel_stats: %s\n", err.reason);
            return 1;
        }
        double d = now_ms() - s;
        double dc = cpu_ms() - c;
        best = d < best ? d : best;
        best_cpu = dc < best_cpu ? dc : best_cpu;
        pv_arena_fini(&a);
    }
    printf("op_stats_device_time %.1f ms\n", best);
    printf("op_stats_device_cpu_time %.1f ms\n", best_cpu);
    pv_model_free(m);
    return 0;
}
