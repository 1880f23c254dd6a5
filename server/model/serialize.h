/* serialize: a finished model on disk, so a restart skips the decode.
 * The cache store (server/cache/) decides where files live and when they
 * are stale; this module only writes and reads one file. The same layout
 * also keeps a small model as bytes in memory (a memo: the trace's
 * derived device lines, tools/trace_derived/trace_derived.h), bound in
 * place without a copy.
 *
 * File layout (all integers little-endian, as written by this build):
 *   offset size  meaning
 *        0    8  magic "PVMODEL\0"
 *        8    4  format version (PV_MODEL_FILE_VERSION)
 *       12    4  header bytes (64)
 *       16    4  fingerprint of this build's columns (model/columns.h:
 *                entry sizes, flags, count widths) and byte order, so a
 *                file from another build is rejected rather than misread
 *       20    4  reserved, 0
 *       24    8  payload bytes
 *       32    8  checksum of the payload (64-bit words, four lanes)
 *       40   24  reserved, 0
 *       64    -  payload, each section padded to 16 bytes so a mapped
 *                file can be used in place:
 *                  counts: ten scalars (strings, string bytes, depth pool,
 *                    depth index, blob bytes, min_ps, max_ps, mem_bytes,
 *                    source length, has_group_stats), then the entries of
 *                    each column of model/columns.h (UINT64_MAX: NULL)
 *                  string lengths (u32 each), string bytes (NUL-ended)
 *                  each column in columns.h's order; the rows of tracks
 *                    and blobs with their pointers 0
 *                  the tracks' depth_start pool, their depth_index, the
 *                    blobs' bytes
 * A file whose magic, version, fingerprint, size or checksum does not
 * match is rejected with PV_EFORMAT and never half-loaded.
 * Threads: save reads an immutable model; both may run on any thread. */
#ifndef PV_MODEL_SERIALIZE_H
#define PV_MODEL_SERIALIZE_H

#include "model/model.h"
#include "util/buf.h"
#include "util/error.h"

struct pv_quiet;

/* 3: event stats read from the profile; 4: sections and counts per
 * model/columns.h; 5: event roles and launch links */
#define PV_MODEL_FILE_VERSION 5u

/* Writes m to fd, a new empty file open for writing. fd stays open: the
 * caller made the file, safely, and moves it into place once this
 * succeeds, so no reader sees a partial file. With quiet (may be NULL),
 * each PV_MODEL_WRITE_PIECE bytes wait for a moment without requests, up
 * to PV_QUIET_BUDGET_NS in all (util/quiet.h). Returns 0, or PV_EIO with
 * the file incomplete. */
int pv_model_write(const pv_model *m, int fd, struct pv_quiet *quiet, pv_error *err);
#define PV_MODEL_WRITE_PIECE ((size_t)4 << 20)

/* Appends m in the same layout to b, whose length must be a multiple of
 * 16 (the model's sections keep their alignment when b's data does, as
 * malloc'd data does): for a model kept in memory as bytes, such as a
 * memo (model/memo.h). Returns 0, or PV_ETOOBIG when b's cap is reached
 * (b then holds a partial model). */
int pv_model_write_buf(const pv_model *m, pv_buf *b, pv_error *err);

/* Writes m to the file at path, replaced in place and not through a link:
 * for a path nobody else reads (tests, benchmarks). Returns 0, or PV_EIO
 * with path removed. */
int pv_model_save(const pv_model *m, const char *path, pv_error *err);

/* Reads a file written by pv_model_write, not through a link, into a new
 * model (*out, free with pv_model_free). The columns point into a
 * read-only mapping of the file; a model decoded from an XSpace also maps
 * src_path, the profile it was made from, to read its events' stats
 * (model.h).
 * Returns 0, PV_EIO (cannot open/map) or PV_EFORMAT (not a model file,
 * another version or build, truncated, checksum mismatch, or the profile
 * is gone or changed size); *out is NULL on failure. */
int pv_model_load(const char *path, const char *src_path, pv_model **out, pv_error *err);

/* Binds a new model to data[0 .. len), a model written by
 * pv_model_write_buf and starting on 16 bytes, without copying its
 * columns: data must outlive the model (*out, free with pv_model_free,
 * which leaves data alone). The checksum is not read again: the bytes
 * come from this process, or from a cache entry checked as it was read.
 * The model's mem_bytes counts what it holds beside data (its strings'
 * table, its tracks). A model of a profile's events read from the file
 * (ev_wire) cannot be loaded so. Returns 0, or PV_EFORMAT with *out NULL. */
int pv_model_load_mem(const uint8_t *data, size_t len, pv_model **out, pv_error *err);

#endif
