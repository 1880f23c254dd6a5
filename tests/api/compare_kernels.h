/* compare_kernels: reduces a kernel_stats answer (a DataTable, one row per
 * kernel, op and launch configuration) to its sums per launch
 * configuration:
 *
 *   {"cols": [...the column ids...],
 *    "configs": {"<kernel>|<registers>|<block>|<grid>":
 *                {"occurrences", "total_duration_us", "min_duration_us",
 *                 "max_duration_us"}}}
 *
 * Why: the op a kernel belongs to is not comparable with the reference on
 * the profiles that have kernels. Old TensorFlow GPU traces carry it only
 * in the "level 0" annotation (profview takes it, XProf leaves it empty)
 * and XLA kernels are named after HLO protos, which profview does not read
 * (test_kernel_stats_real.c). The kernel owner's own test compares these
 * sums; so does the harness. Shared memory is not part of the key either:
 * XProf ignores the old "shm:" key of kernel_details, profview reads it. */
#ifndef PV_TESTS_COMPARE_KERNELS_H
#define PV_TESTS_COMPARE_KERNELS_H

#include <jansson.h>

/* Returns a new summary, or NULL when table is not a kernel_stats table. */
json_t *pv_kernel_summary(const json_t *table);

#endif
