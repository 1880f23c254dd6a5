/* compare_rules: matching keys per tool, exact values, and the accepted
 * differences. Paths are the ones json_compare prints. */
#include "compare_rules.h"

#include <stddef.h>

const pv_jc_rule pv_compare_rules[] = {
    /* ---- how rows are matched ------------------------------------------ */
    {"framework_op_stats", NULL, "/*/rows", PV_JC_KEYED, "host_or_device,type,operation",
     "op rows are matched by side, type and op: ties in self time have no fixed order"},
    {"kernel_stats", NULL, "/rows", PV_JC_KEYED,
     "kernel_name,op_name,registers_per_thread,shmem_bytes,block_dim,grid_dim",
     "kernel rows are matched by kernel and launch configuration"},
    /* ---- counts are exact ------------------------------------------------ */
    {NULL, NULL, "*/occurrences", PV_JC_EXACT, NULL, "a count"},
    {NULL, NULL, "/n_events", PV_JC_EXACT, NULL, "a count"},
    {NULL, NULL, "/names/*", PV_JC_EXACT, NULL, "a count"},
    {NULL, NULL, "/threads/*", PV_JC_EXACT, NULL, "a count"},
    {NULL, NULL, NULL, 0, NULL, NULL},
};
