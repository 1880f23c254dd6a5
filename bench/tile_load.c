/* bench/tile_load: a loopback load generator for the trace viewer's tile
 * route, to measure tiles served from the server's cache.
 *
 *   bench/tile_load PORT 'run=R&host=H' [LEVELS] [SECONDS] [CONNECTIONS]
 *       (defaults: levels 0..4, 5 s, 4 connections)
 *
 * Start profview on a logdir first (e.g. a file from bench/gen_xspace).
 * Each connection is kept alive and asks, round robin, for every tile of
 * levels 0..LEVELS-1 in the binary form the browser asks for (format=bin),
 * with Accept-Encoding: gzip; one warm-up pass fills the cache, then
 * requests run for SECONDS. Prints
 *   tile_load_requests <n> requests
 *   tile_load_throughput <n> tiles/s
 *   tile_load_p50 / tile_load_p99 <ms> ms      (per request, client side)
 *   tile_load_bytes_mean <KB> KB               (body as sent)
 * Asserts nothing (STYLE rule 19). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct worker {
    int port;
    const char *query;
    unsigned levels;
    double seconds;
    unsigned first;      /* tile number this worker starts at */
    size_t n;            /* requests done */
    double *lat_ms;      /* per request */
    size_t cap;
    size_t bytes;
    int failed;
} worker;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Sends one GET and reads the whole reply; returns the body length or -1. */
static long request(int fd, const char *path, char *buf, size_t cap)
{
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n", path);
    if (write(fd, req, (size_t)n) != n)
        return -1;
    size_t got = 0;
    char *hdr_end = NULL;
    while (hdr_end == NULL) {
        ssize_t r = read(fd, buf + got, cap - got - 1);
        if (r <= 0)
            return -1;
        got += (size_t)r;
        buf[got] = 0;
        hdr_end = strstr(buf, "\r\n\r\n");
    }
    if (strncmp(buf, "HTTP/1.1 200", 12) != 0)
        return -1;
    const char *cl = strcasestr(buf, "content-length:");
    if (cl == NULL)
        return -1;
    size_t body = strtoul(cl + 15, NULL, 10), head = (size_t)(hdr_end + 4 - buf);
    size_t have = got - head;
    while (have < body) {
        ssize_t r = read(fd, buf, cap);
        if (r <= 0)
            return -1;
        have += (size_t)r;
    }
    return (long)body;
}

static void *run(void *arg)
{
    worker *w = arg;
    size_t cap = (size_t)64 << 20;
    char *buf = malloc(cap);
    int fd = dial(w->port);
    if (fd < 0) {
        w->failed = 1;
        free(buf);
        return NULL;
    }
    unsigned n_tiles = (1u << w->levels) - 1;
    char path[1024];
    double end = 0;
    for (unsigned i = w->first;; i++) {
        unsigned t = i % n_tiles, level = 0;
        while (t >= (1u << level)) {
            t -= 1u << level;
            level++;
        }
        snprintf(path, sizeof path, "/api/trace/tile?%s&level=%u&index=%u&format=bin", w->query,
                 level, t);
        double s = now_ms();
        long len = request(fd, path, buf, cap);
        double e = now_ms();
        if (len < 0) {
            w->failed = 1;
            break;
        }
        if (i == w->first + n_tiles)   /* warm-up pass done */
            end = e + w->seconds * 1e3;
        if (end > 0) {
            if (e > end)
                break;
            if (w->n == w->cap) {
                w->cap = w->cap ? w->cap * 2 : 4096;
                w->lat_ms = realloc(w->lat_ms, w->cap * sizeof *w->lat_ms);
            }
            w->lat_ms[w->n++] = e - s;
            w->bytes += (size_t)len;
        }
    }
    close(fd);
    free(buf);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tile_load PORT 'run=R&host=H' [LEVELS] [SECONDS] [CONNECTIONS]\n");
        return 2;
    }
    int port = atoi(argv[1]);
    unsigned levels = argc > 3 ? (unsigned)atoi(argv[3]) : 5;
    double seconds = argc > 4 ? atof(argv[4]) : 5.0;
    int conns = argc > 5 ? atoi(argv[5]) : 4;
    worker *w = calloc((size_t)conns, sizeof *w);
    pthread_t *th = calloc((size_t)conns, sizeof *th);
    for (int i = 0; i < conns; i++) {
        w[i] = (worker){port, argv[2], levels, seconds, (unsigned)i * 7u, 0, NULL, 0, 0, 0};
        pthread_create(&th[i], NULL, run, &w[i]);
    }
    size_t total = 0, bytes = 0;
    for (int i = 0; i < conns; i++) {
        pthread_join(th[i], NULL);
        if (w[i].failed)
            fprintf(stderr, "tile_load: connection %d failed\n", i);
        total += w[i].n;
        bytes += w[i].bytes;
    }
    double *all = malloc((total + 1) * sizeof *all);
    size_t k = 0;
    for (int i = 0; i < conns; i++) {
        memcpy(all + k, w[i].lat_ms, w[i].n * sizeof *all);
        k += w[i].n;
        free(w[i].lat_ms);
    }
    qsort(all, total, sizeof *all, cmp_double);
    printf("tile_load_requests %zu requests\n", total);
    printf("tile_load_throughput %.0f tiles/s\n", (double)total / seconds);
    if (total > 0) {
        printf("tile_load_p50 %.3f ms\n", all[total / 2]);
        printf("tile_load_p99 %.3f ms\n", all[total * 99 / 100]);
        printf("tile_load_bytes_mean %.1f KB\n", (double)bytes / (double)total / 1024.0);
    }
    free(all);
    free(w);
    free(th);
    return 0;
}
