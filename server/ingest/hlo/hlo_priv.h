/* hlo_priv: what the HLO decoder's files share (hlo_decode.c decodes modules,
 * computations and instructions; hlo_proto_text.c writes a shape, a constant's
 * value and replica groups as XLA prints them; hlo_attrs.c copies an
 * instruction's attributes; hlo_buffers.c reads a program's buffer
 * assignment). Inside server/ingest/hlo/ only. */
#ifndef PV_INGEST_HLO_HLO_PRIV_H
#define PV_INGEST_HLO_HLO_PRIV_H

#include "hlo.pb-c.h"
#include "ingest/pb_arena.h"
#include "model/hlo_table.h"
#include "util/buf.h"

#include <stdbool.h>

/* protobuf-c unpacks a nested message by recursing, with no depth limit
 * of its own: tuple shapes are declared bytes (proto/hlo.proto) and
 * nested here, at most this deep. XLA's own shapes nest a few levels. */
#define PV__HLO_SHAPE_MAX_DEPTH 64
/* The longest text kept for one shape or constant; a real one is well
 * under a kilobyte. */
#define PV__HLO_TEXT_MAX_BYTES ((size_t)1 << 20)

/* Appends s as XLA prints a shape with its layout ("f32[8,<=128]{1,0}",
 * "f32[]{:T(128)S(1)}", "(f32[], /\*index=5\*\/s32[2])"). pa unpacks the
 * tuple elements. False when it does not fit t's cap, nests deeper than
 * PV__HLO_SHAPE_MAX_DEPTH, or a tuple element does not parse. */
bool pv__hlo_shape_text(pv_buf *t, pv_pb_arena *pa, const Xla__ShapeProto *s, int depth);

/* Appends a constant's value as XLA prints it in the instruction's text
 * (no shape): a scalar "0", "1.5", "true"; an array of at most ten
 * elements "{1, 2}"; a longer one "{...}". False when the value lists
 * fewer elements than the shape has, or t is full. */
bool pv__hlo_literal_text(pv_buf *t, const Xla__LiteralProto *l);

/* Appends the replica groups of a collective: "{{0,1},{2,3}}", or the
 * iota form "[4,2]<=[2,4]T(1,0)"; "{}" when there are none. False when
 * t is full. */
bool pv__hlo_replica_groups_text(pv_buf *t, const Xla__HloInstructionProto *r);

/* The attributes of r that XLA prints after its operands or a cost model
 * reads, copied into a (text through t as scratch); NULL when r has
 * none. *ok is false when one does not read (a constant, a shape). */
const pv_hlo_attrs *pv__hlo_attrs(pv_arena *a, pv_buf *t, const Xla__HloInstructionProto *r,
                                  bool *ok);

/* The first `Hlo Proto` bytes of program_id among m's metadata planes (the
 * one the table's module came from), or NULL. */
const pv_blob *pv__hlo_proto_of(const pv_model *m, uint64_t program_id);

#endif
