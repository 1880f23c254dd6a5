/* disk: the on-disk cache of computed results, under --cache-dir (never
 * inside the logdir).
 *
 * An entry is keyed by the source file's identity (path, size, mtime), the
 * program (version and a hash of the executable, so results of an older
 * or differently built binary are never served) and a string naming what
 * was computed (e.g.
 * "data:overview_page?"). Its file holds a header (magic, format version,
 * payload length, CRC-32 of the payload, the full key) and the payload.
 * A read checks all of it, so a truncated or corrupt entry, or a hash
 * collision, is never served: it is reported as absent and removed, and
 * the caller rebuilds it. Writes go to a temporary file renamed into
 * place, so a reader never sees half an entry.
 * Threads: any thread may call; entries are immutable once renamed. */
#ifndef PV_CACHE_DISK_H
#define PV_CACHE_DISK_H

#include "util/buf.h"
#include "util/error.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct pv_disk_cache {
    char *dir;          /* NULL when the cache is off (no dir, or it cannot be made) */
    char program[40];   /* version + hash of this executable: any rebuild is a new key */
} pv_disk_cache;

typedef struct pv_cache_key {
    const char *source_path;
    uint64_t source_size_bytes;
    int64_t source_mtime_ns;
    const char *what;   /* what was computed from the source, with its parameters */
} pv_cache_key;

/* Makes dir (and parents) if needed. When dir is NULL or cannot be made,
 * the cache is off: logs why, and get/put do nothing. Cannot fail. */
void pv_disk_cache_init(pv_disk_cache *c, const char *dir);
void pv_disk_cache_fini(pv_disk_cache *c);

/* The path of the file that holds k's result when the result is a file of
 * its own (a saved model, which carries its own checksum), ending in
 * ".ext". Returns NULL when the cache is off; otherwise free() it. */
char *pv_disk_cache_file(const pv_disk_cache *c, const pv_cache_key *k, const char *ext);

/* Appends the payload to out and returns 0, or PV_ENOTFOUND when there is
 * no valid entry (corrupt ones are removed). */
int pv_disk_cache_get(const pv_disk_cache *c, const pv_cache_key *k, pv_buf *out);

/* Stores data under k. Returns 0, or PV_EIO (logged; the caller carries on
 * without the cache). */
int pv_disk_cache_put(const pv_disk_cache *c, const pv_cache_key *k, const void *data,
                      size_t len);
/* The same with the payload given as head followed by data, so a caller
 * can put a small header before a large body without copying it. */
int pv_disk_cache_put2(const pv_disk_cache *c, const pv_cache_key *k, const void *head,
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

/* Returns 0 with out filled, or PV_ENOTFOUND when there is no valid entry
 * (a corrupt one is removed). */
int pv_disk_cache_open(const pv_disk_cache *c, const pv_cache_key *k, pv_disk_entry *out);
/* Checks the payload of an opened entry against its CRC. Returns 0, or
 * PV_ENOTFOUND after closing e->fd and removing the entry. */
int pv_disk_cache_check(const pv_disk_cache *c, const pv_cache_key *k, pv_disk_entry *e);

#endif
