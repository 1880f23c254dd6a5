/* disk: the cache folder: its checks, the names in it and temporaries.
 * disk_entry.c keeps the ".pvc" format on top. */
#include "cache/disk.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the folder ---------------------------------------------------------- */

/* Makes dir and its missing parents. Parents made here are 0700 too: the
 * XDG base directory specification asks it of $XDG_CACHE_HOME. */
static int mkdirs(const char *dir)
{
    char *p = pv_xstrdup(dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = mkdir(p, 0700) != 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

/* Opens dir (made if missing) and checks that nobody but this user can
 * change what is in it: another user who owns it or may write to it could
 * swap entries or plant links. Returns the descriptor, or -1 after logging
 * why the folder is not used. The checks are made on the open folder, so
 * the folder used is the folder checked. */
static int open_folder(const char *dir)
{
    char why[160] = "";
    int fd = -1;
    struct stat st;
    if (mkdirs(dir) != 0) {
        snprintf(why, sizeof why, "it cannot be made: %s", strerror(errno));
        goto refuse;
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0)
        snprintf(why, sizeof why, "it cannot be opened: %s", strerror(errno));
    else if (st.st_uid != geteuid())
        snprintf(why, sizeof why, "it is owned by uid %u, not by this user (uid %u)",
                 (unsigned)st.st_uid, (unsigned)geteuid());
    else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        snprintf(why, sizeof why, "it is writable by %s (mode %04o)",
                 (st.st_mode & S_IWOTH) != 0 ? "others" : "its group",
                 (unsigned)(st.st_mode & 07777));
    else if (faccessat(fd, ".", R_OK | W_OK | X_OK, 0) != 0)
        snprintf(why, sizeof why, "it cannot be written: %s", strerror(errno));
    if (why[0] == '\0')
        return fd;
    if (fd >= 0)
        close(fd);
refuse:
    pv_log(PV_LOG_WARN, "cache folder %s refused: %s; running without the on-disk cache", dir,
           why);
    return -1;
}

/* Hashes the running executable once, so a rebuilt binary with the same
 * version number does not read what an older build computed. */
static void program_id(char *out, size_t cap)
{
    uint64_t h = PV_HASH_SEED;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        unsigned char chunk[65536];
        ssize_t n;
        while ((n = read(fd, chunk, sizeof chunk)) > 0)
            h = pv_hash_bytes(h, chunk, (size_t)n);
        close(fd);
    }
    snprintf(out, cap, "%s-%016llx", PV_VERSION, (unsigned long long)h);
}

/* ---- names --------------------------------------------------------------- */

char *pv__disk_key_text(const pv_disk_cache *c, const pv_cache_key *k, size_t *len)
{
    int n = snprintf(NULL, 0, "%s\n%llu\n%lld\n%s\n%s", k->source_path,
                     (unsigned long long)k->source_size_bytes, (long long)k->source_mtime_ns,
                     c->program, k->what);
    char *s = pv_xmalloc((size_t)n + 1);
    snprintf(s, (size_t)n + 1, "%s\n%llu\n%lld\n%s\n%s", k->source_path,
             (unsigned long long)k->source_size_bytes, (long long)k->source_mtime_ns,
             c->program, k->what);
    *len = (size_t)n;
    return s;
}

void pv__disk_entry_name(const char *key, size_t key_len, const char *kind,
                         char out[PV_DISK_ENTRY_NAME_MAX])
{
    uint64_t h = pv_hash_bytes(PV_HASH_SEED, key, key_len);
    snprintf(out, PV_DISK_ENTRY_NAME_MAX, "%016llx.%s", (unsigned long long)h, kind);
}

static void name_of(const pv_disk_cache *c, const pv_cache_key *k, const char *kind,
                    char out[PV_DISK_ENTRY_NAME_MAX])
{
    size_t key_len;
    char *key = pv__disk_key_text(c, k, &key_len);
    pv__disk_entry_name(key, key_len, kind, out);
    free(key);
}

void pv_disk_cache_init(pv_disk_cache *c, const char *dir)
{
    memset(c, 0, sizeof *c);
    c->dir_fd = -1;
    program_id(c->program, sizeof c->program);
    if (dir == NULL || dir[0] == '\0')
        return;
    int fd = open_folder(dir);
    if (fd < 0)
        return;
    c->dir = pv_xstrdup(dir);
    c->dir_fd = fd;
    if (getrandom(&c->nonce, sizeof c->nonce, GRND_NONBLOCK) != (ssize_t)sizeof c->nonce) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        c->nonce = (uint32_t)pv_hash_bytes(PV_HASH_SEED, &ts, sizeof ts);
    }
    atomic_init(&c->tmp_seq, 0);
}

void pv_disk_cache_fini(pv_disk_cache *c)
{
    if (c->dir == NULL)
        return;
    close(c->dir_fd);
    c->dir_fd = -1;
    free(c->dir);
    c->dir = NULL;
}

/* ---- files of their own ------------------------------------------------- */

int pv_disk_cache_create(pv_disk_cache *c, const pv_cache_key *k, const char *kind,
                         pv_disk_tmp *out)
{
    out->fd = -1;
    if (c->dir == NULL)
        return PV_ENOTFOUND;
    name_of(c, k, kind, out->entry);
    /* Each name is new, so the exclusive create fails only on a name
     * something else holds (a planted file or link): take the next. */
    for (int attempt = 0; attempt < 4; attempt++) {
        unsigned long long seq = (unsigned long long)atomic_fetch_add(&c->tmp_seq, 1);
        snprintf(out->name, sizeof out->name, "%s.%ld-%08x-%llu.tmp", out->entry,
                 (long)getpid(), (unsigned)c->nonce, seq);
        out->fd = openat(c->dir_fd, out->name,
                         O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (out->fd >= 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    pv_log(PV_LOG_WARN, "cannot create a file in cache folder %s: %s", c->dir, strerror(errno));
    return PV_EIO;
}

int pv_disk_cache_commit(pv_disk_cache *c, pv_disk_tmp *t)
{
    int rc = close(t->fd);
    t->fd = -1;
    if (rc != 0 || renameat(c->dir_fd, t->name, c->dir_fd, t->entry) != 0)
        goto fail_write;
    return 0;

fail_write:
    pv_log(PV_LOG_WARN, "cannot write cache entry %s/%s: %s", c->dir, t->entry,
           strerror(errno));
    unlinkat(c->dir_fd, t->name, 0);
    return PV_EIO;
}

void pv_disk_cache_discard(pv_disk_cache *c, pv_disk_tmp *t)
{
    if (t->fd < 0)
        return;
    close(t->fd);
    t->fd = -1;
    unlinkat(c->dir_fd, t->name, 0);
}

char *pv_disk_cache_find(pv_disk_cache *c, const pv_cache_key *k, const char *kind)
{
    if (c->dir == NULL)
        return NULL;
    char name[PV_DISK_ENTRY_NAME_MAX];
    name_of(c, k, kind, name);
    struct stat st;
    if (fstatat(c->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    size_t n = strlen(c->dir) + 1 + strlen(name) + 1;
    char *path = pv_xmalloc(n);
    snprintf(path, n, "%s/%s", c->dir, name);
    return path;
}

void pv_disk_cache_remove(pv_disk_cache *c, const pv_cache_key *k, const char *kind)
{
    if (c->dir == NULL)
        return;
    char name[PV_DISK_ENTRY_NAME_MAX];
    name_of(c, k, kind, name);
    unlinkat(c->dir_fd, name, 0);
}
