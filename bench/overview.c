/* bench/overview: the overview page and input pipeline analyzer on an
 * XSpace file, typically a synthetic one from bench/gen_xspace:
 *
 *   bench/gen_xspace /tmp/x.xplane.pb 200 && bench/overview /tmp/x.xplane.pb
 *
 * Ingests the file once (not timed here; bench/ingest measures that), then
 * prints
 *   overview_events <n> events           (events in the model)
 *   overview_steps <n> steps             (steps the analysis kept)
 *   overview_tool_time <ms> ms           (pv_tool_overview, best of 3, wall)
 *   overview_tool_cpu_time <ms> ms       (the same in CPU time; one core)
 *   overview_json_time <ms> ms           (pv_overview_to_json + compact dump)
 *   overview_json_bytes <n> bytes
 *   input_pipeline_tool_time <ms> ms     (pv_tool_input_pipeline, best of 3, wall)
 *   overview_events_per_s <n> Mevents/s  (events / best overview time)
 * Asserts nothing (STYLE rule 19). */
#include "ingest/ingest.h"
#include "tools/steps/overview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.xplane.pb\n", argv[0]);
        return 2;
    }
    pv_model *m = NULL;
    pv_error err = {0};
    if (pv_ingest_file(argv[1], NULL, &m, &err) != 0) {
        fprintf(stderr, "%s: %s\n", argv[1], err.reason);
        return 1;
    }
    double best = 1e300, best_cpu = 1e300, best_ip = 1e300;
    size_t steps = 0;
    for (int i = 0; i < 3; i++) {
        pv_arena a;
        pv_arena_init(&a, 1 << 20);
        pv_overview_result r;
        double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
        pv_tool_overview(m, NULL, &a, &r, &err);
        double t1 = clock_ms(CLOCK_MONOTONIC), c1 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
        steps = r.ip.analysis.n_steps;
        if (t1 - t0 < best)
            best = t1 - t0;
        if (c1 - c0 < best_cpu)
            best_cpu = c1 - c0;
        if (i == 0) {
            double j0 = clock_ms(CLOCK_MONOTONIC);
            json_t *j = pv_overview_to_json(&r);
            char *s = json_dumps(j, JSON_COMPACT);
            double j1 = clock_ms(CLOCK_MONOTONIC);
            printf("overview_json_time %.1f ms\n", j1 - j0);
            printf("overview_json_bytes %zu bytes\n", s ? strlen(s) : 0);
            free(s);
            json_decref(j);
        }
        pv_arena_fini(&a);
        pv_arena_init(&a, 1 << 20);
        pv_input_pipeline_result ip;
        double i0 = clock_ms(CLOCK_MONOTONIC);
        pv_tool_input_pipeline(m, NULL, &a, &ip, &err);
        double i1 = clock_ms(CLOCK_MONOTONIC);
        if (i1 - i0 < best_ip)
            best_ip = i1 - i0;
        pv_arena_fini(&a);
    }
    printf("overview_events %llu events\n", (unsigned long long)m->n_events);
    printf("overview_steps %zu steps\n", steps);
    printf("overview_tool_time %.1f ms\n", best);
    printf("overview_tool_cpu_time %.1f ms\n", best_cpu);
    printf("input_pipeline_tool_time %.1f ms\n", best_ip);
    printf("overview_events_per_s %.1f Mevents/s\n", (double)m->n_events / best / 1e3);
    pv_model_free(m);
    return 0;
}
