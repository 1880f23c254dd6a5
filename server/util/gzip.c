/* gzip: zlib in gzip mode (windowBits 15 + 16). */
#include "util/gzip.h"

#include <limits.h>
#include <zlib.h>

int pv_gzip_compress(const void *src, size_t len, pv_buf *out, pv_error *err)
{
    return pv_gzip_compress_level(src, len, 6, out, err);
}

int pv_gzip_compress_level(const void *src, size_t len, int level, pv_buf *out,
                           pv_error *err)
{
    z_stream z = {0};
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return pv_error_set(err, PV_ENOMEM, NULL, PV_NO_OFFSET, "zlib could not start");
    z.next_in = (Bytef *)(uintptr_t)src;
    size_t left = len;
    unsigned char chunk[65536];
    int flush;
    do {
        uInt take = left > UINT_MAX ? UINT_MAX : (uInt)left;
        z.avail_in = take;
        left -= take;
        flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = chunk;
            z.avail_out = sizeof chunk;
            deflate(&z, flush);
            if (pv_buf_add(out, chunk, sizeof chunk - z.avail_out) != 0) {
                deflateEnd(&z);
                return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                                    "compressed body is larger than %zu bytes", out->max);
            }
        } while (z.avail_out == 0);
    } while (flush != Z_FINISH);
    deflateEnd(&z);
    return 0;
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
