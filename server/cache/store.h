/* store: the loaded models, shared by every request.
 *
 * Loading is lazy and shared: the first request for a file queues one
 * ingest on a loader thread; every later request for the same file waits
 * for that one (or, through pv_model_store_poll, just reads its
 * progress). The budget bounds what is held and what is being loaded
 * together: a load starts when its estimate fits (at most two at once); a
 * load a request waits for may first drop the least recently used models
 * no request holds, a load only polled for waits instead (store.c says why
 * this never waits forever). A file that failed to load keeps its error
 * until the file changes (size or mtime) or ten seconds pass, so a broken
 * file is not decoded again and again, and a fixed one is.
 *
 * A companion (the trace viewer's index) may be built from every model on
 * its loader thread right after the model is published, so requests that
 * need only the model do not wait for it and the first request that needs
 * the companion usually finds it ready. The companion lives and dies with
 * its model: one budget covers both, and the LRU drops both together.
 * Thread-safe: one mutex guards the table. */
#ifndef PV_CACHE_STORE_H
#define PV_CACHE_STORE_H

#include "model/model.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/progress.h"
#include "source/source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pv_quiet;

typedef struct pv_model_store pv_model_store;
typedef struct pv_model_entry pv_model_entry;

typedef enum pv_load_state {
    PV_LOAD_LOADING,
    PV_LOAD_READY,
    PV_LOAD_FAILED
} pv_load_state;

/* Where a load is, for the page's bar: the source's bytes read, the
 * model finished (model/builder.h, pv_builder_finish_metered), the
 * companion built. A load from the disk cache reads and finishes nothing:
 * it goes from READING to INDEXING. */
typedef enum pv_load_phase {
    PV_PHASE_READING,        /* units: bytes of the source */
    PV_PHASE_FINISHING,      /* units: the finish's passes over the events */
    PV_PHASE_INDEXING,       /* units: the companion's (the trace index's) */
    PV_PHASE_DONE
} pv_load_phase;

typedef struct pv_load_status {
    pv_load_state state;
    bool queued;             /* LOADING, but waiting for the budget to allow it */
    uint64_t done_bytes;     /* bytes of the source decoded so far */
    uint64_t total_bytes;    /* size of the source */
    pv_error err;            /* set when state is PV_LOAD_FAILED */
    /* The companion: LOADING until built (or while the model loads),
     * FAILED with its error in companion_err; READY when there is none. */
    pv_load_state companion_state;
    pv_error companion_err;
    size_t model_bytes;      /* 0 until the model is ready */
    size_t companion_bytes;  /* 0 until the companion is built */
    /* The phase and how far it is; across polls of one load the phase
     * never goes back and, within a phase, neither does phase_done. */
    pv_load_phase phase;
    uint64_t phase_done;     /* at most phase_total */
    uint64_t phase_total;    /* 0 until the phase's work has counted it */
} pv_load_status;

/* The whole load as one fraction from 0 to 1 that never goes back across
 * polls: each phase fills a fixed share of the bar (store.c). */
double pv_load_status_fraction(const pv_load_status *st);

/* What a store builds beside each model. build runs on the loader thread
 * with the model held, counting its work on meter (what
 * PV_PHASE_INDEXING reports); it returns 0 with *out and the bytes it holds, or
 * an error code with err filled (the model stays usable). free releases
 * what build made. warm (may be NULL) then makes the model's memos that
 * the first requests will read (model/memo.h), on the same thread, and
 * the store saves them with the model, so that after a restart they come
 * from the disk cache rather than from the first request. */
typedef struct pv_model_companion {
    int (*build)(const pv_model *m, pv_meter *meter, void **out, size_t *bytes, pv_error *err);
    void (*free)(void *companion);
    void (*warm)(const pv_model *m);
    /* With a disk cache, a built companion is saved (save appends its
     * bytes to b, which writes them out as they come) and the next load
     * of the same source reads it back instead of building it (load takes
     * data over and returns what build would, or an error to build
     * instead). Both may be NULL: never kept. */
    int (*save)(const void *companion, const pv_model *m, pv_buf *b);
    int (*load)(const pv_model *m, uint8_t *data, size_t len, void **out, size_t *bytes,
                pv_error *err);
} pv_model_companion;

/* Sources are named by their identity line (source/source.h): a store
 * holds one model per source of a kind and path, and a source whose
 * identity changed is a new model. A source's ctx must outlive the store's
 * use of it (the store copies the rest). */

struct pv_disk_cache;

/* budget_bytes bounds the models and their companions held together
 * (0 = unbounded). companion (borrowed, may be NULL for none) is built
 * beside every model. When disk is not NULL and on (borrowed; must
 * outlive the store), every decoded model is saved there and a later load
 * of the same source reads the saved model instead of decoding again; a
 * saved model that fails its checks is removed and rebuilt. */
pv_model_store *pv_model_store_new(size_t budget_bytes, struct pv_disk_cache *disk,
                                   const pv_model_companion *companion);
/* How long a failure is kept before the file is tried again (10 s), and how
 * long a model must be left alone before a load only polled for may drop
 * it (10 s). For tests; any thread. */
void pv_model_store_set_timing(pv_model_store *s, int64_t retry_after_ns, int64_t poll_idle_ns);
/* The server's requests (util/quiet.h): a loader writes the model and its
 * trace index to the disk cache piece by piece, each in a moment without
 * them. Set before the first load; NULL (the default) writes at once. */
void pv_model_store_set_quiet(pv_model_store *s, struct pv_quiet *quiet);
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

/* Waits until the companion of a held entry is built. Returns 0 with *out
 * (valid while the entry is held), or the builder's error with err filled;
 * PV_ENOTFOUND when the store has no companion. */
int pv_model_store_companion(pv_model_store *s, pv_model_entry *entry, void **out,
                             pv_error *err);

/* Counts bytes a held entry's companion took on after it was built (e.g.
 * a finished tile it keeps) in the budget. Drops nothing: returns true
 * when they fit the budget, else false and nothing is counted (the caller
 * does not keep them). */
bool pv_model_store_charge(pv_model_store *s, pv_model_entry *entry, size_t bytes);

/* The path of src's model saved in the disk cache (free() it), or NULL
 * when none is saved or the cache is off. */
char *pv_model_store_saved(pv_model_store *s, const pv_source *src);

/* Bytes held by loaded models and their companions (for the API and tests). */
size_t pv_model_store_bytes(pv_model_store *s);
/* The budget given at creation (0 = unbounded). */
size_t pv_model_store_budget(const pv_model_store *s);

/* What the store has done, for /metrics: loads finished (failed ones
 * too) with their seconds and bytes read, and the loads running now. */
typedef struct pv_store_stats {
    uint64_t loads;          /* finished, including failed */
    uint64_t failed;
    uint64_t load_bytes;     /* source bytes of the loads that succeeded */
    double load_seconds;     /* spent by finished loads, decode or saved model */
    unsigned in_flight;      /* loads running now */
    /* Of the loads: profiles decoded, and saved models read from the disk
     * cache instead. A replica serving a cache that precompute filled
     * decodes nothing; /api/index says so. */
    uint64_t decoded;
    uint64_t from_disk;
} pv_store_stats;

/* Fills out. Cannot fail. */
void pv_model_store_stats(pv_model_store *s, pv_store_stats *out);

#endif
