/* hlo_names: the framework op behind each XLA instruction, looked up by
 * (program id, instruction name) in the model's HLO table (model/hlo_table.h,
 * decoded from the profile's HLO protos the first time a tool asks).
 *
 * Only what kernel_stats, op_stats and the trace's derived lines need is
 * indexed: for every instruction of every computation (fused ones too)
 * its name and the op_type/op_name and source_file/source_line of its
 * OpMetadata. A proto that does not parse is left out of the table whole
 * and counted in n_bad: bad input never stops the tool that asked.
 *
 * Ownership: the index lives in the caller's arena, its strings in the
 * model. Threads: any; the model is only read. */
#ifndef PV_TOOLS_COMMON_HLO_NAMES_H
#define PV_TOOLS_COMMON_HLO_NAMES_H

#include "model/model.h"
#include "util/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_hlo_instr {
    uint64_t program_id;
    const char *name;        /* instruction name, e.g. "fusion.3" (the model's) */
    const char *op_name;     /* OpMetadata.op_name, e.g. "jit(f)/dot_general"; "" none */
    const char *op_type;     /* OpMetadata.op_type; "" none */
    const char *source_file; /* OpMetadata.source_file; "" none */
    int32_t source_line;     /* OpMetadata.source_line; 0 none */
} pv_hlo_instr;

typedef struct pv_hlo_names {
    pv_hlo_instr *instrs;    /* n_instrs, sorted by (program_id, name) */
    size_t n_instrs;
    uint64_t *programs;      /* n_programs ids that have a readable proto, sorted */
    size_t n_programs;
    size_t n_bad;            /* protos left out because they did not parse */
} pv_hlo_names;

/* ---- building ------------------------------------------------------------ */

/* Indexes every instruction of m's HLO table into *out. Cannot fail
 * (allocation failure aborts); a profile without HLO protos gives an
 * empty index. */
void pv_hlo_names_build(const pv_model *m, pv_arena *a, pv_hlo_names *out);

/* ---- lookups (cannot fail) ------------------------------------------------ */

/* The instruction named name[0..len) of program_id, or NULL. */
const pv_hlo_instr *pv_hlo_names_find(const pv_hlo_names *h, uint64_t program_id,
                                      const char *name, size_t len);
/* True when program_id has a readable HLO proto. */
bool pv_hlo_names_has_program(const pv_hlo_names *h, uint64_t program_id);

/* The framework op full name of an instruction as the reference builds it:
 * "op_name:op_type", or "" when both are empty. Arena-allocated. */
const char *pv_hlo_instr_tf_op(const pv_hlo_instr *in, pv_arena *a);

#endif
