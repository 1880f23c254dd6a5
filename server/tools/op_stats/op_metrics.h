/* op_metrics: per-framework-op time on the host and on the device, the
 * "op metrics databases" behind framework_op_stats (FORMATS.md §4.0).
 *
 * Device: every event on a non-derived line of a GPU plane that names a
 * framework op (`tf_op`, or the `level 0` annotation that TF <= 2.11 wrote
 * instead) is one occurrence of the device op "<op name>/<kernel name>";
 * those are re-aggregated per framework op, whose occurrences are the
 * largest occurrence count of its device ops (an op launching three
 * kernels twice ran twice, not six times). Device time spans first event
 * start to last event end over all non-derived lines of each plane; the
 * part no op covers is the IDLE op.
 * Host: on each non-derived host thread, events whose name parses as a
 * framework op (tf_op_name.h) or that carry `tf_op` are nested with a stack
 * to get self time = duration - children; per thread the span from first
 * op start to last op end minus the ops' self time is IDLE.
 *
 * XLA ops: when the device ran XLA programs (the profile carries their
 * HLO protos, or the device is a TPU), the device db is XProf's: the
 * device op metrics of tools/hlo/xla_ops.h (one op per HLO instruction or
 * TPU op, with its flops and bytes) added up per framework op, the
 * instruction's metadata op_name:op_type (the XLA op's own name, type
 * unknown, without one), occurrences again the largest of its device
 * ops'. Without HLO protos a GPU event's `tf_op` is used, else its HLO op
 * name with an unknown type.
 *
 * Ownership: everything in a db lives in the caller's arena.
 * Threads: any; the model is only read. */
#ifndef PV_TOOLS_OP_STATS_OP_METRICS_H
#define PV_TOOLS_OP_STATS_OP_METRICS_H

#include "model/model.h"
#include "tools/hlo/perf_env.h"
#include "util/arena.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_op_metrics {
    const char *name;          /* framework op name, or "IDLE" (arena) */
    const char *type;          /* op type ("Conv2D"; "IDLE"; none: "Unknown" on the
                                  device, "" on the host, as the reference) (arena) */
    uint64_t occurrences;      /* 0 for IDLE */
    uint64_t time_ps;          /* inclusive time */
    uint64_t self_time_ps;     /* time minus nested ops' time */
    double flops;              /* XLA ops' costs over all occurrences; 0 without */
    double model_flops;
    double bytes;              /* bytes accessed, all memories */
    bool is_eager;
    bool is_idle;
    const char *group_value;   /* PyTorch rows grouped by a stat of the calls ("Input
                                  Dims", "Call stack"): its value ("" for calls without);
                                  NULL otherwise (model) */
} pv_op_metrics;

typedef struct pv_op_metrics_db {
    pv_op_metrics *ops;        /* n_ops, in first-seen order; IDLE last when present */
    size_t n_ops;
    uint64_t total_time_ps;    /* span(s) covered, IDLE included */
    uint64_t total_op_time_ps; /* sum of the ops' self time */
    pv_perf_env env;           /* device: the device's peaks (kind NONE on the host) */
} pv_op_metrics_db;

/* ---- building ------------------------------------------------------------ */

/* Framework-op level device db over every GPU plane of m (empty, without
 * an IDLE op, when m has no GPU plane). Returns 0, or PV_ETOOBIG when the
 * distinct ops would not fit in memory, with *out zeroed. */
int pv_op_metrics_device(const pv_model *m, pv_arena *a, pv_op_metrics_db *out, pv_error *err);

/* Host db over the host plane's threads. Same failures. */
int pv_op_metrics_host(const pv_model *m, pv_arena *a, pv_op_metrics_db *out, pv_error *err);

/* Both dbs of a PyTorch trace (a model with roles, pv_model_has_roles),
 * counted as torch-tb-profiler's operator view counts (op_metrics_kineto.c):
 * PyTorch operators by name, or by name and the calls' value of the stat
 * group_stat names when not NULL ("Input Dims": its "Operator + Input Shape"
 * grouping; "Call stack": its call stack view), host and device time, no
 * IDLE. Returns 0; aborts only when memory runs out. */
int pv_op_metrics_kineto(const pv_model *m, const char *group_stat, pv_arena *a,
                         pv_op_metrics_db *host, pv_op_metrics_db *device, pv_error *err);

/* ---- combining hosts (ALL_HOSTS) ----------------------------------------- */

/* One db from several hosts' dbs of the same side, as the reference's op
 * metrics combiner does: ops with the same name add up (occurrences, time,
 * self time; eager if any part's is), every part's IDLE adds into one IDLE
 * (last), totals add up. An op keeps the first part's type unless that is
 * empty or "Unknown" and a later part's is not. Ops come in first-seen
 * order (sort afterwards). On the device side the reference adds device
 * ops (op/kernel) before taking the largest occurrence count per framework
 * op; adding per-host framework ops gives the same count unless one host's
 * busiest kernel of an op is another host's less busy one.
 * Strings stay borrowed from the parts. Returns 0, or PV_ETOOBIG. */
int pv_op_metrics_combine(const pv_op_metrics_db *parts, size_t n_parts, pv_arena *a,
                          pv_op_metrics_db *out, pv_error *err);

/* ---- ordering ------------------------------------------------------------ */

/* Sorts ops by self time descending, ties by name ascending (the
 * reference's SortedOpMetricsDb order). Cannot fail. */
void pv_op_metrics_sort(pv_op_metrics_db *db);

#endif
