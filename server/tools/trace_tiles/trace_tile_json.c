/* trace_tile_json: a tile as compact JSON (docs/trace_api.md). Times are
 * written relative to the profile's t0 so they stay exact as doubles;
 * names are listed once per tile and referenced by index
 * (trace_tile_names.h). The browser reads the binary form
 * (trace_tile_bin.c); this one is for scripts and debugging. */
#include "tools/common/json_stream.h"
#include "tools/trace_tiles/trace_tile_names.h"
#include "tools/trace_tiles/trace_tiles.h"

#include <string.h>

int pv_trace_tile_write_json(const pv_model *m, const pv_trace_geom *g, const pv_trace_tile *t,
                             const char *counters_json, pv_arena *a, pv_buf *b)
{
    pv__jw w;
    pv__jw_init(&w, b);
    (void)m;
    pv__tile_names nm;
    pv__tile_names_init(&nm, t, a);

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
        const pv_model *rm = row->model;
        for (size_t i = 0; i < row->n_events; i++) {
            uint64_t e = row->events[i];
            uint32_t name = pv__tile_names_get(&nm, pv__tile_event_name(t, row, e));
            int64_t v[5] = {(int64_t)(e + row->event_base), rm->ev_start_ps[e] - g->t0_ps,
                            rm->ev_dur_ps[e], (int64_t)rm->ev_depth[e], (int64_t)name};
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
        if (i)
            pv__jw_raw(&w, ",", 1);
        pv__jw_str(&w, nm.order[i]);
    }
    pv__tile_names_fini(&nm);
    pv__jw_lit(&w, "],\"counters\":");
    pv__jw_lit(&w, counters_json != NULL ? counters_json : "[]");
    pv__jw_lit(&w, "}");
    return pv__jw_flush(&w);
}
