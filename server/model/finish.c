/* finish: turning a builder into an immutable model. Orders tracks by
 * plane and events by (track, start, longer first), lays stats out per
 * event, resolves metadata children, then hands over to extras.c,
 * group.c and depths.c (nesting depths and the per-depth index).
 *
 * The decoder adds events track by track in file order, which is already
 * sorted after SortXSpace; that case moves the builder's columns into the
 * model without a copy. Anything else pays one permutation. */
#include "model/model_priv.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

/* ---- tracks ------------------------------------------------------------- */

/* Stable-sorts tracks by plane and fills the planes' track ranges.
 * new_index[old track] receives each track's final index. */
static void order_tracks(pv_model_builder *b, uint32_t *new_index)
{
    uint32_t *count = pv_xcalloc(b->n_planes + 1, sizeof *count);
    for (size_t t = 0; t < b->n_tracks; t++)
        count[b->tracks[t].plane + 1]++;
    for (size_t p = 0; p < b->n_planes; p++) {
        b->planes[p].first_track = count[p];
        b->planes[p].n_tracks = count[p + 1];
        count[p + 1] += count[p];
    }
    pv_track *sorted = pv_xmalloc((b->n_tracks ? b->n_tracks : 1) * sizeof *sorted);
    for (size_t t = 0; t < b->n_tracks; t++) {
        uint32_t pos = count[b->tracks[t].plane]++;
        new_index[t] = pos;
        sorted[pos] = b->tracks[t];
    }
    free(b->tracks);
    b->tracks = sorted;
    b->cap_tracks = b->n_tracks;
    free(count);
}

/* ---- event order -------------------------------------------------------- */

static bool ev_before(const pv_model_builder *b, uint64_t x, uint64_t y)
{
    if (b->ev_start_ps[x] != b->ev_start_ps[y])
        return b->ev_start_ps[x] < b->ev_start_ps[y];
    if (b->ev_dur_ps[x] != b->ev_dur_ps[y])
        return b->ev_dur_ps[x] > b->ev_dur_ps[y];
    return x < y;
}

/* Insertion sort of idx[0..n) by ev_before while it moves at most budget
 * entries in all: linear on a track in order but for a few events a
 * little out of place (Kineto writes an operator's [memory] instant after
 * the calls it made), which the merge sort below passes over log2(n)
 * times. False when the budget ran out: idx is then still a permutation
 * of what it held, partly sorted. */
static bool sort_events_nearly(const pv_model_builder *b, uint64_t *idx, size_t n, size_t budget)
{
    for (size_t k = 1; k < n; k++) {
        uint64_t x = idx[k];
        size_t j = k;
        while (j > 0 && ev_before(b, x, idx[j - 1])) {
            if (budget == 0) {
                idx[j] = x;
                return false;
            }
            budget--;
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
    return true;
}

/* Sorts idx[0..n) by ev_before; tmp holds n entries. */
static void sort_events(const pv_model_builder *b, uint64_t *idx, uint64_t *tmp, size_t n)
{
    if (sort_events_nearly(b, idx, n, 4 * n))
        return;
    /* bottom-up merge sort */
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = ev_before(b, idx[j], idx[i]) ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
}

/* True when the runs already list every track once, in final track order,
 * each run sorted: then event ids need no permutation. */
static bool events_in_order(const pv_model_builder *b, const uint32_t *new_track)
{
    for (size_t r = 0; r < b->n_runs; r++) {
        if (r > 0 && new_track[b->runs[r].track] <= new_track[b->runs[r - 1].track])
            return false;
        const pv__run *run = &b->runs[r];
        for (uint64_t e = run->first + 1; e < run->first + run->n; e++) {
            if (ev_before(b, e, e - 1))
                return false;
        }
    }
    return true;
}

/* perm[new id] = builder id, grouped by final track, sorted in each. */
static uint64_t *event_permutation(const pv_model_builder *b, const uint32_t *new_track)
{
    size_t n = b->n_events;
    uint64_t *first = pv_xcalloc(b->n_tracks + 1, sizeof *first);
    for (size_t r = 0; r < b->n_runs; r++)
        first[new_track[b->runs[r].track] + 1] += b->runs[r].n;
    for (size_t t = 0; t < b->n_tracks; t++)
        first[t + 1] += first[t];
    uint64_t *perm = pv_xmalloc((n ? n : 1) * sizeof *perm);
    uint64_t *fill = pv_xmalloc((b->n_tracks + 1) * sizeof *fill);
    memcpy(fill, first, (b->n_tracks + 1) * sizeof *fill);
    for (size_t r = 0; r < b->n_runs; r++) {
        const pv__run *run = &b->runs[r];
        uint64_t *dst = perm + fill[new_track[run->track]];
        for (uint64_t i = 0; i < run->n; i++)
            dst[i] = run->first + i;
        fill[new_track[run->track]] += run->n;
    }
    uint64_t *tmp = pv_xmalloc((n ? n : 1) * sizeof *tmp);
    for (size_t t = 0; t < b->n_tracks; t++)
        sort_events(b, perm + first[t], tmp, (size_t)(first[t + 1] - first[t]));
    free(tmp);
    free(fill);
    free(first);
    return perm;
}

#define PERMUTE_COLUMN(col, perm, n)                                   \
    do {                                                               \
        __typeof__(col) nc = pv_xmalloc(((n) ? (n) : 1) * sizeof *nc); \
        for (size_t i_ = 0; i_ < (n); i_++)                            \
            nc[i_] = (col)[(perm)[i_]];                                \
        free(col);                                                     \
        (col) = nc;                                                    \
    } while (0)

/* Puts the builder's per-event columns (columns.h) in model order. */
#define PERMUTE_EVENTS(field, type, count, from, flags)          \
    PV__IF_##from(if (PV__COL_PER_EVENT(count) && b->field != NULL) \
                      PERMUTE_COLUMN(b->field, perm, n);)

/* Builds the final stats array for events [0, n) in new order plus the
 * n + 1 offsets. Consumes b->stats, b->ev_stat_first and b->late. */
static void layout_event_stats(pv_model_builder *b, const uint64_t *perm, uint64_t **off_out)
{
    size_t n = b->n_events;
    if (b->ev_stat_first == NULL) {
        *off_out = NULL;   /* no event has array stats (need_stat_first) */
        return;
    }
    if (perm == NULL && b->n_late == 0) {
        uint64_t *off = pv_xrealloc(b->ev_stat_first, (n + 1) * sizeof *off);
        off[n] = b->n_stats;
        b->ev_stat_first = NULL;
        *off_out = off;
        return;
    }
    /* count[e] = stats of builder event e, own run plus late ones */
    uint64_t *count = pv_xcalloc(n + 1, sizeof *count);
    for (size_t e = 0; e < n; e++) {
        uint64_t end = e + 1 < n ? b->ev_stat_first[e + 1] : b->n_stats;
        count[e] = end - b->ev_stat_first[e];
    }
    for (size_t i = 0; i < b->n_late; i++)
        count[b->late[i].owner]++;
    uint64_t *off = pv_xmalloc((n + 1) * sizeof *off);
    off[0] = 0;
    for (size_t i = 0; i < n; i++)
        off[i + 1] = off[i] + count[perm ? perm[i] : i];
    size_t total = (size_t)off[n];
    pv_stat *stats = pv_xmalloc((total ? total : 1) * sizeof *stats);
    /* where[e] = next free slot of builder event e */
    uint64_t *where = count;
    for (size_t i = 0; i < n; i++)
        where[perm ? perm[i] : i] = off[i];
    for (size_t e = 0; e < n; e++) {
        uint64_t end = e + 1 < n ? b->ev_stat_first[e + 1] : b->n_stats;
        for (uint64_t k = b->ev_stat_first[e]; k < end; k++)
            stats[where[e]++] = b->stats[k];
    }
    for (size_t i = 0; i < b->n_late; i++)
        stats[where[b->late[i].owner]++] = b->late[i].stat;
    free(count);
    free(b->stats);
    free(b->ev_stat_first);
    b->ev_stat_first = NULL;
    b->stats = stats;
    b->n_stats = total;
    b->cap_stats = total;
    *off_out = off;
}

/* Appends owned stats grouped by owner; returns each owner's first stat
 * through first[owner] and its count through n[owner]. */
static void append_owned(pv_model_builder *b, const pv__owned_stat *os, size_t n_os,
                         size_t n_owners, uint64_t *first, uint32_t *n)
{
    memset(n, 0, n_owners * sizeof *n);
    for (size_t i = 0; i < n_os; i++)
        n[os[i].owner]++;
    uint64_t at = b->n_stats;
    for (size_t o = 0; o < n_owners; o++) {
        first[o] = at;
        at += n[o];
    }
    pv__grow((void **)&b->stats, &b->cap_stats, (size_t)at, sizeof *b->stats);
    uint64_t *fill = pv_xmalloc((n_owners ? n_owners : 1) * sizeof *fill);
    memcpy(fill, first, n_owners * sizeof *fill);
    for (size_t i = 0; i < n_os; i++)
        b->stats[fill[os[i].owner]++] = os[i].stat;
    b->n_stats = (size_t)at;
    free(fill);
}

/* ---- stat names --------------------------------------------------------- */

static int cmp_plane_stat_name(const void *pa, const void *pb)
{
    const pv__plane_stat_name *a = pa, *b = pb;
    if (a->plane != b->plane)
        return a->plane < b->plane ? -1 : 1;
    if (a->sn.id != b->sn.id)
        return a->sn.id < b->sn.id ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sorts the planes' stat names by id, keeps the last of equal ids and
 * gives each plane its range. */
static pv_stat_name *layout_stat_names(pv_model_builder *b, uint32_t *n_out)
{
    pv_sort(b->stat_names, b->n_stat_names, sizeof *b->stat_names, cmp_plane_stat_name);
    pv_stat_name *out = pv_xmalloc((b->n_stat_names ? b->n_stat_names : 1) * sizeof *out);
    uint32_t n = 0;
    for (size_t i = 0; i < b->n_planes; i++)
        b->planes[i].first_stat_name = b->planes[i].n_stat_names = 0;
    for (size_t i = 0; i < b->n_stat_names; i++) {
        const pv__plane_stat_name *x = &b->stat_names[i];
        bool replaced_later = i + 1 < b->n_stat_names && b->stat_names[i + 1].plane == x->plane &&
                              b->stat_names[i + 1].sn.id == x->sn.id;
        if (replaced_later || x->plane >= b->n_planes)
            continue;
        pv_plane *pl = &b->planes[x->plane];
        if (pl->n_stat_names == 0)
            pl->first_stat_name = n;
        pl->n_stat_names++;
        out[n++] = x->sn;
    }
    *n_out = n;
    return out;
}

/* ---- metadata children -------------------------------------------------- */

/* Returns the children column, n_child_refs long (an unknown child's
 * place stays 0, out of every range). */
static uint32_t *resolve_children(pv_model_builder *b)
{
    uint32_t *kids = pv_xcalloc(b->n_child_refs ? b->n_child_refs : 1, sizeof *kids);
    for (size_t m = 0; m < b->n_metas; m++)
        b->metas[m].n_children = 0;
    for (size_t i = 0; i < b->n_child_refs; i++)
        b->metas[b->child_refs[i].meta].n_children++;
    uint32_t at = 0;
    for (size_t m = 0; m < b->n_metas; m++) {
        b->metas[m].first_child = at;
        at += b->metas[m].n_children;
        b->metas[m].n_children = 0;
    }
    for (size_t i = 0; i < b->n_child_refs; i++) {
        pv_event_meta *parent = &b->metas[b->child_refs[i].meta];
        uint32_t child = pv_builder_meta_find(b, parent->plane, b->child_refs[i].child_id);
        if (child != PV_NO_META)
            kids[parent->first_child + parent->n_children++] = child;
    }
    return kids;
}

/* ---- roles ---------------------------------------------------------------- */

/* The roles column: one byte per metadata, 0 for those given none; NULL
 * when none was given one. */
static uint8_t *take_roles(pv_model_builder *b)
{
    uint8_t *r = b->roles;
    if (r == NULL)
        return NULL;
    size_t n = b->n_metas ? b->n_metas : 1;
    if (n > b->cap_roles) {
        r = pv_xrealloc(r, n);
        memset(r + b->cap_roles, 0, n - b->cap_roles);
    }
    b->roles = NULL;
    b->cap_roles = 0;
    return r;
}

/* ---- finish ------------------------------------------------------------- */

static size_t model_bytes(const pv_model *m, const pv__model_store *s)
{
    size_t bytes = sizeof *m + sizeof *s + pv__strtab_bytes(&s->strs) +
                   s->blob_arena.total_bytes + pv__columns_bytes(m);
    /* the per-depth index and its offsets (depths.c) */
    bytes += (size_t)m->n_events * sizeof(uint32_t);
    for (uint32_t t = 0; t < m->n_tracks; t++)
        bytes += (m->tracks[t].n_depths + (size_t)1) * sizeof(uint32_t);
    return bytes;
}

/* Hands the builder's columns (columns.h) to the model as they are. */
#define TAKE_OVER(field, type, count, from, flags)                                       \
    PV__IF_##from(                                                                      \
        m->field = b->field != NULL || ((flags) & (PV__COL_OPTIONAL | PV__COL_LAZY))    \
                       ? b->field                                                       \
                       : pv_xcalloc(1, sizeof(type));                                   \
        m->count = (__typeof__(m->count))b->count;                                      \
        b->field = NULL;)

/* A stat whose value is 32 bits leaves the other half of its union as its
 * maker's compiler left it (clang: uninitialised); zeroed, a model saves
 * to the same bytes every time. */
static void zero_stat_tails(pv_stat *st, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        if (st[i].type == PV_STAT_STR) {
            uint32_t v = st[i].v.str;
            st[i].v.u64 = 0;
            st[i].v.str = v;
        } else if (st[i].type == PV_STAT_BYTES) {
            uint32_t v = st[i].v.blob;
            st[i].v.u64 = 0;
            st[i].v.blob = v;
        }
    }
}

int pv_builder_finish(pv_model_builder *b, pv_model **out, pv_error *err)
{
    return pv_builder_finish_metered(b, NULL, out, err);
}

int pv_builder_finish_metered(pv_model_builder *b, pv_meter *meter, pv_model **out,
                              pv_error *err)
{
    /* + 1: a model without events still counts its passes */
    uint64_t unit = b->n_events + 1;
    pv_meter_start(meter, PV_FINISH_PASSES * unit);
    *out = NULL;
    pv_model *m = pv_xcalloc(1, sizeof *m);
    pv__model_store *s = pv_xcalloc(1, sizeof *s);
    m->priv = s;
    int rc = 0;

    uint32_t *new_track = pv_xmalloc((b->n_tracks ? b->n_tracks : 1) * sizeof *new_track);
    order_tracks(b, new_track);
    uint64_t *perm = NULL;
    if (!events_in_order(b, new_track)) {
        perm = event_permutation(b, new_track);
        size_t n = b->n_events;
        PV__MODEL_COLUMNS(PERMUTE_EVENTS)
    }
    /* Stats added in hand were never applied, and an event may have both:
     * then finish applies every event's. */
    pv__extras *applied = b->extras;
    b->extras = NULL;
    if (b->ev_stat_first != NULL)
        pv__extras_changed_all(applied);
    if (perm != NULL)
        pv__extras_renumber(applied, perm, b->n_events);
    uint64_t *stat_off = NULL;
    layout_event_stats(b, perm, &stat_off);
    free(perm);
    pv_meter_add(meter, unit);

    /* track event ranges: events are now grouped by final track */
    for (size_t r = 0; r < b->n_runs; r++)
        b->tracks[new_track[b->runs[r].track]].n_events += b->runs[r].n;
    uint64_t at = 0;
    for (size_t t = 0; t < b->n_tracks; t++) {
        b->tracks[t].first_event = at;
        at += b->tracks[t].n_events;
    }
    free(new_track);

    uint64_t *meta_first = pv_xmalloc((b->n_metas + 1) * sizeof *meta_first);
    uint32_t *meta_n = pv_xmalloc((b->n_metas + 1) * sizeof *meta_n);
    append_owned(b, b->meta_stats, b->n_meta_stats, b->n_metas, meta_first, meta_n);
    for (size_t i = 0; i < b->n_metas; i++) {
        b->metas[i].first_stat = meta_first[i];
        b->metas[i].n_stats = meta_n[i];
    }
    free(meta_first);
    free(meta_n);
    uint64_t *plane_first = pv_xmalloc((b->n_planes + 1) * sizeof *plane_first);
    uint32_t *plane_n = pv_xmalloc((b->n_planes + 1) * sizeof *plane_n);
    append_owned(b, b->plane_stats, b->n_plane_stats, b->n_planes, plane_first, plane_n);
    for (size_t i = 0; i < b->n_planes; i++) {
        b->planes[i].first_stat = plane_first[i];
        b->planes[i].n_stats = plane_n[i];
    }
    free(plane_first);
    free(plane_n);
    zero_stat_tails(b->stats, b->n_stats);
    m->n_meta_children = (uint32_t)b->n_child_refs;
    m->meta_children = resolve_children(b);
    m->stat_names = layout_stat_names(b, &m->n_stat_names);
    m->ev_stat_off = stat_off;
    m->meta_roles = take_roles(b);
    pv__link_stats links = b->link_stats;

    /* Hand the builder's columns over; the model frees them (columns.h).
     * ev_group and ev_extra are what the builder applied, for
     * pv__extras_build. */
    PV__MODEL_COLUMNS(TAKE_OVER)
    m->src = s->src = b->src;
    m->src_len = s->src_len = b->src_len;
    s->src_owner = b->src_owner;
    b->src = NULL;
    s->strs = b->strs;
    s->blob_arena = b->blob_arena;
    b->n_planes = 0;
    memset(&b->strs, 0, sizeof b->strs);
    memset(&b->blob_arena, 0, sizeof b->blob_arena);
    for (size_t i = 0; i < b->cap_planes; i++)
        pv__idmap_fini(&b->meta_ids[i]);
    pv_builder_free(b);

    /* The depths read the events' times and the tracks' ranges only,
     * final now, and nothing below writes them: on two cores they start
     * beside the rest of the finish (the grouping above all), and this
     * thread takes their tracks too once it is done. */
    pv__depths *dj = pv__depths_start(m);
    int64_t min_ps = INT64_MAX, max_ps = INT64_MIN;
    for (uint64_t e = 0; e < m->n_events; e++) {
        if (m->ev_start_ps[e] < min_ps)
            min_ps = m->ev_start_ps[e];
        int64_t end = pv__event_end_ps(m, e);
        if (end > max_ps)
            max_ps = end;
    }
    m->min_ps = m->n_events > 0 ? min_ps : 0;
    m->max_ps = m->n_events > 0 ? max_ps : 0;

    pv__stat_names_index(m, s);
    pv__launches_build(m, &links);
    pv__keys contexts = {0};
    rc = pv__extras_build(m, s, applied, &contexts, err);
    pv_meter_add(meter, unit);
    if (rc == 0)
        rc = pv__group_build(m, s, m->has_group_stats, &contexts, err);
    int depths_rc = pv__depths_end(dj, m, s, rc == 0 ? err : NULL);
    rc = rc != 0 ? rc : depths_rc;
    pv_meter_add(meter, 2 * unit);
    free(contexts.v);
    if (rc != 0)
        goto fail;

    m->n_strings = (uint32_t)s->strs.n;
    m->strings = s->strs.strs;
    pv__columns_nonnull(m);
    m->mem_bytes = model_bytes(m, s);
    /* pv_model_is_sane is not run here: it costs 7% of an ingest, and the
     * unit tests and the fuzzer check every model they build with it. */
    *out = m;
    return 0;

fail:
    pv_model_free(m);
    return rc;
}
