/* kept_answer: answers kept on disk, and their entity tags (what
 * server/answer/ keeps and finds there).
 *
 * A tool's answer depends only on its source files and the parameters the
 * tool reads (tools/tool.h), so a 200 JSON answer is kept in the disk cache
 * and a later request, after a restart too, is answered without decoding
 * the profile again. Answers of PV_KEPT_GZ_MIN_BYTES or more are kept
 * gzip-compressed, after their tag: a repeat is sent from the file as it
 * is (no hashing, compressing or reading into memory: a 1 MB answer was
 * compressed again for every request before), and a revalidation is
 * answered 304 from the tag alone. Smaller ones are kept as they are. A
 * client that does not take gzip (curl, scripts) gets the answer inflated as
 * it is sent the first time, and from a plain copy kept beside the gzip'd
 * one after that: inflating 1 MB for every request held such clients to a
 * few hundred requests a second.
 *
 * The tag of an answer is a hash of its uncompressed body, whoever makes
 * it (pv_answer_tag): an answer sent fresh and the same answer sent from
 * the cache carry the same tag. Threads: any (the disk cache's rules). */
#ifndef PV_CACHE_KEPT_ANSWER_H
#define PV_CACHE_KEPT_ANSWER_H

#include "cache/disk.h"
#include "util/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PV_KEPT_GZ_MIN_BYTES ((size_t)4 << 10)
#define PV_KEPT_TAG_CHARS 16
/* The largest answer made or kept. */
#define PV_KEPT_MAX_BYTES ((size_t)4 << 30)
/* A larger answer is never kept plain, only streamed inflated: its plain
 * copy would be made in memory. */
#define PV_KEPT_PLAIN_MAX_BYTES ((size_t)64 << 20)

/* The strong tag of an uncompressed body: PV_KEPT_TAG_CHARS hex digits
 * and a NUL into tag. Cannot fail. */
void pv_kept_tag(const void *body, size_t len, char tag[PV_KEPT_TAG_CHARS + 1]);

/* A kept answer behind its tag line, open for sending: the gzip'd copy
 * or the plain copy (pv_kept_open_plain). */
typedef struct pv_kept_gz {
    char tag[PV_KEPT_TAG_CHARS + 1]; /* the uncompressed body's tag */
    uint64_t plain_bytes;              /* the uncompressed body's length */
    pv_disk_entry entry;               /* fd, and where the gzip body is in it */
} pv_kept_gz;

/* Opens the gzip'd answer kept under k, reading only its tag: enough to
 * answer a revalidation. Returns 0, or PV_ENOTFOUND. The caller closes
 * out->entry.fd, or passes it on. */
int pv_kept_open_gz(pv_disk_cache *c, const pv_cache_key *k, pv_kept_gz *out);
/* Checks an opened answer's body against its checksum before it is sent.
 * Returns 0, or PV_ENOTFOUND after closing the fd and removing the entry. */
int pv_kept_check_gz(pv_disk_cache *c, const pv_cache_key *k, pv_kept_gz *g);

/* The plain copy of a gzip'd answer, as pv_kept_open_gz and
 * pv_kept_check_gz; entry then holds the uncompressed body. */
int pv_kept_open_plain(pv_disk_cache *c, const pv_cache_key *k, pv_kept_gz *out);
int pv_kept_check_plain(pv_disk_cache *c, const pv_cache_key *k, pv_kept_gz *g);
/* Keeps the plain copy of the gzip'd answer g (opened and checked; its fd
 * stays the caller's) when it inflates to at most PV_KEPT_PLAIN_MAX_BYTES
 * and to the body its tag names. Failures only cost the cache. */
void pv_kept_keep_plain(pv_disk_cache *c, const pv_cache_key *k, const pv_kept_gz *g);

/* Appends the plain answer kept under k to out. Returns 0, or PV_ENOTFOUND. */
int pv_kept_get(pv_disk_cache *c, const pv_cache_key *k, pv_buf *out);

/* Keeps the answer body under k. A large one is compressed and kept with
 * its tag, and then handed back compressed in *gz (malloc'd; *gz NULL
 * otherwise) so the caller sends that instead of compressing it again; tag
 * gets its tag. Failures only cost the cache. */
void pv_kept_keep(pv_disk_cache *c, const pv_cache_key *k, const char *body, size_t len,
                    char **gz, size_t *gz_len, char tag[PV_KEPT_TAG_CHARS + 1]);

/* ---- an answer compressed as it is written -----------------------------------
 * An answer of gigabytes (the whole trace as JSON) is not held whole: the
 * writer's buffer drains into a pv_kept_stream (pv_buf_drain_to with
 * pv_kept_stream_add), which hashes and compresses each piece, so only
 * the gzip body is held. It is then kept as pv_kept_keep keeps a large
 * answer, with the same tag. */
typedef struct pv_kept_stream pv_kept_stream;

/* The finished answer: gzip body (malloc'd), its plain length and tag. */
typedef struct pv_kept_gz_body {
    char *gz;
    size_t gz_len;
    uint64_t plain_bytes;
    char tag[PV_KEPT_TAG_CHARS + 1];
} pv_kept_gz_body;

/* A stream whose gzip body may grow to max_bytes. NULL when memory runs
 * out. */
pv_kept_stream *pv_kept_stream_new(size_t max_bytes);
/* A pv_buf_drain_fn: the next n plain bytes. 0, or PV_ETOOBIG. */
int pv_kept_stream_add(void *stream, const char *p, size_t n);
/* Ends the body with its last tail_len bytes, keeps it under k (when c has
 * a folder) and fills out; the caller frees out->gz. Returns 0, or
 * PV_ETOOBIG (out untouched). Call once; then only _free. */
int pv_kept_stream_keep(pv_disk_cache *c, const pv_cache_key *k, pv_kept_stream *s,
                          const char *tail, size_t tail_len, pv_kept_gz_body *out);
/* Frees. NULL is fine. */
void pv_kept_stream_free(pv_kept_stream *s);

#endif
