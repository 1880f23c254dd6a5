/* trace_tile_names: tile-local name numbering shared by the tile writers
 * (JSON and binary): names are listed once per tile and events refer to
 * them by their position in that list. A pv_hashtab from a meta index to
 * its position; the list of metas lives in the caller's arena. */
#ifndef PV_TOOLS_TRACE_TRACE_TILE_NAMES_H
#define PV_TOOLS_TRACE_TRACE_TILE_NAMES_H

#include "util/arena.h"
#include "util/hashtab.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pv__tile_names {
    pv_hashtab index;  /* meta index (pv_hash_u64) -> position */
    uint32_t n;
    uint32_t *order;   /* metas in first-seen order */
} pv__tile_names;

/* Room for n_keys distinct metas (at most the tile's events and the
 * model's metas), made at once so that the table does not grow while
 * the tile's buffer does. pv__tile_names_fini releases the table; order
 * stays in a. */
static inline void pv__tile_names_init(pv__tile_names *nm, size_t n_keys, pv_arena *a)
{
    nm->index = (pv_hashtab){0};
    pv_hashtab_reserve(&nm->index, n_keys);
    nm->order = pv_arena_alloc(a, (n_keys + 1) * sizeof *nm->order);
    nm->n = 0;
}

static inline void pv__tile_names_fini(pv__tile_names *nm)
{
    pv_hashtab_fini(&nm->index);
}

/* The position of meta, numbered on first sight. */
static inline uint32_t pv__tile_names_get(pv__tile_names *nm, uint32_t meta)
{
    uint32_t at = pv_hashtab_u64_add(&nm->index, meta, nm->n);
    if (at == nm->n)
        nm->order[nm->n++] = meta;
    return at;
}

#endif
