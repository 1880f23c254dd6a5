/* bench/metrics: a /metrics scrape beside a logdir of many runs.
 *
 * Builds a logdir of N runs (hard links to one small profile, so each run
 * is its own path and its own set of figures), starts profview on it with
 * --metrics-runs 20, scrapes until every reported run's figures are read
 * (what the first scrapes of a new server cost), then times warm scrapes.
 *
 *   bench/metrics PROFVIEW_BIN PROFILE [N_RUNS (default 1000)]
 *
 * prints metrics_runs_indexed, metrics_cold_scrapes (how many scrapes it
 * took), metrics_cold_total_ms, and the warm scrape's median, p99 and max
 * in ms. Asserts nothing. */
#include "httpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WARM 100

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One scrape: its time in ms and whether figures are still pending; -1
 * when it failed. */
static double scrape(const pv_test_server *s, int *pending)
{
    pv_test_reply r;
    double t0 = now_ms();
    if (pv_test_get(s, "GET", "/metrics", NULL, &r) != 0 || r.status != 200)
        return -1;
    double dt = now_ms() - t0;
    const char *p = strstr(r.body, "\nprofview_run_figures_pending ");
    *pending = p != NULL ? atoi(p + 30) : 0;
    pv_test_reply_free(&r);
    return dt;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s PROFVIEW_BIN PROFILE [N_RUNS]\n", argv[0]);
        return 2;
    }
    int n = argc > 3 ? atoi(argv[3]) : 1000;
    setenv("PROFVIEW_BIN", argv[1], 1);
    char dir[] = "/tmp/pv_bench_metrics_XXXXXX";
    char cache[] = "/tmp/pv_bench_metrics_cache_XXXXXX";
    if (mkdtemp(dir) == NULL || mkdtemp(cache) == NULL)
        return 1;
    char path[512];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/plugins/profile/run_%05d", dir, i);
        char cmd[2400];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s' && ln '%s' '%s/vm.xplane.pb' 2>/dev/null || "
                 "cp '%s' '%s/vm.xplane.pb'", path, argv[2], path, argv[2], path);
        if (system(cmd) != 0)
            return 1;
    }
    pv_test_server s;
    const char *extra[] = {"--cache-dir", cache, "--metrics-runs", "20", NULL};
    if (pv_test_server_start(&s, dir, extra) != 0)
        return 1;
    int pending = 1, scrapes = 0;
    double cold = 0;
    while (pending > 0 && scrapes < 1000) {
        double dt = scrape(&s, &pending);
        if (dt < 0)
            return 1;
        cold += dt;
        scrapes++;
    }
    double warm[WARM];
    for (int i = 0; i < WARM; i++)
        warm[i] = scrape(&s, &pending);
    qsort(warm, WARM, sizeof warm[0], cmp_double);
    printf("metrics_runs_indexed %d runs\n", n);
    printf("metrics_cold_scrapes %d scrapes\n", scrapes);
    printf("metrics_cold_total_ms %.1f ms\n", cold);
    printf("metrics_warm_scrape_median_ms %.2f ms\n", warm[WARM / 2]);
    printf("metrics_warm_scrape_p99_ms %.2f ms\n", warm[WARM * 99 / 100]);
    printf("metrics_warm_scrape_max_ms %.2f ms\n", warm[WARM - 1]);
    pv_test_server_stop(&s);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, cache);
    return system(cmd) == 0 ? 0 : 1;
}
