/* xla_tables: the two tables of the device's XLA ops, hlo_stats and
 * roofline_model, built from the device op metrics (tools/hlo/xla_ops.h)
 * in XProf 2.24.2's JSON shape. Their descriptors are in
 * xla_tables_tool.c.
 *
 * Ownership follows jansson: every function returns a new reference; the
 * strings it needs beyond the database's live in a. */
#ifndef PV_TOOLS_XLA_TABLES_XLA_TABLES_H
#define PV_TOOLS_XLA_TABLES_XLA_TABLES_H

#include "tools/hlo/xla_ops.h"

#include <jansson.h>
#include <stdbool.h>

/* hlo_stats: one DataTable, a row per op by self time. NULL when out of
 * memory. */
json_t *pv_hlo_stats_table(const pv_xla_op_db *db, pv_arena *a);

/* What the roofline table needs besides the ops: the run environment. */
typedef struct pv_roofline_ctx {
    const char *device_type;    /* "AMD GPU - gfx942", "TPU v6 Lite"; "" none */
    unsigned device_cores;      /* device planes */
    const int64_t *step_nums;   /* n_steps step numbers, in order */
    size_t n_steps;
} pv_roofline_ctx;

/* roofline_model: [the roofline DataTable (a "Program" total row, then a
 * row per op; every row again without infeed and outfeed), the
 * diagnostics DataTable], with the device's peaks as the first table's
 * properties. NULL when out of memory. */
json_t *pv_roofline_model_tables(const pv_xla_op_db *db, const pv_roofline_ctx *ctx,
                                 pv_arena *a);

/* XProf's flags of an op: its instruction or framework op is a
 * rematerialization; it runs outside the compiled program. */
bool pv_xla_op_is_remat(const pv_xla_op *op);
bool pv_xla_op_is_outside_compilation(const pv_xla_op *op);

#endif
