/* hlo_table: the XLA programs a profile carries, as plain tables every tool can
 * read: modules (one per program id), their computations, and the
 * computations' instructions with name, opcode, shape, operands, called
 * computations and where the framework made them. No protobuf types: the
 * bytes are XLA's HloProto, which only server/ingest/ knows.
 *
 * Decoded lazily. A profile may carry a hundred HLO protos of hundreds of
 * KB each (JAX on TPU), and loading the trace must not pay for them, so
 * the model keeps the bytes (`Hlo Proto` stats, model->blobs) and ingest
 * attaches a decoder (pv_model_set_hlo_decoder) to every model it makes
 * and to every model the cache loads from disk. The first pv_model_hlo
 * call runs it; later calls, from any thread, get the same table. (The
 * one use at load: a JAX GPU profile's derived device lines name each
 * kernel's framework op from it, once, when the trace index is built;
 * they are kept as a memo, so a restart does not decode it again:
 * tools/trace_derived/trace_derived.h.)
 *
 * Shape of the table:
 *   modules      sorted by program_id; computations [first_computation,
 *                +n_computations) of the table's array
 *   computations in the proto's order (callees before callers);
 *                instructions [first_instruction, +n_instructions)
 *   instructions in the proto's order (operands before users)
 * Ids (instruction id, operand and called computation ids) are the
 * proto's, unique within one module only. A proto that does not parse is
 * left out whole and listed in bad with its reason (so a tool asked for
 * that program can say why); a model without HLO protos, or
 * without a decoder, has an empty table.
 *
 * Ownership: the table lives in the model and is freed with it; it is
 * not counted in mem_bytes (the budget counts a model as it loaded).
 * Threads: pv_model_hlo may be called from any number of threads at once
 * (the first caller decodes under the model's lock; the others wait);
 * pv_model_set_hlo_decoder only before the model is shared. */
#ifndef PV_MODEL_HLO_TABLE_H
#define PV_MODEL_HLO_TABLE_H

#include "model/model.h"
#include "util/arena.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A list of int64 read from the proto ("dimensions={1,0}"). */
typedef struct pv_hlo_ints {
    const int64_t *v;           /* n values; NULL when n is 0 */
    uint32_t n;
} pv_hlo_ints;

/* One dimension of a windowed op's window (convolution, reduce-window). */
typedef struct pv_hlo_window_dim {
    int64_t size, stride, pad_low, pad_high, window_dilation, base_dilation;
    bool reversal;
} pv_hlo_window_dim;

/* Which dimension of a convolution's input, kernel and output is which. */
typedef struct pv_hlo_conv_dims {
    int64_t input_batch, input_feature;
    int64_t kernel_input_feature, kernel_output_feature;
    int64_t output_batch, output_feature;
    pv_hlo_ints input_spatial, kernel_spatial, output_spatial;
} pv_hlo_conv_dims;

/* What some opcodes carry beyond name, shape and operands: what XLA
 * prints after the operands and what a cost model reads. Most
 * instructions (elementwise ops) have none of it: their attrs is NULL. */
typedef struct pv_hlo_attrs {
    const char *fusion_kind;          /* "kLoop", "kInput", "kOutput", "kCustom"; "" none */
    const char *custom_call_target;   /* e.g. "__cublas$gemm"; "" none */
    const char *comparison_direction; /* "EQ", "LT", ...; "" none */
    const char *comparison_type;      /* "TOTALORDER", ...; "" none */
    const char *literal;              /* a constant's value as XLA prints it: "0",
                                         "{1, 2}", "{...}" past ten elements; "" none */
    const char *replica_groups;       /* "{{0,1},{2,3}}" or "[4,2]<=[2,4]T(1,0)";
                                         "" none */
    pv_hlo_ints dimensions;           /* dimensions= (broadcast, reduce, transpose,
                                         concatenate, iota's one) */
    pv_hlo_ints dynamic_slice_sizes;
    pv_hlo_ints slices;               /* start, limit, stride per dimension */
    pv_hlo_ints padding;              /* low, high, interior per dimension */
    pv_hlo_ints control_ids;          /* control predecessors' instruction ids */
    const pv_hlo_window_dim *window;  /* n_window; NULL none */
    uint32_t n_window;
    bool has_dot_dims;                /* dot_dims below were in the proto */
    bool has_conv_dims;               /* conv_dims below were in the proto */
    bool use_global_device_ids;
    pv_hlo_ints dot_dims[4];          /* lhs contracting, rhs contracting,
                                         lhs batch, rhs batch */
    pv_hlo_conv_dims conv_dims;
    int64_t parameter_number;
    int64_t tuple_index;
    int64_t feature_group_count;      /* 0 when not set (reads as 1) */
    int64_t batch_group_count;        /* 0 when not set (reads as 1) */
    int64_t channel_id;               /* <= 0 none */
} pv_hlo_attrs;

typedef struct pv_hlo_instruction {
    const char *name;           /* e.g. "fusion.3" */
    const char *opcode;         /* e.g. "fusion" */
    const char *shape;          /* as XLA prints it with its layout, e.g.
                                   "f32[8,128]{1,0}", "(f32[], s32[2])",
                                   "f32[8]{0:T(128)S(1)}"; "" none */
    const char *op_name;        /* OpMetadata.op_name, e.g. "jit(f)/dot_general"; "" none */
    const char *op_type;        /* OpMetadata.op_type; "" none */
    const char *source_file;    /* OpMetadata.source_file; "" none */
    const char *deduplicated_name; /* OpMetadata.deduplicated_name; "" none */
    int32_t source_line;        /* OpMetadata.source_line; 0 none */
    int32_t stack_frame_id;     /* OpMetadata.stack_frame_id: 1-based into its
                                   module's frames; 0 none */
    uint32_t computation;       /* index of its computation in the table */
    int64_t id;                 /* HloInstructionProto.id */
    const int64_t *operand_ids; /* n_operands ids of instructions of the same module */
    const int64_t *called_ids;  /* n_called ids of computations of the same module */
    uint32_t n_operands;
    uint32_t n_called;
    const pv_hlo_attrs *attrs;  /* NULL when the opcode carries none */
} pv_hlo_instruction;

typedef struct pv_hlo_computation {
    const char *name;
    int64_t id;                 /* HloComputationProto.id */
    int64_t root_id;            /* id of its root instruction */
    uint32_t module;            /* index of its module in the table */
    uint32_t n_instructions;
    uint64_t first_instruction;
} pv_hlo_computation;

/* One frame of a module's call stacks: where, and the frame that called
 * it (0 at the outermost). */
typedef struct pv_hlo_frame {
    const char *file;           /* "" unknown */
    const char *function;       /* "" unknown */
    int32_t line, column;
    int32_t parent;             /* 1-based into the module's frames; 0 none */
} pv_hlo_frame;

typedef struct pv_hlo_module {
    uint64_t program_id;        /* the profile's id of the program (its metadata
                                   event's id, what `program_id` stats name) */
    const char *name;           /* HloModuleProto.name, e.g. "jit_f" */
    const char *entry_computation_name; /* "" none */
    int64_t id;                 /* HloModuleProto.id */
    int64_t entry_computation_id;
    uint32_t first_computation;
    uint32_t n_computations;
    const pv_hlo_frame *frames; /* n_frames, frame k at frames[k - 1] */
    uint32_t n_frames;
} pv_hlo_module;

/* A proto left out of the table: whose it was and why. */
typedef struct pv_hlo_bad {
    uint64_t program_id;
    const char *reason;         /* one sentence: what did not parse */
} pv_hlo_bad;

typedef struct pv_hlo_table {
    const pv_hlo_module *modules;           /* n_modules, sorted by program_id */
    size_t n_modules;
    const pv_hlo_computation *computations; /* n_computations */
    size_t n_computations;
    const pv_hlo_instruction *instructions; /* n_instructions */
    size_t n_instructions;
    size_t n_bad;                           /* protos left out: they did not parse */
    const pv_hlo_bad *bad;                  /* n_bad, sorted by program_id */
} pv_hlo_table;

/* ---- buffer assignment (the memory viewer) -------------------------------------- */

/* A program's buffer assignment: its logical buffers (values), the
 * allocations they are placed in, and the heap simulator's traces (the
 * order buffers are allocated and freed in). XLA's BufferAssignmentProto,
 * decoded per program on request (only the memory viewer reads it). */
typedef struct pv_hlo_logical_buffer {
    int64_t id;
    int64_t size;                 /* bytes, padded as laid out */
    int64_t color;                /* memory space */
    int64_t instruction_id;       /* the instruction that defines it */
    const int64_t *shape_index;   /* n_shape_index: where in its shape */
    uint32_t n_shape_index;
} pv_hlo_logical_buffer;

typedef struct pv_hlo_assigned {
    int64_t logical_buffer_id;
    int64_t offset;               /* within the allocation */
    int64_t size;
} pv_hlo_assigned;

typedef struct pv_hlo_allocation {
    int64_t index;
    int64_t size;
    int64_t color;
    bool is_thread_local, is_tuple, is_entry_computation_parameter, is_constant,
        maybe_live_out;
    const pv_hlo_assigned *assigned;  /* n_assigned */
    uint32_t n_assigned;
} pv_hlo_allocation;

typedef enum pv_hlo_heap_kind { PV_HEAP_ALLOC, PV_HEAP_FREE, PV_HEAP_SHARE_WITH } pv_hlo_heap_kind;

typedef struct pv_hlo_heap_event {
    pv_hlo_heap_kind kind;
    int64_t buffer_id;
    int64_t share_with_canonical_id;  /* SHARE_WITH */
    const char *instruction_name;     /* "" none */
} pv_hlo_heap_event;

typedef struct pv_hlo_heap_trace {
    const pv_hlo_heap_event *events;  /* n_events, in the simulator's order */
    size_t n_events;
} pv_hlo_heap_trace;

typedef struct pv_hlo_buffers {
    const pv_hlo_logical_buffer *logical_buffers;  /* n_logical_buffers, sorted by id */
    size_t n_logical_buffers;
    const pv_hlo_allocation *allocations;          /* n_allocations, the proto's order */
    size_t n_allocations;
    const pv_hlo_heap_trace *traces;               /* n_traces */
    size_t n_traces;
} pv_hlo_buffers;

/* What ingest attaches: fills *out (zeroed by the caller) from the HLO
 * protos of m, allocating from a. Cannot fail: a proto that does not
 * parse is counted in out->n_bad. */
typedef void (*pv_hlo_decode_fn)(const pv_model *m, pv_arena *a, pv_hlo_table *out);

/* What ingest attaches for buffer assignments: fills *out (zeroed by the
 * caller) with program_id's, allocating from a. Returns 0; PV_ENOTFOUND
 * when no proto of the profile is that program's, PV_EFORMAT when its
 * bytes do not parse (err says why). */
typedef int (*pv_hlo_buffers_fn)(const pv_model *m, uint64_t program_id, pv_arena *a,
                                 pv_hlo_buffers *out, pv_error *err);

/* ---- attaching (before the model is shared) --------------------------------- */

/* Makes decode the one pv_model_hlo runs, once, on first use, and
 * buffers the one pv_model_hlo_buffers runs. Cannot fail (aborts when
 * memory runs out). */
void pv_model_set_hlo_decoder(pv_model *m, pv_hlo_decode_fn decode, pv_hlo_buffers_fn buffers);

/* ---- reading (any thread) ------------------------------------------------------ */

/* The model's HLO table, decoded on the first call. Never NULL: a model
 * without protos or without a decoder gives an empty table. Valid as long
 * as the model is. */
const pv_hlo_table *pv_model_hlo(const pv_model *m);

/* program_id's buffer assignment, decoded now into a (not kept: the
 * caller's arena owns it). Returns pv_hlo_buffers_fn's codes; PV_ENOTFOUND
 * also for a model without a decoder. */
int pv_model_hlo_buffers(const pv_model *m, uint64_t program_id, pv_arena *a,
                         pv_hlo_buffers *out, pv_error *err);

/* The first module of program_id, or NULL (binary search). */
const pv_hlo_module *pv_hlo_module_find(const pv_hlo_table *t, uint64_t program_id);

/* Why program_id's proto was left out, or NULL when it was not. */
const char *pv_hlo_bad_reason(const pv_hlo_table *t, uint64_t program_id);

#endif
