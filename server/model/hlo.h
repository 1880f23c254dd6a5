/* hlo: the XLA programs a profile carries, as plain tables every tool can
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
 * call runs it; later calls, from any thread, get the same table.
 *
 * Shape of the table:
 *   modules      sorted by program_id; computations [first_computation,
 *                +n_computations) of the table's array
 *   computations in the proto's order (callees before callers);
 *                instructions [first_instruction, +n_instructions)
 *   instructions in the proto's order (operands before users)
 * Ids (instruction id, operand and called computation ids) are the
 * proto's, unique within one module only. A proto that does not parse is
 * left out whole and counted in n_bad; a model without HLO protos, or
 * without a decoder, has an empty table.
 *
 * Ownership: the table lives in the model and is freed with it; it is
 * not counted in mem_bytes (the budget counts a model as it loaded).
 * Threads: pv_model_hlo may be called from any number of threads at once
 * (the first caller decodes under the model's lock; the others wait);
 * pv_model_set_hlo_decoder only before the model is shared. */
#ifndef PV_MODEL_HLO_H
#define PV_MODEL_HLO_H

#include "model/model.h"
#include "util/arena.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pv_hlo_instruction {
    const char *name;           /* e.g. "fusion.3" */
    const char *opcode;         /* e.g. "fusion" */
    const char *shape;          /* e.g. "f32[8,128]{1,0}", "(f32[], s32[2])"; "" none */
    const char *op_name;        /* OpMetadata.op_name, e.g. "jit(f)/dot_general"; "" none */
    const char *op_type;        /* OpMetadata.op_type; "" none */
    const char *source_file;    /* OpMetadata.source_file; "" none */
    int32_t source_line;        /* OpMetadata.source_line; 0 none */
    uint32_t computation;       /* index of its computation in the table */
    int64_t id;                 /* HloInstructionProto.id */
    const int64_t *operand_ids; /* n_operands ids of instructions of the same module */
    const int64_t *called_ids;  /* n_called ids of computations of the same module */
    uint32_t n_operands;
    uint32_t n_called;
} pv_hlo_instruction;

typedef struct pv_hlo_computation {
    const char *name;
    int64_t id;                 /* HloComputationProto.id */
    uint32_t module;            /* index of its module in the table */
    uint32_t n_instructions;
    uint64_t first_instruction;
} pv_hlo_computation;

typedef struct pv_hlo_module {
    uint64_t program_id;        /* the profile's id of the program (its metadata
                                   event's id, what `program_id` stats name) */
    const char *name;           /* HloModuleProto.name, e.g. "jit_f" */
    int64_t id;                 /* HloModuleProto.id */
    int64_t entry_computation_id;
    uint32_t first_computation;
    uint32_t n_computations;
} pv_hlo_module;

typedef struct pv_hlo_table {
    const pv_hlo_module *modules;           /* n_modules, sorted by program_id */
    size_t n_modules;
    const pv_hlo_computation *computations; /* n_computations */
    size_t n_computations;
    const pv_hlo_instruction *instructions; /* n_instructions */
    size_t n_instructions;
    size_t n_bad;                           /* protos left out: they did not parse */
} pv_hlo_table;

/* What ingest attaches: fills *out (zeroed by the caller) from the HLO
 * protos of m, allocating from a. Cannot fail: a proto that does not
 * parse is counted in out->n_bad. */
typedef void (*pv_hlo_decode_fn)(const pv_model *m, pv_arena *a, pv_hlo_table *out);

/* ---- attaching (before the model is shared) --------------------------------- */

/* Makes decode the one pv_model_hlo runs, once, on first use. Cannot fail
 * (aborts when memory runs out). */
void pv_model_set_hlo_decoder(pv_model *m, pv_hlo_decode_fn decode);

/* ---- reading (any thread) ------------------------------------------------------ */

/* The model's HLO table, decoded on the first call. Never NULL: a model
 * without protos or without a decoder gives an empty table. Valid as long
 * as the model is. */
const pv_hlo_table *pv_model_hlo(const pv_model *m);

/* The first module of program_id, or NULL (binary search). */
const pv_hlo_module *pv_hlo_module_find(const pv_hlo_table *t, uint64_t program_id);

#endif
