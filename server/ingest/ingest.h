/* ingest: turning a profile file into a pv_model. This header is the one
 * entry the rest of the server uses; each format's decoder lives in its
 * own file and writes through the model builder.
 *
 * Threads: every function may be called from any thread; a call owns
 * everything it allocates until it returns the model. */
#ifndef PV_INGEST_INGEST_H
#define PV_INGEST_INGEST_H

#include "model/model.h"
#include "util/error.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* How far a decode has got; the decoder stores done_bytes as it goes so
 * another thread can read it for a progress bar. */
typedef struct pv_progress {
    _Atomic uint64_t done_bytes;
    uint64_t total_bytes;
} pv_progress;

/* Decodes the file at path. Returns 0 with *out set (free with
 * pv_model_free), or a negative PV_E* code with err naming the file, the
 * byte offset and the problem. progress may be NULL. */
int pv_ingest_file(const char *path, pv_progress *progress, pv_model **out, pv_error *err);

/* The same over bytes already in memory; path_for_errors names them. */
int pv_ingest_buffer(const uint8_t *data, size_t len, const char *path_for_errors,
                     pv_progress *progress, pv_model **out, pv_error *err);

#endif
