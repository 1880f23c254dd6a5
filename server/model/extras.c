/* extras: decoding well-known stats (FORMATS.md §3.3) once into typed
 * pv_event_extra rows and the group_id column, so tools never compare
 * stat names in a hot loop. An event's effective stats are its
 * metadata's followed by its own (§2.2), so own stats win.
 *
 * Two callers share one pv__extras: the builder, which applies each
 * decoded event's stats as the decoder adds it (pv__extras_wire_event:
 * the XEvent's bytes are still in cache, and the file is read once), and
 * finish, which does the events left (ones without stats in the file,
 * ones built with stats in hand) and all of them when something the
 * applied ones depended on changed after (pv__extras_build). */
#include "model/model_priv.h"
#include "model/wire_stat.h"
#include "util/hash.h"
#include "util/mem.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

enum wk {
    WK_NONE,
    WK_GROUP_ID,
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

static const char *const wk_names[WK_COUNT] = {
    [WK_GROUP_ID] = "group_id",
    [WK_CORRELATION_ID] = "correlation_id",
    [WK_TF_OP] = "tf_op",
    [WK_HLO_OP] = "hlo_op",
    [WK_HLO_MODULE] = "hlo_module",
    [WK_STEP_NAME] = "step_name",
    [WK_ID] = "id",
    [WK_ITER_NUM] = "iter_num",
    [WK_STEP_NUM] = "step_num",
    [WK_FLOW] = "flow",
    [WK_R] = "_r",
    [WK_A] = "_a",
    [WK_IS_EAGER] = "is_eager",
    [WK_KERNEL_DETAILS] = "kernel_details",
    [WK_MEMCPY_DETAILS] = "memcpy_details",
    [WK_THEORETICAL_OCC] = "theoretical_occupancy_pct",
    [WK_ALLOCATOR_NAME] = "allocator_name",
    [WK_INDEX_ON_HOST] = "index_on_host",
    [WK_DEVICE_ORDINAL] = "device_ordinal",
    [WK_BYTES_RESERVED] = "bytes_reserved",
    [WK_BYTES_ALLOCATED] = "bytes_allocated",
    [WK_BYTES_AVAILABLE] = "bytes_available",
    [WK_PEAK_BYTES] = "peak_bytes_in_use",
    [WK_FRAGMENTATION] = "fragmentation",
    [WK_REQUESTED_BYTES] = "requested_bytes",
    [WK_ALLOCATION_BYTES] = "allocation_bytes",
    [WK_ADDR] = "addr",
    [WK_REGION_TYPE] = "region_type",
    [WK_DATA_TYPE] = "data_type",
    [WK_SHAPE] = "shape",
};

/* Flags derived from a metadata's name. */
enum {
    NAME_MEM_ALLOC = 1u << 0,
    NAME_MEM_FREE = 1u << 1,
    NAME_TRACE_CONTEXT = 1u << 2,
    NAME_MEMCPY = 1u << 3,
    META_HAS_ROW_STAT = 1u << 4
};

/* What a string id is as a stat name: its enum wk in the low bits, and
 * CLS_ID when PV_MODEL_ID_STATS lists it. */
#define CLS_WK 0x3fu
#define CLS_ID 0x40u
#define CLS_UNKNOWN 0xffu   /* not looked at yet */

#define PARSE_CACHE 256   /* direct-mapped, by string id */

/* Producers write kernel_details and memcpy_details as refs, so a few
 * strings repeat across millions of events: parse each once. */
typedef struct parsed {
    uint32_t str;           /* string id + 1; 0 = empty slot */
    uint32_t kernel_row;    /* the side row holding kernel, UINT32_MAX until known */
    pv_kernel_details kernel;
    uint32_t memcpy_kind;
    uint64_t memcpy_bytes;
} parsed;

/* One event's well-known values while its stats are applied; committed
 * as an extra row plus side rows (model.h). */
typedef struct work {
    pv_event_extra x;
    pv_kernel_details kernel;
    parsed *kernel_from;    /* the parsed kernel_details kernel came from */
    pv_memory_details memory;
    pv_step_info step;
} work;

/* Kernel details repeat across millions of launches of the same kernel:
 * one row per distinct value, found through an open-addressing table. */
typedef struct side_rows {
    pv_kernel_details *kernels;
    size_t n_kernels, cap_kernels;
    uint32_t last_kernel;     /* the row kernel_row returned last */
    uint32_t *slots;          /* kernel index + 1; 0 empty */
    size_t n_slots;           /* power of two */
    pv_step_info *steps;
    size_t n_steps, cap_steps;
} side_rows;

/* What a metadata gives each of its events, worked out at its first. */
typedef struct meta_info {
    bool ready;
    uint8_t flags;          /* NAME_* and META_HAS_ROW_STAT */
    uint8_t memcpy_kind;
    int32_t group;          /* its group_id stat, or PV_NO_GROUP */
    uint32_t first_stat;    /* its stats: pv__extras.meta_stats[first .. +n) */
    uint32_t n_stats;
} meta_info;

/* A stat metadata id's name and its class. */
typedef struct plane_name {
    uint32_t sid;
    uint8_t cls;
} plane_name;

struct pv__extras {
    uint8_t *cls;             /* string id -> CLS_*, grown on demand */
    size_t n_cls;
    parsed *kernel_cache;     /* PARSE_CACHE slots each */
    parsed *memcpy_cache;
    side_rows rows;
    pv_event_extra *extras;
    size_t n_extras, cap_extras;
    meta_info *metas;
    size_t cap_metas;
    pv_stat *meta_stats;      /* copies, with their classes */
    uint8_t *meta_stat_cls;
    size_t n_meta_stats, cap_meta_stats;
    bool any_group;           /* some event or metadata has a group_id stat */
    bool stale;               /* applied results no longer hold (model_priv.h) */
    /* stat names of table_plane, the plane whose events came last */
    uint32_t table_plane;
    plane_name *dense;        /* by id, for ids below n_dense */
    size_t n_dense;
    pv__idmap sparse;         /* other ids -> index into sparse_names */
    plane_name *sparse_names;
    size_t n_sparse, cap_sparse;
    uint8_t *plane_used;      /* planes with applied events */
    size_t n_plane_used;
};

typedef struct ctx {
    pv__extras *x;          /* NULL for pv_model_event_memory */
    pv__strtab *strs;
    bool read_only;         /* a finished model: find strings, never intern */
    const uint8_t *src;     /* where PV_STAT_WSTR values are */
    size_t src_len;
} ctx;

/* The string id of a string stat; one read from the file is interned
 * now (only well-known stats get here, and they repeat). */
static uint32_t stat_str(ctx *c, const pv_stat *s)
{
    if (s->type == PV_STAT_STR)
        return s->v.str;
    if (s->type != PV_STAT_WSTR)
        return 0;
    uint64_t off = s->v.wire >> PV__WIRE_LEN_BITS;
    uint64_t len = s->v.wire & ((1u << PV__WIRE_LEN_BITS) - 1);
    if (c->src == NULL || off > c->src_len || len > c->src_len - off)
        return 0;
    const char *text = (const char *)c->src + off;
    return c->read_only ? pv__strtab_find(c->strs, text, (size_t)len)
                        : pv__strtab_intern(c->strs, text, (size_t)len);
}

static bool stat_int(const pv_stat *s, int64_t *v)
{
    if (s->type == PV_STAT_I64)
        *v = s->v.i64;
    else if (s->type == PV_STAT_U64)
        *v = (int64_t)s->v.u64;
    else
        return false;
    return true;
}

/* ---- classes of stat names ---------------------------------------------- */

/* No well-known name is longer; the names of ref_value stat metadata
 * are the strings they stand for, often long, and thousands of them. */
#define CLS_NAME_MAX 32

static uint8_t cls_of_text(const char *name, size_t len)
{
    uint8_t cls = WK_NONE;
    if (len > CLS_NAME_MAX)
        return cls;
    for (int i = 1; i < WK_COUNT; i++) {
        if (name[0] == wk_names[i][0] && strcmp(name, wk_names[i]) == 0) {
            cls = (uint8_t)i;
            break;
        }
    }
    static const char *const id_stats[] = PV_MODEL_ID_STATS;
    for (size_t i = 0; i < sizeof id_stats / sizeof id_stats[0]; i++) {
        if (name[0] == id_stats[i][0] && strcmp(name, id_stats[i]) == 0)
            cls |= CLS_ID;
    }
    return cls;
}

static uint8_t cls_of(ctx *c, uint32_t sid)
{
    pv__extras *x = c->x;
    if (sid >= x->n_cls) {
        size_t old = x->n_cls;
        pv__grow((void **)&x->cls, &x->n_cls, c->strs->n > sid ? c->strs->n : sid + 1, 1);
        memset(x->cls + old, CLS_UNKNOWN, x->n_cls - old);
    }
    if (x->cls[sid] == CLS_UNKNOWN)
        x->cls[sid] = cls_of_text(c->strs->strs[sid], c->strs->lens[sid]);
    return x->cls[sid];
}

/* ---- applying stats ------------------------------------------------------ */

/* Clears what this event's stats can write: the memory details of a
 * memory event, the kernel details of any other (never both, model.h),
 * so a row costs less than the whole work struct to start. */
static void extra_init(work *w, uint8_t name_flags, uint32_t memcpy_kind)
{
    memset(&w->x, 0, sizeof w->x);
    pv_event_extra *x = &w->x;
    x->detail = UINT32_MAX;
    x->step = PV_NO_STEP;
    w->step = (pv_step_info){0, -1, -1, -1};
    w->kernel_from = NULL;
    if (name_flags & (NAME_MEM_ALLOC | NAME_MEM_FREE)) {
        memset(&w->memory, 0, sizeof w->memory);
        x->flags |= PV_EXTRA_MEMORY;
        x->flags |= (name_flags & NAME_MEM_ALLOC) ? PV_EXTRA_MEM_ALLOC : PV_EXTRA_MEM_FREE;
    } else {
        /* zeroed whole, padding too: rows are deduplicated by their bytes */
        memset(&w->kernel, 0, sizeof w->kernel);
        for (int i = 0; i < 3; i++) {
            w->kernel.grid[i] = 1;
            w->kernel.block[i] = 1;
        }
        w->kernel.occupancy_pct = -1.0;
    }
    if (name_flags & NAME_TRACE_CONTEXT)
        x->flags |= PV_EXTRA_STEP_ROOT;
    if (memcpy_kind != PV_MEMCPY_NONE) {
        x->flags |= PV_EXTRA_MEMCPY;
        x->memcpy_kind = (uint8_t)memcpy_kind;
    }
}

static void apply_memory(ctx *c, work *w, int wk, const pv_stat *s)
{
    pv_memory_details *md = &w->memory;
    int64_t i = 0;
    bool is_int = stat_int(s, &i);
    char num[32];
    switch (wk) {
    case WK_ALLOCATOR_NAME: md->memory_id = stat_str(c, s); break;
    case WK_INDEX_ON_HOST:
    case WK_DEVICE_ORDINAL:
        if (is_int) {
            int n = snprintf(num, sizeof num, "%lld", (long long)i);
            md->memory_id = c->read_only ? pv__strtab_find(c->strs, num, (size_t)n)
                                         : pv__strtab_intern(c->strs, num, (size_t)n);
        }
        break;
    case WK_BYTES_RESERVED: md->bytes_reserved = i; break;
    case WK_BYTES_ALLOCATED: md->bytes_allocated = i; break;
    case WK_BYTES_AVAILABLE: md->bytes_available = i; break;
    case WK_PEAK_BYTES: md->peak_bytes_in_use = i; break;
    case WK_FRAGMENTATION:
        md->fragmentation = s->type == PV_STAT_F64 ? s->v.f64 : (double)i;
        break;
    case WK_REQUESTED_BYTES: md->requested_bytes = i; break;
    case WK_ALLOCATION_BYTES: md->allocation_bytes = i; break;
    case WK_ADDR: md->address = (uint64_t)i; break;
    case WK_REGION_TYPE: md->region_type = stat_str(c, s); break;
    case WK_DATA_TYPE: md->data_type = (int32_t)i; break;
    case WK_SHAPE: md->shape = stat_str(c, s); break;
    default: break;
    }
}

static void apply(ctx *c, work *w, int wk, const pv_stat *s, bool memory_event)
{
    pv_event_extra *x = &w->x;
    int64_t i = 0;
    bool is_int = stat_int(s, &i);
    switch (wk) {
    case WK_CORRELATION_ID:
        if (is_int) {
            x->correlation_id = (uint64_t)i;
            x->flags |= PV_EXTRA_CORRELATION;
        }
        break;
    case WK_TF_OP: x->tf_op = stat_str(c, s); break;
    case WK_HLO_OP: x->hlo_op = stat_str(c, s); break;
    case WK_HLO_MODULE: x->hlo_module = stat_str(c, s); break;
    case WK_STEP_NAME: w->step.step_name = stat_str(c, s); break;
    case WK_ID: if (is_int) w->step.step_id = i; break;
    case WK_ITER_NUM: if (is_int) w->step.iter_num = i; break;
    case WK_STEP_NUM: if (is_int) w->step.step_num = i; break;
    case WK_FLOW:
        if (is_int) {
            x->flow = (uint64_t)i;
            x->flags |= PV_EXTRA_FLOW;
        }
        break;
    case WK_R: if (is_int && i > 0) x->flags |= PV_EXTRA_STEP_ROOT; break;
    case WK_A: if (is_int && i != 0) x->flags |= PV_EXTRA_ASYNC; break;
    case WK_IS_EAGER: if (is_int && i == 1) x->flags |= PV_EXTRA_EAGER; break;
    case WK_KERNEL_DETAILS: {
        /* kernel and memory details share storage (model.h) */
        uint32_t sid = stat_str(c, s);
        if (sid != 0 && !memory_event) {
            parsed *pc = &c->x->kernel_cache[sid % PARSE_CACHE];
            if (pc->str != sid + 1) {
                pc->str = sid + 1;
                pc->kernel_row = UINT32_MAX;
                memset(&pc->kernel, 0, sizeof pc->kernel);
                for (int k = 0; k < 3; k++) {
                    pc->kernel.grid[k] = 1;
                    pc->kernel.block[k] = 1;
                }
                pc->kernel.occupancy_pct = -1.0;
                pv__parse_kernel_details(c->strs->strs[sid], &pc->kernel);
            }
            /* occupancy may come from theoretical_occupancy_pct instead */
            double occ = w->kernel.occupancy_pct;
            w->kernel = pc->kernel;
            w->kernel_from = pc;
            if (w->kernel.occupancy_pct < 0)
                w->kernel.occupancy_pct = occ;
            x->flags |= PV_EXTRA_KERNEL;
        }
        break;
    }
    case WK_MEMCPY_DETAILS: {
        uint32_t sid = stat_str(c, s);
        if (sid != 0) {
            parsed *pc = &c->x->memcpy_cache[sid % PARSE_CACHE];
            if (pc->str != sid + 1) {
                pv_event_extra tmp;
                memset(&tmp, 0, sizeof tmp);
                pv__parse_memcpy_details(c->strs->strs[sid], &tmp);
                pc->str = sid + 1;
                pc->memcpy_kind = tmp.memcpy_kind;
                pc->memcpy_bytes = tmp.memcpy_bytes;
            }
            if (pc->memcpy_bytes != 0)
                x->memcpy_bytes = pc->memcpy_bytes;
            if (x->memcpy_kind == PV_MEMCPY_NONE || x->memcpy_kind == PV_MEMCPY_OTHER)
                x->memcpy_kind = (uint8_t)pc->memcpy_kind;
            x->flags |= PV_EXTRA_MEMCPY;
        }
        break;
    }
    case WK_THEORETICAL_OCC:
        if (s->type == PV_STAT_F64 && !memory_event && w->kernel.occupancy_pct < 0)
            w->kernel.occupancy_pct = s->v.f64;
        break;
    case WK_ALLOCATOR_NAME:
    case WK_INDEX_ON_HOST:
    case WK_DEVICE_ORDINAL:
    case WK_REGION_TYPE:
    case WK_SHAPE:
        /* Memory details are not kept (commit): only their strings are
         * interned now, for pv_model_event_memory to find. */
        if (memory_event)
            apply_memory(c, w, wk, s);
        break;
    default:
        break;
    }
}

/* ---- side tables ------------------------------------------------------- */

static uint64_t kernel_hash(const pv_kernel_details *k)
{
    return pv_hash_bytes(PV_HASH_SEED, k, sizeof *k);
}

static uint32_t kernel_row_find(side_rows *r, const pv_kernel_details *k)
{
    if (2 * (r->n_kernels + 1) > r->n_slots) {
        size_t n = r->n_slots ? 2 * r->n_slots : 256;
        uint32_t *slots = pv_xcalloc(n, sizeof *slots);
        for (size_t i = 0; i < r->n_kernels; i++) {
            size_t at = (size_t)kernel_hash(&r->kernels[i]) & (n - 1);
            while (slots[at] != 0)
                at = (at + 1) & (n - 1);
            slots[at] = (uint32_t)i + 1;
        }
        free(r->slots);
        r->slots = slots;
        r->n_slots = n;
    }
    size_t at = (size_t)kernel_hash(k) & (r->n_slots - 1);
    while (r->slots[at] != 0) {
        uint32_t i = r->slots[at] - 1;
        if (memcmp(&r->kernels[i], k, sizeof *k) == 0)
            return i;
        at = (at + 1) & (r->n_slots - 1);
    }
    PV__PUSH(r->kernels, r->n_kernels, r->cap_kernels, *k);
    r->slots[at] = (uint32_t)r->n_kernels;
    return (uint32_t)(r->n_kernels - 1);
}

static uint32_t kernel_row(side_rows *r, const pv_kernel_details *k)
{
    /* a stream repeats one kernel back to back: try the last row first */
    if (r->n_kernels > 0 && memcmp(&r->kernels[r->last_kernel], k, sizeof *k) == 0)
        return r->last_kernel;
    r->last_kernel = kernel_row_find(r, k);
    return r->last_kernel;
}

/* Appends the extra row of w, its details and step fields in the side
 * tables; returns the row's index. */
static uint32_t commit(pv__extras *xs, work *w)
{
    side_rows *r = &xs->rows;
    pv_event_extra x = w->x;
    /* Memory details are not kept: pv_model_event_memory reads them again
     * from the event's stats (their strings were interned just now). */
    if (x.flags & PV_EXTRA_KERNEL) {
        /* most launches keep their kernel_details' values as parsed: the
         * parsed string remembers its row, and only the others look */
        parsed *pc = w->kernel_from;
        bool as_parsed = pc != NULL && memcmp(&pc->kernel, &w->kernel, sizeof w->kernel) == 0;
        if (as_parsed && pc->kernel_row != UINT32_MAX) {
            x.detail = pc->kernel_row;
        } else {
            x.detail = kernel_row(r, &w->kernel);
            if (as_parsed)
                pc->kernel_row = x.detail;
        }
    }
    if (w->step.step_name != 0 || w->step.step_id >= 0 || w->step.iter_num >= 0 ||
        w->step.step_num >= 0) {
        PV__PUSH(r->steps, r->n_steps, r->cap_steps, w->step);
        x.step = (uint32_t)(r->n_steps - 1);
    }
    PV__PUSH(xs->extras, xs->n_extras, xs->cap_extras, x);
    return (uint32_t)(xs->n_extras - 1);
}

/* ---- metadata ---------------------------------------------------------- */

/* Works out what meta gives its events from its name and its n stats. */
static const meta_info *meta_info_set(ctx *c, uint32_t meta, uint32_t name, const pv_stat *stats,
                                      size_t n)
{
    pv__extras *x = c->x;
    if (meta >= x->cap_metas) {
        size_t old = x->cap_metas;
        pv__grow((void **)&x->metas, &x->cap_metas, (size_t)meta + 1, sizeof *x->metas);
        memset(x->metas + old, 0, (x->cap_metas - old) * sizeof *x->metas);
    }
    meta_info *mi = &x->metas[meta];
    const char *text = c->strs->strs[name];
    mi->flags = 0;
    if (strcmp(text, "MemoryAllocation") == 0)
        mi->flags |= NAME_MEM_ALLOC;
    else if (strcmp(text, "MemoryDeallocation") == 0)
        mi->flags |= NAME_MEM_FREE;
    else if (strcmp(text, "TraceContext") == 0)
        mi->flags |= NAME_TRACE_CONTEXT;
    mi->memcpy_kind = (uint8_t)pv__memcpy_kind_of_name(text);
    if (mi->memcpy_kind != PV_MEMCPY_NONE)
        mi->flags |= NAME_MEMCPY;
    mi->group = PV_NO_GROUP;
    mi->first_stat = (uint32_t)x->n_meta_stats;
    mi->n_stats = (uint32_t)n;
    pv__grow((void **)&x->meta_stats, &x->cap_meta_stats, x->n_meta_stats + n,
             sizeof *x->meta_stats);
    x->meta_stat_cls = pv_xrealloc(x->meta_stat_cls, x->cap_meta_stats ? x->cap_meta_stats : 1);
    for (size_t k = 0; k < n; k++) {
        uint8_t cls = cls_of(c, stats[k].name);
        int wk = cls & CLS_WK;
        int64_t v;
        if (wk == WK_GROUP_ID) {
            x->any_group = true;
            if (stat_int(&stats[k], &v))
                mi->group = v >= 0 && v <= INT32_MAX ? (int32_t)v : PV_NO_GROUP;
        }
        if (wk >= WK_CORRELATION_ID)
            mi->flags |= META_HAS_ROW_STAT;
        x->meta_stats[x->n_meta_stats] = stats[k];
        x->meta_stat_cls[x->n_meta_stats++] = cls;
    }
    mi->ready = true;
    return mi;
}

/* ---- one event ---------------------------------------------------------- */

typedef struct event {
    const meta_info *mi;
    int32_t group;
    bool row;               /* w holds a row being filled */
    work w;
} event;

static void event_begin(event *ev, const meta_info *mi)
{
    ev->mi = mi;
    ev->group = mi->group;
    ev->row = false;
}

/* Starts ev's row: defaults, then its metadata's stats. */
static void event_row(ctx *c, event *ev)
{
    const meta_info *mi = ev->mi;
    extra_init(&ev->w, mi->flags, mi->memcpy_kind);
    bool memory_event = (mi->flags & (NAME_MEM_ALLOC | NAME_MEM_FREE)) != 0;
    for (uint32_t k = mi->first_stat; k < mi->first_stat + mi->n_stats; k++) {
        int wk = c->x->meta_stat_cls[k] & CLS_WK;
        if (wk < WK_BYTES_RESERVED)
            apply(c, &ev->w, wk, &c->x->meta_stats[k], memory_event);
    }
    ev->row = true;
}

/* One own stat of ev, of class cls. Stats before the first that needs a
 * row only set the group, so the row starts there. */
static inline void event_stat(ctx *c, event *ev, const pv_stat *s, uint8_t cls)
{
    int wk = cls & CLS_WK;
    int64_t v;
    if (wk == WK_GROUP_ID) {
        c->x->any_group = true;
        if (stat_int(s, &v))
            ev->group = v >= 0 && v <= INT32_MAX ? (int32_t)v : PV_NO_GROUP;
    }
    if (s->type == PV_STAT_WSTR && (cls & CLS_ID))
        (void)stat_str(c, s);
    if (wk >= WK_CORRELATION_ID) {
        if (!ev->row)
            event_row(c, ev);
        if (wk < WK_BYTES_RESERVED)
            apply(c, &ev->w, wk, s, (ev->mi->flags & (NAME_MEM_ALLOC | NAME_MEM_FREE)) != 0);
    }
}

static void event_end(ctx *c, event *ev, int32_t *group, uint32_t *extra)
{
    if (!ev->row && ev->mi->flags != 0)
        event_row(c, ev);
    *group = ev->group;
    *extra = ev->row ? commit(c->x, &ev->w) : PV_NO_EXTRA;
}

/* ---- while the decoder adds events ------------------------------------- */

static pv__extras *extras_new(void)
{
    pv__extras *x = pv_xcalloc(1, sizeof *x);
    x->kernel_cache = pv_xcalloc(2 * PARSE_CACHE, sizeof *x->kernel_cache);
    x->memcpy_cache = x->kernel_cache + PARSE_CACHE;
    x->table_plane = UINT32_MAX;
    return x;
}

void pv__extras_free(pv__extras *x)
{
    if (x == NULL)
        return;
    free(x->cls);
    free(x->kernel_cache);
    free(x->rows.kernels);
    free(x->rows.slots);
    free(x->rows.steps);
    free(x->extras);
    free(x->metas);
    free(x->meta_stats);
    free(x->meta_stat_cls);
    free(x->dense);
    pv__idmap_fini(&x->sparse);
    free(x->sparse_names);
    free(x->plane_used);
    free(x);
}

void pv__extras_changed_plane(pv__extras *x, uint32_t plane)
{
    if (x != NULL && plane < x->n_plane_used && x->plane_used[plane])
        x->stale = true;
}

void pv__extras_changed_meta(pv__extras *x, uint32_t meta)
{
    if (x != NULL && meta < x->cap_metas && x->metas[meta].ready)
        x->stale = true;
}

void pv__extras_changed_all(pv__extras *x)
{
    if (x != NULL)
        x->stale = true;
}

/* Indexes plane's stat names for the events that follow; false when the
 * builder does not hold them in one run (then finish does the plane). */
static bool table_build(ctx *c, const pv_model_builder *b, uint32_t plane)
{
    pv__extras *x = c->x;
    const pv_plane *pl = &b->planes[plane];
    if (pl->n_stat_names == UINT32_MAX)
        return false;
    const pv__plane_stat_name *names = b->stat_names + pl->first_stat_name;
    int64_t hi = -1;
    bool dense = true;
    for (uint32_t i = 0; i < pl->n_stat_names; i++) {
        dense &= names[i].sn.id >= 0;
        if (names[i].sn.id > hi)
            hi = names[i].sn.id;
    }
    /* dense when ids are small and packed: a hostile id of 2^40 is looked
     * up in the map instead */
    dense &= hi < 4 * (int64_t)pl->n_stat_names + 1024;
    x->n_dense = 0;
    x->n_sparse = 0;
    pv__idmap_fini(&x->sparse);
    if (dense) {
        size_t n = (size_t)(hi + 1);
        free(x->dense);
        x->dense = pv_xcalloc(n ? n : 1, sizeof *x->dense);
        x->n_dense = n;
    }
    /* later ids win, as in a protobuf map */
    for (uint32_t i = 0; i < pl->n_stat_names; i++) {
        plane_name pn = {names[i].sn.name, cls_of(c, names[i].sn.name)};
        if (dense) {
            x->dense[names[i].sn.id] = pn;
        } else {
            PV__PUSH(x->sparse_names, x->n_sparse, x->cap_sparse, pn);
            pv__idmap_put(&x->sparse, (uint64_t)names[i].sn.id, (uint32_t)(x->n_sparse - 1));
        }
    }
    if (plane >= x->n_plane_used) {
        size_t old = x->n_plane_used;
        pv__grow((void **)&x->plane_used, &x->n_plane_used, (size_t)plane + 1, 1);
        memset(x->plane_used + old, 0, x->n_plane_used - old);
    }
    x->plane_used[plane] = 1;
    x->table_plane = plane;
    return true;
}

static inline plane_name table_get(const pv__extras *x, uint64_t id)
{
    if (id < x->n_dense)
        return x->dense[id];
    plane_name none = {0, WK_NONE};
    if (x->sparse.n == 0)
        return none;
    uint32_t i = pv__idmap_get(&x->sparse, id);
    return i == UINT32_MAX ? none : x->sparse_names[i];
}

/* meta's info, worked out from the builder's copy of its stats when this
 * is its first event; NULL when they are not in one run. */
static const meta_info *builder_meta_info(ctx *c, const pv_model_builder *b, uint32_t meta)
{
    pv__extras *x = c->x;
    if (meta < x->cap_metas && x->metas[meta].ready)
        return &x->metas[meta];
    const pv_event_meta *em = &b->metas[meta];
    if (em->n_stats == UINT32_MAX)
        return NULL;
    pv_stat local[16] = {{0}};
    pv_stat *stats = em->n_stats <= 16 ? local : pv_xmalloc(em->n_stats * sizeof *stats);
    for (uint32_t k = 0; k < em->n_stats; k++)
        stats[k] = b->meta_stats[em->first_stat + k].stat;
    const meta_info *mi = meta_info_set(c, meta, em->name, stats, em->n_stats);
    if (stats != local)
        free(stats);
    return mi;
}

static void columns_need(pv_model_builder *b)
{
    if (b->ev_extra != NULL)
        return;
    size_t cap = b->cap_events ? b->cap_events : 1;
    b->ev_group = pv_xmalloc(cap * sizeof *b->ev_group);
    b->ev_extra = pv_xmalloc(cap * sizeof *b->ev_extra);
    for (size_t e = 0; e < b->n_events; e++)
        b->ev_extra[e] = PV__EXTRA_PENDING;
}

bool pv__extras_wire_event(pv_model_builder *b, uint64_t ev, const uint8_t *p,
                           const uint8_t *end)
{
    if (b->extras == NULL)
        b->extras = extras_new();
    pv__extras *x = b->extras;
    if (x->stale)
        return true;   /* finish reads and checks every event again */
    ctx c = {x, &b->strs, false, b->src, b->src_len};
    uint32_t meta = b->ev_meta[ev];
    uint32_t plane = b->metas[meta].plane;
    const meta_info *mi = NULL;
    if ((x->table_plane != plane && !table_build(&c, b, plane)) ||
        (mi = builder_meta_info(&c, b, meta)) == NULL) {
        x->stale = true;
        return true;
    }
    columns_need(b);
    event e;
    event_begin(&e, mi);
    pv__wire_cursor wc = {p, end, b->src, b->src + b->src_len};
    uint64_t mid;
    pv_stat s;
    bool ref;
    int more;
    while ((more = pv__wire_next_stat(&wc, &mid, &s, &ref)) > 0) {
        plane_name pn = table_get(x, mid);
        if (pn.cls == WK_NONE)
            continue;
        s.name = pn.sid;
        if (ref) {
            uint32_t str = table_get(x, s.v.u64).sid;
            s.v.i64 = 0;
            s.v.str = str;
        }
        event_stat(&c, &e, &s, pn.cls);
    }
    if (more < 0)
        return false;
    event_end(&c, &e, &b->ev_group[ev], &b->ev_extra[ev]);
    return true;
}

/* ---- at finish ---------------------------------------------------------- */

#define DROP_EVERY 65536u   /* events between dropping the pages read */

/* Events come in file order (the decoder's case), so the file's pages
 * below the current event are done with: dropping them keeps the
 * process's resident memory near the model's size, as the decoder does.
 * Out-of-order events only read a page twice. */
static void drop_read_pages(const pv_model *m, uint64_t upto)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t end = (size_t)upto & ~(page - 1);
    if (end > 0 && end <= m->src_len)
        madvise((void *)(uintptr_t)m->src, end, MADV_DONTNEED);
}

/* Hands the side tables and rows to the model. */
static void publish(pv__extras *x, pv_model *m, pv__model_store *s)
{
    side_rows *r = &x->rows;
    void *cols[] = {r->kernels = r->kernels ? r->kernels : pv_xcalloc(1, sizeof *r->kernels),
                    r->steps = r->steps ? r->steps : pv_xcalloc(1, sizeof *r->steps),
                    x->extras = x->extras ? x->extras : pv_xcalloc(1, sizeof *x->extras)};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        pv__store_keep(s, cols[i]);
    m->kernels = r->kernels;
    m->n_kernels = (uint32_t)r->n_kernels;
    m->step_infos = r->steps;
    m->n_step_infos = (uint32_t)r->n_steps;
    m->extras = x->extras;   /* never NULL, see finish.c */
    m->n_extras = (uint32_t)x->n_extras;
    r->kernels = NULL;
    r->steps = NULL;
    x->extras = NULL;
}

void pv__wk_index(pv__model_store *s)
{
    s->n_wk = s->strs.n;
    s->wk = pv_xcalloc(s->n_wk ? s->n_wk : 1, 1);
    for (int i = 1; i < WK_COUNT; i++) {
        uint32_t id = pv__strtab_find(&s->strs, wk_names[i], strlen(wk_names[i]));
        if (id != 0)
            s->wk[id] = (uint8_t)i;
    }
    pv__store_keep(s, s->wk);
}

bool pv_model_event_memory(const pv_model *m, uint64_t ev, pv_memory_details *out)
{
    const pv_event_extra *x = pv_model_event_extra(m, ev);
    if (x == NULL || !(x->flags & PV_EXTRA_MEMORY))
        return false;
    pv__model_store *s = m->priv;
    ctx c = {NULL, &s->strs, true, m->src, m->src_len};
    work w;
    extra_init(&w, (x->flags & PV_EXTRA_MEM_ALLOC) ? NAME_MEM_ALLOC : NAME_MEM_FREE,
               PV_MEMCPY_NONE);
    const pv_event_meta *meta = &m->metas[m->ev_meta[ev]];
    pv_stat own[32];
    size_t n = pv_model_event_own_stats(m, ev, own, 32);
    for (size_t k = 0; k < meta->n_stats + n && k < meta->n_stats + 32; k++) {
        const pv_stat *st = k < meta->n_stats ? &m->stats[meta->first_stat + k]
                                              : &own[k - meta->n_stats];
        int wk = st->name < s->n_wk ? s->wk[st->name] : WK_NONE;
        if (wk >= WK_ALLOCATOR_NAME)
            apply_memory(&c, &w, wk, st);
    }
    *out = w.memory;
    return true;
}

int pv__extras_build(pv_model *m, pv__model_store *s, pv__extras *x, int32_t *group,
                     uint32_t *extra_of, pv_error *err)
{
    int rc = 0;
    if (x == NULL || x->stale || extra_of == NULL) {
        /* nothing applied, or applied results that no longer hold */
        pv__extras_free(x);
        x = extras_new();
        size_t n = m->n_events ? m->n_events : 1;
        free(group);
        free(extra_of);
        group = pv_xmalloc(n * sizeof *group);
        extra_of = pv_xmalloc(n * sizeof *extra_of);
        for (uint64_t e = 0; e < m->n_events; e++)
            extra_of[e] = PV__EXTRA_PENDING;
    }
    ctx c = {x, &s->strs, false, m->src, m->src_len};
    pv__wk_index(s);
    /* every metadata, also those without events: a group_id on any of
     * them counts for have_groups */
    for (uint32_t i = 0; i < m->n_metas; i++) {
        if (i >= x->cap_metas || !x->metas[i].ready)
            meta_info_set(&c, i, m->metas[i].name, m->stats + m->metas[i].first_stat,
                          m->metas[i].n_stats);
    }
    pv_stat *own = NULL;
    size_t cap_own = 0;
    uint32_t track = 0;
    bool drop_pages = s->src_owner == PV_SRC_MAPPED || s->src_owner == PV_SRC_MAPPED_BORROWED;
    for (uint64_t e = 0; e < m->n_events; e++) {
        if (extra_of[e] != PV__EXTRA_PENDING)
            continue;
        while (e >= m->tracks[track].first_event + m->tracks[track].n_events)
            track++;
        if (drop_pages && (e & (DROP_EVERY - 1)) == 0 && m->ev_wire != NULL)
            drop_read_pages(m, m->ev_wire[e] >> PV__WIRE_LEN_BITS);
        /* Finish runs under the decoder's SIGBUS guard, so this reads
         * unguarded. */
        bool bad = false;
        size_t n_own = pv__event_own_stats(m, m->tracks[track].plane, e, own, cap_own, &bad);
        if (n_own > cap_own && !bad) {
            pv__grow((void **)&own, &cap_own, n_own, sizeof *own);
            n_own = pv__event_own_stats(m, m->tracks[track].plane, e, own, cap_own, &bad);
        }
        if (bad) {
            rc = pv_error_set(err, PV_EFORMAT, NULL, m->ev_wire[e] >> PV__WIRE_LEN_BITS,
                              "corrupt: a stat of a %s event is not a well-formed XStat",
                              c.strs->strs[m->metas[m->ev_meta[e]].name]);
            break;
        }
        event ev;
        event_begin(&ev, &x->metas[m->ev_meta[e]]);
        for (size_t k = 0; k < n_own; k++)
            event_stat(&c, &ev, &own[k], cls_of(&c, own[k].name));
        event_end(&c, &ev, &group[e], &extra_of[e]);
    }
    free(own);
    m->has_group_stats = x->any_group;
    pv__store_keep(s, group);
    pv__store_keep(s, extra_of);
    m->ev_group = group;
    m->ev_extra = extra_of;
    publish(x, m, s);
    pv__extras_free(x);
    return rc;   /* on failure finish frees the half-built model */
}
