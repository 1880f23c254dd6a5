/* model: lookups over a finished model, its release and its sanity check. */
#include "model/model_priv.h"
#include "util/bsearch.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- lifetime ----------------------------------------------------------- */

void pv_model_free(pv_model *m)
{
    if (m == NULL)
        return;
    pv__model_store *s = m->priv;
    /* a loaded model's columns lie in its file's mapping, or its caller's bytes */
    pv__columns_free(m, s != NULL && (s->map != NULL || s->borrowed));
    if (s != NULL) {
        for (size_t i = 0; i < s->n_arrays; i++)
            free(s->arrays[i]);
        pv__strtab_fini(&s->strs);
        pv_arena_fini(&s->blob_arena);
        if (s->map != NULL)
            munmap(s->map, s->map_len);
        pv__source_release(s->src, s->src_len, s->src_owner);
        pv__hlo_slot_free(s->hlo);
        pv__memos_free(atomic_load(&s->memos));
        free(s);
    }
    free(m);
}

void pv_model_own_source(pv_model *m, pv_source_owner owner)
{
    pv__model_store *s = m->priv;
    if (owner == PV_SRC_MALLOC && s->src_owner != PV_SRC_MALLOC)
        m->mem_bytes += s->src_len;
    s->src_owner = owner;
}

void pv_model_release_pages(const pv_model *m)
{
    const pv__model_store *s = m->priv;
    if (s == NULL)
        return;
    pv__release_source(s);
    if (s->map != NULL)
        madvise(s->map, s->map_len, MADV_DONTNEED);
}

/* ---- lookups ------------------------------------------------------------ */

const char *pv_model_str(const pv_model *m, uint32_t id)
{
    return id < m->n_strings ? m->strings[id] : "";
}

uint32_t pv_model_str_find(const pv_model *m, const char *s)
{
    const pv__model_store *st = m->priv;
    return pv__strtab_find(&st->strs, s, strlen(s));
}

const char *pv_model_event_name(const pv_model *m, uint64_t ev)
{
    const pv_event_meta *meta = &m->metas[m->ev_meta[ev]];
    return pv_model_str(m, meta->display_name != 0 ? meta->display_name : meta->name);
}

const pv_kernel_details *pv_model_kernel(const pv_model *m, const pv_event_extra *x)
{
    if (x == NULL || !(x->flags & PV_EXTRA_KERNEL) || x->detail >= m->n_kernels)
        return NULL;
    return &m->kernels[x->detail];
}

const pv_step_info *pv_model_step_info(const pv_model *m, const pv_event_extra *x)
{
    static const pv_step_info none = {0, 0, -1, -1, -1};
    if (x == NULL || x->step == PV_NO_STEP || x->step >= m->n_step_infos)
        return &none;
    return &m->step_infos[x->step];
}

uint32_t pv_model_event_track(const pv_model *m, uint64_t ev)
{
    /* Tracks hold consecutive event ranges: the first whose range ends
     * after ev holds it. */
    uint32_t lo = 0;
    PV_LOWER_BOUND(uint32_t, lo, m->n_tracks, i,
                   m->tracks[i].first_event + m->tracks[i].n_events <= ev);
    return lo < m->n_tracks ? lo : (m->n_tracks ? m->n_tracks - 1 : 0);
}

uint64_t pv_model_track_lower_bound(const pv_model *m, const pv_track *t, int64_t start_ps)
{
    uint64_t lo = t->first_event;
    PV_LOWER_BOUND(uint64_t, lo, t->first_event + t->n_events, i, m->ev_start_ps[i] < start_ps);
    return lo;
}

const pv_step_group *pv_model_group_find(const pv_model *m, int64_t group_id)
{
    uint32_t lo = 0;
    PV_LOWER_BOUND(uint32_t, lo, m->n_groups, i, m->groups[i].group_id < group_id);
    return lo < m->n_groups && m->groups[lo].group_id == group_id ? &m->groups[lo] : NULL;
}

/* ---- sanity ------------------------------------------------------------- */

static int64_t sane_end(int64_t start, int64_t dur)
{
    if (dur > 0 && start > INT64_MAX - dur)
        return INT64_MAX;
    return dur > 0 ? start + dur : start;
}

static bool track_is_sane(const pv_model *m, const pv_track *t, uint64_t expect_first)
{
    if (t->first_event != expect_first || t->plane >= m->n_planes)
        return false;
    if (t->name >= m->n_strings || t->display_name >= m->n_strings)
        return false;
    for (uint64_t e = t->first_event + 1; e < t->first_event + t->n_events; e++) {
        if (m->ev_start_ps[e] < m->ev_start_ps[e - 1])
            return false;
    }
    if (t->n_events == 0)
        return t->n_depths == 0;
    if (t->depth_start[0] != 0 || t->depth_start[t->n_depths] != t->n_events)
        return false;
    for (uint32_t d = 0; d < t->n_depths; d++) {
        int64_t prev_end = INT64_MIN;
        int64_t prev_start = INT64_MIN;
        for (uint32_t k = t->depth_start[d]; k < t->depth_start[d + 1]; k++) {
            if (t->depth_index[k] >= t->n_events)
                return false;
            uint64_t e = t->first_event + t->depth_index[k];
            if (m->ev_depth[e] != d || m->ev_start_ps[e] < prev_start ||
                m->ev_start_ps[e] < prev_end)
                return false;
            prev_start = m->ev_start_ps[e];
            prev_end = sane_end(m->ev_start_ps[e], m->ev_dur_ps[e]);
        }
    }
    return true;
}

/* Launch rows sorted by event, once each, naming events of the model. */
static bool launches_are_sane(const pv_model *m)
{
    for (uint32_t i = 0; i < m->n_launches; i++) {
        const pv_launch *l = &m->launches[i];
        if (l->ev >= m->n_events || (i > 0 && l->ev <= m->launches[i - 1].ev) ||
            (l->by != PV_NO_LAUNCH && l->by >= m->n_events) ||
            (l->call != PV_NO_LAUNCH && l->call >= m->n_events))
            return false;
    }
    return true;
}

bool pv_model_is_sane(const pv_model *m)
{
    if (m->n_strings == 0 || m->strings[0][0] != '\0')
        return false;
    uint32_t track = 0;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->first_track != track || pl->name >= m->n_strings)
            return false;
        if (pl->first_stat + pl->n_stats > m->n_stats ||
            (uint64_t)pl->first_stat_name + pl->n_stat_names > m->n_stat_names)
            return false;
        /* sorted by id: the stat-name indexes are sized by the last */
        const pv_stat_name *sn = m->stat_names + pl->first_stat_name;
        for (uint32_t i = 0; i < pl->n_stat_names; i++) {
            if (sn[i].name >= m->n_strings || (i > 0 && sn[i].id <= sn[i - 1].id))
                return false;
        }
        track += pl->n_tracks;
    }
    if (track != m->n_tracks)
        return false;
    uint64_t ev = 0;
    for (uint32_t t = 0; t < m->n_tracks; t++) {
        if (!track_is_sane(m, &m->tracks[t], ev))
            return false;
        ev += m->tracks[t].n_events;
    }
    if (ev != m->n_events || (m->ev_stat_off != NULL && m->ev_stat_off[0] != 0))
        return false;
    if (m->ev_wire != NULL && m->src == NULL)
        return false;
    for (uint64_t e = 0; e < m->n_events; e++) {
        if (m->ev_meta[e] >= m->n_metas)
            return false;
        if (m->ev_stat_off != NULL && m->ev_stat_off[e + 1] < m->ev_stat_off[e])
            return false;
        if (m->ev_extra[e] != PV_NO_EXTRA && m->ev_extra[e] >= m->n_extras)
            return false;
    }
    for (uint32_t i = 0; i < m->n_extras; i++) {
        const pv_event_extra *x = &m->extras[i];
        if (((x->flags & PV_EXTRA_KERNEL) && x->detail >= m->n_kernels) ||
            (x->step != PV_NO_STEP && x->step >= m->n_step_infos))
            return false;
    }
    if (m->ev_stat_off != NULL && m->n_events > 0 && m->ev_stat_off[m->n_events] > m->n_stats)
        return false;
    for (uint32_t i = 0; i < m->n_metas; i++) {
        const pv_event_meta *meta = &m->metas[i];
        if (meta->first_stat + meta->n_stats > m->n_stats || meta->name >= m->n_strings ||
            (uint64_t)meta->first_child + meta->n_children > m->n_meta_children)
            return false;
        for (uint32_t k = 0; k < meta->n_children; k++) {
            if (m->meta_children[meta->first_child + k] >= m->n_metas)
                return false;
        }
    }
    for (uint64_t i = 0; i < m->n_stats; i++) {
        const pv_stat *s = &m->stats[i];
        if (s->name >= m->n_strings)
            return false;
        if (s->type == PV_STAT_STR && s->v.str >= m->n_strings)
            return false;
        if (s->type == PV_STAT_BYTES && s->v.blob >= m->n_blobs)
            return false;
    }
    for (uint32_t g = 1; g < m->n_groups; g++) {
        if (m->groups[g].group_id <= m->groups[g - 1].group_id)
            return false;
    }
    return launches_are_sane(m);
}
