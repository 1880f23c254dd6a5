/* config: the settings main() parses from the command line. Filled once
 * before any thread starts and read-only afterwards (the one global of
 * STYLE.md rule 13). */
#ifndef PV_PV_CONFIG_H
#define PV_PV_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef struct pv_config {
    const char *logdir;        /* folder to index; never written */
    uint16_t port;             /* TCP port, default 6006 */
    const char *bind;          /* address to listen on, default 127.0.0.1 */
    const char *cache_dir;     /* on-disk cache; NULL disables it */
    uint64_t cache_max_bytes;  /* --cache-max: limit of the on-disk cache; 0 disables it */
    const char *path_prefix;   /* "" or "/p" (no trailing slash) */
    size_t memory_budget;      /* bytes all loaded models may hold together */
    unsigned rescan_ms;        /* logdir rescan period */
} pv_config;

extern pv_config pv_cfg;

#endif
