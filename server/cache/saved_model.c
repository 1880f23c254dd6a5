/* saved_model: a model, its memos and its companion in the disk cache
 * (saved_model.h). */
#include "cache/saved_model.h"

#include "ingest/ingest.h"
#include "model/memo.h"
#include "model/serialize.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/quiet.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KIND "pvi"                 /* the companion's entry */
#define TRAILER_BYTES 16u          /* CRC-32 (as u64), then the length */
#define DRAIN_AT ((size_t)1 << 20) /* what the writer holds before writing it */

/* The disk cache key of what (a model, its memos, its companion) made
 * from src: the source's identity line, written into ident. */
static pv_cache_key key_of(const pv_source *src, const char *what,
                           char ident[PV_SOURCE_IDENT_MAX])
{
    return (pv_cache_key){pv_source_ident(src, ident, PV_SOURCE_IDENT_MAX), what};
}

/* ---- the model --------------------------------------------------------------- */

#define MODEL_KIND "pvm"

char *pv__model_saved_path(pv_disk_cache *d, const pv_source *src)
{
    char ident[PV_SOURCE_IDENT_MAX];
    pv_cache_key key = key_of(src, "model", ident);
    return d != NULL ? pv_disk_cache_find(d, &key, MODEL_KIND) : NULL;
}

int pv__model_load_saved(pv_disk_cache *d, const pv_source *src, pv_model **m)
{
    char *saved = pv__model_saved_path(d, src);
    if (saved == NULL)
        return PV_ENOTFOUND;
    pv_error err = {0};
    int rc = pv_model_load(saved, src->path, m, &err);
    free(saved);
    if (rc == 0) {
        pv_ingest_attach(*m);
        return 0;
    }
    char msg[1200];
    pv_error_format(&err, msg, sizeof msg);
    pv_log(PV_LOG_WARN, "saved model unusable (%s); decoding %s again", msg, src->path);
    char ident[PV_SOURCE_IDENT_MAX];
    pv_cache_key key = key_of(src, "model", ident);
    pv_disk_cache_remove(d, &key, MODEL_KIND);
    return PV_ENOTFOUND;
}

void pv__model_save(pv_disk_cache *d, const pv_source *src, const pv_model *m, pv_quiet *quiet)
{
    char ident[PV_SOURCE_IDENT_MAX];
    pv_cache_key key = key_of(src, "model", ident);
    pv_disk_tmp t;
    if (pv_disk_cache_create(d, &key, MODEL_KIND, &t) != 0)
        return;
    pv_error err = {0};
    if (pv_model_write(m, t.fd, quiet, &err) != 0) {
        char msg[1200];
        pv_error_format(&err, msg, sizeof msg);
        pv_log(PV_LOG_WARN, "cannot save the model of %s for the next start: %s", src->path,
               msg);
        pv_disk_cache_discard(d, &t);
        return;
    }
    pv_disk_cache_commit(d, &t);
}

/* ---- memos ----------------------------------------------------------------- */

/* The memos of a model are one entry ("memos"): each as its name's
 * length (u32), its name, its length (u64) and its bytes. */
void pv__memos_save(pv_disk_cache *d, const pv_source *src, const pv_model *m, size_t n)
{
    if (d == NULL)
        return;
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    for (size_t i = 0; i < n; i++) {
        const char *name;
        const uint8_t *data;
        size_t len;
        pv_model_memo_at(m, i, &name, &data, &len);
        uint32_t name_len = (uint32_t)strlen(name);
        uint64_t len64 = len;
        pv_buf_add(&b, &name_len, sizeof name_len);
        pv_buf_add(&b, name, name_len);
        pv_buf_add(&b, &len64, sizeof len64);
        pv_buf_add(&b, data, len);
    }
    char ident[PV_SOURCE_IDENT_MAX];
    pv_cache_key key = key_of(src, "memos", ident);
    pv_disk_cache_put(d, &key, b.data, b.len);
    pv_buf_fini(&b);
}

size_t pv__memos_load(pv_disk_cache *d, const pv_source *src, pv_model *m)
{
    char ident[PV_SOURCE_IDENT_MAX];
    pv_cache_key key = key_of(src, "memos", ident);
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    if (d == NULL || pv_disk_cache_get(d, &key, &b) != 0) {
        pv_buf_fini(&b);
        return 0;
    }
    const uint8_t *p = (const uint8_t *)b.data, *end = p + b.len;
    while ((size_t)(end - p) >= sizeof(uint32_t)) {
        uint32_t name_len;
        uint64_t len;
        memcpy(&name_len, p, sizeof name_len);
        p += sizeof name_len;
        if ((size_t)(end - p) < (size_t)name_len + sizeof len || name_len > 255)
            break;
        char name[256];
        memcpy(name, p, name_len);
        name[name_len] = '\0';
        p += name_len;
        memcpy(&len, p, sizeof len);
        p += sizeof len;
        if (len > (uint64_t)(end - p))
            break;
        uint8_t *data = pv_xmalloc((size_t)len + 1);
        memcpy(data, p, (size_t)len);
        p += len;
        pv_model_memo_give(m, name, data, (size_t)len);
    }
    pv_buf_fini(&b);
    return pv_model_memo_count(m);
}

/* ---- the companion: writing ----------------------------------------------------------------- */

typedef struct out_file {
    int fd;
    uint32_t crc;
    uint64_t len;
    pv_quiet *quiet;
    int64_t quiet_budget;
} out_file;

static int write_out(void *ctx, const char *p, size_t n)
{
    out_file *o = ctx;
    pv_quiet_wait(o->quiet, &o->quiet_budget);
    o->crc = pv__disk_crc(o->crc, p, n);
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
                        const pv_model *m, const void *companion, pv_quiet *quiet)
{
    if (d == NULL || c->save == NULL)
        return;
    char ident[PV_SOURCE_IDENT_MAX];
    pv_cache_key key = key_of(src, "trace index", ident);
    pv_disk_tmp t;
    if (pv_disk_cache_create(d, &key, KIND, &t) != 0)
        return;
    out_file o = {t.fd, 0, 0, quiet, PV_QUIET_BUDGET_NS};
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

/* ---- the companion: reading ----------------------------------------------------------------- */

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
    char ident[PV_SOURCE_IDENT_MAX];
    pv_cache_key key = key_of(src, "trace index", ident);
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
        if (trailer[1] == payload && trailer[0] == pv__disk_crc(0, data, payload)) {
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
