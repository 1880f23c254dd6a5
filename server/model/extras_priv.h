/* extras_priv: what the files that apply well-known stats share
 * (extras.c, extras_add.c, extras_finish.c, event_memory.c). Nothing else
 * includes it. */
#ifndef PV_MODEL_EXTRAS_PRIV_H
#define PV_MODEL_EXTRAS_PRIV_H

#include "model/model_priv.h"

#include <stdbool.h>
#include <stdint.h>

enum pv__wk {
    WK_NONE,
    WK_GROUP_ID,
    /* producer/consumer contexts: only step grouping reads them (CTX_*) */
    WK_PT,
    WK_P,
    WK_CT,
    WK_C,
    /* stats from here on give an event an extra row */
    WK_CORRELATION_ID,
    WK_TF_OP,
    WK_HLO_OP,
    WK_HLO_MODULE,
    WK_STEP_NAME,
    WK_ID,
    WK_ITER_NUM,
    WK_STEP_NUM,
    WK_FLOW,
    WK_R,
    WK_A,
    WK_IS_EAGER,
    WK_KERNEL_DETAILS,
    WK_MEMCPY_DETAILS,
    WK_THEORETICAL_OCC,
    /* memory stats: only read on MemoryAllocation/Deallocation events;
     * these first five have strings to intern at ingest */
    WK_ALLOCATOR_NAME,
    WK_INDEX_ON_HOST,
    WK_DEVICE_ORDINAL,
    WK_REGION_TYPE,
    WK_SHAPE,
    /* the rest is only read by pv_model_event_memory */
    WK_BYTES_RESERVED,
    WK_BYTES_ALLOCATED,
    WK_BYTES_AVAILABLE,
    WK_PEAK_BYTES,
    WK_FRAGMENTATION,
    WK_REQUESTED_BYTES,
    WK_ALLOCATION_BYTES,
    WK_ADDR,
    WK_DATA_TYPE,
    WK_COUNT
};

/* Flags derived from a metadata's name. */
enum {
    NAME_MEM_ALLOC = 1u << 0,
    NAME_MEM_FREE = 1u << 1,
    NAME_TRACE_CONTEXT = 1u << 2,
    NAME_MEMCPY = 1u << 3,
    META_HAS_ROW_STAT = 1u << 4
};

/* What a string id is as a stat name: its enum pv__wk in the low bits, and
 * CLS_ID when PV_MODEL_ID_STATS lists it. */
#define CLS_WK 0x3fu
#define CLS_ID 0x40u
#define CLS_UNKNOWN 0xffu   /* not looked at yet */

#define PARSE_CACHE 256   /* direct-mapped, by string id */

/* Producers write kernel_details and memcpy_details as refs, so a few
 * strings repeat across millions of events: parse each once. */
typedef struct pv__xparsed {
    uint32_t str;           /* string id + 1; 0 = empty slot */
    uint32_t kernel_row;    /* the side row holding kernel, UINT32_MAX until known */
    pv_kernel_details kernel;
    uint32_t memcpy_kind;
    uint64_t memcpy_bytes;
} pv__xparsed;

/* One event's well-known values while its stats are applied; committed
 * as an extra row plus side rows (model.h). */
typedef struct pv__xwork {
    pv_event_extra x;
    pv_kernel_details kernel;
    pv__xparsed *kernel_from;    /* the parsed kernel_details kernel came from */
    pv_memory_details memory;
    pv_step_info step;
} pv__xwork;

/* Kernel details repeat across millions of launches of the same kernel:
 * one row per distinct value, found through an open-addressing table. */
typedef struct pv__xrows {
    pv_kernel_details *kernels;
    size_t n_kernels, cap_kernels;
    uint32_t last_kernel;     /* the row kernel_row returned last */
    pv_hashtab kernel_ids;    /* kernel_hash -> kernel index */
    pv_step_info *steps;
    size_t n_steps, cap_steps;
} pv__xrows;

/* The context stats in the order of their WK_ values, as bits. */
#define CTX_OF(wk) (1u << ((wk) - WK_PT))
#define CTX_N 4

/* Context stats seen: a bit per CTX_OF in `has`, the same bit in `ints`
 * when the last one of that name was an integer, then in v. */
typedef struct pv__xcontexts {
    uint8_t has, ints;
    int64_t v[CTX_N];
} pv__xcontexts;

/* What a metadata gives each of its events, worked out at its first. */
typedef struct pv__xmeta {
    bool ready;
    uint8_t flags;          /* NAME_* and META_HAS_ROW_STAT */
    uint8_t memcpy_kind;
    int32_t group;          /* its group_id stat, or PV_NO_GROUP */
    uint32_t first_stat;    /* its stats: pv__extras.meta_stats[first .. +n) */
    uint32_t n_stats;
    pv__xcontexts contexts;
} pv__xmeta;

/* A stat metadata id's name and its class. */
typedef struct pv__xname {
    uint32_t sid;
    uint8_t cls;
} pv__xname;

/* Rows without a value unique to their event (pv__extra_is_shareable)
 * are kept once per distinct value and shared by every event that has
 * it: a memory event's row holds its flags and tf_op (its details are
 * read again from its stats), and a GPU profile is a third such events.
 * Past this many distinct values new ones are kept apart, so rows that
 * never repeat do not grow the table without bound. */
#define SHARED_ROWS_MAX 65536u

struct pv__extras {
    uint8_t *cls;             /* string id -> CLS_*, grown on demand */
    size_t n_cls;
    pv__xparsed *kernel_cache;     /* PARSE_CACHE slots each */
    pv__xparsed *memcpy_cache;
    pv__xrows rows;
    pv_event_extra *extras;
    size_t n_extras, cap_extras;
    pv_hashtab shared_rows;   /* row hash -> index into extras of a shared row */
    pv__xmeta *metas;
    size_t cap_metas;
    pv_stat *meta_stats;      /* copies, with their classes */
    uint8_t *meta_stat_cls;
    size_t n_meta_stats, cap_meta_stats;
    bool any_group;           /* some event or metadata has a group_id stat */
    pv__keys contexts;        /* events' context keys, while !any_group */
    bool stale;               /* applied results no longer hold (model_priv.h) */
    /* stat names of table_plane, the plane whose events came last */
    uint32_t table_plane;
    pv__xname *dense;        /* by id, for ids below n_dense */
    size_t n_dense;
    pv__idmap sparse;         /* other ids -> index into sparse_names */
    pv__xname *sparse_names;
    size_t n_sparse, cap_sparse;
    uint8_t *plane_used;      /* planes with applied events */
    size_t n_plane_used;
};

typedef struct pv__xctx {
    pv__extras *x;          /* NULL for pv_model_event_memory */
    pv__strtab *strs;
    bool read_only;         /* a finished model: find strings, never intern */
    const uint8_t *src;     /* where PV_STAT_WSTR values are */
    size_t src_len;
} pv__xctx;

typedef struct pv__xevent {
    const pv__xmeta *mi;
    int32_t group;
    bool row;               /* w holds a row being filled */
    pv__xcontexts own;      /* its own context stats */
    pv__xwork w;
} pv__xevent;

/* ---- extras.c ---------------------------------------------------------- */

pv__extras *pv__x_new(void);
/* The string id of a string stat; one read from the file is interned
 * now (only well-known stats get here, and they repeat). */
uint32_t pv__x_stat_str(pv__xctx *c, const pv_stat *s);
/* What string id sid is as a stat name (CLS_*), worked out once. */
uint8_t pv__x_cls(pv__xctx *c, uint32_t sid);
/* Clears what a row's stats can write (see extras.c). */
void pv__x_row_init(pv__xwork *w, uint8_t name_flags, uint32_t memcpy_kind);
void pv__x_apply_memory(pv__xctx *c, pv__xwork *w, int wk, const pv_stat *s);
void pv__x_apply(pv__xctx *c, pv__xwork *w, int wk, const pv_stat *s, bool memory_event);
/* Works out what meta gives its events from its name and its n stats. */
const pv__xmeta *pv__x_meta_set(pv__xctx *c, uint32_t meta, uint32_t name, const pv_stat *stats,
                                size_t n);
/* Starts ev's row: defaults, then its metadata's stats. */
void pv__x_event_row(pv__xctx *c, pv__xevent *ev);
/* ev's group and extra row (PV_NO_EXTRA when it needs none); its
 * context keys under event id e. */
void pv__x_event_end(pv__xctx *c, pv__xevent *ev, uint64_t e, int32_t *group, uint32_t *extra);

/* Notes a context stat (wk WK_PT .. WK_C) in cx. */
static inline void pv__x_context(pv__xcontexts *cx, int wk, const pv_stat *s)
{
    uint8_t bit = (uint8_t)CTX_OF(wk);
    cx->has |= bit;
    if (pv__stat_int(s, &cx->v[wk - WK_PT]))
        cx->ints |= bit;
    else
        cx->ints &= (uint8_t)~bit;
}

static inline void pv__x_event_begin(pv__xevent *ev, const pv__xmeta *mi)
{
    ev->mi = mi;
    ev->group = mi->group;
    ev->row = false;
    ev->own.has = 0;
    ev->own.ints = 0;
}

/* One own stat of ev, of class cls. Stats before the first that needs a
 * row only set the group, so the row starts there. */
static inline void pv__x_event_stat(pv__xctx *c, pv__xevent *ev, const pv_stat *s, uint8_t cls)
{
    int wk = cls & CLS_WK;
    int64_t v;
    if (wk == WK_GROUP_ID) {
        c->x->any_group = true;
        if (pv__stat_int(s, &v))
            ev->group = v >= 0 && v <= INT32_MAX ? (int32_t)v : PV_NO_GROUP;
    }
    if (s->type == PV_STAT_WSTR && (cls & CLS_ID))
        (void)pv__x_stat_str(c, s);
    if (wk >= WK_CORRELATION_ID) {
        if (!ev->row)
            pv__x_event_row(c, ev);
        if (wk < WK_BYTES_RESERVED)
            pv__x_apply(c, &ev->w, wk, s, (ev->mi->flags & (NAME_MEM_ALLOC | NAME_MEM_FREE)) != 0);
    } else if (wk >= WK_PT) {
        pv__x_context(&ev->own, wk, s);
    }
}

#endif
