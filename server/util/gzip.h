/* gzip: whole-buffer gzip compression and capped decompression with zlib.
 * Pure functions, thread-safe. */
#ifndef PV_UTIL_GZIP_H
#define PV_UTIL_GZIP_H

#include "util/buf.h"
#include "util/error.h"

#include <stddef.h>

/* Appends the gzip encoding of src to out (level 6). Returns 0, or
 * PV_ETOOBIG when out's cap is reached (out then empty). */
int pv_gzip_compress(const void *src, size_t len, pv_buf *out, pv_error *err);
/* The same at zlib level (1 fastest .. 9 smallest): level 1 compresses
 * JSON about three times faster than 6 for ~20% more bytes, the better
 * trade for bodies made per request (trace tiles). */
int pv_gzip_compress_level(const void *src, size_t len, int level, pv_buf *out,
                           pv_error *err);

/* Appends the decompressed bytes of a gzip stream to out. Returns 0,
 * PV_EFORMAT for a corrupt or truncated stream, or PV_ETOOBIG when the
 * result would pass out's cap. path names the source in err. */
int pv_gzip_decompress(const void *src, size_t len, pv_buf *out, const char *path,
                       pv_error *err);

#endif
