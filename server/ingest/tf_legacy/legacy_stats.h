/* legacy_stats: TensorFlow's legacy per-tool files for the two stats
 * tools, kernel_stats.pb (KernelStatsDb) and tensorflow_stats.pb
 * (TfStatsDatabase), turned into the results of kernel_stats.h and
 * op_stats.h, so a logdir written before XPlane (or a run that kept only
 * these files) is served in the same JSON shape and page. The rows are
 * taken as TensorFlow computed them (order, ranks, fractions, roofline
 * columns); nothing is recomputed.
 *
 * Wire fields read (FORMATS.md §1.3, package tensorflow.profiler):
 *   KernelStatsDb.reports = 1 -> KernelReport {name = 1, registers_per_thread
 *     = 2, static_shmem_bytes = 3, dynamic_shmem_bytes = 4, block_dim = 5,
 *     grid_dim = 6 (repeated, packed or not), total/min/max_duration_ns =
 *     7/8/9, is_kernel_using_tensor_core = 10, is_op_tensor_core_eligible =
 *     11, op_name = 12, occurrences = 13, occupancy_pct = 14 (float)}
 *   TfStatsDatabase {with_idle = 4, without_idle = 5 -> TfStatsTable
 *     {tf_stats_record = 1}, device_type = 6}; TfStatsRecord {rank = 1,
 *     host_or_device = 2, op_type = 3, op_name = 4, occurrences = 5, doubles
 *     6..16 (times, fractions, measured_flop_rate, measured_memory_bw,
 *     operational_intensity), bound_by = 17, is_eager = 18,
 *     gpu_tensorcore_utilization = 19, model_flop_rate = 20}
 *
 * These are pure functions of the bytes: no I/O. Results live in the
 * caller's arena. Threads: any. */
#ifndef PV_INGEST_TF_LEGACY_LEGACY_STATS_H
#define PV_INGEST_TF_LEGACY_LEGACY_STATS_H

#include "tools/kernel_stats/kernel_stats.h"
#include "tools/op_stats/op_stats.h"
#include "util/arena.h"
#include "util/error.h"

#include <stddef.h>
#include <stdint.h>

#define PV_LEGACY_STATS_MAX_ROWS 10000000u /* a cap against hostile counts */

/* ---- converting ------------------------------------------------------------ */

/* Reads a kernel_stats.pb. Returns 0, or PV_EFORMAT (the bytes are not a
 * KernelStatsDb) / PV_ETOOBIG (more than PV_LEGACY_STATS_MAX_ROWS rows)
 * with *out zeroed; path names the file in err. An empty file is an empty
 * table, as TensorFlow writes it for profiles without GPU kernels. */
int pv_legacy_kernel_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                           pv_kernel_stats_result *out, pv_error *err);

/* Reads a tensorflow_stats.pb. Same failures. */
int pv_legacy_op_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                       pv_op_stats_result *out, pv_error *err);

#endif
