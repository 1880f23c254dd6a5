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

/* ---- finished tiles ------------------------------------------------------
 * Tiles of the coarse levels (0 .. PV_TRACE_CACHE_TILE_LEVELS-1) are kept
 * beside the index as they are served (binary tiles, gzip'd when small:
 * docs/trace_api.md), up to a byte cap per file and within
 * the store's budget, so the tiles every viewer opens first are served
 * without recomputing them. A tile never changes for a
 * given file, so entries are only added, and dropped with the index. */
#define PV_TRACE_CACHE_TILE_LEVELS 11u

/* A malloc'd copy of the cached body of tile (level, index) in *body;
 * returns 0, or PV_ENOTFOUND. */
int pv_trace_cache_tile_get(pv_trace_hold *hold, uint32_t level, uint64_t index, char **body,
                            size_t *len);
/* Keeps a copy of body as tile (level, index) of the held entry when the
 * level is cached, the file's cap allows and the store's budget has room
 * (the bytes are charged to the entry). Cannot fail. */
void pv_trace_cache_tile_put(pv_model_store *s, pv_model_entry *entry, pv_trace_hold *hold,
                             uint32_t level, uint64_t index, const char *body, size_t len);

/* ---- tags and what is sent -------------------------------------------------
 * A tile is a pure function of its source file, its encoding and the
 * program that encodes it, so its strong tag is known before it is made: a
 * revalidation is answered without computing the tile, and no body is
 * hashed. */

/* The identity of a source file (path, size, mtime) as 16 hex digits and a
 * NUL in out; the page adds it to tile URLs to keep files apart. */
void pv_trace_cache_source_id(const pv_source *src, char out[17]);
/* The strong tag of tile (level, index) of src in its encoding (binary or
 * JSON) as made by program, as 16 hex digits and a NUL in out. */
void pv_trace_cache_tile_tag(const pv_source *src, const char *program, uint32_t level,
                             uint64_t index, bool bin, char out[17]);
/* Whether a kept binary tile is gzip'd (gzip's magic bytes; an uncompressed
 * one starts with "PVT1"). */
bool pv_trace_cache_is_gzip(const char *body, size_t len);
/* What is sent for a freshly made binary tile, taken from body: gzip'd at
 * level 1 when small (PV_TRACE_TILE_GZIP_MAX_BYTES; on a big tile gzip
 * would cost more than making it, for a quarter of the bytes), and kept
 * beside the index when its level is a cached one. *out is malloc'd; *gz
 * says whether it is gzip'd. Cannot fail. */
void pv_trace_cache_tile_send(pv_model_store *s, pv_model_entry *entry, pv_trace_hold *hold,
                              uint32_t level, uint64_t index, pv_buf *body, char **out,
                              size_t *len, bool *gz);

#endif
