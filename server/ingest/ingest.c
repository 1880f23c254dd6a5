/* ingest: running a format's decoder over a read-only mapping of the file,
 * and reading per-tool files whole. */
#include "ingest/ingest.h"
#include "ingest/formats.h"
#include "util/mapguard.h"
#include "util/mem.h"
#include "util/pbwire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void pv_ingest_attach(pv_model *m)
{
    pv_model_set_hlo_decoder(m, pv_ingest_hlo_decode, pv_ingest_hlo_buffers);
}

/* The file's pages are dropped (and read ahead) in chunks of this many
 * bytes: a file smaller than one costs no madvise call (dropping a small
 * file's pages saved little memory and made every later read of its stats
 * fault them in again), and a large one keeps at most this much of what
 * was read resident. A multiple of every page size. */
#define DROP_CHUNK ((size_t)4 << 20)

void pv_ingest_done_upto(const pv_ingest_src *src, size_t upto)
{
    if (src->progress != NULL)
        atomic_store_explicit(&src->progress->done_bytes, upto, memory_order_relaxed);
    if (!src->mapped)
        return;
    /* Whole chunks below upto are never read again: drop them so RSS
     * stays near the model's size. Failure only costs memory. */
    size_t end = upto & ~(DROP_CHUNK - 1);
    if (end > 0)
        madvise((void *)src->data, end, MADV_DONTNEED);
}

int pv_ingest_shrank(pv_error *err, const char *path)
{
    return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET,
                        "the file shrank while it was being read (is it being rewritten?)");
}

/* ---- entry points -------------------------------------------------------- */

/* The builder a decode on this thread is filling, and the decoder's own
 * state, so a jump out of the decode (see mapguard.h) can still free them. */
static _Thread_local pv_model_builder *decoding;
static _Thread_local void (*abort_release)(void *state);
static _Thread_local void *abort_state;

void pv_ingest_on_abort(void (*release)(void *state), void *state)
{
    abort_release = release;
    abort_state = state;
}

/* Decodes src into *out. The model reads its events' stats from src
 * later (model.h); the caller hands the bytes to it on success. */
static int ingest_src(const pv_ingest_src *src, pv_source_owner owner, pv_model **out,
                      pv_error *err)
{
    *out = NULL;
    if (src->len == 0)
        return pv_error_set(err, PV_EFORMAT, src->path, 0, "the file is empty");
    const pv_format *f = pv_format_sniff(src->data, src->len);
    /* gzip's magic: the sniffers looked inside and found nothing they know,
     * or the compressed data is broken; say it is gzip, so the reader does
     * not look for a text format in the bytes. */
    if (f == NULL && src->len >= 2 && src->data[0] == 0x1f && src->data[1] == 0x8b)
        return pv_error_set(err, PV_EFORMAT, src->path, 0,
                            "gzip data that is corrupt or holds no supported profile format");
    if (f == NULL)
        return pv_error_set(err, PV_EFORMAT, src->path, 0, "not a supported profile format");
    pv_decode_fn decode = f->decode;
    pv_model_builder *b = pv_builder_new();
    pv_builder_source(b, src->data, src->len, owner);
    decoding = b;
    int rc = decode(src, b, err);
    decoding = NULL;
    if (rc != 0) {
        pv_builder_free(b);
        return rc;
    }
    /* the bytes are all read: the bar moves on to the finish */
    if (src->progress != NULL)
        atomic_store_explicit(&src->progress->done_bytes, src->len, memory_order_relaxed);
    rc = pv_builder_finish_metered(b, src->progress != NULL ? &src->progress->finish : NULL,
                                   out, err);
    if (rc == 0)
        pv_ingest_attach(*out);
    if (rc != 0 && err != NULL && err->path[0] == '\0') {
        char reason[sizeof err->reason];
        memcpy(reason, err->reason, sizeof reason);
        pv_error_set(err, rc, src->path, err->offset, "%s", reason);
    }
    return rc;
}

/* Ingests data, a malloc'd copy of the file that the model takes over
 * (freed here on failure). */
static int ingest_copy(uint8_t *data, size_t len, const char *path, pv_progress *progress,
                       pv_model **out, pv_error *err)
{
    pv_ingest_src src = {data, len, path, progress, false};
    int rc = ingest_src(&src, PV_SRC_NONE, out, err);
    if (rc == 0)
        pv_model_own_source(*out, PV_SRC_MALLOC);
    else
        free(data);
    return rc;
}

int pv_ingest_buffer(const uint8_t *data, size_t len, const char *path_for_errors,
                     pv_progress *progress, pv_model **out, pv_error *err)
{
    if (progress != NULL) {
        progress->total_bytes = len;
        atomic_store_explicit(&progress->done_bytes, 0, memory_order_relaxed);
    }
    /* The model outlives the caller's buffer: it keeps a copy. */
    uint8_t *copy = pv_xmalloc(len ? len : 1);
    if (len > 0)
        memcpy(copy, data, len);
    return ingest_copy(copy, len, path_for_errors ? path_for_errors : "", progress, out, err);
}

/* Files up to this size are read into memory rather than mapped: the
 * mapping's set-up, page faults and unmap cost a small profile more than
 * the copy (a tenth of a 13 KB profile's ingest). */
#define READ_WHOLE_BYTES ((size_t)256 << 10)

/* Reads the len bytes of the open file fd and ingests them. */
static int ingest_read(int fd, const char *path, size_t len, pv_progress *progress,
                       pv_model **out, pv_error *err)
{
    uint8_t *data = pv_xmalloc(len);
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, data + got, len - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            free(data);
            if (n == 0)
                return pv_ingest_shrank(err, path);
            return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot read: %s",
                                strerror(errno));
        }
        got += (size_t)n;
    }
    return ingest_copy(data, len, path, progress, out, err);
}

int pv_ingest_file(const char *path, pv_progress *progress, pv_model **out, pv_error *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot open: %s", strerror(errno));
    int rc = pv_ingest_fd(fd, path, progress, out, err);
    close(fd);
    return rc;
}

int pv_ingest_fd(int fd, const char *path, pv_progress *progress, pv_model **out, pv_error *err)
{
    *out = NULL;
    int rc = 0;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot stat: %s", strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "not a regular file");
    if ((uint64_t)st.st_size > PV_INGEST_MAX_FILE_BYTES)
        return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                            "the file has %lld bytes, more than the %llu accepted",
                            (long long)st.st_size, (unsigned long long)PV_INGEST_MAX_FILE_BYTES);
    size_t len = (size_t)st.st_size;
    if (progress != NULL) {
        progress->total_bytes = len;
        atomic_store_explicit(&progress->done_bytes, 0, memory_order_relaxed);
    }
    if (len == 0)
        return pv_error_set(err, PV_EFORMAT, path, 0, "the file is empty");
    if (len <= READ_WHOLE_BYTES)
        return ingest_read(fd, path, len, progress, out, err);
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot map: %s", strerror(errno));
    if (len >= DROP_CHUNK)
        madvise(map, len, MADV_SEQUENTIAL);
    pv_ingest_src src = {map, len, path, progress, true};
    pv_map_guard guard;
    if (PV_MAP_GUARD_ARM(&guard, map, len) == 0) {
        rc = ingest_src(&src, PV_SRC_MAPPED_BORROWED, out, err);
    } else {
        if (abort_release != NULL)
            abort_release(abort_state);
        pv_ingest_on_abort(NULL, NULL);
        pv_builder_free(decoding);
        decoding = NULL;
        rc = pv_ingest_shrank(err, path);
    }
    pv_map_guard_disarm(&guard);
    if (rc == 0) {
        pv_model_own_source(*out, PV_SRC_MAPPED);
        if (len >= DROP_CHUNK)
            madvise(map, len, MADV_NORMAL);   /* later reads are random */
    } else {
        munmap(map, len);
    }
    return rc;
}

/* ---- per-tool files ---------------------------------------------------------- */

int pv_ingest_read_whole(int fd, const char *path, uint64_t max_bytes, char **out, size_t *len,
                         pv_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max_bytes)
        return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                            "not a regular file of at most %llu bytes",
                            (unsigned long long)max_bytes);
    size_t n = (size_t)st.st_size;
    char *buf = pv_xmalloc(n + 1);
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(buf);
            return pv_error_set(err, PV_EIO, path, got, "cannot read: %s",
                                r < 0 ? strerror(errno) : "the file shrank while it was read");
        }
        got += (size_t)r;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}
