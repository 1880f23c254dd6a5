/* precompute_cli: `profview precompute`'s flags and its one summary line, the only
 * place this subcommand prints (main.c only dispatches to it). */
#include "cache/disk.h"
#include "precompute/precompute.h"
#include "util/log.h"
#include "util/size.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum exit_code { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: profview precompute LOGDIR --cache-dir DIR [options]\n"
            "Decode every profile below LOGDIR and keep its model and every tool's default\n"
            "answer in DIR, so servers started with --cache-dir DIR --cache-read-only\n"
            "answer without decoding. What is kept already is not made again.\n"
            "\n"
            "  --cache-dir DIR       the cache folder to fill (required)\n"
            "  --shard I/N           do only shard I (0 .. N-1) of N: run N of these at once,\n"
            "                        on one machine or many sharing DIR (default 0/1)\n"
            "  --cache-max SIZE      bytes DIR may hold, with a K, M or G suffix (default: no\n"
            "                        limit; past one the least recently used go first)\n"
            "  --memory-budget SIZE  bytes the models held at once may use (default: a\n"
            "                        quarter of RAM)\n"
            "  --verbose             log each unit of work\n"
            "  --help\n");
}

/* "I/N" with 0 <= I < N <= 65536. */
static int parse_shard(const char *s, unsigned *shard, unsigned *shards)
{
    char *end;
    errno = 0;
    unsigned long i = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '/' || s[0] == '-')
        return -1;
    const char *t = end + 1;
    unsigned long n = strtoul(t, &end, 10);
    if (errno != 0 || end == t || *end != '\0' || t[0] == '-' || n == 0 || n > 65536 || i >= n)
        return -1;
    *shard = (unsigned)i;
    *shards = (unsigned)n;
    return 0;
}

static int parse_args(int argc, char **argv, pv_precompute_opts *o)
{
    static const struct option opts[] = {
        {"cache-dir", required_argument, NULL, 'c'},
        {"shard", required_argument, NULL, 's'},
        {"cache-max", required_argument, NULL, 'K'},
        {"memory-budget", required_argument, NULL, 'm'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    /* Everything precompute writes is meant to be read: no limit unless
     * asked, as eviction by one shard would remove what another wrote. */
    *o = (pv_precompute_opts){.cache_max_bytes = UINT64_MAX - 1,
                              .memory_budget = pv_size_default_budget(), .shards = 1};
    pv_log_set_level(PV_LOG_WARN);
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        size_t bytes;
        switch (c) {
        case 'c': o->cache_dir = optarg; break;
        case 'v': pv_log_set_level(PV_LOG_INFO); break;
        case 's':
            if (parse_shard(optarg, &o->shard, &o->shards) != 0) {
                fprintf(stderr, "profview precompute: --shard %s is not I/N with 0 <= I < N\n",
                        optarg);
                return -1;
            }
            break;
        case 'K':
        case 'm':
            if (pv_size_parse(optarg, &bytes) != 0) {
                fprintf(stderr, "profview precompute: --%s %s is not a size like 4G\n",
                        c == 'K' ? "cache-max" : "memory-budget", optarg);
                return -1;
            }
            if (c == 'K')
                o->cache_max_bytes = bytes;
            else
                o->memory_budget = bytes;
            break;
        case 'h': usage(stdout); exit(EXIT_OK);
        default: usage(stderr); return -1;
        }
    }
    if (optind + 1 != argc || o->cache_dir == NULL) {
        fprintf(stderr, "profview precompute: give one LOGDIR and --cache-dir DIR\n");
        usage(stderr);
        return -1;
    }
    o->logdir = argv[optind];
    return 0;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

int pv_precompute_main(int argc, char **argv)
{
    pv_precompute_opts o;
    if (parse_args(argc, argv, &o) != 0)
        return EXIT_USAGE;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pv_precompute_stats st;
    pv_error err = {0};
    if (pv_precompute_run(&o, &st, &err) != 0) {
        char msg[1200];
        pv_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "profview precompute: %s\n", msg);
        return EXIT_FAILED;
    }
    double s = seconds_since(&t0);
    printf("precompute shard %u/%u: %zu of %zu units, %llu profile bytes, %zu answers made, "
           "%zu kept already, %zu failed, %llu decoded, %llu read from the cache, %.2f s\n",
           o.shard, o.shards, st.units_mine, st.units, (unsigned long long)st.profile_bytes,
           st.answers_made, st.answers_kept, st.failed, (unsigned long long)st.decoded,
           (unsigned long long)st.from_disk, s);
    return EXIT_OK;
}
