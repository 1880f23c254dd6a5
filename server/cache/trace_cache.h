/* trace_cache: the trace index (tile pyramid, counters, flow links)
 * of each loaded model, built by the model store right after the model is
 * published (cache/store.h, "companion"), so the trace viewer's first
 * request finds it ready and the tools that need only the model never
 * wait for it. The index lives and dies with its model: the store's one
 * memory budget covers both and its LRU drops both together.
 * Threads: the index is read-only once built; the finished tiles it keeps
 * have their own mutex. */
#ifndef PV_CACHE_TRACE_CACHE_H
#define PV_CACHE_TRACE_CACHE_H

#include "cache/store.h"
#include "model/model.h"
#include "tools/trace_tiles/trace_index.h"
#include "util/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_trace_hold pv_trace_hold;

/* What to give pv_model_store_new so it builds a trace index per model. */
const pv_model_companion *pv_trace_companion(void);

/* The index of a held store entry, waiting while the loader builds it.
 * *hold (valid while the entry is held) names it for the tile calls.
 * Returns 0 or the builder's error with err filled. */
int pv_trace_cache_get(pv_model_store *s, pv_model_entry *entry, const pv_trace_index **out,
                       pv_trace_hold **hold, pv_error *err);

/* ---- answers kept beside the index ------------------------------------------
 * Some answers of the trace viewer's parts (the coarse tiles every viewer
 * opens first: tools/trace_tiles/trace_parts.h) are kept beside the index as
 * they are served, by their key, up to a byte cap per profile and within
 * the store's budget, so they are served again without being made. Such an
 * answer never changes for its key and its profile, so entries are only
 * added, and dropped with the index. */

/* A malloc'd copy of the body kept under key in *body, and whether it is
 * gzip'd in *gz; returns 0, or PV_ENOTFOUND. */
int pv_trace_cache_kept_get(pv_trace_hold *hold, const char *key, char **body, size_t *len,
                            bool *gz);
/* Keeps a copy of body (gzip'd when gz) under key for the held entry when
 * the profile's cap allows and the store's budget has room (the bytes are
 * charged to the entry). Cannot fail. */
void pv_trace_cache_kept_put(pv_model_store *s, pv_model_entry *entry, pv_trace_hold *hold,
                             const char *key, const char *body, size_t len, bool gz);

#endif
