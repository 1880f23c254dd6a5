/* hlo_decode: XLA's HloProto into the model's HLO table (model/hlo_table.h), the
 * decoder pv_model_hlo runs the first time a tool asks.
 *
 * Where the protos are: an XSpace's /host:metadata plane has one event
 * metadata per XLA program, whose `program_id` stat (else its id) is the
 * program id and whose `Hlo Proto` bytes stat is the program's
 * serialized HloProto. The model
 * keeps those bytes (model->blobs).
 *
 * Fields read (proto/hlo.proto, package xla; the rest is skipped):
 *   HloProto             hlo_module
 *   HloModuleProto       name, entry_computation_name, computations, id,
 *                        entry_computation_id,
 *                        stack_frame_index
 *   HloComputationProto  name, instructions, id, root_id
 *   HloInstructionProto  name, opcode, shape, metadata, id, operand_ids,
 *                        called_computation_ids, and the attributes
 *                        hlo_attrs.c lists
 *   OpMetadata           op_type, op_name, source_file, source_line,
 *                        deduplicated_name, stack_frame_id
 *   StackFrameIndexProto file_names, function_names, file_locations,
 *                        stack_frames
 *   ShapeProto           element_type, dimensions, tuple_shapes, layout
 *                        (minor_to_major, tiles, element_size_in_bits,
 *                        memory_space, tail_padding_alignment_in_elements),
 *                        is_dynamic_dimension
 *
 * Each proto is unpacked with the code protoc-c generates into a scratch
 * arena, under the cap of ingest/pb_arena.h, and copied into the table;
 * the scratch is dropped before the next proto, so a profile's protos are
 * never unpacked side by side. A proto that does not parse, is past the
 * cap, or holds a shape nested deeper than PV__HLO_SHAPE_MAX_DEPTH or a
 * shape or constant longer than PV__HLO_TEXT_MAX_BYTES as text, is left
 * out whole and counted. */
#include "ingest/hlo/hlo_priv.h"
#include "ingest/ingest.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

typedef Xla__HloInstructionProto instr_msg;

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
    pv_buf text;             /* scratch for an attribute's text */
    pv_hlo_bad *bad;         /* the protos left out, in program order */
    size_t n_bad, cap_bad;
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
        if (!pv__hlo_shape_text(&b->shape, pa, r->shape, 0))
            return false;
        in.shape = b->shape.len > 0 ? pv_arena_strndup(b->a, b->shape.data, b->shape.len) : "";
    }
    in.op_name = in.op_type = in.source_file = in.deduplicated_name = "";
    if (r->metadata != NULL) {
        in.op_name = keep_str(b, r->metadata->op_name);
        in.op_type = keep_str(b, r->metadata->op_type);
        in.source_file = keep_str(b, r->metadata->source_file);
        in.deduplicated_name = keep_str(b, r->metadata->deduplicated_name);
        in.source_line = r->metadata->source_line;
        in.stack_frame_id = r->metadata->stack_frame_id;
    }
    bool ok;
    in.attrs = pv__hlo_attrs(b->a, &b->text, r, &ok);
    if (!ok)
        return false;
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

/* The module's call stacks; frames whose indices point outside the
 * index read as unknown ("" and 0), so a reader can follow parents
 * without checking them against the proto. */
static void add_frames(build *b, const Xla__StackFrameIndexProto *ix, pv_hlo_module *pm)
{
    if (ix == NULL || ix->n_stack_frames == 0 || ix->n_stack_frames > INT32_MAX)
        return;
    pv_hlo_frame *f = pv_arena_zalloc(b->a, ix->n_stack_frames * sizeof *f);
    for (size_t i = 0; i < ix->n_stack_frames; i++) {
        const Xla__StackFrameIndexProto__StackFrame *sf = ix->stack_frames[i];
        f[i].file = f[i].function = "";
        if (sf->parent_frame_id > 0 && (size_t)sf->parent_frame_id <= ix->n_stack_frames)
            f[i].parent = sf->parent_frame_id;
        if (sf->file_location_id <= 0 || (size_t)sf->file_location_id > ix->n_file_locations)
            continue;
        const Xla__StackFrameIndexProto__FileLocation *loc =
            ix->file_locations[sf->file_location_id - 1];
        if (loc->file_name_id > 0 && (size_t)loc->file_name_id <= ix->n_file_names)
            f[i].file = keep_str(b, ix->file_names[loc->file_name_id - 1]);
        if (loc->function_name_id > 0 && (size_t)loc->function_name_id <= ix->n_function_names)
            f[i].function = keep_str(b, ix->function_names[loc->function_name_id - 1]);
        f[i].line = loc->line;
        f[i].column = loc->column;
    }
    pm->frames = f;
    pm->n_frames = (uint32_t)ix->n_stack_frames;
}

/* The module of one HloProto (an absent module reads as an empty one, a
 * program whose proto holds nothing). */
static bool add_module(build *b, pv_pb_arena *pa, uint64_t program_id,
                       const Xla__HloModuleProto *mod)
{
    if (b->n_comps + (mod != NULL ? mod->n_computations : 0) > UINT32_MAX ||
        b->n_mods >= UINT32_MAX)
        return false;
    pv_hlo_module pm = {program_id, "", "", 0, 0, (uint32_t)b->n_comps, 0, NULL, 0};
    if (mod != NULL) {
        pm.name = keep_str(b, mod->name);
        pm.entry_computation_name = keep_str(b, mod->entry_computation_name);
        pm.id = mod->id;
        pm.entry_computation_id = mod->entry_computation_id;
        pm.n_computations = (uint32_t)mod->n_computations;
        add_frames(b, mod->stack_frame_index, &pm);
    }
    for (uint32_t c = 0; c < pm.n_computations; c++) {
        const Xla__HloComputationProto *comp = mod->computations[c];
        if (comp->n_instructions > UINT32_MAX)
            return false;
        pv_hlo_computation pc = {keep_str(b, comp->name), comp->id,           comp->root_id,
                                 (uint32_t)b->n_mods,         (uint32_t)comp->n_instructions,
                                 b->n_instrs};
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
/* Adds program_id's module, or (leaving the table as it was) notes why
 * its proto was left out. */
static void add_proto(build *b, uint64_t program_id, const pv_blob *blob)
{
    size_t n_mods = b->n_mods, n_comps = b->n_comps, n_instrs = b->n_instrs;
    pv_arena scratch;
    pv_arena_init(&scratch, (size_t)64 << 10);
    pv_pb_arena pa;
    pv_pb_arena_init(&pa, &scratch, pv_pb_arena_cap(blob->len));
    ProtobufCMessage *msg;
    pv_error err = {0};
    const char *reason = NULL;
    if (pv_pb_unpack(&pa, &xla__hlo_proto__descriptor, blob->data, blob->len, "", &msg, &err) !=
        0)
        reason = pv_arena_printf(b->a, "its HLO proto does not parse (%s)", err.reason);
    else if (!add_module(b, &pa, program_id,
                         ((const Xla__HloProto *)(const void *)msg)->hlo_module))
        reason = "its HLO module is malformed (a shape, attribute or count out of range)";
    if (reason != NULL) {
        b->n_mods = n_mods;
        b->n_comps = n_comps;
        b->n_instrs = n_instrs;
        GROW(b->bad, b->n_bad, b->cap_bad);
        b->bad[b->n_bad++] = (pv_hlo_bad){program_id, reason};
    }
    pv_arena_fini(&scratch);
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
    uint32_t program_id = pv_model_str_find(m, "program_id");
    for (uint32_t i = 0; hlo_proto != 0 && i < m->n_metas; i++) {
        const pv_event_meta *md = &m->metas[i];
        if (m->planes[md->plane].kind != PV_PLANE_METADATA)
            continue;
        /* The program id is the metadata's id, unless a program_id stat
         * says otherwise (JAX on CPU numbers the metadata 1, 2, ...). */
        uint64_t prog = (uint64_t)md->id;
        const pv_blob *blob = NULL;
        for (uint32_t s = 0; s < md->n_stats; s++) {
            const pv_stat *st = &m->stats[md->first_stat + s];
            if (st->name == program_id && program_id != 0 &&
                (st->type == PV_STAT_I64 || st->type == PV_STAT_U64))
                prog = st->type == PV_STAT_I64 ? (uint64_t)st->v.i64 : st->v.u64;
            else if (st->name == hlo_proto && st->type == PV_STAT_BYTES &&
                     st->v.blob < m->n_blobs && blob == NULL)
                blob = &m->blobs[st->v.blob];
        }
        if (blob == NULL)
            continue;
        GROW(v, *n, cap);
        v[*n] = (found){prog, (uint32_t)*n, blob};
        (*n)++;
    }
    pv_sort(v, *n, sizeof *v, cmp_found);
    return v;
}

const pv_blob *pv__hlo_proto_of(const pv_model *m, uint64_t program_id)
{
    size_t n;
    found *protos = find_protos(m, &n);
    const pv_blob *blob = NULL;
    for (size_t i = 0; i < n && blob == NULL; i++)
        if (protos[i].program_id == program_id)
            blob = protos[i].blob;
    free(protos);
    return blob;
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
    pv_buf_init(&b.shape, PV__HLO_TEXT_MAX_BYTES);
    pv_buf_init(&b.text, PV__HLO_TEXT_MAX_BYTES);
    for (size_t i = 0; i < n; i++)
        add_proto(&b, protos[i].program_id, protos[i].blob);
    pv_buf_fini(&b.shape);
    pv_buf_fini(&b.text);
    free(protos);
    out->modules = to_arena(a, b.mods, b.n_mods, sizeof *b.mods);
    out->n_modules = b.n_mods;
    out->computations = to_arena(a, b.comps, b.n_comps, sizeof *b.comps);
    out->n_computations = b.n_comps;
    out->instructions = to_arena(a, b.instrs, b.n_instrs, sizeof *b.instrs);
    out->n_instructions = b.n_instrs;
    out->bad = to_arena(a, b.bad, b.n_bad, sizeof *b.bad);
    out->n_bad = b.n_bad;
}
