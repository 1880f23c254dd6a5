/* hlo_index: operands, users, roots and callers of the HLO table, and its
 * sorted lookups (hlo_index.h). Built in three passes over the table:
 * sort by id and by name, resolve ids to indices, then invert operands
 * into users. */
#include "tools/hlo/hlo_index.h"

#include "util/bsearch.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An instruction's keys, copied so the comparators need no context. */
typedef struct sort_key {
    uint32_t index;       /* instruction index */
    uint32_t module;
    uint64_t program_id;
    int64_t id;
    const char *name;
} sort_key;

static int cmp_by_id(const void *pa, const void *pb)
{
    const sort_key *a = pa, *b = pb;
    if (a->module != b->module)
        return a->module < b->module ? -1 : 1;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static int cmp_by_name(const void *pa, const void *pb)
{
    const sort_key *a = pa, *b = pb;
    if (a->program_id != b->program_id)
        return a->program_id < b->program_id ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c != 0)
        return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Instruction indices in the order cmp leaves keys in. */
static uint32_t *sorted(pv_arena *a, sort_key *keys, size_t n,
                        int (*cmp)(const void *, const void *))
{
    pv_sort(keys, n, sizeof *keys, cmp);
    uint32_t *out = pv_arena_alloc(a, (n > 0 ? n : 1) * sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i] = keys[i].index;
    return out;
}

/* A computation's place in the module-and-id order. */
typedef struct comp_key {
    uint32_t module;
    uint32_t index;
    int64_t id;
} comp_key;

static int cmp_comp(const void *pa, const void *pb)
{
    const comp_key *a = pa, *b = pb;
    if (a->module != b->module)
        return a->module < b->module ? -1 : 1;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* The table's computations sorted by (module, id), each module's in its
 * own range [first_computation, +n_computations) as the table has them. */
static comp_key *computations_by_id(const pv_hlo_table *t)
{
    comp_key *v = pv_xmalloc((t->n_computations > 0 ? t->n_computations : 1) * sizeof *v);
    for (size_t c = 0; c < t->n_computations; c++)
        v[c] = (comp_key){t->computations[c].module, (uint32_t)c, t->computations[c].id};
    pv_sort(v, t->n_computations, sizeof *v, cmp_comp);
    return v;
}

/* A computation's index from its id (binary search in its module's range). */
static uint32_t find_comp(const pv_hlo_table *t, const comp_key *keys, uint32_t module,
                          int64_t id)
{
    const pv_hlo_module *mod = &t->modules[module];
    uint32_t lo = mod->first_computation, hi = lo + mod->n_computations;
    PV_LOWER_BOUND(uint32_t, lo, hi, k, keys[k].id < id);
    return lo < hi && keys[lo].id == id ? keys[lo].index : PV_HLO_NONE;
}

/* Resolves ids[0..n) of module to instruction indices into out; returns
 * how many resolved. */
static uint32_t resolve(const pv_hlo_index *x, uint32_t module, const int64_t *ids, uint32_t n,
                        uint32_t *out)
{
    uint32_t k = 0;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t i = pv_hlo_index_by_id(x, module, ids[j]);
        if (i != PV_HLO_NONE)
            out[k++] = i;
    }
    return k;
}

void pv_hlo_index_build(const pv_model *m, pv_arena *a, pv_hlo_index *out)
{
    memset(out, 0, sizeof *out);
    const pv_hlo_table *t = pv_model_hlo(m);
    out->t = t;
    size_t n = t->n_instructions;
    sort_key *keys = pv_xmalloc((n > 0 ? n : 1) * sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        const pv_hlo_instruction *in = &t->instructions[i];
        uint32_t mod = t->computations[in->computation].module;
        keys[i] = (sort_key){(uint32_t)i, mod, t->modules[mod].program_id, in->id, in->name};
    }
    out->by_id = sorted(a, keys, n, cmp_by_id);
    out->by_name = sorted(a, keys, n, cmp_by_name);
    free(keys);

    /* operands and called computations, ids resolved */
    size_t n_ops = 0, n_called = 0;
    for (size_t i = 0; i < n; i++) {
        n_ops += t->instructions[i].n_operands;
        n_called += t->instructions[i].n_called;
    }
    uint32_t *ops = pv_arena_alloc(a, (n_ops > 0 ? n_ops : 1) * sizeof *ops);
    uint32_t *op_start = pv_arena_alloc(a, (n + 1) * sizeof *op_start);
    uint32_t *called = pv_arena_alloc(a, (n_called > 0 ? n_called : 1) * sizeof *called);
    uint32_t *called_start = pv_arena_alloc(a, (n + 1) * sizeof *called_start);
    comp_key *comp_ids = computations_by_id(t);
    uint32_t *caller = pv_arena_alloc(a, (t->n_computations + 1) * sizeof *caller);
    uint32_t *root = pv_arena_alloc(a, (t->n_computations + 1) * sizeof *root);
    for (size_t c = 0; c < t->n_computations; c++)
        caller[c] = root[c] = PV_HLO_NONE;
    uint32_t no = 0, nc = 0;
    for (size_t i = 0; i < n; i++) {
        const pv_hlo_instruction *in = &t->instructions[i];
        uint32_t mod = t->computations[in->computation].module;
        op_start[i] = no;
        no += resolve(out, mod, in->operand_ids, in->n_operands, ops + no);
        called_start[i] = nc;
        for (uint32_t j = 0; j < in->n_called; j++) {
            uint32_t c = find_comp(t, comp_ids, mod, in->called_ids[j]);
            if (c == PV_HLO_NONE)
                continue;
            called[nc++] = c;
            if (caller[c] == PV_HLO_NONE)
                caller[c] = (uint32_t)i;
        }
    }
    op_start[n] = no;
    called_start[n] = nc;
    free(comp_ids);
    for (size_t c = 0; c < t->n_computations; c++) {
        const pv_hlo_computation *comp = &t->computations[c];
        uint32_t r = pv_hlo_index_by_id(out, comp->module, comp->root_id);
        /* a root in another computation is bad input: no root */
        if (r != PV_HLO_NONE && t->instructions[r].computation == c)
            root[c] = r;
    }

    /* users: count, then fill in the table's order */
    uint32_t *user_start = pv_arena_zalloc(a, (n + 1) * sizeof *user_start);
    for (uint32_t k = 0; k < no; k++)
        user_start[ops[k] + 1]++;
    for (size_t i = 0; i < n; i++)
        user_start[i + 1] += user_start[i];
    uint32_t *users = pv_arena_alloc(a, (no > 0 ? no : 1) * sizeof *users);
    uint32_t *fill = pv_xcalloc(n + 1, sizeof *fill);
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = op_start[i]; k < op_start[i + 1]; k++)
            users[user_start[ops[k]] + fill[ops[k]]++] = (uint32_t)i;
    free(fill);

    out->operands = ops;
    out->operand_start = op_start;
    out->users = users;
    out->user_start = user_start;
    out->called = called;
    out->called_start = called_start;
    out->root = root;
    out->caller = caller;
}

/* ---- lookups ----------------------------------------------------------------------- */

/* Whether s sorts before the len bytes of name (strcmp's order). */
static bool name_below(const char *s, const char *name, size_t len)
{
    int c = strncmp(s, name, len);
    return c < 0;
}

uint32_t pv_hlo_index_find(const pv_hlo_index *x, uint64_t program_id, const char *name,
                           size_t len)
{
    const pv_hlo_table *t = x->t;
    size_t lo = 0;
#define KEY_BELOW(i)                                                                           \
    (t->modules[pv_hlo_index_module(x, x->by_name[i])].program_id < program_id ||              \
     (t->modules[pv_hlo_index_module(x, x->by_name[i])].program_id == program_id &&            \
      name_below(t->instructions[x->by_name[i]].name, name, len)))
    PV_LOWER_BOUND(size_t, lo, t->n_instructions, i, KEY_BELOW(i));
#undef KEY_BELOW
    if (lo == t->n_instructions)
        return PV_HLO_NONE;
    uint32_t i = x->by_name[lo];
    const char *s = t->instructions[i].name;
    if (t->modules[pv_hlo_index_module(x, i)].program_id != program_id ||
        strncmp(s, name, len) != 0 || s[len] != '\0')
        return PV_HLO_NONE;
    return i;
}

uint32_t pv_hlo_index_by_id(const pv_hlo_index *x, uint32_t module, int64_t id)
{
    const pv_hlo_table *t = x->t;
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, t->n_instructions, i,
                   pv_hlo_index_module(x, x->by_id[i]) < module ||
                       (pv_hlo_index_module(x, x->by_id[i]) == module &&
                        t->instructions[x->by_id[i]].id < id));
    if (lo == t->n_instructions)
        return PV_HLO_NONE;
    uint32_t i = x->by_id[lo];
    return pv_hlo_index_module(x, i) == module && t->instructions[i].id == id ? i : PV_HLO_NONE;
}

uint32_t pv_hlo_index_computation(const pv_hlo_index *x, uint32_t module, int64_t id)
{
    const pv_hlo_module *mod = &x->t->modules[module];
    for (uint32_t c = mod->first_computation; c < mod->first_computation + mod->n_computations;
         c++)
        if (x->t->computations[c].id == id)
            return c;
    return PV_HLO_NONE;
}

uint32_t pv_hlo_index_fused(const pv_hlo_index *x, uint32_t i)
{
    return x->called_start[i] < x->called_start[i + 1] ? x->called[x->called_start[i]]
                                                        : PV_HLO_NONE;
}

const char *pv_hlo_frame_stack(const pv_hlo_module *mod, int32_t frame, pv_arena *a)
{
    size_t len = 0;
    char *out = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t at = 0;
        int guard = 0;
        for (int32_t f = frame; f > 0 && (uint32_t)f <= mod->n_frames && guard < 4096;
             f = mod->frames[f - 1].parent, guard++) {
            const pv_hlo_frame *fr = &mod->frames[f - 1];
            int n = snprintf(out != NULL ? out + at : NULL, out != NULL ? len + 1 - at : 0,
                             "%s:%d:%d\n", fr->file, fr->line, fr->column);
            at += n > 0 ? (size_t)n : 0;
        }
        if (pass == 0) {
            if (at == 0)
                return "";
            len = at;
            out = pv_arena_alloc(a, len + 1);
        }
    }
    return out;
}
