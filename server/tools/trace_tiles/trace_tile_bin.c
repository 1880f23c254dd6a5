/* trace_tile_bin: a tile in the binary encoding (docs/trace_api.md,
 * "Binary tiles"). The JSON form spends most of its bytes on 13-digit
 * picosecond times, and gzip on a megabyte of digits costs more than
 * cutting the tile: here each column is a run of varints, times as
 * differences from the previous value of the same column and in the
 * tile's time unit (1000 ps when every time is whole nanoseconds, as in
 * most profiles), so a typical event takes under ten bytes, and a big
 * tile is sent without compressing it. */
#include "tools/trace_tiles/trace_bin.h"
#include "tools/trace_tiles/trace_tile_names.h"
#include "tools/trace_tiles/trace_tiles.h"

#include <string.h>

static const unsigned char magic[4] = {'P', 'V', 'T', '1'};

#define UNIT_MAX_PS 1000000   /* a microsecond */

/* The largest power of ten up to UNIT_MAX_PS dividing v, at most unit. */
static int64_t unit_of(int64_t v, int64_t unit)
{
    while (unit > 1 && v % unit != 0)
        unit /= 10;
    return unit;
}

/* The time unit of the tile: the largest power of ten up to a microsecond
 * that divides every time its tracks section writes (starts relative to
 * t0, durations, box lengths and busy times). */
static int64_t tile_unit(const pv_trace_geom *g, const pv_trace_tile *t)
{
    int64_t unit = UNIT_MAX_PS;
    for (size_t r = 0; r < t->n_rows && unit > 1; r++) {
        const pv_trace_row *row = &t->rows[r];
        const pv_model *m = row->model;
        for (size_t i = 0; i < row->n_events && unit > 1; i++) {
            uint64_t e = row->events[i];
            unit = unit_of(m->ev_start_ps[e] - g->t0_ps, unit_of(m->ev_dur_ps[e], unit));
        }
        for (size_t i = 0; i < row->n_boxes && unit > 1; i++) {
            const pv_trace_box *bx = &row->boxes[i];
            unit = unit_of(bx->start_ps - g->t0_ps, unit_of(bx->end_ps - bx->start_ps, unit));
            unit = unit_of(bx->busy_ps, unit);
        }
    }
    return unit;
}

/* Times are written relative to t0 and divided by unit; base is the
 * tile's start rounded down to a multiple of unit, relative to t0. */
static void write_events(pv__bw *w, const pv_trace_tile *t, const pv_trace_row *row,
                         int64_t t0_ps, int64_t base, int64_t unit, pv__tile_names *nm)
{
    const pv_model *m = row->model;
    const uint64_t *ev = row->events;
    size_t n = row->n_events;
    int64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t id = (int64_t)(ev[i] + row->event_base);
        pv__bw_sv(w, id - prev);
        prev = id;
    }
    prev = base / unit;
    for (size_t i = 0; i < n; i++) {
        int64_t s = (m->ev_start_ps[ev[i]] - t0_ps) / unit;
        pv__bw_sv(w, s - prev);
        prev = s;
    }
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, (uint64_t)(m->ev_dur_ps[ev[i]] / unit));
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, m->ev_depth[ev[i]]);
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, pv__tile_names_get(nm, pv__tile_event_name(t, row, ev[i])));
}

static void write_boxes(pv__bw *w, const pv_trace_row *row, int64_t t0_ps, int64_t base,
                        int64_t unit)
{
    const pv_trace_box *bx = row->boxes;
    size_t n = row->n_boxes;
    int64_t prev = base / unit;
    for (size_t i = 0; i < n; i++) {
        int64_t s = (bx[i].start_ps - t0_ps) / unit;
        pv__bw_sv(w, s - prev);
        prev = s;
    }
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, (uint64_t)((bx[i].end_ps - bx[i].start_ps) / unit));
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, bx[i].depth);
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, bx[i].count);
    for (size_t i = 0; i < n; i++)
        pv__bw_uv(w, (uint64_t)(bx[i].busy_ps / unit));
}

int pv_trace_tile_write_bin(const pv_model *m, const pv_trace_geom *g, const pv_trace_tile *t,
                            const void *counters, size_t counters_len, pv_arena *a, pv_buf *b)
{
    pv__bw w;
    pv__bw_init(&w, b);
    (void)m;
    pv__tile_names nm;
    pv__tile_names_init(&nm, t, a);

    pv__bw_raw(&w, magic, sizeof magic);
    pv__bw_uv(&w, t->level);
    pv__bw_uv(&w, t->index);
    pv__bw_uv(&w, (uint64_t)(t->start_ps - g->t0_ps));
    pv__bw_uv(&w, (uint64_t)(t->end_ps - t->start_ps));
    int64_t unit = tile_unit(g, t);
    int64_t base = (t->start_ps - g->t0_ps) / unit * unit;
    pv__bw_uv(&w, (uint64_t)unit);
    pv__bw_uv(&w, t->n_rows);
    for (size_t r = 0; r < t->n_rows; r++) {
        const pv_trace_row *row = &t->rows[r];
        pv__bw_uv(&w, row->track);
        pv__bw_uv(&w, row->n_events);
        pv__bw_uv(&w, row->n_boxes);
        write_events(&w, t, row, g->t0_ps, base, unit, &nm);
        write_boxes(&w, row, g->t0_ps, base, unit);
    }
    /* Names last: they are known only once every event was numbered. One
     * NUL-separated UTF-8 run (model strings hold no NUL), so the browser
     * decodes them with one TextDecoder call. */
    pv__bw_uv(&w, nm.n);
    size_t bytes = 0;
    for (uint32_t i = 0; i < nm.n; i++)
        bytes += strlen(nm.order[i]);
    pv__bw_uv(&w, bytes + (nm.n > 0 ? nm.n - 1 : 0));
    for (uint32_t i = 0; i < nm.n; i++) {
        const char *s = nm.order[i];
        if (i > 0)
            pv__bw_raw(&w, "", 1);
        pv__bw_raw(&w, s, strlen(s));
    }
    pv__tile_names_fini(&nm);
    if (counters != NULL)
        pv__bw_raw(&w, counters, counters_len);
    else
        pv__bw_uv(&w, 0);
    return pv__bw_flush(&w);
}
