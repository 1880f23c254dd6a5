/* memory_viewer: one XLA program's memory as its buffer assignment plans
 * it, XProf 2.24.2's memory viewer (xprof/convert/
 * hlo_proto_to_memory_visualization_utils.cc, docs/xla_tools.md):
 *
 *  - the heap simulator's trace of the memory space (color) replayed in
 *    program order: ALLOC adds a logical buffer, FREE takes it away when
 *    its last sharer goes, SHARE_WITH reuses another buffer's memory; the
 *    heap size after each step, with and without padding, plus the
 *    buffers of indefinite lifetime (parameters, outputs, constants),
 *    which are live throughout;
 *  - the peak: its size and step, and the buffers live there (those under
 *    16 KiB as one "small" entry), in the order they were allocated, and
 *    again by size;
 *  - each logical buffer's span of steps, the allocations of indefinite
 *    lifetime with their buffers, and the blocks of the allocation chart
 *    (offset, size, span);
 *  - totals: parameters, non-reusable, maybe-live-out, all allocations and
 *    the indefinite ones.
 *
 * Ownership: everything lives in the caller's arena or the model.
 * Threads: any; the model is only read. */
#ifndef PV_TOOLS_MEMORY_VIEWER_MEMORY_VIEWER_H
#define PV_TOOLS_MEMORY_VIEWER_MEMORY_VIEWER_H

#include "model/hlo_table.h"
#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Buffers below this many bytes are one "small" entry at the peak. */
#define PV_MV_SMALL_BUFFER_BYTES (16 * 1024)

typedef struct pv_mv_source {
    const char *file;            /* "" none */
    int32_t line;
    const char *stack;           /* "file:line:column" lines, innermost first */
} pv_mv_source;

/* A buffer live at the peak (XProf's HeapObject). */
typedef struct pv_mv_heap_object {
    int32_t color;               /* its place among them ("numbered") */
    const char *label;           /* "<instr>: <shape> # <framework op>" */
    int64_t logical_buffer_id;   /* -1 for the small entry */
    int64_t size_bytes;
    int64_t unpadded_bytes;
    const char *instruction_name; /* with its shape index, "fusion.1{0}"; "" small */
    const char *shape;           /* with layout */
    const char *tf_op_name;
    const char *group;           /* "Parameter", "Output", "Thread-local", "Constant",
                                    "Temporary" */
    const char *opcode;
    pv_mv_source source;
} pv_mv_heap_object;

typedef struct pv_mv_buffer_ref {   /* a logical buffer of an allocation */
    int64_t id;
    int64_t size_bytes;
    const char *hlo_name;
    const char *shape;
    const int64_t *shape_index;
    uint32_t n_shape_index;
} pv_mv_buffer_ref;

typedef struct pv_mv_allocation {   /* an allocation of indefinite lifetime */
    int64_t id;
    int64_t size_bytes;
    bool parameter, live_out, reusable;
    pv_mv_buffer_ref *buffers;
    size_t n_buffers;
    const char *common_shape;    /* "" when its buffers' shapes differ */
} pv_mv_allocation;

typedef struct pv_mv_span {
    int64_t id;                  /* logical buffer */
    int32_t start, limit;        /* steps */
} pv_mv_span;

typedef struct pv_mv_block {        /* a rectangle of the allocation chart */
    int64_t logical_buffer_id;   /* -1: the allocation itself */
    const char *name;
    int64_t offset, size;        /* bytes */
    int32_t start_step, end_step;
    const char *tf_op_name, *category, *shape;
    int64_t unpadded_size;
    pv_mv_source source;
    bool peak;                   /* live at the peak: colored as there */
    int32_t peak_color;
} pv_mv_block;

typedef struct pv_memory_viewer {
    const char *module_name;
    const char *entry_computation_name;
    size_t n_steps;              /* heap sizes: one per simulator event, plus the end */
    const int64_t *heap_bytes;
    const int64_t *unpadded_heap_bytes;
    const char *const *step_instruction;
    int64_t indefinite_bytes;    /* added to every step */
    int64_t peak_bytes, peak_unpadded_bytes;
    int32_t peak_step;
    pv_mv_heap_object *max_heap; /* n_max_heap, in allocation order */
    size_t n_max_heap;
    uint32_t *by_size;           /* max_heap indices, largest first */
    pv_mv_span *spans;
    size_t n_spans;
    int64_t parameter_bytes, non_reusable_bytes, live_out_bytes;
    int64_t total_allocation_bytes, indefinite_allocation_bytes;
    pv_mv_allocation *indefinite;
    size_t n_indefinite;
    pv_mv_block *blocks;
    size_t n_blocks;
} pv_memory_viewer;

/* The memory of program_id's module in memory space color. Returns 0;
 * PV_ENOTFOUND when the profile has no such program; PV_EFORMAT when its
 * buffer assignment does not read or its heap trace is inconsistent
 * (a buffer freed twice, a negative heap, events of several
 * allocations), as XProf refuses those. */
int pv_memory_viewer_build(const pv_model *m, uint64_t program_id, int64_t color, pv_arena *a,
                           pv_memory_viewer *out, pv_error *err);

/* XProf's JSON of it (its PreprocessResult as protobuf prints it). New
 * reference, NULL when out of memory. */
json_t *pv_memory_viewer_json(const pv_memory_viewer *mv);

#endif
