/* main: command-line flags, start-up, the rescan loop, and a clean stop.
 *
 * The main thread owns the lifetime: it scans the logdir, starts the HTTP
 * server, then waits for SIGINT/SIGTERM with a timeout equal to the
 * rescan period, rescanning each time the wait times out. So the index
 * needs no watcher thread, and a signal stops the server between scans. */
#include "cache/disk.h"
#include "cache/trace_cache.h"
#include "cache/store.h"
#include "pv_config.h"
#include "http/http.h"
#include "index/index.h"
#include "util/log.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum exit_code { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_START = 3 };

pv_config pv_cfg;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: profview --logdir DIR [options]\n"
            "Serve TensorFlow / JAX profiles (the TensorBoard Profile tab) from DIR.\n"
            "\n"
            "  --logdir DIR          folder holding plugins/profile/<run>/ folders (required)\n"
            "  --port N              TCP port (default 6006; 0 picks a free one)\n"
            "  --bind ADDR           address to listen on (default 127.0.0.1, loopback only)\n"
            "  --path-prefix /P      serve under /P, e.g. behind a reverse proxy\n"
            "  --cache-dir DIR       on-disk cache (default $XDG_CACHE_HOME/profview or\n"
            "                        ~/.cache/profview)\n"
            "  --cache-max SIZE      bytes the on-disk cache may use, with a K, M or G suffix\n"
            "                        (default: a quarter of the free disk space, at most 4G;\n"
            "                        0: no on-disk cache)\n"
            "  --memory-budget SIZE  bytes all loaded profiles may use together, with a K, M\n"
            "                        or G suffix (default: a quarter of RAM)\n"
            "  --rescan-ms N         how often to look for new runs (default 2000)\n"
            "  --verbose             log every request\n"
            "  --help, --version\n");
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    else if (*end != '\0')
        return -1;
    if (shift != 0 && end[1] != '\0' && strcmp(end + 1, "B") != 0 && strcmp(end + 1, "iB") != 0)
        return -1;
    if (v > (ULLONG_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

static size_t default_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return (size_t)1 << 30;
    return (size_t)pages * (size_t)page / 4;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int parse_args(int argc, char **argv, char *cache_buf, size_t cache_cap)
{
    static const struct option opts[] = {
        {"logdir", required_argument, NULL, 'l'},
        {"port", required_argument, NULL, 'p'},
        {"bind", required_argument, NULL, 'b'},
        {"path-prefix", required_argument, NULL, 'x'},
        {"cache-dir", required_argument, NULL, 'c'},
        {"cache-max", required_argument, NULL, 'C'},
        {"memory-budget", required_argument, NULL, 'm'},
        {"rescan-ms", required_argument, NULL, 'r'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    pv_cfg = (pv_config){.port = 6006, .bind = "127.0.0.1", .path_prefix = "",
                         .memory_budget = default_budget(), .rescan_ms = 2000};
    pv_cfg.cache_max_bytes = PV_DISK_CACHE_MAX_AUTO;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end;
        unsigned long v;
        switch (c) {
        case 'l': pv_cfg.logdir = optarg; break;
        case 'b': pv_cfg.bind = optarg; break;
        case 'c': pv_cfg.cache_dir = optarg; break;
        case 'v': pv_log_set_level(PV_LOG_DEBUG); break;
        case 'p':
            v = strtoul(optarg, &end, 10);
            if (*end != '\0' || end == optarg || v > 65535) {
                fprintf(stderr, "profview: --port %s is not a port number\n", optarg);
                return -1;
            }
            pv_cfg.port = (uint16_t)v;
            break;
        case 'r':
            v = strtoul(optarg, &end, 10);
            if (*end != '\0' || end == optarg || v < 100 || v > 3600000) {
                fprintf(stderr, "profview: --rescan-ms must be between 100 and 3600000\n");
                return -1;
            }
            pv_cfg.rescan_ms = (unsigned)v;
            break;
        case 'C': {
            size_t bytes;
            if (parse_size(optarg, &bytes) != 0) {
                fprintf(stderr, "profview: --cache-max %s is not a size like 2G\n", optarg);
                return -1;
            }
            pv_cfg.cache_max_bytes = bytes;
            break;
        }
        case 'm':
            if (parse_size(optarg, &pv_cfg.memory_budget) != 0) {
                fprintf(stderr, "profview: --memory-budget %s is not a size like 4G\n", optarg);
                return -1;
            }
            break;
        case 'x': {
            size_t n = strlen(optarg);
            while (n > 0 && optarg[n - 1] == '/')
                optarg[--n] = '\0';
            if (n > 0 && optarg[0] != '/') {
                fprintf(stderr, "profview: --path-prefix must start with /\n");
                return -1;
            }
            pv_cfg.path_prefix = optarg;
            break;
        }
        case 'h': usage(stdout); exit(EXIT_OK);
        case 'V': printf("profview %s\n", PV_VERSION); exit(EXIT_OK);
        default: usage(stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "profview: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (pv_cfg.logdir == NULL) {
        fprintf(stderr, "profview: --logdir is required\n");
        usage(stderr);
        return -1;
    }
    /* The XDG specification ignores a relative $XDG_CACHE_HOME. With
     * neither variable there is no folder of this user's own to default
     * to: a fixed name in the shared /tmp could be made first by another
     * user, and a private folder there would be lost at exit, so the
     * cache is off instead. */
    if (pv_cfg.cache_dir == NULL) {
        const char *xdg = getenv("XDG_CACHE_HOME");
        const char *home = getenv("HOME");
        if (xdg != NULL && xdg[0] == '/')
            snprintf(cache_buf, cache_cap, "%s/profview", xdg);
        else if (home != NULL && home[0] == '/')
            snprintf(cache_buf, cache_cap, "%s/.cache/profview", home);
        else
            pv_log(PV_LOG_WARN, "neither $XDG_CACHE_HOME nor $HOME names a folder: running "
                   "without the on-disk cache (--cache-dir names one)");
        pv_cfg.cache_dir = cache_buf[0] != '\0' ? cache_buf : NULL;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static char cache_buf[PATH_MAX];
    if (parse_args(argc, argv, cache_buf, sizeof cache_buf) != 0)
        return EXIT_USAGE;

    /* Block the stop signals before any thread starts so every thread
     * inherits the mask and only sigtimedwait below receives them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    pv_error err = {0};
    pv_index *first = NULL;
    if (pv_index_scan(pv_cfg.logdir, NULL, now_ns(), &first, &err) != 0) {
        char msg[1200];
        pv_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "profview: %s\n", msg);
        return EXIT_START;
    }
    pv_index_store index;
    pv_index_store_init(&index, first);
    pv_disk_cache disk;
    pv_disk_cache_init(&disk, pv_cfg.cache_dir, pv_cfg.cache_max_bytes);
    /* One budget covers every model and its trace index. */
    pv_app app = {.index = &index,
                  .models = pv_model_store_new(pv_cfg.memory_budget, &disk, pv_trace_companion()),
                  .disk = &disk};
    pv_http *http = NULL;
    if (pv_http_start(&app, pv_cfg.bind, pv_cfg.port, &http, &err) != 0) {
        char msg[1200];
        pv_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "profview: %s\n", msg);
        pv_model_store_free(app.models);
        pv_disk_cache_fini(&disk);
        pv_index_store_fini(&index);
        return EXIT_START;
    }
    bool v6 = strchr(pv_cfg.bind, ':') != NULL;
    printf("profview %s: serving %s (%zu runs) at http://%s%s%s:%u%s/\n", PV_VERSION,
           first->logdir, first->n_runs, v6 ? "[" : "", pv_cfg.bind, v6 ? "]" : "",
           (unsigned)pv_http_port(http), pv_cfg.path_prefix);
    fflush(stdout);

    struct timespec period = {(time_t)(pv_cfg.rescan_ms / 1000),
                              (long)(pv_cfg.rescan_ms % 1000) * 1000000L};
    for (;;) {
        int sig = sigtimedwait(&stop, NULL, &period);
        if (sig == SIGINT || sig == SIGTERM)
            break;
        pv_index *cur = pv_index_store_acquire(&index);
        pv_index *next = NULL;
        if (pv_index_scan(pv_cfg.logdir, cur, now_ns(), &next, &err) == 0) {
            if (next->generation != cur->generation) {
                pv_log(PV_LOG_INFO, "logdir changed: %zu runs", next->n_runs);
                pv_index_store_swap(&index, next);
            } else {
                pv_index_unref(next);
            }
        } else {
            char msg[1200];
            pv_error_format(&err, msg, sizeof msg);
            pv_log(PV_LOG_WARN, "rescan failed, keeping the last index: %s", msg);
        }
        pv_index_store_release(&index, cur);
    }
    pv_log(PV_LOG_INFO, "stopping: finishing requests in flight");
    pv_http_stop(http);
    pv_model_store_free(app.models);
    pv_disk_cache_fini(&disk);
    pv_index_store_fini(&index);
    return EXIT_OK;
}
