/* safe_open: opening a file of the logdir when a request needs it, so that
 * what the scan saw is what is read (issue #15). The scan looked at names
 * and sizes some seconds ago; since then a file may have been replaced by a
 * symbolic link to anything, by a FIFO that blocks every reader, or rewritten
 * in place. So at open time:
 *
 *   - no symbolic link is followed anywhere below the logdir: the path is
 *     resolved beneath the logdir's descriptor (openat2 with
 *     RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or a walk of openat calls with
 *     O_NOFOLLOW where the kernel lacks openat2);
 *   - the open does not block (O_NONBLOCK), and only a regular file is
 *     accepted;
 *   - the file's identity (device, inode, size, mtime, ctime) must be the one
 *     the scan recorded: a file rewritten in place, even with its old size
 *     and mtime, is a new file, and is offered after the next scan.
 *
 * Thread-safe; no state. */
#ifndef PV_UTIL_SAFE_OPEN_H
#define PV_UTIL_SAFE_OPEN_H

#include "util/error.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* What makes a file the same file. */
typedef struct pv_file_id {
    uint64_t dev;
    uint64_t ino;
    uint64_t size_bytes;
    int64_t mtime_ns;
    int64_t ctime_ns;
} pv_file_id;

/* The identity of a stat result. Cannot fail. */
pv_file_id pv_file_id_of(const struct stat *st);
/* True when a and b name the same file in the same state. */
bool pv_file_id_same(const pv_file_id *a, const pv_file_id *b);

/* Opens path, which must lie below root (both absolute, symlink-free),
 * read-only, without following any symbolic link below root and without
 * blocking, and checks it is a regular file whose identity is *want (NULL:
 * any). Returns a descriptor (O_CLOEXEC, blocking again for reads), or -1
 * with err saying why: PV_EIO (missing, a link, not a regular file, cannot
 * open) or PV_ENOTFOUND (changed since the scan). */
int pv_safe_open(const char *root, const char *path, const pv_file_id *want, pv_error *err);

#endif
