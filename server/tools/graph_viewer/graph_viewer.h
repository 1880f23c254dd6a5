/* graph_viewer: an HLO module around one instruction, and the module's
 * text (docs/xla_tools.md). XProf 2.24.2 renders the neighborhood with
 * XLA's graph dumper into DOT or HTML; profview answers it as nodes and
 * edges for the page to lay out (format=json), or as DOT of its own
 * (format=dot):
 *
 *  - the nodes: the center and every instruction of its computation at
 *    most `width` operand / user hops from it (XProf's graph_width), at
 *    most PV_GV_MAX_NODES, nearest first; each with its opcode, shape,
 *    category, framework op, text, distance, the neighbors left out
 *    (operands / users beyond the edge of the drawing), and the
 *    computations it calls with their roots (a fusion's body), so the
 *    page can step into them and back out to the caller;
 *  - the edges: operand -> user among the nodes, with the operand's place.
 *
 * Ownership: strings live in the caller's arena or the model.
 * Threads: any; the model is only read. */
#ifndef PV_TOOLS_GRAPH_VIEWER_GRAPH_VIEWER_H
#define PV_TOOLS_GRAPH_VIEWER_GRAPH_VIEWER_H

#include "tools/hlo/hlo_index.h"
#include "util/buf.h"
#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define PV_GV_MAX_NODES 150
#define PV_GV_DEFAULT_WIDTH 3   /* XProf's default graph_width */
#define PV_GV_MAX_WIDTH 20

typedef struct pv_gv_node {
    uint32_t instr;              /* in the index */
    uint32_t depth;              /* hops from the center */
    uint32_t hidden_operands;    /* operands not among the nodes */
    uint32_t hidden_users;
} pv_gv_node;

typedef struct pv_gv_edge {
    uint32_t from, to;           /* node indices: operand, user */
    uint32_t operand;            /* its place among the user's operands */
} pv_gv_edge;

typedef struct pv_graph_view {
    const pv_hlo_index *x;
    uint32_t module;             /* in the table */
    uint32_t center;             /* instruction */
    uint32_t width;
    pv_gv_node *nodes;           /* n_nodes; the center first, nearest first */
    size_t n_nodes;
    pv_gv_edge *edges;
    size_t n_edges;
    bool truncated;              /* PV_GV_MAX_NODES stopped the walk */
} pv_graph_view;

/* The neighborhood of the instruction named node (the entry computation's
 * root when node is NULL or "") in module k, width hops wide. Returns 0,
 * or PV_ENOTFOUND when the module has no such instruction. */
int pv_graph_view_build(const pv_hlo_index *x, uint32_t k, const char *node, uint32_t width,
                        pv_arena *a, pv_graph_view *out, pv_error *err);

/* The view as profview's JSON. New reference; NULL when out of memory. */
json_t *pv_graph_view_json(const pv_graph_view *g, pv_arena *a);

/* The view as a DOT digraph. Returns 0 or PV_ETOOBIG. */
int pv_graph_view_dot(const pv_graph_view *g, pv_buf *out);

#endif
