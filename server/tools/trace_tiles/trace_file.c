/* trace_file: the trace index as bytes, for the disk cache to keep across
 * restarts (pv_trace_index_write, pv_trace_index_read; the file around them
 * is cache/saved_model.c's). Its arrays are written as they are held,
 * each padded to 8 bytes, so bytes read back into memory that starts on 8
 * bytes are used in place: a read copies nothing, and checks every count
 * and offset against what it has and every event id against the model
 * before anything uses them. Pure. */
#include "tools/trace_tiles/trace_index.h"
#include "tools/trace_tiles/trace_pyramid.h"

#include "util/mem.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Appends n bytes of p, then zeros to the next multiple of 8. Returns 0
 * or the buffer's error. */
static int put(pv_buf *b, const void *p, size_t n)
{
    static const uint8_t zeros[8];
    int rc = n > 0 ? pv_buf_add(b, p, n) : 0;
    if (rc == 0 && n % 8 != 0)
        rc = pv_buf_add(b, zeros, 8 - n % 8);
    return rc;
}

/* The bytes being read: p moves on, end does not. */
typedef struct reader {
    const uint8_t *p, *end;
} reader;

/* The next n elements of size bytes (their padding stepped over): where
 * they start, or NULL when they do not fit in what is left. */
static const void *array(reader *f, uint64_t n, size_t size)
{
    uint64_t left = (uint64_t)(f->end - f->p);
    if (size != 0 && n > left / size)
        return NULL;
    uint64_t bytes = n * size, padded = (bytes + 7) & ~(uint64_t)7;
    const void *at = f->p;
    f->p += padded < left ? padded : left;
    return at;
}

/* ---- the pyramid ------------------------------------------------------------- */

/* Appends p's levels and the blocks' values (their places come from the
 * model) to b. */
static int pyramid_write(const pv_trace_pyramid *p, pv_buf *b)
{
    uint64_t head[3] = {p->n_tracks, p->n_levels, p->blocks.n};
    int rc = put(b, head, sizeof head);
    for (uint32_t l = 0; l < p->n_levels && rc == 0; l++) {
        const plevel *pl = &p->levels[l];
        size_t n_rows = ((size_t)1 << l) * p->n_tracks;
        rc = put(b, pl->ev_off, (n_rows + 1) * sizeof *pl->ev_off);
        if (rc == 0)
            rc = put(b, pl->box_off, (n_rows + 1) * sizeof *pl->box_off);
        if (rc == 0)
            rc = put(b, pl->events, pl->ev_off[n_rows] * sizeof *pl->events);
        if (rc == 0)
            rc = put(b, pl->boxes, pl->box_off[n_rows] * sizeof *pl->boxes);
    }
    const int64_t *values[5] = {p->blocks.start, p->blocks.end, p->blocks.busy,
                                p->blocks.max_dur, p->blocks.max_gap};
    for (int i = 0; i < 5 && rc == 0; i++)
        rc = put(b, values[i], (p->blocks.n + 1) * sizeof(int64_t));
    return rc;
}

/* An offset array of n_rows + 1 entries from 0, never going back. */
static bool offsets_ok(const uint64_t *off, size_t n_rows)
{
    if (off[0] != 0)
        return false;
    for (size_t i = 0; i < n_rows; i++)
        if (off[i + 1] < off[i])
            return false;
    return true;
}

/* Level l's arrays, read in place and checked: offsets that index only
 * what follows them, events of m. */
static bool level_read(const pv_model *m, uint32_t l, reader *f, plevel *pl)
{
    if (l >= 40)
        return false;
    uint64_t n_rows = ((uint64_t)1 << l) * m->n_tracks;
    pl->ev_off = (uint64_t *)array(f, n_rows + 1, sizeof *pl->ev_off);
    pl->box_off = (uint64_t *)array(f, n_rows + 1, sizeof *pl->box_off);
    if (pl->ev_off == NULL || pl->box_off == NULL || !offsets_ok(pl->ev_off, n_rows) ||
        !offsets_ok(pl->box_off, n_rows))
        return false;
    pl->events = (uint64_t *)array(f, pl->ev_off[n_rows], sizeof *pl->events);
    pl->boxes = (pv_trace_box *)array(f, pl->box_off[n_rows], sizeof *pl->boxes);
    if (pl->events == NULL || pl->boxes == NULL)
        return false;
    for (uint64_t i = 0; i < pl->ev_off[n_rows]; i++)
        if (pl->events[i] >= m->n_events)
            return false;
    return true;
}

/* The pyramid pyramid_write wrote for m in geometry g, read from f in
 * place (the bytes outlive it); f moves past it. */
static int pyramid_read(const pv_model *m, const pv_trace_geom *g, reader *f,
                        pv_trace_pyramid **out)
{
    *out = NULL;
    const uint64_t *head = array(f, 3, sizeof *head);
    if (head == NULL || head[0] != m->n_tracks || head[1] == 0 || head[1] > g->max_level + 1u)
        return PV_EFORMAT;
    pv_trace_pyramid *p = pv_xcalloc(1, sizeof *p);
    p->geom = *g;
    p->n_tracks = m->n_tracks;
    p->borrowed = true;
    pv__blocks_layout(m, &p->blocks);
    p->levels = pv_xcalloc(head[1], sizeof *p->levels);
    bool ok = head[2] == p->blocks.n;
    for (uint32_t l = 0; ok && l < head[1]; l++) {
        ok = level_read(m, l, f, &p->levels[l]);
        if (ok)
            p->n_levels = l + 1;
    }
    int64_t **values[5] = {&p->blocks.start, &p->blocks.end, &p->blocks.busy,
                           &p->blocks.max_dur, &p->blocks.max_gap};
    for (int i = 0; i < 5 && ok; i++) {
        *values[i] = (int64_t *)array(f, p->blocks.n + 1, sizeof(int64_t));
        ok = *values[i] != NULL;
    }
    if (!ok) {
        pv_trace_pyramid_free(p);
        return PV_EFORMAT;
    }
    p->bytes = pv__pyramid_bytes(m, p);
    *out = p;
    return 0;
}

/* ---- the index --------------------------------------------------------------- */

/* "PVTRIDX" and the layout's number: a new layout is a new number. */
#define FILE_MAGIC 0x5856444952545650ull
#define FILE_LAYOUT 1u

static int write_u64s(pv_buf *b, const uint64_t *v, size_t n)
{
    return put(b, v, n * sizeof *v);
}

int pv_trace_index_write(const pv_trace_index *ix, const pv_model *m, pv_buf *b)
{
    uint64_t head[9] = {FILE_MAGIC, FILE_LAYOUT, m->n_events, m->n_tracks, m->n_metas,
                        m->n_strings, (uint64_t)ix->geom.t0_ps, (uint64_t)ix->geom.span_ps,
                        ix->geom.max_level};
    int rc = write_u64s(b, head, 9);
    if (rc == 0)
        rc = pyramid_write(ix->pyramid, b);
    uint64_t derived = ix->derived_pyramid != NULL;
    if (rc == 0)
        rc = write_u64s(b, &derived, 1);
    if (rc == 0 && derived)
        rc = pyramid_write(ix->derived_pyramid, b);
    const pv_trace_step_names *st = &ix->steps;
    uint64_t n_steps = st->n;
    if (rc == 0)
        rc = write_u64s(b, &n_steps, 1);
    if (rc == 0)
        rc = put(b, st->ev, st->n * sizeof *st->ev);
    if (rc == 0)
        rc = put(b, st->name, st->n * sizeof *st->name);
    if (rc == 0)
        rc = put(b, st->meta_has, (size_t)m->n_metas + 1);
    uint64_t n_counters = ix->n_counters;
    if (rc == 0)
        rc = write_u64s(b, &n_counters, 1);
    for (size_t c = 0; c < ix->n_counters && rc == 0; c++) {
        const pv_trace_counter *pc = &ix->counters[c];
        uint64_t ch[3] = {pc->plane, pc->n_points, strlen(pc->name)};
        double range[2] = {pc->min, pc->max};
        rc = write_u64s(b, ch, 3);
        if (rc == 0)
            rc = put(b, pc->name, (size_t)ch[2] + 1);
        if (rc == 0)
            rc = put(b, pc->t_ps, pc->n_points * sizeof *pc->t_ps);
        if (rc == 0)
            rc = put(b, pc->value, pc->n_points * sizeof *pc->value);
        if (rc == 0)
            rc = put(b, range, sizeof range);
    }
    uint64_t n_links[2] = {ix->n_corr, ix->n_flows};
    if (rc == 0)
        rc = write_u64s(b, n_links, 2);
    if (rc == 0)
        rc = put(b, ix->corr, ix->n_corr * sizeof *ix->corr);
    if (rc == 0)
        rc = put(b, ix->flows, ix->n_flows * sizeof *ix->flows);
    return rc;
}

/* Links sorted by (key, ev), each of an event of m. */
static bool links_ok(const pv_trace_link *l, size_t n, const pv_model *m)
{
    for (size_t i = 0; i < n; i++) {
        if (l[i].ev >= m->n_events)
            return false;
        if (i > 0 && (l[i].key < l[i - 1].key ||
                      (l[i].key == l[i - 1].key && l[i].ev < l[i - 1].ev)))
            return false;
    }
    return true;
}

static bool steps_read(const pv_model *m, reader *f, pv_trace_step_names *st)
{
    const uint64_t *n = array(f, 1, sizeof *n);
    if (n == NULL)
        return false;
    st->n = (size_t)*n;
    st->ev = (uint64_t *)array(f, *n, sizeof *st->ev);
    st->name = (uint32_t *)array(f, *n, sizeof *st->name);
    st->meta_has = (uint8_t *)array(f, (uint64_t)m->n_metas + 1, 1);
    if (st->ev == NULL || st->name == NULL || st->meta_has == NULL)
        return false;
    for (size_t i = 0; i < st->n; i++)
        if (st->ev[i] >= m->n_events || (i > 0 && st->ev[i] < st->ev[i - 1]) ||
            st->name[i] >= m->n_strings)
            return false;
    return true;
}

static bool counters_read(const pv_model *m, reader *f, pv_trace_index *ix)
{
    const uint64_t *n = array(f, 1, sizeof *n);
    /* each counter takes 48 bytes at least */
    if (n == NULL || *n > (uint64_t)(f->end - f->p) / 48)
        return false;
    ix->counters = pv_xcalloc(*n + 1, sizeof *ix->counters);
    for (uint64_t c = 0; c < *n; c++) {
        const uint64_t *ch = array(f, 3, sizeof *ch);
        if (ch == NULL || ch[0] >= m->n_planes || ch[2] == UINT64_MAX)
            return false;
        pv_trace_counter *pc = &ix->counters[c];
        ix->n_counters = c + 1;
        pc->plane = (uint32_t)ch[0];
        pc->n_points = (size_t)ch[1];
        pc->name = (char *)array(f, ch[2] + 1, 1);
        pc->t_ps = (int64_t *)array(f, ch[1], sizeof *pc->t_ps);
        pc->value = (double *)array(f, ch[1], sizeof *pc->value);
        const double *range = array(f, 2, sizeof *range);
        if (pc->name == NULL || pc->t_ps == NULL || pc->value == NULL || range == NULL ||
            pc->name[ch[2]] != '\0' || strlen(pc->name) != ch[2])
            return false;
        for (size_t i = 1; i < pc->n_points; i++)
            if (pc->t_ps[i] < pc->t_ps[i - 1])
                return false;
        pc->min = range[0];
        pc->max = range[1];
    }
    return true;
}

int pv_trace_index_read(const pv_model *m, uint8_t *data, size_t len, pv_trace_index **out,
                        pv_error *err)
{
    *out = NULL;
    pv_trace_index *ix = pv_xcalloc(1, sizeof *ix);
    ix->block = data;
    ix->geom = pv_trace_geom_of(m);
    reader f = {data, data + len};
    const uint64_t *head = array(&f, 9, sizeof *head);
    bool ok = head != NULL && head[0] == FILE_MAGIC && head[1] == FILE_LAYOUT &&
              head[2] == m->n_events && head[3] == m->n_tracks && head[4] == m->n_metas &&
              head[5] == m->n_strings && (int64_t)head[6] == ix->geom.t0_ps &&
              (int64_t)head[7] == ix->geom.span_ps && head[8] == ix->geom.max_level;
    ok = ok && pyramid_read(m, &ix->geom, &f, &ix->pyramid) == 0;
    ok = ok && pv_trace_derived_lines_get(m, &ix->derived, NULL) == 0;
    const uint64_t *derived = ok ? array(&f, 1, sizeof *derived) : NULL;
    ok = derived != NULL && *derived == (ix->derived.lines != NULL);
    if (ok && *derived)
        ok = pyramid_read(ix->derived.lines, &ix->geom, &f, &ix->derived_pyramid) == 0;
    ok = ok && steps_read(m, &f, &ix->steps) && counters_read(m, &f, ix);
    const uint64_t *n_links = ok ? array(&f, 2, sizeof *n_links) : NULL;
    if (n_links != NULL) {
        ix->corr = (pv_trace_link *)array(&f, n_links[0], sizeof *ix->corr);
        ix->flows = (pv_trace_link *)array(&f, n_links[1], sizeof *ix->flows);
        ix->n_corr = (size_t)n_links[0];
        ix->n_flows = (size_t)n_links[1];
    }
    ok = n_links != NULL && ix->corr != NULL && ix->flows != NULL && f.p == f.end &&
         links_ok(ix->corr, ix->n_corr, m) && links_ok(ix->flows, ix->n_flows, m);
    if (!ok) {
        /* what was read in place is not freed one by one */
        pv_trace_index_free(ix);
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "a saved trace index does not fit this profile's model");
    }
    const pv_model *lines = ix->derived.lines;
    ix->bytes = sizeof *ix + len + (ix->n_counters + 1) * sizeof *ix->counters +
                (lines != NULL ? lines->mem_bytes : 0) + ix->derived.owned_len;
    *out = ix;
    return 0;
}
