/* xla_ops: the device's op metrics at the XLA level, what XProf calls the
 * device op metrics database: one row per (program, HLO op) that ran on a
 * GPU or TPU, with its occurrences, time, self time, flops and bytes, its
 * category, HLO text and framework op, plus IDLE. hlo_stats, op_profile,
 * roofline_model and the overview's top device ops all read it.
 *
 *  - GPU planes: every event on a stream (not a derived line) whose
 *    `hlo_op` names an instruction of its program's HLO proto is one
 *    occurrence of that instruction; its cost per run is hlo_cost.h's.
 *    An event with an `hlo_op` no proto has is dropped, as XProf drops
 *    it; one with only a `tf_op` is one occurrence of the device op
 *    "<framework op name>/<kernel>" (program 0) whose category is the
 *    op's type. Self time is time: kernels do not nest.
 *  - TPU planes: every event of an "XLA Ops" line is one occurrence of its
 *    metadata's op (the display name, the name being its HLO text), timed
 *    by its device_offset_ps / device_duration_ps stats when it has them;
 *    an op nested in another is the other's child (self time = time -
 *    children). Category, framework op, flops, bytes and their memory
 *    spaces, source and stack are the metadata's stats.
 *  - Each plane's span runs from its first op (or step) to its last one's
 *    end; the span no op covers is IDLE. Planes add up.
 * This is XProf 2.24.2's ConvertDeviceTraceXPlaneToOpMetricsDb (GPU) and
 * ConvertTensorCoreDeviceTraceXPlaneToOpMetricsDb (TPU).
 *
 * Ownership: everything lives in the caller's arena (strings in the arena
 * or the model). Threads: any; the model is only read. */
#ifndef PV_TOOLS_HLO_XLA_OPS_H
#define PV_TOOLS_HLO_XLA_OPS_H

#include "tools/hlo/hlo_index.h"
#include "tools/hlo/perf_env.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes by the memory they were read from or written to. */
enum {
    PV_MEM_HBM,        /* HBM, read and written */
    PV_MEM_CMEM_RD,
    PV_MEM_CMEM_WR,
    PV_MEM_VMEM_RD,
    PV_MEM_VMEM_WR,
    PV_MEM_COUNT
};

typedef struct pv_xla_op {
    uint64_t program_id;       /* 0 for a framework op on a GPU and for IDLE */
    const char *name;          /* "fusion.3", "<op>/<kernel>", "IDLE" */
    const char *expression;    /* the HLO text; "" none */
    const char *category;      /* "loop fusion", "custom-call", the op type, "IDLE" */
    const char *provenance;    /* framework op "name:type"; "" none */
    const char *deduplicated_name; /* "" none */
    const char *source_file;   /* "" none */
    int32_t source_line;       /* -1 none (0 for a TPU op, as XProf reads it) */
    const char *source_stack;  /* "file:line:column\n" per frame, innermost first; "" none */
    uint32_t instr;            /* its instruction in the index; PV_HLO_NONE */
    uint32_t meta;             /* a TPU op's event metadata (model->metas);
                                  UINT32_MAX for the others */
    uint64_t occurrences;      /* 0 for IDLE */
    uint64_t time_ps;
    uint64_t self_time_ps;
    double flops;              /* over all occurrences */
    double model_flops;        /* over all occurrences */
    double bytes;              /* over all occurrences, all memories */
    double mem_bytes[PV_MEM_COUNT]; /* by memory; all HBM unless the trace says */
    bool has_mem_breakdown;    /* the trace gave bytes by memory (TPU) */
    bool is_eager;
    bool is_idle;
} pv_xla_op;

typedef struct pv_xla_op_db {
    pv_xla_op *ops;            /* n_ops, by self time descending (then program and
                                  name); IDLE, when any device ran, last */
    size_t n_ops;
    uint64_t total_time_ps;    /* the planes' spans added up, idle included */
    uint64_t op_time_ps;       /* the ops' self time added up */
    pv_perf_env env;           /* the device's peaks */
    pv_hlo_index hlo;          /* the HLO the GPU ops were found in */
} pv_xla_op_db;

/* Builds m's device op metrics. Returns 0, or PV_ETOOBIG when the distinct
 * ops would not fit (*out is then empty). */
int pv_xla_ops_build(const pv_model *m, pv_arena *a, pv_xla_op_db *out, pv_error *err);

/* The op's source as XProf's tables print it: "<div class='source-info-cell'
 * title='STACK'>FILE:LINE</div>" with HTML escaped, "" without a file.
 * Arena-allocated (or ""). */
const char *pv_xla_op_source_html(const pv_xla_op *op, pv_arena *a);

#endif
