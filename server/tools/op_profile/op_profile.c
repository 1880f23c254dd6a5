/* op_profile: the op tree (op_profile.h). Ops are added one by one, each
 * adding its metrics to every node on its path; then the children of each
 * node are sorted and pruned, and a duplicates group holding one op is
 * replaced by it. */
#include "tools/op_profile/op_profile.h"

#include "model/hlo_table.h"
#include "tools/hlo/hlo_cost.h"
#include "tools/hlo/hlo_text.h"
#include "util/sort.h"

#include <string.h>

static pv_op_node *node_new(pv_arena *a, const char *name)
{
    pv_op_node *n = pv_arena_zalloc(a, sizeof *n);
    n->name = name;
    return n;
}

static void add_child(pv_arena *a, pv_op_node *parent, pv_op_node *child)
{
    if (parent->n_children == parent->cap) {
        size_t cap = parent->cap > 0 ? 2 * parent->cap : 8;
        pv_op_node **v = pv_arena_alloc(a, cap * sizeof *v);
        if (parent->n_children > 0)
            memcpy(v, parent->children, parent->n_children * sizeof *v);
        parent->children = v;
        parent->cap = cap;
    }
    parent->children[parent->n_children++] = child;
}

/* The child of parent called name, made when there is none. Linear: a
 * node has few programs or categories, and a group few duplicates. */
static pv_op_node *child_named(pv_arena *a, pv_op_node *parent, const char *name)
{
    for (size_t i = 0; i < parent->n_children; i++)
        if (parent->children[i]->op == NULL && strcmp(parent->children[i]->name, name) == 0)
            return parent->children[i];
    pv_op_node *n = node_new(a, name);
    add_child(a, parent, n);
    return n;
}

/* Adds op's metrics to n: its time (self time for a program or the root,
 * whose ops may nest), occurrences (not for a program or the root),
 * flops and the bytes filed by memory. */
static void add_metrics(pv_op_node *n, const pv_xla_op *op, bool vertical)
{
    n->time_ps += vertical ? op->self_time_ps : op->time_ps;
    if (!vertical)
        n->occurrences += op->occurrences;
    if (op->meta != UINT32_MAX && !op->is_idle)
        n->normalized_ps += op->time_ps;
    n->flops += op->flops;
    n->model_flops += op->model_flops;
    for (int k = 0; k < PV_MEM_COUNT && op->has_mem_breakdown; k++)
        n->mem_bytes[k] += op->mem_bytes[k];
}

/* "<module name>(<program id>)", or "main" for a program without HLO. */
static const char *program_name(const pv_model *m, uint64_t program_id, pv_arena *a)
{
    const pv_hlo_module *mod = pv_hlo_module_find(pv_model_hlo(m), program_id);
    if (mod == NULL)
        return "main";
    return pv_arena_printf(a, "%s(%llu)", mod->name, (unsigned long long)program_id);
}

/* The fused instructions of a TPU fusion, as XProf lists them under it:
 * every instruction of its body but the parameters (a nested fusion's
 * own body under it), each one run with no time, its text, category and
 * framework op ("name:type", ":" for none) and no program. */
static void add_fused(const pv_hlo_index *x, pv_op_node *leaf, uint32_t fusion, pv_arena *a,
                      int depth)
{
    uint32_t body = pv_hlo_index_fused(x, fusion);
    if (body == PV_HLO_NONE || depth > 16)
        return;
    const pv_hlo_computation *c = &x->t->computations[body];
    for (uint32_t k = 0; k < c->n_instructions; k++) {
        uint32_t i = (uint32_t)c->first_instruction + k;
        const pv_hlo_instruction *in = &x->t->instructions[i];
        if (strcmp(in->opcode, "parameter") == 0)
            continue;
        pv_xla_op *op = pv_arena_zalloc(a, sizeof *op);
        op->name = in->name;
        op->category = pv_hlo_category(x, i);
        op->provenance = pv_arena_printf(a, "%s:%s", in->op_name, in->op_type);
        op->deduplicated_name = op->source_file = op->source_stack = "";
        op->instr = i;
        op->meta = UINT32_MAX;
        op->occurrences = 1;
        pv_buf b;
        pv_buf_init(&b, (size_t)1 << 20);
        pv_hlo_print p = {true, true};
        op->expression = pv_hlo_text_instr(x, i, &p, &b) == 0 && b.len > 0
                             ? pv_arena_strndup(a, b.data, b.len)
                             : "";
        pv_buf_fini(&b);
        pv_op_node *n = node_new(a, op->name);
        n->op = op;
        n->fusion_child = true;
        add_metrics(n, op, false);
        add_child(a, leaf, n);
        if (strcmp(in->opcode, "fusion") == 0)
            add_fused(x, n, i, a, depth + 1);
    }
}

static void add_op(const pv_model *m, const pv_xla_op_db *db, pv_op_node *root,
                   pv_op_profile_grouping g, const pv_xla_op *op, pv_arena *a)
{
    add_metrics(root, op, true);
    pv_op_node *leaf = node_new(a, op->name);
    leaf->op = op;
    add_metrics(leaf, op, false);
    if (op->is_idle) {
        add_child(a, root, leaf);
        return;
    }
    pv_op_node *parent = root;
    if (g == PV_OP_PROFILE_BY_PROGRAM) {
        parent = child_named(a, root, program_name(m, op->program_id, a));
        add_metrics(parent, op, true);
    }
    pv_op_node *category = child_named(a, parent, op->category);
    add_metrics(category, op, false);
    /* every op under a group named after what it duplicates (itself when
     * it duplicates nothing); a group of one gives way to its op later */
    const char *dedup = op->deduplicated_name[0] != '\0' ? op->deduplicated_name : op->name;
    pv_op_node *group = child_named(a, category, dedup);
    add_metrics(group, op, false);
    add_child(a, group, leaf);
    if (op->meta != UINT32_MAX) {
        uint32_t i = pv_hlo_index_find(&db->hlo, op->program_id, op->name, strlen(op->name));
        if (i != PV_HLO_NONE && strcmp(db->hlo.t->instructions[i].opcode, "fusion") == 0)
            add_fused(&db->hlo, leaf, i, a, 0);
    }
}

/* ---- sorting, pruning, duplicates ------------------------------------------------------ */

static int cmp_time(const void *pa, const void *pb)
{
    const pv_op_node *a = *(pv_op_node *const *)pa, *b = *(pv_op_node *const *)pb;
    if (a->time_ps != b->time_ps)
        return a->time_ps > b->time_ps ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_flops(const void *pa, const void *pb)
{
    const pv_op_node *a = *(pv_op_node *const *)pa, *b = *(pv_op_node *const *)pb;
    if (a->model_flops != b->model_flops)
        return a->model_flops > b->model_flops ? -1 : 1;
    return strcmp(a->name, b->name);
}

static bool is_fusion(const pv_op_node *n)
{
    return n->op != NULL && strstr(n->op->category, "fusion") != NULL;
}

/* level > 0: keep every child; else the first `limit` by time. */
static void sort_and_prune(pv_op_node *n, size_t limit, int level)
{
    n->num_children = n->n_children;
    for (size_t i = 0; i < n->n_children; i++)
        sort_and_prune(n->children[i], limit, level - 1);
    pv_sort(n->children, n->n_children, sizeof *n->children,
            is_fusion(n) ? cmp_flops : cmp_time);
    if (level <= 0 && n->n_children > limit)
        n->n_children = limit;
}

/* A group (no op of its own, children all ops) of one op becomes the op;
 * of several, "<first> and its duplicate(s)" with the first's details. */
static void finish_duplicates(pv_op_node *n, pv_arena *a)
{
    bool group = n->op == NULL && n->n_children > 0;
    for (size_t i = 0; group && i < n->n_children; i++)
        group = n->children[i]->op != NULL && !n->children[i]->fusion_child;
    if (!group) {
        for (size_t i = 0; i < n->n_children; i++)
            finish_duplicates(n->children[i], a);
        return;
    }
    if (n->n_children == 1) {
        *n = *n->children[0];
        return;
    }
    n->op = n->children[0]->op;
    n->dedup_group = true;
    n->name = pv_arena_printf(a, "%s and its duplicate(s)", n->children[0]->name);
}

void pv_op_profile_build(const pv_model *m, const pv_xla_op_db *db,
                         pv_op_profile_grouping grouping, size_t limit, pv_arena *a,
                         pv_op_profile *out)
{
    memset(out, 0, sizeof *out);
    out->grouping = grouping;
    out->env = &db->env;
    out->total_time_ps = db->total_time_ps;
    const char *root_name = grouping == PV_OP_PROFILE_BY_PROGRAM ? "by_program" : "by_category";
    for (int exclude = 0; exclude < 2; exclude++) {
        pv_op_node *root = node_new(a, root_name);
        for (size_t i = 0; i < db->n_ops; i++) {
            const pv_xla_op *op = &db->ops[i];
            /* XProf leaves out ops it cannot name (while-loop regions) */
            if (strncmp(op->name, "region", 6) == 0 || (exclude && op->is_idle))
                continue;
            if (op->is_idle)
                out->idle_ps = op->time_ps;
            add_op(m, db, root, grouping, op, a);
        }
        sort_and_prune(root, limit, grouping == PV_OP_PROFILE_BY_PROGRAM ? 2 : 1);
        finish_duplicates(root, a);
        if (exclude)
            out->root_exclude_idle = root;
        else
            out->root = root;
    }
}
