/* hlo_fixture: building HloProtos by hand for the XLA tools' tests:
 * shapes, instructions, a packed module, and a model whose metadata plane
 * carries it as a program. The protos are packed by protobuf-c's own
 * packer, so what a test expects is what it packed. */
#ifndef PV_TESTS_HLO_FIXTURE_H
#define PV_TESTS_HLO_FIXTURE_H

#include "hlo.pb-c.h"
#include "ingest/ingest.h"
#include "model/builder.h"
#include "model_fixture.h"

#include <check.h>

/* One packed HloProto. */
typedef struct hx_packed {
    uint8_t b[16384];
    size_t n;
} hx_packed;

/* An array shape with a default layout, in s (and its layout in l). */
static inline Xla__ShapeProto *hx_array(Xla__ShapeProto *s, Xla__LayoutProto *l, int type,
                                        const int64_t *dims, size_t n, const int64_t *minor)
{
    xla__layout_proto__init(l);
    l->minor_to_major = (int64_t *)minor;
    l->n_minor_to_major = n;
    xla__shape_proto__init(s);
    s->element_type = type;
    s->dimensions = (int64_t *)dims;
    s->n_dimensions = n;
    s->layout = n > 0 ? l : NULL;
    return s;
}

/* A tuple shape of n packed elements (each packed into buf[i]). */
static inline Xla__ShapeProto *hx_tuple(Xla__ShapeProto *t, ProtobufCBinaryData *elems,
                                        uint8_t (*buf)[64], Xla__ShapeProto *const *of, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_le(xla__shape_proto__get_packed_size(of[i]), sizeof buf[i]);
        elems[i] = (ProtobufCBinaryData){xla__shape_proto__pack(of[i], buf[i]), buf[i]};
    }
    xla__shape_proto__init(t);
    t->element_type = XLA__PRIMITIVE_TYPE__TUPLE;
    t->tuple_shapes = elems;
    t->n_tuple_shapes = n;
    return t;
}

static inline Xla__HloInstructionProto *hx_instr(Xla__HloInstructionProto *in, const char *name,
                                                 const char *opcode, int64_t id,
                                                 Xla__ShapeProto *shape, int64_t *operands,
                                                 size_t n_operands)
{
    xla__hlo_instruction_proto__init(in);
    in->name = (char *)name;
    in->opcode = (char *)opcode;
    in->id = id;
    in->shape = shape;
    in->operand_ids = operands;
    in->n_operand_ids = n_operands;
    return in;
}

static inline Xla__HloComputationProto *hx_comp(Xla__HloComputationProto *c, const char *name,
                                                int64_t id, int64_t root,
                                                Xla__HloInstructionProto **instrs, size_t n)
{
    xla__hlo_computation_proto__init(c);
    c->name = (char *)name;
    c->id = id;
    c->root_id = root;
    c->instructions = instrs;
    c->n_instructions = n;
    return c;
}

/* HloProto{module name, computations, entry} packed. */
static inline hx_packed hx_pack(const char *name, Xla__HloComputationProto **comps, size_t n,
                                int64_t entry)
{
    Xla__HloModuleProto mod = XLA__HLO_MODULE_PROTO__INIT;
    mod.name = (char *)name;
    mod.entry_computation_id = entry;
    mod.computations = comps;
    mod.n_computations = n;
    Xla__HloProto proto = XLA__HLO_PROTO__INIT;
    proto.hlo_module = &mod;
    hx_packed out;
    ck_assert_uint_le(xla__hlo_proto__get_packed_size(&proto), sizeof out.b);
    out.n = xla__hlo_proto__pack(&proto, out.b);
    return out;
}

/* Adds p as program_id's proto to the /host:metadata plane md (metadata
 * id meta_id, with a program_id stat). */
static inline void hx_program(pv_model_builder *b, uint32_t md, int64_t meta_id,
                              uint64_t program_id, const hx_packed *p)
{
    uint32_t meta = pv_builder_meta(b, md, meta_id, "program", NULL);
    pv_builder_meta_stat(b, meta, (pv_stat){pv_builder_intern_cstr(b, "Hlo Proto"),
                                            PV_STAT_BYTES,
                                            {.blob = pv_builder_blob(b, p->b, p->n)}});
    pv_builder_meta_stat(b, meta, (pv_stat){pv_builder_intern_cstr(b, "program_id"),
                                            PV_STAT_U64, {.u64 = program_id}});
}

#endif
