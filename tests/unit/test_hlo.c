/* Tests of the model's HLO table (model/hlo_table.h) and its decoder
 * (ingest/hlo/hlo_decode.c): protos packed by protobuf-c's own packer, so the
 * expected values are what was packed and the shape texts follow XLA's
 * rules (element type in lower case, dimensions, "<=" before a dynamic
 * one, {minor-to-major} for an array with a layout, tuples in brackets);
 * hostile protos (cut short, tuples nested too deep) left out and
 * counted; the decoder run once however many threads ask; a model saved
 * to the disk cache and loaded again given the decoder back; and the
 * real JAX profiles against counts from protoc (see test_hlo_real). */
#include "cache/disk.h"
#include "cache/store.h"
#include "hlo.pb-c.h"
#include "ingest/ingest.h"
#include "model/hlo_table.h"
#include "model/serialize.h"
#include "model_fixture.h"
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- packed protos ---------------------------------------------------------------- */

/* A proto of 8 KiB at most, packed by protobuf-c. */
typedef struct packed {
    uint8_t b[8192];
    size_t n;
} packed;

/* HloProto{module {name, computations}} packed by protobuf-c. */
static packed pack_module(Xla__HloModuleProto *mod, Xla__HloComputationProto **comps,
                          size_t n)
{
    mod->computations = comps;
    mod->n_computations = n;
    Xla__HloProto proto = XLA__HLO_PROTO__INIT;
    proto.hlo_module = mod;
    packed out;
    ck_assert_uint_le(xla__hlo_proto__get_packed_size(&proto), sizeof out.b);
    out.n = xla__hlo_proto__pack(&proto, out.b);
    return out;
}

/* HloProto{module "jit_f" (id 3, entry computation 2):
 *   fused_computation (id 1): param_0 (id 1, f32[8,128]{1,0}),
 *       add.1 (id 2, operands 1 1, metadata add / jit(f)/add / /src/f.py:12)
 *   main (id 2): p (id 3), fusion.1 (id 4, operand 3, calls 1,
 *       shape (f32[8,128]{1,0}, s32[<=4]))} */
static packed jit_f_proto(void)
{
    int64_t dims[2] = {8, 128}, minor[2] = {1, 0}, four[1] = {4};
    protobuf_c_boolean dynamic[1] = {1};
    Xla__LayoutProto layout = XLA__LAYOUT_PROTO__INIT;
    layout.minor_to_major = minor;
    layout.n_minor_to_major = 2;
    Xla__ShapeProto f32 = XLA__SHAPE_PROTO__INIT;
    f32.element_type = XLA__PRIMITIVE_TYPE__F32;
    f32.dimensions = dims;
    f32.n_dimensions = 2;
    f32.layout = &layout;
    Xla__ShapeProto s32 = XLA__SHAPE_PROTO__INIT;
    s32.element_type = XLA__PRIMITIVE_TYPE__S32;
    s32.dimensions = four;
    s32.n_dimensions = 1;
    s32.is_dynamic_dimension = dynamic;
    s32.n_is_dynamic_dimension = 1;
    uint8_t e0[64], e1[64];
    ProtobufCBinaryData elems[2] = {{xla__shape_proto__pack(&f32, e0), e0},
                                    {xla__shape_proto__pack(&s32, e1), e1}};
    Xla__ShapeProto tuple = XLA__SHAPE_PROTO__INIT;
    tuple.element_type = XLA__PRIMITIVE_TYPE__TUPLE;
    tuple.tuple_shapes = elems;
    tuple.n_tuple_shapes = 2;

    Xla__OpMetadata meta = XLA__OP_METADATA__INIT;
    meta.op_type = "add";
    meta.op_name = "jit(f)/add";
    meta.source_file = "/src/f.py";
    meta.source_line = 12;
    int64_t ones[2] = {1, 1}, three[1] = {3}, comp1[1] = {1};
    Xla__HloInstructionProto param0 = XLA__HLO_INSTRUCTION_PROTO__INIT;
    param0.name = "param_0";
    param0.opcode = "parameter";
    param0.id = 1;
    param0.shape = &f32;
    Xla__HloInstructionProto add = XLA__HLO_INSTRUCTION_PROTO__INIT;
    add.name = "add.1";
    add.opcode = "add";
    add.id = 2;
    add.shape = &f32;
    add.operand_ids = ones;
    add.n_operand_ids = 2;
    add.metadata = &meta;
    Xla__HloInstructionProto p = XLA__HLO_INSTRUCTION_PROTO__INIT;
    p.name = "p";
    p.opcode = "parameter";
    p.id = 3;
    Xla__HloInstructionProto fusion = XLA__HLO_INSTRUCTION_PROTO__INIT;
    fusion.name = "fusion.1";
    fusion.opcode = "fusion";
    fusion.id = 4;
    fusion.operand_ids = three;
    fusion.n_operand_ids = 1;
    fusion.called_computation_ids = comp1;
    fusion.n_called_computation_ids = 1;
    fusion.shape = &tuple;
    Xla__HloInstructionProto *fused_instrs[2] = {&param0, &add}, *main_instrs[2] = {&p, &fusion};
    Xla__HloComputationProto fused = XLA__HLO_COMPUTATION_PROTO__INIT;
    fused.name = "fused_computation";
    fused.id = 1;
    fused.instructions = fused_instrs;
    fused.n_instructions = 2;
    Xla__HloComputationProto main_comp = XLA__HLO_COMPUTATION_PROTO__INIT;
    main_comp.name = "main";
    main_comp.id = 2;
    main_comp.instructions = main_instrs;
    main_comp.n_instructions = 2;
    Xla__HloComputationProto *comps[2] = {&fused, &main_comp};
    Xla__HloModuleProto mod = XLA__HLO_MODULE_PROTO__INIT;
    mod.name = "jit_f";
    mod.id = 3;
    mod.entry_computation_id = 2;
    return pack_module(&mod, comps, 2);
}

/* One instruction "t" whose shape is a scalar inside `depth` tuples. */
static packed nested_tuple_proto(int depth)
{
    uint8_t level[2][4096];
    Xla__ShapeProto s = XLA__SHAPE_PROTO__INIT;
    s.element_type = XLA__PRIMITIVE_TYPE__F32;
    size_t n = xla__shape_proto__pack(&s, level[0]);
    for (int d = 0; d < depth; d++) {
        ProtobufCBinaryData inner = {n, level[d % 2]};
        Xla__ShapeProto t = XLA__SHAPE_PROTO__INIT;
        t.element_type = XLA__PRIMITIVE_TYPE__TUPLE;
        t.tuple_shapes = &inner;
        t.n_tuple_shapes = 1;
        ck_assert_uint_le(xla__shape_proto__get_packed_size(&t), sizeof level[0]);
        n = xla__shape_proto__pack(&t, level[(d + 1) % 2]);
    }
    ProtobufCMessage *shape = protobuf_c_message_unpack(&xla__shape_proto__descriptor, NULL, n,
                                                        level[depth % 2]);
    ck_assert_ptr_nonnull(shape);
    Xla__HloInstructionProto in = XLA__HLO_INSTRUCTION_PROTO__INIT;
    in.name = "t";
    in.shape = (Xla__ShapeProto *)shape;
    Xla__HloInstructionProto *instrs[1] = {&in};
    Xla__HloComputationProto comp = XLA__HLO_COMPUTATION_PROTO__INIT;
    comp.instructions = instrs;
    comp.n_instructions = 1;
    Xla__HloComputationProto *comps[1] = {&comp};
    Xla__HloModuleProto mod = XLA__HLO_MODULE_PROTO__INIT;
    mod.name = "deep";
    packed out = pack_module(&mod, comps, 1);
    protobuf_c_message_free_unpacked(shape, NULL);
    return out;
}

/* ---- models ----------------------------------------------------------------------- */

static void hlo_stat(pv_model_builder *b, uint32_t meta, const uint8_t *p, size_t n)
{
    uint32_t s_hlo = pv_builder_intern_cstr(b, "Hlo Proto");
    pv_builder_meta_stat(b, meta, (pv_stat){s_hlo, PV_STAT_BYTES,
                                           {.blob = pv_builder_blob(b, p, n)}});
}

/* /host:metadata: program 7 jit_f, 5 jit_f cut by a byte, 9 a tuple 65
 * deep, 8 one 64 deep (the most that is read), 11 an empty proto; a
 * /host:CPU event metadata with jit_f is not a program. No decoder. */
static pv_model *programs_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t md = pv_builder_plane(b, 0, "/host:metadata");
    uint32_t cpu = pv_builder_plane(b, 1, "/host:CPU");
    packed f = jit_f_proto(), deep = nested_tuple_proto(65), deepest = nested_tuple_proto(64);
    hlo_stat(b, pv_builder_meta(b, md, 11, "empty(11)", NULL), (const uint8_t *)"", 0);
    hlo_stat(b, pv_builder_meta(b, md, 7, "jit_f(7)", NULL), f.b, f.n);
    hlo_stat(b, pv_builder_meta(b, md, 5, "jit_f(5)", NULL), f.b, f.n - 1);
    hlo_stat(b, pv_builder_meta(b, md, 9, "deep(9)", NULL), deep.b, deep.n);
    hlo_stat(b, pv_builder_meta(b, md, 8, "deep(8)", NULL), deepest.b, deepest.n);
    hlo_stat(b, pv_builder_meta(b, cpu, 6, "host op", NULL), f.b, f.n);
    return pv_test_finish(b);
}

static void check_jit_f(const pv_hlo_table *t, const pv_hlo_module *mod)
{
    ck_assert_str_eq(mod->name, "jit_f");
    ck_assert_int_eq(mod->id, 3);
    ck_assert_int_eq(mod->entry_computation_id, 2);
    ck_assert_uint_eq(mod->n_computations, 2);
    const pv_hlo_computation *fused = &t->computations[mod->first_computation];
    const pv_hlo_computation *main_comp = fused + 1;
    ck_assert_str_eq(fused->name, "fused_computation");
    ck_assert_int_eq(fused->id, 1);
    ck_assert_uint_eq(fused->module, (uint32_t)(mod - t->modules));
    ck_assert_uint_eq(fused->n_instructions, 2);
    ck_assert_str_eq(main_comp->name, "main");
    ck_assert_uint_eq(main_comp->first_instruction, fused->first_instruction + 2);
    const pv_hlo_instruction *in = &t->instructions[fused->first_instruction];
    ck_assert_str_eq(in[0].name, "param_0");
    ck_assert_str_eq(in[0].opcode, "parameter");
    ck_assert_str_eq(in[0].shape, "f32[8,128]{1,0}");
    ck_assert_str_eq(in[0].op_name, "");
    ck_assert_uint_eq(in[0].n_operands, 0);
    ck_assert_str_eq(in[1].name, "add.1");
    ck_assert_int_eq(in[1].id, 2);
    ck_assert_uint_eq(in[1].n_operands, 2);
    ck_assert_int_eq(in[1].operand_ids[0], 1);
    ck_assert_int_eq(in[1].operand_ids[1], 1);
    ck_assert_str_eq(in[1].op_type, "add");
    ck_assert_str_eq(in[1].op_name, "jit(f)/add");
    ck_assert_str_eq(in[1].source_file, "/src/f.py");
    ck_assert_int_eq(in[1].source_line, 12);
    ck_assert_uint_eq(in[1].computation, mod->first_computation);
    ck_assert_str_eq(in[2].name, "p");
    ck_assert_str_eq(in[2].shape, "");   /* none in the proto */
    ck_assert_str_eq(in[3].name, "fusion.1");
    ck_assert_str_eq(in[3].shape, "(f32[8,128]{1,0}, s32[<=4])");
    ck_assert_uint_eq(in[3].n_called, 1);
    ck_assert_int_eq(in[3].called_ids[0], 1);
    ck_assert_uint_eq(in[3].computation, mod->first_computation + 1);
}

START_TEST(test_pv_ingest_hlo_decode_programs)
{
    pv_model *m = programs_model();
    /* without a decoder the protos stay bytes */
    ck_assert_uint_eq(pv_model_hlo(m)->n_modules, 0);
    pv_model_free(m);

    m = programs_model();
    pv_ingest_attach(m);
    const pv_hlo_table *t = pv_model_hlo(m);
    ck_assert_uint_eq(t->n_bad, 2);   /* 5 cut short, 9 nested too deep */
    ck_assert_uint_eq(t->bad[0].program_id, 5);
    ck_assert_uint_eq(t->bad[1].program_id, 9);
    ck_assert_ptr_nonnull(strstr(t->bad[0].reason, "does not parse"));
    ck_assert_str_eq(pv_hlo_bad_reason(t, 5), t->bad[0].reason);
    ck_assert_ptr_null(pv_hlo_bad_reason(t, 7));
    ck_assert_uint_eq(t->n_modules, 3);
    ck_assert_uint_eq(t->modules[0].program_id, 7);   /* sorted by program id */
    ck_assert_uint_eq(t->modules[1].program_id, 8);
    ck_assert_uint_eq(t->modules[2].program_id, 11);
    ck_assert_uint_eq(t->n_computations, 3);          /* jit_f 2, deep 1, empty 0 */
    ck_assert_uint_eq(t->n_instructions, 5);
    check_jit_f(t, &t->modules[0]);
    const pv_hlo_instruction *deepest =
        &t->instructions[t->computations[t->modules[1].first_computation].first_instruction];
    ck_assert_uint_eq(strlen(deepest->shape), 64 + strlen("f32[]") + 64);
    ck_assert_str_eq(t->modules[2].name, "");
    ck_assert_uint_eq(t->modules[2].n_computations, 0);
    ck_assert_ptr_eq(pv_hlo_module_find(t, 7), &t->modules[0]);
    ck_assert_ptr_eq(pv_hlo_module_find(t, 11), &t->modules[2]);
    ck_assert_ptr_null(pv_hlo_module_find(t, 5));
    ck_assert_ptr_null(pv_hlo_module_find(t, 6));
    ck_assert_ptr_null(pv_hlo_module_find(t, 12));
    ck_assert_ptr_eq(pv_model_hlo(m), t);   /* decoded once, kept */
    pv_model_free(m);
}
END_TEST

/* ---- once, from many threads -------------------------------------------------------- */

static atomic_int decodes;

static void counting_decode(const pv_model *m, pv_arena *a, pv_hlo_table *out)
{
    atomic_fetch_add(&decodes, 1);
    pv_ingest_hlo_decode(m, a, out);
}

static void *ask(void *m)
{
    return (void *)pv_model_hlo(m);
}

START_TEST(test_pv_model_hlo_once)
{
    pv_model *m = programs_model();
    pv_model_set_hlo_decoder(m, counting_decode, NULL);
    atomic_store(&decodes, 0);
    pthread_t th[8];
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, ask, m), 0);
    void *got[8];
    for (int i = 0; i < 8; i++)
        pthread_join(th[i], &got[i]);
    ck_assert_int_eq(atomic_load(&decodes), 1);
    for (int i = 1; i < 8; i++)
        ck_assert_ptr_eq(got[i], got[0]);
    ck_assert_uint_eq(((const pv_hlo_table *)got[0])->n_modules, 3);
    pv_model_free(m);
}
END_TEST

/* ---- a model saved and loaded --------------------------------------------------------- */

#define JAX_TRAIN PV_SRCDIR "/tests/data/reference/jax_train/plugins/profile/" \
                            "2026_11_29_17_36_39/vm.xplane.pb"

/* The counts of JAX_TRAIN's HLO protos by protoc, independent of
 * protobuf-c and of this decoder: `protoc --decode_raw < vm.xplane.pb`,
 * counting the messages at field paths planes 1 / event_metadata 4 /
 * value 2 / stats 5 / bytes_value 6 / hlo_module 1 (modules with
 * computations), ... / computations 3, ... / instructions 2. */
#define JAX_TRAIN_MODULES 16
#define JAX_TRAIN_COMPUTATIONS 119
#define JAX_TRAIN_INSTRUCTIONS 1742

START_TEST(test_pv_model_hlo_saved_model)
{
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_file(JAX_TRAIN, NULL, &m, &err), 0);
    ck_assert_uint_eq(pv_model_hlo(m)->n_instructions, JAX_TRAIN_INSTRUCTIONS);
    char path[64];
    snprintf(path, sizeof path, "/tmp/pv-test-hlo-%ld.pvm", (long)getpid());
    ck_assert_int_eq(pv_model_save(m, path, &err), 0);
    pv_model_free(m);
    ck_assert_int_eq(pv_model_load(path, JAX_TRAIN, &m, &err), 0);
    ck_assert_uint_eq(pv_model_hlo(m)->n_modules, 0);   /* the file has no hook */
    pv_model_free(m);
    ck_assert_int_eq(pv_model_load(path, JAX_TRAIN, &m, &err), 0);
    pv_ingest_attach(m);
    const pv_hlo_table *t = pv_model_hlo(m);
    ck_assert_uint_eq(t->n_modules, JAX_TRAIN_MODULES);
    ck_assert_uint_eq(t->n_computations, JAX_TRAIN_COMPUTATIONS);
    ck_assert_uint_eq(t->n_instructions, JAX_TRAIN_INSTRUCTIONS);
    ck_assert_uint_eq(t->n_bad, 0);
    pv_model_free(m);
    unlink(path);
}
END_TEST

/* Through the cache store: the second store finds the first one's saved
 * model and loads it, and its model decodes HLO like a decoded one. */
START_TEST(test_pv_model_hlo_store_loads_saved_model)
{
    char dir[] = "/tmp/pv-test-hlo-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    pv_disk_cache disk;
    pv_disk_cache_init(&disk, dir, PV_DISK_CACHE_MAX_AUTO);
    struct stat st;
    ck_assert_int_eq(stat(JAX_TRAIN, &st), 0);
    pv_source src = pv_source_file(JAX_TRAIN, NULL, pv_file_id_of(&st));
    for (int round = 0; round < 2; round++) {
        pv_model_store *s = pv_model_store_new(0, &disk, NULL);
        const pv_model *m;
        pv_model_entry *e;
        ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, NULL), 0);
        const pv_hlo_table *t = pv_model_hlo(m);
        ck_assert_uint_eq(t->n_modules, JAX_TRAIN_MODULES);
        ck_assert_uint_eq(t->n_instructions, JAX_TRAIN_INSTRUCTIONS);
        pv_model_store_put(s, e);
        char *saved = pv_model_store_saved(s, &src);
        pv_model_store_free(s);   /* waits for the loader, which saves the model */
        if (round == 1) {
            ck_assert_ptr_nonnull(saved);
            ck_assert_int_eq(access(saved, R_OK), 0);
        }
        free(saved);
    }
    pv_disk_cache_fini(&disk);
    pv_test_remove_tree(dir);
}
END_TEST

/* ---- the real JAX profiles ---------------------------------------------------------- */

START_TEST(test_hlo_real)
{
    PV_NEED_TESTDATA("test_hlo_real");
    /* the counts protoc gives, as for JAX_TRAIN above */
    static const struct {
        const char *path;
        size_t modules, computations, instructions;
    } files[] = {
        {"/logdirs/jax_tpu_v6e_inference/plugins/profile/tpu_inference/"
         "tpu_inference_2.xplane.pb", 4, 8, 43},
        {"/logdirs/jax_rocm_mi300/plugins/profile/jax08_gemm/tw003.xplane.pb", 16, 28, 68},
        {"/logdirs/jax_rocm_mi300/plugins/profile/jax_conv_minimal_08/tw003.xplane.pb", 8, 27,
         850},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", PV_TESTDATA, files[i].path);
        pv_model *m = NULL;
        pv_error err = {0};
        ck_assert_int_eq(pv_ingest_file(path, NULL, &m, &err), 0);
        const pv_hlo_table *t = pv_model_hlo(m);
        ck_assert_uint_eq(t->n_modules, files[i].modules);
        ck_assert_uint_eq(t->n_computations, files[i].computations);
        ck_assert_uint_eq(t->n_instructions, files[i].instructions);
        ck_assert_uint_eq(t->n_bad, 0);
        pv_model_free(m);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hlo");
    TCase *tc = tcase_create("pv_ingest_hlo_decode");
    tcase_add_test(tc, test_pv_ingest_hlo_decode_programs);
    tcase_add_test(tc, test_hlo_real);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_model_hlo");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pv_model_hlo_once);
    tcase_add_test(tc, test_pv_model_hlo_saved_model);
    tcase_add_test(tc, test_pv_model_hlo_store_loads_saved_model);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
