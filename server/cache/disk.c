/* disk: the cache folder: its checks, the names in it, temporaries, the
 * byte count and eviction. disk_entry.c keeps the ".pvc" format on top.
 *
 * Eviction counts the folder again rather than trusting the count kept in
 * memory, because other processes sharing the folder add and remove files
 * this one never hears of: the count in memory only decides when to look.
 * It then evicts down to seven eighths of the limit, so a full cache is
 * counted once per eighth of the limit written, not on every put.
 *
 * A file's mtime is its last use: a write sets it, and a read sets it to
 * the time of the read (one futimens), so every process sharing the
 * folder orders eviction by the same clock without a shared index. */
#include "cache/disk.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/sort.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* A writer writes its temporary without pause, so one untouched this long
 * belongs to a writer that died. */
#define STALE_TMP_NS (5 * 60 * 1000000000LL)
#define DEFAULT_MAX_BYTES ((uint64_t)4 << 30)

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

/* Opens dir (made if missing, unless only read) and checks that nobody
 * but this user can change what is in it: another user who owns it or may
 * write to it could swap entries or plant links. Returns the descriptor,
 * or -1 after logging why the folder is not used. The checks are made on
 * the open folder, so the folder used is the folder checked. */
static int open_folder(const char *dir, bool read_only)
{
    char why[160] = "";
    int fd = -1;
    struct stat st;
    if (!read_only && mkdirs(dir) != 0) {
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
    else if (faccessat(fd, ".", read_only ? R_OK | X_OK : R_OK | W_OK | X_OK, 0) != 0)
        snprintf(why, sizeof why, "it cannot be %s: %s", read_only ? "read" : "written",
                 strerror(errno));
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

static int64_t ns_of(struct timespec ts)
{
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- names --------------------------------------------------------------- */

typedef enum name_class { NAME_OTHER, NAME_ENTRY, NAME_TMP } name_class;

/* What a file in the folder is, from its name: "<16 hex>.<kind>" is an
 * entry and the same followed by "." and anything is a temporary, which
 * takes in the ".tmp" and mkstemp names of older builds. Anything else is
 * not the cache's: it is neither counted nor removed. */
static name_class classify(const char *name)
{
    for (int i = 0; i < 16; i++) {
        char ch = name[i];
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
            return NAME_OTHER;
    }
    if (name[16] != '.')
        return NAME_OTHER;
    const char *kind = name + 17;
    size_t n = 0;
    while (n <= 8 && kind[n] >= 'a' && kind[n] <= 'z')
        n++;
    if (n == 0 || n > 8)
        return NAME_OTHER;
    if (kind[n] == '\0')
        return NAME_ENTRY;
    return kind[n] == '.' ? NAME_TMP : NAME_OTHER;
}

char *pv__disk_key_text(const pv_disk_cache *c, const pv_cache_key *k, size_t *len)
{
    int n = snprintf(NULL, 0, "%s\n%s\n%s", k->source, c->program, k->what);
    char *s = pv_xmalloc((size_t)n + 1);
    snprintf(s, (size_t)n + 1, "%s\n%s\n%s", k->source, c->program, k->what);
    *len = (size_t)n;
    return s;
}

void pv__disk_entry_name(const char *key, size_t key_len, const char *kind,
                         char out[PV_DISK_ENTRY_NAME_MAX])
{
    uint64_t h = pv_hash_bytes(PV_HASH_SEED, key, key_len);
    snprintf(out, PV_DISK_ENTRY_NAME_MAX, "%016llx.%s", (unsigned long long)h, kind);
    /* a kind eviction would not count is a caller's bug */
    assert(classify(out) == NAME_ENTRY);
}

static void name_of(const pv_disk_cache *c, const pv_cache_key *k, const char *kind,
                    char out[PV_DISK_ENTRY_NAME_MAX])
{
    size_t key_len;
    char *key = pv__disk_key_text(c, k, &key_len);
    pv__disk_entry_name(key, key_len, kind, out);
    free(key);
}

/* ---- counting and eviction ----------------------------------------------- */

typedef struct entry_use {
    char name[PV_DISK_ENTRY_NAME_MAX];   /* "<16 hex>.<kind>" */
    uint64_t bytes;
    int64_t used_ns;       /* mtime: the last write or read */
} entry_use;

/* Counts the bytes of the cache's regular files in the folder, removing
 * temporaries untouched for STALE_TMP_NS on the way, and lists the
 * entries in *out (free it). Links are not the cache's files and are
 * neither counted nor followed. A folder that cannot be read counts 0. */
static uint64_t count_folder(pv_disk_cache *c, entry_use **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    int fd = openat(c->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        pv_log(PV_LOG_WARN, "cannot list cache folder %s: %s", c->dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return 0;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t total = 0, stale_bytes = 0;
    size_t cap = 0, n_stale = 0;
    for (;;) {
        struct dirent *de = readdir(d);
        if (de == NULL)
            break;
        name_class cls = classify(de->d_name);
        struct stat st;
        if (cls == NAME_OTHER || fstatat(c->dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        uint64_t bytes = (uint64_t)st.st_size;
        if (cls == NAME_TMP && ns_of(now) - ns_of(st.st_mtim) > STALE_TMP_NS &&
            unlinkat(c->dir_fd, de->d_name, 0) == 0) {
            n_stale++;
            stale_bytes += bytes;
            continue;
        }
        total += bytes;
        if (cls != NAME_ENTRY)
            continue;
        if (*n_out == cap) {
            cap = cap == 0 ? 64 : cap * 2;
            *out = pv_xrealloc(*out, cap * sizeof **out);
        }
        entry_use *u = &(*out)[(*n_out)++];
        /* classify keeps an entry's name short enough for u->name */
        memcpy(u->name, de->d_name, strlen(de->d_name) + 1);
        u->bytes = bytes;
        u->used_ns = ns_of(st.st_mtim);
    }
    closedir(d);
    if (n_stale > 0)
        pv_log(PV_LOG_INFO, "cache folder %s: removed %zu temporaries left by writers that "
               "stopped (%llu bytes)", c->dir, n_stale, (unsigned long long)stale_bytes);
    return total;
}

static bool used_before(const entry_use *a, const entry_use *b)
{
    return a->used_ns < b->used_ns || (a->used_ns == b->used_ns && strcmp(a->name, b->name) < 0);
}

PV_MERGE_SORT(sort_by_use, entry_use, used_before)

/* Counts the folder into used_bytes and, when that is past the limit,
 * removes the least recently used entries until it is under seven eighths
 * of the limit. Fresh temporaries are counted but left to their writers.
 * Caller holds the lock (or is init). */
static void evict(pv_disk_cache *c)
{
    entry_use *files;
    size_t n;
    uint64_t total = count_folder(c, &files, &n);
    if (total > c->max_bytes) {
        uint64_t low = c->max_bytes - c->max_bytes / 8;
        uint64_t freed = 0;
        size_t removed = 0;
        sort_by_use(files, n);
        for (size_t i = 0; i < n && total > low; i++) {
            /* gone already: another process evicted it, and its bytes with it */
            if (unlinkat(c->dir_fd, files[i].name, 0) != 0 && errno != ENOENT)
                continue;
            total -= files[i].bytes;
            freed += files[i].bytes;
            removed++;
        }
        pv_log(PV_LOG_INFO, "cache folder %s over its limit of %llu bytes: removed the least "
               "recently used entries (%zu, %llu bytes)", c->dir,
               (unsigned long long)c->max_bytes, removed, (unsigned long long)freed);
    }
    c->used_bytes = total;
    free(files);
}

/* Takes bytes off the count, which a file another process removed may
 * already have left short of them. Caller holds the lock. */
static void uncount(pv_disk_cache *c, uint64_t bytes)
{
    c->used_bytes -= bytes < c->used_bytes ? bytes : c->used_bytes;
}

/* Removes the folder's file name and takes its bytes off the count. */
static void forget(pv_disk_cache *c, const char *name)
{
    struct stat st;
    if (c->read_only || fstatat(c->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        unlinkat(c->dir_fd, name, 0) != 0 || !S_ISREG(st.st_mode))
        return;
    pthread_mutex_lock(&c->lock);
    uncount(c, (uint64_t)st.st_size);
    pthread_mutex_unlock(&c->lock);
}

/* A quarter of what the folder's file system could give the cache, the
 * free space and what the cache holds, at most DEFAULT_MAX_BYTES. */
static uint64_t default_max(const pv_disk_cache *c)
{
    struct statvfs vfs;
    if (fstatvfs(c->dir_fd, &vfs) != 0)
        return DEFAULT_MAX_BYTES;
    uint64_t share = ((uint64_t)vfs.f_bavail * vfs.f_frsize + c->used_bytes) / 4;
    return share < DEFAULT_MAX_BYTES ? share : DEFAULT_MAX_BYTES;
}

void pv_disk_cache_init(pv_disk_cache *c, const char *dir, uint64_t max_bytes)
{
    memset(c, 0, sizeof *c);
    c->dir_fd = -1;
    program_id(c->program, sizeof c->program);
    if (dir == NULL || dir[0] == '\0')
        return;
    if (max_bytes == 0) {
        pv_log(PV_LOG_INFO, "cache limit 0: running without the on-disk cache");
        return;
    }
    int fd = open_folder(dir, false);
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
    pthread_mutex_init(&c->lock, NULL);
    /* counted before the default limit is set, which depends on the count */
    entry_use *files;
    size_t n;
    c->used_bytes = count_folder(c, &files, &n);
    free(files);
    c->max_bytes = max_bytes == PV_DISK_CACHE_MAX_AUTO ? default_max(c) : max_bytes;
    if (c->used_bytes > c->max_bytes)
        evict(c);
    pv_log(PV_LOG_INFO, "on-disk cache %s: %llu bytes in use, limit %llu bytes", c->dir,
           (unsigned long long)c->used_bytes, (unsigned long long)c->max_bytes);
}

void pv_disk_cache_init_read_only(pv_disk_cache *c, const char *dir)
{
    memset(c, 0, sizeof *c);
    c->dir_fd = -1;
    program_id(c->program, sizeof c->program);
    if (dir == NULL || dir[0] == '\0')
        return;
    int fd = open_folder(dir, true);
    if (fd < 0)
        return;
    c->dir = pv_xstrdup(dir);
    c->dir_fd = fd;
    c->read_only = true;
    atomic_init(&c->tmp_seq, 0);
    pthread_mutex_init(&c->lock, NULL);
    pv_log(PV_LOG_INFO, "on-disk cache %s: read only", c->dir);
}

void pv_disk_cache_fini(pv_disk_cache *c)
{
    if (c->dir == NULL)
        return;
    pthread_mutex_destroy(&c->lock);
    close(c->dir_fd);
    c->dir_fd = -1;
    free(c->dir);
    c->dir = NULL;
}

uint64_t pv_disk_cache_bytes(pv_disk_cache *c)
{
    if (c->dir == NULL)
        return 0;
    pthread_mutex_lock(&c->lock);
    uint64_t n = c->used_bytes;
    pthread_mutex_unlock(&c->lock);
    return n;
}

/* ---- files of their own ------------------------------------------------- */

int pv_disk_cache_create(pv_disk_cache *c, const pv_cache_key *k, const char *kind,
                         pv_disk_tmp *out)
{
    out->fd = -1;
    if (c->dir == NULL || c->read_only)
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
    struct stat st;
    int rc = fstat(t->fd, &st);
    if (close(t->fd) != 0)
        rc = -1;
    t->fd = -1;
    if (rc != 0)
        goto fail_write;
    uint64_t bytes = (uint64_t)st.st_size;
    if (bytes > c->max_bytes) {
        pv_log(PV_LOG_DEBUG, "cache entry %s/%s not kept: %llu bytes, over the limit of %llu",
               c->dir, t->entry, (unsigned long long)bytes, (unsigned long long)c->max_bytes);
        unlinkat(c->dir_fd, t->name, 0);
        return PV_ETOOBIG;
    }
    /* two writers of one entry (two requests that both missed) count it once */
    struct stat old;
    uint64_t replaced = fstatat(c->dir_fd, t->entry, &old, AT_SYMLINK_NOFOLLOW) == 0 &&
                                S_ISREG(old.st_mode) ? (uint64_t)old.st_size : 0;
    if (renameat(c->dir_fd, t->name, c->dir_fd, t->entry) != 0)
        goto fail_write;
    pthread_mutex_lock(&c->lock);
    uncount(c, replaced);
    c->used_bytes += bytes;
    if (c->used_bytes > c->max_bytes)
        evict(c);
    pthread_mutex_unlock(&c->lock);
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
    /* a read is a use; in a folder this user cannot write, it keeps its place */
    if (!c->read_only)
        utimensat(c->dir_fd, name, NULL, AT_SYMLINK_NOFOLLOW);
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
    forget(c, name);
}
