/* trace_derived_lines: a model's derived lines (trace_derived.h), derived
 * once and kept with the model as a memo, for both of the trace's
 * writers.
 *
 * The memo (native byte order: the disk cache keeps it for this build
 * only, like the model file inside it):
 *   header    magic "PVDLIN01", then u64 lines_bytes, n_tracks, n_tids,
 *             n_offload
 *   after     n_tracks u32: the model track each line is shown after,
 *             padded to 8 bytes
 *   tids      n_tids i64: XProf's display id of each model track (0: its
 *             own); n_tids is 0 or the model's track count
 *   offload   n_offload x 3 u64: pv_derived_offload rows, by event
 *   padding   to 16 bytes from the memo's start
 *   lines     lines_bytes: the lines model (model/serialize.h), 0 bytes
 *             when the model has no derived line */
#include "tools/trace_derived/trace_derived.h"

#include "model/builder.h"
#include "model/memo.h"
#include "model/serialize.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

#define MEMO_NAME "trace_derived_lines.1"
static const char MAGIC[8] = {'P', 'V', 'D', 'L', 'I', 'N', '0', '1'};
#define HEADER_BYTES 40u

enum { H_LINES_BYTES, H_TRACKS, H_TIDS, H_OFFLOAD, H_COUNT };

static size_t pad(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* Where the parts of a memo with counts h lie, and its length. */
typedef struct layout {
    size_t after, tids, offload, lines, len;
} layout;

static bool layout_of(const uint64_t *h, layout *l)
{
    /* counts from a file: each bounded before it is multiplied */
    if (h[H_TRACKS] > UINT32_MAX || h[H_TIDS] > UINT32_MAX || h[H_OFFLOAD] > (SIZE_MAX >> 8) ||
        h[H_LINES_BYTES] > (SIZE_MAX >> 2))
        return false;
    l->after = HEADER_BYTES;
    l->tids = pad(l->after + 4 * (size_t)h[H_TRACKS], 8);
    l->offload = l->tids + 8 * (size_t)h[H_TIDS];
    l->lines = pad(l->offload + sizeof(pv_derived_offload) * (size_t)h[H_OFFLOAD], 16);
    l->len = l->lines + (size_t)h[H_LINES_BYTES];
    return true;
}

/* ---- making the memo -------------------------------------------------------- */

/* The metadata of the lines model, one per plane, name shown and full
 * name. pv_trace_derive keeps each name once, so a name is told by its
 * address (an equal name elsewhere would only make a second metadata). */
typedef struct meta_key {
    const char *shown, *full;
    uint32_t plane, meta;
} meta_key;

typedef struct metas {
    pv_hashtab index;    /* hash of the key -> index into v */
    meta_key *v;
    size_t n, cap;
} metas;

static uint32_t meta_for(pv_model_builder *b, metas *ms, uint32_t plane, const char *shown,
                         const char *full)
{
    uintptr_t k[3] = {(uintptr_t)shown, (uintptr_t)full, plane};
    pv_hashtab_cursor c = pv_hashtab_probe(&ms->index, pv_hash_bytes(PV_HASH_SEED, k, sizeof k));
    uint32_t i;
    while (pv_hashtab_next(&c, &i))
        if (ms->v[i].shown == shown && ms->v[i].full == full && ms->v[i].plane == plane)
            return ms->v[i].meta;
    uint32_t name = pv_builder_intern_cstr(b, full != NULL ? full : shown);
    uint32_t display = full != NULL ? pv_builder_intern_cstr(b, shown) : 0;
    uint32_t meta = pv_builder_meta_sid(b, plane, (int64_t)ms->n, name, display);
    if (ms->n == ms->cap) {
        ms->cap = ms->cap ? 2 * ms->cap : 64;
        ms->v = pv_xrealloc(ms->v, ms->cap * sizeof *ms->v);
    }
    ms->v[ms->n] = (meta_key){shown, full, plane, meta};
    pv_hashtab_insert(&ms->index, &c, (uint32_t)ms->n++);
    return meta;
}

/* The lines model of dv. Returns 0 with *out, or the builder's error. */
static int build_lines(const pv_model *m, const pv_trace_derived *dv, pv_model **out,
                       pv_error *err)
{
    pv_model_builder *b = pv_builder_new();
    for (uint32_t i = 0; i < m->n_planes; i++)
        pv_builder_plane(b, m->planes[i].id, pv_model_str(m, m->planes[i].name));
    metas ms = {{0}, NULL, 0, 0};
    for (size_t k = 0; k < dv->n_tracks; k++) {
        const pv_derived_track *t = &dv->tracks[k];
        uint32_t tr = pv_builder_track(b, t->plane, t->line_id, t->name, 0);
        pv_builder_track_set(b, tr, t->tid, 0, 0);
        pv_builder_track_kind(b, tr, t->kind);
        for (uint64_t i = 0; i < t->n_events; i++) {
            const pv_derived_event *e = &t->events[i];
            uint32_t meta = meta_for(b, &ms, t->plane, e->name, e->long_name);
            uint64_t ev = pv_builder_event(b, tr, meta, e->start_ps, e->dur_ps);
            if (e->group_id != PV_NO_GROUP)
                pv_builder_event_stat_i64(b, ev, "group_id", e->group_id);
        }
    }
    pv_hashtab_fini(&ms.index);
    free(ms.v);
    return pv_builder_finish(b, out, err);
}

/* True when the lines model holds dv's lines as made: each track's
 * events in the same order (the builder sorts them as pv_trace_derive
 * does, and keeps the order they came in among equals). */
static bool lines_match(const pv_model *l, const pv_trace_derived *dv)
{
    if (l->n_tracks != dv->n_tracks)
        return false;
    for (size_t k = 0; k < dv->n_tracks; k++) {
        const pv_derived_track *t = &dv->tracks[k];
        const pv_track *lt = &l->tracks[k];
        if (lt->n_events != t->n_events || lt->plane != t->plane || lt->line_id != t->line_id)
            return false;
        for (uint64_t i = 0; i < t->n_events; i++) {
            uint64_t e = lt->first_event + i;
            if (l->ev_start_ps[e] != t->events[i].start_ps ||
                l->ev_dur_ps[e] != t->events[i].dur_ps || l->ev_depth[e] != t->events[i].depth ||
                strcmp(pv_model_event_name(l, e), t->events[i].name) != 0)
                return false;
        }
    }
    return true;
}

static int make(const pv_model *m, void *arg, uint8_t **data, size_t *len, pv_error *err)
{
    (void)arg;
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_trace_derived dv = {0, NULL, NULL};
    if (pv_trace_derived_applies(m))
        pv_trace_derive(m, &a, &dv);
    pv_model *lines = NULL;
    int rc = 0;
    if (dv.n_tracks > 0) {
        rc = build_lines(m, &dv, &lines, err);
        if (rc == 0 && !lines_match(lines, &dv))
            rc = pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                              "the derived lines changed order as a model");
    }
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    uint64_t h[H_COUNT] = {0, dv.n_tracks, dv.track_tid != NULL ? m->n_tracks : 0, 0};
    for (size_t k = 0; k < dv.n_tracks && rc == 0; k++)
        for (uint64_t i = 0; i < dv.tracks[k].n_events; i++)
            h[H_OFFLOAD] += dv.tracks[k].events[i].done_event != PV_DERIVED_NO_EVENT;
    layout l;
    if (rc == 0 && !layout_of(h, &l))
        rc = pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET, "too many derived lines");
    if (rc == 0) {
        static const uint8_t zeros[16];
        pv_buf_add(&b, MAGIC, sizeof MAGIC);
        pv_buf_add(&b, h, sizeof h);
        for (size_t k = 0; k < dv.n_tracks; k++)
            pv_buf_add(&b, &dv.tracks[k].after_track, sizeof(uint32_t));
        pv_buf_add(&b, zeros, l.tids - b.len);
        if (h[H_TIDS] > 0)
            pv_buf_add(&b, dv.track_tid, 8 * (size_t)h[H_TIDS]);
        for (size_t k = 0; k < dv.n_tracks; k++) {
            const pv_derived_track *t = &dv.tracks[k];
            for (uint64_t i = 0; i < t->n_events; i++) {
                if (t->events[i].done_event == PV_DERIVED_NO_EVENT)
                    continue;
                pv_derived_offload o = {lines->tracks[k].first_event + i,
                                        t->events[i].start_event, t->events[i].done_event};
                pv_buf_add(&b, &o, sizeof o);
            }
        }
        pv_buf_add(&b, zeros, l.lines - b.len);
        if (lines != NULL)
            rc = pv_model_write_buf(lines, &b, err);
    }
    if (rc == 0) {
        /* the model's bytes, now that they are known */
        uint64_t lines_bytes = b.len - l.lines;
        memcpy(b.data + sizeof MAGIC + 8 * H_LINES_BYTES, &lines_bytes, sizeof lines_bytes);
        *data = (uint8_t *)pv_buf_take(&b, len);
    }
    pv_buf_fini(&b);
    pv_model_free(lines);
    pv_arena_fini(&a);
    return rc;
}

/* ---- reading it ------------------------------------------------------------------ */

int pv_trace_derived_lines_get(const pv_model *m, pv_trace_derived_lines *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    /* most profiles have no device to derive lines on: no memo for them */
    if (!pv_trace_derived_planes(m))
        return 0;
    const uint8_t *data = NULL;
    size_t len = 0;
    bool owned = false;
    int rc = pv_model_memo(m, MEMO_NAME, make, NULL, &data, &len, &owned, err);
    if (rc != 0)
        return rc;
    if (owned) {
        out->owned = (uint8_t *)(uintptr_t)data;
        out->owned_len = len;
    }
    uint64_t h[H_COUNT];
    layout l;
    bool fits = len >= HEADER_BYTES && memcmp(data, MAGIC, sizeof MAGIC) == 0;
    if (fits) {
        memcpy(h, data + sizeof MAGIC, sizeof h);
        fits = layout_of(h, &l) && l.len == len && (h[H_TIDS] == 0 || h[H_TIDS] == m->n_tracks);
    }
    if (fits && h[H_LINES_BYTES] > 0)
        fits = pv_model_load_mem(data + l.lines, (size_t)h[H_LINES_BYTES], &out->lines, err) == 0 &&
               out->lines->n_tracks == h[H_TRACKS] && out->lines->n_planes == m->n_planes;
    if (!fits) {
        pv_trace_derived_lines_fini(out);
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "the kept derived lines do not fit the model");
    }
    out->after = (const uint32_t *)(const void *)(data + l.after);
    out->track_tid = h[H_TIDS] > 0 ? (const int64_t *)(const void *)(data + l.tids) : NULL;
    out->n_offload = (size_t)h[H_OFFLOAD];
    out->offload = (const pv_derived_offload *)(const void *)(data + l.offload);
    return 0;
}

void pv_trace_derived_lines_fini(pv_trace_derived_lines *l)
{
    pv_model_free(l->lines);
    free(l->owned);
    memset(l, 0, sizeof *l);
}

/* ---- as pv_trace_derive gives them ------------------------------------------------ */

void pv_trace_derived_view(const pv_trace_derived_lines *l, pv_arena *a, pv_trace_derived *out)
{
    *out = (pv_trace_derived){0, NULL, l->track_tid};
    const pv_model *lm = l->lines;
    if (lm == NULL || lm->n_tracks == 0)
        return;
    pv_derived_track *tracks = pv_arena_alloc(a, lm->n_tracks * sizeof *tracks);
    size_t next_offload = 0;
    for (uint32_t k = 0; k < lm->n_tracks; k++) {
        const pv_track *t = &lm->tracks[k];
        pv_derived_event *ev = pv_arena_alloc(a, (t->n_events + 1) * sizeof *ev);
        for (uint64_t i = 0; i < t->n_events; i++) {
            uint64_t e = t->first_event + i;
            const pv_event_meta *meta = &lm->metas[lm->ev_meta[e]];
            ev[i] = (pv_derived_event){lm->ev_start_ps[e],
                                       lm->ev_dur_ps[e],
                                       pv_model_event_name(lm, e),
                                       meta->display_name != 0 ? pv_model_str(lm, meta->name)
                                                               : NULL,
                                       lm->ev_group[e],
                                       lm->ev_depth[e],
                                       PV_DERIVED_NO_EVENT,
                                       PV_DERIVED_NO_EVENT};
            /* offload rows come by event, as the events do here */
            if (next_offload < l->n_offload && l->offload[next_offload].ev == e) {
                ev[i].start_event = l->offload[next_offload].start_event;
                ev[i].done_event = l->offload[next_offload].done_event;
                next_offload++;
            }
        }
        tracks[k] = (pv_derived_track){t->plane,
                                       l->after[k],
                                       t->line_id,
                                       t->display_id,
                                       t->kind,
                                       pv_model_str(lm, t->name),
                                       t->n_events,
                                       ev,
                                       t->n_depths};
    }
    *out = (pv_trace_derived){lm->n_tracks, tracks, l->track_tid};
}
