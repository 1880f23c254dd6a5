/* hlo_text: an HLO instruction, computation or module as XLA prints it.
 *
 * The instruction's text is what XProf shows as an op's "expression"
 * (xla::HloInstruction::ToString without metadata and backend config,
 * operand shapes printed): "%fusion.3 = f32[8]{0} fusion(f32[8]{0}
 * %p.1), kind=kLoop, calls=%fused_computation". A module's text is the
 * download of graph_viewer: every computation, callees first, entry last,
 * instructions in the proto's order, the root marked ROOT; without
 * backend configs, metadata and the module header's layouts, which the
 * table does not keep.
 *
 * Covers the attributes of the opcodes JAX programs compile to on GPUs
 * and TPUs (fusions, custom calls, convolutions, dots, reductions,
 * slices, pads, collectives, control flow); an attribute the table does
 * not keep (sharding, frontend attributes) is not printed.
 *
 * Pure; output appended to a pv_buf (whose cap bounds it). */
#ifndef PV_TOOLS_HLO_HLO_TEXT_H
#define PV_TOOLS_HLO_HLO_TEXT_H

#include "tools/hlo/hlo_index.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdbool.h>

typedef struct pv_hlo_print {
    bool operand_shapes;   /* "f32[8]{0} %p" rather than "%p" */
    bool percent;          /* names with their "%" */
} pv_hlo_print;

/* Appends instruction i's text (no "ROOT", no newline). Returns 0, or
 * PV_ETOOBIG when out is full. */
int pv_hlo_text_instr(const pv_hlo_index *x, uint32_t i, const pv_hlo_print *p, pv_buf *out);

/* Appends module k's text (computations, then a newline each). Returns 0,
 * or PV_ETOOBIG when out is full. */
int pv_hlo_text_module(const pv_hlo_index *x, uint32_t k, const pv_hlo_print *p, pv_buf *out);

/* The shape text without layouts ("f32[8]{0}" -> "f32[8]"), as XLA prints
 * a computation's signature, appended. Returns 0 or PV_ETOOBIG. */
int pv_hlo_text_shape_no_layout(const char *shape, pv_buf *out);

#endif
