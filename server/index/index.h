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
 * tbrun is the logdir itself, else "<tbrun>/<session>"; and
 * torch-tb-profiler: any other folder holding a file of an any_folder
 * format (trace JSON) is a run named by its path in the logdir (the
 * logdir's own name for the logdir), with a host per such file; of two
 * runs of one name the later gets " (2)". The scan never
 * follows a symbolic link that leads outside the logdir, never enters a
 * folder twice (loops), skips unreadable folders with a log line, and
 * never writes anything. */
#ifndef PV_INDEX_INDEX_H
#define PV_INDEX_INDEX_H

#include "ingest/formats.h"
#include "source/source.h"
#include "tools/tool.h"
#include "util/safe_open.h"
#include "util/error.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

typedef struct pv_host_file {
    char *path;          /* absolute path of the file, through no symbolic link */
    const pv_format *format; /* what the file is (ingest/formats.h) */
    pv_file_id id;           /* device, inode, size, mtime, ctime when scanned */
    unsigned holds;          /* a profile's PV_PROFILE_* (format->probe); 0 otherwise */
    /* Where its bytes come from when it is not a file of the logdir (a
     * capture held in memory: source/source.h), with that kind's ctx;
     * NULL: the file at path, as every scan finds. */
    const pv_source_kind *source_kind;
    const void *source_ctx;
} pv_host_file;

typedef struct pv_host {
    char *name;              /* host name from the file name; "" for a host-less legacy file */
    pv_host_file *files;     /* n_files, in the format table's order */
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

/* ---- what answers a tool (offer.c) ---------------------------------------
 * The one place that decides which model or file answers a tool on a host:
 * a host's profile (a PROFILE-format file, decoded into a model) answers
 * every tool that computes from models; otherwise the first of TensorFlow's
 * per-tool files made for the tool answers it, or one made for the tool it
 * takes files of (pv_tool.files_of). */

/* The host's profile, the file its model is decoded from, or NULL. */
const pv_host_file *pv_host_profile(const pv_host *h);
/* Where f's bytes come from, f being a file of a run below root (NULL:
 * opened as named). Borrowed from f. */
pv_source pv_host_file_source(const pv_host_file *f, const char *root);
/* What answers t on h: the profile, with *from_model true, or a per-tool
 * file, with *from_model false; NULL when nothing does. */
const pv_host_file *pv_host_answer(const pv_host *h, const pv_tool *t, bool *from_model);
/* True when something answers t on h. */
bool pv_host_has_tool(const pv_host *h, const pv_tool *t);

/* The tools a host lists, in the registry's order (TensorBoard's,
 * FORMATS.md §4.8), as run_tools names them: a tool answered only through
 * files_of is not listed, nor one hidden by another the host lists. Writes
 * up to cap into out; returns the count. */
size_t pv_host_tools(const pv_host *h, const pv_tool **out, size_t cap);
/* The same over a run's hosts: a tool any host lists. */
size_t pv_run_tools(const pv_run *run, const pv_tool **out, size_t cap);
/* The number of hosts of run with a profile. */
size_t pv_run_profiles(const pv_run *run);

/* ---- inside index/ --------------------------------------------------------- */

/* Frees what a run owns (not the run itself). */
void pv__run_free(pv_run *run);

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
