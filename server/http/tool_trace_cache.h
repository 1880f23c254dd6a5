/* tool_trace_cache: the trace index (tile pyramid, counters, flow links)
 * of each source file, built on its first trace request and kept for the
 * next ones. An index depends only on the file (a model decoded again
 * from the same file numbers its events the same way), so it is keyed by
 * the file's identity, not by the model object, and survives the model
 * store dropping and reloading the model.
 *
 * Memory: indexes are kept while their total stays under the budget given
 * at creation; the least recently used unheld ones are dropped first.
 * Threads: one mutex guards the table; two requests that miss at once may
 * both build, and the second result is dropped. */
#ifndef PV_HTTP_TOOL_TRACE_CACHE_H
#define PV_HTTP_TOOL_TRACE_CACHE_H

#include "cache/store.h"
#include "model/model.h"
#include "tools/trace_index.h"

#include <stddef.h>

typedef struct pv_trace_cache pv_trace_cache;
typedef struct pv_trace_hold pv_trace_hold;

/* budget_bytes 0 = unbounded. Cannot fail (aborts when memory runs out). */
pv_trace_cache *pv_trace_cache_new(size_t budget_bytes);
/* Frees every index; no hold may be outstanding. NULL is fine. */
void pv_trace_cache_free(pv_trace_cache *c);

/* The index of src (whose model is m), built now if needed; *hold keeps
 * it alive until pv_trace_cache_put. c may be NULL: the index is then
 * built for this request only. Returns 0 or the builder's error. */
int pv_trace_cache_get(pv_trace_cache *c, const pv_source *src, const pv_model *m,
                       const pv_trace_index **out, pv_trace_hold **hold, pv_error *err);
void pv_trace_cache_put(pv_trace_cache *c, pv_trace_hold *hold);

/* ---- finished tiles ------------------------------------------------------
 * Tiles of the coarse levels (0 .. PV_TRACE_CACHE_TILE_LEVELS-1) are kept
 * gzip-compressed with their index entry, up to a byte cap per file, so
 * the tiles every viewer opens first are served without recomputing or
 * compressing them. A tile never changes for a given file, so entries are
 * only added, and dropped with the index. */
#define PV_TRACE_CACHE_TILE_LEVELS 11u

/* A malloc'd copy of the cached gzip body of tile (level, index) in *gz;
 * returns 0, or PV_ENOTFOUND. */
int pv_trace_cache_tile_get(pv_trace_cache *c, pv_trace_hold *hold, uint32_t level,
                            uint64_t index, char **gz, size_t *len);
/* Keeps a copy of gz as tile (level, index) when the level is cached and
 * the file's cap allows. Cannot fail. */
void pv_trace_cache_tile_put(pv_trace_cache *c, pv_trace_hold *hold, uint32_t level,
                             uint64_t index, const char *gz, size_t len);

/* Bytes held by cached indexes and tiles. */
size_t pv_trace_cache_bytes(pv_trace_cache *c);

#endif
