/* main: command-line flags, start-up, the rescan loop, and a clean stop.
 *
 * The main thread owns the lifetime: it scans the logdir, starts the HTTP
 * server, then waits for the stop signal with a timeout equal to the
 * rescan period, rescanning each time the wait times out. So the index
 * needs no watcher thread, and a signal stops the server between scans.
 * The signal itself is taken by the stop watch thread, which also bounds
 * how long stopping may take (see "stopping"). */
#include "cache/disk.h"
#include "cli/cli.h"
#include "cache/trace_cache.h"
#include "cache/store.h"
#include "pv_config.h"
#include "http/http.h"
#include "util/limit.h"
#include "http/metrics.h"
#include "index/index.h"
#include "precompute/precompute.h"
#include "report/briefs.h"
#include "util/log.h"
#include "util/quiet.h"
#include "util/size.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum exit_code { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_START = 3 };

pv_config pv_cfg;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: profview [serve] --logdir DIR [options]\n"
            "       profview summary PATH [options]      (profview summary --help)\n"
            "       profview compare BASE NEW [options]  (profview compare --help)\n"
            "       profview precompute LOGDIR --cache-dir DIR [options]\n"
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
            "  --cache-read-only     read the on-disk cache and write nothing in it (a\n"
            "                        replica of a cache `profview precompute` filled)\n"
            "  --memory-budget SIZE  bytes all loaded profiles may use together, with a K, M\n"
            "                        or G suffix (default: a quarter of RAM)\n"
            "  --rescan-ms N         how often to look for new runs (default 2000)\n"
            "  --allow-host NAME     also answer requests for this host name (repeatable);\n"
            "                        while bound to loopback only loopback names are served\n"
            "  --token-file FILE     every request but /healthz needs the token in FILE\n"
            "  --max-conns N         connections open at once (default 2048)\n"
            "  --max-conns-per-addr N  the same per client address (default 0: no limit)\n"
            "  --header-timeout-ms N request headers must arrive within N ms (default 10000)\n"
            "  --idle-timeout-s N    close a connection idle for N s (default 5)\n"
            "  --metrics-runs N      /metrics reports the figures of the N newest runs\n"
            "                        (default 20; 0: only the server's own)\n"
            "  --verbose             log every request\n"
            "  --help, --version\n");
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- connections and who may ask (#15) ------------------------------------ */

#define MAX_ALLOW_HOSTS 32
#define TOKEN_MIN_CHARS 16
#define TOKEN_MAX_CHARS 256
/* Descriptors kept beside the connections' sockets: cache entries and
 * profiles being read, the listening socket, the logs. */
#define FD_RESERVE 256

static void conn_defaults(void)
{
    pv_cfg.max_conns = 2048;
    pv_cfg.header_timeout_ms = 10000;
    pv_cfg.idle_timeout_s = 5;
}

/* The token's first line, trimmed. It becomes a cookie value and is
 * compared with header values, so it is kept to characters that need no
 * quoting in either; a short one could be guessed. */
static int read_token(const char *file)
{
    static char token[TOKEN_MAX_CHARS + 2];
    FILE *f = fopen(file, "r");
    if (f == NULL) {
        fprintf(stderr, "profview: --token-file %s: %s\n", file, strerror(errno));
        return -1;
    }
    size_t n = fread(token, 1, sizeof token - 1, f);
    fclose(f);
    token[n] = '\0';
    n = strcspn(token, "\r\n");
    while (n > 0 && (token[n - 1] == ' ' || token[n - 1] == '\t'))
        n--;
    token[n] = '\0';
    size_t plain = strspn(token, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                 "0123456789-._~+/=");
    if (n < TOKEN_MIN_CHARS || n > TOKEN_MAX_CHARS || plain != n) {
        fprintf(stderr, "profview: --token-file %s must start with a line of %d to %d letters, "
                "digits or -._~+/= (for example: head -c 24 /dev/urandom | base64)\n", file,
                TOKEN_MIN_CHARS, TOKEN_MAX_CHARS);
        return -1;
    }
    pv_cfg.token = token;
    return 0;
}

static int parse_count(const char *flag, const char *s, unsigned long lo, unsigned long hi,
                       unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "profview: --%s must be a whole number from %lu to %lu\n", flag, lo, hi);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static int parse_conn_flag(int c, const char *arg)
{
    static const char *allow[MAX_ALLOW_HOSTS];
    switch (c) {
    case 'A':
        if (pv_cfg.n_allow_hosts == MAX_ALLOW_HOSTS || arg[0] == '\0' || strchr(arg, ':')) {
            fprintf(stderr, "profview: --allow-host takes a host name without a port, at most "
                    "%d times\n", MAX_ALLOW_HOSTS);
            return -1;
        }
        allow[pv_cfg.n_allow_hosts++] = arg;
        pv_cfg.allow_hosts = allow;
        return 0;
    case 'T': return read_token(arg);
    case 'C': return parse_count("max-conns", arg, 16, 1000000, &pv_cfg.max_conns);
    case 'P':
        return parse_count("max-conns-per-addr", arg, 0, 1000000, &pv_cfg.max_conns_per_addr);
    case 'H':
        return parse_count("header-timeout-ms", arg, 100, 3600000, &pv_cfg.header_timeout_ms);
    default: return parse_count("idle-timeout-s", arg, 1, 3600, &pv_cfg.idle_timeout_s);
    }
}

/* Every connection holds a socket: raise the soft descriptor limit to what
 * the connection limit needs, or serve fewer connections when the hard
 * limit is lower (accept() would otherwise fail for everyone). */
static void fit_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t want = (rlim_t)pv_cfg.max_conns + FD_RESERVE;
    if (rl.rlim_cur < want) {
        rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0 && getrlimit(RLIMIT_NOFILE, &rl) != 0)
            return;
    }
    if (rl.rlim_cur < want) {
        unsigned fit = rl.rlim_cur > 2 * FD_RESERVE ? (unsigned)(rl.rlim_cur - FD_RESERVE)
                                                    : (unsigned)(rl.rlim_cur / 2);
        pv_log(PV_LOG_WARN, "only %llu files may be open at once: serving at most %u "
               "connections", (unsigned long long)rl.rlim_cur, fit);
        pv_cfg.max_conns = fit;
    }
}

/* Said before the ready line: a server others can reach hands every
 * profile to anyone who asks unless it needs a token. */
static void warn_if_reachable(void)
{
    if (pv_http_is_loopback(pv_cfg.bind))
        return;
    if (pv_cfg.token == NULL)
        pv_log(PV_LOG_WARN, "listening on %s, so other machines can connect, and every profile "
               "under %s is served to anyone who does, without authentication. Give "
               "--token-file FILE, or keep --bind 127.0.0.1 behind a reverse proxy that checks "
               "who asks.", pv_cfg.bind, pv_cfg.logdir);
    else
        pv_log(PV_LOG_INFO, "listening on %s; every request but /healthz needs the token",
               pv_cfg.bind);
}

/* ---- stopping (#15) ------------------------------------------------------- */

/* The stop watch: a thread that takes SIGINT or SIGTERM, tells the main
 * thread, and ends the process PV_STOP_DEADLINE_MS later if it is still
 * there (at once on a second signal). The orderly stop (requests in flight
 * answered, everything freed) usually finishes first; a handler blocked for
 * good (a FIFO in the logdir) or a scan stuck on a dead file system cannot
 * hold the process. Cache files are written under a temporary name and
 * renamed, so exiting at any point leaves none half-written. */
typedef struct stop_watch {
    sigset_t signals;
    pthread_mutex_t lock;
    pthread_cond_t asked;      /* CLOCK_MONOTONIC */
    bool stop;
} stop_watch;

static void *stop_watch_main(void *arg)
{
    stop_watch *sw = arg;
    int sig = 0;
    while (sigwait(&sw->signals, &sig) != 0)
        continue;
    pthread_mutex_lock(&sw->lock);
    sw->stop = true;
    pthread_cond_signal(&sw->asked);
    pthread_mutex_unlock(&sw->lock);
    struct timespec left = {(time_t)(PV_STOP_DEADLINE_MS / 1000),
                            (long)(PV_STOP_DEADLINE_MS % 1000) * 1000000L};
    int again = sigtimedwait(&sw->signals, NULL, &left);
    if (again > 0)
        pv_log(PV_LOG_WARN, "second stop signal: exiting now");
    else
        pv_log(PV_LOG_WARN, "still stopping %u ms after the signal (a request or a scan is "
               "stuck): exiting without it", PV_STOP_DEADLINE_MS);
    _exit(EXIT_OK);
}

static void stop_watch_start(stop_watch *sw, const sigset_t *signals)
{
    sw->signals = *signals;
    sw->stop = false;
    pthread_mutex_init(&sw->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sw->asked, &ca);
    pthread_condattr_destroy(&ca);
    pthread_t t;
    if (pthread_create(&t, NULL, stop_watch_main, sw) != 0) {
        fprintf(stderr, "profview: cannot start the signal thread\n");
        exit(EXIT_START);
    }
    pthread_detach(t);
}

/* Waits up to ms for the stop signal; true once it came. */
static bool stop_asked(stop_watch *sw, unsigned ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    int64_t ns = (int64_t)until.tv_nsec + (int64_t)(ms % 1000) * 1000000LL;
    until.tv_sec += (time_t)(ms / 1000 + ns / 1000000000LL);
    until.tv_nsec = (long)(ns % 1000000000LL);
    pthread_mutex_lock(&sw->lock);
    while (!sw->stop && pthread_cond_timedwait(&sw->asked, &sw->lock, &until) == 0)
        continue;
    bool stop = sw->stop;
    pthread_mutex_unlock(&sw->lock);
    return stop;
}

static int parse_args(int argc, char **argv, char *cache_buf, size_t cache_cap)
{
    static const struct option opts[] = {
        {"logdir", required_argument, NULL, 'l'},
        {"port", required_argument, NULL, 'p'},
        {"bind", required_argument, NULL, 'b'},
        {"path-prefix", required_argument, NULL, 'x'},
        {"cache-dir", required_argument, NULL, 'c'},
        {"cache-max", required_argument, NULL, 'K'},
        {"cache-read-only", no_argument, NULL, 'R'},
        {"memory-budget", required_argument, NULL, 'm'},
        {"rescan-ms", required_argument, NULL, 'r'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {"allow-host", required_argument, NULL, 'A'},
        {"token-file", required_argument, NULL, 'T'},
        {"max-conns", required_argument, NULL, 'C'},
        {"max-conns-per-addr", required_argument, NULL, 'P'},
        {"header-timeout-ms", required_argument, NULL, 'H'},
        {"idle-timeout-s", required_argument, NULL, 'I'},
        {"metrics-runs", required_argument, NULL, 'M'},
        {NULL, 0, NULL, 0},
    };
    pv_cfg = (pv_config){.port = 6006, .bind = "127.0.0.1", .path_prefix = "",
                         .memory_budget = pv_size_default_budget(), .rescan_ms = 2000,
                         .metrics_runs = 20};
    conn_defaults();
    pv_cfg.cache_max_bytes = PV_DISK_CACHE_MAX_AUTO;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end;
        unsigned long v;
        switch (c) {
        case 'l': pv_cfg.logdir = optarg; break;
        case 'b': pv_cfg.bind = optarg; break;
        case 'c': pv_cfg.cache_dir = optarg; break;
        case 'R': pv_cfg.cache_read_only = true; break;
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
        case 'K': {
            size_t bytes;
            if (pv_size_parse(optarg, &bytes) != 0) {
                fprintf(stderr, "profview: --cache-max %s is not a size like 2G\n", optarg);
                return -1;
            }
            pv_cfg.cache_max_bytes = bytes;
            break;
        }
        case 'm':
            if (pv_size_parse(optarg, &pv_cfg.memory_budget) != 0) {
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
        case 'A': case 'T': case 'C': case 'P': case 'H': case 'I':
            if (parse_conn_flag(c, optarg) != 0)
                return -1;
            break;
        case 'M':
            if (parse_count("metrics-runs", optarg, 0, 100000, &pv_cfg.metrics_runs) != 0)
                return -1;
            break;
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
    /* Subcommands: serve (also with none), summary, compare, precompute. */
    if (argc > 1 && strcmp(argv[1], "precompute") == 0)
        return pv_precompute_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "summary") == 0)
        return pv_cli_summary(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return pv_cli_compare(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "serve") == 0) {
        argv[1] = argv[0];
        argc--;
        argv++;
    }
    if (parse_args(argc, argv, cache_buf, sizeof cache_buf) != 0)
        return EXIT_USAGE;

    /* Block the stop signals before any thread starts so every thread
     * inherits the mask and only the stop watch receives them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    static stop_watch sw;
    stop_watch_start(&sw, &stop);
    fit_fd_limit();

    pv_error err = {0};
    pv_index *first = NULL;
    if (pv_index_scan(pv_cfg.logdir, NULL, now_ns(), &first, &err) != 0) {
        char msg[1200];
        pv_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "profview: %s\n", msg);
        return EXIT_START;
    }
    static char logdir_real[PATH_MAX];
    snprintf(logdir_real, sizeof logdir_real, "%s", first->logdir);
    pv_cfg.logdir_real = logdir_real;
    pv_index_store index;
    pv_index_store_init(&index, first);
    pv_disk_cache disk;
    if (pv_cfg.cache_read_only)
        pv_disk_cache_init_read_only(&disk, pv_cfg.cache_dir);
    else
        pv_disk_cache_init(&disk, pv_cfg.cache_dir, pv_cfg.cache_max_bytes);
    /* One budget covers every model and its trace index. */
    /* Expensive answers at once: two per core (limit.h). */
    pv_limit heavy;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    pv_limit_init(&heavy, cores > 1 ? 2u * (unsigned)cores : 2u);
    /* The disk cache's writes after a load wait for moments without requests. */
    pv_quiet quiet;
    pv_quiet_init(&quiet, PV_QUIET_GAP_NS);
    pv_app app = {.index = &index,
                  .models = pv_model_store_new(pv_cfg.memory_budget, &disk, pv_trace_companion()),
                  .disk = &disk,
                  .heavy = &heavy,
                  .briefs = pv_briefs_new(),
                  .metrics = pv_http_metrics_new(),
                  .quiet = &quiet};
    pv_model_store_set_quiet(app.models, &quiet);
    pv_http *http = NULL;
    if (pv_http_start(&app, pv_cfg.bind, pv_cfg.port, &http, &err) != 0) {
        char msg[1200];
        pv_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "profview: %s\n", msg);
        pv_model_store_free(app.models);
        pv_limit_fini(&heavy);
        pv_briefs_free(app.briefs);
        pv_http_metrics_free(app.metrics);
        pv_disk_cache_fini(&disk);
        pv_index_store_fini(&index);
        return EXIT_START;
    }
    warn_if_reachable();
    bool v6 = strchr(pv_cfg.bind, ':') != NULL;
    printf("profview %s: serving %s (%zu runs) at http://%s%s%s:%u%s/\n", PV_VERSION,
           first->logdir, first->n_runs, v6 ? "[" : "", pv_cfg.bind, v6 ? "]" : "",
           (unsigned)pv_http_port(http), pv_cfg.path_prefix);
    fflush(stdout);

    while (!stop_asked(&sw, pv_cfg.rescan_ms)) {
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
    pv_quiet_off(&quiet);
    pv_http_stop(http);
    pv_model_store_free(app.models);
    pv_briefs_free(app.briefs);
    pv_http_metrics_free(app.metrics);
    pv_limit_fini(&heavy);
    pv_disk_cache_fini(&disk);
    pv_index_store_fini(&index);
    return EXIT_OK;
}
