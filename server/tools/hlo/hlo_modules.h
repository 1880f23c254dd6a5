/* hlo_modules: how the module tools (memory_viewer, graph_viewer) name an
 * HLO module, as XProf does: "<module name>(<program id>)" in its module
 * list, module_name or program_id in a request. */
#ifndef PV_TOOLS_HLO_HLO_MODULES_H
#define PV_TOOLS_HLO_HLO_MODULES_H

#include "model/hlo_table.h"
#include "tools/tool.h"

#include <stdbool.h>
#include <stdint.h>

/* The module list: "<name>(<program id>)" per program, sorted.
 * Arena-allocated; *n set. */
const char **pv_hlo_module_names(const pv_model *m, pv_arena *a, size_t *n);

/* The module list as a part (tools/tool.h) of the module tools: the names
 * of pv_hlo_module_names joined by commas, as text; "" for a profile
 * without HLO protos. XProf's module_list route asks for it. */
extern const pv_tool_part pv_hlo_module_list_part;

/* The program a name of that list (or a bare module name: its first
 * program) names; false when none. */
bool pv_hlo_module_program(const pv_model *m, const char *module_name, uint64_t *program_id);

/* A request's module: module_name and program_id (which wins). */
typedef struct pv_hlo_module_query {
    const char *name;          /* NULL when absent */
    uint64_t program_id;
    bool has_program_id;
} pv_hlo_module_query;

/* The two parameters that name a module, for a module tool's table to
 * start with, and its query from their values (v's first two). */
#define PV_HLO_MODULE_PARAMS                                                               \
    {.name = "module_name", .kind = PV_PARAM_TEXT,                                        \
     .about = "the module, as the module list names it"},                                 \
    {.name = "program_id", .kind = PV_PARAM_UINT,                                         \
     .about = "the module by its program id (wins over module_name)", .def = UINT64_MAX,  \
     .max = UINT64_MAX}
#define PV_HLO_MODULE_N_PARAMS 2
void pv_hlo_module_query_of(const pv_param_values *v, pv_hlo_module_query *q);

/* The program q names in m. Returns 0, PV_EINVAL when q names none,
 * PV_ENOTFOUND when m has no such module, PV_EFORMAT (err saying why) when
 * the program's HLO proto was left out because it does not parse. */
int pv_hlo_module_query_program(const pv_model *m, const pv_hlo_module_query *q,
                                uint64_t *program_id, pv_error *err);

#endif
