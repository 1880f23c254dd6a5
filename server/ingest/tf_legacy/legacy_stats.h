/* legacy_stats: TensorFlow's legacy per-tool files for the two stats
 * tools, kernel_stats.pb (KernelStatsDb) and tensorflow_stats.pb
 * (TfStatsDatabase), turned into the results of kernel_stats.h and
 * op_stats.h, so a logdir written before XPlane (or a run that kept only
 * these files) is served in the same JSON shape and page. The rows are
 * taken as TensorFlow computed them (order, ranks, fractions, roofline
 * columns); nothing is recomputed.
 *
 * Fields read (proto/kernel_stats.proto, proto/tf_stats.proto; FORMATS.md
 * §1.3, package tensorflow.profiler):
 *   KernelStatsDb.reports -> KernelReport {name, registers_per_thread,
 *     static/dynamic_shmem_bytes, block_dim, grid_dim, total/min/
 *     max_duration_ns, is_kernel_using_tensor_core,
 *     is_op_tensor_core_eligible, op_name, occurrences, occupancy_pct}
 *   TfStatsDatabase {with_idle, without_idle -> TfStatsTable
 *     {tf_stats_record}, device_type}; TfStatsRecord {rank,
 *     host_or_device, op_type, op_name, occurrences, times, fractions,
 *     measured_flop_rate, measured_memory_bw, operational_intensity,
 *     bound_by, is_eager, gpu_tensorcore_utilization, model_flop_rate}
 * The bytes are unpacked with the code protoc-c generates, into the
 * caller's arena under a cap proportional to the file (ingest/pb_arena.h),
 * so a crafted file fails with PV_ETOOBIG instead of taking gigabytes.
 *
 * These are pure functions of the bytes: no I/O. Results, strings
 * included, live in the caller's arena. Threads: any. */
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
 * KernelStatsDb: cut short, a field of the wrong wire type, a length past
 * the end) / PV_ETOOBIG (more than PV_LEGACY_STATS_MAX_ROWS rows, or past
 * the unpacking cap) with *out zeroed; path names the file in err. An
 * empty file is an empty table, as TensorFlow writes it for profiles
 * without GPU kernels. */
int pv_legacy_kernel_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                           pv_kernel_stats_result *out, pv_error *err);

/* Reads a tensorflow_stats.pb. Same failures. */
int pv_legacy_op_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                       pv_op_stats_result *out, pv_error *err);

#endif
