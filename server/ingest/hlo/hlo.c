/* hlo: XLA's HloProto into the model's HLO table (model/hlo.h), the
 * decoder pv_model_hlo runs the first time a tool asks.
 *
 * Where the protos are: an XSpace's /host:metadata plane has one event
 * metadata per XLA program, whose id is the program id and whose
 * `Hlo Proto` bytes stat is the program's serialized HloProto. The model
 * keeps those bytes (model->blobs).
 *
 * Fields read (proto/hlo.proto, package xla; the rest is skipped):
 *   HloProto             hlo_module
 *   HloModuleProto       name, computations, id, entry_computation_id
 *   HloComputationProto  name, instructions, id
 *   HloInstructionProto  name, opcode, shape, metadata, id, operand_ids,
 *                        called_computation_ids
 *   OpMetadata           op_type, op_name, source_file, source_line
 *   ShapeProto           element_type, dimensions, tuple_shapes,
 *                        layout.minor_to_major, is_dynamic_dimension
 *
 * Each proto is unpacked with the code protoc-c generates into a scratch
 * arena, under the cap of ingest/pb_arena.h, and copied into the table;
 * the scratch is dropped before the next proto, so a profile's protos are
 * never unpacked side by side. A proto that does not parse, is past the
 * cap, or holds a shape nested deeper than SHAPE_MAX_DEPTH or longer than
 * SHAPE_MAX_BYTES as text, is left out whole and counted. */
#include "ingest/ingest.h"
#include "ingest/pb_arena.h"
#include "hlo.pb-c.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/sort.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* protobuf-c unpacks a nested message by recursing, with no depth limit
 * of its own: tuple shapes are declared bytes (proto/hlo.proto) and
 * nested here, at most this deep. XLA's own shapes nest a few levels. */
#define SHAPE_MAX_DEPTH 64
/* The longest shape text kept; a real one is well under a kilobyte. */
#define SHAPE_MAX_BYTES ((size_t)1 << 20)

typedef Xla__HloInstructionProto instr_msg;
typedef Xla__ShapeProto shape_msg;

/* One proto found in the model. */
typedef struct found {
    uint64_t program_id;
    uint32_t order;          /* where it was found: ties keep this order */
    const pv_blob *blob;
} found;

/* The table being built: growable arrays, moved to the arena at the end. */
typedef struct build {
    pv_arena *a;             /* the table's arena: strings and id arrays */
    pv_hlo_module *mods;
    size_t n_mods, cap_mods;
    pv_hlo_computation *comps;
    size_t n_comps, cap_comps;
    pv_hlo_instruction *instrs;
    size_t n_instrs, cap_instrs;
    pv_buf shape;            /* one shape's text */
} build;

#define GROW(arr, n, cap)                                                   \
    do {                                                                    \
        if ((n) == (cap)) {                                                 \
            (cap) = (cap) != 0 ? 2 * (cap) : 16;                            \
            (arr) = pv_xrealloc((arr), (cap) * sizeof *(arr));              \
        }                                                                   \
    } while (0)

/* A string of the unpacked proto, copied into the table ("" is shared). */
static const char *keep_str(build *b, const char *s)
{
    return s[0] != '\0' ? pv_arena_strdup(b->a, s) : "";
}

/* ---- shapes --------------------------------------------------------------------- */

/* The element type as XLA writes it in a shape: its name in lower case. */
static int add_type(pv_buf *t, int value)
{
    const ProtobufCEnumValue *ev =
        protobuf_c_enum_descriptor_get_value(&xla__primitive_type__descriptor, value);
    if (ev == NULL)
        return pv_buf_addf(t, "type%d", value);
    if (value == XLA__PRIMITIVE_TYPE__OPAQUE_TYPE)
        return pv_buf_adds(t, "opaque");
    if (value == XLA__PRIMITIVE_TYPE__PRIMITIVE_TYPE_INVALID)
        return pv_buf_adds(t, "invalid");
    for (const char *c = ev->name; *c != '\0'; c++) {
        char lower = (char)tolower((unsigned char)*c);
        if (pv_buf_add(t, &lower, 1) != 0)
            return PV_ETOOBIG;
    }
    return 0;
}

/* Appends s as XLA prints a shape with its layout: "f32[8,<=128]{1,0}"
 * (dimensions, "<=" before a dynamic one, minor-to-major order when the
 * array has a layout), "(f32[], s32[2])" for a tuple. False when it does
 * not fit SHAPE_MAX_BYTES, nests deeper than SHAPE_MAX_DEPTH, or a tuple
 * element does not parse. */
static bool add_shape(build *b, pv_pb_arena *pa, const shape_msg *s, int depth)
{
    pv_buf *t = &b->shape;
    if (s->element_type == XLA__PRIMITIVE_TYPE__TUPLE) {
        if (depth >= SHAPE_MAX_DEPTH || pv_buf_adds(t, "(") != 0)
            return false;
        for (size_t i = 0; i < s->n_tuple_shapes; i++) {
            ProtobufCMessage *e;
            if ((i > 0 && pv_buf_adds(t, ", ") != 0) ||
                pv_pb_unpack(pa, &xla__shape_proto__descriptor, s->tuple_shapes[i].data,
                             s->tuple_shapes[i].len, "", &e, NULL) != 0 ||
                !add_shape(b, pa, (const shape_msg *)(const void *)e, depth + 1))
                return false;
        }
        return pv_buf_adds(t, ")") == 0;
    }
    if (add_type(t, s->element_type) != 0 || pv_buf_adds(t, "[") != 0)
        return false;
    for (size_t i = 0; i < s->n_dimensions; i++) {
        bool dynamic = i < s->n_is_dynamic_dimension && s->is_dynamic_dimension[i];
        if (pv_buf_addf(t, "%s%s%lld", i > 0 ? "," : "", dynamic ? "<=" : "",
                        (long long)s->dimensions[i]) != 0)
            return false;
    }
    if (pv_buf_adds(t, "]") != 0)
        return false;
    if (s->n_dimensions == 0 || s->layout == NULL || s->layout->n_minor_to_major == 0)
        return true;
    for (size_t i = 0; i < s->layout->n_minor_to_major; i++) {
        if (pv_buf_addf(t, "%s%lld", i > 0 ? "," : "{",
                        (long long)s->layout->minor_to_major[i]) != 0)
            return false;
    }
    return pv_buf_adds(t, "}") == 0;
}

/* ---- modules ---------------------------------------------------------------------- */

/* n ids copied into the table; NULL when there are none. */
static const int64_t *keep_ids(build *b, const int64_t *ids, size_t n)
{
    if (n == 0)
        return NULL;
    int64_t *out = pv_arena_alloc(b->a, n * sizeof *out);
    memcpy(out, ids, n * sizeof *out);
    return out;
}

static bool add_instruction(build *b, pv_pb_arena *pa, const instr_msg *r, uint32_t comp)
{
    if (r->n_operand_ids > UINT32_MAX || r->n_called_computation_ids > UINT32_MAX)
        return false;
    pv_hlo_instruction in;
    memset(&in, 0, sizeof in);
    in.name = keep_str(b, r->name);
    in.opcode = keep_str(b, r->opcode);
    in.shape = "";
    if (r->shape != NULL) {
        pv_buf_reset(&b->shape);
        if (!add_shape(b, pa, r->shape, 0))
            return false;
        in.shape = b->shape.data != NULL ? keep_str(b, b->shape.data) : "";
    }
    in.op_name = in.op_type = in.source_file = "";
    if (r->metadata != NULL) {
        in.op_name = keep_str(b, r->metadata->op_name);
        in.op_type = keep_str(b, r->metadata->op_type);
        in.source_file = keep_str(b, r->metadata->source_file);
        in.source_line = r->metadata->source_line;
    }
    in.computation = comp;
    in.id = r->id;
    in.operand_ids = keep_ids(b, r->operand_ids, r->n_operand_ids);
    in.n_operands = (uint32_t)r->n_operand_ids;
    in.called_ids = keep_ids(b, r->called_computation_ids, r->n_called_computation_ids);
    in.n_called = (uint32_t)r->n_called_computation_ids;
    GROW(b->instrs, b->n_instrs, b->cap_instrs);
    b->instrs[b->n_instrs++] = in;
    return true;
}

/* The module of one HloProto (an absent module reads as an empty one, a
 * program whose proto holds nothing). */
static bool add_module(build *b, pv_pb_arena *pa, uint64_t program_id,
                       const Xla__HloModuleProto *mod)
{
    if (b->n_comps + (mod != NULL ? mod->n_computations : 0) > UINT32_MAX ||
        b->n_mods >= UINT32_MAX)
        return false;
    pv_hlo_module pm = {program_id, "", 0, 0, (uint32_t)b->n_comps, 0};
    if (mod != NULL) {
        pm.name = keep_str(b, mod->name);
        pm.id = mod->id;
        pm.entry_computation_id = mod->entry_computation_id;
        pm.n_computations = (uint32_t)mod->n_computations;
    }
    for (uint32_t c = 0; c < pm.n_computations; c++) {
        const Xla__HloComputationProto *comp = mod->computations[c];
        if (comp->n_instructions > UINT32_MAX)
            return false;
        pv_hlo_computation pc = {keep_str(b, comp->name), comp->id, (uint32_t)b->n_mods,
                                 (uint32_t)comp->n_instructions, b->n_instrs};
        uint32_t index = (uint32_t)b->n_comps;
        GROW(b->comps, b->n_comps, b->cap_comps);
        b->comps[b->n_comps++] = pc;
        for (size_t i = 0; i < comp->n_instructions; i++) {
            if (!add_instruction(b, pa, comp->instructions[i], index))
                return false;
        }
    }
    GROW(b->mods, b->n_mods, b->cap_mods);
    b->mods[b->n_mods++] = pm;
    return true;
}

/* Adds one proto's module, or nothing (false) when it does not read. */
static bool add_proto(build *b, uint64_t program_id, const pv_blob *blob)
{
    size_t n_mods = b->n_mods, n_comps = b->n_comps, n_instrs = b->n_instrs;
    pv_arena scratch;
    pv_arena_init(&scratch, (size_t)64 << 10);
    pv_pb_arena pa;
    pv_pb_arena_init(&pa, &scratch, pv_pb_arena_cap(blob->len));
    ProtobufCMessage *msg;
    bool ok = pv_pb_unpack(&pa, &xla__hlo_proto__descriptor, blob->data, blob->len, "", &msg,
                           NULL) == 0;
    if (ok) {
        const Xla__HloProto *proto = (const void *)msg;
        ok = add_module(b, &pa, program_id, proto->hlo_module);
    }
    if (!ok) {
        b->n_mods = n_mods;
        b->n_comps = n_comps;
        b->n_instrs = n_instrs;
    }
    pv_arena_fini(&scratch);
    return ok;
}

/* ---- the decoder ------------------------------------------------------------------ */

static int cmp_found(const void *pa, const void *pb)
{
    const found *x = pa, *y = pb;
    if (x->program_id != y->program_id)
        return x->program_id < y->program_id ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The `Hlo Proto` stats of m's metadata planes, sorted by program id. */
static found *find_protos(const pv_model *m, size_t *n)
{
    found *v = NULL;
    size_t cap = 0;
    *n = 0;
    uint32_t hlo_proto = pv_model_str_find(m, "Hlo Proto");
    for (uint32_t i = 0; hlo_proto != 0 && i < m->n_metas; i++) {
        const pv_event_meta *md = &m->metas[i];
        if (m->planes[md->plane].kind != PV_PLANE_METADATA)
            continue;
        for (uint32_t s = 0; s < md->n_stats; s++) {
            const pv_stat *st = &m->stats[md->first_stat + s];
            if (st->name != hlo_proto || st->type != PV_STAT_BYTES || st->v.blob >= m->n_blobs)
                continue;
            GROW(v, *n, cap);
            v[*n] = (found){(uint64_t)md->id, (uint32_t)*n, &m->blobs[st->v.blob]};
            (*n)++;
        }
    }
    pv_sort(v, *n, sizeof *v, cmp_found);
    return v;
}

/* Moves a growable array into the arena (NULL when empty). */
static void *to_arena(pv_arena *a, void *v, size_t n, size_t size)
{
    void *out = NULL;
    if (n > 0) {
        out = pv_arena_alloc(a, n * size);
        memcpy(out, v, n * size);
    }
    free(v);
    return out;
}

void pv_ingest_hlo_decode(const pv_model *m, pv_arena *a, pv_hlo_table *out)
{
    size_t n;
    found *protos = find_protos(m, &n);
    build b;
    memset(&b, 0, sizeof b);
    b.a = a;
    pv_buf_init(&b.shape, SHAPE_MAX_BYTES);
    for (size_t i = 0; i < n; i++) {
        if (!add_proto(&b, protos[i].program_id, protos[i].blob))
            out->n_bad++;
    }
    pv_buf_fini(&b.shape);
    free(protos);
    out->modules = to_arena(a, b.mods, b.n_mods, sizeof *b.mods);
    out->n_modules = b.n_mods;
    out->computations = to_arena(a, b.comps, b.n_comps, sizeof *b.comps);
    out->n_computations = b.n_comps;
    out->instructions = to_arena(a, b.instrs, b.n_instrs, sizeof *b.instrs);
    out->n_instructions = b.n_instrs;
}
