/* saved_model (shared inside cache/ only, hence pv__): what the disk
 * cache keeps of a loaded model, so that after a restart it is read back
 * instead of made again.
 *
 * The model itself (model/serialize.h): a `.pvm` entry.
 *
 * Its memos (model/memo.h): one cache entry holding them all.
 *
 * Its companion (the trace index: seconds of CPU for a big profile,
 * beside the first requests). The companion writes and reads its own
 * bytes (pv_model_companion's save and load, both pure); this is their
 * file: written as they come, with a CRC-32 and the length after them,
 * read whole and checked before load sees a byte. */
#ifndef PV_CACHE_SAVED_MODEL_H
#define PV_CACHE_SAVED_MODEL_H

#include "cache/disk.h"
#include "cache/store.h"

/* The path of src's saved model (free() it), or NULL when none is saved
 * or d is NULL (no cache). */
char *pv__model_saved_path(pv_disk_cache *d, const pv_source *src);
/* Reads src's saved model into *m when there is one that passes its
 * checks: 0, or PV_ENOTFOUND (an unusable one is removed, logged). */
int pv__model_load_saved(pv_disk_cache *d, const pv_source *src, pv_model **m);
/* Saves m, src's model, through a temporary the cache made, so a link
 * planted in the folder is never written through and a reader never sees
 * half a model; each piece after a wait for quiet (may be NULL:
 * util/quiet.h). Failures are logged. */
void pv__model_save(pv_disk_cache *d, const pv_source *src, const pv_model *m,
                    struct pv_quiet *quiet);

/* Saves the first n memos of m (held by the caller), src's model, for the
 * next start. d may be NULL (no cache). */
void pv__memos_save(pv_disk_cache *d, const pv_source *src, const pv_model *m, size_t n);
/* Gives m the memos saved for src, when the disk cache
 * has them (made from a model of the same file by this build); returns
 * how many m holds then. An entry that does not parse is left alone: its
 * checksum held, so only another layout could make it so, and the memos
 * are then made again. Only before m is shared. */
size_t pv__memos_load(pv_disk_cache *d, const pv_source *src, pv_model *m);

/* Reads back the companion c saved for src's model and hands it to
 * c->load for m. Returns 0 with *out and *bytes, or PV_ENOTFOUND when none
 * is saved or what is saved does not read (then removed, logged). The key
 * names the source by its identity, as the saved model's does. */
int pv__companion_load(pv_disk_cache *d, const pv_model_companion *c, const pv_source *src,
                       const pv_model *m, void **out, size_t *bytes);

/* Saves companion (of m, src's model) through c->save, each piece written
 * after a wait for quiet (may be NULL: util/quiet.h). Failures are
 * logged; the server carries on without the saved copy. */
void pv__companion_save(pv_disk_cache *d, const pv_model_companion *c, const pv_source *src,
                        const pv_model *m, const void *companion, struct pv_quiet *quiet);

#endif
