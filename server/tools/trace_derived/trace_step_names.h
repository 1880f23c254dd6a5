/* trace_step_names: the names XProf's trace viewer gives step events,
 * shared by the Chrome trace JSON (tools/chrome_trace/) and the trace
 * viewer's own routes (tools/trace_tiles/trace_index.h), so that a step reads the same in
 * both:
 *
 *   - an event with a string step_name stat is shown by it;
 *   - when the file carried no group ids (XProf groups it then, as the
 *     model did: FORMATS.md §3.7), the root of each step group, the
 *     step-root event that started it, is shown by the group's name: the
 *     Keras step marker "train" with step_num 16 reads "train 16". A root
 *     named FunctionRun, SessionRun, RunGraph or ExecutorState::Process
 *     keeps its own name, as in XProf.
 *
 * Pure functions of the model. Threads: any; the model is only read. */
#ifndef PV_TOOLS_TRACE_DERIVED_TRACE_STEP_NAMES_H
#define PV_TOOLS_TRACE_DERIVED_TRACE_STEP_NAMES_H

#include "model/model.h"
#include "util/arena.h"
#include "util/bsearch.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PV_TRACE_NO_ROOT UINT64_MAX

/* True for the names of the roots XProf does not rename. Cannot fail. */
bool pv_trace_step_implicit_root(const char *name);

/* Per group of m (index into m->groups), the root event that named it:
 * of the group's step-root events (PV_EXTRA_STEP_ROOT), the one of the
 * highest _r level, the earliest among equals (groups are made from roots
 * taken in that order); PV_TRACE_NO_ROOT when none. The array lives in a.
 * Cannot fail (allocation failure aborts). */
const uint64_t *pv_trace_group_roots(const pv_model *m, pv_arena *a);

/* The string id of e's step_name stat when it is a string (its own or its
 * metadata's), 0 otherwise. s_step_name: pv_model_str_find(m,
 * "step_name"). Cannot fail. */
uint32_t pv_trace_step_name_stat(const pv_model *m, uint32_t s_step_name, uint64_t e);

/* The string id of the group name XProf shows on e when e is the root of
 * its group (roots from pv_trace_group_roots) and not an implicit root, 0
 * otherwise. Only for a model whose file carried no group ids. Cannot
 * fail. */
uint32_t pv_trace_root_step_name(const pv_model *m, const uint64_t *roots, uint64_t e);

/* ---- every renamed event of a model ------------------------------------ */

typedef struct pv_trace_step_names {
    size_t n;
    uint64_t *ev;          /* the renamed events, ascending */
    uint32_t *name;        /* the string id (of m) each is shown by */
    uint8_t *meta_has;     /* per metadata of m: 1 when one of its events is renamed */
} pv_trace_step_names;

/* The events of m the rules above rename and their names: step_name stats
 * first, then (when the file carried no group ids) the groups' roots.
 * Arrays malloc'd; pv_trace_step_names_fini releases them. Cannot fail. */
void pv_trace_step_names_make(const pv_model *m, pv_trace_step_names *out);
void pv_trace_step_names_fini(pv_trace_step_names *s);

/* Bytes s holds, for the memory budget. */
size_t pv_trace_step_names_bytes(const pv_trace_step_names *s, const pv_model *m);

/* The string id e is shown by in place of its name, or 0: a lookup only
 * for events whose metadata has renamed events. Cannot fail. */
static inline uint32_t pv_trace_step_name_of(const pv_trace_step_names *s, const pv_model *m,
                                             uint64_t e)
{
    if (s == NULL || s->n == 0 || !s->meta_has[m->ev_meta[e]])
        return 0;
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, s->n, i, s->ev[i] < e);
    return lo < s->n && s->ev[lo] == e ? s->name[lo] : 0;
}

#endif
