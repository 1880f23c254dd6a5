/* idtab (shared inside ingest/ only, hence pv__): the decoder's lookup
 * from a file's int64 metadata ids to our indices. Producers number
 * metadata 1, 2, 3, ... so a dense array
 * answers almost every lookup with one load; ids far outside the dense
 * range go to a sorted side array. Later puts of an id win, like a
 * protobuf map. Owned by one decoder, reset per plane. */
#ifndef PV_INGEST_XSPACE_IDTAB_H
#define PV_INGEST_XSPACE_IDTAB_H

#include "util/bsearch.h"

#include <stddef.h>
#include <stdint.h>

#define PV_IDTAB_NONE UINT32_MAX

typedef struct pv__idtab_entry {
    int64_t id;
    uint32_t val;
    uint32_t seq;           /* insertion order, so the last put wins */
} pv__idtab_entry;

typedef struct pv__idtab {
    pv__idtab_entry *entries;  /* puts since reset */
    size_t n, cap;
    uint32_t *dense;          /* dense[id] for 0 <= id < n_dense */
    size_t n_dense, cap_dense;
    pv__idtab_entry *sparse;   /* the rest, sorted by id, unique */
    size_t n_sparse;
} pv__idtab;

void pv__idtab_init(pv__idtab *t);
void pv__idtab_fini(pv__idtab *t);
/* Forgets every id; keeps the storage. */
void pv__idtab_reset(pv__idtab *t);
void pv__idtab_put(pv__idtab *t, int64_t id, uint32_t val);
/* Builds the lookup structures from the puts. Call before pv__idtab_get. */
void pv__idtab_seal(pv__idtab *t);
/* The value for id, or PV_IDTAB_NONE. */
static inline uint32_t pv__idtab_get(const pv__idtab *t, int64_t id)
{
    if (id >= 0 && (uint64_t)id < t->n_dense)
        return t->dense[id];
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, t->n_sparse, i, t->sparse[i].id < id);
    return lo < t->n_sparse && t->sparse[lo].id == id ? t->sparse[lo].val : PV_IDTAB_NONE;
}

#endif
