/* precompute: `profview precompute LOGDIR --cache-dir DIR [--shard I/N]`
 * fills a disk cache with what servers would otherwise compute on the
 * first request: each profile's saved model, its trace index, and every
 * tool's default answer (JSON, and CSV where the tool has a table), per host and, for the
 * tools that combine hosts, for ALL_HOSTS. Servers started with
 * `--cache-dir DIR --cache-read-only` then answer those requests from the
 * folder without decoding anything (docs/scale-out.md).
 *
 * The work is cut into units: one per host with a profile, and one per
 * run with two or more of them (its ALL_HOSTS answers). A unit belongs to
 * shard pv_precompute_shard_of(run, host, N): a hash of the names alone,
 * so every shard, on any machine and whatever it scanned a moment before
 * or after the others, agrees on who does what without talking to them.
 * N shards started at once (a Kubernetes Indexed Job, a Slurm array, GNU
 * parallel) share the folder through the disk cache's rules: every file
 * is written under a name of its own and renamed into place
 * (docs/cache.md). Whatever is already kept is not made again, so a shard
 * that was stopped is simply run again.
 *
 * Keys and answers are made by cache/answer.h, the code the /data routes
 * use, so a kept answer is byte for byte the one a server makes itself.
 * Threads: one caller. */
#ifndef PV_PRECOMPUTE_PRECOMPUTE_H
#define PV_PRECOMPUTE_PRECOMPUTE_H

#include "cache/store.h"
#include "util/error.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pv_precompute_opts {
    const char *logdir;
    const char *cache_dir;
    uint64_t cache_max_bytes;  /* limit of the folder (PV_DISK_CACHE_MAX_AUTO: default) */
    size_t memory_budget;      /* bytes the models held at once may use (0: no bound) */
    unsigned shard;            /* this shard, 0 .. shards-1 */
    unsigned shards;           /* how many share the work; 1: all of it */
} pv_precompute_opts;

typedef struct pv_precompute_stats {
    size_t units;              /* units of the logdir, every shard's */
    size_t units_mine;         /* of those, this shard's */
    uint64_t profile_bytes;    /* size of the profiles of this shard's host units */
    size_t answers_made;       /* answers computed and kept */
    size_t answers_kept;       /* answers found kept already */
    size_t failed;             /* answers that could not be made (logged) */
    uint64_t decoded;          /* profiles decoded */
    uint64_t from_disk;        /* saved models read instead */
} pv_precompute_stats;

/* The shard of n that owns the unit of host of run (ALL_HOSTS for a run's
 * combined answers): FNV-1a of the run name, a NUL and the host name,
 * modulo n. The same on every machine and build. Cannot fail. */
unsigned pv_precompute_shard_of(const char *run, const char *host, unsigned n);

/* Does this shard's units. Returns 0 (answers that failed are counted in
 * out->failed and logged; a server asked for them fails the same way), or
 * PV_EIO with err set when the logdir cannot be read or the cache folder
 * cannot be used. */
int pv_precompute_run(const pv_precompute_opts *o, pv_precompute_stats *out, pv_error *err);

/* The subcommand: parses argv (argv[0] is "precompute"), runs, prints one
 * summary line; returns the process's exit code. */
int pv_precompute_main(int argc, char **argv);

#endif
