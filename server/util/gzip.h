/* gzip: whole-buffer gzip compression and capped decompression with zlib,
 * and decompression of a gzip file in chunks as it is sent. Thread-safe; a
 * pv_gunzip_fd belongs to one caller. */
#ifndef PV_UTIL_GZIP_H
#define PV_UTIL_GZIP_H

#include "util/buf.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The zlib level a body of len bytes is compressed at: 6, or 1 from
 * 4 MiB on. A big answer is compressed once per model and its gzip kept,
 * but that once is the user's wait: level 6 took 400 ms of the 1 GB
 * profile's overview (32 MB of JSON), level 1 takes a third of that for a
 * body 30 % larger (3.2 MB instead of 2.5). */
int pv_gzip_level_for(size_t len);
/* Appends the gzip encoding of src to out (at pv_gzip_level_for(len)).
 * Returns 0, or PV_ETOOBIG when out's cap is reached (out then empty). */
int pv_gzip_compress(const void *src, size_t len, pv_buf *out, pv_error *err);
/* The same at zlib level (1 fastest .. 9 smallest): level 1 compresses
 * JSON about three times faster than 6 for ~20% more bytes, the better
 * trade for bodies made per request (trace tiles). */
int pv_gzip_compress_level(const void *src, size_t len, int level, pv_buf *out,
                           pv_error *err);

/* ---- compressing a body as it is written ----------------------------------------
 * A body too large to hold whole before it is compressed is given a piece
 * at a time; the gzip bytes go to out as they come. One caller. */
typedef struct pv_gzip_stream pv_gzip_stream;

/* A compressor at zlib level appending to out (the caller's, which must
 * outlive it). NULL when memory runs out. */
pv_gzip_stream *pv_gzip_stream_new(int level, pv_buf *out);
/* Compresses the len bytes at src; last ends the gzip stream (nothing may
 * be added after it). Returns 0, or PV_ETOOBIG when out's cap is reached
 * (out then empty, the stream unusable). */
int pv_gzip_stream_add(pv_gzip_stream *g, const void *src, size_t len, bool last,
                       pv_error *err);
/* Frees. NULL is fine. */
void pv_gzip_stream_free(pv_gzip_stream *g);

/* Appends the decompressed bytes of a gzip stream to out. Returns 0,
 * PV_EFORMAT for a corrupt or truncated stream, or PV_ETOOBIG when the
 * result would pass out's cap. path names the source in err. */
int pv_gzip_decompress(const void *src, size_t len, pv_buf *out, const char *path,
                       pv_error *err);

/* ---- a gzip file inflated as it is read ---------------------------------------
 * For a client that does not take gzip, a gzip'd body kept in a file is
 * inflated a chunk at a time as it is sent: memory stays at two buffers
 * whatever the body inflates to (a small file may inflate to gigabytes). */
typedef struct pv_gunzip_fd pv_gunzip_fd;

/* Reads the len bytes at offset of fd as a gzip stream (members one after
 * another, as gzip allows). Takes fd, closed by pv_gunzip_fd_free. NULL
 * when memory runs out (fd closed then). */
pv_gunzip_fd *pv_gunzip_fd_new(int fd, uint64_t offset, uint64_t len);
/* Up to cap inflated bytes into buf: returns how many, 0 at the end, -1 on
 * a corrupt or truncated stream or a read error. */
ssize_t pv_gunzip_fd_read(pv_gunzip_fd *g, void *buf, size_t cap);
/* Closes the file and frees. NULL is fine. */
void pv_gunzip_fd_free(pv_gunzip_fd *g);

#endif
