/* memory_profile: the analysis half of the memory profile tool (JSON is in
 * memory_profile_json.c). Follows xprof's xplane_to_memory_profile step by
 * step; where the reference leaves an order unspecified (unstable sorts,
 * hash-map iteration) profview breaks ties by event id so a result is the
 * same on every run. */
#include "tools/memory_profile/memory_profile.h"
#include "util/hashtab.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#define NO_INDEX SIZE_MAX

/* ---- reading the model ------------------------------------------------------ */

/* The memory details of ev, decoded from its stats (model.h); all zero
 * and false when ev is not a memory event. */
static bool details_of(const pv_model *m, uint64_t ev, pv_memory_details *md)
{
    if (pv_model_event_memory(m, ev, md))
        return true;
    memset(md, 0, sizeof *md);
    return false;
}

static uint32_t activity_of(const pv_model *m, uint64_t ev)
{
    const pv_event_extra *x = pv_model_event_extra(m, ev);
    if (x == NULL)
        return PV_MEMORY_UNKNOWN_ACTIVITY;
    if (x->flags & PV_EXTRA_MEM_ALLOC)
        return PV_MEMORY_ALLOCATION;
    if (x->flags & PV_EXTRA_MEM_FREE)
        return PV_MEMORY_DEALLOCATION;
    return PV_MEMORY_UNKNOWN_ACTIVITY;
}

static int64_t heap_and_stack(const pv_model *m, const pv_memory_snapshot *s)
{
    (void)m;
    return s->details.bytes_allocated + s->details.bytes_reserved;
}

pv_memory_stats pv_memory_snapshot_stats(const pv_model *m, const pv_memory_snapshot *s)
{
    (void)m;
    const pv_memory_details *md = &s->details;
    pv_memory_stats st = {0};
    st.stack_reserved_bytes = md->bytes_reserved;
    st.heap_allocated_bytes = md->bytes_allocated;
    st.free_memory_bytes = md->bytes_available;
    st.fragmentation = md->fragmentation;
    st.peak_bytes_in_use = md->peak_bytes_in_use;
    return st;
}

/* Names from TensorFlow's DataType enum (types.proto), indexed by value. */
static const char *const dtype_names[] = {
    "INVALID", "float", "double", "int32", "uint8", "int16", "int8", "string",
    "complex64", "int64", "bool", "qint8", "quint8", "qint32", "bfloat16", "qint16",
    "quint16", "uint16", "complex128", "half", "resource", "variant", "uint32", "uint64",
    "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
    "float8_e5m2fnuz", "int4", "uint4",
};
#define N_DTYPES ((int32_t)(sizeof dtype_names / sizeof dtype_names[0]))
#define DTYPE_REF_OFFSET 100   /* TF marks reference types as value + 100 */

const char *pv_memory_data_type_name(int32_t dtype, pv_arena *a)
{
    if (dtype > DTYPE_REF_OFFSET && dtype - DTYPE_REF_OFFSET < N_DTYPES)
        return pv_arena_printf(a, "%s_ref", dtype_names[dtype - DTYPE_REF_OFFSET]);
    if (dtype > DTYPE_REF_OFFSET)
        return pv_arena_printf(a, "unknown dtype enum (%d)_ref", (int)(dtype - DTYPE_REF_OFFSET));
    if (dtype >= 0 && dtype < N_DTYPES)
        return dtype_names[dtype];
    return pv_arena_printf(a, "unknown dtype enum (%d)", (int)dtype);
}

pv_memory_meta pv_memory_snapshot_meta(const pv_model *m, const pv_memory_snapshot *s,
                                       pv_arena *a)
{
    pv_memory_meta mt = {0};
    pv_memory_details src_md = s->details;
    const pv_event_extra *src = pv_model_event_extra(m, s->meta_event);
    if (s->meta_event != s->event)
        details_of(m, s->meta_event, &src_md);
    mt.activity = activity_of(m, s->event);
    mt.step_id = s->step_id;
    mt.requested_bytes = s->details.requested_bytes;
    mt.allocation_bytes = s->details.allocation_bytes;
    mt.address = s->details.address;
    mt.tf_op_name = pv_model_str(m, src != NULL ? src->tf_op : 0);
    mt.region_type = pv_model_str(m, src_md.region_type);
    mt.tensor_shape = pv_model_str(m, src_md.shape);
    mt.data_type = pv_memory_data_type_name(src_md.data_type, a);
    return mt;
}

pv_memory_meta pv_memory_active_meta(const pv_model *m, const pv_memory_allocator *al,
                                     const pv_memory_active *row, pv_arena *a)
{
    if (row->snapshot < 0)
        return al->special[-row->snapshot - 1];
    return pv_memory_snapshot_meta(m, &al->snapshots[row->snapshot], a);
}

/* ---- step 1: snapshots and summaries in file order ------------------------- */

/* The allocators met so far, keyed by the memory id's string id. Profiles
 * have a handful (one per device plus host allocators), so a linear scan
 * with a remembered last hit is enough; PV_MEMORY_MAX_ALLOCATORS keeps a
 * hostile file with a new name on every event from making it quadratic. */
typedef struct allocator_set {
    uint32_t *ids;
    size_t n, cap;
    size_t last;
} allocator_set;

static size_t allocator_index(allocator_set *set, uint32_t id, pv_arena *a)
{
    if (set->last < set->n && set->ids[set->last] == id)
        return set->last;
    for (size_t i = 0; i < set->n; i++) {
        if (set->ids[i] == id) {
            set->last = i;
            return i;
        }
    }
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 8;
        uint32_t *ids = pv_arena_alloc(a, cap * sizeof *ids);
        if (set->n > 0)
            memcpy(ids, set->ids, set->n * sizeof *ids);
        set->ids = ids;
        set->cap = cap;
    }
    set->ids[set->n] = id;
    set->last = set->n;
    return set->n++;
}

/* The host plane the reference reads (/host:CPU), or UINT32_MAX. */
static uint32_t host_plane(const pv_model *m)
{
    for (uint32_t p = 0; p < m->n_planes; p++) {
        if (m->planes[p].kind == PV_PLANE_HOST)
            return p;
    }
    return UINT32_MAX;
}

static bool is_memory_event(const pv_model *m, uint64_t ev)
{
    /* activity_of reads the flags that pv_model_event_memory checks */
    return activity_of(m, ev) != PV_MEMORY_UNKNOWN_ACTIVITY;
}

/* UpdateProfileSummary: the lifetime peak is whatever the latest event
 * says; the in-window peak moves on ties (>=), so it lands on the last
 * event at the highest stack+heap. */
static void update_summary(pv_memory_allocator *al, const pv_memory_details *md,
                           int64_t time_offset_ps, uint64_t ev, uint64_t *peak_event)
{
    pv_memory_summary *sum = &al->summary;
    sum->peak_bytes_usage_lifetime = md->peak_bytes_in_use;
    int64_t used = md->bytes_reserved + md->bytes_allocated;
    if (used >= sum->peak_stats.peak_bytes_in_use) {
        sum->peak_stats.stack_reserved_bytes = md->bytes_reserved;
        sum->peak_stats.heap_allocated_bytes = md->bytes_allocated;
        sum->peak_stats.free_memory_bytes = md->bytes_available;
        sum->peak_stats.fragmentation = md->fragmentation;
        sum->peak_stats.peak_bytes_in_use = used;
        sum->peak_stats_time_ps = time_offset_ps;
        sum->memory_capacity = used + md->bytes_available;
        *peak_event = ev;
    }
}

/* Visits the host plane's memory events in file order (tracks in order,
 * events by id, which is start order within a track) and fills one
 * allocator per memory id. Event ids grow along this walk, which the
 * stable sort below relies on. */
static int collect(const pv_model *m, uint32_t plane, pv_arena *a,
                   pv_memory_profile_result *out, uint64_t **peak_events, pv_error *err)
{
    const pv_plane *pl = &m->planes[plane];
    allocator_set set = {0};
    size_t *counts = NULL;
    size_t counts_cap = 0;
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            if (!is_memory_event(m, e))
                continue;
            pv_memory_details md;
            details_of(m, e, &md);
            size_t i = allocator_index(&set, md.memory_id, a);
            if (set.n > PV_MEMORY_MAX_ALLOCATORS)
                return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                                    "the memory events name more than %d allocators",
                                    PV_MEMORY_MAX_ALLOCATORS);
            if (set.cap > counts_cap) {
                size_t *c = pv_arena_zalloc(a, set.cap * sizeof *c);
                if (counts_cap > 0)
                    memcpy(c, counts, counts_cap * sizeof *c);
                counts = c;
                counts_cap = set.cap;
            }
            /* snapshots are found by their 32-bit index (pv_hashtab values) */
            if (++counts[i] == UINT32_MAX)
                return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                                    "an allocator has %u memory events or more", UINT32_MAX);
        }
    }
    out->n_allocators = set.n;
    out->allocators = pv_arena_zalloc(a, (set.n ? set.n : 1) * sizeof *out->allocators);
    *peak_events = pv_arena_zalloc(a, (set.n ? set.n : 1) * sizeof **peak_events);
    for (size_t i = 0; i < set.n; i++) {
        pv_memory_allocator *al = &out->allocators[i];
        al->memory_id = pv_model_str(m, set.ids[i]);
        al->snapshots = pv_arena_alloc(a, counts[i] * sizeof *al->snapshots);
    }
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        int64_t line_ps = tr->timestamp_ns * 1000;
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            if (!is_memory_event(m, e))
                continue;
            pv_memory_details d;
            const pv_memory_details *md = &d;
            details_of(m, e, &d);
            pv_memory_allocator *al = &out->allocators[allocator_index(&set, md->memory_id, a)];
            pv_memory_snapshot *s = &al->snapshots[al->n_snapshots++];
            s->details = d;
            s->time_offset_ps = m->ev_start_ps[e] - line_ps;
            s->start_ps = m->ev_start_ps[e];
            s->event = e;
            s->meta_event = e;
            s->step_id = m->ev_group[e];
            if (activity_of(m, e) == PV_MEMORY_ALLOCATION)
                al->n_allocations++;
            else
                al->n_deallocations++;
            update_summary(al, md, s->time_offset_ps, e, &(*peak_events)[al - out->allocators]);
        }
    }
    return 0;
}

/* ---- step 2: per-allocator post-processing --------------------------------- */

/* Merges the sorted runs s[lo, mid) and s[mid, hi) through tmp, taking
 * the left run first on equal times, which keeps the sort stable. */
static void merge_runs(pv_memory_snapshot *s, pv_memory_snapshot *tmp, size_t lo, size_t mid,
                       size_t hi)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        tmp[k++] = s[j].time_offset_ps < s[i].time_offset_ps ? s[j++] : s[i++];
    while (i < mid)
        tmp[k++] = s[i++];
    while (j < hi)
        tmp[k++] = s[j++];
    memcpy(s + lo, tmp + lo, (hi - lo) * sizeof *s);
}

/* Stable sort by time. The snapshots arrive as one time-sorted run per
 * thread (a track's events are in start order), so a natural merge sort
 * that merges neighbouring runs costs about n log(threads). Stability
 * keeps equal times in file order, as collected, which is event order. */
static void sort_by_time(pv_memory_snapshot *s, size_t n)
{
    if (n < 2)
        return;
    size_t *ends = pv_xmalloc(n * sizeof *ends);
    size_t n_runs = 0;
    for (size_t i = 1; i <= n; i++) {
        if (i == n || s[i].time_offset_ps < s[i - 1].time_offset_ps)
            ends[n_runs++] = i;
    }
    pv_memory_snapshot *tmp = n_runs > 1 ? pv_xmalloc(n * sizeof *tmp) : NULL;
    while (n_runs > 1) {
        size_t out = 0;
        for (size_t r = 0; r < n_runs; r += 2) {
            if (r + 1 == n_runs) {
                ends[out++] = ends[r];
                break;
            }
            size_t lo = r == 0 ? 0 : ends[r - 1];
            merge_runs(s, tmp, lo, ends[r], ends[r + 1]);
            ends[out++] = ends[r + 1];
        }
        n_runs = out;
    }
    free(tmp);
    free(ends);
}

/* UpdateStepId: a snapshot outside any step joins the step after the last
 * one seen (so leading ones get step 0). */
static void fix_step_ids(pv_memory_allocator *al)
{
    int64_t last_valid = -1;
    for (size_t i = 0; i < al->n_snapshots; i++) {
        if (al->snapshots[i].step_id == -1)
            al->snapshots[i].step_id = last_valid + 1;
        else
            last_valid = al->snapshots[i].step_id;
    }
}

/* UpdateDeallocation: a free takes the op, region, type and shape of the
 * earliest still-unmatched allocation at its address. A second allocation
 * at an address already waiting keeps the first one. */
static void match_frees(const pv_model *m, pv_memory_allocator *al)
{
    /* address -> snapshot of its allocation: it holds the blocks alive, far
     * fewer than the snapshots, so it grows rather than being sized for all */
    pv_hashtab pending = {0};
    for (size_t i = 0; i < al->n_snapshots; i++) {
        pv_memory_snapshot *s = &al->snapshots[i];
        pv_hashtab_cursor c = pv_hashtab_probe(&pending, pv_hash_u64(s->details.address));
        uint32_t alloc;
        bool waiting = pv_hashtab_next(&c, &alloc);
        if (activity_of(m, s->event) == PV_MEMORY_DEALLOCATION) {
            if (waiting) {
                s->meta_event = al->snapshots[alloc].event;
                pv_hashtab_remove(&pending, &c);
            } else {
                al->n_unmatched_frees++;
            }
        } else if (!waiting) {
            pv_hashtab_insert(&pending, &c, (uint32_t)i);
        }
    }
    pv_hashtab_fini(&pending);
}

/* SampleMemoryProfileTimeline: a max box filter. n snapshots go into
 * max_points windows, the first count1 of width w = n / max_points and
 * the rest of width w + 1; each window keeps its first snapshot with the
 * highest stack+heap. The same windows give profview's extremes: each
 * window's first lowest and first highest snapshot, in time order. */
static void sample_timeline(const pv_model *m, pv_memory_allocator *al, size_t max_points,
                            pv_arena *a)
{
    size_t n = al->n_snapshots;
    size_t keep = n > max_points ? max_points : n;
    al->timeline = pv_arena_alloc(a, (keep ? keep : 1) * sizeof *al->timeline);
    al->n_timeline = keep;
    al->extremes = pv_arena_alloc(a, (keep > 0 ? 2 * keep : 1) * sizeof *al->extremes);
    al->n_extremes = 0;
    if (n <= max_points) {
        for (size_t i = 0; i < n; i++) {
            al->timeline[i] = i;
            al->extremes[i] = i;
        }
        al->n_extremes = n;
        return;
    }
    size_t width = n / max_points;
    size_t count1 = max_points * (width + 1) - n;
    size_t start = 0;
    for (size_t k = 0; k < max_points; k++) {
        size_t w = k < count1 ? width : width + 1;
        size_t hi = start, lo = start;
        int64_t hi_bytes = heap_and_stack(m, &al->snapshots[start]);
        int64_t lo_bytes = hi_bytes;
        for (size_t i = start + 1; i < start + w; i++) {
            int64_t bytes = heap_and_stack(m, &al->snapshots[i]);
            if (bytes > hi_bytes) {
                hi = i;
                hi_bytes = bytes;
            }
            if (bytes < lo_bytes) {
                lo = i;
                lo_bytes = bytes;
            }
        }
        al->timeline[k] = hi;
        al->extremes[al->n_extremes++] = lo < hi ? lo : hi;
        if (lo != hi)
            al->extremes[al->n_extremes++] = lo < hi ? hi : lo;
        start += w;
    }
}

/* GetPeakMemoryStep: the step of the last snapshot (in time order) whose
 * stack+heap equals the peak; 0 when none does. */
static int64_t peak_step(const pv_model *m, const pv_memory_allocator *al)
{
    int64_t step = 0;
    for (size_t i = 0; i < al->n_snapshots; i++) {
        if (heap_and_stack(m, &al->snapshots[i]) == al->summary.peak_stats.peak_bytes_in_use)
            step = al->snapshots[i].step_id;
    }
    return step;
}

/* ---- step 3: what was alive at the peak ------------------------------------ */

typedef struct candidate {
    pv_memory_active row;
    pv_memory_meta meta;
} candidate;

/* The reference's MetadataComparator (sizes descending, then names
 * ascending), with the snapshot index last so equal rows sort the same
 * way on every run. */
static int by_meta(const void *pa, const void *pb)
{
    const candidate *a = pa, *b = pb;
    const pv_memory_meta *x = &a->meta, *y = &b->meta;
    if (x->allocation_bytes != y->allocation_bytes)
        return x->allocation_bytes > y->allocation_bytes ? -1 : 1;
    if (x->requested_bytes != y->requested_bytes)
        return x->requested_bytes > y->requested_bytes ? -1 : 1;
    int c = strcmp(x->tf_op_name, y->tf_op_name);
    if (c == 0)
        c = strcmp(x->region_type, y->region_type);
    if (c == 0)
        c = strcmp(x->data_type, y->data_type);
    if (c == 0)
        c = strcmp(x->tensor_shape, y->tensor_shape);
    if (c != 0)
        return c;
    return a->row.snapshot < b->row.snapshot ? -1 : a->row.snapshot > b->row.snapshot;
}

static bool same_meta(const pv_memory_meta *x, const pv_memory_meta *y)
{
    return x->allocation_bytes == y->allocation_bytes &&
           x->requested_bytes == y->requested_bytes &&
           strcmp(x->tf_op_name, y->tf_op_name) == 0 &&
           strcmp(x->region_type, y->region_type) == 0 &&
           strcmp(x->data_type, y->data_type) == 0 &&
           strcmp(x->tensor_shape, y->tensor_shape) == 0;
}

static pv_memory_meta special_meta(const char *op, const char *region, int64_t bytes,
                                   int64_t step)
{
    pv_memory_meta mt = {0};
    mt.activity = PV_MEMORY_ALLOCATION;
    mt.requested_bytes = bytes;
    mt.allocation_bytes = bytes;
    mt.tf_op_name = op;
    mt.step_id = step;
    mt.region_type = region;
    mt.data_type = "INVALID";
    mt.tensor_shape = "unknown";
    return mt;
}

/* Sets free_start_ps of each live candidate to its first free after it. */
static void find_frees(const pv_model *m, const pv_memory_allocator *al, candidate *c, size_t n)
{
    pv_hashtab by_addr = {0};   /* address -> candidate */
    pv_hashtab_reserve(&by_addr, n);
    for (size_t k = 0; k < n; k++)
        pv_hashtab_u64_put(&by_addr, c[k].meta.address, (uint32_t)k);
    for (size_t j = 0; j < al->n_snapshots && by_addr.n > 0; j++) {
        const pv_memory_snapshot *s = &al->snapshots[j];
        if (activity_of(m, s->event) != PV_MEMORY_DEALLOCATION)
            continue;
        pv_hashtab_cursor at = pv_hashtab_probe(&by_addr, pv_hash_u64(s->details.address));
        uint32_t k;
        if (!pv_hashtab_next(&at, &k) || (int64_t)j <= c[k].row.snapshot)
            continue;
        c[k].row.free_start_ps = s->start_ps;
        pv_hashtab_remove(&by_addr, &at);
    }
    pv_hashtab_fini(&by_addr);
}

/* ProcessActiveAllocations: replays the peak step up to the peak time.
 * Heap bytes no replayed allocation explains become the "unused
 * preallocated device memory" row; frees of allocations made before the
 * step are taken out of it, since that memory was not in use at the peak
 * either. */
static void active_at_peak(const pv_model *m, pv_memory_allocator *al, pv_arena *a)
{
    const pv_memory_summary *sum = &al->summary;
    int64_t unmapped = sum->peak_stats.heap_allocated_bytes;
    int64_t unmapped_frees = 0;
    pv_hashtab live = {0};      /* address -> snapshot of its allocation */
    for (size_t i = 0; i < al->n_snapshots; i++) {
        const pv_memory_snapshot *s = &al->snapshots[i];
        if (s->time_offset_ps > sum->peak_stats_time_ps)
            break;
        if (s->step_id != al->peak_step_id)
            continue;
        const pv_memory_details *md = &s->details;
        if (activity_of(m, s->event) == PV_MEMORY_ALLOCATION) {
            pv_hashtab_u64_put(&live, md->address, (uint32_t)i);
            unmapped -= md->allocation_bytes;
        } else {
            if (!pv_hashtab_u64_remove(&live, md->address))
                unmapped_frees += md->allocation_bytes;
            unmapped += md->allocation_bytes;
        }
    }
    unmapped -= unmapped_frees;

    size_t n = 0;
    candidate *c = pv_arena_alloc(a, (live.n + 2) * sizeof *c);
    for (size_t slot = 0; slot < live.cap; slot++) {
        uint32_t i;
        if (!pv_hashtab_slot_val(&live, slot, &i))
            continue;
        candidate *k = &c[n++];
        k->row.snapshot = i;
        k->row.num_occurrences = 1;
        k->row.free_start_ps = INT64_MIN;
        k->meta = pv_memory_snapshot_meta(m, &al->snapshots[i], a);
    }
    pv_hashtab_fini(&live);
    find_frees(m, al, c, n);

    if (unmapped > 0) {
        al->special[al->n_special] = special_meta("unused preallocated device memory",
                                                  "persist/dynamic", unmapped, al->peak_step_id);
        al->n_special++;
    }
    if (sum->peak_stats.stack_reserved_bytes > 0) {
        al->special[al->n_special] = special_meta("stack", "stack",
                                                  sum->peak_stats.stack_reserved_bytes,
                                                  al->peak_step_id);
        al->n_special++;
    }
    for (size_t k = 0; k < al->n_special; k++) {
        c[n].row.snapshot = -(int64_t)k - 1;
        c[n].row.num_occurrences = 1;
        c[n].row.free_start_ps = INT64_MIN;
        c[n].meta = al->special[k];
        n++;
    }

    pv_sort(c, n, sizeof *c, by_meta);
    al->active = pv_arena_alloc(a, (n ? n : 1) * sizeof *al->active);
    al->n_active = 0;
    for (size_t i = 0; i < n; i++) {
        pv_memory_active *row = &al->active[al->n_active++];
        *row = c[i].row;
        while (i + 1 < n && same_meta(&c[i].meta, &c[i + 1].meta)) {
            row->num_occurrences++;
            i++;
        }
    }
}

/* ---- TPU module executions --------------------------------------------------- */

/* GenerateHloModules: every event of every "XLA Modules" line of the TPU
 * planes, in file order. */
static void hlo_modules(const pv_model *m, pv_arena *a, pv_memory_profile_result *out)
{
    static const char prefix[] = "/device:";
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t p = 0; p < m->n_planes; p++) {
            const pv_plane *pl = &m->planes[p];
            if (pl->kind != PV_PLANE_TPU)
                continue;
            const char *plane_name = pv_model_str(m, pl->name);
            if (strncmp(plane_name, prefix, sizeof prefix - 1) == 0)
                plane_name += sizeof prefix - 1;
            for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
                const pv_track *tr = &m->tracks[t];
                if (strcmp(pv_model_str(m, tr->name), "XLA Modules") != 0)
                    continue;
                for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
                    if (pass == 1) {
                        pv_memory_hlo_module *hm = &out->hlo_modules[n];
                        hm->name = pv_model_str(m, m->metas[m->ev_meta[e]].name);
                        hm->start_time_ps = m->ev_start_ps[e] - tr->timestamp_ns * 1000;
                        hm->end_time_ps = hm->start_time_ps + m->ev_dur_ps[e];
                        hm->id = (int64_t)n;
                        hm->plane_name = plane_name;
                    }
                    n++;
                }
            }
        }
        if (pass == 0) {
            out->hlo_modules = pv_arena_alloc(a, (n ? n : 1) * sizeof *out->hlo_modules);
            out->n_hlo_modules = n;
            n = 0;
        }
    }
}

/* ---- the tool ----------------------------------------------------------------- */

static int by_memory_id(const void *pa, const void *pb)
{
    const pv_memory_allocator *a = pa, *b = pb;
    return strcmp(a->memory_id, b->memory_id);
}

int pv_tool_memory_profile(const pv_model *m, const pv_memory_profile_query *q, pv_arena *a,
                           pv_memory_profile_result *out, pv_error *err)
{
    size_t max_points = q != NULL && q->max_timeline_points > 0 ? q->max_timeline_points
                                                                  : PV_MEMORY_TIMELINE_POINTS;
    if (max_points > (size_t)1 << 24)
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "max_timeline_points must be at most %zu", (size_t)1 << 24);
    memset(out, 0, sizeof *out);
    out->model_min_ps = m->min_ps;
    uint32_t plane = host_plane(m);
    if (plane == UINT32_MAX)
        return 0;
    out->has_host_plane = true;
    uint64_t *peak_events = NULL;
    int rc = collect(m, plane, a, out, &peak_events, err);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    for (size_t i = 0; i < out->n_allocators; i++) {
        pv_memory_allocator *al = &out->allocators[i];
        sort_by_time(al->snapshots, al->n_snapshots);
        al->peak_snapshot = NO_INDEX;
        for (size_t k = 0; k < al->n_snapshots; k++) {
            if (al->snapshots[k].event == peak_events[i])
                al->peak_snapshot = k;
        }
        fix_step_ids(al);
        match_frees(m, al);
        sample_timeline(m, al, max_points, a);
        al->peak_step_id = peak_step(m, al);
        active_at_peak(m, al, a);
    }
    pv_sort(out->allocators, out->n_allocators, sizeof *out->allocators, by_memory_id);
    hlo_modules(m, a, out);
    return 0;
}
