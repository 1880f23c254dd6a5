/* trace_tile_names: tile-local name numbering shared by the tile writers
 * (JSON and binary): names are listed once per tile and events refer to
 * them by their position in that list. A pv_hashtab from a name (the
 * address of a model's interned string: the rows of one tile may come
 * from several models, trace_index.h) to its position; the list of names
 * lives in the caller's arena. */
#ifndef PV_TOOLS_TRACE_TILES_TRACE_TILE_NAMES_H
#define PV_TOOLS_TRACE_TILES_TRACE_TILE_NAMES_H

#include "tools/trace_derived/trace_step_names.h"
#include "tools/trace_tiles/trace_tiles.h"
#include "util/arena.h"
#include "util/hashtab.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pv__tile_names {
    pv_hashtab index;    /* name address (pv_hash_u64) -> position */
    uint32_t n;
    const char **order;  /* names in first-seen order */
} pv__tile_names;

/* Room for n_keys distinct names (at most the tile's events and the
 * names its models can show), made at once so that the table does not
 * grow while the tile's buffer does. pv__tile_names_fini releases the
 * table; order stays in a. */
static inline void pv__tile_names_init(pv__tile_names *nm, const pv_trace_tile *t, pv_arena *a)
{
    size_t n_ev = 0;
    for (size_t r = 0; r < t->n_rows; r++)
        n_ev += t->rows[r].n_events;
    size_t n_keys = n_ev < t->max_names ? n_ev : t->max_names;
    nm->index = (pv_hashtab){0};
    pv_hashtab_reserve(&nm->index, n_keys);
    nm->order = pv_arena_alloc(a, (n_keys + 1) * sizeof *nm->order);
    nm->n = 0;
}

static inline void pv__tile_names_fini(pv__tile_names *nm)
{
    pv_hashtab_fini(&nm->index);
}

/* The name event e of row is shown by: a step's name for the renamed
 * events of the tile's `named` model (trace_step_names.h), else its
 * display name, else its name. */
static inline const char *pv__tile_event_name(const pv_trace_tile *t, const pv_trace_row *row,
                                              uint64_t e)
{
    const pv_model *m = row->model;
    if (m == t->named) {
        uint32_t sn = pv_trace_step_name_of(t->steps, m, e);
        if (sn != 0)
            return pv_model_str(m, sn);
    }
    const pv_event_meta *meta = &m->metas[m->ev_meta[e]];
    return pv_model_str(m, meta->display_name ? meta->display_name : meta->name);
}

/* The position of name, numbered on first sight. */
static inline uint32_t pv__tile_names_get(pv__tile_names *nm, const char *name)
{
    uint32_t at = pv_hashtab_u64_add(&nm->index, (uint64_t)(uintptr_t)name, nm->n);
    if (at == nm->n)
        nm->order[nm->n++] = name;
    return at;
}

#endif
