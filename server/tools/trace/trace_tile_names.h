/* trace_tile_names: tile-local name numbering shared by the tile writers
 * (JSON and binary): names are listed once per tile and events refer to
 * them by their position in that list. An open-addressing map from a meta
 * index to its position; storage lives in the caller's arena. */
#ifndef PV_TOOLS_TRACE_TRACE_TILE_NAMES_H
#define PV_TOOLS_TRACE_TRACE_TILE_NAMES_H

#include "util/arena.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pv__tile_names {
    uint32_t *key;     /* meta index + 1; 0 = empty slot */
    uint32_t *val;
    size_t mask;
    uint32_t n;
    uint32_t *order;   /* metas in first-seen order */
} pv__tile_names;

/* Room for n_keys distinct metas. */
static inline void pv__tile_names_init(pv__tile_names *nm, size_t n_keys, pv_arena *a)
{
    size_t cap = 16;
    while (cap < 2 * n_keys)
        cap *= 2;
    nm->key = pv_arena_zalloc(a, cap * sizeof *nm->key);
    nm->val = pv_arena_alloc(a, cap * sizeof *nm->val);
    nm->order = pv_arena_alloc(a, (n_keys + 1) * sizeof *nm->order);
    nm->mask = cap - 1;
    nm->n = 0;
}

/* The position of meta, numbered on first sight. */
static inline uint32_t pv__tile_names_get(pv__tile_names *nm, uint32_t meta)
{
    size_t h = (size_t)(meta * 2654435761u) & nm->mask;
    while (nm->key[h] != 0) {
        if (nm->key[h] == meta + 1)
            return nm->val[h];
        h = (h + 1) & nm->mask;
    }
    nm->key[h] = meta + 1;
    nm->val[h] = nm->n;
    nm->order[nm->n] = meta;
    return nm->n++;
}

#endif
