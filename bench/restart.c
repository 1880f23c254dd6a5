/* bench/restart: what a restart costs on a big profile.
 *
 * Starts profview on LOGDIR (one run, one host) with an empty cache
 * folder, asks for the overview page (decode + compute), stops it, starts
 * it again on the same cache and asks again, then asks for the trace
 * viewer's track list, which needs the model itself (read back from the
 * saved model file rather than decoded). Then starts it a third time,
 * asks /api/load until the model is ready and its trace index is built
 * (a server without the field is only waited for "ready"), and times the
 * track list asked after that: what a viewer opening the trace after
 * another tool waits for.
 * Usage: bench/restart PROFVIEW_BIN LOGDIR RUN HOST. Prints `name value unit`. */
#include "httpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Time of one GET, or -1 when it did not answer 200. */
static double timed_get(const pv_test_server *s, const char *path)
{
    pv_test_reply r;
    double t0 = now_ms();
    if (pv_test_get(s, "GET", path, NULL, &r) != 0)
        return -1;
    double dt = now_ms() - t0;
    int ok = r.status == 200;
    if (!ok)
        fprintf(stderr, "%s -> %d %.200s\n", path, r.status, r.body);
    pv_test_reply_free(&r);
    return ok ? dt : -1;
}

/* Asks path (an /api/load URL) until the model is ready and no trace
 * index is "building"; returns the ms it took, or -1. */
static double wait_loaded(const pv_test_server *s, const char *path)
{
    double t0 = now_ms();
    for (int i = 0; i < 60000; i++) {
        pv_test_reply r;
        if (pv_test_get(s, "GET", path, NULL, &r) != 0)
            return -1;
        int done = r.status == 200 && strstr(r.body, "\"trace_index\":\"building\"") == NULL;
        int failed = r.status >= 400;
        pv_test_reply_free(&r);
        if (failed)
            return -1;
        if (done)
            return now_ms() - t0;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: bench/restart PROFVIEW_BIN LOGDIR RUN HOST\n");
        return 2;
    }
    setenv("PROFVIEW_BIN", argv[1], 1);
    char cache[] = "/tmp/pv_bench_restart_XXXXXX";
    if (mkdtemp(cache) == NULL)
        return 1;
    setenv("XDG_CACHE_HOME", cache, 1);
    char overview[512], meta[512], load[512];
    snprintf(overview, sizeof overview, "/data/plugin/profile/data?run=%s&host=%s&tag=overview_page",
             argv[3], argv[4]);
    snprintf(meta, sizeof meta, "/api/trace/meta?run=%s&host=%s", argv[3], argv[4]);
    snprintf(load, sizeof load, "/api/load?run=%s&host=%s", argv[3], argv[4]);

    pv_test_server s;
    if (pv_test_server_start(&s, argv[2], NULL) != 0)
        return 1;
    printf("restart_cold_overview_ms %.0f ms\n", timed_get(&s, overview));
    /* Let the loader finish writing the saved model before stopping. */
    pv_test_server_stop(&s);

    if (pv_test_server_start(&s, argv[2], NULL) != 0)
        return 1;
    printf("restart_cached_overview_ms %.1f ms\n", timed_get(&s, overview));
    printf("restart_model_reopen_trace_meta_ms %.0f ms\n", timed_get(&s, meta));
    pv_test_server_stop(&s);

    if (pv_test_server_start(&s, argv[2], NULL) != 0)
        return 1;
    printf("restart_load_until_trace_ready_ms %.0f ms\n", wait_loaded(&s, load));
    printf("restart_trace_meta_after_load_ms %.1f ms\n", timed_get(&s, meta));
    pv_test_server_stop(&s);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
    return system(cmd) == 0 ? 0 : 1;
}
