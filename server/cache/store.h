/* store: the loaded models, shared by every request.
 *
 * Loading is lazy and shared: the first request for a file starts one
 * ingest on a loader thread; every later request for the same file waits
 * for that one (or, through pv_model_store_poll, just reads its
 * progress). Models are kept while the memory budget allows; when a new
 * model would pass it, the least recently used models that no request is
 * holding are dropped first. A file that failed to load keeps its error
 * until the file changes (size or mtime), so a broken file is not decoded
 * again and again. Thread-safe: one mutex guards the table. */
#ifndef PV_CACHE_STORE_H
#define PV_CACHE_STORE_H

#include "model/model.h"
#include "util/error.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pv_model_store pv_model_store;
typedef struct pv_model_entry pv_model_entry;

typedef enum pv_load_state {
    PV_LOAD_LOADING,
    PV_LOAD_READY,
    PV_LOAD_FAILED
} pv_load_state;

typedef struct pv_load_status {
    pv_load_state state;
    uint64_t done_bytes;     /* bytes of the source decoded so far */
    uint64_t total_bytes;    /* size of the source */
    pv_error err;            /* set when state is PV_LOAD_FAILED */
} pv_load_status;

/* The identity of a source file: a change in size or mtime is a new file. */
typedef struct pv_source {
    const char *path;
    uint64_t size_bytes;
    int64_t mtime_ns;
} pv_source;

struct pv_disk_cache;

/* budget_bytes bounds the models held together (0 = unbounded). When disk
 * is not NULL (borrowed; must outlive the store), every decoded model is
 * saved there and a later load of the same source reads the saved model
 * instead of decoding again; a saved model that fails its checks is
 * removed and rebuilt. */
pv_model_store *pv_model_store_new(size_t budget_bytes, const struct pv_disk_cache *disk);
/* Waits for loader threads, frees every model. NULL is fine. */
void pv_model_store_free(pv_model_store *s);

/* Starts loading src if needed and reports where it is. Never blocks on
 * the decode. */
void pv_model_store_poll(pv_model_store *s, const pv_source *src, pv_load_status *out);

/* Waits until src is loaded. On success returns 0 and a model the caller
 * holds until pv_model_store_put(s, *entry); on failure returns the
 * loader's error code with err filled. */
int pv_model_store_get(pv_model_store *s, const pv_source *src, const pv_model **model,
                       pv_model_entry **entry, pv_error *err);
void pv_model_store_put(pv_model_store *s, pv_model_entry *entry);

/* Bytes held by loaded models (for the API and tests). */
size_t pv_model_store_bytes(pv_model_store *s);

#endif
