/* test_trace_derived: the device lines XProf derives (tools/trace_derived/trace_derived.h)
 * on hand-built GPU and TPU planes, every expected event worked out by
 * hand from XProf's DerivedXLineBuilder rules (docs/compare.md, "Derived
 * device lines"); on the real TPU profile, the host-offload copies
 * against XProf 2.24.2's golden trace; and the lines as kept with the
 * model (pv_trace_derived_lines: a memo) read back as derived, on the
 * fixtures and every real JAX GPU and TPU profile.
 *
 * GPU model (times in ns; ps = ns * 1000). /host:metadata holds program
 * 5's HLO proto: fusion.1 (op_name "jit(f)/outer/dot_general", source
 * /src/a/train.py:10), fusion.2 ("jit(f)/outer/add", train.py:10), copy.1
 * (no metadata). /device:GPU:0 "Stream #7(Kernel)" (line 7):
 *   k1 [0,100)   fusion.1  module jit_f  program 5
 *   k2 [150,250) fusion.1  same
 *   k3 [300,350) copy.1    same
 *   k4 [400,500) fusion.2  same
 *   m1 [520,540) memcpy (no kernel_details) with hlo_op fusion.2: ignored
 *   k5 [600,700) fusion.1  module jit_g  program 6 (no proto: no framework op)
 * Expected (a GPU line merges equal names whatever the gap):
 *   XLA Modules - from #7: jit_f(5) [0,500); jit_g(6) [600,700)
 *   XLA Ops - from #7: fusion.1 [0,250) (5/fusion.1); copy.1 [300,350);
 *                      fusion.2 [400,500); fusion.1 [600,700) (6/fusion.1)
 *   Framework Ops - from #7: dot_general [0,250); ":" [300,350); add [400,500)
 *   Framework Name Scope - from #7: jit(f) [0,500) depth 0; outer [0,499)
 *     depth 1 (jit_g's new module closes the scopes, and the stack of equal
 *     spans shrinks 1 ns per level)
 *   Source code - from #7: train.py:10 [0,500)
 *
 * TPU model (times in ns). /device:TPU:0, "XLA Modules" (line 1): runs
 * [0,1000) and [2000,3000), so groups 0 and 1. "XLA Ops" (line 2):
 *   o1 [0,100)     tf_op jit(f)/a:  source f.py:1
 *   o2 [500,600)   same (gap 400 > 2 x 100, but the same group: merged)
 *   o3 [2000,2100) same, group 1
 *   o4 [2150,2160) tf_op jit(f)/b:  source f.py:2
 *   o5 [2170,2180) tf_op jit(f)/a:  async (_a 1): ignored
 *   copy-start.1 [2200,2200) and copy-done.1 [2200,2500), both S(5)
 *   copy-start   [2300,2310) and copy-done   [2400,2600), both S(5)
 * Expected: Framework Ops a [0,600) g0, a [2000,2100) g1, b [2150,2160) g1;
 * Framework Name Scope jit(f) [0,600) g0, jit(f) [2000,2160) g1; Source
 * code f.py:1 [0,600) g0, f.py:1 [2000,2100) g1, f.py:2 [2150,2160) g1;
 * Host Offload Ops row 0: offload-copy.1 [2200,2500); row 1 (row 0 is busy
 * until 2500): offload-copy.0 [2300,2600). */
#include "gpu_fixture.h"
#include "gz_file.h"
#include "ingest/ingest.h"
#include "model/memo.h"
#include "testutil.h"
#include "tools/trace_derived/trace_derived.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS 1000

/* ---- helpers ------------------------------------------------------------------ */

static const pv_derived_track *find_track(const pv_trace_derived *d, const char *name)
{
    for (size_t i = 0; i < d->n_tracks; i++)
        if (strcmp(d->tracks[i].name, name) == 0)
            return &d->tracks[i];
    return NULL;
}

/* Checks event i of track name: span in ns, shown name, long name (NULL:
 * none), group and depth. */
static void check_event(const pv_trace_derived *d, const char *track, uint64_t i,
                        int64_t start_ns, int64_t end_ns, const char *name,
                        const char *long_name, int64_t group, uint32_t depth)
{
    const pv_derived_track *t = find_track(d, track);
    ck_assert_msg(t != NULL, "no track %s", track);
    ck_assert_msg(i < t->n_events, "%s has %llu events", track,
                  (unsigned long long)t->n_events);
    const pv_derived_event *e = &t->events[i];
    ck_assert_int_eq(e->start_ps, start_ns * NS);
    ck_assert_int_eq(e->start_ps + e->dur_ps, end_ns * NS);
    ck_assert_str_eq(e->name, name);
    if (long_name == NULL)
        ck_assert_ptr_null(e->long_name);
    else
        ck_assert_str_eq(e->long_name, long_name);
    ck_assert_int_eq(e->group_id, group);
    ck_assert_uint_eq(e->depth, depth);
}

static void check_count(const pv_trace_derived *d, const char *track, uint64_t n)
{
    const pv_derived_track *t = find_track(d, track);
    ck_assert_msg(t != NULL, "no track %s", track);
    ck_assert_uint_eq(t->n_events, n);
}

/* ---- the GPU model ---------------------------------------------------------------- */

static void hlo_instr(fx_buf *comp, const char *name, const char *op_name, const char *file,
                      int line)
{
    fx_buf meta = {0}, in = {0};
    fx_str(&in, 1, name);
    if (op_name != NULL) {
        fx_str(&meta, 2, op_name);
        fx_str(&meta, 3, file);
        fx_varint(&meta, 4 << 3);
        fx_varint(&meta, (uint64_t)line);
        fx_bytes(&in, 7, meta.b, meta.n);
    }
    fx_bytes(comp, 2, in.b, in.n);
}

static void gpu_kernel(pv_model_builder *b, uint32_t track, uint32_t meta, int64_t start_ns,
                       int64_t end_ns, const char *module, int64_t program, const char *hlo_op,
                       bool kernel)
{
    uint64_t e = pv_builder_event(b, track, meta, start_ns * NS, (end_ns - start_ns) * NS);
    if (kernel)
        pv_builder_event_stat_str(b, e, "kernel_details", "regs:32 block:256,1,1");
    pv_builder_event_stat_str(b, e, "hlo_module", module);
    pv_builder_event_stat_str(b, e, "hlo_op", hlo_op);
    pv_builder_event_stat_i64(b, e, "program_id", program);
}

static pv_model *gpu_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t md = pv_builder_plane(b, 0, "/host:metadata");
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    fx_buf comp = {0}, mod = {0}, proto = {0};
    fx_str(&comp, 1, "main");
    hlo_instr(&comp, "fusion.1", "jit(f)/outer/dot_general", "/src/a/train.py", 10);
    hlo_instr(&comp, "fusion.2", "jit(f)/outer/add", "/src/a/train.py", 10);
    hlo_instr(&comp, "copy.1", NULL, NULL, 0);
    fx_str(&mod, 1, "jit_f");
    fx_bytes(&mod, 3, comp.b, comp.n);
    fx_bytes(&proto, 1, mod.b, mod.n);
    uint32_t s_hlo = pv_builder_intern_cstr(b, "Hlo Proto");
    uint32_t m5 = pv_builder_meta(b, md, 5, "jit_f(5)", NULL);
    pv_builder_meta_stat(b, m5, (pv_stat){s_hlo, PV_STAT_BYTES,
                                         {.blob = pv_builder_blob(b, proto.b, proto.n)}});
    uint32_t s7 = pv_builder_track(b, gpu, 7, "Stream #7(Kernel)", 0);
    uint32_t k = pv_builder_meta(b, gpu, 1, "kernel", NULL);
    uint32_t cp = pv_builder_meta(b, gpu, 2, "MemcpyD2D", NULL);
    gpu_kernel(b, s7, k, 0, 100, "jit_f", 5, "fusion.1", true);
    gpu_kernel(b, s7, k, 150, 250, "jit_f", 5, "fusion.1", true);
    gpu_kernel(b, s7, k, 300, 350, "jit_f", 5, "copy.1", true);
    gpu_kernel(b, s7, k, 400, 500, "jit_f", 5, "fusion.2", true);
    gpu_kernel(b, s7, cp, 520, 540, "jit_f", 5, "fusion.2", false);
    gpu_kernel(b, s7, k, 600, 700, "jit_g", 6, "fusion.1", true);
    pv_model *m = pv_test_finish(b);
    pv_ingest_attach(m);   /* the HLO decoder, as ingest gives every model */
    return m;
}

START_TEST(test_gpu_lines)
{
    pv_model *m = gpu_model();
    ck_assert(pv_trace_derived_applies(m));
    pv_arena a;
    pv_arena_init(&a, 1 << 12);
    pv_trace_derived d;
    pv_trace_derive(m, &a, &d);
    ck_assert_uint_eq(d.n_tracks, 5);
    /* XProf's order after the stream: name scope, ops, modules, XLA ops,
     * source (its line ids 0xdeadbeef + 290 ...). */
    const char *order[] = {"Framework Name Scope - from #7", "Framework Ops - from #7",
                           "XLA Modules - from #7", "XLA Ops - from #7",
                           "Source code - from #7"};
    for (size_t i = 0; i < 5; i++) {
        ck_assert_str_eq(d.tracks[i].name, order[i]);
        ck_assert_int_eq(d.tracks[i].line_id, 0xdeadbeefll + 290 + (int64_t)(i < 4 ? i : 5));
        ck_assert_uint_eq(d.tracks[i].plane, 1);
        ck_assert_uint_eq(d.tracks[i].after_track, 0);
        /* shown as XProf numbers them: the stream 1, its lines 2..6 */
        ck_assert_int_eq(d.tracks[i].tid, 2 + (int64_t)i);
    }
    ck_assert_ptr_nonnull(d.track_tid);
    ck_assert_int_eq(d.track_tid[0], 1);
    check_count(&d, "XLA Modules - from #7", 2);
    check_event(&d, "XLA Modules - from #7", 0, 0, 500, "jit_f(5)", NULL, PV_NO_GROUP, 0);
    check_event(&d, "XLA Modules - from #7", 1, 600, 700, "jit_g(6)", NULL, PV_NO_GROUP, 0);
    check_count(&d, "XLA Ops - from #7", 4);
    check_event(&d, "XLA Ops - from #7", 0, 0, 250, "fusion.1", "5/fusion.1", PV_NO_GROUP, 0);
    check_event(&d, "XLA Ops - from #7", 1, 300, 350, "copy.1", "5/copy.1", PV_NO_GROUP, 0);
    check_event(&d, "XLA Ops - from #7", 2, 400, 500, "fusion.2", "5/fusion.2", PV_NO_GROUP, 0);
    check_event(&d, "XLA Ops - from #7", 3, 600, 700, "fusion.1", "6/fusion.1", PV_NO_GROUP, 0);
    check_count(&d, "Framework Ops - from #7", 3);
    check_event(&d, "Framework Ops - from #7", 0, 0, 250, "dot_general",
                "jit(f)/outer/dot_general:", PV_NO_GROUP, 0);
    check_event(&d, "Framework Ops - from #7", 1, 300, 350, ":", NULL, PV_NO_GROUP, 0);
    check_event(&d, "Framework Ops - from #7", 2, 400, 500, "add", "jit(f)/outer/add:",
                PV_NO_GROUP, 0);
    check_count(&d, "Framework Name Scope - from #7", 2);
    check_event(&d, "Framework Name Scope - from #7", 0, 0, 500, "jit(f)", NULL, PV_NO_GROUP, 0);
    check_event(&d, "Framework Name Scope - from #7", 1, 0, 499, "outer", NULL, PV_NO_GROUP, 1);
    ck_assert_uint_eq(find_track(&d, "Framework Name Scope - from #7")->n_depths, 2);
    check_count(&d, "Source code - from #7", 1);
    check_event(&d, "Source code - from #7", 0, 0, 500, "train.py:10", NULL, PV_NO_GROUP, 0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* A file the profiler grouped (a group_id stat) gets no derived lines. */
START_TEST(test_grouped_file)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t s = pv_builder_track(b, gpu, 7, "Stream #7", 0);
    uint32_t k = pv_builder_meta(b, gpu, 1, "kernel", NULL);
    gpu_kernel(b, s, k, 0, 100, "jit_f", 5, "fusion.1", true);
    pv_builder_event_stat_i64(b, 0, "group_id", 3);
    pv_model *m = pv_test_finish(b);
    ck_assert(!pv_trace_derived_applies(m));
    pv_model_free(m);
}
END_TEST

/* ---- the TPU model ---------------------------------------------------------------- */

static void tpu_op(pv_model_builder *b, uint32_t track, uint32_t meta, int64_t start_ns,
                   int64_t end_ns, bool async)
{
    uint64_t e = pv_builder_event(b, track, meta, start_ns * NS, (end_ns - start_ns) * NS);
    if (async)
        pv_builder_event_stat_i64(b, e, "_a", 1);
}

static uint32_t tpu_meta(pv_model_builder *b, uint32_t plane, int64_t id, const char *name,
                         const char *shown, const char *tf_op, const char *source)
{
    uint32_t md = pv_builder_meta(b, plane, id, name, shown);
    if (tf_op != NULL)
        pv_builder_meta_stat_str(b, md, "tf_op", tf_op);
    if (source != NULL)
        pv_builder_meta_stat_str(b, md, "source", source);
    return md;
}

static pv_model *tpu_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t tpu = pv_builder_plane(b, 2, "/device:TPU:0");
    uint32_t mods = pv_builder_track(b, tpu, 1, "XLA Modules", 0);
    uint32_t ops = pv_builder_track(b, tpu, 2, "XLA Ops", 0);
    uint32_t run = pv_builder_meta(b, tpu, 1, "jit_f(9)", NULL);
    pv_builder_event(b, mods, run, 0, 1000 * NS);
    pv_builder_event(b, mods, run, 2000 * NS, 1000 * NS);
    uint32_t fa = tpu_meta(b, tpu, 2, "%fusion.a = f32[] fusion()", "fusion.a", "jit(f)/a:",
                           "f.py:1");
    uint32_t fb = tpu_meta(b, tpu, 3, "%fusion.b = f32[] fusion()", "fusion.b", "jit(f)/b:",
                           "f.py:2");
    uint32_t cs1 = tpu_meta(b, tpu, 4, "%copy-start.1 = (f32[]{:S(5)}) copy-start()",
                            "copy-start.1", NULL, NULL);
    uint32_t cd1 = tpu_meta(b, tpu, 5, "%copy-done.1 = f32[]{:S(5)} copy-done()",
                            "copy-done.1", NULL, NULL);
    uint32_t cs0 = tpu_meta(b, tpu, 6, "%copy-start = (f32[]{:S(5)}) copy-start()",
                            "copy-start", NULL, NULL);
    uint32_t cd0 = tpu_meta(b, tpu, 7, "%copy-done = f32[]{:S(5)} copy-done()", "copy-done",
                            NULL, NULL);
    tpu_op(b, ops, fa, 0, 100, false);
    tpu_op(b, ops, fa, 500, 600, false);
    tpu_op(b, ops, fa, 2000, 2100, false);
    tpu_op(b, ops, fb, 2150, 2160, false);
    tpu_op(b, ops, fa, 2170, 2180, true);
    /* the done first in the file: XProf's order puts the zero-length start
     * of the same picosecond before it */
    tpu_op(b, ops, cd1, 2200, 2500, false);
    tpu_op(b, ops, cs1, 2200, 2200, false);
    tpu_op(b, ops, cs0, 2300, 2310, false);
    tpu_op(b, ops, cd0, 2400, 2600, false);
    return pv_test_finish(b);
}

START_TEST(test_tpu_lines)
{
    pv_model *m = tpu_model();
    pv_arena a;
    pv_arena_init(&a, 1 << 12);
    pv_trace_derived d;
    pv_trace_derive(m, &a, &d);
    const char *order[] = {"Framework Name Scope", "Framework Ops", "Source code",
                           "Host Offload Ops row 0", "Host Offload Ops row 1"};
    const int64_t ids[] = {2, 3, 7, 8, 9};
    ck_assert_uint_eq(d.n_tracks, 5);
    for (size_t i = 0; i < 5; i++) {
        ck_assert_str_eq(d.tracks[i].name, order[i]);
        ck_assert_int_eq(d.tracks[i].line_id, 0xdeadbeefll + ids[i]);
        ck_assert_uint_eq(d.tracks[i].after_track, UINT32_MAX);
    }
    check_count(&d, "Framework Ops", 3);
    check_event(&d, "Framework Ops", 0, 0, 600, "a", "jit(f)/a:", 0, 0);
    check_event(&d, "Framework Ops", 1, 2000, 2100, "a", "jit(f)/a:", 1, 0);
    check_event(&d, "Framework Ops", 2, 2150, 2160, "b", "jit(f)/b:", 1, 0);
    check_count(&d, "Framework Name Scope", 2);
    check_event(&d, "Framework Name Scope", 0, 0, 600, "jit(f)", NULL, 0, 0);
    check_event(&d, "Framework Name Scope", 1, 2000, 2160, "jit(f)", NULL, 1, 0);
    check_count(&d, "Source code", 3);
    check_event(&d, "Source code", 0, 0, 600, "f.py:1", NULL, 0, 0);
    check_event(&d, "Source code", 1, 2000, 2100, "f.py:1", NULL, 1, 0);
    check_event(&d, "Source code", 2, 2150, 2160, "f.py:2", NULL, 1, 0);
    check_count(&d, "Host Offload Ops row 0", 1);
    check_event(&d, "Host Offload Ops row 0", 0, 2200, 2500, "offload-copy.1", "",
                PV_NO_GROUP, 0);
    check_count(&d, "Host Offload Ops row 1", 1);
    check_event(&d, "Host Offload Ops row 1", 0, 2300, 2600, "offload-copy.0", "",
                PV_NO_GROUP, 0);
    /* the copy's args come from its done (bytes) and start (shape) */
    const pv_derived_event *e = &find_track(&d, "Host Offload Ops row 1")->events[0];
    ck_assert_str_eq(pv_model_event_name(m, e->start_event), "copy-start");
    ck_assert_str_eq(pv_model_event_name(m, e->done_event), "copy-done");
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* A TPU gap without a group merges only up to twice the last event's
 * duration (XProf's rule when there is no group id): a [0,100) then
 * [250,300) merge (250 <= 100 + 2 x 100); [1000,1100) does not (1000 >
 * 300 + 2 x 300). */
START_TEST(test_tpu_gap_rule)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t tpu = pv_builder_plane(b, 2, "/device:TPU:0");
    uint32_t ops = pv_builder_track(b, tpu, 2, "XLA Ops", 0);
    uint32_t fa = tpu_meta(b, tpu, 2, "%fusion.a", "fusion.a", "jit(f)/a:", NULL);
    tpu_op(b, ops, fa, 0, 100, false);
    tpu_op(b, ops, fa, 250, 300, false);
    tpu_op(b, ops, fa, 1000, 1100, false);
    pv_model *m = pv_test_finish(b);
    pv_arena a;
    pv_arena_init(&a, 1 << 12);
    pv_trace_derived d;
    pv_trace_derive(m, &a, &d);
    check_count(&d, "Framework Ops", 2);
    check_event(&d, "Framework Ops", 0, 0, 300, "a", "jit(f)/a:", PV_NO_GROUP, 0);
    check_event(&d, "Framework Ops", 1, 1000, 1100, "a", "jit(f)/a:", PV_NO_GROUP, 0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST


/* What the Framework Ops line shows is the reference's TfOpEventName of
 * the parsed tf_op (xla/tsl/profiler/utils/tf_op_utils.cc), and an empty
 * one leaves the full name shown. Ops 1000 ns apart, no group (no merges):
 *   ":"                     TensorFlow, empty name and type -> ":"
 *   ":relu"                 JAX, empty name, type relu -> "relu"
 *   "a/:"                   TensorFlow, type derived from "" -> "a/:";
 *                           its one name scope "a" on the scope line
 *   "Iterator::Batch::Map"  tf.data -> "Iterator::" + last part
 *   "Run \v"                TraceMe -> without trailing white space */
START_TEST(test_tpu_op_display_names)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t tpu = pv_builder_plane(b, 2, "/device:TPU:0");
    uint32_t ops = pv_builder_track(b, tpu, 2, "XLA Ops", 0);
    static const char *const tf_ops[] = {":", ":relu", "a/:", "Iterator::Batch::Map",
                                         "Run \v"};
    for (int64_t i = 0; i < 5; i++) {
        uint32_t md = tpu_meta(b, tpu, 2 + i, tf_ops[i], NULL, tf_ops[i], NULL);
        tpu_op(b, ops, md, 1000 * i, 1000 * i + 100, false);
    }
    pv_model *m = pv_test_finish(b);
    pv_arena a;
    pv_arena_init(&a, 1 << 12);
    pv_trace_derived d;
    pv_trace_derive(m, &a, &d);
    check_count(&d, "Framework Ops", 5);
    check_event(&d, "Framework Ops", 0, 0, 100, ":", NULL, PV_NO_GROUP, 0);
    check_event(&d, "Framework Ops", 1, 1000, 1100, "relu", ":relu", PV_NO_GROUP, 0);
    check_event(&d, "Framework Ops", 2, 2000, 2100, "a/:", NULL, PV_NO_GROUP, 0);
    check_event(&d, "Framework Ops", 3, 3000, 3100, "Iterator::Map", "Iterator::Batch::Map",
                PV_NO_GROUP, 0);
    check_event(&d, "Framework Ops", 4, 4000, 4100, "Run", "Run \v", PV_NO_GROUP, 0);
    check_count(&d, "Framework Name Scope", 1);
    check_event(&d, "Framework Name Scope", 0, 2000, 2100, "a", NULL, PV_NO_GROUP, 0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST
/* ---- the real TPU profile against XProf's golden trace ------------------------------- */

typedef struct copy {
    char plane[32];
    int64_t start_ps, dur_ps;
    char name[32];
} copy;

static int cmp_copy(const void *pa, const void *pb)
{
    const copy *a = pa, *b = pb;
    int c = strcmp(a->plane, b->plane);
    if (c != 0)
        return c;
    if (a->start_ps != b->start_ps)
        return a->start_ps < b->start_ps ? -1 : 1;
    if (a->dur_ps != b->dur_ps)
        return a->dur_ps < b->dur_ps ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* Every host-offload copy XProf draws (start, duration, name, on which
 * TPU) is one of ours and back; only the row each lands in may differ
 * (compare_rules.c TPU_OFFLOAD). */
START_TEST(test_tpu_offload_real)
{
    PV_NEED_TESTDATA("test_tpu_offload_real");
    const char *rel = "/logdirs/jax_tpu_v6e_inference/plugins/profile/tpu_inference/"
                      "tpu_inference_2";
    char path[512];
    snprintf(path, sizeof path, "%s%s.xplane.pb", PV_TESTDATA, rel);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_file(path, NULL, &m, &err), 0);
    snprintf(path, sizeof path, "%s/tests/data/reference/shared_golden%s.trace_viewer.json.gz",
             PV_SRCDIR, rel);
    json_t *golden = pv_test_load_gz_json(path, 64u << 20);
    ck_assert_ptr_nonnull(golden);

    /* XProf's copies: events named offload-* on its device processes */
    json_t *events = json_object_get(golden, "traceEvents");
    const char *pid_name[1024] = {0};
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev) {
        json_int_t pid = json_integer_value(json_object_get(ev, "pid"));
        const char *n = json_string_value(json_object_get(ev, "name"));
        if (n != NULL && strcmp(n, "process_name") == 0 && pid >= 0 && pid < 1024)
            pid_name[pid] = json_string_value(
                json_object_get(json_object_get(ev, "args"), "name"));
    }
    size_t n_ref = 0, n_ours = 0, cap = json_array_size(events);
    copy *ref = calloc(cap + 1, sizeof *ref);
    json_array_foreach(events, i, ev) {
        const char *n = json_string_value(json_object_get(ev, "name"));
        json_int_t pid = json_integer_value(json_object_get(ev, "pid"));
        if (n == NULL || strncmp(n, "offload-", 8) != 0 || pid < 0 || pid >= 1024)
            continue;
        copy *c = &ref[n_ref++];
        snprintf(c->plane, sizeof c->plane, "%s", pid_name[pid]);
        snprintf(c->name, sizeof c->name, "%s", n);
        c->start_ps = llround(json_number_value(json_object_get(ev, "ts")) * 1e6);
        c->dur_ps = llround(json_number_value(json_object_get(ev, "dur")) * 1e6);
    }
    ck_assert_uint_eq(n_ref, 2400);

    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_trace_derived d;
    ck_assert(pv_trace_derived_applies(m));
    pv_trace_derive(m, &a, &d);
    copy *ours = calloc(n_ref + 1, sizeof *ours);
    for (size_t t = 0; t < d.n_tracks; t++) {
        if (strncmp(d.tracks[t].name, "Host Offload Ops row ", 21) != 0)
            continue;
        for (uint64_t k = 0; k < d.tracks[t].n_events; k++) {
            ck_assert_uint_lt(n_ours, n_ref);
            copy *c = &ours[n_ours++];
            const pv_derived_event *e = &d.tracks[t].events[k];
            snprintf(c->plane, sizeof c->plane, "%s",
                     pv_model_str(m, m->planes[d.tracks[t].plane].name));
            snprintf(c->name, sizeof c->name, "%s", e->name);
            c->start_ps = e->start_ps;
            c->dur_ps = e->dur_ps;
        }
    }
    ck_assert_uint_eq(n_ours, n_ref);
    qsort(ref, n_ref, sizeof *ref, cmp_copy);
    qsort(ours, n_ours, sizeof *ours, cmp_copy);
    for (size_t k = 0; k < n_ref; k++)
        ck_assert_msg(cmp_copy(&ref[k], &ours[k]) == 0, "copy %zu: %s %s at %lld ps", k,
                      ref[k].plane, ref[k].name, (long long)ref[k].start_ps);
    free(ref);
    free(ours);
    json_decref(golden);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- kept with the model ---------------------------------------------------------- */

static bool same_str(const char *a, const char *b)
{
    return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* The lines as read back from the model's memo (the lines model and what
 * lies beside it) are pv_trace_derive's, field by field: what the Chrome
 * JSON wrote before they were kept is what it writes now. */
static void check_kept_as_derived(const pv_model *m, const pv_trace_derived_lines *l)
{
    pv_arena a;
    pv_arena_init(&a, 1 << 12);
    pv_trace_derived want, got;
    pv_trace_derive(m, &a, &want);
    pv_trace_derived_view(l, &a, &got);
    ck_assert_uint_eq(got.n_tracks, want.n_tracks);
    ck_assert_int_eq(got.track_tid == NULL, want.track_tid == NULL);
    for (uint32_t k = 0; want.track_tid != NULL && k < m->n_tracks; k++)
        ck_assert_int_eq(got.track_tid[k], want.track_tid[k]);
    for (size_t k = 0; k < want.n_tracks; k++) {
        const pv_derived_track *w = &want.tracks[k], *g = &got.tracks[k];
        ck_assert_str_eq(g->name, w->name);
        ck_assert_uint_eq(g->plane, w->plane);
        ck_assert_uint_eq(g->after_track, w->after_track);
        ck_assert_int_eq(g->line_id, w->line_id);
        ck_assert_int_eq(g->tid, w->tid);
        ck_assert_uint_eq(g->kind, w->kind);
        ck_assert_uint_eq(g->n_depths, w->n_depths);
        ck_assert_uint_eq(g->n_events, w->n_events);
        for (uint64_t i = 0; i < w->n_events; i++) {
            const pv_derived_event *we = &w->events[i], *ge = &g->events[i];
            ck_assert_msg(ge->start_ps == we->start_ps && ge->dur_ps == we->dur_ps &&
                              ge->group_id == we->group_id && ge->depth == we->depth &&
                              ge->start_event == we->start_event &&
                              ge->done_event == we->done_event && same_str(ge->name, we->name) &&
                              same_str(ge->long_name, we->long_name),
                          "%s event %llu differs", w->name, (unsigned long long)i);
        }
    }
    pv_arena_fini(&a);
}

/* Made on the first read and kept with the model: a second read makes
 * nothing; the kept bytes, handed to another model of the same file as
 * the disk cache hands them after a restart, read back the same. */
static void check_kept(pv_model *m, pv_model *again)
{
    pv_trace_derived_lines l;
    pv_error err = {0};
    ck_assert_uint_eq(pv_model_memo_count(m), 0);
    ck_assert_msg(pv_trace_derived_lines_get(m, &l, &err) == 0, "%s", err.reason);
    ck_assert_uint_eq(pv_model_memo_count(m), 1);
    check_kept_as_derived(m, &l);
    pv_trace_derived_lines_fini(&l);
    ck_assert_int_eq(pv_trace_derived_lines_get(m, &l, &err), 0);
    ck_assert_uint_eq(pv_model_memo_count(m), 1);
    pv_trace_derived_lines_fini(&l);
    const char *name;
    const uint8_t *data;
    size_t len;
    pv_model_memo_at(m, 0, &name, &data, &len);
    uint8_t *kept = malloc(len + 1);
    memcpy(kept, data, len);
    pv_model_memo_give(again, name, kept, len);
    ck_assert_int_eq(pv_trace_derived_lines_get(again, &l, &err), 0);
    ck_assert_uint_eq(pv_model_memo_count(again), 1);
    check_kept_as_derived(again, &l);
    pv_trace_derived_lines_fini(&l);
}

START_TEST(test_kept_fixtures)
{
    pv_model *m = gpu_model(), *again = gpu_model();
    check_kept(m, again);
    pv_model_free(m);
    pv_model_free(again);
    m = tpu_model();
    again = tpu_model();
    check_kept(m, again);
    pv_model_free(m);
    pv_model_free(again);
}
END_TEST

/* A kept memo that does not read back (another layout, cut short) is an
 * error, not lines made up from it. */
START_TEST(test_kept_bad_memo)
{
    pv_model *m = gpu_model();
    uint8_t *junk = calloc(1, 64);
    memcpy(junk, "PVDLIN01", 8);
    pv_model_memo_give(m, "trace_derived_lines.1", junk, 64);
    pv_trace_derived_lines l;
    pv_error err = {0};
    ck_assert_int_eq(pv_trace_derived_lines_get(m, &l, &err), PV_EFORMAT);
    ck_assert_ptr_null(l.lines);
    pv_model_free(m);
}
END_TEST

static const char *const real_profiles[] = {
    "jax_rocm_mi300/plugins/profile/jax_conv_minimal_08/tw003",
    "jax_rocm_mi300/plugins/profile/jax08_gemm/tw003",
    "jax_rocm_mi300/plugins/profile/jax08_elementwise/tw003",
    "jax_rocm_mi300/plugins/profile/jax_conv_minimal_legacy/"
    "chi-mi300x-013.ord.vultr.cpe.ice.amd.com",
    "jax_tpu_v6e_inference/plugins/profile/tpu_inference/tpu_inference_2",
};

START_TEST(test_kept_real)
{
    PV_NEED_TESTDATA("test_kept_real");
    char path[512];
    snprintf(path, sizeof path, "%s/logdirs/%s.xplane.pb", PV_TESTDATA, real_profiles[_i]);
    pv_model *m = NULL, *again = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_file(path, NULL, &m, &err), 0);
    ck_assert_int_eq(pv_ingest_file(path, NULL, &again, &err), 0);
    check_kept(m, again);
    pv_model_free(m);
    pv_model_free(again);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trace_derived");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_gpu_lines);
    tcase_add_test(tc, test_grouped_file);
    tcase_add_test(tc, test_tpu_lines);
    tcase_add_test(tc, test_tpu_gap_rule);
    tcase_add_test(tc, test_tpu_op_display_names);
    tcase_add_test(tc, test_tpu_offload_real);
    tcase_add_test(tc, test_kept_fixtures);
    tcase_add_test(tc, test_kept_bad_memo);
    tcase_add_loop_test(tc, test_kept_real, 0,
                        (int)(sizeof real_profiles / sizeof real_profiles[0]));
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
