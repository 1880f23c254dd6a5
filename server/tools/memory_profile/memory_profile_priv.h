/* memory_profile_priv: what the analysis (memory_profile.c), the table at
 * the peak (memory_active.c) and the reading of kept snapshots
 * (memory_snapshot.c) share: the two reads of an event, and what the
 * analysis hands the table. Nothing outside this folder includes it. */
#ifndef PV_TOOLS_MEMORY_PROFILE_MEMORY_PROFILE_PRIV_H
#define PV_TOOLS_MEMORY_PROFILE_MEMORY_PROFILE_PRIV_H

#include "tools/memory_profile/memory_profile.h"

#include <string.h>

/* The memory details of ev, decoded from its stats (model.h); all zero
 * and false when ev is not a memory event. */
static inline bool details_of(const pv_model *m, uint64_t ev, pv_memory_details *md)
{
    if (pv_model_event_memory(m, ev, md))
        return true;
    memset(md, 0, sizeof *md);
    return false;
}

static inline uint32_t activity_of(const pv_model *m, uint64_t ev)
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

/* An allocation alive at an allocator's peak, as the second walk leaves
 * it. */
typedef struct pv__memory_live {
    pv_memory_snapshot snapshot;
    int64_t free_start_ps;       /* its first free after it, or INT64_MIN */
} pv__memory_live;

/* Fills al's table of allocations alive at the peak (al->active, its
 * special rows) from the n live ones, which it sorts by position and adds
 * to the kept snapshots; unmapped: the heap bytes at the peak that none of
 * them explains. */
void pv__memory_active_table(const pv_model *m, pv_memory_allocator *al, pv__memory_live *live,
                             size_t n, int64_t unmapped, pv_arena *a);

#endif
