/* extras: decoding well-known stats (FORMATS.md §3.3) once into typed
 * pv_event_extra rows and the group_id column, so tools never compare
 * stat names in a hot loop. An event's effective stats are its
 * metadata's followed by its own (§2.2), so own stats win. */
#include "model/model_priv.h"
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
    /* memory stats: only read on MemoryAllocation/Deallocation events */
    WK_ALLOCATOR_NAME,
    WK_INDEX_ON_HOST,
    WK_DEVICE_ORDINAL,
    WK_BYTES_RESERVED,
    WK_BYTES_ALLOCATED,
    WK_BYTES_AVAILABLE,
    WK_PEAK_BYTES,
    WK_FRAGMENTATION,
    WK_REQUESTED_BYTES,
    WK_ALLOCATION_BYTES,
    WK_ADDR,
    WK_REGION_TYPE,
    WK_DATA_TYPE,
    WK_SHAPE,
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

#define PARSE_CACHE 256   /* direct-mapped, by string id */

/* Producers write kernel_details and memcpy_details as refs, so a few
 * strings repeat across millions of events: parse each once. */
typedef struct parsed {
    uint32_t str;           /* string id + 1; 0 = empty slot */
    pv_kernel_details kernel;
    uint32_t memcpy_kind;
    uint64_t memcpy_bytes;
} parsed;

/* One event's well-known values while its stats are applied; committed
 * as an extra row plus side rows (model.h). */
typedef struct work {
    pv_event_extra x;
    pv_kernel_details kernel;
    pv_memory_details memory;
    pv_step_info step;
} work;

typedef struct ctx {
    const pv_model *m;
    pv__strtab *strs;
    bool read_only;         /* a finished model: find strings, never intern */
    pv_stat *own;           /* the current event's own stats */
    size_t cap_own;
    const uint8_t *wk;      /* string id -> enum wk */
    size_t n_wk;
    uint8_t *id_stat;       /* per name id below n_wk: 1 for PV_MODEL_ID_STATS */
    parsed *kernel_cache;   /* PARSE_CACHE slots each */
    parsed *memcpy_cache;
} ctx;

static int wk_of(const ctx *c, uint32_t name)
{
    return name < c->n_wk ? c->wk[name] : WK_NONE;
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

/* The string id of a string stat; one read from the file is interned
 * now (only well-known stats get here, and they repeat). */
static uint32_t stat_str(ctx *c, const pv_stat *s)
{
    if (s->type == PV_STAT_STR)
        return s->v.str;
    if (s->type != PV_STAT_WSTR)
        return 0;
    size_t len;
    const char *text = pv_model_stat_text(c->m, s, &len);
    if (text == NULL)
        return 0;
    return c->read_only ? pv__strtab_find(c->strs, text, len)
                        : pv__strtab_intern(c->strs, text, len);
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

static void apply(ctx *c, work *w, const pv_stat *s, bool memory_event)
{
    pv_event_extra *x = &w->x;
    int wk = wk_of(c, s->name);
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
            parsed *pc = &c->kernel_cache[sid % PARSE_CACHE];
            if (pc->str != sid + 1) {
                pc->str = sid + 1;
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
            if (w->kernel.occupancy_pct < 0)
                w->kernel.occupancy_pct = occ;
            x->flags |= PV_EXTRA_KERNEL;
        }
        break;
    }
    case WK_MEMCPY_DETAILS: {
        uint32_t sid = stat_str(c, s);
        if (sid != 0) {
            parsed *pc = &c->memcpy_cache[sid % PARSE_CACHE];
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
    default:
        if (memory_event && wk >= WK_ALLOCATOR_NAME)
            apply_memory(c, w, wk, s);
        break;
    }
}

/* ---- building ------------------------------------------------------------ */

static uint8_t *meta_flags(ctx *c, uint32_t *memcpy_kind)
{
    const pv_model *m = c->m;
    uint8_t *flags = pv_xcalloc(m->n_metas ? m->n_metas : 1, 1);
    for (uint32_t i = 0; i < m->n_metas; i++) {
        const pv_event_meta *meta = &m->metas[i];
        const char *name = c->strs->strs[meta->name];
        if (strcmp(name, "MemoryAllocation") == 0)
            flags[i] |= NAME_MEM_ALLOC;
        else if (strcmp(name, "MemoryDeallocation") == 0)
            flags[i] |= NAME_MEM_FREE;
        else if (strcmp(name, "TraceContext") == 0)
            flags[i] |= NAME_TRACE_CONTEXT;
        memcpy_kind[i] = pv__memcpy_kind_of_name(name);
        if (memcpy_kind[i] != PV_MEMCPY_NONE)
            flags[i] |= NAME_MEMCPY;
        for (uint32_t k = 0; k < meta->n_stats; k++) {
            if (wk_of(c, m->stats[meta->first_stat + k].name) >= WK_CORRELATION_ID)
                flags[i] |= META_HAS_ROW_STAT;
        }
    }
    return flags;
}

static int32_t group_of(const ctx *c, const pv_stat *s, uint64_t n, int32_t group, bool *seen)
{
    for (uint64_t k = 0; k < n; k++) {
        int64_t v;
        if (wk_of(c, s[k].name) != WK_GROUP_ID)
            continue;
        *seen = true;
        if (stat_int(&s[k], &v))
            group = v >= 0 && v <= INT32_MAX ? (int32_t)v : PV_NO_GROUP;
    }
    return group;
}

static bool is_id_stat(const ctx *c, uint32_t name)
{
    return name < c->n_wk && c->id_stat[name];
}

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

/* ---- side tables ------------------------------------------------------- */

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

/* The extra row of w, its details and step fields in the side tables. */
static pv_event_extra commit(side_rows *r, work *w)
{
    pv_event_extra x = w->x;
    /* Memory details are not kept: pv_model_event_memory reads them again
     * from the event's stats (their strings were interned just now). */
    if (x.flags & PV_EXTRA_KERNEL)
        x.detail = kernel_row(r, &w->kernel);
    if (w->step.step_name != 0 || w->step.step_id >= 0 || w->step.iter_num >= 0 ||
        w->step.step_num >= 0) {
        PV__PUSH(r->steps, r->n_steps, r->cap_steps, w->step);
        x.step = (uint32_t)(r->n_steps - 1);
    }
    return x;
}

/* Hands the side tables to the model. */
static void side_rows_publish(side_rows *r, pv_model *m, pv__model_store *s)
{
    free(r->slots);
    void *cols[] = {r->kernels = r->kernels ? r->kernels : pv_xcalloc(1, sizeof *r->kernels),
                    r->steps = r->steps ? r->steps : pv_xcalloc(1, sizeof *r->steps)};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        pv__store_keep(s, cols[i]);
    m->kernels = r->kernels;
    m->n_kernels = (uint32_t)r->n_kernels;
    m->step_infos = r->steps;
    m->n_step_infos = (uint32_t)r->n_steps;
}

/* Reads event e (of plane) own stats into c->own; returns how many, or
 * SIZE_MAX when one in the file does not parse. Finish runs under the
 * decoder's SIGBUS guard, so this reads unguarded. */
static size_t own_stats(ctx *c, uint32_t plane, uint64_t e)
{
    bool bad = false;
    size_t n = pv__event_own_stats(c->m, plane, e, c->own, c->cap_own, &bad);
    if (n > c->cap_own && !bad) {
        pv__grow((void **)&c->own, &c->cap_own, n, sizeof *c->own);
        n = pv__event_own_stats(c->m, plane, e, c->own, c->cap_own, &bad);
    }
    return bad ? SIZE_MAX : n;
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
    ctx c = {.m = m, .strs = &s->strs, .read_only = true, .wk = s->wk, .n_wk = s->n_wk};
    work w;
    extra_init(&w, (x->flags & PV_EXTRA_MEM_ALLOC) ? NAME_MEM_ALLOC : NAME_MEM_FREE,
               PV_MEMCPY_NONE);
    const pv_event_meta *meta = &m->metas[m->ev_meta[ev]];
    for (uint32_t k = 0; k < meta->n_stats; k++) {
        const pv_stat *st = &m->stats[meta->first_stat + k];
        int wk = wk_of(&c, st->name);
        if (wk >= WK_ALLOCATOR_NAME)
            apply_memory(&c, &w, wk, st);
    }
    pv_stat own[32];
    size_t n = pv_model_event_own_stats(m, ev, own, 32);
    for (size_t k = 0; k < n && k < 32; k++) {
        int wk = wk_of(&c, own[k].name);
        if (wk >= WK_ALLOCATOR_NAME)
            apply_memory(&c, &w, wk, &own[k]);
    }
    *out = w.memory;
    return true;
}

int pv__extras_build(pv_model *m, pv__model_store *s, bool *have_groups, pv_error *err)
{
    int rc = 0;
    ctx c = {.m = m, .strs = &s->strs};
    pv__grow((void **)&c.own, &c.cap_own, 64, sizeof *c.own);
    c.kernel_cache = pv_xcalloc(2 * PARSE_CACHE, sizeof *c.kernel_cache);
    c.memcpy_cache = c.kernel_cache + PARSE_CACHE;
    pv__wk_index(s);
    c.wk = s->wk;
    c.n_wk = s->n_wk;
    c.id_stat = pv_xcalloc(c.n_wk ? c.n_wk : 1, 1);
    static const char *const id_stats[] = PV_MODEL_ID_STATS;
    for (size_t i = 0; i < sizeof id_stats / sizeof id_stats[0]; i++) {
        uint32_t id = pv__strtab_find(&s->strs, id_stats[i], strlen(id_stats[i]));
        if (id != 0 && id < c.n_wk)
            c.id_stat[id] = 1;
    }
    uint32_t *memcpy_kind = pv_xmalloc((m->n_metas ? m->n_metas : 1) * sizeof *memcpy_kind);
    uint8_t *mflags = meta_flags(&c, memcpy_kind);

    size_t n = m->n_events ? m->n_events : 1;
    int32_t *group = pv_xmalloc(n * sizeof *group);
    uint32_t *extra_of = pv_xmalloc(n * sizeof *extra_of);
    int32_t *meta_group = pv_xmalloc((m->n_metas ? m->n_metas : 1) * sizeof *meta_group);
    bool any_group = false;
    for (uint32_t i = 0; i < m->n_metas; i++) {
        meta_group[i] = group_of(&c, m->stats + m->metas[i].first_stat, m->metas[i].n_stats,
                                 PV_NO_GROUP, &any_group);
    }
    pv_event_extra *extras = NULL;
    size_t n_extras = 0, cap_extras = 0;
    side_rows rows;
    memset(&rows, 0, sizeof rows);
    work cur;
    uint32_t track = 0;
    bool drop_pages = s->src_owner == PV_SRC_MAPPED || s->src_owner == PV_SRC_MAPPED_BORROWED;
    for (uint64_t e = 0; e < m->n_events; e++) {
        while (e >= m->tracks[track].first_event + m->tracks[track].n_events)
            track++;
        if (drop_pages && (e & (DROP_EVERY - 1)) == 0 && m->ev_wire != NULL)
            drop_read_pages(m, m->ev_wire[e] >> PV__WIRE_LEN_BITS);
        uint32_t mi = m->ev_meta[e];
        const pv_event_meta *meta = &m->metas[mi];
        size_t n_own = own_stats(&c, m->tracks[track].plane, e);
        if (n_own == SIZE_MAX) {
            rc = pv_error_set(err, PV_EFORMAT, NULL, m->ev_wire[e] >> PV__WIRE_LEN_BITS,
                              "corrupt: a stat of a %s event is not a well-formed XStat",
                              c.strs->strs[m->metas[m->ev_meta[e]].name]);
            break;
        }
        const pv_stat *own = c.own;
        const pv_stat *ms = m->stats + meta->first_stat;
        /* one pass over the own stats: the group and whether a row is due */
        int32_t g = meta_group[mi];
        bool row = mflags[mi] != 0;
        for (uint64_t k = 0; k < n_own; k++) {
            int w = wk_of(&c, own[k].name);
            int64_t v;
            if (w == WK_GROUP_ID) {
                any_group = true;
                if (stat_int(&own[k], &v))
                    g = v >= 0 && v <= INT32_MAX ? (int32_t)v : PV_NO_GROUP;
            }
            if (own[k].type == PV_STAT_WSTR && is_id_stat(&c, own[k].name))
                (void)stat_str(&c, &own[k]);
            row |= w >= WK_CORRELATION_ID;
        }
        group[e] = g;
        if (!row) {
            extra_of[e] = PV_NO_EXTRA;
            continue;
        }
        extra_init(&cur, mflags[mi], memcpy_kind[mi]);
        bool memory_event = (mflags[mi] & (NAME_MEM_ALLOC | NAME_MEM_FREE)) != 0;
        for (uint32_t k = 0; k < meta->n_stats; k++)
            apply(&c, &cur, &ms[k], memory_event);
        for (uint64_t k = 0; k < n_own; k++)
            apply(&c, &cur, &own[k], memory_event);
        PV__PUSH(extras, n_extras, cap_extras, commit(&rows, &cur));
        extra_of[e] = (uint32_t)(n_extras - 1);
    }
    free(c.own);
    free(c.id_stat);
    free(meta_group);
    *have_groups = any_group;
    free(c.kernel_cache);
    free(mflags);
    free(memcpy_kind);
    if (extras == NULL)
        extras = pv_xcalloc(1, sizeof *extras);   /* never NULL, see finish.c */
    pv__store_keep(s, group);
    pv__store_keep(s, extra_of);
    pv__store_keep(s, extras);
    m->ev_group = group;
    m->ev_extra = extra_of;
    m->extras = extras;
    m->n_extras = (uint32_t)n_extras;
    side_rows_publish(&rows, m, s);
    return rc;   /* on failure finish frees the half-built model */
}
