/* trace_tile_bin: a tile in the binary encoding (docs/trace_api.md,
 * "Binary tiles"). The JSON form spends most of its bytes on 13-digit
 * picosecond times, and gzip on a megabyte of digits costs more than
 * cutting the tile: here each column is a run of varints, times as
 * differences from the previous value of the same column, so a typical
 * event takes about ten bytes before compression. */
#include "tools/trace_bin.h"
#include "tools/trace_tile_names.h"
#include "tools/trace_tiles.h"

#include <string.h>

static const unsigned char magic[4] = {'P', 'V', 'T', '1'};

static void write_events(pv__bw *w, const pv_model *m, const pv_trace_row *row,
                         int64_t tile_start_ps, pv__tile_names *nm)
{
    const uint64_t *ev = row->events;
    size_t n = row->n_events;
    int64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        pv__bw_sv(w, (int64_t)(ev[i] - (uint64_t)prev));
        prev = (int64_t)ev[i];
    }
    prev = tile_start_ps;
    for (size_t i = 0; i < n; i++) {
        int64_t s = m->ev_start_ps[ev[i]];
        pv__bw_sv(w, s - prev);
        prev = s;
    }
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, (uint64_t)m->ev_dur_ps[ev[i]]);
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, m->ev_depth[ev[i]]);
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, pv__tile_names_get(nm, m->ev_meta[ev[i]]));
}

static void write_boxes(pv__bw *w, const pv_trace_row *row, int64_t tile_start_ps)
{
    const pv_trace_box *bx = row->boxes;
    size_t n = row->n_boxes;
    int64_t prev = tile_start_ps;
    for (size_t i = 0; i < n; i++) {
        pv__bw_sv(w, bx[i].start_ps - prev);
        prev = bx[i].start_ps;
    }
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, (uint64_t)(bx[i].end_ps - bx[i].start_ps));
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, bx[i].depth);
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, bx[i].count);
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, (uint64_t)bx[i].busy_ps);
}

int pv_trace_tile_write_bin(const pv_model *m, const pv_trace_geom *g, const pv_trace_tile *t,
                            const void *counters, size_t counters_len, pv_arena *a, pv_buf *b)
{
    pv__bw w;
    pv__bw_init(&w, b);
    size_t n_ev = 0;
    for (size_t r = 0; r < t->n_rows; r++)
        n_ev += t->rows[r].n_events;
    pv__tile_names nm;
    pv__tile_names_init(&nm, n_ev, a);

    pv__bw_raw(&w, magic, sizeof magic);
    pv__bw_uv(&w, t->level);
    pv__bw_uv(&w, t->index);
    pv__bw_uv(&w, (uint64_t)(t->start_ps - g->t0_ps));
    pv__bw_uv(&w, (uint64_t)(t->end_ps - t->start_ps));
    pv__bw_uv(&w, t->n_rows);
    for (size_t r = 0; r < t->n_rows; r++) {
        const pv_trace_row *row = &t->rows[r];
        pv__bw_uv(&w, row->track);
        pv__bw_uv(&w, row->n_events);
        pv__bw_uv(&w, row->n_boxes);
        write_events(&w, m, row, t->start_ps, &nm);
        write_boxes(&w, row, t->start_ps);
    }
    /* Names last: they are known only once every event was numbered. One
     * NUL-separated UTF-8 run (model strings hold no NUL), so the browser
     * decodes them with one TextDecoder call. */
    pv__bw_uv(&w, nm.n);
    size_t bytes = 0;
    for (uint32_t i = 0; i < nm.n; i++) {
        const pv_event_meta *meta = &m->metas[nm.order[i]];
        bytes += strlen(pv_model_str(m, meta->display_name ? meta->display_name : meta->name));
    }
    pv__bw_uv(&w, bytes + (nm.n > 0 ? nm.n - 1 : 0));
    for (uint32_t i = 0; i < nm.n; i++) {
        const pv_event_meta *meta = &m->metas[nm.order[i]];
        const char *s = pv_model_str(m, meta->display_name ? meta->display_name : meta->name);
        if (i > 0)
            pv__bw_raw(&w, "", 1);
        pv__bw_raw(&w, s, strlen(s));
    }
    if (counters != NULL)
        pv__bw_raw(&w, counters, counters_len);
    else
        pv__bw_uv(&w, 0);
    return pv__bw_flush(&w);
}
