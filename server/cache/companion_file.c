/* companion_file: a model's companion in the disk cache (companion_file.h). */
#include "cache/companion_file.h"

#include "util/buf.h"
#include "util/log.h"
#include "util/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define KIND "pvi"
#define TRAILER_BYTES 16u             /* CRC-32 (as u64), then the length */
#define DRAIN_AT ((size_t)1 << 20)    /* what the writer holds before writing it */

static pv_cache_key key_of(const pv_source *src, char *buf, size_t cap)
{
    snprintf(buf, cap, "trace index %lld", (long long)src->id.ctime_ns);
    return (pv_cache_key){pv_source_rel_path(src), src->id.size_bytes, src->id.mtime_ns, buf};
}

static uint64_t crc_add(uint64_t crc, const void *p, size_t n)
{
    const unsigned char *s = p;
    while (n > 0) {
        uInt take = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32((uLong)crc, s, take);
        s += take;
        n -= take;
    }
    return crc;
}

/* ---- writing ----------------------------------------------------------------- */

typedef struct out_file {
    int fd;
    uint64_t crc, len;
} out_file;

static int write_out(void *ctx, const char *p, size_t n)
{
    out_file *o = ctx;
    o->crc = crc_add(o->crc, p, n);
    o->len += n;
    while (n > 0) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return PV_EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

void pv__companion_save(pv_disk_cache *d, const pv_model_companion *c, const pv_source *src,
                        const pv_model *m, const void *companion)
{
    if (d == NULL || c->save == NULL)
        return;
    char what[80];
    pv_cache_key key = key_of(src, what, sizeof what);
    pv_disk_tmp t;
    if (pv_disk_cache_create(d, &key, KIND, &t) != 0)
        return;
    out_file o = {t.fd, crc32(0L, Z_NULL, 0), 0};
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    pv_buf_drain_to(&b, DRAIN_AT, write_out, &o);
    int rc = c->save(companion, m, &b);
    if (rc == 0 && b.len > 0)
        rc = write_out(&o, b.data, b.len);
    pv_buf_fini(&b);
    uint64_t trailer[2] = {o.crc, o.len};
    if (rc == 0)
        rc = write_out(&o, (const char *)trailer, sizeof trailer);
    if (rc != 0) {
        pv_log(PV_LOG_WARN, "cannot save the trace index of %s for the next start", src->path);
        pv_disk_cache_discard(d, &t);
        return;
    }
    pv_disk_cache_commit(d, &t);
}

/* ---- reading ----------------------------------------------------------------- */

/* The whole file at path, not through a link, in *data (malloc'd); false
 * when it cannot be read. */
static bool read_whole(const char *path, uint8_t **data, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return false;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)TRAILER_BYTES) {
        close(fd);
        return false;
    }
    size_t n = (size_t)st.st_size, done = 0;
    uint8_t *p = pv_xmalloc(n);
    while (done < n) {
        ssize_t r = read(fd, p + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        done += (size_t)r;
    }
    close(fd);
    if (done != n) {
        free(p);
        return false;
    }
    *data = p;
    *len = n;
    return true;
}

int pv__companion_load(pv_disk_cache *d, const pv_model_companion *c, const pv_source *src,
                       const pv_model *m, void **out, size_t *bytes)
{
    *out = NULL;
    *bytes = 0;
    if (d == NULL || c->load == NULL)
        return PV_ENOTFOUND;
    char what[80];
    pv_cache_key key = key_of(src, what, sizeof what);
    char *file = pv_disk_cache_find(d, &key, KIND);
    if (file == NULL)
        return PV_ENOTFOUND;
    uint8_t *data = NULL;
    size_t len = 0;
    const char *why = "it cannot be read";
    int rc = PV_ENOTFOUND;
    if (read_whole(file, &data, &len)) {
        uint64_t trailer[2];
        size_t payload = len - TRAILER_BYTES;
        memcpy(trailer, data + payload, sizeof trailer);
        why = "its checksum does not match";
        if (trailer[1] == payload && trailer[0] == crc_add(crc32(0L, Z_NULL, 0), data, payload)) {
            pv_error err = {0};
            /* load takes data, whether it reads or not */
            rc = c->load(m, data, payload, out, bytes, &err);
            data = NULL;
            why = "it does not fit this profile's model";
        }
    }
    free(data);
    if (rc != 0) {
        pv_log(PV_LOG_INFO, "the saved trace index of %s is not used (%s); building it again",
               src->path, why);
        pv_disk_cache_remove(d, &key, KIND);
        rc = PV_ENOTFOUND;
    }
    free(file);
    return rc;
}
