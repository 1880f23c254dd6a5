/* disk_entry: the cache's own entries (".pvc"), one file per key, written
 * and counted through disk.c's temporaries.
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
#include "util/log.h"
#include "util/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define KIND "pvc"
#define HEADER_BYTES 32u
#define MAX_PAYLOAD_BYTES ((uint64_t)8 << 30)

uint32_t pv__disk_crc(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *s = p;
    while (n > 0) {
        uInt take = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = (uint32_t)crc32(crc, s, take);
        s += take;
        n -= take;
    }
    return crc;
}

static uint32_t crc_of(const void *p, size_t n)
{
    return pv__disk_crc(0, p, n);
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

/* What open_entry found in a valid entry's file. */
typedef struct entry_head {
    uint64_t payload_len;
    uint32_t payload_crc;
    uint64_t file_bytes;
} entry_head;

/* Opens the entry of key text key and checks its header and key. Returns
 * the descriptor positioned at the payload, or -1: *why is then set when
 * the entry is corrupt (the caller removes it) and left NULL when it is
 * absent, not a regular file or another key's. Marks a valid entry used. */
static int open_entry(pv_disk_cache *c, const char *key, size_t key_len, entry_head *out,
                      const char **why)
{
    *why = NULL;
    char name[PV_DISK_ENTRY_NAME_MAX];
    pv__disk_entry_name(key, key_len, KIND, name);
    /* O_NONBLOCK: a FIFO at the entry's name would otherwise hold the open
     * forever; on a regular file it changes nothing. */
    int fd = openat(c->dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return -1;
    unsigned char hdr[HEADER_BYTES];
    char *stored_key = NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        goto fail;
    out->file_bytes = (uint64_t)st.st_size;
    if (read_exact(fd, hdr, sizeof hdr) != 0 || memcmp(hdr, "PVCACHE1", 8) != 0 ||
        get_u32(hdr + 8) != 1) {
        *why = "bad header";
        goto fail;
    }
    uint32_t klen = get_u32(hdr + 12);
    out->payload_len = get_u64(hdr + 16);
    out->payload_crc = get_u32(hdr + 24);
    if (klen != key_len)
        goto fail;
    if (out->payload_len > MAX_PAYLOAD_BYTES) {
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
    /* the use eviction orders by; a read-only folder keeps the old order */
    if (!c->read_only)
        futimens(fd, NULL);
    return fd;
fail:
    free(stored_key);
    close(fd);
    return -1;
}

static void drop_corrupt(pv_disk_cache *c, const pv_cache_key *k, const char *why)
{
    pv_log(PV_LOG_WARN, "cache entry of %s for %s is corrupt (%s); rebuilding it",
           k->source, k->what, why);
    pv_disk_cache_remove(c, k, KIND);
}

int pv_disk_cache_get(pv_disk_cache *c, const pv_cache_key *k, pv_buf *out)
{
    if (c->dir == NULL)
        return PV_ENOTFOUND;
    size_t key_len;
    char *key = pv__disk_key_text(c, k, &key_len);
    int rc = PV_ENOTFOUND;
    entry_head h = {0, 0, 0};
    const char *why = NULL;
    int fd = open_entry(c, key, key_len, &h, &why);
    if (fd < 0)
        goto done;
    if (h.payload_len > out->max - out->len) {
        why = "entry too large";
        goto done;
    }
    size_t start = out->len;
    char chunk[65536];
    uint64_t left = h.payload_len;
    while (left > 0) {
        size_t take = left > sizeof chunk ? sizeof chunk : (size_t)left;
        if (read_exact(fd, chunk, take) != 0) {
            why = "truncated";
            break;
        }
        pv_buf_add(out, chunk, take);
        left -= take;
    }
    if (why == NULL && crc_of(out->data + start, (size_t)h.payload_len) != h.payload_crc)
        why = "checksum mismatch";
    if (why != NULL)
        out->len = start;
    else
        rc = 0;
done:
    if (fd >= 0)
        close(fd);
    if (why != NULL)
        drop_corrupt(c, k, why);
    free(key);
    return rc;
}

int pv_disk_cache_open(pv_disk_cache *c, const pv_cache_key *k, pv_disk_entry *out)
{
    out->fd = -1;
    if (c->dir == NULL)
        return PV_ENOTFOUND;
    size_t key_len;
    char *key = pv__disk_key_text(c, k, &key_len);
    entry_head h = {0, 0, 0};
    const char *why = NULL;
    int fd = open_entry(c, key, key_len, &h, &why);
    out->offset = HEADER_BYTES + key_len;
    out->len = h.payload_len;
    out->crc = h.payload_crc;
    if (fd >= 0 && h.file_bytes != out->offset + out->len) {
        why = "truncated";
        close(fd);
        fd = -1;
    }
    if (why != NULL)
        drop_corrupt(c, k, why);
    free(key);
    out->fd = fd;
    return fd >= 0 ? 0 : PV_ENOTFOUND;
}

int pv_disk_cache_check(pv_disk_cache *c, const pv_cache_key *k, pv_disk_entry *e)
{
    uint32_t crc = 0;
    unsigned char chunk[65536];
    uint64_t done = 0;
    while (done < e->len) {
        size_t take = e->len - done > sizeof chunk ? sizeof chunk : (size_t)(e->len - done);
        ssize_t r = pread(e->fd, chunk, take, (off_t)(e->offset + done));
        if (r <= 0)
            break;
        crc = pv__disk_crc(crc, chunk, (size_t)r);
        done += (uint64_t)r;
    }
    if (done == e->len && crc == e->crc)
        return 0;
    close(e->fd);
    e->fd = -1;
    drop_corrupt(c, k, done == e->len ? "checksum mismatch" : "truncated");
    return PV_ENOTFOUND;
}

int pv_disk_cache_put(pv_disk_cache *c, const pv_cache_key *k, const void *data, size_t len)
{
    return pv_disk_cache_put2(c, k, NULL, 0, data, len);
}

int pv_disk_cache_put2(pv_disk_cache *c, const pv_cache_key *k, const void *head,
                       size_t head_len, const void *data, size_t len)
{
    if (c->dir == NULL || c->read_only)
        return 0;
    size_t key_len;
    char *key = pv__disk_key_text(c, k, &key_len);
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
    pv_disk_tmp t;
    int rc = pv_disk_cache_create(c, k, KIND, &t);
    if (rc != 0)
        goto done;
    if (write_exact(t.fd, hdr, sizeof hdr) != 0 || write_exact(t.fd, key, key_len) != 0 ||
        write_exact(t.fd, head, head_len) != 0 || write_exact(t.fd, data, len) != 0) {
        pv_log(PV_LOG_WARN, "cannot write a cache entry in %s: %s", c->dir, strerror(errno));
        pv_disk_cache_discard(c, &t);
        rc = PV_EIO;
        goto done;
    }
    rc = pv_disk_cache_commit(c, &t);
done:
    free(key);
    return rc;
}
