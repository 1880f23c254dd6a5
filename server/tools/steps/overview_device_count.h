/* overview_device_count: the device side of the overview's op share. Its
 * own header and file because op_metrics.h (which it reads) and
 * steps_ops.h (which overview.h reads) both name a pv_op_metrics. */
#ifndef PV_TOOLS_STEPS_OVERVIEW_DEVICE_COUNT_H
#define PV_TOOLS_STEPS_OVERVIEW_DEVICE_COUNT_H

#include "model/model.h"
#include "util/arena.h"

#include <stdint.h>

/* Framework-op runs on m's GPUs, as the reference's ComputeAnalysisResult
 * counts them (the occurrences of its framework-op device table, that of
 * op_metrics.h): an op that launched three kernels twice ran twice.
 * Cannot fail. */
uint64_t pv__overview_device_op_count(const pv_model *m, pv_arena *a);

#endif
