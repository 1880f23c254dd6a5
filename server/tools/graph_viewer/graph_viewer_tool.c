/* graph_viewer_tool: the graph_viewer descriptor (tools/tool.h), with
 * XProf's parameters: module_name (or program_id) names the module; type
 * "graph" with node_name, graph_width (default 3) and format ("json", the
 * page's, when absent, or "dot") draws the neighborhood; type "long_txt"
 * or "short_txt" is the module's text, with and without "%" and operand
 * shapes, for download. XProf's "html" and "url" formats hand the DOT to
 * a renderer in the browser; profview's page lays the graph out itself,
 * so they are refused in words. */
#include "tools/common/json_out.h"
#include "tools/graph_viewer/graph_viewer.h"
#include "tools/hlo/hlo_text.h"
#include "tools/hlo/hlo_modules.h"
#include "tools/registry.h"

#include <string.h>

enum { TYPE_GRAPH, TYPE_LONG_TXT, TYPE_SHORT_TXT };
enum { FORMAT_JSON, FORMAT_DOT, FORMAT_HTML, FORMAT_URL };

typedef struct gv_query {
    pv_hlo_module_query module;
    unsigned type, format;
    const char *node_name;
    uint64_t width;
} gv_query;

typedef struct gv_result {
    pv_hlo_index x;
    uint32_t module;
    pv_graph_view view;
} gv_result;

enum { P_TYPE = PV_HLO_MODULE_N_PARAMS, P_FORMAT, P_NODE_NAME, P_GRAPH_WIDTH };
static const char *const types[] = {"graph", "long_txt", "short_txt", NULL};
static const char *const formats[] = {"json", "dot", "html", "url", NULL};
static const pv_param_decl params[] = {
    PV_HLO_MODULE_PARAMS,
    [P_TYPE] = {"type", PV_PARAM_CHOICE,
                "a node's neighborhood, or the module's text with or without operand shapes",
                .def = TYPE_GRAPH, .choices = types},
    [P_FORMAT] = {"format", PV_PARAM_CHOICE, "the neighborhood as the page's JSON or as DOT",
                  .def = FORMAT_JSON, .choices = formats},
    [P_NODE_NAME] = {"node_name", PV_PARAM_TEXT, "the node the neighborhood is around"},
    [P_GRAPH_WIDTH] = {"graph_width", PV_PARAM_UINT, "how many edges away the neighborhood goes",
                       .def = PV_GV_DEFAULT_WIDTH, .max = PV_GV_MAX_WIDTH},
};

static int make_query(const pv_param_values *v, void *out, pv_error *err)
{
    gv_query *q = out;
    pv_hlo_module_query_of(v, &q->module);
    q->type = (unsigned)pv_param_u(v, P_TYPE);
    q->format = (unsigned)pv_param_u(v, P_FORMAT);
    q->node_name = pv_param_text_of(v, P_NODE_NAME);
    q->width = pv_param_u(v, P_GRAPH_WIDTH);
    if (q->type == TYPE_GRAPH && q->format >= FORMAT_HTML)
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "format must be json or dot: profview draws the graph in its own "
                            "page rather than through an external renderer");
    return 0;
}

static int compute(const pv_tool_input *in, const void *qv, pv_arena *a, void **result,
                   pv_error *err)
{
    const gv_query *q = qv;
    const pv_model *m = in->models[0];
    uint64_t program;
    int rc = pv_hlo_module_query_program(m, &q->module, &program, err);
    if (rc != 0)
        return rc;
    gv_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    pv_hlo_index_build(m, a, &r->x);
    const pv_hlo_module *mod = pv_hlo_module_find(r->x.t, program);
    if (mod == NULL)
        return pv_error_set(err, PV_ENOTFOUND, NULL, PV_NO_OFFSET,
                            "no HLO module of program %llu", (unsigned long long)program);
    r->module = (uint32_t)(mod - r->x.t->modules);
    if (q->type != TYPE_GRAPH)
        return 0;
    return pv_graph_view_build(&r->x, r->module, q->node_name, (uint32_t)q->width, a, &r->view,
                               err);
}

static int write_json(const pv_tool_input *in, const void *qv, const void *result, pv_buf *out,
                      pv_error *err)
{
    (void)in;
    const gv_query *q = qv;
    const gv_result *r = result;
    int rc = 0;
    if (q->type != TYPE_GRAPH) {
        pv_hlo_print p = {false, q->type == TYPE_LONG_TXT};
        rc = pv_hlo_text_module(&r->x, r->module, &p, out);
    } else if (q->format == FORMAT_DOT) {
        rc = pv_graph_view_dot(&r->view, out);
    } else {
        pv_arena a;
        pv_arena_init(&a, (size_t)64 << 10);
        rc = pv_json_write(pv_graph_view_json(&r->view, &a), out, err);
        pv_arena_fini(&a);
        return rc;
    }
    return rc == 0 ? 0
                   : pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                                  "the module's text is larger than %zu bytes", out->max);
}

static const char *content_type(const void *qv)
{
    const gv_query *q = qv;
    if (q->type != TYPE_GRAPH || q->format == FORMAT_DOT)
        return "text/plain; charset=utf-8";
    return "application/json";
}

const pv_tool pv_graph_viewer_tool = {
    .name = "graph_viewer",
    .title = "Graph viewer",
    PV_PARAM_TABLE(params),
    .query_bytes = sizeof(gv_query),
    .make_query = make_query,
    .compute = compute,
    .needs = PV_PROFILE_HLO,
    .per_module = true,
    .write_json = write_json,
    .content_type = content_type,
    .parts = &pv_hlo_module_list_part,
    .n_parts = 1,
};
