/* bench/big_answer: what a repeat of a large tool answer costs the server
 * (the trace_viewer Chrome JSON of a big profile).
 *
 *   bench/big_answer PROFVIEW_BIN LOGDIR RUN HOST [TOOL]   (TOOL: trace_viewer)
 *
 * With an empty cache folder: starts profview, asks once for the tool's
 * answer with Accept-Encoding: gzip (decode + compute), stops it; starts
 * it again on the same cache and asks again (the answer now comes from the
 * on-disk cache), then once more with If-None-Match set to the ETag it got.
 * Each start is a new process, so the peak RSS read after a request
 * (VmHWM of /proc/PID/status) is that request's own. Prints
 *   big_answer_first_ms / _first_peak_rss_mb / _body_mb (as sent)
 *   big_answer_second_ms / _second_peak_rss_mb
 *   big_answer_revalidate_ms (status 304 expected; printed with it)
 * Asserts nothing. */
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

/* VmHWM of pid in MB, or -1. */
static double peak_rss_mb(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    double mb = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmHWM:", 6) == 0)
            mb = strtod(line + 6, NULL) / 1024.0;
    if (f != NULL)
        fclose(f);
    return mb;
}

/* One GET; prints its time (and status when not 200) as name; keeps the
 * reply's ETag in etag when asked. */
static int timed(const pv_test_server *s, const char *name, const char *path,
                 const char *headers, char *etag, size_t cap)
{
    pv_test_reply r;
    double t0 = now_ms();
    if (pv_test_get(s, "GET", path, headers, &r) != 0)
        return -1;
    printf("%s_ms %.1f ms\n", name, now_ms() - t0);
    if (r.status != 200)
        printf("%s_status %d\n", name, r.status);
    else
        printf("big_answer_body_mb %.1f MB\n", (double)r.len / 1e6);
    if (etag != NULL && pv_test_header(&r, "etag", etag, cap) == NULL)
        etag[0] = 0;
    pv_test_reply_free(&r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: bench/big_answer PROFVIEW_BIN LOGDIR RUN HOST [TOOL]\n");
        return 2;
    }
    setenv("PROFVIEW_BIN", argv[1], 1);
    char cache[] = "/tmp/pv_bench_big_answer_XXXXXX";
    if (mkdtemp(cache) == NULL)
        return 1;
    setenv("XDG_CACHE_HOME", cache, 1);
    char path[512], etag[128], inm[200];
    snprintf(path, sizeof path, "/data/plugin/profile/data?run=%s&host=%s&tag=%s", argv[3],
             argv[4], argc == 6 ? argv[5] : "trace_viewer");
    const char *gz = "Accept-Encoding: gzip\r\n";

    pv_test_server s;
    if (pv_test_server_start(&s, argv[2], NULL) != 0)
        return 1;
    timed(&s, "big_answer_first", path, gz, NULL, 0);
    printf("big_answer_first_peak_rss_mb %.0f MB\n", peak_rss_mb((int)s.pid));
    pv_test_server_stop(&s);

    if (pv_test_server_start(&s, argv[2], NULL) != 0)
        return 1;
    timed(&s, "big_answer_second", path, gz, etag, sizeof etag);
    printf("big_answer_second_peak_rss_mb %.0f MB\n", peak_rss_mb((int)s.pid));
    snprintf(inm, sizeof inm, "%sIf-None-Match: %s\r\n", gz, etag);
    timed(&s, "big_answer_revalidate", path, inm, NULL, 0);
    pv_test_server_stop(&s);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
    return system(cmd) == 0 ? 0 : 1;
}
