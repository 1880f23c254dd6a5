/* compare_kernels: prepares a kernel_stats answer (a DataTable, one row per
 * kernel, launch configuration and op) for a row-by-row comparison of
 * every column with the reference's.
 *
 * XProf merges kernel events into one row per (kernel name, registers,
 * shared memory, block, grid, uses-TensorCore, op eligible, op name), so
 * two kernels that differ only in what XProf cannot see are one row
 * there. Where profview deliberately knows more than XProf (the op of an
 * old TensorFlow GPU kernel from its "level 0" annotation, the "shm:" key
 * of its kernel_details), PV_JC_AS_REFERENCE rules set those cells of our
 * rows to the value XProf shows; rows that then share XProf's key are
 * merged as XProf merges them (occurrences and total added, the smallest
 * minimum, the largest maximum, the average total / occurrences truncated
 * to the nanosecond, the first row's occupancy) and ranked again by total
 * time, ties in XProf's key order. An ALL_HOSTS table holds every host's rows side by side, which
 * XProf does not merge across hosts: the k-th of rows equal in every cell
 * but rank is taken as the k-th host's and merges only with that host's
 * (a guess that can only split what XProf merged, never merge what it
 * split, so it cannot hide a difference). Each cell set is recorded as an
 * accepted difference under its rule. Everything else is compared cell by cell, rank included (the
 * harness matches rows by kernel_name, registers_per_thread, block_dim,
 * grid_dim and op_name, see compare_rules.c). */
#ifndef PV_TESTS_COMPARE_KERNELS_H
#define PV_TESTS_COMPARE_KERNELS_H

#include "json_compare.h"

#include <jansson.h>

/* Returns a new table: ours with the rules' AS_REFERENCE cells set and
 * rows merged as above (for tool and where), accepted differences
 * recorded in r; or a copy of table when no rule applies. NULL when table
 * is not a kernel_stats table. */
json_t *pv_kernel_table(const json_t *table, const pv_jc_rule *rules, const char *tool,
                        const char *where, pv_jc_result *r);

#endif
