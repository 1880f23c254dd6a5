/* file_source: a profile file below the logdir, as the scan saw it
 * (source.h). It is opened beneath its root without following any link,
 * and only while it is still the file the scan recorded (util/safe_open.h),
 * so a file rewritten since is refused, not read half old and half new. Its
 * identity is its path below the root, size, mtime and ctime: not the
 * device and inode numbers, which belong to one mount (a shared file
 * system mounted on two machines shows others), while a file rewritten in
 * place, even with its old size and mtime, still gets a new ctime. */
#include "source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *pv_source_rel_path(const pv_source *src)
{
    size_t n = src->root != NULL ? strlen(src->root) : 0;
    if (n > 0 && strncmp(src->path, src->root, n) == 0 && src->path[n] == '/')
        return src->path + n + 1;
    return src->path;
}

static void file_ident(const pv_source *src, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s:%llu:%lld:%lld", pv_source_rel_path(src),
             (unsigned long long)src->id.size_bytes, (long long)src->id.mtime_ns,
             (long long)src->id.ctime_ns);
}

static int file_open(const pv_source *src, pv_error *err)
{
    if (src->root != NULL)
        return pv_safe_open(src->root, src->path, &src->id, err);
    int fd = open(src->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        pv_error_set(err, PV_EIO, src->path, PV_NO_OFFSET, "cannot open it: %s",
                     strerror(errno));
    return fd;
}

static int file_model(const pv_source *src, pv_progress *progress, pv_model **out,
                      pv_error *err)
{
    int fd = file_open(src, err);
    if (fd < 0)
        return err != NULL && err->code != 0 ? err->code : PV_EIO;
    int rc = pv_ingest_fd(fd, src->path, progress, out, err);
    close(fd);
    return rc;
}

const pv_source_kind pv_source_file_kind = {"file", file_ident, file_open, file_model};

pv_source pv_source_file(const char *path, const char *root, pv_file_id id)
{
    return (pv_source){&pv_source_file_kind, path, root, id, NULL};
}
