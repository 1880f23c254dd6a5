/* tile_decode: see tile_decode.h. */
#include "tile_decode.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

typedef struct rd {
    const unsigned char *p, *end;
    int bad;
} rd;

static uint64_t uv(rd *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        unsigned char b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80)
            return v;
    }
    r->bad = 1;
    return 0;
}

static int64_t sv(rd *r)
{
    uint64_t u = uv(r);
    return (u & 1) ? -(int64_t)(u >> 1) - 1 : (int64_t)(u >> 1);
}

static double f64(rd *r)
{
    if (r->end - r->p < 8) {
        r->bad = 1;
        return 0;
    }
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* A counter value as the JSON form writes it: whole numbers as integers,
 * NaN and infinities as strings. */
static json_t *value_json(double v)
{
    if (isnan(v))
        return json_string("NaN");
    if (isinf(v))
        return json_string(v > 0 ? "Infinity" : "-Infinity");
    if (v == floor(v) && fabs(v) <= 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

/* One column of n values into col[i * 5 + c]: zigzag deltas from base
 * (delta), else varints; times by unit, plus the row's column 0 when add0. */
static void column(rd *r, int64_t *col, size_t n, size_t c, int delta, int64_t base,
                   int64_t unit, int add0)
{
    int64_t prev = base;
    for (size_t i = 0; i < n; i++) {
        int64_t x;
        if (delta) {
            prev += sv(r);
            x = prev * unit;
        } else {
            x = (int64_t)uv(r) * unit + (add0 ? col[i * 5] : 0);
        }
        col[i * 5 + c] = x;
    }
}

static json_t *rows_json(const int64_t *col, size_t n)
{
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *row = json_array();
        for (size_t c = 0; c < 5; c++)
            json_array_append_new(row, json_integer(col[i * 5 + c]));
        json_array_append_new(out, row);
    }
    return out;
}

json_t *pv_test_tile_from_bin(const unsigned char *buf, size_t len)
{
    rd r = {buf, buf + len, 0};
    if (len < 4 || memcmp(buf, "PVT1", 4) != 0)
        return NULL;
    r.p += 4;
    json_t *t = json_object();
    json_object_set_new(t, "level", json_integer((json_int_t)uv(&r)));
    json_object_set_new(t, "index", json_integer((json_int_t)uv(&r)));
    int64_t start = (int64_t)uv(&r);
    json_object_set_new(t, "start_ps", json_integer(start));
    json_object_set_new(t, "end_ps", json_integer(start + (int64_t)uv(&r)));
    int64_t unit = (int64_t)uv(&r);
    if (unit < 1 || r.bad) {
        json_decref(t);
        return NULL;
    }
    int64_t base = start / unit;   /* in units: the start rounded down */
    json_t *tracks = json_array();
    json_object_set_new(t, "tracks", tracks);
    uint64_t n_tracks = uv(&r);
    for (uint64_t k = 0; k < n_tracks && !r.bad; k++) {
        json_t *tr = json_object();
        json_array_append_new(tracks, tr);
        json_object_set_new(tr, "track", json_integer((json_int_t)uv(&r)));
        size_t n_ev = (size_t)uv(&r), n_box = (size_t)uv(&r);
        if (n_ev > len || n_box > len) {
            r.bad = 1;
            break;
        }
        int64_t *col = calloc(5 * (n_ev > n_box ? n_ev : n_box) + 1, sizeof *col);
        /* events [id, start, dur, depth, name]: ids as deltas from 0,
         * starts as deltas from base, times in units */
        column(&r, col, n_ev, 0, 1, 0, 1, 0);
        column(&r, col, n_ev, 1, 1, base, unit, 0);
        column(&r, col, n_ev, 2, 0, 0, unit, 0);
        column(&r, col, n_ev, 3, 0, 0, 1, 0);
        column(&r, col, n_ev, 4, 0, 0, 1, 0);
        json_object_set_new(tr, "events", rows_json(col, n_ev));
        /* boxes [start, end, depth, count, busy]: end sent as end - start */
        column(&r, col, n_box, 0, 1, base, unit, 0);
        column(&r, col, n_box, 1, 0, 0, unit, 1);
        column(&r, col, n_box, 2, 0, 0, 1, 0);
        column(&r, col, n_box, 3, 0, 0, 1, 0);
        column(&r, col, n_box, 4, 0, 0, unit, 0);
        json_object_set_new(tr, "boxes", rows_json(col, n_box));
        free(col);
    }
    json_t *names = json_array();
    json_object_set_new(t, "names", names);
    uint64_t n_names = uv(&r), bytes = uv(&r);
    if (!r.bad && bytes <= (uint64_t)(r.end - r.p)) {
        const unsigned char *s = r.p, *end = r.p + bytes;
        for (uint64_t i = 0; i < n_names; i++) {
            const unsigned char *z = memchr(s, 0, (size_t)(end - s));
            const unsigned char *stop = z != NULL ? z : end;
            json_t *name = json_stringn((const char *)s, (size_t)(stop - s));
            if (name == NULL || (z == NULL) != (i + 1 == n_names)) {
                json_decref(name);
                r.bad = 1;
                break;
            }
            json_array_append_new(names, name);
            s = z != NULL ? z + 1 : end;
        }
        r.p = end;
    } else {
        r.bad = 1;
    }
    json_t *counters = json_array();
    json_object_set_new(t, "counters", counters);
    uint64_t n_counters = uv(&r);
    for (uint64_t k = 0; k < n_counters && !r.bad; k++) {
        json_t *c = json_object();
        json_array_append_new(counters, c);
        json_object_set_new(c, "id", json_integer((json_int_t)uv(&r)));
        size_t n = (size_t)uv(&r);
        if (n > len) {
            r.bad = 1;
            break;
        }
        int64_t *ts = calloc(n + 1, sizeof *ts);
        int64_t prev = start;
        for (size_t i = 0; i < n; i++) {
            prev += sv(&r);
            ts[i] = prev;
        }
        json_t *pts = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(pts, json_pack("[Io]", (json_int_t)ts[i], value_json(f64(&r))));
        json_object_set_new(c, "points", pts);
        free(ts);
    }
    if (r.bad || r.p != r.end) {
        json_decref(t);
        return NULL;
    }
    return t;
}
