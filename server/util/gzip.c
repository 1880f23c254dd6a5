/* gzip: zlib in gzip mode (windowBits 15 + 16). */
#include "util/gzip.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#define FAST_FROM_BYTES ((size_t)4 << 20)

int pv_gzip_level_for(size_t len)
{
    return len >= FAST_FROM_BYTES ? 1 : 6;
}

int pv_gzip_compress(const void *src, size_t len, pv_buf *out, pv_error *err)
{
    return pv_gzip_compress_level(src, len, pv_gzip_level_for(len), out, err);
}

struct pv_gzip_stream {
    z_stream z;
    pv_buf *out;
};

pv_gzip_stream *pv_gzip_stream_new(int level, pv_buf *out)
{
    pv_gzip_stream *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    if (deflateInit2(&g->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        return NULL;
    }
    g->out = out;
    return g;
}

int pv_gzip_stream_add(pv_gzip_stream *g, const void *src, size_t len, bool last,
                       pv_error *err)
{
    g->z.next_in = (Bytef *)(uintptr_t)src;
    size_t left = len;
    unsigned char chunk[65536];
    int flush;
    do {
        uInt take = left > UINT_MAX ? UINT_MAX : (uInt)left;
        g->z.avail_in = take;
        left -= take;
        flush = left == 0 && last ? Z_FINISH : Z_NO_FLUSH;
        do {
            g->z.next_out = chunk;
            g->z.avail_out = sizeof chunk;
            deflate(&g->z, flush);
            if (pv_buf_add(g->out, chunk, sizeof chunk - g->z.avail_out) != 0)
                return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                                    "compressed body is larger than %zu bytes", g->out->max);
        } while (g->z.avail_out == 0);
    } while (left > 0);
    return 0;
}

void pv_gzip_stream_free(pv_gzip_stream *g)
{
    if (g == NULL)
        return;
    deflateEnd(&g->z);
    free(g);
}

int pv_gzip_compress_level(const void *src, size_t len, int level, pv_buf *out,
                           pv_error *err)
{
    pv_gzip_stream *g = pv_gzip_stream_new(level, out);
    if (g == NULL)
        return pv_error_set(err, PV_ENOMEM, NULL, PV_NO_OFFSET, "zlib could not start");
    int rc = pv_gzip_stream_add(g, src, len, true, err);
    pv_gzip_stream_free(g);
    return rc;
}

int pv_gzip_decompress(const void *src, size_t len, pv_buf *out, const char *path,
                       pv_error *err)
{
    z_stream z = {0};
    if (inflateInit2(&z, 15 + 32) != Z_OK)
        return pv_error_set(err, PV_ENOMEM, path, PV_NO_OFFSET, "zlib could not start");
    z.next_in = (Bytef *)(uintptr_t)src;
    size_t left = len;
    unsigned char chunk[65536];
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        if (z.avail_in == 0) {
            if (left == 0)
                break;
            uInt take = left > UINT_MAX ? UINT_MAX : (uInt)left;
            z.avail_in = take;
            left -= take;
        }
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
            uint64_t at = (uint64_t)(len - left - z.avail_in);
            inflateEnd(&z);
            return pv_error_set(err, PV_EFORMAT, path, at, "corrupt gzip data (%s)",
                                z.msg ? z.msg : "zlib error");
        }
        if (pv_buf_add(out, chunk, sizeof chunk - z.avail_out) != 0) {
            inflateEnd(&z);
            return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                                "decompressed data is larger than %zu bytes", out->max);
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0 && left == 0)
            break;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END)
        return pv_error_set(err, PV_EFORMAT, path, (uint64_t)len,
                            "gzip stream is truncated");
    return 0;
}

/* ---- a gzip file inflated as it is read ------------------------------------------- */

struct pv_gunzip_fd {
    z_stream z;
    int fd;
    uint64_t at;            /* next file offset to read */
    uint64_t end;           /* offset past the stream */
    bool done;              /* the last member ended with no input left */
    unsigned char in[65536];
};

pv_gunzip_fd *pv_gunzip_fd_new(int fd, uint64_t offset, uint64_t len)
{
    pv_gunzip_fd *g = calloc(1, sizeof *g);
    if (g == NULL || inflateInit2(&g->z, 15 + 16) != Z_OK) {
        free(g);
        close(fd);
        return NULL;
    }
    g->fd = fd;
    g->at = offset;
    g->end = offset + len;
    return g;
}

ssize_t pv_gunzip_fd_read(pv_gunzip_fd *g, void *buf, size_t cap)
{
    g->z.next_out = buf;
    g->z.avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
    while (!g->done && g->z.avail_out > 0) {
        if (g->z.avail_in == 0 && g->at < g->end) {
            size_t want = g->end - g->at < sizeof g->in ? (size_t)(g->end - g->at) : sizeof g->in;
            ssize_t n = pread(g->fd, g->in, want, (off_t)g->at);
            if (n <= 0)
                return -1;
            g->at += (uint64_t)n;
            g->z.next_in = g->in;
            g->z.avail_in = (uInt)n;
        }
        bool no_input = g->z.avail_in == 0;
        int rc = inflate(&g->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            /* Another member may follow; nothing more is the end. */
            g->done = g->z.avail_in == 0 && g->at >= g->end;
            if (!g->done && inflateReset(&g->z) != Z_OK)
                return -1;
        } else if (rc != Z_OK || (no_input && g->at >= g->end)) {
            /* Corrupt, or the file ended inside a member. */
            return -1;
        }
    }
    return (ssize_t)(cap - g->z.avail_out);
}

void pv_gunzip_fd_free(pv_gunzip_fd *g)
{
    if (g == NULL)
        return;
    inflateEnd(&g->z);
    close(g->fd);
    free(g);
}
