/* hlo_index: the model's HLO table (model/hlo_table.h) as a graph the XLA tools
 * walk: each instruction's operands and users as instruction indices,
 * each computation's root and the fusion instruction it is the body of,
 * and lookups of an instruction by (program, name) and of an instruction
 * or computation by its id within a module.
 *
 * Indices are those of the table: instruction i is table->instructions[i],
 * computation c is table->computations[c], module k is table->modules[k].
 * An operand or called id that names nothing in its module is left out
 * (the proto is bad input, not a bug).
 *
 * Ownership: everything lives in the caller's arena; the table it points
 * at lives in the model. Threads: any; the model is only read. */
#ifndef PV_TOOLS_HLO_HLO_INDEX_H
#define PV_TOOLS_HLO_HLO_INDEX_H

#include "model/hlo_table.h"
#include "util/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PV_HLO_NONE UINT32_MAX

typedef struct pv_hlo_index {
    const pv_hlo_table *t;
    const uint32_t *operands;       /* operands of instruction i:
                                       [operand_start[i], operand_start[i+1]) */
    const uint32_t *operand_start;  /* n_instructions + 1 */
    const uint32_t *users;          /* users of i: [user_start[i], user_start[i+1]),
                                       in the table's order */
    const uint32_t *user_start;     /* n_instructions + 1 */
    const uint32_t *called;         /* computations i calls, as indices:
                                       [called_start[i], called_start[i+1]) */
    const uint32_t *called_start;   /* n_instructions + 1 */
    const uint32_t *root;           /* per computation: its root instruction;
                                       PV_HLO_NONE when the id names none */
    const uint32_t *caller;         /* per computation: the first instruction
                                       that calls it; PV_HLO_NONE for an entry */
    const uint32_t *by_name;        /* instruction indices sorted by (program, name) */
    const uint32_t *by_id;          /* instruction indices sorted by (module, id) */
} pv_hlo_index;

/* ---- building ------------------------------------------------------------ */

/* Indexes m's HLO table (decoding it on first use). Cannot fail
 * (allocation failure aborts); a model without HLO gives an empty index. */
void pv_hlo_index_build(const pv_model *m, pv_arena *a, pv_hlo_index *out);

/* ---- lookups (cannot fail) ------------------------------------------------ */

/* The instruction of program_id named name[0..len), or PV_HLO_NONE. */
uint32_t pv_hlo_index_find(const pv_hlo_index *x, uint64_t program_id, const char *name,
                           size_t len);
/* The instruction of module (a table index) with this id, or PV_HLO_NONE. */
uint32_t pv_hlo_index_by_id(const pv_hlo_index *x, uint32_t module, int64_t id);
/* The computation of module with this id, or PV_HLO_NONE. */
uint32_t pv_hlo_index_computation(const pv_hlo_index *x, uint32_t module, int64_t id);

/* The module of instruction i (a table index). */
static inline uint32_t pv_hlo_index_module(const pv_hlo_index *x, uint32_t i)
{
    return x->t->computations[x->t->instructions[i].computation].module;
}

/* The fusion (or other) instruction whose body holds instruction i, or
 * PV_HLO_NONE when i is in an entry computation. */
static inline uint32_t pv_hlo_index_parent(const pv_hlo_index *x, uint32_t i)
{
    return x->caller[x->t->instructions[i].computation];
}

/* The body of a fusion instruction i (its first called computation), or
 * PV_HLO_NONE. */
uint32_t pv_hlo_index_fused(const pv_hlo_index *x, uint32_t i);

/* "file:line:column\n" per frame of the call stack whose innermost frame
 * is frame (1-based into mod's frames), innermost first; "" for none.
 * Arena-allocated. */
const char *pv_hlo_frame_stack(const pv_hlo_module *mod, int32_t frame, pv_arena *a);

#endif
