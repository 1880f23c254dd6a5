/* graph_viewer: the neighborhood walk and its JSON and DOT (graph_viewer.h). */
#include "tools/graph_viewer/graph_viewer.h"

#include "tools/hlo/hlo_cost.h"
#include "tools/hlo/hlo_text.h"
#include "util/mem.h"

#include <stdio.h>
#include <string.h>

/* The entry computation's root of module k, or PV_HLO_NONE. */
static uint32_t entry_root(const pv_hlo_index *x, uint32_t k)
{
    const pv_hlo_module *mod = &x->t->modules[k];
    uint32_t c = pv_hlo_index_computation(x, k, mod->entry_computation_id);
    if (c == PV_HLO_NONE && mod->n_computations > 0)
        c = mod->first_computation + mod->n_computations - 1;   /* callers come last */
    return c != PV_HLO_NONE ? x->root[c] : PV_HLO_NONE;
}

/* Instruction named name among module k's instructions, or PV_HLO_NONE. */
static uint32_t find_in_module(const pv_hlo_index *x, uint32_t k, const char *name)
{
    return pv_hlo_index_find(x, x->t->modules[k].program_id, name, strlen(name));
}

int pv_graph_view_build(const pv_hlo_index *x, uint32_t k, const char *node, uint32_t width,
                        pv_arena *a, pv_graph_view *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    out->x = x;
    out->module = k;
    out->width = width;
    uint32_t c = node != NULL && node[0] != '\0' ? find_in_module(x, k, node) : entry_root(x, k);
    if (c == PV_HLO_NONE)
        return pv_error_set(err, PV_ENOTFOUND, NULL, PV_NO_OFFSET,
                            "module %s has no instruction %s", x->t->modules[k].name,
                            node != NULL && node[0] != '\0' ? node : "(root)");
    out->center = c;
    /* Breadth first over operands and users: a node's place is its
     * distance, so the nearest stay when the cap cuts the walk. */
    size_t n_all = x->t->n_instructions;
    uint32_t *slot = pv_xmalloc((n_all + 1) * sizeof *slot);   /* instr -> node + 1 */
    memset(slot, 0, (n_all + 1) * sizeof *slot);
    out->nodes = pv_arena_zalloc(a, PV_GV_MAX_NODES * sizeof *out->nodes);
    out->nodes[out->n_nodes++] = (pv_gv_node){c, 0, 0, 0};
    slot[c] = 1;
    for (size_t head = 0; head < out->n_nodes; head++) {
        pv_gv_node cur = out->nodes[head];
        if (cur.depth >= width)
            continue;
        for (int side = 0; side < 2; side++) {
            const uint32_t *v = side == 0 ? x->operands : x->users;
            const uint32_t *st = side == 0 ? x->operand_start : x->user_start;
            for (uint32_t j = st[cur.instr]; j < st[cur.instr + 1]; j++) {
                uint32_t n = v[j];
                if (slot[n] != 0)
                    continue;
                if (out->n_nodes == PV_GV_MAX_NODES) {
                    out->truncated = true;
                    continue;
                }
                out->nodes[out->n_nodes++] = (pv_gv_node){n, cur.depth + 1, 0, 0};
                slot[n] = (uint32_t)out->n_nodes;
            }
        }
    }
    /* Edges among the nodes; what each node's operands and users leave out. */
    size_t cap = 1;
    for (size_t i = 0; i < out->n_nodes; i++) {
        uint32_t in = out->nodes[i].instr;
        cap += x->operand_start[in + 1] - x->operand_start[in];
    }
    out->edges = pv_arena_zalloc(a, cap * sizeof *out->edges);
    for (size_t i = 0; i < out->n_nodes; i++) {
        pv_gv_node *nd = &out->nodes[i];
        uint32_t in = nd->instr;
        for (uint32_t j = x->operand_start[in]; j < x->operand_start[in + 1]; j++) {
            uint32_t s = slot[x->operands[j]];
            if (s == 0)
                nd->hidden_operands++;
            else
                out->edges[out->n_edges++] =
                    (pv_gv_edge){s - 1, (uint32_t)i, j - x->operand_start[in]};
        }
        for (uint32_t j = x->user_start[in]; j < x->user_start[in + 1]; j++)
            nd->hidden_users += slot[x->users[j]] == 0;
    }
    free(slot);
    return 0;
}

static const char *instr_text(const pv_hlo_index *x, uint32_t i, pv_arena *a)
{
    pv_buf b;
    pv_buf_init(&b, (size_t)1 << 20);
    pv_hlo_print p = {true, true};
    const char *s = pv_hlo_text_instr(x, i, &p, &b) == 0 && b.len > 0
                        ? pv_arena_strndup(a, b.data, b.len)
                        : "";
    pv_buf_fini(&b);
    return s;
}

json_t *pv_graph_view_json(const pv_graph_view *g, pv_arena *a)
{
    const pv_hlo_index *x = g->x;
    const pv_hlo_table *t = x->t;
    const pv_hlo_instruction *center = &t->instructions[g->center];
    const pv_hlo_computation *comp = &t->computations[center->computation];
    const pv_hlo_module *mod = &t->modules[g->module];
    char prog[32];
    snprintf(prog, sizeof prog, "%llu", (unsigned long long)mod->program_id);
    json_t *o = json_object();
    json_object_set_new(o, "module", json_string(mod->name));
    json_object_set_new(o, "programId", json_string(prog));
    json_object_set_new(o, "computation", json_string(comp->name));
    json_object_set_new(o, "center", json_string(center->name));
    json_object_set_new(o, "width", json_integer(g->width));
    uint32_t parent = pv_hlo_index_parent(x, g->center);
    json_object_set_new(o, "entry", json_boolean(parent == PV_HLO_NONE));
    if (parent != PV_HLO_NONE)
        json_object_set_new(o, "parent", json_string(t->instructions[parent].name));
    json_object_set_new(o, "truncated", json_boolean(g->truncated));
    json_t *nodes = json_array();
    for (size_t i = 0; i < g->n_nodes; i++) {
        const pv_gv_node *nd = &g->nodes[i];
        const pv_hlo_instruction *in = &t->instructions[nd->instr];
        json_t *calls = json_array();
        for (uint32_t j = x->called_start[nd->instr]; j < x->called_start[nd->instr + 1]; j++) {
            uint32_t cc = x->called[j];
            uint32_t root = x->root[cc];
            json_array_append_new(
                calls, json_pack("{s:s, s:s}", "computation", t->computations[cc].name, "root",
                                 root != PV_HLO_NONE ? t->instructions[root].name : ""));
        }
        json_array_append_new(
            nodes,
            json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:o}", "name", in->name,
                      "opcode", in->opcode, "shape", in->shape, "category",
                      pv_hlo_category(x, nd->instr), "opName", in->op_name, "text",
                      instr_text(x, nd->instr, a), "depth", (json_int_t)nd->depth,
                      "hiddenOperands", (json_int_t)nd->hidden_operands, "hiddenUsers",
                      (json_int_t)nd->hidden_users, "calls", calls));
    }
    json_object_set_new(o, "nodes", nodes);
    json_t *edges = json_array();
    for (size_t i = 0; i < g->n_edges; i++)
        json_array_append_new(edges, json_pack("{s:I, s:I, s:I}", "from",
                                               (json_int_t)g->edges[i].from, "to",
                                               (json_int_t)g->edges[i].to, "operand",
                                               (json_int_t)g->edges[i].operand));
    json_object_set_new(o, "edges", edges);
    return o;
}

/* s as a DOT double-quoted string. */
static int dot_str(pv_buf *out, const char *s)
{
    int rc = pv_buf_adds(out, "\"");
    for (; *s != '\0' && rc == 0; s++) {
        if (*s == '"' || *s == '\\')
            rc = pv_buf_adds(out, "\\");
        if (rc == 0)
            rc = pv_buf_add(out, s, 1);
    }
    return rc != 0 ? rc : pv_buf_adds(out, "\"");
}

int pv_graph_view_dot(const pv_graph_view *g, pv_buf *out)
{
    const pv_hlo_table *t = g->x->t;
    int rc = pv_buf_addf(out, "digraph G {\nrankdir = TB;\nlabelloc = t;\nlabel = ");
    if (rc == 0)
        rc = dot_str(out, t->instructions[g->center].name);
    if (rc == 0)
        rc = pv_buf_adds(out, ";\nnode [shape=box, style=\"rounded,filled\", "
                              "fontname=\"monospace\", fillcolor=\"#f4f6f8\"];\n");
    for (size_t i = 0; i < g->n_nodes && rc == 0; i++) {
        const pv_hlo_instruction *in = &t->instructions[g->nodes[i].instr];
        rc = pv_buf_addf(out, "n%zu [label=", i);
        /* name, then opcode and shape on a second line: DOT joins quoted
         * strings with "+", and "\n" inside one is its line break */
        if (rc == 0)
            rc = dot_str(out, in->name);
        if (rc == 0)
            rc = pv_buf_adds(out, " + \"\\n\" + ");
        if (rc == 0)
            rc = dot_str(out, in->opcode);
        if (rc == 0)
            rc = pv_buf_adds(out, " + \" \" + ");
        if (rc == 0)
            rc = dot_str(out, in->shape);
        if (rc == 0)
            rc = pv_buf_adds(out, i == 0 ? ", penwidth=2, fillcolor=\"#cfe3f7\"];\n" : "];\n");
    }
    for (size_t i = 0; i < g->n_edges && rc == 0; i++)
        rc = pv_buf_addf(out, "n%u -> n%u;\n", g->edges[i].from, g->edges[i].to);
    if (rc == 0)
        rc = pv_buf_adds(out, "}\n");
    return rc != 0 ? PV_ETOOBIG : 0;
}
