/* disk: one file per entry, named by a hash of the key.
 *
 * Entry layout (little-endian):
 *   offset  size  meaning
 *   0       8     magic "PVCACHE1"
 *   8       4     header format version (1)
 *   12      4     key length K
 *   16      8     payload length N
 *   24      4     CRC-32 of the payload
 *   28      4     CRC-32 of the key
 *   32      K     the key text (path, size, mtime, version, what)
 *   32+K    N     payload */
#include "cache/disk.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define HEADER_BYTES 32u
#define MAX_PAYLOAD_BYTES ((uint64_t)8 << 30)

static int mkdirs(const char *dir)
{
    char *p = pv_xstrdup(dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
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

void pv_disk_cache_init(pv_disk_cache *c, const char *dir)
{
    c->dir = NULL;
    program_id(c->program, sizeof c->program);
    if (dir == NULL || dir[0] == '\0')
        return;
    if (mkdirs(dir) != 0 || access(dir, W_OK) != 0) {
        pv_log(PV_LOG_WARN, "cache folder %s is not writable (%s); running without the on-disk "
               "cache", dir, strerror(errno));
        return;
    }
    c->dir = pv_xstrdup(dir);
}

void pv_disk_cache_fini(pv_disk_cache *c)
{
    free(c->dir);
    c->dir = NULL;
}

static char *key_text(const pv_disk_cache *c, const pv_cache_key *k, size_t *len)
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

static char *entry_path(const pv_disk_cache *c, const char *key, size_t key_len,
                        const char *ext)
{
    uint64_t h = pv_hash_bytes(PV_HASH_SEED, key, key_len);
    size_t n = strlen(c->dir) + strlen(ext) + 32;
    char *p = pv_xmalloc(n);
    snprintf(p, n, "%s/%016llx.%s", c->dir, (unsigned long long)h, ext);
    return p;
}

char *pv_disk_cache_file(const pv_disk_cache *c, const pv_cache_key *k, const char *ext)
{
    if (c == NULL || c->dir == NULL)
        return NULL;
    size_t key_len;
    char *key = key_text(c, k, &key_len);
    char *path = entry_path(c, key, key_len, ext);
    free(key);
    return path;
}

static uint32_t crc_of(const void *p, size_t n)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    const unsigned char *s = p;
    while (n > 0) {
        uInt take = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, s, take);
        s += take;
        n -= take;
    }
    return (uint32_t)crc;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const unsigned char *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static int read_exact(int fd, void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int write_exact(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Opens the entry file at path and checks its header and key against
 * key. Returns the descriptor positioned at the payload, with its length
 * and CRC, or -1: *why is then set when the entry is corrupt (the caller
 * removes it) and left NULL when it is absent or another key's. */
static int open_entry(const char *path, const char *key, size_t key_len, uint64_t *plen,
                      uint32_t *pcrc, const char **why)
{
    *why = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    unsigned char hdr[HEADER_BYTES];
    char *stored_key = NULL;
    if (read_exact(fd, hdr, sizeof hdr) != 0 || memcmp(hdr, "PVCACHE1", 8) != 0 ||
        get_u32(hdr + 8) != 1) {
        *why = "bad header";
        goto fail;
    }
    uint32_t klen = get_u32(hdr + 12);
    *plen = get_u64(hdr + 16);
    *pcrc = get_u32(hdr + 24);
    if (klen != key_len)
        goto fail;
    if (*plen > MAX_PAYLOAD_BYTES) {
        *why = "entry too large";
        goto fail;
    }
    stored_key = pv_xmalloc(klen);
    if (read_exact(fd, stored_key, klen) != 0 || crc_of(stored_key, klen) != get_u32(hdr + 28)) {
        *why = "truncated or corrupt key";
        goto fail;
    }
    /* A different key with the same hash is not corruption: leave it. */
    if (memcmp(stored_key, key, klen) != 0)
        goto fail;
    free(stored_key);
    return fd;
fail:
    free(stored_key);
    close(fd);
    return -1;
}

static void drop_corrupt(const char *path, const char *why)
{
    pv_log(PV_LOG_WARN, "cache entry %s is corrupt (%s); rebuilding it", path, why);
    unlink(path);
}

int pv_disk_cache_get(const pv_disk_cache *c, const pv_cache_key *k, pv_buf *out)
{
    if (c->dir == NULL)
        return PV_ENOTFOUND;
    size_t key_len;
    char *key = key_text(c, k, &key_len);
    char *path = entry_path(c, key, key_len, "pvc");
    int rc = PV_ENOTFOUND;
    uint64_t plen = 0;
    uint32_t pcrc = 0;
    const char *why = NULL;
    int fd = open_entry(path, key, key_len, &plen, &pcrc, &why);
    if (fd < 0)
        goto done;
    if (plen > out->max - out->len) {
        why = "entry too large";
        goto done;
    }
    size_t start = out->len;
    char chunk[65536];
    uint64_t left = plen;
    while (left > 0) {
        size_t take = left > sizeof chunk ? sizeof chunk : (size_t)left;
        if (read_exact(fd, chunk, take) != 0) {
            why = "truncated";
            break;
        }
        pv_buf_add(out, chunk, take);
        left -= take;
    }
    if (why == NULL && crc_of(out->data + start, (size_t)plen) != pcrc)
        why = "checksum mismatch";
    if (why != NULL)
        out->len = start;
    else
        rc = 0;
done:
    if (fd >= 0)
        close(fd);
    if (why != NULL)
        drop_corrupt(path, why);
    free(path);
    free(key);
    return rc;
}

int pv_disk_cache_open(const pv_disk_cache *c, const pv_cache_key *k, pv_disk_entry *out)
{
    out->fd = -1;
    if (c->dir == NULL)
        return PV_ENOTFOUND;
    size_t key_len;
    char *key = key_text(c, k, &key_len);
    char *path = entry_path(c, key, key_len, "pvc");
    const char *why = NULL;
    int fd = open_entry(path, key, key_len, &out->len, &out->crc, &why);
    struct stat st;
    out->offset = HEADER_BYTES + key_len;
    if (fd >= 0 && (fstat(fd, &st) != 0 || (uint64_t)st.st_size != out->offset + out->len)) {
        why = "truncated";
        close(fd);
        fd = -1;
    }
    if (why != NULL)
        drop_corrupt(path, why);
    free(path);
    free(key);
    out->fd = fd;
    return fd >= 0 ? 0 : PV_ENOTFOUND;
}

int pv_disk_cache_check(const pv_disk_cache *c, const pv_cache_key *k, pv_disk_entry *e)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    unsigned char chunk[65536];
    uint64_t done = 0;
    while (done < e->len) {
        size_t take = e->len - done > sizeof chunk ? sizeof chunk : (size_t)(e->len - done);
        ssize_t r = pread(e->fd, chunk, take, (off_t)(e->offset + done));
        if (r <= 0)
            break;
        crc = crc32(crc, chunk, (uInt)r);
        done += (uint64_t)r;
    }
    if (done == e->len && (uint32_t)crc == e->crc)
        return 0;
    close(e->fd);
    e->fd = -1;
    char *path = pv_disk_cache_file(c, k, "pvc");
    if (path != NULL)
        drop_corrupt(path, done == e->len ? "checksum mismatch" : "truncated");
    free(path);
    return PV_ENOTFOUND;
}

int pv_disk_cache_put(const pv_disk_cache *c, const pv_cache_key *k, const void *data,
                      size_t len)
{
    return pv_disk_cache_put2(c, k, NULL, 0, data, len);
}

int pv_disk_cache_put2(const pv_disk_cache *c, const pv_cache_key *k, const void *head,
                       size_t head_len, const void *data, size_t len)
{
    if (c->dir == NULL)
        return 0;
    size_t key_len;
    char *key = key_text(c, k, &key_len);
    char *path = entry_path(c, key, key_len, "pvc");
    size_t tlen = strlen(path) + 16;
    char *tmp = pv_xmalloc(tlen);
    snprintf(tmp, tlen, "%s.XXXXXX", path);
    unsigned char hdr[HEADER_BYTES];
    memcpy(hdr, "PVCACHE1", 8);
    put_u32(hdr + 8, 1);
    put_u32(hdr + 12, (uint32_t)key_len);
    put_u64(hdr + 16, (uint64_t)head_len + (uint64_t)len);
    uLong crc = head_len == 0 ? crc_of(data, len)
                              : crc32_combine(crc_of(head, head_len), crc_of(data, len),
                                              (z_off_t)len);
    put_u32(hdr + 24, (uint32_t)crc);
    put_u32(hdr + 28, crc_of(key, key_len));
    int rc = 0;
    /* mkstemp gives each writer its own temporary name, so two threads
     * storing the same entry cannot interleave their bytes. */
    int fd = mkstemp(tmp);
    bool ok = fd >= 0 && write_exact(fd, hdr, sizeof hdr) == 0 &&
              write_exact(fd, key, key_len) == 0 && write_exact(fd, head, head_len) == 0 &&
              write_exact(fd, data, len) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (ok && (chmod(tmp, 0644) != 0 || rename(tmp, path) != 0))
        ok = false;
    if (!ok) {
        pv_log(PV_LOG_WARN, "cannot write cache entry %s: %s", path, strerror(errno));
        if (fd >= 0)
            unlink(tmp);
        rc = PV_EIO;
    }
    free(tmp);
    free(path);
    free(key);
    return rc;
}
