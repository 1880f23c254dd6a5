/* bench/big_profile: what each path of the server costs on one big
 * profile (issue #18): time, CPU time and peak memory of the server
 * process, step by step.
 *
 *   bench/big_profile PROFVIEW_BIN LOGDIR RUN HOST [--budget SIZE] [STEP...]
 *
 * Starts profview on LOGDIR with an empty on-disk cache and runs the
 * steps in order (default: the list in default_steps). A step is one
 * request, or `restart` (stop the server, start it again on the same
 * cache). Each request is read to its end and thrown away, so the bench
 * holds no body. Per step it prints
 *   big_<step>_wall <ms> ms        until the last byte of the answer
 *   big_<step>_cpu <ms> ms         the server's user + system time
 *   big_<step>_peak_rss <MB> MB    the server's VmHWM over the step (it is
 *                                  reset before each step)
 *   big_<step>_peak_anon <MB> MB   the highest RssAnon seen (heap), and
 *   big_<step>_peak_file <MB> MB   the highest RssFile seen (file pages
 *                                  mapped read-only: the profile, a saved
 *                                  model), both sampled every 5 ms
 * Steps: meta (api/trace/meta: decode and trace index), tv_all (the
 * whole trace through trace_viewer@), win1 .. win3 (trace_viewer@ for
 * three different 1 s windows), res (the whole trace at resolution 1000),
 * tiles (api/trace/tile: level 0 and 8 tiles of level 6), search, and the
 * tools overview, input, kernels, memory, op_stats, trace_json (the legacy
 * trace_viewer: the whole trace as one JSON answer); `saved` sends nothing
 * and waits until the loader has saved the model (after the trace index
 * and the first memos): its figures are the loader's, and the next step
 * runs alone. Asserts nothing. */
#include "httpc.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- the server's memory and CPU ----------------------------------------- */

typedef struct sampler {
    pid_t pid;
    atomic_int stop;
    atomic_long max_anon_kb;
    atomic_long max_file_kb;
} sampler;

/* The value of a "Name:   N kB" line of /proc/PID/status, or -1. */
static long status_kb(pid_t pid, const char *name)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    long v = -1;
    size_t n = strlen(name);
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, name, n) == 0 && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static void raise_to(atomic_long *max, long v)
{
    long cur = atomic_load(max);
    while (v > cur && !atomic_compare_exchange_weak(max, &cur, v))
        ;
}

static void *sample_main(void *arg)
{
    sampler *s = arg;
    while (!atomic_load(&s->stop)) {
        raise_to(&s->max_anon_kb, status_kb(s->pid, "RssAnon"));
        raise_to(&s->max_file_kb, status_kb(s->pid, "RssFile"));
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* The server's user + system CPU time in ms. */
static double cpu_ms(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
                            &st) != 2)
        return 0;
    return (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

static void reset_peak(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/clear_refs", (int)pid);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fputs("5", f);
        fclose(f);
    }
}

/* ---- one request, read to its end ------------------------------------------ */

/* GETs path (with gzip accepted when gz); returns the status (or -1) and
 * copies up to cap-1 bytes of the reply's start (headers included) into
 * head. */
static int get(unsigned port, const char *path, bool gz, char *head, size_t cap, size_t *bytes)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char req[2048];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: "
                     "close\r\n\r\n", path, gz ? "Accept-Encoding: gzip\r\n" : "");
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        write(fd, req, (size_t)n) != (ssize_t)n) {
        close(fd);
        return -1;
    }
    size_t have = 0;
    *bytes = 0;
    char chunk[65536];
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got <= 0)
            break;
        if (have < cap - 1) {
            size_t take = (size_t)got < cap - 1 - have ? (size_t)got : cap - 1 - have;
            memcpy(head + have, chunk, take);
            have += take;
        }
        *bytes += (size_t)got;
    }
    close(fd);
    head[have] = '\0';
    int status = -1;
    if (sscanf(head, "HTTP/1.%*d %d", &status) != 1)
        return -1;
    return status;
}

/* ---- the steps ---------------------------------------------------------------- */

typedef struct bench {
    const char *logdir;
    const char *run, *host;
    const char *const *extra;
    const char *cache;   /* XDG_CACHE_HOME of the server */
    pv_test_server srv;
    sampler smp;
    pthread_t smp_thread;
    long long t0_ms;     /* the trace's time 0 in ms of the ts base (from meta) */
    long long span_ms;
} bench;

static int start(bench *b)
{
    if (pv_test_server_start(&b->srv, b->logdir, b->extra) != 0)
        return -1;
    b->smp.pid = b->srv.pid;
    atomic_store(&b->smp.stop, 0);
    return pthread_create(&b->smp_thread, NULL, sample_main, &b->smp) == 0 ? 0 : -1;
}

/* Waits (up to two minutes) until the cache folder holds a saved model
 * and no file being written, so a restart finds the model saved. */
static void wait_saved(const char *cache)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/profview", cache);
    for (int i = 0; i < 1200; i++) {
        DIR *d = opendir(dir);
        bool model = false, tmp = false;
        for (struct dirent *e = d != NULL ? readdir(d) : NULL; e != NULL; e = readdir(d)) {
            size_t n = strlen(e->d_name);
            model |= n > 4 && strcmp(e->d_name + n - 4, ".pvm") == 0;
            tmp |= n > 4 && strcmp(e->d_name + n - 4, ".tmp") == 0;
        }
        if (d != NULL)
            closedir(d);
        if (model && !tmp)
            return;
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
}

static void stop(bench *b)
{
    atomic_store(&b->smp.stop, 1);
    pthread_join(b->smp_thread, NULL);
    pv_test_server_stop(&b->srv);
}

/* The URL of a step, or NULL for an unknown one. */
static const char *step_url(const bench *b, const char *step, char *url, size_t cap)
{
    const char *data = "/data/plugin/profile/data";
    static const struct { const char *step, *tag; } tools[] = {
        {"overview", "overview_page"}, {"input", "input_pipeline_analyzer"},
        {"kernels", "kernel_stats"}, {"memory", "memory_profile"},
        {"op_stats", "framework_op_stats"}, {"trace_json", "trace_viewer"},
        {"tv_all", "trace_viewer@"},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (strcmp(step, tools[i].step) == 0) {
            snprintf(url, cap, "%s?run=%s&host=%s&tag=%s", data, b->run, b->host, tools[i].tag);
            return url;
        }
    if (strcmp(step, "meta") == 0) {
        snprintf(url, cap, "/api/trace/meta?run=%s&host=%s", b->run, b->host);
        return url;
    }
    if (strcmp(step, "search") == 0) {
        snprintf(url, cap, "/api/trace/search?run=%s&host=%s&q=Iterator::Map&limit=100", b->run,
                 b->host);
        return url;
    }
    if (strcmp(step, "res") == 0) {
        snprintf(url, cap, "%s?run=%s&host=%s&tag=trace_viewer@&resolution=1000", data, b->run,
                 b->host);
        return url;
    }
    if (strncmp(step, "win", 3) == 0 && step[3] >= '1' && step[3] <= '9' && step[4] == '\0') {
        /* Windows a seventh of the trace apart, so none repeats another. */
        long long at = b->t0_ms + b->span_ms * (step[3] - '0') / 7;
        snprintf(url, cap, "%s?run=%s&host=%s&tag=trace_viewer@&start_time_ms=%lld"
                 "&end_time_ms=%lld", data, b->run, b->host, at, at + 1000);
        return url;
    }
    return NULL;
}

/* Reads t0_ps and span_ps out of a meta answer's start. */
static void read_meta(bench *b, const char *head)
{
    const char *t0 = strstr(head, "\"t0_ps\":\"");
    const char *span = strstr(head, "\"span_ps\":");
    if (t0 != NULL)
        b->t0_ms = strtoll(t0 + 9, NULL, 10) / 1000000000LL;
    if (span != NULL)
        b->span_ms = strtoll(span + 10, NULL, 10) / 1000000000LL;
}

/* One step: its requests timed and measured together. */
static int run_step(bench *b, const char *step)
{
    char urls[9][1024];
    size_t n = 0;
    if (strcmp(step, "tiles") == 0) {
        snprintf(urls[n++], sizeof urls[0], "/api/trace/tile?run=%s&host=%s&level=0&index=0"
                 "&format=bin", b->run, b->host);
        for (int i = 0; i < 8; i++)
            snprintf(urls[n++], sizeof urls[0], "/api/trace/tile?run=%s&host=%s&level=6"
                     "&index=%d&format=bin", b->run, b->host, i * 8 + 3);
    } else if (step_url(b, step, urls[0], sizeof urls[0]) != NULL) {
        n = 1;
    } else if (strcmp(step, "saved") != 0) {
        fprintf(stderr, "big_profile: unknown step %s\n", step);
        return -1;
    }
    pid_t pid = b->srv.pid;
    reset_peak(pid);
    atomic_store(&b->smp.max_anon_kb, 0);
    atomic_store(&b->smp.max_file_kb, 0);
    double c0 = cpu_ms(pid), t0 = now_ms();
    size_t total = 0;
    if (n == 0)
        wait_saved(b->cache);
    for (size_t i = 0; i < n; i++) {
        char head[65536];
        size_t bytes = 0;
        bool meta = strcmp(step, "meta") == 0;
        int status = get(b->srv.port, urls[i], !meta, head, sizeof head, &bytes);
        if (status != 200) {
            fprintf(stderr, "big_profile: %s -> %d\n", urls[i], status);
            return -1;
        }
        if (meta)
            read_meta(b, head);
        total += bytes;
    }
    double wall = now_ms() - t0, cpu = cpu_ms(pid) - c0;
    /* one more sample, so a step shorter than the period is seen */
    raise_to(&b->smp.max_anon_kb, status_kb(pid, "RssAnon"));
    raise_to(&b->smp.max_file_kb, status_kb(pid, "RssFile"));
    printf("big_%s_wall %.0f ms\n", step, wall);
    printf("big_%s_cpu %.0f ms\n", step, cpu);
    printf("big_%s_peak_rss %.0f MB\n", step, (double)status_kb(pid, "VmHWM") / 1024.0);
    printf("big_%s_peak_anon %.0f MB\n", step, (double)atomic_load(&b->smp.max_anon_kb) / 1024.0);
    printf("big_%s_peak_file %.0f MB\n", step, (double)atomic_load(&b->smp.max_file_kb) / 1024.0);
    printf("big_%s_bytes %.1f MB\n", step, (double)total / 1e6);
    fflush(stdout);
    return 0;
}

static const char *const default_steps[] = {
    "meta", "tv_all", "win1", "win2", "res", "tiles", "search", "restart",
    "overview", "input", "kernels", "op_stats", "memory", "win3", "restart", "trace_json",
};

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench/big_profile PROFVIEW_BIN LOGDIR RUN HOST [--budget SIZE] "
                "[STEP...]\n");
        return 2;
    }
    setenv("PROFVIEW_BIN", argv[1], 1);
    bench b = {.logdir = argv[2], .run = argv[3], .host = argv[4]};
    int first = 5;
    const char *extra[3] = {NULL};
    if (argc > 6 && strcmp(argv[5], "--budget") == 0) {
        extra[0] = "--memory-budget";
        extra[1] = argv[6];
        first = 7;
    }
    b.extra = extra;
    char cache[] = "/tmp/pv_bench_big_XXXXXX";
    if (mkdtemp(cache) == NULL)
        return 1;
    setenv("XDG_CACHE_HOME", cache, 1);
    b.cache = cache;
    const char *const *steps = default_steps;
    size_t n_steps = sizeof default_steps / sizeof default_steps[0];
    if (argc > first) {
        steps = (const char *const *)argv + first;
        n_steps = (size_t)(argc - first);
    }
    int rc = start(&b);
    for (size_t i = 0; i < n_steps && rc == 0; i++) {
        if (strcmp(steps[i], "restart") == 0) {
            wait_saved(cache);
            stop(&b);
            rc = start(&b);
        } else {
            rc = run_step(&b, steps[i]);
        }
    }
    if (b.srv.pid > 0)
        stop(&b);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
    if (system(cmd) != 0)
        rc = -1;
    return rc == 0 ? 0 : 1;
}
