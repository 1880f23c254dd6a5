/* The memory viewer (and the graph viewer) on a hand-built program whose
 * heap is worked out here step by step (XProf 2.24.2's goldens of every JAX profile are compared
 * by tests/api/compare), and the index's probe for HLO protos on
 * hand-written XSpace bytes.
 *
 * The program: p0 = parameter f32[4096] (16 KiB), fusion.1 f32[8192]
 * (32 KiB, jit(m)/mul at m.py:3), fusion.2 f32[8192], bitcast.4 (shares
 * fusion.2's memory), copy.3 f32[4096] the output.
 * Allocations: 0 parameter {10: p0}; 1 maybe-live-out {40: copy.3};
 * 2 temporary 64 KiB {20: fusion.1 @0, 30: fusion.2 @32768, 35:
 * bitcast.4 @32768}; 3 thread-local 4 bytes {60}.
 * Heap trace: ALLOC 20, ALLOC 30, FREE 20, SHARE 35 with 30, FREE 30,
 * FREE 35. Bytes before each event and at the end:
 *   0, 32768, 65536, 32768, 32768, 32768, 0
 * Peak 65536 at step 1 (after the second event's allocation), live 20
 * and 30. Spans: 20 from 0 to its free at 2; 30 from 1 to 5, when the
 * last of it (35) goes; 35 shares while 30 is live, so has none. */
#include "hlo_fixture.h"
#include "ingest/xspace/xspace.h"
#include "tools/graph_viewer/graph_viewer.h"
#include "tools/hlo/hlo_modules.h"
#include "tools/memory_viewer/memory_viewer.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define KIB16 16384
#define KIB32 32768

typedef struct bytes {
    uint8_t b[16384];
    size_t n;
} bytes;

/* The module, then the buffer assignment as HloProto field 3: two
 * serialized messages concatenated read as one. */
static bytes program_proto(void)
{
    static const int64_t d4096[] = {4096}, d8192[] = {8192}, minor[] = {0};
    Xla__ShapeProto s_small, s_big;
    Xla__LayoutProto l_small, l_big;
    hx_array(&s_small, &l_small, XLA__PRIMITIVE_TYPE__F32, d4096, 1, minor);
    hx_array(&s_big, &l_big, XLA__PRIMITIVE_TYPE__F32, d8192, 1, minor);
    Xla__HloInstructionProto p0, f1, f2, bc, cp;
    int64_t ops1[] = {1}, ops2[] = {2}, ops3[] = {3}, ops4[] = {3};
    hx_instr(&p0, "p0", "parameter", 1, &s_small, NULL, 0);
    hx_instr(&f1, "fusion.1", "fusion", 2, &s_big, ops1, 1);
    Xla__OpMetadata meta = XLA__OP_METADATA__INIT;
    meta.op_name = "jit(m)/mul";
    meta.source_file = "m.py";
    meta.source_line = 3;
    f1.metadata = &meta;
    hx_instr(&f2, "fusion.2", "fusion", 3, &s_big, ops2, 1);
    hx_instr(&bc, "bitcast.4", "bitcast", 5, &s_big, ops4, 1);
    hx_instr(&cp, "copy.3", "copy", 4, &s_small, ops3, 1);
    Xla__HloInstructionProto *instrs[] = {&p0, &f1, &f2, &bc, &cp};
    Xla__HloComputationProto main;
    hx_comp(&main, "main", 1, 4, instrs, 5);
    Xla__HloComputationProto *comps[] = {&main};
    hx_packed mod = hx_pack("jit_m", comps, 1, 1);

    Xla__LogicalBufferProto lb[6];
    Xla__LogicalBufferProto__Location at[6];
    const int64_t ids[6] = {10, 20, 30, 35, 40, 60}, instr[6] = {1, 2, 3, 5, 4, 2};
    const int64_t sizes[6] = {KIB16, KIB32, KIB32, KIB32, KIB16, 4};
    Xla__LogicalBufferProto *lbp[6];
    for (int i = 0; i < 6; i++) {
        xla__logical_buffer_proto__init(&lb[i]);
        xla__logical_buffer_proto__location__init(&at[i]);
        at[i].instruction_id = instr[i];
        lb[i].id = ids[i];
        lb[i].size = sizes[i];
        lb[i].defined_at = &at[i];
        lbp[i] = &lb[i];
    }
    Xla__BufferAllocationProto__Assigned as[6];
    const int64_t as_id[6] = {10, 40, 20, 30, 35, 60}, as_off[6] = {0, 0, 0, KIB32, KIB32, 0};
    Xla__BufferAllocationProto__Assigned *asp[6];
    for (int i = 0; i < 6; i++) {
        xla__buffer_allocation_proto__assigned__init(&as[i]);
        as[i].logical_buffer_id = as_id[i];
        as[i].offset = as_off[i];
        as[i].size = sizes[i];
        asp[i] = &as[i];
    }
    Xla__BufferAllocationProto al[4];
    Xla__BufferAllocationProto *alp[4];
    for (int i = 0; i < 4; i++) {
        xla__buffer_allocation_proto__init(&al[i]);
        al[i].index = i;
        alp[i] = &al[i];
    }
    al[0].size = KIB16;
    al[0].is_entry_computation_parameter = true;
    al[0].assigned = &asp[0];
    al[0].n_assigned = 1;
    al[1].size = KIB16;
    al[1].maybe_live_out = true;
    al[1].assigned = &asp[1];
    al[1].n_assigned = 1;
    al[2].size = 2 * KIB32;
    al[2].assigned = &asp[2];
    al[2].n_assigned = 3;
    al[3].size = 4;
    al[3].is_thread_local = true;
    al[3].assigned = &asp[5];
    al[3].n_assigned = 1;
    Xla__HeapSimulatorTrace__Event ev[6];
    Xla__HeapSimulatorTrace__Event *evp[6];
    const int kinds[6] = {0, 0, 1, 2, 1, 1};
    const int64_t ev_buf[6] = {20, 30, 20, 35, 30, 35};
    const char *ev_name[6] = {"fusion.1", "fusion.2", "fusion.2", "bitcast.4", "copy.3",
                              "copy.3"};
    for (int i = 0; i < 6; i++) {
        xla__heap_simulator_trace__event__init(&ev[i]);
        ev[i].kind = kinds[i];
        ev[i].buffer_id = ev_buf[i];
        ev[i].instruction_name = (char *)ev_name[i];
        ev[i].share_with_canonical_id = i == 3 ? 30 : 0;
        evp[i] = &ev[i];
    }
    Xla__HeapSimulatorTrace tr = XLA__HEAP_SIMULATOR_TRACE__INIT;
    tr.events = evp;
    tr.n_events = 6;
    Xla__HeapSimulatorTrace *trp[] = {&tr};
    Xla__BufferAssignmentProto ba = XLA__BUFFER_ASSIGNMENT_PROTO__INIT;
    ba.logical_buffers = lbp;
    ba.n_logical_buffers = 6;
    ba.buffer_allocations = alp;
    ba.n_buffer_allocations = 4;
    ba.heap_simulator_traces = trp;
    ba.n_heap_simulator_traces = 1;
    Xla__HloBufferAssignmentView view = XLA__HLO_BUFFER_ASSIGNMENT_VIEW__INIT;
    view.buffer_assignment = &ba;
    bytes out;
    memcpy(out.b, mod.b, mod.n);
    size_t n = xla__hlo_buffer_assignment_view__get_packed_size(&view);
    ck_assert_uint_le(mod.n + n, sizeof out.b);
    out.n = mod.n + xla__hlo_buffer_assignment_view__pack(&view, out.b + mod.n);
    return out;
}

static pv_model *program_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t md = pv_builder_plane(b, 0, "/host:metadata");
    bytes p = program_proto();
    hx_packed packed;
    memcpy(packed.b, p.b, p.n);
    packed.n = p.n;
    hx_program(b, md, 1, 7, &packed);
    pv_model *m = pv_test_finish(b);
    pv_ingest_attach(m);
    return m;
}

/* program_model's program 7 beside program 9, whose proto is cut short. */
static pv_model *bad_program_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t md = pv_builder_plane(b, 0, "/host:metadata");
    bytes p = program_proto();
    hx_packed packed;
    memcpy(packed.b, p.b, p.n);
    packed.n = p.n;
    hx_program(b, md, 1, 7, &packed);
    packed.n = p.n / 2;
    hx_program(b, md, 2, 9, &packed);
    pv_model *m = pv_test_finish(b);
    pv_ingest_attach(m);
    return m;
}

START_TEST(test_heap_replay)
{
    pv_model *m = program_model();
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_memory_viewer mv;
    pv_error err = {0};
    ck_assert_int_eq(pv_memory_viewer_build(m, 7, 0, &a, &mv, &err), 0);
    ck_assert_str_eq(mv.module_name, "jit_m");
    const int64_t want[] = {0, KIB32, 2 * KIB32, KIB32, KIB32, KIB32, 0};
    ck_assert_uint_eq(mv.n_steps, 7);
    for (size_t i = 0; i < 7; i++)
        ck_assert_int_eq(mv.heap_bytes[i], want[i]);
    ck_assert_str_eq(mv.step_instruction[3], "bitcast.4");
    ck_assert_str_eq(mv.step_instruction[6], "");
    ck_assert_int_eq(mv.peak_bytes, 2 * KIB32);
    ck_assert_int_eq(mv.peak_step, 1);
    /* parameter and output live throughout; the thread-local is not listed */
    ck_assert_int_eq(mv.indefinite_bytes, 2 * KIB16);
    ck_assert_uint_eq(mv.n_indefinite, 2);
    ck_assert(mv.indefinite[0].parameter && mv.indefinite[0].reusable);
    ck_assert(mv.indefinite[1].live_out);
    /* nor counted in the total: XProf 2.24.2's total of jax_train's
     * jit_train_step(30) leaves out its fifteen 4-byte thread-local ones */
    ck_assert_int_eq(mv.total_allocation_bytes, 2 * KIB16 + 2 * KIB32);
    ck_assert_int_eq(mv.non_reusable_bytes, 4);
    ck_assert_int_eq(mv.parameter_bytes, KIB16);
    /* at the peak: p0 and copy.3 (indefinite, first), fusion.1, fusion.2 */
    ck_assert_uint_eq(mv.n_max_heap, 4);
    ck_assert_str_eq(mv.max_heap[0].instruction_name, "p0");
    ck_assert_str_eq(mv.max_heap[0].group, "Parameter");
    ck_assert_str_eq(mv.max_heap[1].group, "Output");
    ck_assert_str_eq(mv.max_heap[2].label, "fusion.1: f32[8192]{0} # jit(m)/mul");
    ck_assert_str_eq(mv.max_heap[2].source.file, "m.py");
    ck_assert_int_eq(mv.max_heap[2].source.line, 3);
    ck_assert_str_eq(mv.max_heap[3].group, "Temporary");
    const uint32_t by_size[] = {2, 3, 0, 1};
    for (size_t i = 0; i < 4; i++)
        ck_assert_uint_eq(mv.by_size[i], by_size[i]);
    ck_assert_uint_eq(mv.n_spans, 2);
    ck_assert_int_eq(mv.spans[0].id, 20);
    ck_assert_int_eq(mv.spans[0].start, 0);
    ck_assert_int_eq(mv.spans[0].limit, 2);
    ck_assert_int_eq(mv.spans[1].id, 30);
    ck_assert_int_eq(mv.spans[1].start, 1);
    ck_assert_int_eq(mv.spans[1].limit, 5);
    /* the chart: the temporary allocation, then its buffers with spans */
    ck_assert_uint_eq(mv.n_blocks, 3);
    ck_assert_int_eq(mv.blocks[0].logical_buffer_id, -1);
    ck_assert_int_eq(mv.blocks[0].end_step, 6);
    ck_assert_int_eq(mv.blocks[2].offset, KIB32);
    ck_assert(mv.blocks[2].peak);
    json_t *j = pv_memory_viewer_json(&mv);
    ck_assert(json_real_value(json_object_get(j, "peakHeapMib")) == 0.09375);
    json_t *live_out = json_array_get(json_object_get(j, "indefiniteLifetimes"), 1);
    json_t *lb = json_array_get(json_object_get(live_out, "logicalBuffers"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(lb, "id")), "40");   /* int64: text */
    json_decref(j);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_module_names)
{
    pv_model *m = program_model();
    pv_arena a;
    pv_arena_init(&a, 1 << 12);
    size_t n;
    const char **names = pv_hlo_module_names(m, &a, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(names[0], "jit_m(7)");
    uint64_t prog = 0;
    ck_assert(pv_hlo_module_program(m, "jit_m(7)", &prog));
    ck_assert_uint_eq(prog, 7);
    ck_assert(pv_hlo_module_program(m, "jit_m", &prog));
    ck_assert(!pv_hlo_module_program(m, "jit_m(8)x", &prog));
    ck_assert(!pv_hlo_module_program(m, "other(7)", &prog));
    pv_memory_viewer mv;
    pv_error err = {0};
    ck_assert_int_eq(pv_memory_viewer_build(m, 8, 0, &a, &mv, &err), PV_ENOTFOUND);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* A module whose proto does not parse is not listed; asked for by its
 * listed name or its program id, the tools say why in words (PV_EFORMAT),
 * not "no such module". */
START_TEST(test_module_query_bad_proto)
{
    pv_model *m = bad_program_model();
    pv_arena a;
    pv_arena_init(&a, 1 << 12);
    size_t n;
    const char **names = pv_hlo_module_names(m, &a, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(names[0], "jit_m(7)");
    static const pv_hlo_module_query asks[] = {
        {"jit_m(9)", 0, false},
        {NULL, 9, true},
    };
    for (size_t i = 0; i < 2; i++) {
        uint64_t prog = 0;
        pv_error err = {0};
        ck_assert_int_eq(pv_hlo_module_query_program(m, &asks[i], &prog, &err), PV_EFORMAT);
        ck_assert_uint_eq(prog, 9);
        ck_assert_msg(strstr(err.reason, "program 9: its HLO proto does not parse") != NULL,
                      "%s", err.reason);
    }
    pv_hlo_module_query good = {"jit_m(7)", 0, false};
    uint64_t prog = 0;
    pv_error err = {0};
    ck_assert_int_eq(pv_hlo_module_query_program(m, &good, &prog, &err), 0);
    ck_assert_uint_eq(prog, 7);
    pv_hlo_module_query absent = {"jit_m(11)", 0, false};
    ck_assert_int_eq(pv_hlo_module_query_program(m, &absent, &prog, &err), PV_ENOTFOUND);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* The graph viewer on the same program: one hop around fusion.2 is its
 * operand fusion.1 and its users bitcast.4 and copy.3; p0, fusion.1's
 * operand, is left out. */
START_TEST(test_graph_neighborhood)
{
    pv_model *m = program_model();
    pv_arena a;
    pv_arena_init(&a, 1 << 14);
    pv_hlo_index x;
    pv_hlo_index_build(m, &a, &x);
    pv_graph_view g;
    pv_error err = {0};
    ck_assert_int_eq(pv_graph_view_build(&x, 0, "fusion.2", 1, &a, &g, &err), 0);
    ck_assert_uint_eq(g.n_nodes, 4);
    ck_assert_str_eq(x.t->instructions[g.nodes[0].instr].name, "fusion.2");
    ck_assert_str_eq(x.t->instructions[g.nodes[1].instr].name, "fusion.1");
    ck_assert_uint_eq(g.nodes[1].hidden_operands, 1);
    ck_assert_uint_eq(g.nodes[0].hidden_operands, 0);
    ck_assert_uint_eq(g.n_edges, 3);
    ck_assert(!g.truncated);
    /* no name: the entry's root, copy.3; two hops reach everything */
    ck_assert_int_eq(pv_graph_view_build(&x, 0, "", 2, &a, &g, &err), 0);
    ck_assert_str_eq(x.t->instructions[g.center].name, "copy.3");
    ck_assert_uint_eq(g.n_nodes, 4);   /* copy.3, fusion.2; fusion.1, bitcast.4 */
    ck_assert_int_eq(pv_graph_view_build(&x, 0, "nope", 2, &a, &g, &err), PV_ENOTFOUND);
    pv_buf dot;
    pv_buf_init(&dot, 1 << 16);
    ck_assert_int_eq(pv_graph_view_build(&x, 0, "fusion.2", 1, &a, &g, &err), 0);
    ck_assert_int_eq(pv_graph_view_dot(&g, &dot), 0);
    ck_assert_ptr_nonnull(strstr(dot.data, "n1 -> n0;"));
    pv_buf_fini(&dot);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- the probe ----------------------------------------------------------------- */

static void put(bytes *w, uint32_t field, const void *p, size_t len)
{
    uint8_t tmp[16];
    size_t k = 0;
    uint64_t v = (uint64_t)field << 3 | 2;
    for (int pass = 0; pass < 2; pass++) {
        while (v >= 0x80) {
            tmp[k++] = (uint8_t)(v | 0x80);
            v >>= 7;
        }
        tmp[k++] = (uint8_t)v;
        v = len;
    }
    memcpy(w->b + w->n, tmp, k);
    memcpy(w->b + w->n + k, p, len);
    w->n += k + len;
}

/* XSpace{planes: [first (a plane name) with a line, /host:metadata with
 * one event metadata and a stat metadata named stat]}. */
static bytes xspace_of(const char *first, const char *stat)
{
    bytes line = {0}, host = {0}, em = {0}, smd = {0}, sentry = {0}, md = {0}, space = {0};
    put(&line, 2, "python", 6);
    put(&host, 2, first, strlen(first));
    put(&host, 3, line.b, line.n);
    put(&em, 2, "jit_f(1)", 8);
    put(&smd, 2, stat, strlen(stat));
    put(&sentry, 2, smd.b, smd.n);
    put(&md, 2, "/host:metadata", 14);
    put(&md, 4, em.b, em.n);
    put(&md, 5, sentry.b, sentry.n);
    put(&space, 1, host.b, host.n);
    put(&space, 1, md.b, md.n);
    return space;
}

static bytes xspace(const char *stat)
{
    return xspace_of("/host:CPU", stat);
}

static unsigned probe(const bytes *x)
{
    char path[] = "/tmp/pv_probe_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, x->b, x->n), (ssize_t)x->n);
    unsigned holds = pv_xspace_probe(fd, x->n);
    close(fd);
    unlink(path);
    return holds;
}

START_TEST(test_probe)
{
    bytes with = xspace("Hlo Proto");
    ck_assert(pv_xspace_sniff(with.b, with.n));
    ck_assert_uint_eq(probe(&with), PV_PROFILE_HLO);
    bytes without = xspace("program_id");
    ck_assert_uint_eq(probe(&without), 0);
    /* a GPU plane is known by its name, "/device:GPU:N" */
    bytes gpu = xspace_of("/device:GPU:0", "Hlo Proto");
    ck_assert_uint_eq(probe(&gpu), PV_PROFILE_HLO | PV_PROFILE_GPU);
    bytes gpu_only = xspace_of("/device:GPU:7", "program_id");
    ck_assert_uint_eq(probe(&gpu_only), PV_PROFILE_GPU);
    bytes tpu = xspace_of("/device:TPU:0", "program_id");
    ck_assert_uint_eq(probe(&tpu), 0);
    /* cut anywhere, it never claims HLO it cannot see */
    for (size_t n = 0; n < with.n; n += 7) {
        bytes cut = with;
        cut.n = n;
        ck_assert_uint_eq(probe(&cut), 0);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("memory_viewer");
    TCase *tc = tcase_create("memory_viewer");
    tcase_add_test(tc, test_heap_replay);
    tcase_add_test(tc, test_module_names);
    tcase_add_test(tc, test_module_query_bad_proto);
    tcase_add_test(tc, test_graph_neighborhood);
    tcase_add_test(tc, test_probe);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
