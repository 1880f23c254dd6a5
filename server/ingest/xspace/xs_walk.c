/* xs_walk: the walker thread and the ring of batches it fills. Batches
 * of BATCH items (and their events' stats, read with the builder's own
 * reader, pv_builder_wire_read) go round a ring of RING: the walker fills one while the
 * decoder empties another, and either may fall behind for a while (a busy
 * machine takes a core away) before the other waits. A batch is only
 * read by the decoder after the walker handed it over, and only refilled
 * after the decoder gave it back (util/handoff.h).
 *
 * The walker has its own guard against the file shrinking under its
 * mapping (mapguard.h): a jump ends the walk, dropping the batch it was
 * filling, and the decoder, which reads on where the walker's items end,
 * meets the cut itself under its guard. */
#include "ingest/xspace/xs_walk.h"
#include "util/handoff.h"
#include "util/mapguard.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdlib.h>

/* Below this a thread costs more than the decoder's time it takes on. */
#define WALK_MIN_BYTES ((size_t)16 << 20)
#define RING 16
#define BATCH 2048u
#define BATCH_STATS (4 * BATCH)
#define EVENT_STATS_MAX 32u   /* an event with more: the decoder reads them */
#define LEAN_AHEAD 4u         /* batches left to the decoder below which stats are left to it */
/* Events between two calls that fault in the builder's columns, each for
 * the next two steps' events: a call per batch would cost more in
 * syscalls than it saves. */
#define FAULT_STEP ((uint64_t)1 << 15)
_Static_assert(RING * BATCH + 2 * FAULT_STEP <= PV__XS_WALK_LEAD,
               "the walker faults in no further than the decoder keeps room");

typedef struct batch {
    pv__xs_item items[BATCH];
    size_t n;
    pv_wire_stat stats[BATCH_STATS];   /* the events' stats, read ahead */
    size_t n_stats;
    bool last;              /* the walker's last batch */
} batch;

struct pv__xs_walk {
    const pv_ingest_src *src;
    pthread_t thread;
    pv_prefault *pf;        /* the builder's columns to fault in, or NULL */
    uint64_t n_events;      /* events handed over, from the builder's first */
    uint64_t next_fault;    /* n_events at which to fault in again */
    bool lean;              /* the decoder is catching up: leave stats to it */
    pv_handoff ho;          /* the ring's counts: the walker fills, the decoder reads */
    size_t fill;            /* the batch the walker fills (read per event: kept, not
                               worked out from the counts each time) */
    /* The decoder's own fields sit a cache line away from what the walker
     * reads for every event: pos moves on every item, and a line shared
     * with fill costs the walker a miss each time (15 % of the two-thread
     * decode). Padding, not _Alignas: the struct comes from malloc. */
    char apart_walker[64];
    size_t pos;             /* the decoder's next item in its batch */
    size_t held;            /* the batch the decoder holds, when holding */
    bool holding;
    char apart_ring[64];
    batch ring[RING];
};

bool pv__xs_walk_worth(size_t len)
{
    return len >= WALK_MIN_BYTES && pv_handoff_worth();
}

/* ---- the walker's side ------------------------------------------------------- */

/* Hands the batch being filled over and waits for room for the next.
 * False when the decoder stopped. */
static bool hand_over(pv__xs_walk *w, bool last)
{
    w->ring[w->fill].last = last;
    if (!pv_handoff_put(&w->ho, last))
        return false;
    w->fill = pv_handoff_filling(&w->ho);
    w->ring[w->fill].n = 0;
    w->ring[w->fill].n_stats = 0;
    /* Reading stats is work either thread can do (the decoder reads what
     * the walker left), so the one that is behind leaves it to the other:
     * with the decoder down to its last few batches, the next batch goes
     * without its stats read. Few is four: at two the decoder was already
     * waiting now and then (2 % slower on the 1 GB profile). */
    w->lean = pv_handoff_ahead(&w->ho) < LEAN_AHEAD;
    return true;
}

/* Reads the stats of the event it holds into the batch it will go in;
 * false when the decoder stopped. */
static bool read_stats(pv__xs_walk *w, pv__xs_item *it)
{
    if (!it->scanned || it->s.aggregate || it->s.first_stat == NULL || w->lean)
        return true;
    if (BATCH_STATS - w->ring[w->fill].n_stats < EVENT_STATS_MAX &&
        !hand_over(w, false))
        return false;
    batch *b = &w->ring[w->fill];
    const uint8_t *data = w->src->data;
    int n = pv_builder_wire_read(data, w->src->len, (uint64_t)(it->s.first_stat - data),
                                 (uint64_t)(it->f.data + it->f.v - it->s.first_stat),
                                 b->stats + b->n_stats, EVENT_STATS_MAX);
    if (n >= 0) {
        it->s.stats = b->stats + b->n_stats;
        it->s.n_stats = n;
        b->n_stats += (size_t)n;
    }
    return true;
}

/* Appends it to the batch being filled; false when the decoder stopped. */
static bool put(pv__xs_walk *w, const pv__xs_item *it)
{
    batch *b = &w->ring[w->fill];
    b->items[b->n++] = *it;
    return b->n < BATCH || hand_over(w, false);
}

/* One line's events and own fields, read as the decoder reads them;
 * false when the decoder stopped. */
static bool walk_line(pv__xs_walk *w, const pv_pb_field *lf, const uint8_t *readable)
{
    pv__xs_item it = {.kind = PV_XS_LINE, .f = *lf};
    if (pv_handoff_stopped(&w->ho) || !put(w, &it))
        return false;
    const uint8_t *p = lf->data, *end = lf->data + (size_t)lf->v;
    pv__xs_line line = {0};
    for (;;) {
        it.kind = PV_XS_EVENT;
        if (pv__xs_event_field(&p, end, readable, &it.f)) {
            line.after_event = true;
            it.scanned = pv__xs_event_scan(&it.f, readable, &it.s);
            if (!read_stats(w, &it) || !put(w, &it))
                return false;
            if (++w->n_events >= w->next_fault && w->pf != NULL) {
                pv_prefault_upto(w->pf, w->n_events + 2 * FAULT_STEP);
                w->next_fault = w->n_events + FAULT_STEP;
            }
            continue;
        }
        /* The line's own fields are gathered for the decoder; it takes
         * anything else from here on. */
        const uint8_t *at = p;
        pv_pb_field f;
        if (p < end && pv_pb_field_in(&p, end, readable, &f) == PV_PB_OK && f.num != 4 &&
            pv__xs_line_field(&line, &f))
            continue;
        it.kind = PV_XS_END;
        it.f.data = at;
        it.line = line;
        return put(w, &it);
    }
}

/* The file's planes and their lines in file order; stops at the first
 * field that does not read (the decoder reports it). */
static void walk(pv__xs_walk *w)
{
    const uint8_t *p = w->src->data, *end = p + w->src->len;
    pv_pb_field pf, lf;
    while (pv_pb_field_in(&p, end, end, &pf) == PV_PB_OK) {
        if (pf.num != 1 || pf.wt != 2)
            continue;
        const uint8_t *q = pf.data, *plane_end = pf.data + (size_t)pf.v;
        while (pv_pb_field_in(&q, plane_end, end, &lf) == PV_PB_OK) {
            if (lf.num == 3 && lf.wt == 2 && !walk_line(w, &lf, end))
                return;
        }
    }
}

static void *walker_main(void *arg)
{
    pv__xs_walk *w = arg;
    pv_map_guard g;
    if (PV_MAP_GUARD_ARM(&g, w->src->data, w->src->len) == 0)
        walk(w);
    else
        w->ring[w->fill].n = 0;   /* it may hold a torn item */
    pv_map_guard_disarm(&g);
    (void)hand_over(w, true);
    return NULL;
}

pv__xs_walk *pv__xs_walk_start(const pv_ingest_src *src, pv_prefault *pf, uint64_t from)
{
    pv__xs_walk *w = pv_xcalloc(1, sizeof *w);
    w->src = src;
    w->pf = pf;
    w->n_events = w->next_fault = from;
    pv_handoff_init(&w->ho, RING);
    if (pthread_create(&w->thread, NULL, walker_main, w) != 0) {
        pv_handoff_fini(&w->ho);
        free(w);
        return NULL;
    }
    return w;
}

/* ---- the decoder's side ------------------------------------------------------ */

const pv__xs_item *pv__xs_walk_next(pv__xs_walk *w)
{
    if (w->holding) {
        batch *b = &w->ring[w->held];
        if (w->pos < b->n)
            return &b->items[w->pos++];
        if (b->last)
            return NULL;
        pv_handoff_give_back(&w->ho);
    }
    w->held = pv_handoff_take(&w->ho);
    w->holding = true;
    w->pos = 0;
    batch *b = &w->ring[w->held];
    return w->pos < b->n ? &b->items[w->pos++] : NULL;
}

void pv__xs_walk_free(pv__xs_walk *w)
{
    if (w == NULL)
        return;
    pv_handoff_stop(&w->ho);
    pthread_join(w->thread, NULL);
    pv_handoff_fini(&w->ho);
    free(w);
}
