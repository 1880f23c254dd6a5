/* disk: the on-disk cache of computed results, under --cache-dir (never
 * inside the logdir). docs/cache.md describes the folder for whoever
 * shares it.
 *
 * An entry is keyed by its source's identity (source/source.h: for a file
 * its path below the logdir, size, mtime and ctime), the
 * program (version and a hash of the executable, so results of an older
 * or differently built binary are never served) and a string naming what
 * was computed (e.g. "data:overview_page?"). Its file is named by a hash
 * of the key and ends in what kind of entry it is: ".pvc" holds a header
 * (magic, format version, payload length, CRC-32 of the payload, the full
 * key) and the payload; ".pvm" is a saved model, which carries its own
 * checks. A read checks all of it, so a truncated or corrupt entry, or a
 * hash collision, is never served: it is reported as absent and removed,
 * and the caller rebuilds it.
 *
 * The folder: created 0700; refused (the cache is off, one log line says
 * why) when it is owned by another user or writable by its group or by
 * others. Every file is first written under a temporary name of its own,
 * created exclusively without following links, and renamed into place, so
 * a reader never sees half an entry and a planted link is never written
 * through. Entries are opened without following links.
 *
 * The limit: the bytes of every file the cache keeps in the folder are
 * counted once at init and then kept up to date by this process. A put
 * that takes the count past the limit evicts the least recently used
 * entries (a read marks an entry used by setting its mtime), after
 * counting the folder again, so what other processes sharing it wrote is
 * seen. An entry bigger than the limit is not kept. Temporaries left by a
 * killed writer are removed by the next count once they are a few minutes
 * old.
 *
 * Threads: any thread may call anything but init and fini; one mutex
 * guards the count. Processes: several may share one folder; entries are
 * immutable once renamed, and removing one that another process is
 * reading leaves its open descriptor valid. */
#ifndef PV_CACHE_DISK_H
#define PV_CACHE_DISK_H

#include "util/buf.h"
#include "util/error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Give as max_bytes for the default limit: a quarter of what the folder's
 * file system has free plus what the cache already holds, at most 4 GiB. */
#define PV_DISK_CACHE_MAX_AUTO UINT64_MAX
/* File names in the cache folder, with their NUL: "<16 hex digits>.<kind>"
 * (a kind is 1 to 8 lowercase letters) for an entry, the entry's name and
 * ".<pid>-<nonce>-<sequence>.tmp" for a temporary. */
#define PV_DISK_ENTRY_NAME_MAX 32
#define PV_DISK_NAME_MAX 96

typedef struct pv_disk_cache {
    char *dir;               /* NULL when the cache is off (no dir, refused, or limit 0) */
    bool read_only;          /* pv_disk_cache_init_read_only: nothing is ever written */
    char program[40];        /* version + hash of this executable: any rebuild is a new key */
    int dir_fd;              /* the folder as checked at init; every name is relative to it */
    uint64_t max_bytes;      /* the limit on the folder's cache files */
    uint32_t nonce;          /* random per init: two processes with one pid (containers
                              * sharing the folder) still make different temporaries */
    atomic_uint_fast64_t tmp_seq;   /* temporaries made so far */
    pthread_mutex_t lock;    /* guards used_bytes and eviction */
    uint64_t used_bytes;     /* bytes of the cache's files in the folder, as counted */
} pv_disk_cache;

typedef struct pv_cache_key {
    const char *source; /* the identity line of what it was made from (source/source.h) */
    const char *what;   /* what was computed from the source, with its parameters */
} pv_cache_key;

/* ---- the folder -------------------------------------------------------------- */

/* Makes dir (and missing parents, 0700) if needed, checks it, removes
 * stale temporaries, counts what is there and evicts down to max_bytes
 * (PV_DISK_CACHE_MAX_AUTO for the default). When dir is NULL or empty,
 * max_bytes is 0, or the folder cannot be made or is refused, the cache is
 * off: logs why, and every call below does nothing. Cannot fail. */
void pv_disk_cache_init(pv_disk_cache *c, const char *dir, uint64_t max_bytes);
/* Opens dir, which must exist, to read entries that other processes wrote
 * (a cache `profview precompute` filled, mounted read-only or shared):
 * nothing is ever written, removed or marked used in it, so puts and
 * creates do nothing, a corrupt entry is a miss that stays where it is,
 * and nothing is counted or evicted. The folder must pass the checks of
 * pv_disk_cache_init but need not be writable. When dir is NULL or
 * empty, or the folder is missing or refused, the cache is off: logs
 * why. Cannot fail. */
void pv_disk_cache_init_read_only(pv_disk_cache *c, const char *dir);
/* Releases c. An off or zero-filled c is fine. */
void pv_disk_cache_fini(pv_disk_cache *c);

/* Bytes of the cache's files in the folder as this process counts them:
 * the last count plus what it stored and minus what it removed since. */
uint64_t pv_disk_cache_bytes(pv_disk_cache *c);

/* ---- entries held in the cache's own format (".pvc") --------------------------- */

/* Appends the payload to out and returns 0, or PV_ENOTFOUND when there is
 * no valid entry (corrupt ones are removed). A hit marks the entry used. */
int pv_disk_cache_get(pv_disk_cache *c, const pv_cache_key *k, pv_buf *out);

/* Stores data under k. Returns 0, PV_ETOOBIG when the entry would be
 * bigger than the limit (not kept), or PV_EIO (logged; the caller carries
 * on without the cache). */
int pv_disk_cache_put(pv_disk_cache *c, const pv_cache_key *k, const void *data, size_t len);
/* The same with the payload given as head followed by data, so a caller
 * can put a small header before a large body without copying it. */
int pv_disk_cache_put2(pv_disk_cache *c, const pv_cache_key *k, const void *head,
                       size_t head_len, const void *data, size_t len);

/* ---- streaming a large entry ----------------------------------------------
 * A large payload (a compressed tool result) is served straight from its
 * file instead of being read into memory: open checks the header, the key
 * and the file's length; check reads the payload once for its CRC. */
typedef struct pv_disk_entry {
    int fd;             /* open on the entry file; the caller closes it */
    uint64_t offset;    /* where the payload starts in the file */
    uint64_t len;       /* payload bytes */
    uint32_t crc;       /* CRC-32 the payload must have */
} pv_disk_entry;

/* Returns 0 with out filled and the entry marked used, or PV_ENOTFOUND
 * when there is no valid entry (a corrupt one is removed). */
int pv_disk_cache_open(pv_disk_cache *c, const pv_cache_key *k, pv_disk_entry *out);
/* Checks the payload of an opened entry against its CRC. Returns 0, or
 * PV_ENOTFOUND after closing e->fd and removing the entry. */
int pv_disk_cache_check(pv_disk_cache *c, const pv_cache_key *k, pv_disk_entry *e);

/* ---- entries that are files of their own (".pvm": a saved model) --------------- */

/* A file being written: the caller writes to fd, then commits or
 * discards it. */
typedef struct pv_disk_tmp {
    int fd;                           /* open for writing; -1 once committed or discarded */
    char name[PV_DISK_NAME_MAX];      /* the temporary's name in the folder */
    char entry[PV_DISK_ENTRY_NAME_MAX];   /* the entry's name, for the rename */
} pv_disk_tmp;

/* Creates a new temporary (0600, exclusively, not through a link) for k's
 * entry ending in "." kind (a few lowercase letters). Returns 0 with out
 * filled, PV_ENOTFOUND when the cache is off, or PV_EIO (logged). */
int pv_disk_cache_create(pv_disk_cache *c, const pv_cache_key *k, const char *kind,
                         pv_disk_tmp *out);
/* Closes t's file and renames it over its entry, then evicts if the limit
 * is passed. Returns 0; PV_ETOOBIG when the file is bigger than the limit
 * or PV_EIO (logged), the temporary then removed. */
int pv_disk_cache_commit(pv_disk_cache *c, pv_disk_tmp *t);
/* Closes and removes t's file (after a failed write). Cannot fail. */
void pv_disk_cache_discard(pv_disk_cache *c, pv_disk_tmp *t);

/* The path of k's entry ending in "." kind when it is a regular file (not
 * a link), marked used; free() it. NULL when there is none or the cache is
 * off. */
char *pv_disk_cache_find(pv_disk_cache *c, const pv_cache_key *k, const char *kind);
/* Removes k's entry ending in "." kind (found unusable). Cannot fail. */
void pv_disk_cache_remove(pv_disk_cache *c, const pv_cache_key *k, const char *kind);

/* ---- shared inside cache/ only ------------------------------------------------- */

/* k's full key text (the source, the program, what), NUL-terminated;
 * free() it. Its length in *len. */
char *pv__disk_key_text(const pv_disk_cache *c, const pv_cache_key *k, size_t *len);
/* The CRC-32 of n bytes at p, going on from crc (0 to start). */
uint32_t pv__disk_crc(uint32_t crc, const void *p, size_t n);
/* Writes the name of the entry of key text key ending in "." kind to out. */
void pv__disk_entry_name(const char *key, size_t key_len, const char *kind,
                         char out[PV_DISK_ENTRY_NAME_MAX]);

#endif
