/* memory_profile: the analysis half of the memory profile tool (JSON is in
 * memory_profile_json.c). Follows xprof's xplane_to_memory_profile step by
 * step; where the reference leaves an order unspecified (unstable sorts,
 * hash-map iteration) profview breaks ties by event id so a result is the
 * same on every run. */
#include "tools/memory_profile/memory_profile_priv.h"
#include "util/hashtab.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#define NO_INDEX SIZE_MAX

/* ---- step 1: counts and summaries in file order ---------------------------- */

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

/* What the walks read of one memory event, noted as collect decodes it,
 * so that they do not decode it again: its allocator, its address and its
 * stack + heap bytes. In file order: a track's events are contiguous, and
 * each walk's cursor on a track moves through them in that order. */
typedef struct event_notes {
    uint16_t *allocator;
    uint64_t *address;
    int64_t *in_use;
    size_t *track_first;    /* per track of the plane: its first note */
} event_notes;

static void notes_free(event_notes *n)
{
    free(n->allocator);
    free(n->address);
    free(n->in_use);
    free(n->track_first);
}

_Static_assert(PV_MEMORY_MAX_ALLOCATORS <= UINT16_MAX, "an allocator's index fits 16 bits");

/* Visits the host plane's memory events in file order (tracks in order,
 * events by id) and counts them to one allocator per memory id, whose
 * summary they update; notes what the walks read of each. peak_events[i]
 * is the event that set allocator i's peak. Allocators are in the order
 * of their first event. */
static int collect(const pv_model *m, uint32_t plane, pv_arena *a, allocator_set *set,
                   pv_memory_profile_result *out, uint64_t **peak_events, event_notes *notes,
                   pv_error *err)
{
    const pv_plane *pl = &m->planes[plane];
    size_t cap = 0, n_notes = 0, cap_notes = 0;
    notes->track_first = pv_xmalloc((pl->n_tracks ? pl->n_tracks : 1) * sizeof *notes->track_first);
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        int64_t line_ps = tr->timestamp_ns * 1000;
        notes->track_first[t - pl->first_track] = n_notes;
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            if (!is_memory_event(m, e))
                continue;
            pv_memory_details md;
            details_of(m, e, &md);
            size_t i = allocator_index(set, md.memory_id, a);
            if (set->n > PV_MEMORY_MAX_ALLOCATORS)
                return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                                    "the memory events name more than %d allocators",
                                    PV_MEMORY_MAX_ALLOCATORS);
            if (n_notes == cap_notes) {
                cap_notes = cap_notes ? cap_notes + cap_notes / 2 : 4096;
                notes->allocator = pv_xrealloc(notes->allocator, cap_notes * sizeof *notes->allocator);
                notes->address = pv_xrealloc(notes->address, cap_notes * sizeof *notes->address);
                notes->in_use = pv_xrealloc(notes->in_use, cap_notes * sizeof *notes->in_use);
            }
            notes->allocator[n_notes] = (uint16_t)i;
            notes->address[n_notes] = md.address;
            notes->in_use[n_notes] = md.bytes_allocated + md.bytes_reserved;
            n_notes++;
            if (set->cap > cap) {
                pv_memory_allocator *al = pv_arena_zalloc(a, set->cap * sizeof *al);
                uint64_t *pe = pv_arena_zalloc(a, set->cap * sizeof *pe);
                if (cap > 0) {
                    memcpy(al, out->allocators, cap * sizeof *al);
                    memcpy(pe, *peak_events, cap * sizeof *pe);
                }
                out->allocators = al;
                *peak_events = pe;
                cap = set->cap;
            }
            out->n_allocators = set->n;
            pv_memory_allocator *al = &out->allocators[i];
            /* the hash tables below hold positions as 32-bit values */
            if (++al->n_snapshots == UINT32_MAX)
                return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                                    "an allocator has %u memory events or more", UINT32_MAX);
            if (activity_of(m, e) == PV_MEMORY_ALLOCATION)
                al->n_allocations++;
            else
                al->n_deallocations++;
            update_summary(al, &md, m->ev_start_ps[e] - line_ps, e, &(*peak_events)[i]);
        }
    }
    for (size_t i = 0; i < set->n; i++)
        out->allocators[i].memory_id = pv_model_str(m, set->ids[i]);
    return 0;
}

/* ---- the events in time order ----------------------------------------------- */

/* A track's next memory event. */
typedef struct track_cursor {
    uint64_t event, end;
    int64_t line_ps;
    int64_t offset_ps;           /* the event's time offset from its line */
    size_t note;                 /* the event's in event_notes */
} track_cursor;

/* The host plane's memory events in the reference's order: by time offset,
 * equal offsets in file order. A track's events are in start order, so the
 * order is a merge of the tracks, through a binary heap of them. */
typedef struct event_walk {
    const pv_model *m;
    track_cursor *tracks;
    size_t *heap;                /* indices into tracks, the least on top */
    size_t n;
} event_walk;

static bool cursor_before(const track_cursor *x, const track_cursor *y)
{
    return x->offset_ps != y->offset_ps ? x->offset_ps < y->offset_ps : x->event < y->event;
}

/* Moves c to its first memory event at or after c->event; false when none. */
static bool cursor_settle(const pv_model *m, track_cursor *c)
{
    while (c->event < c->end && !is_memory_event(m, c->event))
        c->event++;
    if (c->event == c->end)
        return false;
    c->offset_ps = m->ev_start_ps[c->event] - c->line_ps;
    return true;
}

/* The heap holds indices into the walk's tracks. */
static bool index_before(const track_cursor *tracks, const size_t *x, const size_t *y)
{
    return cursor_before(&tracks[*x], &tracks[*y]);
}

PV_HEAP(track_heap, size_t, track_cursor, index_before)

static void walk_start(event_walk *w, const pv_model *m, uint32_t plane,
                       const event_notes *notes)
{
    const pv_plane *pl = &m->planes[plane];
    w->m = m;
    w->tracks = pv_xmalloc((pl->n_tracks ? pl->n_tracks : 1) * sizeof *w->tracks);
    w->heap = pv_xmalloc((pl->n_tracks ? pl->n_tracks : 1) * sizeof *w->heap);
    w->n = 0;
    for (uint32_t t = 0; t < pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[pl->first_track + t];
        track_cursor *c = &w->tracks[t];
        c->event = tr->first_event;
        c->end = tr->first_event + tr->n_events;
        c->line_ps = tr->timestamp_ns * 1000;
        c->note = notes->track_first[t];
        if (cursor_settle(m, c))
            w->heap[w->n++] = t;
    }
    for (size_t i = w->n / 2; i-- > 0;)
        track_heap_down(w->tracks, w->heap, w->n, i);
}

/* The next event in time order, with its offset and its note; false at
 * the end. */
static bool walk_next(event_walk *w, uint64_t *ev, int64_t *offset_ps, size_t *note)
{
    if (w->n == 0)
        return false;
    track_cursor *c = &w->tracks[w->heap[0]];
    *ev = c->event;
    *offset_ps = c->offset_ps;
    *note = c->note++;
    c->event++;
    if (!cursor_settle(w->m, c))
        w->heap[0] = w->heap[--w->n];
    track_heap_down(w->tracks, w->heap, w->n, 0);
    return true;
}

static void walk_end(event_walk *w)
{
    free(w->tracks);
    free(w->heap);
}

/* Rows of `size` bytes addressed by a hash table's 32-bit values, reused
 * once given back. */
typedef struct row_pool {
    unsigned char *rows;
    size_t size, n, cap;
    uint32_t *free_rows;
    size_t n_free, cap_free;
} row_pool;

static void *pool_row(const row_pool *p, uint32_t row)
{
    return p->rows + (size_t)row * p->size;
}

static uint32_t pool_take(row_pool *p)
{
    if (p->n_free > 0)
        return p->free_rows[--p->n_free];
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->rows = pv_xrealloc(p->rows, p->cap * p->size);
    }
    return (uint32_t)p->n++;
}

static void pool_give(row_pool *p, uint32_t row)
{
    if (p->n_free == p->cap_free) {
        p->cap_free = p->cap_free ? 2 * p->cap_free : 64;
        p->free_rows = pv_xrealloc(p->free_rows, p->cap_free * sizeof *p->free_rows);
    }
    p->free_rows[p->n_free++] = row;
}

static void pool_fini(row_pool *p)
{
    free(p->rows);
    free(p->free_rows);
}

/* One allocator's state along a walk. */
typedef struct allocator_walk {
    size_t position;             /* of the next snapshot */
    int64_t last_valid_step;     /* UpdateStepId's */
    /* first walk */
    pv_hashtab pending;          /* address -> row of its unmatched allocation */
    row_pool pending_rows;       /* uint64_t: the allocation's event */
    size_t window;               /* the sampling window */
    size_t window_start, window_end; /* its first position and the next window's */
    size_t width, count1;        /* the windows' widths (window_width) */
    pv_memory_snapshot hi, lo;   /* the window's first highest and lowest */
    int64_t hi_bytes, lo_bytes;
    /* second walk */
    pv_hashtab live;             /* address -> row of an allocation replayed */
    row_pool live_rows;          /* pv_memory_snapshot: the allocation */
    int64_t *frees;              /* per live row: the start of its first free after
                                    it, or INT64_MIN */
    size_t cap_frees;
    size_t n_open;               /* live rows whose free is not met yet */
    bool past_peak;              /* the walk is past the peak time */
    int64_t unmapped, unmapped_frees;
} allocator_walk;

/* The snapshot of event ev at offset_ps for w's allocator (its details
 * left to the caller), its step id fixed as UpdateStepId does: a snapshot
 * outside any step joins the step after the last one seen (so leading
 * ones get step 0). */
static void next_snapshot(const pv_model *m, allocator_walk *w, uint64_t ev, int64_t offset_ps,
                          pv_memory_snapshot *s)
{
    s->position = w->position++;
    s->time_offset_ps = offset_ps;
    s->start_ps = m->ev_start_ps[ev];
    s->event = ev;
    s->meta_event = ev;
    s->step_id = m->ev_group[ev];
    if (s->step_id == -1)
        s->step_id = w->last_valid_step + 1;
    else
        w->last_valid_step = s->step_id;
}

/* Kept snapshots decoded between two releases of the profile's pages:
 * they lie far apart in the file, and each read maps a large folio of it
 * (the up to 2,000 an allocator keeps held 112 MB of the 1 GB profile's
 * pages resident). */
#define KEEP_RELEASE_EVERY 128u

/* Keeps s with its details, which the first walk does not decode. */
static void keep(const pv_model *m, pv_memory_allocator *al, const pv_memory_snapshot *s)
{
    pv_memory_snapshot *k = &al->kept[al->n_kept++];
    *k = *s;
    details_of(m, s->event, &k->details);
    if (al->n_kept % KEEP_RELEASE_EVERY == 0)
        pv_model_release_pages(m);
}

/* ---- step 2 and 3: the first walk ------------------------------------------- */

/* UpdateDeallocation: a free takes the op, region, type and shape of the
 * earliest still-unmatched allocation at its address. A second allocation
 * at an address already waiting keeps the first one. The pending table
 * holds the blocks alive, far fewer than the snapshots, so it grows rather
 * than being sized for all. */
static void match_free(const pv_model *m, pv_memory_allocator *al, allocator_walk *w,
                       pv_memory_snapshot *s, uint64_t address)
{
    pv_hashtab_cursor c = pv_hashtab_probe(&w->pending, pv_hash_u64(address));
    uint32_t row;
    bool waiting = pv_hashtab_next(&c, &row);
    if (activity_of(m, s->event) == PV_MEMORY_DEALLOCATION) {
        if (waiting) {
            s->meta_event = *(uint64_t *)pool_row(&w->pending_rows, row);
            pv_hashtab_remove(&w->pending, &c);
            pool_give(&w->pending_rows, row);
        } else {
            al->n_unmatched_frees++;
        }
    } else if (!waiting) {
        row = pool_take(&w->pending_rows);
        *(uint64_t *)pool_row(&w->pending_rows, row) = s->event;
        pv_hashtab_insert(&w->pending, &c, row);
    }
}

/* SampleMemoryProfileTimeline: a max box filter. n snapshots go into
 * points windows, the first count1 of width w = n / points and the rest
 * of width w + 1; each window keeps its first snapshot with the highest
 * stack+heap. The same windows give profview's extremes: each window's
 * first lowest and first highest snapshot, in time order. */
static size_t window_width(const allocator_walk *w, size_t window)
{
    return window < w->count1 ? w->width : w->width + 1;
}

static void sample_start(pv_memory_allocator *al, allocator_walk *w, size_t max_points,
                         pv_arena *a)
{
    size_t n = al->n_snapshots;
    size_t points = n > max_points ? max_points : n;
    al->timeline = pv_arena_alloc(a, (points ? points : 1) * sizeof *al->timeline);
    al->extremes = pv_arena_alloc(a, (points ? 2 * points : 1) * sizeof *al->extremes);
    al->kept = pv_arena_alloc(a, (points ? 2 * points : 1) * sizeof *al->kept);
    w->width = points ? n / points : 0;
    w->count1 = points * (w->width + 1) - n;
    w->window = 0;
    w->window_start = 0;
    w->window_end = window_width(w, 0);
}

static void sample(const pv_model *m, pv_memory_allocator *al, allocator_walk *w,
                   const pv_memory_snapshot *s, int64_t bytes)
{
    if (s->position == w->window_start) {
        w->hi = w->lo = *s;
        w->hi_bytes = w->lo_bytes = bytes;
    } else {
        if (bytes > w->hi_bytes) {
            w->hi = *s;
            w->hi_bytes = bytes;
        }
        if (bytes < w->lo_bytes) {
            w->lo = *s;
            w->lo_bytes = bytes;
        }
    }
    if (s->position + 1 < w->window_end)
        return;
    al->timeline[al->n_timeline++] = w->hi.position;
    const pv_memory_snapshot *first = w->lo.position < w->hi.position ? &w->lo : &w->hi;
    const pv_memory_snapshot *second = first == &w->lo ? &w->hi : &w->lo;
    al->extremes[al->n_extremes++] = first->position;
    keep(m, al, first);
    if (w->lo.position != w->hi.position) {
        al->extremes[al->n_extremes++] = second->position;
        keep(m, al, second);
    }
    w->window++;
    w->window_start = w->window_end;
    w->window_end += window_width(w, w->window);
}

/* Walks every allocator's snapshots in time order: step ids, matched
 * frees, the sampled timeline, the peak snapshot and GetPeakMemoryStep's
 * step (that of the last snapshot, in time order, whose stack+heap equals
 * the peak; 0 when none does). It reads the events' notes, not their
 * stats: the snapshots' details stay zero but for those it keeps. */
static void first_walk(const pv_model *m, uint32_t plane, const event_notes *notes,
                       pv_memory_profile_result *out, allocator_walk *ws,
                       const uint64_t *peak_events)
{
    event_walk ew;
    walk_start(&ew, m, plane, notes);
    uint64_t ev;
    int64_t offset_ps;
    size_t note;
    while (walk_next(&ew, &ev, &offset_ps, &note)) {
        size_t i = notes->allocator[note];
        pv_memory_allocator *al = &out->allocators[i];
        allocator_walk *w = &ws[i];
        pv_memory_snapshot s;
        memset(&s.details, 0, sizeof s.details);
        next_snapshot(m, w, ev, offset_ps, &s);
        match_free(m, al, w, &s, notes->address[note]);
        sample(m, al, w, &s, notes->in_use[note]);
        if (ev == peak_events[i])
            al->peak_snapshot = s.position;
        if (notes->in_use[note] == al->summary.peak_stats.peak_bytes_in_use)
            al->peak_step_id = s.step_id;
    }
    walk_end(&ew);
}

/* ---- step 4: what was alive at the peak ------------------------------------ */

/* ProcessActiveAllocations replays the peak step up to the peak time. Heap
 * bytes no replayed allocation explains become the "unused preallocated
 * device memory" row; frees of allocations made before the step are taken
 * out of it, since that memory was not in use at the peak either. Each
 * allocation alive at the peak then gets its first free after it, at any
 * time and in any step. */
static void replay(const pv_model *m, pv_memory_allocator *al, allocator_walk *w,
                   const pv_memory_snapshot *s)
{
    const pv_memory_details *md = &s->details;
    bool is_free = activity_of(m, s->event) == PV_MEMORY_DEALLOCATION;
    pv_hashtab_cursor c = pv_hashtab_probe(&w->live, pv_hash_u64(md->address));
    uint32_t row = 0;
    bool found = pv_hashtab_next(&c, &row);
    if (!w->past_peak && s->step_id == al->peak_step_id) {
        if (!is_free) {
            if (!found) {
                row = pool_take(&w->live_rows);
                pv_hashtab_insert(&w->live, &c, row);
                if (row >= w->cap_frees) {
                    w->cap_frees = w->live_rows.cap;
                    w->frees = pv_xrealloc(w->frees, w->cap_frees * sizeof *w->frees);
                }
                w->n_open++;
            } else if (w->frees[row] != INT64_MIN) {
                w->n_open++;
            }
            *(pv_memory_snapshot *)pool_row(&w->live_rows, row) = *s;
            w->frees[row] = INT64_MIN;
            w->unmapped -= md->allocation_bytes;
        } else {
            if (found) {
                if (w->frees[row] == INT64_MIN)
                    w->n_open--;
                pv_hashtab_remove(&w->live, &c);
                pool_give(&w->live_rows, row);
            } else {
                w->unmapped_frees += md->allocation_bytes;
            }
            w->unmapped += md->allocation_bytes;
        }
        return;
    }
    if (is_free && found && w->frees[row] == INT64_MIN) {
        w->frees[row] = s->start_ps;
        w->n_open--;
    }
}

/* Walks the snapshots in time order again, now that each allocator's peak
 * step is known, until every allocator is past its peak and every
 * allocation alive there has met its free. */
static void second_walk(const pv_model *m, uint32_t plane, const event_notes *notes,
                        pv_memory_profile_result *out, allocator_walk *ws)
{
    size_t open = out->n_allocators;   /* allocators not yet done */
    for (size_t i = 0; i < out->n_allocators; i++) {
        ws[i].position = 0;
        ws[i].last_valid_step = -1;
        ws[i].unmapped = out->allocators[i].summary.peak_stats.heap_allocated_bytes;
    }
    event_walk ew;
    walk_start(&ew, m, plane, notes);
    uint64_t ev;
    int64_t offset_ps;
    size_t note;
    while (open > 0 && walk_next(&ew, &ev, &offset_ps, &note)) {
        size_t i = notes->allocator[note];
        pv_memory_allocator *al = &out->allocators[i];
        allocator_walk *w = &ws[i];
        bool was_done = w->past_peak && w->n_open == 0;
        pv_memory_snapshot s;
        next_snapshot(m, w, ev, offset_ps, &s);
        if (offset_ps > al->summary.peak_stats_time_ps)
            w->past_peak = true;
        /* Replay keeps the events of the peak step whole, so they are
         * decoded again; of the others it reads the frees' addresses, and
         * only while some allocation it kept is alive. */
        if (!w->past_peak && s.step_id == al->peak_step_id) {
            details_of(m, ev, &s.details);
            replay(m, al, w, &s);
        } else if (w->live.n > 0 && activity_of(m, ev) == PV_MEMORY_DEALLOCATION) {
            memset(&s.details, 0, sizeof s.details);
            s.details.address = notes->address[note];
            replay(m, al, w, &s);
        }
        if (!was_done && w->past_peak && w->n_open == 0)
            open--;
    }
    walk_end(&ew);
}

/* The allocations w's replay left alive at the peak, each with its first
 * free, and the heap bytes none of them explains: what the table of
 * memory_active.c is made from. */
static void active_at_peak(const pv_model *m, pv_memory_allocator *al, const allocator_walk *w,
                           pv_arena *a)
{
    pv__memory_live *live = pv_xmalloc((w->live.n + 1) * sizeof *live);
    size_t n = 0;
    for (size_t slot = 0; slot < w->live.cap; slot++) {
        uint32_t row;
        if (!pv_hashtab_slot_val(&w->live, slot, &row))
            continue;
        live[n].snapshot = *(const pv_memory_snapshot *)pool_row(&w->live_rows, row);
        live[n].free_start_ps = w->frees[row];
        n++;
    }
    pv__memory_active_table(m, al, live, n, w->unmapped - w->unmapped_frees, a);
    free(live);
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
    allocator_set set = {0};
    uint64_t *peak_events = NULL;
    event_notes notes = {0};
    int rc = collect(m, plane, a, &set, out, &peak_events, &notes, err);
    if (rc != 0) {
        notes_free(&notes);
        memset(out, 0, sizeof *out);
        return rc;
    }
    allocator_walk *ws = pv_xcalloc(out->n_allocators ? out->n_allocators : 1, sizeof *ws);
    for (size_t i = 0; i < out->n_allocators; i++) {
        ws[i].last_valid_step = -1;
        ws[i].pending_rows.size = sizeof(uint64_t);
        ws[i].live_rows.size = sizeof(pv_memory_snapshot);
        out->allocators[i].peak_snapshot = NO_INDEX;
        sample_start(&out->allocators[i], &ws[i], max_points, a);
    }
    first_walk(m, plane, &notes, out, ws, peak_events);
    for (size_t i = 0; i < out->n_allocators; i++) {
        pv_hashtab_fini(&ws[i].pending);
        pool_fini(&ws[i].pending_rows);
    }
    second_walk(m, plane, &notes, out, ws);
    notes_free(&notes);
    for (size_t i = 0; i < out->n_allocators; i++) {
        active_at_peak(m, &out->allocators[i], &ws[i], a);
        pv_hashtab_fini(&ws[i].live);
        pool_fini(&ws[i].live_rows);
        free(ws[i].frees);
    }
    free(ws);
    pv_sort(out->allocators, out->n_allocators, sizeof *out->allocators, by_memory_id);
    hlo_modules(m, a, out);
    return 0;
}
