/* memory_profile_priv: what the analysis (memory_profile.c) and the
 * reading of kept snapshots (memory_snapshot.c) both ask of an event.
 * Nothing outside this folder includes it. */
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

#endif
