/* trace_meta: ordering planes and lines for display, and naming them. */
#include "tools/trace_tiles/trace_meta.h"
#include "util/sort.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ids -------------------------------------------------------------------- */

static int64_t base_pid(const pv_plane *p, uint32_t index)
{
    switch (p->kind) {
    case PV_PLANE_HOST:
        return 701;
    case PV_PLANE_GPU:
    case PV_PLANE_TPU: {
        /* XProf: 1 + the plane's id (a TPU's ids go 2, 10, 18, ..), and 1
         * past 500. */
        return p->id >= 0 && p->id < 500 ? 1 + p->id : 1;
    }
    case PV_PLANE_CUSTOM:
        return p->id >= 0 && p->id < 200 ? 501 + p->id : 1001 + index;
    default:
        return 1001 + index;
    }
}

int64_t pv_trace_plane_pid(const pv_model *m, uint32_t plane)
{
    int64_t pid = base_pid(&m->planes[plane], plane);
    for (uint32_t i = 0; i < plane; i++)
        if (base_pid(&m->planes[i], i) == pid)
            return 1001 + plane;
    return pid;
}

int64_t pv_trace_track_tid(const pv_model *m, uint32_t track)
{
    return m->tracks[track].display_id;
}

const char *pv_trace_track_kind_name(uint32_t kind)
{
    switch (kind) {
    case PV_TRACK_STEPS: return "steps";
    case PV_TRACK_LAUNCH_STATS: return "launch_stats";
    case PV_TRACK_FW_NAME_SCOPE: return "name_scope";
    case PV_TRACK_FW_OPS: return "framework_ops";
    case PV_TRACK_XLA_MODULES: return "xla_modules";
    case PV_TRACK_XLA_OPS: return "xla_ops";
    case PV_TRACK_DERIVED_OTHER: return "derived";
    case PV_TRACK_COUNTERS: return "counters";
    default: return "plain";
    }
}

/* ---- ordering ------------------------------------------------------------------ */

static int plane_rank(const pv_plane *p)
{
    switch (p->kind) {
    case PV_PLANE_HOST: return 0;
    case PV_PLANE_GPU:
    case PV_PLANE_TPU: return 1;
    case PV_PLANE_CUSTOM: return 2;
    case PV_PLANE_METADATA: return 4;
    default: return 3;
    }
}

/* Derived lines first, in the order TensorBoard shows them. */
static int track_rank(uint32_t kind)
{
    switch (kind) {
    case PV_TRACK_STEPS: return 0;
    case PV_TRACK_XLA_MODULES: return 1;
    case PV_TRACK_XLA_OPS: return 2;
    case PV_TRACK_FW_OPS: return 3;
    case PV_TRACK_FW_NAME_SCOPE: return 4;
    case PV_TRACK_LAUNCH_STATS: return 5;
    case PV_TRACK_DERIVED_OTHER: return 6;
    case PV_TRACK_COUNTERS: return 8;
    default: return 7;
    }
}

typedef struct sort_item {
    const pv_model *m;
    uint32_t id;
} sort_item;

static int cmp_i64(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b;
}

static int plane_cmp(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    const pv_plane *x = &a->m->planes[a->id], *y = &b->m->planes[b->id];
    int r = plane_rank(x) - plane_rank(y);
    if (r != 0)
        return r;
    if (x->device_ordinal != y->device_ordinal)
        return x->device_ordinal < y->device_ordinal ? -1 : 1;
    r = cmp_i64(x->id, y->id);
    return r != 0 ? r : (a->id < b->id ? -1 : a->id > b->id);
}

static int track_cmp(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    const pv_track *x = &a->m->tracks[a->id], *y = &b->m->tracks[b->id];
    int r = track_rank(x->kind) - track_rank(y->kind);
    if (r != 0)
        return r;
    r = cmp_i64(x->display_id, y->display_id);
    return r != 0 ? r : (a->id < b->id ? -1 : a->id > b->id);
}

/* XProf's place for the tracks of plane p: its own tracks in ids[0 ..
 * n) (in track_cmp's order, the streams XProf renumbers in its order)
 * and the derived lines of ix on it. Returns the new list in a and its
 * length in *n. */
static uint32_t *place_derived(const pv_model *m, const pv_trace_index *ix, uint32_t plane,
                               const uint32_t *ids, size_t *n, pv_arena *a)
{
    const pv_model *d = pv_trace_index_lines(ix);
    const pv_trace_derived_lines *dl = &ix->derived;
    size_t n_lines = 0;
    for (uint32_t k = 0; d != NULL && k < d->n_tracks; k++)
        n_lines += d->tracks[k].plane == plane;
    size_t n_own = *n;
    /* The streams XProf renumbers go in its order, by the display ids it
     * gives them; a track it does not renumber keeps its place, and the
     * renumbered ones between two such tracks are sorted (an insertion
     * sort: a plane has a few streams). */
    uint32_t *own = pv_arena_alloc(a, (n_own + 1) * sizeof *own);
    memcpy(own, ids, n_own * sizeof *own);
    const int64_t *tid = dl->track_tid;
    for (size_t i = 1; tid != NULL && i < n_own; i++) {
        uint32_t x = own[i];
        size_t j = i;
        for (; j > 0 && tid[x] != 0 && tid[own[j - 1]] > tid[x]; j--)
            own[j] = own[j - 1];
        own[j] = x;
    }
    uint32_t *out = pv_arena_alloc(a, (n_own + n_lines + 1) * sizeof *out);
    size_t at = 0;
    for (size_t i = 0; i <= n_own; i++) {
        uint32_t after = i < n_own ? own[i] : UINT32_MAX;
        if (i < n_own)
            out[at++] = after;
        /* its lines, in the order they were derived (by line id) */
        for (uint32_t k = 0; n_lines > 0 && k < d->n_tracks; k++)
            if (d->tracks[k].plane == plane && dl->after[k] == after)
                out[at++] = m->n_tracks + k;
    }
    *n = at;
    return out;
}

int pv_tool_trace_meta(const pv_model *m, const pv_trace_index *ix, pv_arena *a,
                       pv_trace_meta *out, pv_error *err)
{
    (void)err;
    const pv_model *d = pv_trace_index_lines(ix);
    sort_item *planes = pv_arena_alloc(a, (m->n_planes + 1) * sizeof *planes);
    size_t n = 0;
    /* (a plane with derived lines has tracks of its own: the streams or
     * ops they come from) */
    for (uint32_t i = 0; i < m->n_planes; i++)
        if (m->planes[i].n_tracks > 0)
            planes[n++] = (sort_item){m, i};
    pv_sort(planes, n, sizeof *planes, plane_cmp);
    pv_trace_process *procs = pv_arena_alloc(a, (n + 1) * sizeof *procs);
    for (size_t i = 0; i < n; i++) {
        const pv_plane *p = &m->planes[planes[i].id];
        sort_item *tr = pv_arena_alloc(a, p->n_tracks * sizeof *tr);
        for (uint32_t k = 0; k < p->n_tracks; k++)
            tr[k] = (sort_item){m, p->first_track + k};
        pv_sort(tr, p->n_tracks, sizeof *tr, track_cmp);
        uint32_t *ids = pv_arena_alloc(a, p->n_tracks * sizeof *ids);
        for (uint32_t k = 0; k < p->n_tracks; k++)
            ids[k] = tr[k].id;
        size_t n_ids = p->n_tracks;
        if (d != NULL || (ix != NULL && ix->derived.track_tid != NULL))
            ids = place_derived(m, ix, planes[i].id, ids, &n_ids, a);
        procs[i] = (pv_trace_process){planes[i].id, pv_trace_plane_pid(m, planes[i].id), n_ids,
                                      ids};
    }
    *out = (pv_trace_meta){pv_trace_geom_of(m), n, procs};
    return 0;
}

/* ---- JSON ---------------------------------------------------------------------- */

json_t *pv_trace_meta_to_json(const pv_model *m, const pv_trace_index *ix,
                              const pv_trace_meta *meta)
{
    char t0[32];
    snprintf(t0, sizeof t0, "%lld", (long long)meta->geom.t0_ps);
    json_t *procs = json_array();
    for (size_t i = 0; i < meta->n_processes; i++) {
        const pv_trace_process *p = &meta->processes[i];
        json_t *threads = json_array();
        for (size_t k = 0; k < p->n_threads; k++) {
            uint32_t local = p->tracks[k];
            const pv_model *tm = pv_trace_track_model(m, ix, &local);
            const pv_track *t = &tm->tracks[local];
            json_t *th =
                json_pack("{s:I, s:I, s:s, s:I, s:I, s:s}", "tid", (json_int_t)t->display_id,
                          "track", (json_int_t)p->tracks[k], "name",
                          pv_model_str(tm, t->display_name ? t->display_name : t->name),
                          "n_events", (json_int_t)t->n_events, "depths",
                          (json_int_t)t->n_depths, "kind", pv_trace_track_kind_name(t->kind));
            /* a line derived here as XProf derives it (not the file's) */
            if (th != NULL && tm != m)
                json_object_set_new(th, "derived", json_true());
            json_array_append_new(threads, th);
        }
        json_array_append_new(procs, json_pack("{s:I, s:s, s:I, s:o}", "pid", (json_int_t)p->pid,
                                               "name", pv_model_str(m, m->planes[p->plane].name),
                                               "plane", (json_int_t)p->plane, "threads",
                                               threads));
    }
    json_t *counters = json_array();
    for (size_t c = 0; ix != NULL && c < ix->n_counters; c++) {
        const pv_trace_counter *pc = &ix->counters[c];
        json_array_append_new(counters,
                              json_pack("{s:I, s:I, s:s, s:f, s:f, s:I}", "id", (json_int_t)c,
                                        "pid", (json_int_t)pv_trace_plane_pid(m, pc->plane),
                                        "name", pc->name, "min", pc->min, "max", pc->max,
                                        "n_points", (json_int_t)pc->n_points));
    }
    /* what the decoder left out or found cut off, for the page to say */
    json_t *warnings = json_array();
    for (uint32_t w = 0; w < m->n_warnings; w++)
        json_array_append_new(warnings, json_string(pv_model_str(m, m->warnings[w])));
    return json_pack("{s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:o}", "t0_ps", t0, "span_ps",
                     (json_int_t)meta->geom.span_ps, "n_events",
                     (json_int_t)pv_trace_n_events(m, ix),
                     "max_level", (json_int_t)meta->geom.max_level, "tile_px",
                     (json_int_t)PV_TRACE_TILE_PX, "processes", procs, "counters", counters,
                     "warnings", warnings);
}
