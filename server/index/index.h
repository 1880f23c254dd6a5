/* index: which runs, hosts and tools a logdir holds, from names and sizes
 * only (nothing is parsed here).
 *
 * A pv_index is an immutable snapshot built by one scan; readers share it
 * through a reference count, so a rescan never disturbs a request that is
 * using the previous snapshot. pv_index_store holds the current snapshot
 * behind its own mutex; any thread may acquire/release.
 *
 * Run naming follows TensorBoard (FORMATS.md §1.1): every
 * <tbrun>/plugins/profile/<session>/ folder is a run named <session> when
 * tbrun is the logdir itself, else "<tbrun>/<session>". The scan never
 * follows a symbolic link that leads outside the logdir, never enters a
 * folder twice (loops), skips unreadable folders with a log line, and
 * never writes anything. */
#ifndef PV_INDEX_INDEX_H
#define PV_INDEX_INDEX_H

#include "index/filename.h"
#include "util/error.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

typedef struct pv_host_file {
    char *path;          /* absolute path of the file */
    pv_file_kind kind;
    uint64_t size_bytes;
    int64_t mtime_ns;
} pv_host_file;

typedef struct pv_host {
    char *name;              /* host name from the file name; "" for a host-less legacy file */
    pv_host_file *files;     /* n_files, sorted by kind */
    size_t n_files;
} pv_host;

typedef struct pv_run {
    char *name;              /* frontend run name, e.g. "train/2022_11_04_21_26_12" */
    char *dir;               /* absolute path of the session folder */
    pv_host *hosts;          /* sorted by name */
    size_t n_hosts;
} pv_run;

typedef struct pv_index {
    int refs;                /* guarded by the store's mutex */
    char *logdir;            /* absolute, resolved */
    pv_run *runs;            /* sorted by name, ascending */
    size_t n_runs;
    uint64_t n_files;        /* host files seen, offered or not */
    pv_host_file *seen;      /* every host file seen, offered or not, sorted by
                                path: the next scan's "has it stopped growing";
                                with kind PV_FILE_NONE, every entry skipped with a
                                log line, so the next scan does not say it again */
    size_t n_seen;
    uint64_t generation;     /* increments with every scan that changed something */
} pv_index;

/* ---- scanning ---------------------------------------------------------- */

/* Scans logdir and returns a new snapshot (refs = 1) in *out. prev (may be
 * NULL) is the previous snapshot: a file whose mtime is within
 * PV_INDEX_SETTLE_NS of now_ns is offered only if prev saw it with the same
 * size and mtime, so a file still being written is not offered until it
 * stops growing. Returns 0, or PV_EIO when logdir itself cannot be read. */
#define PV_INDEX_SETTLE_NS 2000000000LL
int pv_index_scan(const char *logdir, const pv_index *prev, int64_t now_ns, pv_index **out,
                  pv_error *err);

/* True when a and b list the same runs, hosts and files (sizes, mtimes). */
int pv_index_same(const pv_index *a, const pv_index *b);  /* includes files not yet offered */

/* Drops one reference; frees at zero. NULL is fine. Only for snapshots not
 * held by a store (the store's own release locks). */
void pv_index_unref(pv_index *ix);

/* ---- lookups (borrowed pointers, valid while the snapshot is held) ------ */

const pv_run *pv_index_run_find(const pv_index *ix, const char *name);
const pv_host *pv_run_host_find(const pv_run *run, const char *host);
/* The file of this kind, or NULL. */
const pv_host_file *pv_host_file_find(const pv_host *h, pv_file_kind kind);

/* Tools a host offers, in the order TensorBoard shows them (FORMATS §4.8).
 * Writes up to cap names (static strings) into names; returns the count. */
size_t pv_host_tools(const pv_host *h, const char **names, size_t cap);
/* Union over a run's hosts, same order. */
size_t pv_run_tools(const pv_run *run, const char **names, size_t cap);
/* True when the host offers tool (aliases such as tensorflow_stats and
 * trace_viewer@ included). */
int pv_host_has_tool(const pv_host *h, const char *tool);

/* ---- the shared current snapshot ----------------------------------------- */

typedef struct pv_index_store {
    pthread_mutex_t lock;
    pv_index *current;       /* never NULL after init */
} pv_index_store;

void pv_index_store_init(pv_index_store *s, pv_index *first);  /* takes first */
void pv_index_store_fini(pv_index_store *s);
/* Returns the current snapshot with a reference the caller must release. */
pv_index *pv_index_store_acquire(pv_index_store *s);
void pv_index_store_release(pv_index_store *s, pv_index *ix);
/* Replaces the current snapshot with next (taken). */
void pv_index_store_swap(pv_index_store *s, pv_index *next);

#endif
