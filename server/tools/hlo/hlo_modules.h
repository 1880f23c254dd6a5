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

/* The program a name of that list (or a bare module name: its first
 * program) names; false when none. */
bool pv_hlo_module_program(const pv_model *m, const char *module_name, uint64_t *program_id);

/* A request's module: module_name and program_id (which wins). */
typedef struct pv_hlo_module_query {
    const char *name;          /* NULL when absent */
    uint64_t program_id;
    bool has_program_id;
} pv_hlo_module_query;

/* Reads module_name and program_id. Returns 0 or PV_EINVAL. */
int pv_hlo_module_query_read(const pv_params *p, pv_hlo_module_query *q, pv_error *err);

/* The program q names in m. Returns 0, PV_EINVAL when q names none,
 * PV_ENOTFOUND when m has no such module, PV_EFORMAT (err saying why) when
 * the program's HLO proto was left out because it does not parse. */
int pv_hlo_module_query_program(const pv_model *m, const pv_hlo_module_query *q,
                                uint64_t *program_id, pv_error *err);

#endif
