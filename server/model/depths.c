/* depths: every event's nesting depth on its track, and each track's
 * events grouped by depth (pv_track's depth_start and depth_index), the
 * last and longest step of finish. Tracks are independent, so two threads
 * share them, a chunk at a time: one of its own, started as the grouping
 * starts, and finish's own thread once the grouping is done. */
#include "model/model_priv.h"
#include "util/handoff.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Below this many events a thread costs more than the depths it takes
 * off finish's thread. */
#define APART_MIN_EVENTS 1000000u
/* Tracks are taken one at a time, or in 1024 chunks when there are more
 * (a profile of tiny lines would otherwise spend more on taking them). */
#define CHUNKS 1024u
#define NO_TRACK UINT32_MAX

/* What one thread works out: its tracks' depth_start, one after another,
 * and its stack of open events. */
typedef struct part {
    uint32_t *pool;
    size_t n_pool, cap_pool;
    int64_t *stack;         /* ends of the open events */
    size_t cap_stack;
    uint32_t failed;        /* the track that nests too deep, or NO_TRACK */
} part;

struct pv__depths {
    const pv_model *m;
    uint16_t *depth;        /* per event */
    uint32_t *index;        /* depth_index, per event */
    uint32_t *n_depths;     /* per track */
    uint64_t *at;           /* per track: where its depth_start is, its part in bit 63 */
    uint32_t chunk;
    atomic_uint_fast32_t next;   /* the first track not taken yet */
    atomic_bool failed;
    part parts[2];          /* 0: the thread of its own, 1: finish's thread */
    pthread_t thread;
    bool apart;
};

#define PART_BIT ((uint64_t)1 << 63)

/* Track t's depths with a stack of open events: an event nests under the
 * innermost open one that has not ended by its start. Per-depth
 * non-overlap follows: an event only takes depth d after the previous
 * holder of d was popped, i.e. ended at or before this start. Then its
 * events grouped by depth, each group in start order. False when they
 * nest deeper than PV_MAX_DEPTH. */
static bool track_depths(pv__depths *j, unsigned which, uint32_t t)
{
    const pv_model *m = j->m;
    const pv_track *tr = &m->tracks[t];
    part *p = &j->parts[which];
    uint16_t *depth = j->depth;
    uint64_t first = tr->first_event, end = first + tr->n_events;
    size_t sp = 0;
    uint32_t max_depth = 0;
    for (uint64_t e = first; e < end; e++) {
        int64_t start = m->ev_start_ps[e];
        while (sp > 0 && p->stack[sp - 1] <= start)
            sp--;
        if (sp > PV_MAX_DEPTH)
            return false;
        depth[e] = (uint16_t)sp;
        if ((uint32_t)sp > max_depth)
            max_depth = (uint32_t)sp;
        if (sp == p->cap_stack)
            pv__grow((void **)&p->stack, &p->cap_stack, sp + 1, sizeof *p->stack);
        p->stack[sp++] = pv__event_end_ps(m, e);
    }
    uint32_t n_depths = tr->n_events > 0 ? max_depth + 1 : 0;
    j->n_depths[t] = n_depths;
    pv__grow((void **)&p->pool, &p->cap_pool, p->n_pool + n_depths + 1, sizeof *p->pool);
    j->at[t] = p->n_pool | (which ? PART_BIT : 0);
    uint32_t *ds = p->pool + p->n_pool;
    p->n_pool += n_depths + 1;
    uint32_t *ti = j->index + first;
    if (n_depths <= 1) {
        /* a flat line (a stream, a TPU line): the index is the events in
         * order, without counting them one by one */
        ds[0] = 0;
        if (n_depths == 1)
            ds[1] = (uint32_t)tr->n_events;
        for (uint64_t i = 0; i < tr->n_events; i++)
            ti[i] = (uint32_t)i;
        return true;
    }
    memset(ds, 0, (n_depths + 1) * sizeof *ds);
    for (uint64_t e = first; e < end; e++)
        ds[depth[e] + 1]++;
    for (uint32_t d = 0; d < n_depths; d++)
        ds[d + 1] += ds[d];
    /* Walk in start order so each depth's group comes out sorted; the
     * fill cursor is ds[d], restored by the shift below. */
    for (uint64_t e = first; e < end; e++)
        ti[ds[depth[e]]++] = (uint32_t)(e - first);
    for (uint32_t d = n_depths; d > 0; d--)
        ds[d] = ds[d - 1];
    ds[0] = 0;
    return true;
}

/* Takes chunks of tracks until none is left or a thread failed. A thread
 * finishes the chunk it holds, and chunks are taken in order, so the
 * lower of the two parts' failures is the first track that fails. */
static void work(pv__depths *j, unsigned which)
{
    uint32_t n = j->m->n_tracks;
    while (!atomic_load_explicit(&j->failed, memory_order_relaxed)) {
        uint32_t t = (uint32_t)atomic_fetch_add(&j->next, j->chunk);
        if (t >= n)
            return;
        uint32_t end = n - t > j->chunk ? t + j->chunk : n;
        for (; t < end; t++) {
            if (!track_depths(j, which, t)) {
                j->parts[which].failed = t;
                atomic_store(&j->failed, true);
                return;
            }
        }
    }
}

static void *depths_main(void *arg)
{
    work(arg, 0);
    return NULL;
}

pv__depths *pv__depths_start(const pv_model *m)
{
    pv__depths *j = pv_xcalloc(1, sizeof *j);
    size_t n_events = m->n_events ? m->n_events : 1, n_tracks = m->n_tracks ? m->n_tracks : 1;
    j->m = m;
    j->depth = pv_xmalloc(n_events * sizeof *j->depth);
    j->index = pv_xmalloc(n_events * sizeof *j->index);
    j->n_depths = pv_xcalloc(n_tracks, sizeof *j->n_depths);
    j->at = pv_xmalloc(n_tracks * sizeof *j->at);
    j->chunk = m->n_tracks > CHUNKS ? m->n_tracks / CHUNKS : 1;
    atomic_init(&j->next, 0);
    atomic_init(&j->failed, false);
    j->parts[0].failed = j->parts[1].failed = NO_TRACK;
    j->apart = m->n_events >= APART_MIN_EVENTS && pv_handoff_worth() &&
               pthread_create(&j->thread, NULL, depths_main, j) == 0;
    return j;
}

int pv__depths_end(pv__depths *j, pv_model *m, pv__model_store *s, pv_error *err)
{
    work(j, 1);
    if (j->apart)
        pthread_join(j->thread, NULL);
    m->ev_depth = j->depth;
    uint32_t failed = j->parts[0].failed < j->parts[1].failed ? j->parts[0].failed
                                                               : j->parts[1].failed;
    int rc = 0;
    if (failed != NO_TRACK) {
        rc = pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                          "events on line %lld nest deeper than %u levels",
                          (long long)m->tracks[failed].line_id, PV_MAX_DEPTH);
        free(j->index);
    } else {
        /* the parts' depth_start in one pool, in track order */
        uint32_t *pool = pv_xmalloc((j->parts[0].n_pool + j->parts[1].n_pool + 1) * sizeof *pool);
        pv_track *tracks = (pv_track *)m->tracks;
        size_t at = 0;
        for (uint32_t t = 0; t < m->n_tracks; t++) {
            const part *p = &j->parts[(j->at[t] & PART_BIT) != 0];
            memcpy(pool + at, p->pool + (j->at[t] & ~PART_BIT),
                   (j->n_depths[t] + (size_t)1) * sizeof *pool);
            tracks[t].n_depths = j->n_depths[t];
            tracks[t].depth_start = pool + at;
            tracks[t].depth_index = j->index + tracks[t].first_event;
            at += j->n_depths[t] + 1;
        }
        pv__store_keep(s, pool);
        pv__store_keep(s, j->index);
    }
    for (int k = 0; k < 2; k++) {
        free(j->parts[k].pool);
        free(j->parts[k].stack);
    }
    free(j->n_depths);
    free(j->at);
    free(j);
    return rc;
}
