/* test_group: step grouping of files TensorFlow did not group
 * (server/model/group*.c, FORMATS.md §3.7): the tf.data root filter, root
 * levels and ancestry across threads, group names and numbering, and
 * eagerness. Every expected value was worked out by hand from the events
 * in the test's comment, following group_events.cc's rules. */
#include "model/builder.h"
#include "model/model_priv.h"
#include "model_fixture.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* The id of the only event named name; the test fails when there is none. */
static uint64_t find(const pv_model *m, const char *name)
{
    for (uint64_t e = 0; e < m->n_events; e++)
        if (strcmp(pv_model_event_name(m, e), name) == 0)
            return e;
    ck_abort_msg("no event %s", name);
    return 0;
}

static const char *group_name(const pv_model *m, int64_t gid)
{
    const pv_step_group *g = pv_model_group_find(m, gid);
    ck_assert_ptr_nonnull(g);
    return pv_model_str(m, g->name);
}

static bool eager(const pv_model *m, const char *name)
{
    const pv_event_extra *x = pv_model_event_extra(m, find(m, name));
    return x != NULL && (x->flags & PV_EXTRA_EAGER) != 0;
}

/* Thread "python": train1 [0,+1000] and train2 [2000,+1000], both _r=1,
 * step_num 1 and 2. Thread "tf_data": map_fn [400,+300] with _r=1 and
 * id 77, holding InstantiatedCapturedFunction::Run [500,+100] with id 77.
 * Id 77 is a tf.data step, so map_fn is no root: train1 is group 0
 * ("train1 1"), train2 group 1 ("train2 2"), map_fn and the run have none.
 * (Without the filter map_fn, starting at 400, would be group 1.) */
START_TEST(test_group_skips_tf_data_roots)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t py = pv_builder_track(b, host, 1, "python", 0);
    uint32_t data = pv_builder_track(b, host, 2, "tf_data", 0);
    uint64_t e = pv_builder_event(b, py, pv_builder_meta(b, host, 1, "train1", NULL), 0, 1000);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    pv_builder_event_stat_i64(b, e, "step_num", 1);
    e = pv_builder_event(b, py, pv_builder_meta(b, host, 2, "train2", NULL), 2000, 1000);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    pv_builder_event_stat_i64(b, e, "step_num", 2);
    e = pv_builder_event(b, data, pv_builder_meta(b, host, 3, "map_fn", NULL), 400, 300);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    pv_builder_event_stat_i64(b, e, "id", 77);
    uint32_t run = pv_builder_meta(b, host, 4, "InstantiatedCapturedFunction::Run", NULL);
    e = pv_builder_event(b, data, run, 500, 100);
    pv_builder_event_stat_i64(b, e, "id", 77);
    pv_model *m = pv_test_finish(b);

    ck_assert_int_eq(m->ev_group[find(m, "train1")], 0);
    ck_assert_int_eq(m->ev_group[find(m, "train2")], 1);
    ck_assert_int_eq(m->ev_group[find(m, "map_fn")], PV_NO_GROUP);
    ck_assert_int_eq(m->ev_group[find(m, "InstantiatedCapturedFunction::Run")], PV_NO_GROUP);
    ck_assert_uint_eq(m->n_groups, 2);
    ck_assert_str_eq(group_name(m, 0), "train1 1");
    ck_assert_str_eq(group_name(m, 1), "train2 2");
    pv_model_free(m);
}
END_TEST

/* A TF while loop on thread a: ExecutorState::Process with id 5 at
 * iter_num 0 [0,+100] and 1 [200,+100]; the input pipeline's loop on
 * thread b: Process with id 8 at iter_num 0 [50,+10] and 1 [150,+10],
 * and InstantiatedCapturedFunction::RunAsync [300,+10] with id 8. Id 8 is
 * tf.data, so only id 5's iterations are roots: groups 0 and 1, named by
 * iter_num alone (Process is an implicit root): "0", "1". */
START_TEST(test_group_loop_skips_tf_data)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t ta = pv_builder_track(b, host, 1, "a", 0);
    uint32_t tb = pv_builder_track(b, host, 2, "b", 0);
    uint32_t proc = pv_builder_meta(b, host, 1, "ExecutorState::Process", NULL);
    int64_t start[] = {0, 200, 50, 150}, dur[] = {100, 100, 10, 10};
    int64_t id[] = {5, 5, 8, 8}, iter[] = {0, 1, 0, 1};
    uint32_t track[] = {ta, ta, tb, tb};
    for (int i = 0; i < 4; i++) {
        uint64_t e = pv_builder_event(b, track[i], proc, start[i], dur[i]);
        pv_builder_event_stat_i64(b, e, "id", id[i]);
        pv_builder_event_stat_i64(b, e, "iter_num", iter[i]);
    }
    uint32_t run = pv_builder_meta(b, host, 2, "InstantiatedCapturedFunction::RunAsync", NULL);
    uint64_t e = pv_builder_event(b, tb, run, 300, 10);
    pv_builder_event_stat_i64(b, e, "id", 8);
    pv_model *m = pv_test_finish(b);
    /* track a: [0] [200]; track b: [50] [150] [300] */
    ck_assert_int_eq(m->ev_group[0], 0);
    ck_assert_int_eq(m->ev_group[1], 1);
    ck_assert_int_eq(m->ev_group[2], PV_NO_GROUP);
    ck_assert_int_eq(m->ev_group[3], PV_NO_GROUP);
    ck_assert_int_eq(m->ev_group[4], PV_NO_GROUP);
    ck_assert_uint_eq(m->n_groups, 2);
    ck_assert_str_eq(group_name(m, 0), "0");
    ck_assert_str_eq(group_name(m, 1), "1");
    pv_model_free(m);
}
END_TEST

/* Thread A: step [0,+1000], _r=1, producer (_pt 3, _p 9), graph_type
 * "train", iter_num 5. Thread B: inner [200,+300], _r=1, consumer (_ct 3,
 * _c 9), holding child [250,+10]. Thread C: FunctionRun [3000,+100] with
 * _r=1; outer2 [5000,+1000] with _r=2 holding TraceContext [5100,+100].
 * Roots by level, then start: outer2 (level 2) -> group 0, named
 * "outer2 0" (no graph_type, no iter/step number), and it takes
 * TraceContext; step -> group 1, "train 5", which reaches inner through
 * the producer edge, and inner (a level-1 root with the level-1 root
 * step above it) opens none; FunctionRun -> group 2, named "2" (an
 * implicit root: no prefix); TraceContext is grouped already. */
START_TEST(test_group_levels_ancestry_names)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t ta = pv_builder_track(b, host, 1, "A", 0);
    uint32_t tb = pv_builder_track(b, host, 2, "B", 0);
    uint32_t tc = pv_builder_track(b, host, 3, "C", 0);
    uint64_t e = pv_builder_event(b, ta, pv_builder_meta(b, host, 1, "step", NULL), 0, 1000);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    pv_builder_event_stat_i64(b, e, "_pt", 3);
    pv_builder_event_stat_u64(b, e, "_p", 9);
    pv_builder_event_stat_str(b, e, "graph_type", "train");
    pv_builder_event_stat_i64(b, e, "iter_num", 5);
    e = pv_builder_event(b, tb, pv_builder_meta(b, host, 2, "inner", NULL), 200, 300);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    pv_builder_event_stat_i64(b, e, "_ct", 3);
    pv_builder_event_stat_u64(b, e, "_c", 9);
    pv_builder_event(b, tb, pv_builder_meta(b, host, 3, "child", NULL), 250, 10);
    e = pv_builder_event(b, tc, pv_builder_meta(b, host, 4, "FunctionRun", NULL), 3000, 100);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    e = pv_builder_event(b, tc, pv_builder_meta(b, host, 5, "outer2", NULL), 5000, 1000);
    pv_builder_event_stat_i64(b, e, "_r", 2);
    pv_builder_event(b, tc, pv_builder_meta(b, host, 6, "TraceContext", NULL), 5100, 100);
    pv_model *m = pv_test_finish(b);

    ck_assert_int_eq(m->ev_group[find(m, "outer2")], 0);
    ck_assert_int_eq(m->ev_group[find(m, "TraceContext")], 0);
    ck_assert_int_eq(m->ev_group[find(m, "step")], 1);
    ck_assert_int_eq(m->ev_group[find(m, "inner")], 1);
    ck_assert_int_eq(m->ev_group[find(m, "child")], 1);
    ck_assert_int_eq(m->ev_group[find(m, "FunctionRun")], 2);
    ck_assert_uint_eq(m->n_groups, 3);
    ck_assert_str_eq(group_name(m, 0), "outer2 0");
    ck_assert_str_eq(group_name(m, 1), "train 5");
    ck_assert_int_eq(pv_model_group_find(m, 1)->step_num, 5);
    ck_assert_str_eq(group_name(m, 2), "2");
    pv_model_free(m);
}
END_TEST

/* Host thread: stepA [0,+100] and stepB [200,+100], both _r=1, each
 * holding a cudaLaunchKernel with correlation_id 5 (at 10 and 210; a
 * reused id). GPU stream: kernel [400,+10] with correlation_id 5. The
 * reference keeps one launch per correlation id, the last one it meets
 * (the one in stepB), so the kernel joins group 1 ("stepB 1"), not the
 * group of the earlier root. */
START_TEST(test_group_launch_last_parent)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t th = pv_builder_track(b, host, 1, "python", 0);
    uint32_t ts = pv_builder_track(b, gpu, 7, "Stream #7", 0);
    uint32_t launch = pv_builder_meta(b, host, 3, "cudaLaunchKernel", NULL);
    uint64_t e = pv_builder_event(b, th, pv_builder_meta(b, host, 1, "stepA", NULL), 0, 100);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    e = pv_builder_event(b, th, launch, 10, 5);
    pv_builder_event_stat_u64(b, e, "correlation_id", 5);
    e = pv_builder_event(b, th, pv_builder_meta(b, host, 2, "stepB", NULL), 200, 100);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    e = pv_builder_event(b, th, launch, 210, 5);
    pv_builder_event_stat_u64(b, e, "correlation_id", 5);
    e = pv_builder_event(b, ts, pv_builder_meta(b, gpu, 1, "kernel", NULL), 400, 10);
    pv_builder_event_stat_u64(b, e, "correlation_id", 5);
    pv_model *m = pv_test_finish(b);

    ck_assert_int_eq(m->ev_group[find(m, "stepA")], 0);
    ck_assert_int_eq(m->ev_group[find(m, "stepB")], 1);
    ck_assert_int_eq(m->ev_group[find(m, "kernel")], 1);
    ck_assert_str_eq(group_name(m, 1), "stepB 1");
    pv_model_free(m);
}
END_TEST

/* Host thread: EagerExecute [0,+1000] with is_func 0 holding
 * dense/MatMul:MatMul [100,+200] (no stats) holding cudaLaunchKernel
 * [150,+20] (correlation 5); EagerExecute [2000,+1000] with is_func 1
 * holding dense/Add:AddV2 [2100,+100] holding cudaLaunchKernel [2120,+10]
 * (correlation 6); outside/Relu:Relu [4000,+10] under nothing.
 * GPU stream: volta_sgemm [400,+50] (correlation 5), add_kernel
 * [2300,+20] (correlation 6), memset [5000,+5] (correlation 99, no
 * launch). Eager: MatMul (its EagerExecute ran op by op) and volta_sgemm
 * (launch 5 -> MatMul -> that EagerExecute). Not eager: AddV2 and
 * add_kernel (a compiled function), Relu and memset (no EagerExecute),
 * the launches (neither TF ops nor kernels). No roots, so no groups. */
START_TEST(test_group_marks_eager)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t gpu = pv_builder_plane(b, 1, "/device:GPU:0");
    uint32_t th = pv_builder_track(b, host, 1, "python", 0);
    uint32_t ts = pv_builder_track(b, gpu, 7, "Stream #7", 0);
    uint32_t ee = pv_builder_meta(b, host, 1, "EagerExecute", NULL);
    uint32_t launch = pv_builder_meta(b, host, 2, "cudaLaunchKernel", NULL);
    uint64_t e = pv_builder_event(b, th, ee, 0, 1000);
    pv_builder_event_stat_i64(b, e, "is_func", 0);
    pv_builder_event(b, th, pv_builder_meta(b, host, 3, "dense/MatMul:MatMul", NULL), 100, 200);
    e = pv_builder_event(b, th, launch, 150, 20);
    pv_builder_event_stat_u64(b, e, "correlation_id", 5);
    e = pv_builder_event(b, th, ee, 2000, 1000);
    pv_builder_event_stat_i64(b, e, "is_func", 1);
    pv_builder_event(b, th, pv_builder_meta(b, host, 4, "dense/Add:AddV2", NULL), 2100, 100);
    e = pv_builder_event(b, th, launch, 2120, 10);
    pv_builder_event_stat_u64(b, e, "correlation_id", 6);
    pv_builder_event(b, th, pv_builder_meta(b, host, 5, "outside/Relu:Relu", NULL), 4000, 10);
    e = pv_builder_event(b, ts, pv_builder_meta(b, gpu, 1, "volta_sgemm", NULL), 400, 50);
    pv_builder_event_stat_u64(b, e, "correlation_id", 5);
    e = pv_builder_event(b, ts, pv_builder_meta(b, gpu, 2, "add_kernel", NULL), 2300, 20);
    pv_builder_event_stat_u64(b, e, "correlation_id", 6);
    e = pv_builder_event(b, ts, pv_builder_meta(b, gpu, 3, "memset", NULL), 5000, 5);
    pv_builder_event_stat_u64(b, e, "correlation_id", 99);
    pv_model *m = pv_test_finish(b);

    ck_assert(eager(m, "dense/MatMul:MatMul"));
    ck_assert(eager(m, "volta_sgemm"));
    ck_assert(!eager(m, "dense/Add:AddV2"));
    ck_assert(!eager(m, "add_kernel"));
    ck_assert(!eager(m, "outside/Relu:Relu"));
    ck_assert(!eager(m, "memset"));
    for (uint64_t i = 0; i < m->n_events; i++) {
        if (strcmp(pv_model_event_name(m, i), "cudaLaunchKernel") != 0)
            continue;
        const pv_event_extra *x = pv_model_event_extra(m, i);
        ck_assert(x != NULL && !(x->flags & PV_EXTRA_EAGER));
    }
    /* the MatMul had no row: the one it got keeps the defaults */
    const pv_event_extra *x = pv_model_event_extra(m, find(m, "dense/MatMul:MatMul"));
    ck_assert_int_eq(pv_model_step_info(m, x)->step_id, -1);
    ck_assert_ptr_null(pv_model_kernel(m, x));
    ck_assert_uint_eq(x->flags, PV_EXTRA_EAGER);
    ck_assert_uint_eq(m->n_groups, 0);
    pv_model_free(m);
}
END_TEST

/* Host thread: EagerExecute [0,+1000] with is_func 0 holding
 * dense/MatMul:MatMul [100,+200], EagerExecute [2000,+1000] with is_func 1
 * holding dense/MatMul:MatMul [2100,+200]; both MatMuls carry the same
 * tf_op stat, so before eagerness they have equal rows, which the model
 * keeps once. Only the first ran op by op: marking it eager must not mark
 * the second through their one row. */
START_TEST(test_group_eager_unshares_row)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t th = pv_builder_track(b, host, 1, "python", 0);
    uint32_t ee = pv_builder_meta(b, host, 1, "EagerExecute", NULL);
    uint32_t op = pv_builder_meta(b, host, 2, "dense/MatMul:MatMul", NULL);
    const int64_t starts[2] = {0, 2000};
    for (int i = 0; i < 2; i++) {
        uint64_t e = pv_builder_event(b, th, ee, starts[i], 1000);
        pv_builder_event_stat_i64(b, e, "is_func", i);
        e = pv_builder_event(b, th, op, starts[i] + 100, 200);
        pv_builder_event_stat_str(b, e, "tf_op", "dense/MatMul:MatMul");
    }
    pv_model *m = pv_test_finish(b);
    /* events by start: EagerExecute 0, MatMul 1, EagerExecute 2, MatMul 3 */
    const pv_event_extra *x1 = pv_model_event_extra(m, 1), *x3 = pv_model_event_extra(m, 3);
    ck_assert(x1 != NULL && x3 != NULL);
    ck_assert_ptr_ne(x1, x3);
    ck_assert_uint_eq(x1->flags, PV_EXTRA_EAGER);
    ck_assert_uint_eq(x3->flags, 0);
    ck_assert_uint_eq(x1->tf_op, x3->tf_op);
    ck_assert_str_eq(pv_model_str(m, x3->tf_op), "dense/MatMul:MatMul");
    pv_model_free(m);
}
END_TEST

/* The same eager op in a file TensorFlow grouped (a group_id stat on it):
 * the reference marks nothing then, and neither does the model. */
START_TEST(test_group_no_eager_when_grouped)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t th = pv_builder_track(b, host, 1, "python", 0);
    uint64_t e = pv_builder_event(b, th, pv_builder_meta(b, host, 1, "EagerExecute", NULL), 0,
                                  1000);
    pv_builder_event_stat_i64(b, e, "is_func", 0);
    e = pv_builder_event(b, th, pv_builder_meta(b, host, 2, "a/MatMul:MatMul", NULL), 100, 200);
    pv_builder_event_stat_i64(b, e, "group_id", 4);
    pv_model *m = pv_test_finish(b);
    ck_assert(!eager(m, "a/MatMul:MatMul"));
    ck_assert_uint_eq(m->n_groups, 1);
    ck_assert_int_eq(m->groups[0].group_id, 4);
    pv_model_free(m);
}
END_TEST

/* Events of one line, added in order: names[i] at start[i] for dur[i]. */
static void add_events(pv_model_builder *b, uint32_t plane, uint32_t track, int64_t first_meta,
                       const char *const *names, const int64_t *start, const int64_t *dur,
                       int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t meta = pv_builder_meta(b, plane, first_meta + i, names[i], NULL);
        pv_builder_event(b, track, meta, start[i], dur[i]);
    }
}

/* No host roots. TPU:0 "XLA Modules": m0a [0,+100], m0b [100,+100], m0c
 * [300,+50]; "XLA Ops": op1 [10,+20] (with _r=1, which counts for
 * nothing on a TPU), op2 [100,+0], op3 [250,+10], op4 [320,+5]. TPU:1
 * "XLA Modules": m1a [0,+50], m1b [60,+50]; "XLA Ops": op5 [70,+5].
 * No core step was reached from the host, so each core numbers its
 * modules from 0: m0a 0, m0b 1, m0c 2; m1a 0, m1b 1. Every event but the
 * steps then takes the first module overlapping it, end points included,
 * the modules themselves too: m0b 0 (m0a touches it at 100, as XProf's
 * tpu_inference_2 trace shows for the three modules that start where the
 * previous one ends), op1 0, op2 0, op3 none (a gap), op4 2, op5 1. Three
 * groups, named by number only ("0", "1", "2"). */
START_TEST(test_group_tpu_lockstep)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t tpu0 = pv_builder_plane(b, 1, "/device:TPU:0");
    uint32_t tpu1 = pv_builder_plane(b, 2, "/device:TPU:1");
    uint32_t mod0 = pv_builder_track(b, tpu0, 1, "XLA Modules", 0);
    uint32_t ops0 = pv_builder_track(b, tpu0, 2, "XLA Ops", 0);
    uint32_t mod1 = pv_builder_track(b, tpu1, 1, "XLA Modules", 0);
    uint32_t ops1 = pv_builder_track(b, tpu1, 2, "XLA Ops", 0);
    const char *m0[] = {"m0a", "m0b", "m0c"};
    int64_t m0s[] = {0, 100, 300}, m0d[] = {100, 100, 50};
    add_events(b, tpu0, mod0, 1, m0, m0s, m0d, 3);
    uint64_t e = pv_builder_event(b, ops0, pv_builder_meta(b, tpu0, 10, "op1", NULL), 10, 20);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    const char *o0[] = {"op2", "op3", "op4"};
    int64_t o0s[] = {100, 250, 320}, o0d[] = {0, 10, 5};
    add_events(b, tpu0, ops0, 11, o0, o0s, o0d, 3);
    const char *m1[] = {"m1a", "m1b"};
    int64_t m1s[] = {0, 60}, m1d[] = {50, 50};
    add_events(b, tpu1, mod1, 1, m1, m1s, m1d, 2);
    const char *o1[] = {"op5"};
    int64_t o1s[] = {70}, o1d[] = {5};
    add_events(b, tpu1, ops1, 10, o1, o1s, o1d, 1);
    pv_model *m = pv_test_finish(b);

    const char *name[] = {"m0a", "m0b", "m0c", "m1a", "m1b", "op1", "op2", "op3", "op4", "op5"};
    int32_t want[] = {0, 0, 2, 0, 1, 0, 0, PV_NO_GROUP, 2, 1};
    for (int i = 0; i < 10; i++)
        ck_assert_msg(m->ev_group[find(m, name[i])] == want[i], "%s: group %d, want %d",
                      name[i], m->ev_group[find(m, name[i])], want[i]);
    ck_assert_uint_eq(m->n_groups, 3);
    ck_assert_str_eq(group_name(m, 0), "0");
    ck_assert_str_eq(group_name(m, 2), "2");
    pv_model_free(m);
}
END_TEST

/* Host thread: train [0,+1000] with _r=1 and producer (_pt 5, _p 1).
 * TPU:0 "Steps": s1 [0,+100], s2 [120,+80], s3 [300,+50]; "XLA Ops":
 * c1 [20,+10] and c2 [130,+10], both consumers (_ct 5, _c 1), which
 * count for the steps including them (s1, s2); a [105,+10] (between s1
 * and s2), z [310,+5] (in s3). train -> group 0 "train 0", reaching s1
 * and s2 through the context; s3 is reached by nothing, and no lock
 * step numbering happens since a core step has a group. The Steps line
 * groups the rest with s1..s2 as one span [0,200] (same group) and s3
 * left out (no group): c1, c2 and a get 0, z none. */
START_TEST(test_group_tpu_steps_from_host)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t host = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t tpu = pv_builder_plane(b, 1, "/device:TPU:0");
    uint32_t th = pv_builder_track(b, host, 1, "python", 0);
    uint32_t steps = pv_builder_track(b, tpu, 1, "Steps", 0);
    uint32_t ops = pv_builder_track(b, tpu, 2, "XLA Ops", 0);
    uint64_t e = pv_builder_event(b, th, pv_builder_meta(b, host, 1, "train", NULL), 0, 1000);
    pv_builder_event_stat_i64(b, e, "_r", 1);
    pv_builder_event_stat_i64(b, e, "_pt", 5);
    pv_builder_event_stat_u64(b, e, "_p", 1);
    const char *sn[] = {"s1", "s2", "s3"};
    int64_t ss[] = {0, 120, 300}, sd[] = {100, 80, 50};
    add_events(b, tpu, steps, 1, sn, ss, sd, 3);
    const char *on[] = {"c1", "c2", "a", "z"};
    int64_t os[] = {20, 130, 105, 310}, od[] = {10, 10, 10, 5};
    for (int i = 0; i < 4; i++) {
        uint32_t meta = pv_builder_meta(b, tpu, 10 + i, on[i], NULL);
        e = pv_builder_event(b, ops, meta, os[i], od[i]);
        if (i < 2) {
            pv_builder_event_stat_i64(b, e, "_ct", 5);
            pv_builder_event_stat_u64(b, e, "_c", 1);
        }
    }
    pv_model *m = pv_test_finish(b);

    const char *name[] = {"train", "s1", "s2", "s3", "c1", "c2", "a", "z"};
    int32_t want[] = {0, 0, 0, PV_NO_GROUP, 0, 0, 0, PV_NO_GROUP};
    for (int i = 0; i < 8; i++)
        ck_assert_msg(m->ev_group[find(m, name[i])] == want[i], "%s: group %d, want %d",
                      name[i], m->ev_group[find(m, name[i])], want[i]);
    ck_assert_uint_eq(m->n_groups, 1);
    ck_assert_str_eq(group_name(m, 0), "train 0");
    pv_model_free(m);
}
END_TEST

/* Contexts read from the source as events are added (the decoder's
 * way), counted by hand. Stat metadata 1 _r, 2 _pt, 3 _p, 4 _ct, 5 _c;
 * each stat below is `22 04 08 <id> 20 <int64>`:
 *   bytes 0-17:  _r 1, _pt 7, _p 3   (step)
 *   bytes 18-29: _ct 7, _c 3         (c1)
 *   bytes 30-35: _ct 7               (c2)
 * Metadata "consumer" has its own _c 99. Thread A: step [0,+1000]. Thread
 * B, added in this order: c1 [500,+100], x [100,+50] (no stats), c2
 * [300,+50], so the model reorders B to x, c2, c1. c1's own _c 3 wins
 * over the metadata's: the context (7, 3) joins it to step, group 0. c2
 * takes _c 99 from its metadata: no producer, no group; nor has x. With
 * late set, the metadata's _c comes after the events, so finish applies
 * every event's stats again; the groups must not change. */
static const uint8_t wire_contexts[] = {
    0x22, 0x04, 0x08, 0x01, 0x20, 0x01, 0x22, 0x04, 0x08, 0x02, 0x20, 0x07,
    0x22, 0x04, 0x08, 0x03, 0x20, 0x03, 0x22, 0x04, 0x08, 0x04, 0x20, 0x07,
    0x22, 0x04, 0x08, 0x05, 0x20, 0x03, 0x22, 0x04, 0x08, 0x04, 0x20, 0x07};

static int32_t group_at(const pv_model *m, int64_t start_ps)
{
    for (uint64_t e = 0; e < m->n_events; e++)
        if (m->ev_start_ps[e] == start_ps)
            return m->ev_group[e];
    ck_abort_msg("no event at %lld", (long long)start_ps);
    return 0;
}

START_TEST(test_group_contexts_from_wire)
{
    for (int late = 0; late < 2; late++) {
        pv_model_builder *b = pv_builder_new();
        pv_builder_source(b, wire_contexts, sizeof wire_contexts, PV_SRC_NONE);
        uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
        const char *names[] = {"_r", "_pt", "_p", "_ct", "_c"};
        for (int i = 0; i < 5; i++)
            pv_builder_plane_stat_name(b, p, i + 1, pv_builder_intern_cstr(b, names[i]));
        uint32_t ta = pv_builder_track(b, p, 1, "A", 0), tb = pv_builder_track(b, p, 2, "B", 0);
        uint32_t step = pv_builder_meta(b, p, 1, "step", NULL);
        uint32_t consumer = pv_builder_meta(b, p, 2, "consumer", NULL);
        uint32_t other = pv_builder_meta(b, p, 3, "x", NULL);
        if (!late)
            pv_builder_meta_stat_i64(b, consumer, "_c", 99);
        pv_builder_event(b, ta, step, 0, 1000);
        ck_assert(pv_builder_event_wire(b, 0, 18));
        pv_builder_event(b, tb, consumer, 500, 100);
        ck_assert(pv_builder_event_wire(b, 18, 12));
        pv_builder_event(b, tb, other, 100, 50);
        pv_builder_event(b, tb, consumer, 300, 50);
        ck_assert(pv_builder_event_wire(b, 30, 6));
        if (late)
            pv_builder_meta_stat_i64(b, consumer, "_c", 99);
        pv_model *m = pv_test_finish(b);
        ck_assert_int_eq(group_at(m, 0), 0);
        ck_assert_int_eq(group_at(m, 500), 0);
        ck_assert_int_eq(group_at(m, 100), PV_NO_GROUP);
        ck_assert_int_eq(group_at(m, 300), PV_NO_GROUP);
        ck_assert_uint_eq(m->n_groups, 1);
        pv_model_free(m);
    }
}
END_TEST

/* pv__keys_group on keys worked out by hand (k1, k2, ev, side):
 *   A (1,7): ev 5 side 1, ev 2 side 0, ev 9 side 1, ev 4 side 0
 *   B (1,8): ev 3 side 0 only            -> dropped: joins nothing
 *   C (2,7): ev 6 side 1, ev 1 side 0
 *   D (3,3): ev 8 side 1 only            -> dropped
 * Left: A as 2, 4 | 5, 9 and C as 1 | 6 (each side in input order), in
 * either order of the groups. */
START_TEST(test_keys_group_by_hand)
{
    pv__keyed in[] = {{1, 7, 5, 1}, {1, 8, 3, 0}, {2, 7, 6, 1}, {1, 7, 2, 0},
                      {3, 3, 8, 1}, {1, 7, 9, 1}, {2, 7, 1, 0}, {1, 7, 4, 0}};
    pv__keys ks = {malloc(sizeof in), 8, 8};
    memcpy(ks.v, in, sizeof in);
    ck_assert(pv__keys_group(&ks));
    ck_assert_uint_eq(ks.n, 6);
    size_t a = ks.v[0].k2 == 7 && ks.v[0].k1 == 1 ? 0 : 2, c = a == 0 ? 4 : 0;
    const uint32_t want_a[] = {2, 4, 5, 9}, want_c[] = {1, 6};
    for (size_t i = 0; i < 4; i++) {
        ck_assert(ks.v[a + i].k1 == 1 && ks.v[a + i].k2 == 7);
        ck_assert_uint_eq(ks.v[a + i].ev, want_a[i]);
        ck_assert_int_eq(ks.v[a + i].side, i < 2 ? 0 : 1);
    }
    for (size_t i = 0; i < 2; i++) {
        ck_assert(ks.v[c + i].k1 == 2 && ks.v[c + i].k2 == 7);
        ck_assert_uint_eq(ks.v[c + i].ev, want_c[i]);
        ck_assert_int_eq(ks.v[c + i].side, (int)i);
    }
    free(ks.v);
}
END_TEST

/* 100 keys whose ids were picked to hash to one slot of the table (256
 * slots for 100 keys): a run of them takes more probes than the grouping
 * allows, so it leaves the keys as they were for the caller to sort. */
START_TEST(test_keys_group_refuses_collisions)
{
    pv__keys ks = {calloc(100, sizeof(pv__keyed)), 0, 100};
    for (uint64_t id = 1; ks.n < 100; id++) {
        if ((pv__keys_hash(PV__KEY_CONTEXT, id) & 255) == 0) {
            pv__keyed k = {PV__KEY_CONTEXT, id, (uint32_t)ks.n, (int32_t)(ks.n & 1)};
            ks.v[ks.n++] = k;
        }
    }
    ck_assert(!pv__keys_group(&ks));
    ck_assert_uint_eq(ks.n, 100);
    for (size_t i = 0; i < 100; i++)
        ck_assert_uint_eq(ks.v[i].ev, i);
    free(ks.v);
}
END_TEST

static Suite *group_suite(void)
{
    Suite *s = suite_create("group");
    TCase *tc = tcase_create("grouping");
    tcase_add_test(tc, test_group_skips_tf_data_roots);
    tcase_add_test(tc, test_group_loop_skips_tf_data);
    tcase_add_test(tc, test_group_levels_ancestry_names);
    tcase_add_test(tc, test_group_launch_last_parent);
    tcase_add_test(tc, test_group_marks_eager);
    tcase_add_test(tc, test_group_eager_unshares_row);
    tcase_add_test(tc, test_group_no_eager_when_grouped);
    tcase_add_test(tc, test_group_tpu_lockstep);
    tcase_add_test(tc, test_group_tpu_steps_from_host);
    tcase_add_test(tc, test_group_contexts_from_wire);
    tcase_add_test(tc, test_keys_group_by_hand);
    tcase_add_test(tc, test_keys_group_refuses_collisions);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(group_suite());
}
