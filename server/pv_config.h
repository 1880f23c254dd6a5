/* config: the settings main() parses from the command line. Filled once
 * before any thread starts and read-only afterwards (the one global of
 * STYLE.md rule 13). */
#ifndef PV_PV_CONFIG_H
#define PV_PV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_config {
    const char *logdir;        /* folder to index; never written */
    uint16_t port;             /* TCP port, default 6006 */
    const char *bind;          /* address to listen on, default 127.0.0.1 */
    const char *cache_dir;     /* on-disk cache; NULL disables it */
    uint64_t cache_max_bytes;  /* --cache-max: limit of the on-disk cache; 0 disables it */
    bool cache_read_only;      /* --cache-read-only: serve what the cache holds, write nothing */
    const char *path_prefix;   /* "" or "/p" (no trailing slash) */
    size_t memory_budget;      /* bytes all loaded models may hold together */
    unsigned rescan_ms;        /* logdir rescan period */

    /* Connections and who may ask (#15). */
    const char *logdir_real;   /* logdir resolved, to show paths relative to it */
    const char *const *allow_hosts; /* --allow-host names, n_allow_hosts of them */
    size_t n_allow_hosts;
    const char *token;         /* --token-file's token; NULL when none is needed */
    unsigned max_conns;        /* connections open at once */
    unsigned max_conns_per_addr; /* per client address; 0 means no limit */
    unsigned header_timeout_ms; /* a request's headers must be complete within this */
    unsigned idle_timeout_s;   /* a connection idle this long is closed */

    /* /metrics (#20): runs whose figures it reports, the most recently
     * written first; 0 reports the server alone. */
    unsigned metrics_runs;
} pv_config;

/* After SIGINT or SIGTERM, requests in flight get PV_STOP_GRACE_MS to be
 * answered; at PV_STOP_DEADLINE_MS the process exits whatever is still
 * running (a handler stuck on a FIFO, a scan of a hung file system). */
#define PV_STOP_GRACE_MS 800u
#define PV_STOP_DEADLINE_MS 1200u

extern pv_config pv_cfg;

#endif
