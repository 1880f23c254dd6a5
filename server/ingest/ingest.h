/* ingest: turning a profile file into a pv_model, and reading TensorFlow's
 * per-tool files. ingest.c maps the file read-only, sniffs its format from
 * a bounded prefix (the table of formats.h) and runs the one decoder for
 * that format (one folder per format), which writes only through
 * pv_model_builder.
 *
 * Bad input is not a bug: a truncated, corrupt, empty or hostile file
 * gives a pv_error naming the file, the byte offset and what is wrong.
 * No decoder aborts, allocates more than a small multiple of the file, or
 * loops without consuming input.
 * Threads: every call is independent; progress may be read from another
 * thread while an ingest runs (done_bytes is atomic). */
#ifndef PV_INGEST_INGEST_H
#define PV_INGEST_INGEST_H

#include "model/builder.h"
#include "model/hlo_table.h"
#include "model/model.h"
#include "util/error.h"
#include "util/progress.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of the source decoded so far, of total_bytes, then the model's
 * finish (pv_builder_finish_metered), which starts once done_bytes reaches
 * total_bytes. The ingest writes done_bytes (relaxed atomic stores,
 * monotonic) and the finish meter; any thread may read them. */
typedef struct pv_progress {
    _Atomic uint64_t done_bytes;
    uint64_t total_bytes;
    pv_meter finish;
} pv_progress;

/* What a decoder sees of its source. */
typedef struct pv_ingest_src {
    const uint8_t *data;      /* the whole file, read-only */
    size_t len;               /* bytes */
    const char *path;         /* for errors; never NULL */
    pv_progress *progress;    /* may be NULL */
    bool mapped;              /* data is a private file mapping we may drop */
} pv_ingest_src;

/* Every decoder has this shape: fill b from src or fail with err. */
typedef int (*pv_decode_fn)(const pv_ingest_src *src, pv_model_builder *b, pv_error *err);

/* Largest file accepted: past this the model could not fit any budget. */
#define PV_INGEST_MAX_FILE_BYTES ((uint64_t)64 << 30)
/* Bytes the sniffers look at. */
#define PV_INGEST_SNIFF_BYTES 4096u

/* ---- entry points -------------------------------------------------------- */

/* Decodes the file at path into a new model (*out, free with
 * pv_model_free). The model keeps the file mapped for its events' stats;
 * a small one (256 KiB or less) is read into memory instead, a copy the
 * model owns and counts in mem_bytes. Returns 0, PV_EIO (cannot
 * open/map/read), PV_EFORMAT (not a supported format, or corrupt), or
 * PV_ETOOBIG (a size past a cap); *out is NULL on failure. progress may
 * be NULL. */
int pv_ingest_file(const char *path, pv_progress *progress, pv_model **out, pv_error *err);
/* The same from fd, open on the file path names (for errors); fd stays
 * open and the caller's. */
int pv_ingest_fd(int fd, const char *path, pv_progress *progress, pv_model **out, pv_error *err);

/* Same for bytes already in memory; data is only read. path_for_errors
 * names the source in err (may be NULL). */
int pv_ingest_buffer(const uint8_t *data, size_t len, const char *path_for_errors,
                     pv_progress *progress, pv_model **out, pv_error *err);

/* Reads the whole file open on fd (path names it), a regular file of at
 * most max_bytes, into a new buffer the caller frees (a NUL follows its
 * *len bytes). Returns 0, or PV_EIO (cannot read) / PV_ETOOBIG (not a
 * regular file of at most max_bytes) with err naming the file; *out and
 * *len unchanged then. fd stays open. */
int pv_ingest_read_whole(int fd, const char *path, uint64_t max_bytes, char **out, size_t *len,
                         pv_error *err);

/* ---- for decoders --------------------------------------------------------- */

/* ---- lazy decoders ------------------------------------------------------- */

/* Gives m the decoders it runs the first time a tool needs their data:
 * today the HLO protos' (model/hlo_table.h). pv_ingest_file and
 * pv_ingest_buffer call it on every model they make; the cache store
 * calls it on a model it loads from disk, which keeps the protos' bytes
 * but not the hook. Call before m is shared. Cannot fail. */
void pv_ingest_attach(pv_model *m);

/* The HLO decoder (hlo/hlo_decode.c), a pv_hlo_decode_fn: the `Hlo Proto` bytes
 * stats of m's /host:metadata planes into *out. */
void pv_ingest_hlo_decode(const pv_model *m, pv_arena *a, pv_hlo_table *out);
/* The buffer assignment of one program's HloProto (model/hlo_table.h,
 * pv_hlo_buffers_fn), from server/ingest/hlo/hlo_buffers.c. */
int pv_ingest_hlo_buffers(const pv_model *m, uint64_t program_id, pv_arena *a,
                          pv_hlo_buffers *out, pv_error *err);

/* For decoders: what to release when the decode is cut short because the
 * mapped file shrank under it (util/mapguard.h): the decoder's stack is
 * then abandoned, so a decoder keeps what it allocates on the heap,
 * registers it here as it starts, and unregisters it (release NULL) when
 * it returns. One per thread. */
void pv_ingest_on_abort(void (*release)(void *state), void *state);

/* For decoders: the error of a file that shrank while it was read (its
 * mapping lost pages). Returns PV_EIO. */
int pv_ingest_shrank(pv_error *err, const char *path);
/* For decoders: reports that bytes [0, upto) are decoded; updates the
 * progress and, for a mapped file, lets the kernel drop those pages so a
 * large file does not stay resident next to its model. */
void pv_ingest_done_upto(const pv_ingest_src *src, size_t upto);

#endif
