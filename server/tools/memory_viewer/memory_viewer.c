/* memory_viewer: the heap simulation of one program (memory_viewer.h). */
#include "tools/memory_viewer/memory_viewer.h"

#include "tools/hlo/hlo_cost.h"
#include "tools/hlo/hlo_index.h"
#include "util/bsearch.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A logical buffer placed in an allocation, as the simulation tracks it. */
typedef struct lbuf {
    const pv_hlo_logical_buffer *p;   /* NULL: not in any allocation (unknown) */
    const pv_hlo_allocation *alloc;
    uint32_t instr;                   /* its instruction in the index */
    int64_t offset;                   /* within the allocation */
    int64_t unpadded;
    const char *shape;                /* its (sub)shape's text */
    bool has_span;
    bool span_closed;
    int32_t span_first, span_second;
    int64_t ref_count;
    struct lbuf *canonical;           /* the buffer whose memory it shares */
} lbuf;

typedef struct sim {
    const pv_model *m;
    pv_arena *a;
    pv_hlo_index x;
    const pv_hlo_module *mod;
    uint32_t module;                  /* index in the table */
    pv_hlo_buffers b;
    lbuf *bufs;                       /* parallel to b.logical_buffers */
    int64_t *trace_of;                /* per allocation: its heap trace, -1 none */
    int64_t color;
} sim;

/* ---- lookups ----------------------------------------------------------------------- */

static lbuf *buffer(const sim *s, int64_t id)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, s->b.n_logical_buffers, mid, s->b.logical_buffers[mid].id < id);
    if (lo < s->b.n_logical_buffers && s->b.logical_buffers[lo].id == id &&
        s->bufs[lo].p != NULL)
        return &s->bufs[lo];
    return NULL;
}

/* Live for the whole program: parameters, constants and outputs. A
 * thread-local allocation is not listed with them (XProf 2.24.2 leaves it
 * out of the indefinite lifetimes and the peak; it still counts in the
 * totals). */
static bool indefinite(const pv_hlo_allocation *al)
{
    return al->is_entry_computation_parameter || al->is_constant || al->maybe_live_out;
}

static bool reusable(const pv_hlo_allocation *al)
{
    return !al->is_thread_local && !al->is_tuple;
}

static const char *category(const pv_hlo_allocation *al)
{
    return al->is_entry_computation_parameter ? "Parameter"
           : al->maybe_live_out               ? "Output"
           : al->is_thread_local              ? "Thread-local"
           : al->is_constant                  ? "Constant"
                                              : "Temporary";
}

static lbuf *canonical_of(lbuf *l)
{
    int guard = 0;
    while (l->canonical != NULL && guard++ < 1 << 20)
        l = l->canonical;
    return l;
}

static int64_t ref_inc(lbuf *l)
{
    lbuf *c = canonical_of(l);
    return ++c->ref_count;
}

static int64_t ref_dec(lbuf *l)
{
    lbuf *c = canonical_of(l);
    return --c->ref_count;
}

/* ---- shapes ------------------------------------------------------------------------- */

/* The text of top-level element i of a tuple shape's text, or NULL. */
static const char *tuple_element(const char *shape, int64_t i, pv_arena *a)
{
    if (shape[0] != '(')
        return NULL;
    const char *p = shape + 1;
    int64_t k = 0;
    while (*p != '\0' && *p != ')') {
        while (*p == ' ')
            p++;
        if (strncmp(p, "/*index=", 8) == 0 && strstr(p, "*/") != NULL)
            p = strstr(p, "*/") + 2;
        const char *start = p;
        int depth = 0;
        while (*p != '\0' && !(depth == 0 && (*p == ',' || *p == ')'))) {
            depth += *p == '(' || *p == '[' || *p == '{';
            depth -= *p == ')' || *p == ']' || *p == '}';
            p++;
        }
        if (k++ == i)
            return pv_arena_strndup(a, start, (size_t)(p - start));
        if (*p == ',')
            p++;
    }
    return NULL;
}

static size_t tuple_arity(const char *shape)
{
    size_t n = 0;
    int depth = 0;
    for (const char *p = shape; *p != '\0'; p++) {
        if (depth == 1 && *p == ',')
            n++;
        depth += *p == '(' || *p == '[' || *p == '{';
        depth -= *p == ')' || *p == ']' || *p == '}';
    }
    return shape[0] == '(' && shape[1] != ')' ? n + 1 : 0;
}

/* The bytes of a shape without padding: its arrays' elements times their
 * size, a tuple its pointers (XLA's ByteSizeOf with 8-byte pointers). */
static int64_t unpadded_bytes(const char *shape)
{
    if (shape[0] == '(')
        return 8 * (int64_t)tuple_arity(shape);
    return (int64_t)pv_hlo_shape_bytes(shape);
}

/* ---- setting up ------------------------------------------------------------------- */

static const pv_hlo_module *module_of(const pv_hlo_table *t, uint64_t program_id, uint32_t *index)
{
    const pv_hlo_module *mod = pv_hlo_module_find(t, program_id);
    if (mod != NULL)
        *index = (uint32_t)(mod - t->modules);
    return mod;
}

static void place_buffers(sim *s)
{
    s->bufs = pv_arena_zalloc(s->a, (s->b.n_logical_buffers + 1) * sizeof *s->bufs);
    for (size_t k = 0; k < s->b.n_allocations; k++) {
        const pv_hlo_allocation *al = &s->b.allocations[k];
        for (uint32_t j = 0; j < al->n_assigned; j++) {
            const pv_hlo_assigned *as = &al->assigned[j];
            size_t lo = 0;
            PV_LOWER_BOUND(size_t, lo, s->b.n_logical_buffers, mid, s->b.logical_buffers[mid].id < as->logical_buffer_id);
            if (lo >= s->b.n_logical_buffers ||
                s->b.logical_buffers[lo].id != as->logical_buffer_id)
                continue;
            const pv_hlo_logical_buffer *p = &s->b.logical_buffers[lo];
            uint32_t i = pv_hlo_index_by_id(&s->x, s->module, p->instruction_id);
            if (i == PV_HLO_NONE)
                continue;
            const char *shape = s->x.t->instructions[i].shape;
            const char *sub = p->n_shape_index > 0
                                  ? tuple_element(shape, p->shape_index[p->n_shape_index - 1],
                                                  s->a)
                                  : NULL;
            lbuf *l = &s->bufs[lo];
            *l = (lbuf){.p = p, .alloc = al, .instr = i, .offset = as->offset,
                        .shape = sub != NULL ? sub : shape};
            l->unpadded = unpadded_bytes(l->shape);
        }
    }
    /* A trace belongs to the allocation of its first event's buffer (the
     * trace's own allocation index is not to be trusted, XProf says). */
    s->trace_of = pv_arena_alloc(s->a, (s->b.n_allocations + 1) * sizeof *s->trace_of);
    for (size_t k = 0; k < s->b.n_allocations; k++)
        s->trace_of[k] = -1;
    for (size_t t = 0; t < s->b.n_traces; t++) {
        if (s->b.traces[t].n_events == 0)
            continue;
        const lbuf *l = buffer(s, s->b.traces[t].events[0].buffer_id);
        if (l != NULL)
            s->trace_of[l->alloc - s->b.allocations] = (int64_t)t;
    }
}

/* The heap trace of the memory space: a non-indefinite allocation's, else
 * the trace with the most events in that space; -1 none. */
static int64_t trace_of_color(const sim *s)
{
    for (size_t k = 0; k < s->b.n_allocations; k++) {
        const pv_hlo_allocation *al = &s->b.allocations[k];
        if (al->color == s->color && !indefinite(al) && s->trace_of[k] >= 0)
            return s->trace_of[k];
    }
    int64_t best = -1;
    size_t best_n = 0;
    for (size_t t = 0; t < s->b.n_traces; t++) {
        size_t n = 0;
        for (size_t e = 0; e < s->b.traces[t].n_events; e++) {
            const lbuf *l = buffer(s, s->b.traces[t].events[e].buffer_id);
            n += l != NULL && l->p->color == s->color;
        }
        if (n > best_n) {
            best = (int64_t)t;
            best_n = n;
        }
    }
    return best;
}

/* ---- the simulation ------------------------------------------------------------------- */

/* Logical buffer ids in allocation order (XProf keeps a list). */
typedef struct idlist {
    int64_t *v;
    size_t n, cap;
} idlist;

static void idlist_push(idlist *l, int64_t id)
{
    if (l->n == l->cap) {
        l->cap = l->cap != 0 ? 2 * l->cap : 64;
        l->v = pv_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = id;
}

static void idlist_remove(idlist *l, int64_t id)
{
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] != id)
            l->v[k++] = l->v[i];
    l->n = k;
}

/* canonical id -> the id shown for it (the last buffer to share it). */
typedef struct display_map {
    int64_t *key, *val;
    size_t n, cap;
} display_map;

static void display_set(display_map *d, int64_t k, int64_t v)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->key[i] == k) {
            d->val[i] = v;
            return;
        }
    if (d->n == d->cap) {
        d->cap = d->cap != 0 ? 2 * d->cap : 16;
        d->key = pv_xrealloc(d->key, d->cap * sizeof *d->key);
        d->val = pv_xrealloc(d->val, d->cap * sizeof *d->val);
    }
    d->key[d->n] = k;
    d->val[d->n++] = v;
}

static int64_t display_get(const display_map *d, int64_t k)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->key[i] == k)
            return d->val[i];
    return k;
}

static void display_copy(display_map *to, const display_map *from)
{
    to->n = 0;
    for (size_t i = 0; i < from->n; i++)
        display_set(to, from->key[i], from->val[i]);
}

typedef struct heap {
    int64_t size, unpadded, peak, peak_unpadded;
    int32_t peak_step;
    idlist live, peak_live;
    display_map shown, peak_shown;
    int64_t *sizes, *unpadded_sizes;
    const char **names;
    size_t n_steps;
    int32_t n_events;
    const pv_hlo_allocation *seen_alloc;  /* the one allocation the trace is in */
    bool several_allocs;
} heap;

static void heap_increase(heap *h, lbuf *c, bool init_span)
{
    idlist_push(&h->live, c->p->id);
    h->size += c->p->size;
    h->unpadded += c->unpadded;
    if (h->size > h->peak) {
        h->peak = h->size;
        h->peak_step = (int32_t)h->n_steps - 1;
        h->peak_unpadded = h->unpadded;
        h->peak_live.n = 0;
        for (size_t i = 0; i < h->live.n; i++)
            idlist_push(&h->peak_live, h->live.v[i]);
        display_copy(&h->peak_shown, &h->shown);
    }
    if (init_span) {
        c->has_span = true;
        c->span_first = (int32_t)h->n_steps - 1;
        c->span_second = h->n_events - 1;
    }
}

static bool heap_decrease(heap *h, lbuf *c)
{
    idlist_remove(&h->live, c->p->id);
    h->size -= c->p->size;
    if (h->size < 0)
        return false;
    h->unpadded -= c->unpadded;
    /* A buffer's span ends where it is first freed; memory it lends a
     * sharer afterwards is the sharer's span (XProf 2.24.2's output). */
    if (c->has_span && !c->span_closed) {
        c->span_second = (int32_t)h->n_steps - 1;
        c->span_closed = true;
    }
    return true;
}

static int simulate(sim *s, const pv_hlo_heap_trace *tr, heap *h, pv_error *err)
{
    size_t cap = tr->n_events + 1;
    h->sizes = pv_arena_alloc(s->a, cap * sizeof *h->sizes);
    h->unpadded_sizes = pv_arena_alloc(s->a, cap * sizeof *h->unpadded_sizes);
    h->names = pv_arena_alloc(s->a, cap * sizeof *h->names);
    h->n_events = (int32_t)tr->n_events;
    for (size_t k = 0; k < tr->n_events; k++) {
        const pv_hlo_heap_event *e = &tr->events[k];
        h->sizes[h->n_steps] = h->size;
        h->unpadded_sizes[h->n_steps] = h->unpadded;
        h->names[h->n_steps++] = e->instruction_name;
        lbuf *l = buffer(s, e->buffer_id);
        if (l == NULL)
            continue;
        if (h->seen_alloc != NULL && h->seen_alloc != l->alloc)
            h->several_allocs = true;
        h->seen_alloc = l->alloc;
        if (e->kind == PV_HEAP_ALLOC) {
            ref_inc(l);
            heap_increase(h, l, true);
        } else if (e->kind == PV_HEAP_FREE) {
            int64_t rc = ref_dec(l);
            if (rc < 0)
                return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                                    "buffer %lld is freed more often than allocated",
                                    (long long)l->p->id);
            if (rc == 0 && !heap_decrease(h, canonical_of(l)))
                return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                                    "the heap size goes below 0");
            if (l->has_span && l->canonical != NULL)
                l->span_second = (int32_t)h->n_steps - 1;
        } else {
            lbuf *c = buffer(s, e->share_with_canonical_id);
            if (c == NULL)
                continue;
            l->canonical = c;
            if (ref_inc(c) == 1) {
                /* reusing freed memory: the sharer is what the chart shows */
                lbuf *root = canonical_of(c);
                display_set(&h->shown, root->p->id, l->p->id);
                l->has_span = true;
                l->span_first = (int32_t)h->n_steps - 1;
                l->span_second = h->n_events - 1;
                heap_increase(h, root, false);
            }
        }
    }
    h->sizes[h->n_steps] = h->size;
    h->unpadded_sizes[h->n_steps] = h->unpadded;
    h->names[h->n_steps++] = "";
    if (h->several_allocs || h->seen_alloc == NULL)
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "the heap simulation does not work out of one buffer allocation");
    return 0;
}

/* ---- the result ------------------------------------------------------------------------ */

static pv_mv_source source_of(const sim *s, const lbuf *l)
{
    const pv_hlo_instruction *in = &s->x.t->instructions[l->instr];
    pv_mv_source src = {"", 0, ""};
    int32_t f = in->stack_frame_id;
    if (in->source_file[0] != '\0') {
        src.file = in->source_file;
        src.line = in->source_line;
    } else if (f > 0 && (uint32_t)f <= s->mod->n_frames) {
        /* no legacy source line: the innermost frame of its stack */
        src.file = s->mod->frames[f - 1].file;
        src.line = s->mod->frames[f - 1].line;
    }
    if (src.file[0] == '\0')
        return src;
    const char *stack = pv_hlo_frame_stack(s->mod, in->stack_frame_id, s->a);
    size_t n = strlen(stack);
    src.stack = n > 0 && stack[n - 1] == '\n' ? pv_arena_strndup(s->a, stack, n - 1) : stack;
    return src;
}

static const char *name_with_index(const sim *s, const lbuf *l)
{
    const char *name = s->x.t->instructions[l->instr].name;
    if (l->p->n_shape_index == 0)
        return name;
    pv_buf b;
    pv_buf_init(&b, (size_t)1 << 16);
    pv_buf_adds(&b, name);
    pv_buf_adds(&b, "{");
    for (uint32_t i = 0; i < l->p->n_shape_index; i++) {
        char num[32];
        snprintf(num, sizeof num, i > 0 ? ",%lld" : "%lld", (long long)l->p->shape_index[i]);
        pv_buf_adds(&b, num);
    }
    pv_buf_adds(&b, "}");
    const char *out = pv_arena_strndup(s->a, b.data, b.len);
    pv_buf_fini(&b);
    return out;
}

typedef struct peak_objects {
    pv_mv_heap_object *v;
    size_t n, cap;
    int64_t small_bytes;
    int32_t next_color;
    int64_t *colored_id;              /* buffer ids given a color, by color */
} peak_objects;

static void add_object(const sim *s, peak_objects *po, const lbuf *l)
{
    if (l->p->size < PV_MV_SMALL_BUFFER_BYTES) {
        po->small_bytes += l->p->size;
        return;
    }
    if (po->n == po->cap) {
        po->cap = po->cap != 0 ? 2 * po->cap : 32;
        po->v = pv_xrealloc(po->v, po->cap * sizeof *po->v);
        po->colored_id = pv_xrealloc(po->colored_id, po->cap * sizeof *po->colored_id);
    }
    const pv_hlo_instruction *in = &s->x.t->instructions[l->instr];
    po->colored_id[po->n] = l->p->id;
    po->v[po->n++] = (pv_mv_heap_object){
        po->next_color++,
        pv_arena_printf(s->a, "%s: %s # %s", in->name, l->shape, in->op_name),
        l->p->id, l->p->size, l->unpadded, name_with_index(s, l), l->shape, in->op_name,
        category(l->alloc), in->opcode, source_of(s, l)};
}

/* The largest logical buffer of each indefinite allocation of the space. */
static void indefinite_objects(const sim *s, peak_objects *po, int64_t *bytes)
{
    for (size_t k = 0; k < s->b.n_allocations; k++) {
        const pv_hlo_allocation *al = &s->b.allocations[k];
        if (al->color != s->color || !indefinite(al))
            continue;
        const lbuf *best = NULL;
        for (uint32_t j = 0; j < al->n_assigned; j++) {
            const lbuf *l = buffer(s, al->assigned[j].logical_buffer_id);
            if (l != NULL && l->p->size > (best != NULL ? best->p->size : 0))
                best = l;
        }
        if (best == NULL)
            continue;
        *bytes += al->size;
        if (s->color == 0)
            add_object(s, po, best);
    }
}

typedef struct sized {
    int64_t bytes;
    uint32_t index;
} sized;

static int cmp_by_size(const void *pa, const void *pb)
{
    const sized *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;   /* equal sizes keep their order */
}

static void allocations_of(const sim *s, pv_memory_viewer *out)
{
    out->indefinite = pv_arena_zalloc(s->a, (s->b.n_allocations + 1) * sizeof *out->indefinite);
    for (size_t k = 0; k < s->b.n_allocations; k++) {
        const pv_hlo_allocation *al = &s->b.allocations[k];
        if (al->color != s->color)
            continue;
        /* XProf 2.24.2 counts a thread-local allocation in neither the
         * total nor the indefinite ones (jax_train's jit_train_step(30):
         * fifteen of 4 bytes, its total is the peak heap) */
        if (!al->is_thread_local)
            out->total_allocation_bytes += al->size;
        if (al->is_entry_computation_parameter)
            out->parameter_bytes += al->size;
        if (!reusable(al))
            out->non_reusable_bytes += al->size;
        if (al->maybe_live_out)
            out->live_out_bytes += al->size;
        if (!indefinite(al))
            continue;
        out->indefinite_allocation_bytes += al->size;
        pv_mv_allocation *r = &out->indefinite[out->n_indefinite++];
        *r = (pv_mv_allocation){al->index, al->size, al->is_entry_computation_parameter,
                                al->maybe_live_out, reusable(al), NULL, 0, ""};
        r->buffers = pv_arena_zalloc(s->a, (al->n_assigned + 1) * sizeof *r->buffers);
        for (uint32_t j = 0; j < al->n_assigned; j++) {
            pv_mv_buffer_ref *br = &r->buffers[r->n_buffers++];
            *br = (pv_mv_buffer_ref){al->assigned[j].logical_buffer_id, al->assigned[j].size,
                                     "", "", NULL, 0};
            const lbuf *l = buffer(s, al->assigned[j].logical_buffer_id);
            if (l == NULL)
                continue;
            br->hlo_name = s->x.t->instructions[l->instr].name;
            br->shape = l->shape;
            br->shape_index = l->p->shape_index;
            br->n_shape_index = l->p->n_shape_index;
        }
        r->common_shape = r->n_buffers > 0 ? r->buffers[0].shape : "";
        for (size_t j = 1; j < r->n_buffers; j++)
            if (strcmp(r->buffers[j].shape, r->common_shape) != 0)
                r->common_shape = "";
    }
}

static void blocks_of(const sim *s, const peak_objects *po, int64_t trace, pv_memory_viewer *out)
{
    size_t cap = 1;
    for (size_t k = 0; k < s->b.n_allocations; k++)
        cap += 1 + s->b.allocations[k].n_assigned;
    out->blocks = pv_arena_zalloc(s->a, cap * sizeof *out->blocks);
    int32_t steps = trace >= 0 ? (int32_t)s->b.traces[trace].n_events : 0;
    int64_t y = 0;
    for (size_t k = 0; k < s->b.n_allocations; k++) {
        const pv_hlo_allocation *al = &s->b.allocations[k];
        if (al->color != s->color || indefinite(al) || s->trace_of[k] < 0)
            continue;
        out->blocks[out->n_blocks++] = (pv_mv_block){
            -1, category(al), y, al->size, 0, steps, "", category(al), "", 0, {"", 0, ""},
            false, 0};
        for (uint32_t j = 0; j < al->n_assigned; j++) {
            const lbuf *l = buffer(s, al->assigned[j].logical_buffer_id);
            if (l == NULL || !l->has_span)
                continue;
            pv_mv_block *bl = &out->blocks[out->n_blocks++];
            *bl = (pv_mv_block){l->p->id, name_with_index(s, l), y + l->offset, l->p->size,
                                l->span_first, l->span_second,
                                s->x.t->instructions[l->instr].op_name, category(l->alloc),
                                l->shape, l->unpadded, source_of(s, l), false, 0};
            for (size_t c = 0; c < po->n; c++)
                if (po->colored_id[c] == l->p->id) {
                    bl->peak = true;
                    bl->peak_color = po->v[c].color;
                }
        }
        y += al->size;
    }
}

int pv_memory_viewer_build(const pv_model *m, uint64_t program_id, int64_t color, pv_arena *a,
                           pv_memory_viewer *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    sim s = {.m = m, .a = a, .color = color};
    pv_hlo_index_build(m, a, &s.x);
    s.mod = module_of(s.x.t, program_id, &s.module);
    if (s.mod == NULL)
        return pv_error_set(err, PV_ENOTFOUND, NULL, PV_NO_OFFSET,
                            "no HLO module of program %llu", (unsigned long long)program_id);
    int rc = pv_model_hlo_buffers(m, program_id, a, &s.b, err);
    if (rc != 0)
        return rc;
    place_buffers(&s);
    out->module_name = s.mod->name;
    out->entry_computation_name = s.mod->entry_computation_name;

    heap h;
    memset(&h, 0, sizeof h);
    int64_t trace = trace_of_color(&s);
    if (trace >= 0)
        rc = simulate(&s, &s.b.traces[trace], &h, err);
    peak_objects po = {0};
    if (rc == 0) {
        indefinite_objects(&s, &po, &out->indefinite_bytes);
        /* XProf stops at a buffer it does not know, small entry and all */
        bool whole = true;
        for (size_t i = 0; i < h.peak_live.n && whole; i++) {
            const lbuf *l = buffer(&s, display_get(&h.peak_shown, h.peak_live.v[i]));
            if (l != NULL)
                add_object(&s, &po, l);
            whole = l != NULL;
        }
        if (whole && po.small_bytes != 0) {
            if (po.n == po.cap) {
                po.cap = po.cap + 1;
                po.v = pv_xrealloc(po.v, po.cap * sizeof *po.v);
                po.colored_id = pv_xrealloc(po.colored_id, po.cap * sizeof *po.colored_id);
            }
            po.colored_id[po.n] = -1;
            po.v[po.n++] = (pv_mv_heap_object){
                po.next_color++,
                pv_arena_printf(a, "small (<%d bytes)", PV_MV_SMALL_BUFFER_BYTES), -1,
                po.small_bytes, 0, "", "", "", "", "", {"", 0, ""}};
        }
        out->n_max_heap = po.n;
        out->max_heap = pv_arena_alloc(a, (po.n + 1) * sizeof *out->max_heap);
        if (po.n > 0)
            memcpy(out->max_heap, po.v, po.n * sizeof *po.v);
        sized *order = pv_arena_alloc(a, (po.n + 1) * sizeof *order);
        for (uint32_t i = 0; i < po.n; i++)
            order[i] = (sized){po.v[i].size_bytes, i};
        pv_sort(order, po.n, sizeof *order, cmp_by_size);
        out->by_size = pv_arena_alloc(a, (po.n + 1) * sizeof *out->by_size);
        for (uint32_t i = 0; i < po.n; i++)
            out->by_size[i] = order[i].index;

        out->n_steps = h.n_steps;
        out->heap_bytes = h.sizes;
        out->unpadded_heap_bytes = h.unpadded_sizes;
        out->step_instruction = h.names;
        out->peak_bytes = h.peak;
        out->peak_unpadded_bytes = h.peak_unpadded;
        out->peak_step = h.peak_step;
        out->spans = pv_arena_zalloc(a, (s.b.n_logical_buffers + 1) * sizeof *out->spans);
        for (size_t i = 0; i < s.b.n_logical_buffers; i++) {
            const lbuf *l = &s.bufs[i];
            if (l->p != NULL && l->has_span)
                out->spans[out->n_spans++] = (pv_mv_span){l->p->id, l->span_first,
                                                          l->span_second};
        }
        allocations_of(&s, out);
        blocks_of(&s, &po, trace, out);
    }
    free(po.v);
    free(po.colored_id);
    free(h.live.v);
    free(h.peak_live.v);
    free(h.shown.key);
    free(h.shown.val);
    free(h.peak_shown.key);
    free(h.peak_shown.val);
    if (rc != 0)
        memset(out, 0, sizeof *out);
    return rc;
}
