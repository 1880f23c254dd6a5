/* Unit tests of the tools on PyTorch (Kineto) traces: the roles and
 * launch links the decoder gives the model as the tools read them,
 * PyTorch's operators in framework_op_stats (op_metrics_kineto.c) and
 * kernel_stats' op of a kernel. The fixture is
 * a small trace JSON whose numbers are worked out by hand below, following
 * torch-tb-profiler's rules (node.py, op_tree.py). */
#include "ingest/ingest.h"
#include "tools/kernel_stats/kernel_stats.h"
#include "tools/memory_profile/memory_profile.h"
#include "tools/op_stats/op_metrics.h"
#include "tools/op_stats/op_stats.h"
#include "tools/steps/gpu_time.h"
#include "tools/steps/overview.h"
#include "tools/steps/overview_pytorch.h"
#include "tools/steps/steps.h"
#include "testutil.h"

#include <string.h>

/* Thread 1 (times in us):
 *   ProfilerStep#1 [0,100] (user_annotation)
 *     aten::conv2d [10,60] ext 2
 *       aten::convolution [11,51] ext 3, launches k2 (4 us) at 45 for 2 us
 *         aten::convolution [12,42] ext 4, launches k1 (10 us) at 15 for 5 us
 *     aten::add_ [70,90] ext 5, launches k3 (6 us) at 72 for 3 us
 *     Optimizer.step#SGD.step [92,97] ext 6
 * The inner convolution is its parent's only child of the same name: the
 * parent takes its place and its runtime calls, and drops its own (k2's
 * launch). So, by hand:
 *   aten::conv2d       1 call, host 50 total, 50-40 = 10 self, device 10 total, 0 self
 *   aten::convolution  1 call, host 40 total, 40-5 = 35 self, device 10 and 10
 *   aten::add_         1 call, host 20 total, 20-3 = 17 self, device 6 and 6
 * The step and the optimizer are no operators of the view. */
static const char trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":9,\"tid\":1,"
    "\"ts\":0,\"dur\":100,\"args\":{\"External id\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::conv2d\",\"pid\":9,\"tid\":1,\"ts\":10,"
    "\"dur\":50,\"args\":{\"External id\":2}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::convolution\",\"pid\":9,\"tid\":1,\"ts\":11,"
    "\"dur\":40,\"args\":{\"External id\":3}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::convolution\",\"pid\":9,\"tid\":1,\"ts\":12,"
    "\"dur\":30,\"args\":{\"External id\":4}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,\"tid\":1,"
    "\"ts\":15,\"dur\":5,\"args\":{\"External id\":4,\"correlation\":100}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,\"tid\":1,"
    "\"ts\":45,\"dur\":2,\"args\":{\"External id\":3,\"correlation\":101}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add_\",\"pid\":9,\"tid\":1,\"ts\":70,"
    "\"dur\":20,\"args\":{\"External id\":5}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,\"tid\":1,"
    "\"ts\":72,\"dur\":3,\"args\":{\"External id\":5,\"correlation\":102}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"Optimizer.step#SGD.step\",\"pid\":9,\"tid\":1,"
    "\"ts\":92,\"dur\":5,\"args\":{\"External id\":6}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":10,"
    "\"args\":{\"External id\":4,\"correlation\":100,\"grid\":[1,1,1],\"block\":[32,1,1]}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":4,"
    "\"args\":{\"External id\":3,\"correlation\":101,\"grid\":[1,1,1],\"block\":[32,1,1]}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"volta_h884gemm\",\"pid\":0,\"tid\":7,\"ts\":80,"
    "\"dur\":6,\"args\":{\"external id\":5,\"correlation\":102,\"grid\":[2,1,1],"
    "\"block\":[64,1,1]}},"
    "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":9,\"tid\":1,\"ts\":13,\"s\":\"t\","
    "\"args\":{\"Bytes\":512}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":9,\"args\":{\"labels\":\"CPU\"}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}}"
    "]}";

static pv_model *load(void)
{
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_buffer((const uint8_t *)trace, sizeof trace - 1, "t.pt.trace.json",
                                      NULL, &m, &err),
                     0);
    return m;
}

static pv_model *load_text(const char *text)
{
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_buffer((const uint8_t *)text, strlen(text), "t.pt.trace.json", NULL,
                                      &m, &err),
                     0);
    return m;
}

/* A model as an XSpace gives it: one host op, no Kineto categories. */
static pv_model *xspace_like_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 1, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "main", 0);
    pv_builder_event(b, t, pv_builder_meta(b, p, 1, "MatMul", NULL), 0, 10);
    pv_model *m = NULL;
    ck_assert_int_eq(pv_builder_finish(b, &m, NULL), 0);
    return m;
}

static uint64_t event_named(const pv_model *m, const char *name, int64_t start_us)
{
    for (uint64_t e = 0; e < m->n_events; e++)
        if (strcmp(pv_model_event_name(m, e), name) == 0 &&
            m->ev_start_ps[e] == start_us * 1000000)
            return e;
    ck_abort_msg("no %s at %lld us", name, (long long)start_us);
    return 0;
}

static const pv_op_metrics *op_named(const pv_op_metrics_db *db, const char *name)
{
    for (size_t i = 0; i < db->n_ops; i++)
        if (strcmp(db->ops[i].name, name) == 0)
            return &db->ops[i];
    return NULL;
}

#define US 1000000ull

/* ---- the fixture's roles and launch links, as the tools read them ------------------ */

START_TEST(test_kineto_roles_and_launchers)
{
    pv_model *m = load();
    ck_assert(pv_model_has_roles(m));
    ck_assert_int_eq(pv_model_event_role(m, event_named(m, "ProfilerStep#1", 0)), PV_ROLE_STEP);
    ck_assert_int_eq(pv_model_event_role(m, event_named(m, "aten::conv2d", 10)),
                     PV_ROLE_OPERATOR);
    ck_assert_int_eq(pv_model_event_role(m, event_named(m, "cudaLaunchKernel", 15)),
                     PV_ROLE_RUNTIME);
    ck_assert_int_eq(pv_model_event_role(m, event_named(m, "k1", 20)), PV_ROLE_KERNEL);
    ck_assert_int_eq(pv_model_event_role(m, event_named(m, "[memory]", 13)), PV_ROLE_MEMORY);
    /* a kernel's External id names its op; the 2021 spelling too */
    ck_assert_uint_eq(pv_model_launcher(m, event_named(m, "k1", 20)),
                      event_named(m, "aten::convolution", 12));
    ck_assert_uint_eq(pv_model_launcher(m, event_named(m, "volta_h884gemm", 80)),
                      event_named(m, "aten::add_", 70));
    ck_assert_uint_eq(pv_model_launcher(m, event_named(m, "[memory]", 13)), PV_NO_EVENT);
    uint64_t conv2d = event_named(m, "aten::conv2d", 10), add = event_named(m, "aten::add_", 70);
    ck_assert(pv_model_meta_roles(m, m->ev_meta[conv2d]) & PV_ROLE_TENSOR_CORE_OP);
    ck_assert(!(pv_model_meta_roles(m, m->ev_meta[add]) & PV_ROLE_TENSOR_CORE_OP));
    pv_model_free(m);
}
END_TEST

START_TEST(test_kineto_absent_from_xspace_like_models)
{
    pv_model *m = xspace_like_model();
    ck_assert(!pv_model_has_roles(m));
    ck_assert_ptr_null(m->meta_roles);
    ck_assert_uint_eq(m->n_launches, 0);
    pv_model_free(m);
}
END_TEST

/* ---- framework_op_stats --------------------------------------------------------------- */

START_TEST(test_op_metrics_kineto_by_hand)
{
    pv_model *m = load();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_metrics_db host, device;
    ck_assert_int_eq(pv_op_metrics_kineto(m, NULL, &a, &host, &device, NULL), 0);
    ck_assert_uint_eq(host.n_ops, 3);
    const pv_op_metrics *conv2d = op_named(&host, "aten::conv2d");
    const pv_op_metrics *conv = op_named(&host, "aten::convolution");
    const pv_op_metrics *add = op_named(&host, "aten::add_");
    ck_assert(conv2d != NULL && conv != NULL && add != NULL);
    ck_assert_uint_eq(conv2d->occurrences, 1);
    ck_assert_uint_eq(conv2d->time_ps, 50 * US);
    ck_assert_uint_eq(conv2d->self_time_ps, 10 * US);
    ck_assert_uint_eq(conv->occurrences, 1);
    ck_assert_uint_eq(conv->time_ps, 40 * US);
    ck_assert_uint_eq(conv->self_time_ps, 35 * US);
    ck_assert_uint_eq(add->time_ps, 20 * US);
    ck_assert_uint_eq(add->self_time_ps, 17 * US);
    ck_assert_str_eq(conv->type, "aten::convolution");
    ck_assert_uint_eq(host.total_op_time_ps, (10 + 35 + 17) * US);
    ck_assert_uint_eq(device.n_ops, 3);
    ck_assert_uint_eq(op_named(&device, "aten::conv2d")->time_ps, 10 * US);
    ck_assert_uint_eq(op_named(&device, "aten::conv2d")->self_time_ps, 0);
    ck_assert_uint_eq(op_named(&device, "aten::convolution")->self_time_ps, 10 * US);
    ck_assert_uint_eq(op_named(&device, "aten::add_")->time_ps, 6 * US);
    ck_assert_uint_eq(device.total_op_time_ps, 16 * US);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* Three aten::mm calls, two of one input shape and call stack: by hand,
 * grouped by shape, [[2,3],[3,4]] has 2 calls and 4 + 6 = 10 us,
 * [[5,6],[6,7]] 1 call and 8 us, and aten::relu (no shapes recorded) 1
 * call of 1 us; grouped by call stack, "a.py(1): f" has 2 calls, 10 us,
 * and no stack 1 call, 8 us; grouped by name only, aten::mm has 3 calls
 * and 18 us. */
static const char shapes_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":9,\"tid\":1,\"ts\":0,"
    "\"dur\":4,\"args\":{\"Input Dims\":[[2, 3], [3, 4]],\"Call stack\":\"a.py(1): f\"}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":9,\"tid\":1,\"ts\":10,"
    "\"dur\":8,\"args\":{\"Input Dims\":[[5,6],[6,7]]}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":9,\"tid\":1,\"ts\":20,"
    "\"dur\":6,\"args\":{\"Input Dims\":[[2,3],[3,4]],\"Call stack\":\"a.py(1): f\"}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":9,\"tid\":1,\"ts\":30,"
    "\"dur\":1}]";

static const pv_op_metrics *op_shaped(const pv_op_metrics_db *db, const char *name,
                                      const char *shape)
{
    for (size_t i = 0; i < db->n_ops; i++)
        if (strcmp(db->ops[i].name, name) == 0 && strcmp(db->ops[i].group_value, shape) == 0)
            return &db->ops[i];
    return NULL;
}

START_TEST(test_op_metrics_kineto_grouped)
{
    pv_model *m = load_text(shapes_trace);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_metrics_db host, device;
    ck_assert_int_eq(pv_op_metrics_kineto(m, "Input Dims", &a, &host, &device, NULL), 0);
    ck_assert_uint_eq(host.n_ops, 3);
    const pv_op_metrics *small = op_shaped(&host, "aten::mm", "[[2,3],[3,4]]");
    const pv_op_metrics *big = op_shaped(&host, "aten::mm", "[[5,6],[6,7]]");
    const pv_op_metrics *relu = op_shaped(&host, "aten::relu", "");
    ck_assert(small != NULL && big != NULL && relu != NULL);
    ck_assert_uint_eq(small->occurrences, 2);
    ck_assert_uint_eq(small->time_ps, 10 * US);
    ck_assert_uint_eq(big->occurrences, 1);
    ck_assert_uint_eq(big->time_ps, 8 * US);
    ck_assert_uint_eq(relu->time_ps, 1 * US);
    ck_assert_uint_eq(device.n_ops, 0);
    ck_assert_int_eq(pv_op_metrics_kineto(m, "Call stack", &a, &host, &device, NULL), 0);
    ck_assert_uint_eq(host.n_ops, 3);
    ck_assert_uint_eq(op_shaped(&host, "aten::mm", "a.py(1): f")->occurrences, 2);
    ck_assert_uint_eq(op_shaped(&host, "aten::mm", "a.py(1): f")->time_ps, 10 * US);
    ck_assert_uint_eq(op_shaped(&host, "aten::mm", "")->time_ps, 8 * US);
    ck_assert_int_eq(pv_op_metrics_kineto(m, NULL, &a, &host, &device, NULL), 0);
    ck_assert_uint_eq(host.n_ops, 2);
    ck_assert_uint_eq(op_named(&host, "aten::mm")->occurrences, 3);
    ck_assert_uint_eq(op_named(&host, "aten::mm")->time_ps, 18 * US);
    ck_assert_ptr_null(op_named(&host, "aten::mm")->group_value);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* The tool says the trace has shapes and stacks, and asked, gives a row
 * per shape. */
START_TEST(test_op_stats_tool_by_input_shape)
{
    pv_model *m = load_text(shapes_trace);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_stats_query q = {.group = PV_OP_GROUP_INPUT_SHAPE};
    pv_op_stats_result r;
    ck_assert_int_eq(pv_tool_op_stats(m, &q, &a, &r, NULL), 0);
    ck_assert(r.has_group[PV_OP_GROUP_INPUT_SHAPE] && r.group == PV_OP_GROUP_INPUT_SHAPE);
    ck_assert(r.has_group[PV_OP_GROUP_CALL_STACK]);
    ck_assert_uint_eq(r.without_idle.n_rows, 3);
    q.group = PV_OP_GROUP_OPERATOR;
    ck_assert_int_eq(pv_tool_op_stats(m, &q, &a, &r, NULL), 0);
    ck_assert(r.has_group[PV_OP_GROUP_INPUT_SHAPE] && r.group == PV_OP_GROUP_OPERATOR);
    ck_assert_uint_eq(r.without_idle.n_rows, 2);
    pv_model_free(m);
    m = load();
    ck_assert_int_eq(pv_tool_op_stats(m, &q, &a, &r, NULL), 0);
    ck_assert(!r.has_group[PV_OP_GROUP_INPUT_SHAPE]);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

START_TEST(test_op_stats_tool_on_kineto)
{
    pv_model *m = load();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_op_stats_result r;
    ck_assert_int_eq(pv_tool_op_stats(m, NULL, &a, &r, NULL), 0);
    /* device rows first (3), then host rows (3), no IDLE; each side by
     * self time: convolution 10, add_ 6, conv2d 0 on the device */
    ck_assert_uint_eq(r.with_idle.n_rows, 6);
    ck_assert_uint_eq(r.without_idle.n_rows, 6);
    ck_assert(r.with_idle.rows[0].on_device);
    ck_assert_str_eq(r.with_idle.rows[0].op->name, "aten::convolution");
    ck_assert_str_eq(r.with_idle.rows[1].op->name, "aten::add_");
    ck_assert_str_eq(r.with_idle.rows[2].op->name, "aten::conv2d");
    ck_assert(!r.with_idle.rows[3].on_device);
    ck_assert_str_eq(r.with_idle.rows[3].op->name, "aten::convolution");   /* 35 us self */
    ck_assert(r.with_idle.rows[3].host_fraction == 35.0 / 62.0);
    ck_assert_str_eq(r.task_type, "Inference");
    /* the kernel of add_ uses TensorCores (h884 in its name) */
    ck_assert(r.with_idle.rows[1].gpu_tensorcore_utilization == 1.0);
    ck_assert(r.with_idle.rows[0].gpu_tensorcore_utilization == 0.0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- kernel_stats --------------------------------------------------------------------- */

START_TEST(test_kernel_stats_op_of_kineto_kernels)
{
    pv_model *m = load();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_kernel_stats_result r;
    pv_kernel_stats_query q = {0};
    ck_assert_int_eq(pv_tool_kernel_stats(m, &q, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.n_rows_total, 3);
    ck_assert_uint_eq(r.n_kernel_events, 3);
    for (size_t i = 0; i < r.n_rows; i++) {
        const pv_kernel_row *row = &r.rows[i];
        if (strcmp(row->kernel_name, "k1") == 0 || strcmp(row->kernel_name, "k2") == 0) {
            ck_assert_str_eq(row->op_name, "aten::convolution");
            ck_assert(row->is_op_tensor_core_eligible);
        } else {
            ck_assert_str_eq(row->op_name, "aten::add_");
            ck_assert(row->is_kernel_using_tensor_core);
            ck_assert_uint_eq(row->total_ns, 6000);
        }
    }
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- steps ------------------------------------------------------------------------------ */

/* The fixture's one step, by hand with torch-tb-profiler's rules: ProfilerStep#1
 * spans 0-100 us (its kernels end by 86); kernels take 20 us (20-30,
 * 50-54, 80-86), runtime calls 10 of what is left (15-20, 45-47, 72-75),
 * operators 45 of the rest (10-60, 70-90 and 92-97 less the above:
 * 5 + 15 + 3 + 6, 2 + 5 + 4, 5), and 25 us are Other. */
START_TEST(test_steps_kineto_by_hand)
{
    pv_model *m = load();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_steps_result r;
    ck_assert_int_eq(pv_tool_steps(m, NULL, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.n_steps, 1);
    ck_assert_int_eq(r.hardware, PV_HW_GPU);
    const pv_step *s = &r.steps[0];
    ck_assert_str_eq(s->name, "1");
    ck_assert_int_eq(s->begin_ps, 0);
    ck_assert_int_eq(s->dur_ps, 100 * (int64_t)US);
    ck_assert_int_eq(s->type_ps[PV_STEP_DEVICE_COMPUTE_32], 20 * (int64_t)US);
    ck_assert_int_eq(s->type_ps[PV_STEP_HOST_PREPARE], 10 * (int64_t)US);
    ck_assert_int_eq(s->type_ps[PV_STEP_HOST_COMPUTE], 45 * (int64_t)US);
    ck_assert_int_eq(s->type_ps[PV_STEP_UNKNOWN], 25 * (int64_t)US);
    ck_assert_int_eq(s->type_ps[PV_STEP_HOST_WAIT_INPUT], 0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* Computation and communication of one step, by hand with
 * overall_parser.py's rules: ProfilerStep#1 spans 0-100 us; the NCCL
 * kernel (20-60, launched by nccl:all_reduce) and the collective itself
 * (10-30) communicate over 10-60, the mm kernel computes over 50-70; both
 * over 50-60. So: computing only 10, both 10, communicating only 40, and
 * 100 + 10 - 20 - 50 = 40 neither. */
static const char comm_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":9,"
    "\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"nccl:all_reduce\",\"pid\":9,\"tid\":1,"
    "\"ts\":10,\"dur\":20,\"args\":{\"External id\":10}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,"
    "\"tid\":1,\"ts\":12,\"dur\":2,\"args\":{\"External id\":10,\"correlation\":200}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":9,\"tid\":1,"
    "\"ts\":40,\"dur\":10,\"args\":{\"External id\":11}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,"
    "\"tid\":1,\"ts\":41,\"dur\":2,\"args\":{\"External id\":11,\"correlation\":201}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":0,"
    "\"tid\":7,\"ts\":20,\"dur\":40,\"args\":{\"External id\":10,\"correlation\":200}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":8,\"ts\":50,"
    "\"dur\":20,\"args\":{\"External id\":11,\"correlation\":201}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}}]";

START_TEST(test_steps_kineto_overlap_by_hand)
{
    pv_model *m = NULL;
    ck_assert_int_eq(pv_ingest_buffer((const uint8_t *)comm_trace, sizeof comm_trace - 1,
                                      "t.pt.trace.json", NULL, &m, NULL),
                     0);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_step_overlap *o;
    size_t n;
    ck_assert_int_eq(pv_steps_kineto_overlap(m, &a, &o, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(o[0].name, "1");
    ck_assert_int_eq(o[0].computation_ps, 10 * (int64_t)US);
    ck_assert_int_eq(o[0].overlap_ps, 10 * (int64_t)US);
    ck_assert_int_eq(o[0].communication_ps, 40 * (int64_t)US);
    ck_assert_int_eq(o[0].other_ps, 40 * (int64_t)US);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- memory_profile -------------------------------------------------------------------- */

/* The peak per device of two real traces against count_trace.py:
 *   python3 tools/reference/count_trace.py \
 *     ../shared/testdata/traces/tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz \
 *     ../shared/testdata/traces/tracelens/mi300_ddp_resnet18_train.json.gz
 * gives 101305344 bytes on CUDA device 0 and 16 on the CPU (H100), 8 on
 * the CPU (MI300, whose [memory] events of the GPU have no Total
 * Allocated). */
START_TEST(test_memory_profile_kineto_peaks)
{
    PV_NEED_TESTDATA("test_memory_profile_kineto_peaks");
    static const struct {
        const char *path;
        const char *allocator;
        int64_t peak;
    } want[] = {
        {"tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz", "GPU 0", 101305344},
        {"tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz", "CPU", 16},
        {"tracelens/mi300_ddp_resnet18_train.json.gz", "CPU", 8},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/traces/%s", PV_TESTDATA, want[i].path);
        pv_model *m = NULL;
        ck_assert_int_eq(pv_ingest_file(path, NULL, &m, NULL), 0);
        pv_arena a;
        pv_arena_init(&a, 1 << 16);
        pv_memory_profile_result r;
        ck_assert_int_eq(pv_tool_memory_profile(m, NULL, &a, &r, NULL), 0);
        bool found = false;
        for (size_t k = 0; k < r.n_allocators; k++) {
            if (strcmp(r.allocators[k].memory_id, want[i].allocator) != 0)
                continue;
            found = true;
            ck_assert_int_eq(r.allocators[k].summary.peak_stats.peak_bytes_in_use, want[i].peak);
            ck_assert_int_eq(r.allocators[k].summary.peak_bytes_usage_lifetime, want[i].peak);
        }
        ck_assert_msg(found, "%s: no allocator %s", want[i].path, want[i].allocator);
        pv_arena_fini(&a);
        pv_model_free(m);
    }
}
END_TEST

/* ---- overview_pytorch ------------------------------------------------------------ */

/* The recommendations of m, in *out (arena a). */
static void advice_of(const pv_model *m, pv_arena *a, pv_pytorch_overview *out)
{
    pv_steps_result steps;
    ck_assert_int_eq(pv_steps_kineto(m, a, &steps), 0);
    pv_overview_pytorch(m, &steps, true, a, out);
}

/* One step 0-100 us on a GPU of compute capability 7:
 *   aten::mm [15,25] launches gemm [20,30]; aten::add_ [35,45] launches add
 *   [40,70]; enumerate(DataLoader)... [80,90].
 * By hand: DataLoader 10 of 100 us (> 5 %): 10.0 %; the GPU's kernels
 * cover 10 + 30 = 40 of 100 us (< 50 %); no kernel name of a Tensor Core
 * kernel, and aten::mm (eligible) launched 10 of the 40 us of kernels
 * that operators launched: 25 %. GPU summary: est. SM efficiency
 * (10 x 0.5 + 30 x min(2, 1)) / 100 = 35 %, occupancy (10 x 40 + 30 x 70)
 * / 40 = 62.5 %. */
static const char tc_trace[] =
    "{\"deviceProperties\":[{\"id\":0,\"computeMajor\":7,\"computeMinor\":0}],"
    "\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":9,\"tid\":1,"
    "\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":9,\"tid\":1,\"ts\":15,"
    "\"dur\":10,\"args\":{\"External id\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,\"tid\":1,"
    "\"ts\":16,\"dur\":2,\"args\":{\"External id\":1,\"correlation\":300}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add_\",\"pid\":9,\"tid\":1,\"ts\":35,"
    "\"dur\":10,\"args\":{\"External id\":2}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,\"tid\":1,"
    "\"ts\":36,\"dur\":2,\"args\":{\"External id\":2,\"correlation\":301}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\","
    "\"name\":\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\",\"pid\":9,"
    "\"tid\":1,\"ts\":80,\"dur\":10,\"args\":{\"External id\":3}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":10,"
    "\"args\":{\"External id\":1,\"correlation\":300,\"blocks per SM\":0.5,"
    "\"est. achieved occupancy %\":40}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"add\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":30,"
    "\"args\":{\"External id\":2,\"correlation\":301,\"blocks per SM\":2,"
    "\"est. achieved occupancy %\":70}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":9,\"args\":{\"labels\":\"CPU\"}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}}"
    "]}";

START_TEST(test_overview_pytorch_advice_by_hand)
{
    pv_model *m = load_text(tc_trace);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_pytorch_overview l;
    advice_of(m, &a, &l);
    ck_assert(l.present);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_str_eq(l.items[0].kind, "data_loading");
    ck_assert_double_eq_tol(l.items[0].percent, 10.0, 1e-9);
    ck_assert_ptr_nonnull(strstr(l.items[0].text, " 10.0% of the step time is in DataLoader."));
    ck_assert_str_eq(l.items[1].kind, "gpu_utilization");
    ck_assert_double_eq_tol(l.items[1].percent, 40.0, 1e-9);
    ck_assert_ptr_nonnull(strstr(l.items[1].text, "GPU 0 has low utilization."));
    ck_assert_str_eq(l.items[2].kind, "tensor_cores");
    ck_assert_double_eq_tol(l.items[2].percent, 25.0, 1e-9);
    ck_assert_ptr_nonnull(strstr(l.items[2].text, "Kernels with 25% time are launched by"));
    ck_assert_uint_eq(l.n_gpus, 1);
    ck_assert_int_eq(l.gpus[0].device, 0);
    ck_assert_double_eq_tol(l.gpus[0].utilization, 0.40, 1e-12);
    ck_assert_double_eq_tol(l.gpus[0].sm_efficiency, 0.35, 1e-12);
    ck_assert_double_eq_tol(l.gpus[0].occupancy_pct, 62.5, 1e-9);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* The overview's device idle share on a trace is what the GPU's kernels
 * leave uncovered: 100 - 40 = 60 % on tc_trace (hand count above), not the
 * 100 % of a device op table that holds no kernel of a framework op. */
START_TEST(test_overview_device_idle_of_trace)
{
    pv_model *m = load_text(tc_trace);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_overview_query q = {0};
    pv_overview_result r;
    pv_error err = {0};
    ck_assert_int_eq(pv_tool_overview(m, &q, &a, &r, &err), 0);
    ck_assert_double_eq_tol(r.device_idle_percent, 60.0, 1e-9);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* comm_trace by hand: of its step's 100 us the gemm kernel takes 50-70
 * first, communication the rest of 10-60, 40 us (> 10 %); the GPU's
 * kernels cover 20-70, 50 % (not below it); no deviceProperties, so no
 * Tensor Core advice. */
START_TEST(test_overview_pytorch_advice_communication)
{
    pv_model *m = load_text(comm_trace);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_pytorch_overview l;
    advice_of(m, &a, &l);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_str_eq(l.items[0].kind, "communication");
    ck_assert_ptr_nonnull(strstr(l.items[0].text, " 40.0% of the step time is in communication."));
    ck_assert_uint_eq(l.n_gpus, 1);
    ck_assert_double_eq_tol(l.gpus[0].utilization, 0.50, 1e-12);
    ck_assert(l.gpus[0].sm_efficiency < 0 && l.gpus[0].occupancy_pct < 0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* The kinds of advice l holds, the index of kind or -1. */
static int advice_index(const pv_pytorch_overview *l, const char *kind)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i].kind, kind) == 0)
            return (int)i;
    return -1;
}

/* A one-step trace (ProfilerStep#1 0-100 us) with host event `op` at
 * 10-90, kernels of 60 us on each GPU of gpus[] (so none is idle more
 * than half the step), deviceProperties `props` (JSON objects, "" for
 * none) and `memory` ([memory] events, "" for none), into buf. */
static const char *parallel_trace(char *buf, size_t cap, const char *op, int n_gpus,
                                  const char *props, const char *memory)
{
    int n = snprintf(buf, cap,
                     "{%s%s%s\"traceEvents\":["
                     "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                     "\"pid\":9,\"tid\":1,\"ts\":0,\"dur\":100},"
                     "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":9,\"tid\":1,"
                     "\"ts\":10,\"dur\":80,\"args\":{\"External id\":1}},"
                     "%s"
                     "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":9,"
                     "\"args\":{\"labels\":\"CPU\"}}",
                     props[0] ? "\"deviceProperties\":[" : "", props, props[0] ? "]," : "", op,
                     memory);
    for (int g = 0; g < n_gpus; g++)
        n += snprintf(buf + n, cap - (size_t)n,
                      ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":%d,\"tid\":7,"
                      "\"ts\":20,\"dur\":60,\"args\":{\"External id\":1}},"
                      "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%d,"
                      "\"args\":{\"labels\":\"GPU %d\"}}",
                      g, g, g);
    snprintf(buf + n, cap - (size_t)n, "]}");
    return buf;
}

static void advice_of_text(const char *text, pv_pytorch_overview *out, pv_arena *a)
{
    pv_model *m = load_text(text);
    advice_of(m, a, out);
    pv_model_free(m);
}

/* torch-tb-profiler's DataParallel rule: DataParallel.forward and work on
 * more than one device (data.py, event_parser.py). Two GPUs ran kernels:
 * advice naming 2 devices; one GPU: none; DDP on two GPUs: none. */
START_TEST(test_overview_pytorch_advice_data_parallel)
{
    char buf[4096];
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_pytorch_overview l;
    advice_of_text(parallel_trace(buf, sizeof buf, "DataParallel.forward", 2, "", ""), &l, &a);
    int i = advice_index(&l, "data_parallel");
    ck_assert_int_ge(i, 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_ptr_nonnull(strstr(l.items[i].text, "drives the 2 devices of this run"));
    ck_assert_str_eq(l.items[i].link,
                     "https://pytorch.org/docs/stable/notes/cuda.html#cuda-nn-ddp-instead");
    advice_of_text(parallel_trace(buf, sizeof buf, "DataParallel.forward", 1, "", ""), &l, &a);
    ck_assert_int_eq(advice_index(&l, "data_parallel"), -1);
    advice_of_text(parallel_trace(buf, sizeof buf, "DistributedDataParallel.forward", 2, "", ""),
                   &l, &a);
    ck_assert_uint_eq(l.n, 0);
    pv_arena_fini(&a);
}
END_TEST

/* DDP without NCCL: DistributedDataParallel.forward, a gloo collective and
 * no nccl one, on a GPU of compute capability >= 3.5 (data.py). Here the
 * host event is the DDP forward; gloo's all-reduce comes as a second
 * operator inside it. Capability 3.5 triggers (the edge, >=), 3.0 does
 * not, no deviceProperties does not, an nccl:all_reduce does not, nor an
 * nccl:all_to_all (NCCL in use, though not one of the five collectives
 * torch-tb-profiler looks for). */
START_TEST(test_overview_pytorch_advice_ddp_backend)
{
    static const struct {
        const char *collective;
        const char *props;
        bool advice;
    } cases[] = {
        {"gloo:all_reduce", "{\"id\":0,\"computeMajor\":3,\"computeMinor\":5}", true},
        {"gloo:all_reduce", "{\"id\":0,\"computeMajor\":8,\"computeMinor\":0}", true},
        {"gloo:all_reduce", "{\"id\":0,\"computeMajor\":3,\"computeMinor\":0}", false},
        {"gloo:all_reduce", "", false},
        {"nccl:all_reduce", "{\"id\":0,\"computeMajor\":8,\"computeMinor\":0}", false},
        {"nccl:all_to_all", "{\"id\":0,\"computeMajor\":8,\"computeMinor\":0}", false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char coll[256], buf[4096];
        snprintf(coll, sizeof coll,
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":9,\"tid\":1,"
                 "\"ts\":30,\"dur\":5,\"args\":{\"External id\":2}},",
                 cases[c].collective);
        pv_arena a;
        pv_arena_init(&a, 4096);
        pv_pytorch_overview l;
        advice_of_text(parallel_trace(buf, sizeof buf, "DistributedDataParallel.forward", 1,
                                      cases[c].props, coll),
                       &l, &a);
        int i = advice_index(&l, "ddp_backend");
        ck_assert_msg((i >= 0) == cases[c].advice, "case %zu", c);
        if (i >= 0) {
            ck_assert_uint_eq(l.n, 1);
            ck_assert_ptr_nonnull(strstr(l.items[i].text, "without NCCL collectives"));
        }
        pv_arena_fini(&a);
    }
}
END_TEST

/* Device memory near capacity: GPU 0's Total Allocated peaks above 90 %
 * of totalGlobalMem 1000 (data.py, strict >). Peaks 901 -> advice, 90.1 %
 * of 1000 B = 0.0 GB; 900 -> none; 950 on the CPU only -> none. */
START_TEST(test_overview_pytorch_advice_memory)
{
    static const struct {
        int device_type;
        int peak;
        bool advice;
    } cases[] = {{1, 901, true}, {1, 900, false}, {0, 950, false}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char mem[512], buf[4096];
        snprintf(mem, sizeof mem,
                 "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":9,\"tid\":1,\"ts\":12,\"s\":\"t\","
                 "\"args\":{\"Device Type\":%d,\"Device Id\":%d,\"Bytes\":500,"
                 "\"Total Allocated\":500,\"Addr\":1}},"
                 "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":9,\"tid\":1,\"ts\":14,\"s\":\"t\","
                 "\"args\":{\"Device Type\":%d,\"Device Id\":%d,\"Bytes\":%d,"
                 "\"Total Allocated\":%d,\"Addr\":2}},"
                 "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":9,\"tid\":1,\"ts\":16,\"s\":\"t\","
                 "\"args\":{\"Device Type\":%d,\"Device Id\":%d,\"Bytes\":-500,"
                 "\"Total Allocated\":%d,\"Addr\":1}},",
                 cases[c].device_type, cases[c].device_type ? 0 : -1, cases[c].device_type,
                 cases[c].device_type ? 0 : -1, cases[c].peak - 500, cases[c].peak,
                 cases[c].device_type, cases[c].device_type ? 0 : -1, cases[c].peak - 500);
        pv_arena a;
        pv_arena_init(&a, 4096);
        pv_pytorch_overview l;
        advice_of_text(parallel_trace(buf, sizeof buf, "aten::add_", 1,
                                      "{\"id\":0,\"totalGlobalMem\":1000}", mem),
                       &l, &a);
        int i = advice_index(&l, "memory");
        ck_assert_msg((i >= 0) == cases[c].advice, "case %zu", c);
        if (i >= 0) {
            ck_assert_uint_eq(l.n, 1);
            ck_assert_double_eq_tol(l.items[i].percent, 90.1, 1e-9);
            ck_assert_ptr_nonnull(strstr(l.items[i].text, "GPU 0 held up to 90.1% of its 0.0 GB"));
        }
        pv_arena_fini(&a);
    }
}
END_TEST

START_TEST(test_overview_pytorch_advice_absent_from_xspace_like_models)
{
    pv_model *m = xspace_like_model();
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_steps_result steps = {0};
    pv_pytorch_overview l;
    pv_overview_pytorch(m, &steps, true, &a, &l);
    ck_assert(!l.present);
    ck_assert_uint_eq(l.n, 0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- gpu_time (HTA's temporal, overlap and kernel type breakdown) ---------------- */

/* GPU work (us): gemm 0-10, ncclKernel_AllReduce 5-20, a Memcpy HtoD
 * 18-22, fooSync 30-32 (a kernel HTA keeps apart: busy, no type), add
 * 40-50. By hand: span 0-50 = 50; busy 0-22, 30-32, 40-50 = 34, idle 16;
 * computation 0-10 and 40-50 = 20, non-compute 34 - 20 = 14;
 * communication 5-20 = 15, of it 5-10 = 5 with gemm. By set of types:
 * computation alone 0-5 and 40-50 = 15, computation + communication 5-10
 * = 5, communication alone 10-18 = 8, communication + memory 18-20 = 2,
 * memory alone 20-22 = 2. A host operator at 60-70 is no GPU work. */
static const char gpu_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":9,\"tid\":1,\"ts\":60,"
    "\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":0,\"tid\":8,"
    "\"ts\":5,\"dur\":15},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\",\"pid\":0,"
    "\"tid\":9,\"ts\":18,\"dur\":4},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"fooSync\",\"pid\":0,\"tid\":7,\"ts\":30,"
    "\"dur\":2},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"add\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":10},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":9,\"args\":{\"labels\":\"CPU\"}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}}"
    "]}";

START_TEST(test_gpu_time_by_hand)
{
    pv_model *m = load_text(gpu_trace);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_gpu_time g;
    pv_gpu_time_of(m, &g);
    ck_assert(g.any);
    ck_assert_int_eq(g.span_ps, 50 * (int64_t)US);
    ck_assert_int_eq(g.idle_ps, 16 * (int64_t)US);
    ck_assert_int_eq(g.computation_ps, 20 * (int64_t)US);
    ck_assert_int_eq(g.non_compute_ps, 14 * (int64_t)US);
    ck_assert_int_eq(g.communication_ps, 15 * (int64_t)US);
    ck_assert_int_eq(g.overlap_ps, 5 * (int64_t)US);
    static const int64_t by_set[PV_GPU_TYPE_SETS] = {0, 15, 8, 5, 2, 0, 2, 0};
    for (unsigned set = 1; set < PV_GPU_TYPE_SETS; set++)
        ck_assert_msg(g.by_types_ps[set] == by_set[set] * (int64_t)US, "set %u: %lld", set,
                      (long long)g.by_types_ps[set]);
    ck_assert_str_eq(pv_gpu_type_set_name(PV_GPU_COMPUTATION | PV_GPU_COMMUNICATION),
                     "COMPUTATION overlapping COMMUNICATION");
    ck_assert_str_eq(pv_gpu_type_set_name(PV_GPU_COMMUNICATION | PV_GPU_MEMORY),
                     "COMMUNICATION overlapping MEMORY");
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* A trace without GPU work has no GPU time (the tool leaves its row out). */
START_TEST(test_gpu_time_without_gpu_work)
{
    pv_model *m = load_text("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
                            "\"aten::mm\",\"pid\":9,\"tid\":1,\"ts\":0,\"dur\":10}]}");
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_gpu_time g;
    pv_gpu_time_of(m, &g);
    ck_assert(!g.any);
    ck_assert_int_eq(g.span_ps, 0);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

static Suite *kineto_suite(void)
{
    Suite *s = suite_create("kineto");
    TCase *tc = tcase_create("roles");
    tcase_add_test(tc, test_kineto_roles_and_launchers);
    tcase_add_test(tc, test_kineto_absent_from_xspace_like_models);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_op_metrics_kineto");
    tcase_add_test(tc, test_op_metrics_kineto_by_hand);
    tcase_add_test(tc, test_op_stats_tool_on_kineto);
    tcase_add_test(tc, test_op_metrics_kineto_grouped);
    tcase_add_test(tc, test_op_stats_tool_by_input_shape);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_kernel_stats");
    tcase_add_test(tc, test_kernel_stats_op_of_kineto_kernels);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_steps");
    tcase_add_test(tc, test_steps_kineto_by_hand);
    tcase_add_test(tc, test_steps_kineto_overlap_by_hand);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_overview_pytorch");
    tcase_add_test(tc, test_overview_pytorch_advice_by_hand);
    tcase_add_test(tc, test_overview_device_idle_of_trace);
    tcase_add_test(tc, test_overview_pytorch_advice_communication);
    tcase_add_test(tc, test_overview_pytorch_advice_data_parallel);
    tcase_add_test(tc, test_overview_pytorch_advice_ddp_backend);
    tcase_add_test(tc, test_overview_pytorch_advice_memory);
    tcase_add_test(tc, test_overview_pytorch_advice_absent_from_xspace_like_models);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_gpu_time");
    tcase_add_test(tc, test_gpu_time_by_hand);
    tcase_add_test(tc, test_gpu_time_without_gpu_work);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_tool_memory_profile");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_memory_profile_kineto_peaks);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(kineto_suite());
}
