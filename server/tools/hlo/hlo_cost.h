/* hlo_cost: what an XLA instruction costs per run, for GPU profiles, whose
 * traces carry no cost (a TPU's carry their own: tools/hlo/xla_ops.c reads
 * those), and the category XProf files it under.
 *
 * The model is XLA's device-independent cost analysis with its GPU rules
 * for memory traffic, as XProf 2.24.2 runs it on a GPU profile's HLO:
 *  - flops: one per output element of an elementwise op (none for a
 *    transcendental one: XLA counts those apart), 2*M*N*K for a dot and
 *    for a cuBLAS GEMM custom call, 2 * output elements * kernel window *
 *    input features per group for a convolution (also a cuDNN one), one
 *    per reduced input element for a reduction, a fusion the sum of its
 *    body's instructions; data movement (copy, broadcast, transpose,
 *    slice, ...) none;
 *  - bytes: a fusion reads each of its parameters once at most (a part of
 *    it when its body only slices it) and writes its output; any other
 *    instruction reads its operands and writes its output; a custom call
 *    writes only the first element of a tuple output whose last element
 *    is its byte workspace (cuBLAS, cuDNN).
 * XLA's GPU model charges an elementwise op the cycles its per-GPU op
 * table lists (a bf16 sine costs hundreds of flops on a gfx942); profview
 * does not carry that table, so the flops of elementwise work are XLA's
 * device-independent count. docs/xla_tools.md lists where this differs.
 *
 * Pure; cannot fail. */
#ifndef PV_TOOLS_HLO_HLO_COST_H
#define PV_TOOLS_HLO_HLO_COST_H

#include "tools/hlo/hlo_index.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct pv_hlo_cost {
    double flops;          /* per run */
    double bytes;          /* bytes read and written per run */
    double hbm_bytes;      /* of those, the ones XProf's GPU model files under
                              HBM: all, but for a cuDNN convolution only its
                              operands (XLA's model moves the result out of
                              the bytes it counts by memory) */
} pv_hlo_cost;

/* The cost of one run of instruction i. */
void pv_hlo_cost_of(const pv_hlo_index *x, uint32_t i, pv_hlo_cost *out);

/* The category XProf files instruction i under (XLA's ToCategory): "loop
 * fusion" (and input / output / custom), "data formatting" for copies and
 * transposes, "non-fusion elementwise", else its opcode. Borrowed: a
 * literal or the table's string. */
const char *pv_hlo_category(const pv_hlo_index *x, uint32_t i);

/* ---- shapes (text as the table keeps it) ------------------------------------ */

/* Elements of an array shape's text ("f32[8,16]{1,0}" -> 128; a tuple's
 * elements summed); 0 for a token or text that does not parse. */
uint64_t pv_hlo_shape_elements(const char *shape);
/* Bytes of the arrays of a shape's text (a tuple's arrays summed). */
uint64_t pv_hlo_shape_bytes(const char *shape);
/* Bits of one element of an element type's name ("bf16" -> 16); 0 when
 * unknown. */
unsigned pv_hlo_type_bits(const char *type, size_t len);

#endif
