/* gpu_fixture: one small hand-built GPU profile shared by the kernel_stats
 * and op_stats suites. Every expected number in those suites was worked
 * out by hand from the table below (times in ps, absolute).
 *
 * /device:GPU:0, "Stream #1" (line 1):
 *   e1  volta_h884gemm_64x64  start  1e6  dur 10e6  grid 2,1,1  op model/dense/MatMul:MatMul
 *   e2  volta_h884gemm_64x64  start 20e6  dur  4e6  grid 2,1,1  same op
 *   e3  volta_h884gemm_64x64  start 30e6  dur  6e6  grid 4,1,1  same op
 *   e4  Eigen_kernel          start 40e6  dur 1.5e6             op model/dense/Relu:Relu
 *   e5  Eigen_kernel          start 42e6  dur  500  (< 1 ns)    same op
 *   e6  MemcpyH2D (no kernel_details, no op) start 43e6 dur 3e6
 * "Stream #2" (line 2):
 *   e7  Eigen_kernel          start  5e6  dur 2.5e6             op model/dense/Relu:Relu
 *   e8  my_einsum_kernel      start 10e6  dur  1e6  equation ab,bc->ac  op model/einsum/Einsum:Einsum
 *   e9  conv_kernel           start 12e6  dur  7e6  no op
 *   e10 aaa_kernel            start 50e6  dur  1e6  op x/Add:AddV2 (is_eager 1)
 *   e11 relu_kernel2          start 53e6  dur  1e6  op model/dense/Relu:Relu
 * "TensorFlow Ops" (derived, line 0xdeadbeef+3): a kernel event that must be ignored.
 * /host:CPU, thread "python" (line 100):
 *   h1 model/dense/MatMul:MatMul             start  0     dur 10e6
 *   h2 gradient_tape/dense/Op:Identity       start  2e6   dur  3e6 (child of h1)
 *   h3 EagerExecute (not an op)              start 12e6   dur  2e6
 *   h4 launch (tf_op model/dense/MatMul:MatMul) start 20e6 dur 4e6
 *   h5 a kernel_details event on the host: never a kernel row
 * thread "tf_data" (line 101):
 *   h6 Iterator::Prefetch (is_eager 1)       start 100e6  dur  5e6 */
#ifndef PV_TESTS_GPU_FIXTURE_H
#define PV_TESTS_GPU_FIXTURE_H

#include "ingest/ingest.h"
#include "model/builder.h"
#include "model_fixture.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

static inline void fx_kernel(pv_model_builder *b, uint32_t track, uint32_t meta, int64_t start,
                             int64_t dur, const char *details, const char *tf_op)
{
    uint64_t e = pv_builder_event(b, track, meta, start, dur);
    if (details != NULL)
        pv_builder_event_stat_str(b, e, "kernel_details", details);
    if (tf_op != NULL)
        pv_builder_event_stat_str(b, e, "tf_op", tf_op);
}

static inline pv_model *fx_gpu_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t s1 = pv_builder_track(b, gpu, 1, "Stream #1", 0);
    uint32_t s2 = pv_builder_track(b, gpu, 2, "Stream #2", 0);
    uint32_t ops = pv_builder_track(b, gpu, 0xdeadbeefll + 3, "TensorFlow Ops", 0);
    uint32_t h884 = pv_builder_meta(b, gpu, 1, "volta_h884gemm_64x64", NULL);
    uint32_t eigen = pv_builder_meta(b, gpu, 2, "Eigen_kernel", NULL);
    uint32_t memcpy_m = pv_builder_meta(b, gpu, 3, "MemcpyH2D", NULL);
    uint32_t einsum = pv_builder_meta(b, gpu, 4, "my_einsum_kernel", NULL);
    uint32_t conv = pv_builder_meta(b, gpu, 5, "conv_kernel", NULL);
    uint32_t aaa = pv_builder_meta(b, gpu, 6, "aaa_kernel", NULL);
    uint32_t relu2 = pv_builder_meta(b, gpu, 7, "relu_kernel2", NULL);
    const char *d1 = "regs:32 static_shared:1024 dynamic_shared:512 grid:2,1,1 block:128,1,1 "
                     "occ_pct:50.5";
    const char *d3 = "regs:32 static_shared:1024 dynamic_shared:512 grid:4,1,1 block:128,1,1 "
                     "occ_pct:50.5";
    const char *de = "regs:16 block:256,1,1";
    fx_kernel(b, s1, h884, 1000000, 10000000, d1, "model/dense/MatMul:MatMul");
    fx_kernel(b, s1, h884, 20000000, 4000000, d1, "model/dense/MatMul:MatMul");
    fx_kernel(b, s1, h884, 30000000, 6000000, d3, "model/dense/MatMul:MatMul");
    fx_kernel(b, s1, eigen, 40000000, 1500000, de, "model/dense/Relu:Relu");
    fx_kernel(b, s1, eigen, 42000000, 500, de, "model/dense/Relu:Relu");
    fx_kernel(b, s1, memcpy_m, 43000000, 3000000, NULL, NULL);
    fx_kernel(b, s2, eigen, 5000000, 2500000, de, "model/dense/Relu:Relu");
    uint64_t e8 = pv_builder_event(b, s2, einsum, 10000000, 1000000);
    pv_builder_event_stat_str(b, e8, "kernel_details", "regs:40 block:64,1,1");
    pv_builder_event_stat_str(b, e8, "tf_op", "model/einsum/Einsum:Einsum");
    pv_builder_event_stat_str(b, e8, "equation", "ab,bc->ac");
    fx_kernel(b, s2, conv, 12000000, 7000000, "regs:64 grid:8,8,1 block:32,4,1", NULL);
    uint64_t e10 = pv_builder_event(b, s2, aaa, 50000000, 1000000);
    pv_builder_event_stat_str(b, e10, "kernel_details", "regs:8");
    pv_builder_event_stat_str(b, e10, "tf_op", "x/Add:AddV2");
    pv_builder_event_stat_i64(b, e10, "is_eager", 1);
    fx_kernel(b, s2, relu2, 53000000, 1000000, "regs:20", "model/dense/Relu:Relu");
    fx_kernel(b, ops, eigen, 40000000, 9000000, de, "model/dense/Relu:Relu");

    uint32_t py = pv_builder_track(b, host, 100, "python", 0);
    uint32_t tfd = pv_builder_track(b, host, 101, "tf_data", 0);
    uint32_t hm = pv_builder_meta(b, host, 1, "model/dense/MatMul:MatMul", NULL);
    uint32_t hi = pv_builder_meta(b, host, 2, "gradient_tape/dense/Op:Identity", NULL);
    uint32_t he = pv_builder_meta(b, host, 3, "EagerExecute", NULL);
    uint32_t hl = pv_builder_meta(b, host, 4, "launch", NULL);
    uint32_t hk = pv_builder_meta(b, host, 5, "host_kernel", NULL);
    uint32_t hp = pv_builder_meta(b, host, 6, "Iterator::Prefetch", NULL);
    pv_builder_event(b, py, hm, 0, 10000000);
    pv_builder_event(b, py, hi, 2000000, 3000000);
    pv_builder_event(b, py, he, 12000000, 2000000);
    uint64_t h4 = pv_builder_event(b, py, hl, 20000000, 4000000);
    pv_builder_event_stat_str(b, h4, "tf_op", "model/dense/MatMul:MatMul");
    uint64_t h5 = pv_builder_event(b, py, hk, 30000000, 1);
    pv_builder_event_stat_str(b, h5, "kernel_details", "regs:1");
    uint64_t h6 = pv_builder_event(b, tfd, hp, 100000000, 5000000);
    pv_builder_event_stat_i64(b, h6, "is_eager", 1);

    return pv_test_finish(b);
}

/* Kernels shorter than a microsecond, which no real profile here has
 * (times in ps, absolute). /device:GPU:0, "Stream #1":
 *   s1 tiny_kernel    start 1e6        dur 750000 (750 ns)   op a/Add:AddV2
 *   s2 tiny_kernel    start 2e6        dur 250500 (250.5 ns) same op
 *   s3 one_ns_kernel  start 3e6        dur 1000   (1 ns)     op b/Mul:Mul
 *   s4 one_ns_kernel  start 4e6        dur 999    (< 1 ns)   same op
 * tiny_kernel's details use the old "shm:" key (9216 bytes, TF 2.4). */
static inline pv_model *fx_sub_us_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t s1 = pv_builder_track(b, gpu, 1, "Stream #1", 0);
    uint32_t tiny = pv_builder_meta(b, gpu, 1, "tiny_kernel", NULL);
    uint32_t one = pv_builder_meta(b, gpu, 2, "one_ns_kernel", NULL);
    const char *dt = "regs:8 shm:9216 grid:1,1,1 block:32,1,1";
    const char *d1 = "regs:4 grid:1,1,1 block:1,1,1";
    fx_kernel(b, s1, tiny, 1000000, 750000, dt, "a/Add:AddV2");
    fx_kernel(b, s1, tiny, 2000000, 250500, dt, "a/Add:AddV2");
    fx_kernel(b, s1, one, 3000000, 1000, d1, "b/Mul:Mul");
    fx_kernel(b, s1, one, 4000000, 999, d1, "b/Mul:Mul");
    return pv_test_finish(b);
}

/* A CPU-only profile: one host thread with one op. */
static inline pv_model *fx_cpu_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, host, 1, "python", 0);
    uint32_t op = pv_builder_meta(b, host, 1, "a/MatMul:MatMul", NULL);
    pv_builder_event(b, t, op, 0, 2000000);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), 0);
    return m;
}

#endif

/* ---- an XLA profile: HLO proto + kernels that name HLO ops ---------------- */

/* Protobuf wire helpers to hand-write an HloProto (field numbers from
 * xla/service/hlo.proto, see proto/hlo.proto). */
typedef struct fx_buf {
    uint8_t b[1024];
    size_t n;
} fx_buf;

static inline void fx_varint(fx_buf *w, uint64_t v)
{
    while (v >= 0x80) {
        w->b[w->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    w->b[w->n++] = (uint8_t)v;
}

static inline void fx_bytes(fx_buf *w, uint32_t field, const void *p, size_t len)
{
    fx_varint(w, (uint64_t)field << 3 | 2);
    fx_varint(w, len);
    memcpy(w->b + w->n, p, len);
    w->n += len;
}

static inline void fx_str(fx_buf *w, uint32_t field, const char *s)
{
    fx_bytes(w, field, s, strlen(s));
}

/* HloProto{module{name "jit_f", computations[{name "main", instructions
 * [fusion.1 (op_type dot_general, op_name jit(f)/dot_general), copy.1 (no
 * metadata)]}]}}. */
static inline fx_buf fx_hlo_proto(void)
{
    fx_buf meta = {0}, i1 = {0}, i2 = {0}, comp = {0}, mod = {0}, proto = {0};
    fx_str(&meta, 1, "dot_general");
    fx_str(&meta, 2, "jit(f)/dot_general");
    fx_str(&i1, 1, "fusion.1");
    fx_str(&i1, 2, "fusion");   /* opcode: skipped by the reader */
    fx_bytes(&i1, 7, meta.b, meta.n);
    fx_varint(&i1, 35 << 3);   /* id = 7 (varint field 35): skipped */
    fx_varint(&i1, 7);
    fx_str(&i2, 1, "copy.1");
    fx_str(&comp, 1, "main");
    fx_bytes(&comp, 2, i1.b, i1.n);
    fx_bytes(&comp, 2, i2.b, i2.n);
    fx_str(&mod, 1, "jit_f");
    fx_bytes(&mod, 3, comp.b, comp.n);
    fx_bytes(&proto, 1, mod.b, mod.n);
    return proto;
}

static inline void fx_xla_kernel(pv_model_builder *b, uint32_t track, uint32_t meta,
                                 int64_t start, int64_t dur, const char *hlo_op,
                                 int64_t program, int64_t group)
{
    uint64_t e = pv_builder_event(b, track, meta, start, dur);
    pv_builder_event_stat_str(b, e, "kernel_details", "regs:32 block:256,1,1");
    pv_builder_event_stat_str(b, e, "tf_op", "XlaModule:");
    pv_builder_event_stat_str(b, e, "hlo_op", hlo_op);
    pv_builder_event_stat_i64(b, e, "program_id", program);
    pv_builder_event_stat_i64(b, e, "group_id", group);
}

/* /host:metadata: program 7's HLO proto (above) and program 8's, cut
 * short (unreadable). /device:GPU:0 "Stream #1", times in ps:
 *   x1 gemm_kernel  fusion.1  start  0    dur 10e6  group 1
 *   x2 gemm_kernel  fusion.1  start 20e6  dur  5e6  group 1
 *   x3 gemm_kernel  fusion.1  start 30e6  dur  5e6  group 2
 *   x4 copy_kernel  copy.1    start 40e6  dur  2e6  group 2
 *   x5 other_kernel missing.3 start 50e6  dur  3e6  group 2  (not in the proto)
 *   x6 bad_kernel   fusion.9  program 8   start 60e6 dur 1e6 (no readable proto)
 * Every kernel also carries the tf_op "XlaModule:". */
static inline pv_model *fx_xla_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t md = pv_builder_plane(b, 0, "/host:metadata");
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    fx_buf proto = fx_hlo_proto();
    uint32_t s_hlo = pv_builder_intern_cstr(b, "Hlo Proto");
    uint32_t m7 = pv_builder_meta(b, md, 7, "jit_f(7)", NULL);
    pv_builder_meta_stat(b, m7, (pv_stat){s_hlo, PV_STAT_BYTES,
                                         {.blob = pv_builder_blob(b, proto.b, proto.n)}});
    uint32_t m8 = pv_builder_meta(b, md, 8, "jit_g(8)", NULL);
    pv_builder_meta_stat(b, m8, (pv_stat){s_hlo, PV_STAT_BYTES,
                                         {.blob = pv_builder_blob(b, proto.b, proto.n - 3)}});
    uint32_t s1 = pv_builder_track(b, gpu, 1, "Stream #1", 0);
    uint32_t gemm = pv_builder_meta(b, gpu, 1, "gemm_kernel", NULL);
    uint32_t copy = pv_builder_meta(b, gpu, 2, "copy_kernel", NULL);
    uint32_t other = pv_builder_meta(b, gpu, 3, "other_kernel", NULL);
    uint32_t bad = pv_builder_meta(b, gpu, 4, "bad_kernel", NULL);
    fx_xla_kernel(b, s1, gemm, 0, 10000000, "fusion.1", 7, 1);
    fx_xla_kernel(b, s1, gemm, 20000000, 5000000, "fusion.1", 7, 1);
    fx_xla_kernel(b, s1, gemm, 30000000, 5000000, "fusion.1", 7, 2);
    fx_xla_kernel(b, s1, copy, 40000000, 2000000, "copy.1", 7, 2);
    fx_xla_kernel(b, s1, other, 50000000, 3000000, "missing.3", 7, 2);
    fx_xla_kernel(b, s1, bad, 60000000, 1000000, "fusion.9", 8, 2);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_builder_finish(b, &m, &err), 0);
    pv_ingest_attach(m);   /* the HLO decoder, as ingest gives every model */
    return m;
}
