/* trace_tile_json: a tile as compact JSON (docs/trace_api.md). Times are
 * written relative to the profile's t0 so they stay exact as doubles;
 * names are listed once per tile and referenced by index. */
#include "tools/trace_json.h"
#include "tools/trace_tiles.h"

#include <string.h>

/* Tile-local name numbering: an open-addressing map from meta index to
 * the position in "names". */
typedef struct name_map {
    uint32_t *key;     /* meta index + 1; 0 = empty slot */
    uint32_t *val;
    size_t mask;
    uint32_t n;
    uint32_t *order;   /* metas in first-seen order */
} name_map;

static void map_init(name_map *nm, size_t n_keys, pv_arena *a)
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

static uint32_t map_get(name_map *nm, uint32_t meta)
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

int pv_trace_tile_write_json(const pv_model *m, const pv_trace_geom *g, const pv_trace_tile *t,
                             const char *counters_json, pv_arena *a, pv_buf *b)
{
    pv__jw w;
    pv__jw_init(&w, b);
    size_t n_ev = 0;
    for (size_t r = 0; r < t->n_rows; r++)
        n_ev += t->rows[r].n_events;
    name_map nm;
    map_init(&nm, n_ev, a);

    pv__jw_lit(&w, "{\"level\":");
    pv__jw_u64(&w, t->level);
    pv__jw_lit(&w, ",\"index\":");
    pv__jw_u64(&w, t->index);
    pv__jw_lit(&w, ",\"start_ps\":");
    pv__jw_i64(&w, t->start_ps - g->t0_ps);
    pv__jw_lit(&w, ",\"end_ps\":");
    pv__jw_i64(&w, t->end_ps - g->t0_ps);
    pv__jw_lit(&w, ",\"tracks\":[");
    for (size_t r = 0; r < t->n_rows; r++) {
        const pv_trace_row *row = &t->rows[r];
        pv__jw_lit(&w, r ? ",{\"track\":" : "{\"track\":");
        pv__jw_u64(&w, row->track);
        pv__jw_lit(&w, ",\"events\":[");
        for (size_t i = 0; i < row->n_events; i++) {
            uint64_t e = row->events[i];
            int64_t v[5] = {(int64_t)e, m->ev_start_ps[e] - g->t0_ps, m->ev_dur_ps[e],
                            (int64_t)m->ev_depth[e], (int64_t)map_get(&nm, m->ev_meta[e])};
            pv__jw_int_tuple(&w, i > 0, v, 5);
        }
        pv__jw_lit(&w, "],\"boxes\":[");
        for (size_t i = 0; i < row->n_boxes; i++) {
            const pv_trace_box *bx = &row->boxes[i];
            int64_t v[5] = {bx->start_ps - g->t0_ps, bx->end_ps - g->t0_ps, (int64_t)bx->depth,
                            (int64_t)bx->count, bx->busy_ps};
            pv__jw_int_tuple(&w, i > 0, v, 5);
        }
        pv__jw_lit(&w, "]}");
    }
    pv__jw_lit(&w, "],\"names\":[");
    for (uint32_t i = 0; i < nm.n; i++) {
        const pv_event_meta *meta = &m->metas[nm.order[i]];
        if (i)
            pv__jw_raw(&w, ",", 1);
        pv__jw_str(&w, pv_model_str(m, meta->display_name ? meta->display_name : meta->name));
    }
    pv__jw_lit(&w, "],\"counters\":");
    pv__jw_lit(&w, counters_json != NULL ? counters_json : "[]");
    pv__jw_lit(&w, "}");
    return pv__jw_flush(&w);
}
