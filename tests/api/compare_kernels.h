/* compare_kernels: prepares a kernel_stats answer (a DataTable, one row per
 * kernel, launch configuration and op) for a row-by-row comparison of
 * every column with the reference's.
 *
 * XProf merges kernel events into one row per (kernel name, registers,
 * shared memory, block, grid, uses-TensorCore, op eligible, op name), so
 * two kernels that differ only in what XProf cannot see are one row
 * there. Where XProf cannot see a column of its key at all (the op of an
 * old TensorFlow GPU kernel, which profview reads from its "level 0"
 * annotation and XProf leaves empty), a PV_JC_UNSEEN rule names it: our
 * rows that differ only in it are merged, and the merged cell lists our
 * values joined by " + ", to be compared with the reference's under an
 * ACCEPT rule that says what differs. Where profview deliberately reads a
 * value XProf cannot (the old "shm:" key of kernel_details), a
 * PV_JC_AS_REFERENCE rule sets our cell to the value XProf shows, when
 * ours fits the rule's ours_is, each cell set an accepted difference. Rows
 * that then share XProf's key are merged as XProf merges them
 * (occurrences and total added, the smallest minimum, the largest
 * maximum, the average total / occurrences truncated to the nanosecond,
 * the first row's occupancy) and ranked again by total time, ties in
 * XProf's key order. An ALL_HOSTS table holds every host's rows side by
 * side, which XProf does not merge across hosts: the k-th of rows equal in
 * every cell but rank is taken as the k-th host's and merges only with
 * that host's (a guess that can only split what XProf merged, never merge
 * what it split, so it cannot hide a difference). Everything else is
 * compared cell by cell, rank included (the harness matches rows by
 * kernel_name, registers_per_thread, block_dim, grid_dim and op_name, see
 * compare_rules.c). */
#ifndef PV_TESTS_COMPARE_KERNELS_H
#define PV_TESTS_COMPARE_KERNELS_H

#include "json_compare.h"

#include <jansson.h>

/* Returns a new table: ours with the rules' AS_REFERENCE cells set and
 * rows merged (UNSEEN columns joined) as above (for tool and where), accepted differences
 * recorded in r; or a copy of table when no rule applies. NULL when table
 * is not a kernel_stats table. */
json_t *pv_kernel_table(const json_t *table, const pv_jc_rule *rules, const char *tool,
                        const char *where, pv_jc_result *r);

#endif
