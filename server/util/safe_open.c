/* safe_open: openat2 beneath the root, or a component walk with openat. */
#include "util/safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

pv_file_id pv_file_id_of(const struct stat *st)
{
    return (pv_file_id){(uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
                        (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec,
                        (int64_t)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec};
}

bool pv_file_id_same(const pv_file_id *a, const pv_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size_bytes == b->size_bytes &&
           a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

#define OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* rel (no leading '/') beneath dirfd, following no link: component by
 * component, for kernels without openat2. */
static int walk_open(int dirfd, const char *rel)
{
    char *copy = strdup(rel);
    if (copy == NULL)
        return -1;
    int fd = dup(dirfd);
    char *save = NULL;
    char *part = strtok_r(copy, "/", &save);
    while (fd >= 0 && part != NULL) {
        char *next = strtok_r(NULL, "/", &save);
        int flags = next != NULL ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
                                 : OPEN_FLAGS | O_NOFOLLOW;
        int child = strcmp(part, "..") == 0 ? (errno = EXDEV, -1) : openat(fd, part, flags);
        int saved = errno;
        close(fd);
        errno = saved;
        fd = child;
        part = next;
    }
    free(copy);
    return fd;
}

static int open_beneath(int dirfd, const char *rel)
{
    struct open_how how = {.flags = OPEN_FLAGS,
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
                                      RESOLVE_NO_MAGICLINKS};
    long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
    if (fd < 0 && (errno == ENOSYS || errno == EPERM))   /* EPERM: seccomp filters */
        return walk_open(dirfd, rel);
    return (int)fd;
}

int pv_safe_open(const char *root, const char *path, const pv_file_id *want, pv_error *err)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    if (strncmp(path, root, n) != 0 || (path[n] != '/' && n > 1)) {
        pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "not below the logdir");
        return -1;
    }
    const char *rel = path + n;
    while (*rel == '/')
        rel++;
    int dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot open the logdir: %s",
                     strerror(errno));
        return -1;
    }
    int fd = open_beneath(dirfd, rel);
    int saved = errno;
    close(dirfd);
    if (fd < 0) {
        pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot open: %s",
                     saved == ELOOP || saved == EXDEV
                         ? "a symbolic link is on its path now, and links are not followed"
                         : strerror(saved));
        return -1;
    }
    struct stat st;
    const char *why = NULL;
    int code = PV_EIO;
    if (fstat(fd, &st) != 0) {
        why = strerror(errno);
    } else if (!S_ISREG(st.st_mode)) {
        why = "not a regular file (a FIFO, device or folder was put in its place)";
    } else {
        pv_file_id got = pv_file_id_of(&st);
        if (want != NULL && !pv_file_id_same(want, &got)) {
            why = "the file changed since the logdir was scanned; it is offered again after "
                  "the next scan";
            code = PV_ENOTFOUND;
        } else if (fcntl(fd, F_SETFL, O_RDONLY) != 0) {
            why = strerror(errno);
        }
    }
    if (why != NULL) {
        close(fd);
        pv_error_set(err, code, path, PV_NO_OFFSET, "%s", why);
        return -1;
    }
    return fd;
}
