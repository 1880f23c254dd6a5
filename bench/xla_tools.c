/* bench/xla_tools: time to first answer of the XLA tools, and what
 * decoding the HLO protos costs.
 *
 *   bench/xla_tools FILE.xplane.pb     a real profile (the largest JAX one:
 *                                      ../shared/testdata's TPU inference run)
 *   bench/xla_tools [MODULES [INSTRS]] a generated one: MODULES programs
 *                                      (default 200) of INSTRS fusions each
 *                                      (default 1000), each with its buffer
 *                                      assignment, one kernel per fusion
 *
 * Every tool is asked on a fresh model, as the first request after a load
 * is: the first question decodes the HLO table (model/hlo_table.h), so its time
 * is in the answer's. For each of hlo_stats, op_profile, roofline_model,
 * framework_op_stats, overview_page, memory_viewer and graph_viewer (first
 * module, root instruction) and the module list it prints
 *   xla_<tool>_first_ms <ms> ms        (read_query + compute + write_json, wall)
 *   xla_<tool>_first_cpu_ms <ms> ms    (the same in CPU time; one core)
 *   xla_<tool>_bytes <n> bytes         (the answer)
 * and, on a fresh model,
 *   xla_hlo_proto_bytes <n> bytes      (the HloProtos' bytes)
 *   xla_hlo_decode_ms <ms> ms          (pv_model_hlo: the table)
 *   xla_hlo_decode_ms_per_mb <ms> ms/MB
 *   xla_hlo_modules <n> modules, xla_hlo_instructions <n> instructions
 * Asserts nothing (STYLE rule 19). */
#include "answer/answer.h"
#include "hlo.pb-c.h"
#include "ingest/ingest.h"
#include "model/builder.h"
#include "model/hlo_table.h"
#include "tools/hlo/hlo_modules.h"
#include "tools/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- a generated profile ------------------------------------------------------------- */

/* One program: ENTRY of n fusions in a chain over a parameter, each
 * calling a body of a parameter and a multiply, each with metadata; a
 * buffer assignment of one temporary allocation whose heap trace
 * allocates each fusion's result and frees it after its user. */
static uint8_t *program_proto(int prog, int n, size_t *len)
{
    static const int64_t dims[2] = {1024, 1024}, minor[2] = {1, 0};
    Xla__LayoutProto layout = XLA__LAYOUT_PROTO__INIT;
    layout.minor_to_major = (int64_t *)minor;
    layout.n_minor_to_major = 2;
    Xla__ShapeProto shape = XLA__SHAPE_PROTO__INIT;
    shape.element_type = XLA__PRIMITIVE_TYPE__F32;
    shape.dimensions = (int64_t *)dims;
    shape.n_dimensions = 2;
    shape.layout = &layout;
    size_t n_comps = (size_t)n + 1;
    Xla__HloComputationProto *comps = calloc(n_comps, sizeof *comps);
    Xla__HloComputationProto **comp_ptrs = calloc(n_comps, sizeof *comp_ptrs);
    Xla__HloInstructionProto *body = calloc(2 * (size_t)n, sizeof *body);
    Xla__HloInstructionProto **body_ptrs = calloc(2 * (size_t)n, sizeof *body_ptrs);
    Xla__HloInstructionProto *entry = calloc((size_t)n + 1, sizeof *entry);
    Xla__HloInstructionProto **entry_ptrs = calloc((size_t)n + 1, sizeof *entry_ptrs);
    Xla__OpMetadata *meta = calloc((size_t)n, sizeof *meta);
    int64_t *ids = calloc(3 * (size_t)n + 1, sizeof *ids);
    char (*names)[48] = calloc(3 * (size_t)n + 3, sizeof *names);
    char (*op_names)[64] = calloc((size_t)n, sizeof *op_names);
    int64_t next_id = 1;
    /* bodies: computation i + 1 = {param, multiply(param, param)} */
    for (int i = 0; i < n; i++) {
        Xla__HloInstructionProto *p = &body[2 * i], *mul = &body[2 * i + 1];
        xla__hlo_instruction_proto__init(p);
        xla__hlo_instruction_proto__init(mul);
        snprintf(names[3 * i], sizeof names[0], "param_0.%d", i);
        snprintf(names[3 * i + 1], sizeof names[0], "multiply.%d", i);
        p->name = names[3 * i];
        p->opcode = "parameter";
        p->shape = &shape;
        p->id = next_id++;
        mul->name = names[3 * i + 1];
        mul->opcode = "multiply";
        mul->shape = &shape;
        mul->id = next_id++;
        ids[2 * i] = p->id;
        ids[2 * i + 1] = p->id;
        mul->operand_ids = &ids[2 * i];
        mul->n_operand_ids = 2;
        body_ptrs[2 * i] = p;
        body_ptrs[2 * i + 1] = mul;
        xla__hlo_computation_proto__init(&comps[i]);
        comps[i].name = names[3 * i + 2];
        snprintf(names[3 * i + 2], sizeof names[0], "fused_computation.%d", i);
        comps[i].id = 1000000 + i;
        comps[i].root_id = mul->id;
        comps[i].instructions = &body_ptrs[2 * i];
        comps[i].n_instructions = 2;
        comp_ptrs[i] = &comps[i];
    }
    /* entry: p0, then fusion.i over the one before */
    int64_t *entry_ops = &ids[2 * (size_t)n];
    char p0_name[] = "p0";
    Xla__HloInstructionProto *p0 = &entry[0];
    xla__hlo_instruction_proto__init(p0);
    p0->name = p0_name;
    p0->opcode = "parameter";
    p0->shape = &shape;
    p0->id = next_id++;
    entry_ptrs[0] = p0;
    char (*fnames)[32] = calloc((size_t)n, sizeof *fnames);
    for (int i = 0; i < n; i++) {
        Xla__HloInstructionProto *f = &entry[i + 1];
        xla__hlo_instruction_proto__init(f);
        snprintf(fnames[i], sizeof fnames[0], "fusion.%d", i);
        f->name = fnames[i];
        f->opcode = "fusion";
        f->shape = &shape;
        f->id = next_id++;
        entry_ops[i] = entry[i].id;
        f->operand_ids = &entry_ops[i];
        f->n_operand_ids = 1;
        f->called_computation_ids = &comps[i].id;
        f->n_called_computation_ids = 1;
        xla__op_metadata__init(&meta[i]);
        snprintf(op_names[i], sizeof op_names[0], "jit(step_%d)/layer_%d/mul", prog, i);
        meta[i].op_name = op_names[i];
        meta[i].op_type = "mul";
        meta[i].source_file = "model.py";
        meta[i].source_line = i + 1;
        f->metadata = &meta[i];
        entry_ptrs[i + 1] = f;
    }
    Xla__HloComputationProto *main_comp = &comps[n];
    xla__hlo_computation_proto__init(main_comp);
    main_comp->name = "main";
    main_comp->id = 1;
    main_comp->root_id = entry[n].id;
    main_comp->instructions = entry_ptrs;
    main_comp->n_instructions = (size_t)n + 1;
    comp_ptrs[n] = main_comp;
    char mod_name[32];
    snprintf(mod_name, sizeof mod_name, "jit_step_%d", prog);
    Xla__HloModuleProto mod = XLA__HLO_MODULE_PROTO__INIT;
    mod.name = mod_name;
    mod.entry_computation_name = "main";
    mod.entry_computation_id = 1;
    mod.computations = comp_ptrs;
    mod.n_computations = n_comps;
    Xla__HloProto proto = XLA__HLO_PROTO__INIT;
    proto.hlo_module = &mod;

    /* buffers: fusion i's result is logical buffer i, in one allocation */
    Xla__LogicalBufferProto *lb = calloc((size_t)n, sizeof *lb);
    Xla__LogicalBufferProto **lbp = calloc((size_t)n, sizeof *lbp);
    Xla__LogicalBufferProto__Location *loc = calloc((size_t)n, sizeof *loc);
    Xla__BufferAllocationProto__Assigned *as = calloc((size_t)n, sizeof *as);
    Xla__BufferAllocationProto__Assigned **asp = calloc((size_t)n, sizeof *asp);
    Xla__HeapSimulatorTrace__Event *ev = calloc(2 * (size_t)n, sizeof *ev);
    Xla__HeapSimulatorTrace__Event **evp = calloc(2 * (size_t)n, sizeof *evp);
    size_t n_ev = 0;
    for (int i = 0; i < n; i++) {
        xla__logical_buffer_proto__init(&lb[i]);
        xla__logical_buffer_proto__location__init(&loc[i]);
        loc[i].instruction_id = entry[i + 1].id;
        lb[i].id = i;
        lb[i].size = 4 << 20;
        lb[i].defined_at = &loc[i];
        lbp[i] = &lb[i];
        xla__buffer_allocation_proto__assigned__init(&as[i]);
        as[i].logical_buffer_id = i;
        as[i].offset = (int64_t)(i % 2) << 22;
        as[i].size = 4 << 20;
        asp[i] = &as[i];
        xla__heap_simulator_trace__event__init(&ev[n_ev]);
        ev[n_ev].kind = XLA__HEAP_SIMULATOR_TRACE__EVENT__KIND__ALLOC;
        ev[n_ev].buffer_id = i;
        ev[n_ev].instruction_name = fnames[i];
        evp[n_ev] = &ev[n_ev];
        n_ev++;
        if (i > 0) {
            xla__heap_simulator_trace__event__init(&ev[n_ev]);
            ev[n_ev].kind = XLA__HEAP_SIMULATOR_TRACE__EVENT__KIND__FREE;
            ev[n_ev].buffer_id = i - 1;
            ev[n_ev].instruction_name = fnames[i];
            evp[n_ev] = &ev[n_ev];
            n_ev++;
        }
    }
    Xla__BufferAllocationProto alloc = XLA__BUFFER_ALLOCATION_PROTO__INIT;
    alloc.size = 8 << 20;
    alloc.assigned = asp;
    alloc.n_assigned = (size_t)n;
    Xla__BufferAllocationProto *allocp = &alloc;
    Xla__HeapSimulatorTrace trace = XLA__HEAP_SIMULATOR_TRACE__INIT;
    trace.events = evp;
    trace.n_events = n_ev;
    Xla__HeapSimulatorTrace *tracep = &trace;
    Xla__BufferAssignmentProto ba = XLA__BUFFER_ASSIGNMENT_PROTO__INIT;
    ba.logical_buffers = lbp;
    ba.n_logical_buffers = (size_t)n;
    ba.buffer_allocations = &allocp;
    ba.n_buffer_allocations = 1;
    ba.heap_simulator_traces = &tracep;
    ba.n_heap_simulator_traces = 1;
    Xla__HloBufferAssignmentView view = XLA__HLO_BUFFER_ASSIGNMENT_VIEW__INIT;
    view.buffer_assignment = &ba;

    size_t n1 = xla__hlo_proto__get_packed_size(&proto);
    size_t n2 = xla__hlo_buffer_assignment_view__get_packed_size(&view);
    uint8_t *out = malloc(n1 + n2);
    xla__hlo_proto__pack(&proto, out);
    xla__hlo_buffer_assignment_view__pack(&view, out + n1);
    *len = n1 + n2;
    free(comps);
    free(comp_ptrs);
    free(body);
    free(body_ptrs);
    free(entry);
    free(entry_ptrs);
    free(meta);
    free(ids);
    free(names);
    free(op_names);
    free(fnames);
    free(lb);
    free(lbp);
    free(loc);
    free(as);
    free(asp);
    free(ev);
    free(evp);
    return out;
}

typedef struct protos {
    uint8_t **data;
    size_t *len;
    int n_modules, n_instrs;
} protos;

static pv_model *generated_model(const protos *p)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t md = pv_builder_plane(b, 0, "/host:metadata");
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t stream = pv_builder_track(b, gpu, 7, "Stream #7(Compute)", 0);
    uint32_t s_hlo = pv_builder_intern_cstr(b, "Hlo Proto");
    uint32_t s_prog = pv_builder_intern_cstr(b, "program_id");
    uint32_t kernel = pv_builder_meta(b, gpu, 1, "fusion_kernel", NULL);
    int64_t t = 0;
    for (int m = 0; m < p->n_modules; m++) {
        char name[40];
        snprintf(name, sizeof name, "jit_step_%d(%d)", m, m + 1);
        uint32_t meta = pv_builder_meta(b, md, m + 1, name, NULL);
        pv_builder_meta_stat(b, meta, (pv_stat){s_hlo, PV_STAT_BYTES,
                                                {.blob = pv_builder_blob(b, p->data[m],
                                                                         p->len[m])}});
        pv_builder_meta_stat(b, meta, (pv_stat){s_prog, PV_STAT_U64, {.u64 = (uint64_t)m + 1}});
        char mod[32];
        snprintf(mod, sizeof mod, "jit_step_%d", m);
        for (int i = 0; i < p->n_instrs; i++) {
            char op[32];
            snprintf(op, sizeof op, "fusion.%d", i);
            uint64_t e = pv_builder_event(b, stream, kernel, t, 5000000);
            pv_builder_event_stat_str(b, e, "kernel_details", "regs:32 grid:256,1,1 block:256,1,1");
            pv_builder_event_stat_str(b, e, "hlo_op", op);
            pv_builder_event_stat_str(b, e, "hlo_module", mod);
            pv_builder_event_stat_i64(b, e, "program_id", m + 1);
            t += 6000000;
        }
    }
    pv_model *out = NULL;
    pv_error err = {0};
    if (pv_builder_finish(b, &out, &err) != 0) {
        fprintf(stderr, "building the model: %s\n", err.reason);
        exit(1);
    }
    pv_ingest_attach(out);
    return out;
}

/* ---- asking the tools ---------------------------------------------------------------- */

typedef struct kv {
    const char *const *names;
    const char *const *values;
    size_t n;
} kv;

static const char *get(void *ctx, const char *name, bool *bad)
{
    const kv *p = ctx;
    (void)bad;
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->names[i], name) == 0)
            return p->values[i];
    return NULL;
}

typedef pv_model *(*model_fn)(const void *src);

/* A source whose model is made by a function: the answer layer asks it as
 * it asks a file, so each tool is timed as a request for it runs. */
typedef struct made {
    model_fn fresh;
    const void *src;
} made;

static void made_ident(const pv_source *s, char *buf, size_t cap)
{
    snprintf(buf, cap, "%p", s->ctx);
}

static int made_open(const pv_source *s, pv_error *err)
{
    pv_error_set(err, PV_EIO, s->path, PV_NO_OFFSET, "a made model has no bytes");
    return -1;
}

static int made_model(const pv_source *s, pv_progress *progress, pv_model **out, pv_error *err)
{
    (void)progress;
    (void)err;
    const made *m = s->ctx;
    *out = m->fresh(m->src);
    return 0;
}

static const pv_source_kind made_kind = {"bench", made_ident, made_open, made_model};

static void ask(const char *tool, const char *label, model_fn fresh, const void *src,
                const char *const *names, const char *const *values, size_t n)
{
    /* a store of its own: the tool is asked on a fresh model */
    made mk = {fresh, src};
    pv_disk_cache off;
    pv_disk_cache_init(&off, NULL, 0);
    pv_answer_ctx ctx = {pv_model_store_new(0, &off, NULL), &off, NULL};
    /* an XSpace's place in the format table, holding all it may */
    size_t host_len;
    pv_host_file file = {.path = (char *)"bench.xplane.pb",
                         .format = pv_format_classify("bench.xplane.pb", &host_len),
                         .holds = ~0u,
                         .source_kind = &made_kind,
                         .source_ctx = &mk};
    pv_host host = {.name = (char *)"h", .files = &file, .n_files = 1};
    /* the model is loaded before the clock starts, as after a load */
    pv_source s = pv_host_file_source(&file, NULL);
    const pv_model *m;
    pv_model_entry *e;
    pv_error err = {0};
    if (pv_model_store_get(ctx.models, &s, &m, &e, &err) != 0) {
        fprintf(stderr, "%s: %s\n", label, err.reason);
        exit(1);
    }
    pv_model_store_put(ctx.models, e);
    kv p = {names, values, n};
    pv_params params = {get, &p};
    const pv_host *hosts[1] = {&host};
    pv_ask a = {.tool = pv_tool_find(tool), .form = PV_ANSWER_JSON, .run = "bench",
                .hosts = hosts, .n_hosts = 1, .params = &params, .accepts_gzip = false};
    pv_arena arena;
    pv_arena_init(&arena, 1 << 20);
    double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    pv_answer ans;
    int rc = pv_answer_get(&ctx, &a, &arena, &ans, NULL, &err);
    double w1 = clock_ms(CLOCK_MONOTONIC), c1 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", label, err.reason);
    printf("xla_%s_first_ms %.1f ms\n", label, w1 - w0);
    printf("xla_%s_first_cpu_ms %.1f ms\n", label, c1 - c0);
    printf("xla_%s_bytes %llu bytes\n", label,
           (unsigned long long)(ans.gzip ? ans.plain_bytes : ans.len));
    pv_answer_release(&ans);
    pv_arena_fini(&arena);
    pv_model_store_free(ctx.models);
    pv_disk_cache_fini(&off);
}

static pv_model *from_file(const void *src)
{
    pv_model *m = NULL;
    pv_error err = {0};
    if (pv_ingest_file(src, NULL, &m, &err) != 0) {
        fprintf(stderr, "%s: %s\n", (const char *)src, err.reason);
        exit(1);
    }
    return m;
}

static pv_model *from_protos(const void *src)
{
    return generated_model(src);
}

int main(int argc, char **argv)
{
    protos p = {NULL, NULL, 200, 1000};
    model_fn fresh = from_protos;
    const void *src = &p;
    if (argc == 2 && strstr(argv[1], ".xplane.pb") != NULL) {
        fresh = from_file;
        src = argv[1];
    } else {
        if (argc > 1)
            p.n_modules = atoi(argv[1]);
        if (argc > 2)
            p.n_instrs = atoi(argv[2]);
        if (p.n_modules < 1 || p.n_instrs < 2) {
            fprintf(stderr, "usage: %s [FILE.xplane.pb | MODULES [INSTRS]]\n", argv[0]);
            return 2;
        }
        p.data = calloc((size_t)p.n_modules, sizeof *p.data);
        p.len = calloc((size_t)p.n_modules, sizeof *p.len);
        for (int m = 0; m < p.n_modules; m++)
            p.data[m] = program_proto(m, p.n_instrs, &p.len[m]);
    }
    /* the HLO table alone, and the first module's name for the viewers */
    pv_model *m = fresh(src);
    size_t bytes = 0;
    uint32_t s_hlo = pv_model_str_find(m, "Hlo Proto");
    for (uint32_t i = 0; i < m->n_metas; i++)
        for (uint32_t s = 0; s < m->metas[i].n_stats; s++) {
            const pv_stat *st = &m->stats[m->metas[i].first_stat + s];
            if (st->name == s_hlo && s_hlo != 0 && st->type == PV_STAT_BYTES)
                bytes += m->blobs[st->v.blob].len;
        }
    double d0 = clock_ms(CLOCK_MONOTONIC);
    const pv_hlo_table *t = pv_model_hlo(m);
    double d1 = clock_ms(CLOCK_MONOTONIC);
    printf("xla_hlo_proto_bytes %zu bytes\n", bytes);
    printf("xla_hlo_decode_ms %.1f ms\n", d1 - d0);
    printf("xla_hlo_decode_ms_per_mb %.2f ms/MB\n",
           bytes > 0 ? (d1 - d0) / ((double)bytes / 1e6) : 0.0);
    printf("xla_hlo_modules %zu modules\n", t->n_modules);
    printf("xla_hlo_instructions %zu instructions\n", t->n_instructions);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    size_t n_names;
    const char **names = pv_hlo_module_names(m, &a, &n_names);
    char first[512] = "";
    if (n_names > 0)
        snprintf(first, sizeof first, "%s", names[0]);
    pv_arena_fini(&a);
    pv_model_free(m);

    static const char *const none[] = {NULL};
    ask("hlo_stats", "hlo_stats", fresh, src, none, none, 0);
    ask("op_profile", "op_profile", fresh, src, none, none, 0);
    ask("roofline_model", "roofline_model", fresh, src, none, none, 0);
    ask("framework_op_stats", "framework_op_stats", fresh, src, none, none, 0);
    ask("overview_page", "overview_page", fresh, src, none, none, 0);
    const char *const mv_names[] = {"module_name", "memory_space"};
    const char *const mv_values[] = {first, "0"};
    ask("memory_viewer", "memory_viewer", fresh, src, mv_names, mv_values, 2);
    const char *const gv_names[] = {"module_name", "type", "format"};
    const char *const gv_values[] = {first, "graph", "json"};
    ask("graph_viewer", "graph_viewer", fresh, src, gv_names, gv_values, 3);
    /* the module list: decode and name every module */
    pv_model *ml = fresh(src);
    double w0 = clock_ms(CLOCK_MONOTONIC);
    pv_arena_init(&a, 1 << 16);
    pv_hlo_module_names(ml, &a, &n_names);
    double w1 = clock_ms(CLOCK_MONOTONIC);
    printf("xla_module_list_first_ms %.1f ms\n", w1 - w0);
    pv_arena_fini(&a);
    pv_model_free(ml);
    for (int i = 0; p.data != NULL && i < p.n_modules; i++)
        free(p.data[i]);
    free(p.data);
    free(p.len);
    return 0;
}
