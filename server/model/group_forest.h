/* group_forest: the event forest that step grouping walks (FORMATS.md
 * §3.7 steps 2-3), shared by group.c, group_eager.c and group_tpu.c only.
 *
 * A node is a model event. Its parents are the event that encloses it on
 * its line (async `_a` events neither enclose nor are enclosed) and the
 * sources of the inter-thread edges that point at it; its children are
 * the reverse. The reference walks this graph breadth first in both
 * directions: down to spread a group id, up to find a root's ancestors,
 * the nearest EagerExecute or the first graph_type/iter_num stat. */
#ifndef PV_MODEL_GROUP_FOREST_H
#define PV_MODEL_GROUP_FOREST_H

#include "model/model_priv.h"

#include <stdbool.h>
#include <stdint.h>

#define PV__NO_EVENT UINT64_MAX
/* The per-event columns here hold event ids in 32 bits (half the memory
 * of a large profile's grouping); grouping is skipped for a model of
 * UINT32_MAX events or more. PV__NO_EV32 is "none" in them. */
#define PV__NO_EV32 UINT32_MAX

typedef struct pv__edge {
    uint32_t from, to;      /* parent event, child event */
} pv__edge;

/* A growable edge list. */
typedef struct pv__edges {
    pv__edge *v;
    size_t n, cap;
} pv__edges;

typedef struct pv__forest {
    uint64_t n;             /* events */
    uint32_t *nest_parent;  /* per event: enclosing event or PV__NO_EV32 */
    uint64_t *kid_off;      /* n + 1 offsets into kids */
    uint32_t *kids;         /* per event: nested children, then edge targets */
    pv__edge *up;           /* the edges sorted by (to, from): parents by edge */
    size_t n_up;
} pv__forest;

/* A breadth-first walk's scratch: a visit stamp per event and a queue,
 * reused by every walk so a walk costs what it visits. */
typedef struct pv__walk {
    uint32_t *stamp;        /* per event: generation that last visited it */
    uint32_t gen;           /* current generation */
    uint32_t *queue;        /* n entries */
    uint64_t budget;        /* visits left to all upward walks together */
} pv__walk;

/* What an event's metadata name makes it for grouping (the reference's
 * event types), one byte per metadata. */
enum {
    PV__GK_TYPED = 1u << 0,         /* a known host event type or framework op */
    PV__GK_TF_OP = 1u << 1,         /* a TF op run ("scope/op:Type") */
    PV__GK_EAGER_EXECUTE = 1u << 2, /* EagerExecute */
    PV__GK_IMPLICIT_ROOT = 1u << 3, /* FunctionRun, SessionRun, RunGraph, Process */
    PV__GK_CAPTURED_FN = 1u << 4,   /* a tf.data captured function run */
    PV__GK_PROCESS = 1u << 5,       /* ExecutorState::Process */
    PV__GK_GET_NEXT = 1u << 6,      /* IteratorGetNext(AsOptional)Op::DoCompute */
    PV__GK_TRACE_CONTEXT = 1u << 7  /* TraceContext (a level-1 root) */
};

/* What a plane is to TPU grouping (pv__tpu_plane_roles). */
enum {
    PV__TPU_NONE = 0,        /* not a TPU plane: grouped as a host or GPU plane */
    PV__TPU_NO_CORE = 1,     /* "/device:TPU:..." naming no core: no nodes at all */
    PV__TPU_TENSOR_CORE = 2, /* "/device:TPU:N" */
    PV__TPU_SPARSE_CORE = 3  /* "/device:TPU:N SparseCore M" */
};

/* Appends an edge. Cannot fail (aborts when memory runs out). */
void pv__edges_push(pv__edges *es, uint64_t from, uint64_t to);

/* Builds the forest from the model's lines and es (consumed: its storage
 * is taken over or freed, *es is left empty). Planes whose tpu_roles entry
 * is not PV__TPU_NONE get no nesting (tpu_roles may be NULL: none is a
 * TPU plane). Cannot fail. */
void pv__forest_build(const pv_model *m, const uint8_t *tpu_roles, pv__edges *es,
                      pv__forest *f);
void pv__forest_free(pv__forest *f);

void pv__walk_init(pv__walk *w, uint64_t n_events);
void pv__walk_fini(pv__walk *w);

/* The PV__GK_* bits of every metadata (caller frees). Cannot fail. */
uint8_t *pv__group_meta_kinds(const pv_model *m, const pv__model_store *s);

/* Marks eagerly executed TF ops and kernels (FORMATS.md §3.7 step 7):
 * PV_EXTRA_EAGER on each one whose nearest EagerExecute up the forest ran
 * op by op. Events without an extra row get one. TPU planes (tpu_roles
 * not PV__TPU_NONE; NULL: none) are left out: their events are no TF ops
 * or kernels to the reference. Cannot fail. */
void pv__group_mark_eager(pv_model *m, pv__model_store *s, const pv__forest *f, pv__walk *w,
                          const uint8_t *kinds, const uint8_t *tpu_roles);

/* ---- TPU planes (group_tpu.c) ---- */

/* PV__TPU_* per plane (caller frees). Cannot fail. */
uint8_t *pv__tpu_plane_roles(const pv_model *m, const pv__model_store *s);

/* The track of plane's grouping line (non-empty Steps, else non-empty XLA
 * Modules, or their Sparse Core names), or UINT32_MAX when none. */
uint32_t pv__tpu_grouping_track(const pv_model *m, const pv__model_store *s, uint32_t plane);

/* Per event, the forest node that stands for it: itself off TPU planes
 * and on a grouping line, the grouping event including it on a TPU
 * plane's other lines, PV__NO_EV32 when none (caller frees). */
uint32_t *pv__tpu_nodes(const pv_model *m, const pv__model_store *s, const uint8_t *roles);

/* Gives each event on a TPU plane's other lines without a group the group
 * of the grouping event overlapping it. Cannot fail. */
void pv__tpu_group_lines(const pv_model *m, const pv__model_store *s, const uint8_t *roles,
                         int32_t *group);

/* Walks up from e (e itself first when include_self) breadth first,
 * nesting parent before edge parents, and returns the first event for
 * which match(ctx, event) is true, or PV__NO_EVENT. At most max_visits
 * events are looked at, so a hostile graph cannot make one question cost
 * the whole model, and all walks together look at no more than the
 * walk's budget (a few dozen visits per event): past it every walk
 * answers PV__NO_EVENT, so a hostile file costs linear time and gets
 * coarser groups, never a hang. */
uint64_t pv__forest_find_up(const pv__forest *f, pv__walk *w, uint64_t e, bool include_self,
                            bool (*match)(const void *ctx, uint64_t ev), const void *ctx,
                            uint64_t max_visits);

#endif
