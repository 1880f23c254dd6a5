/* extras: decoding well-known stats (FORMATS.md §3.3) once into typed
 * pv_event_extra rows and the group_id column, so tools never compare
 * stat names in a hot loop. An event's effective stats are its
 * metadata's followed by its own (§2.2), so own stats win.
 *
 * Two callers share one pv__extras: the builder, which applies each
 * decoded event's stats as the decoder adds it (extras_add.c: the
 * XEvent's bytes are still in cache, and the file is read once), and
 * finish, which does the events left (ones without stats in the file,
 * ones built with stats in hand) and all of them when something the
 * applied ones depended on changed after (extras_finish.c). This file
 * holds what both apply with. */
#include "model/extras_priv.h"
#include "util/decimal.h"
#include "util/hash.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

static const char *const wk_names[WK_COUNT] = {
    [WK_GROUP_ID] = "group_id",
    [WK_PT] = "_pt",
    [WK_P] = "_p",
    [WK_CT] = "_ct",
    [WK_C] = "_c",
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

uint32_t pv__x_stat_str(pv__xctx *c, const pv_stat *s)
{
    if (s->type == PV_STAT_STR)
        return s->v.str;
    if (s->type != PV_STAT_WSTR)
        return 0;
    size_t len;
    const char *text = pv__wire_text(c->src, c->src_len, s->v.wire, &len);
    if (text == NULL)
        return 0;
    return c->read_only ? pv__strtab_find(c->strs, text, len)
                        : pv__strtab_intern(c->strs, text, len);
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

uint8_t pv__x_cls(pv__xctx *c, uint32_t sid)
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
void pv__x_row_init(pv__xwork *w, uint8_t name_flags, uint32_t memcpy_kind)
{
    memset(&w->x, 0, sizeof w->x);
    pv_event_extra *x = &w->x;
    x->detail = UINT32_MAX;
    x->step = PV_NO_STEP;
    w->step = (pv_step_info){0, 0, -1, -1, -1};
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

void pv__x_apply_memory(pv__xctx *c, pv__xwork *w, int wk, const pv_stat *s)
{
    pv_memory_details *md = &w->memory;
    int64_t i = 0;
    bool is_int = pv__stat_int(s, &i);
    char num[PV_I64_TEXT_MAX];
    switch (wk) {
    case WK_ALLOCATOR_NAME: md->memory_id = pv__x_stat_str(c, s); break;
    case WK_INDEX_ON_HOST:
    case WK_DEVICE_ORDINAL:
        if (is_int) {
            char *text = pv_fmt_i64(num + sizeof num, i);
            size_t n = (size_t)(num + sizeof num - text);
            md->memory_id = c->read_only ? pv__strtab_find(c->strs, text, n)
                                         : pv__strtab_intern(c->strs, text, n);
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
    case WK_REGION_TYPE: md->region_type = pv__x_stat_str(c, s); break;
    case WK_DATA_TYPE: md->data_type = (int32_t)i; break;
    case WK_SHAPE: md->shape = pv__x_stat_str(c, s); break;
    default: break;
    }
}

/* The parse cache slot of string sid; the caches are made at the first
 * details stat (many profiles have none, and a small file's ingest would
 * spend a tenth of its time clearing them). */
static pv__xparsed *parse_slot(pv__extras *x, bool memcpy_details, uint32_t sid)
{
    if (x->kernel_cache == NULL) {
        x->kernel_cache = pv_xcalloc(2 * PARSE_CACHE, sizeof *x->kernel_cache);
        x->memcpy_cache = x->kernel_cache + PARSE_CACHE;
    }
    return &(memcpy_details ? x->memcpy_cache : x->kernel_cache)[sid % PARSE_CACHE];
}

void pv__x_apply(pv__xctx *c, pv__xwork *w, int wk, const pv_stat *s, bool memory_event)
{
    pv_event_extra *x = &w->x;
    int64_t i = 0;
    bool is_int = pv__stat_int(s, &i);
    switch (wk) {
    case WK_CORRELATION_ID:
        if (is_int) {
            x->correlation_id = (uint64_t)i;
            x->flags |= PV_EXTRA_CORRELATION;
        }
        break;
    case WK_TF_OP: x->tf_op = pv__x_stat_str(c, s); break;
    case WK_HLO_OP: x->hlo_op = pv__x_stat_str(c, s); break;
    case WK_HLO_MODULE: x->hlo_module = pv__x_stat_str(c, s); break;
    case WK_STEP_NAME: w->step.step_name = pv__x_stat_str(c, s); break;
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
        uint32_t sid = pv__x_stat_str(c, s);
        if (sid != 0 && !memory_event) {
            pv__xparsed *pc = parse_slot(c->x, false, sid);
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
        uint32_t sid = pv__x_stat_str(c, s);
        if (sid != 0) {
            pv__xparsed *pc = parse_slot(c->x, true, sid);
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
            pv__x_apply_memory(c, w, wk, s);
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

static uint32_t kernel_row_find(pv__xrows *r, const pv_kernel_details *k)
{
    pv_hashtab_cursor c = pv_hashtab_probe(&r->kernel_ids, kernel_hash(k));
    uint32_t i;
    while (pv_hashtab_next(&c, &i))
        if (memcmp(&r->kernels[i], k, sizeof *k) == 0)
            return i;
    i = (uint32_t)r->n_kernels;
    PV__PUSH(r->kernels, r->n_kernels, r->cap_kernels, *k);
    pv_hashtab_insert(&r->kernel_ids, &c, i);
    return i;
}

static uint32_t kernel_row(pv__xrows *r, const pv_kernel_details *k)
{
    /* a stream repeats one kernel back to back: try the last row first */
    if (r->n_kernels > 0 && memcmp(&r->kernels[r->last_kernel], k, sizeof *k) == 0)
        return r->last_kernel;
    r->last_kernel = kernel_row_find(r, k);
    return r->last_kernel;
}

/* A row's hash, a 64-bit word at a time: hashed byte by byte (FNV-1a),
 * the rows of a profile's millions of events cost a tenth of its ingest.
 * The words are put together from the fields as they were just stored,
 * one by one (a load of a whole word across those stores waits for them
 * to reach the cache), and hashed in two independent chains. */
static uint64_t row_hash(const pv_event_extra *x)
{
    _Static_assert(sizeof *x == 48, "row_hash reads every field of a row");
    uint64_t head = x->flags | (uint64_t)x->memcpy_kind << 16 | (uint64_t)x->reserved << 24 |
                    (uint64_t)x->tf_op << 32;
    uint64_t a = pv_hash_u64(PV_HASH_SEED ^ head);
    uint64_t b = pv_hash_u64(PV_HASH_SEED ^ x->correlation_id);
    a = pv_hash_u64(a ^ x->flow);
    b = pv_hash_u64(b ^ x->memcpy_bytes);
    a = pv_hash_u64(a ^ (x->hlo_op | (uint64_t)x->hlo_module << 32));
    b = pv_hash_u64(b ^ (x->detail | (uint64_t)x->step << 32));
    return pv_hash_u64(a ^ (b * 0x9e3779b97f4a7c15ull));
}

/* The index of the shared row equal to x (pv__extra_is_shareable),
 * appended when there is none and the table has room; UINT32_MAX when it
 * has not. Rows have no padding, so equal bytes are equal rows. */
static uint32_t shared_row(pv__extras *xs, const pv_event_extra *x)
{
    pv_hashtab_cursor c = pv_hashtab_probe(&xs->shared_rows, row_hash(x));
    uint32_t i;
    while (pv_hashtab_next(&c, &i))
        if (memcmp(&xs->extras[i], x, sizeof *x) == 0)
            return i;
    if (xs->shared_rows.n >= SHARED_ROWS_MAX)
        return UINT32_MAX;
    PV__PUSH(xs->extras, xs->n_extras, xs->cap_extras, *x);
    i = (uint32_t)(xs->n_extras - 1);
    pv_hashtab_insert(&xs->shared_rows, &c, i);
    return i;
}

/* Appends the extra row of w, its details and step fields in the side
 * tables; returns the row's index. */
static uint32_t commit(pv__extras *xs, pv__xwork *w)
{
    pv__xrows *r = &xs->rows;
    /* in place: w is done with once its row is kept */
    pv_event_extra *x = &w->x;
    /* Memory details are not kept: pv_model_event_memory reads them again
     * from the event's stats (their strings were interned just now). */
    if (x->flags & PV_EXTRA_KERNEL) {
        /* most launches keep their kernel_details' values as parsed: the
         * parsed string remembers its row, and only the others look */
        pv__xparsed *pc = w->kernel_from;
        bool as_parsed = pc != NULL && memcmp(&pc->kernel, &w->kernel, sizeof w->kernel) == 0;
        if (as_parsed && pc->kernel_row != UINT32_MAX) {
            x->detail = pc->kernel_row;
        } else {
            x->detail = kernel_row(r, &w->kernel);
            if (as_parsed)
                pc->kernel_row = x->detail;
        }
    }
    if (w->step.step_name != 0 || w->step.step_id >= 0 || w->step.iter_num >= 0 ||
        w->step.step_num >= 0) {
        PV__PUSH(r->steps, r->n_steps, r->cap_steps, w->step);
        x->step = (uint32_t)(r->n_steps - 1);
    }
    if (pv__extra_is_shareable(x)) {
        uint32_t shared = shared_row(xs, x);
        if (shared != UINT32_MAX)
            return shared;
    }
    PV__PUSH(xs->extras, xs->n_extras, xs->cap_extras, *x);
    return (uint32_t)(xs->n_extras - 1);
}

/* ---- metadata ---------------------------------------------------------- */

/* Works out what meta gives its events from its name and its n stats. */
const pv__xmeta *pv__x_meta_set(pv__xctx *c, uint32_t meta, uint32_t name, const pv_stat *stats,
                                      size_t n)
{
    pv__extras *x = c->x;
    if (meta >= x->cap_metas) {
        size_t old = x->cap_metas;
        pv__grow((void **)&x->metas, &x->cap_metas, (size_t)meta + 1, sizeof *x->metas);
        memset(x->metas + old, 0, (x->cap_metas - old) * sizeof *x->metas);
    }
    pv__xmeta *mi = &x->metas[meta];
    const char *text = c->strs->strs[name];
    mi->flags = 0;
    if (text[0] == 'M' && strcmp(text, "MemoryAllocation") == 0)
        mi->flags |= NAME_MEM_ALLOC;
    else if (text[0] == 'M' && strcmp(text, "MemoryDeallocation") == 0)
        mi->flags |= NAME_MEM_FREE;
    else if (text[0] == 'T' && strcmp(text, "TraceContext") == 0)
        mi->flags |= NAME_TRACE_CONTEXT;
    mi->memcpy_kind = (uint8_t)pv__memcpy_kind_of_name(text);
    if (mi->memcpy_kind != PV_MEMCPY_NONE)
        mi->flags |= NAME_MEMCPY;
    mi->group = PV_NO_GROUP;
    mi->contexts.has = mi->contexts.ints = 0;
    mi->first_stat = (uint32_t)x->n_meta_stats;
    mi->n_stats = (uint32_t)n;
    size_t cap = x->cap_meta_stats;
    pv__grow((void **)&x->meta_stats, &x->cap_meta_stats, x->n_meta_stats + n,
             sizeof *x->meta_stats);
    if (x->cap_meta_stats != cap || x->meta_stat_cls == NULL)
        x->meta_stat_cls = pv_xrealloc(x->meta_stat_cls, x->cap_meta_stats ? x->cap_meta_stats : 1);
    for (size_t k = 0; k < n; k++) {
        uint8_t cls = pv__x_cls(c, stats[k].name);
        int wk = cls & CLS_WK;
        int64_t v;
        if (wk == WK_GROUP_ID) {
            x->any_group = true;
            if (pv__stat_int(&stats[k], &v))
                mi->group = v >= 0 && v <= INT32_MAX ? (int32_t)v : PV_NO_GROUP;
        }
        if (wk >= WK_CORRELATION_ID)
            mi->flags |= META_HAS_ROW_STAT;
        else if (wk >= WK_PT)
            pv__x_context(&mi->contexts, wk, &stats[k]);
        x->meta_stats[x->n_meta_stats] = stats[k];
        x->meta_stat_cls[x->n_meta_stats++] = cls;
    }
    mi->ready = true;
    return mi;
}

/* ---- one event ---------------------------------------------------------- */

/* Starts ev's row: defaults, then its metadata's stats. */
void pv__x_event_row(pv__xctx *c, pv__xevent *ev)
{
    const pv__xmeta *mi = ev->mi;
    pv__x_row_init(&ev->w, mi->flags, mi->memcpy_kind);
    bool memory_event = (mi->flags & (NAME_MEM_ALLOC | NAME_MEM_FREE)) != 0;
    for (uint32_t k = mi->first_stat; k < mi->first_stat + mi->n_stats; k++) {
        int wk = c->x->meta_stat_cls[k] & CLS_WK;
        if (wk < WK_BYTES_RESERVED)
            pv__x_apply(c, &ev->w, wk, &c->x->meta_stats[k], memory_event);
    }
    ev->row = true;
}

/* A context name's value for ev: its own last stat of the name, else its
 * metadata's, as an event's effective stats go (an own stat that is no
 * integer hides the metadata's). */
static bool context_value(const pv__xevent *ev, int wk, int64_t *v)
{
    const pv__xcontexts *from = (ev->own.has & CTX_OF(wk)) ? &ev->own : &ev->mi->contexts;
    *v = from->v[wk - WK_PT];
    return (from->ints & CTX_OF(wk)) != 0;
}

/* Keys event e as a producer (_pt, _p) and a consumer (_ct, _c) for step
 * grouping, which runs only when no event has a group_id. */
static void context_keys(pv__extras *x, const pv__xevent *ev, uint64_t e)
{
    if ((ev->own.has | ev->mi->contexts.has) == 0 || e >= UINT32_MAX)
        return;
    if (x->any_group) {
        free(x->contexts.v);
        memset(&x->contexts, 0, sizeof x->contexts);
        return;
    }
    for (int side = 0; side < 2; side++) {
        int64_t type, id;
        if (context_value(ev, side ? WK_CT : WK_PT, &type) &&
            context_value(ev, side ? WK_C : WK_P, &id)) {
            pv__keyed k = {PV__KEY_CONTEXT + ((uint64_t)type << 8), (uint64_t)id, (uint32_t)e,
                           side};
            PV__PUSH(x->contexts.v, x->contexts.n, x->contexts.cap, k);
        }
    }
}

void pv__x_event_end(pv__xctx *c, pv__xevent *ev, uint64_t e, int32_t *group, uint32_t *extra)
{
    context_keys(c->x, ev, e);
    if (!ev->row && ev->mi->flags != 0)
        pv__x_event_row(c, ev);
    *group = ev->group;
    *extra = ev->row ? commit(c->x, &ev->w) : PV_NO_EXTRA;
}

/* ---- lifetime ----------------------------------------------------------- */

pv__extras *pv__x_new(void)
{
    pv__extras *x = pv_xcalloc(1, sizeof *x);
    x->table_plane = UINT32_MAX;
    return x;
}

void pv__extras_free(pv__extras *x)
{
    if (x == NULL)
        return;
    free(x->cls);
    free(x->contexts.v);
    free(x->kernel_cache);
    free(x->rows.kernels);
    pv_hashtab_fini(&x->rows.kernel_ids);
    pv_hashtab_fini(&x->shared_rows);
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
