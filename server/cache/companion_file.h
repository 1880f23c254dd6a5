/* companion_file (shared inside cache/ only, hence pv__): a model's
 * companion (the trace index) kept in the disk cache, so that after a
 * restart it is read back instead of built again (seconds of CPU for a
 * big profile, beside the first requests). The companion writes and reads
 * its own bytes (pv_model_companion's save and load, both pure); this
 * file is their file: written as they come, with a CRC-32 and the length
 * after them, read whole and checked before load sees a byte. */
#ifndef PV_CACHE_COMPANION_FILE_H
#define PV_CACHE_COMPANION_FILE_H

#include "cache/disk.h"
#include "cache/store.h"

/* Reads back the companion c saved for src's model and hands it to
 * c->load for m. Returns 0 with *out and *bytes, or PV_ENOTFOUND when none
 * is saved or what is saved does not read (then removed, logged). The key
 * names the source as the saved model's does (store.h, pv_source_rel_path). */
int pv__companion_load(pv_disk_cache *d, const pv_model_companion *c, const pv_source *src,
                       const pv_model *m, void **out, size_t *bytes);

/* Saves companion (of m, src's model) through c->save. Failures are
 * logged; the server carries on without the saved copy. */
void pv__companion_save(pv_disk_cache *d, const pv_model_companion *c, const pv_source *src,
                        const pv_model *m, const void *companion);

#endif
