/* step_intersection: lines up the steps of several hosts for ALL_HOSTS
 * (reference: xprof/utils/step_intersection.cc). The host whose steps
 * span the least time is the chief; every other host's step sequence is
 * slid along the chief's to the offset where the steps' time spans
 * overlap the most, and only the run of chief steps that every host
 * covers is kept. Hosts' clocks are compared as recorded (Unix time).
 *
 * Pure: no I/O, no clock, no globals; scratch in the caller's arena. */
#ifndef PV_TOOLS_STEPS_STEP_INTERSECTION_H
#define PV_TOOLS_STEPS_STEP_INTERSECTION_H

#include "tools/steps/steps.h"

/* Returns how many steps every host shares (0 when some host has none or
 * the runs do not meet); first[k] (n_hosts entries, caller's) is where
 * host k's shared run begins in per[k].steps. Cannot fail. */
size_t pv_step_intersection(const pv_steps_result *per, size_t n_hosts, pv_arena *a,
                            size_t *first);

#endif
