/* input_pipeline_legacy: legacy overview_page.pb / input_pipeline.pb,
 * unpacked with the code protoc-c generates from proto/overview_page.proto
 * and proto/input_pipeline.proto (the fields read are listed there), into
 * the caller's arena under the cap of pb_arena.h.
 *
 * proto3 writes no default value, so a field the file lacks reads as 0 or
 * "". Where TensorFlow's absence means "keep what was computed" (verdict
 * statements, the precision split), an empty string or a 0 is taken as
 * absent, which is the same for every file a protobuf library wrote. */
#include "ingest/tf_legacy/input_pipeline_legacy.h"

#include "ingest/pb_arena.h"
#include "ingest/tf_legacy/legacy_time.h"
#include "input_pipeline.pb-c.h"
#include "overview_page.pb-c.h"

#include <string.h>

typedef Tensorflow__Profiler__Any any_msg;
typedef Tensorflow__Profiler__InputPipelineAnalysisResult ip_msg;
typedef Tensorflow__Profiler__Diagnostics diag_msg;

/* A string the file set, or NULL when it is empty (proto3: absent). */
static const char *set_or_null(const char *s)
{
    return s[0] != '\0' ? s : NULL;
}

/* Whether an Any holds a message of this name: the last component of its
 * type_url, as TensorFlow's own readers compare it. */
static bool any_is(const any_msg *any, const char *name)
{
    const char *dot = strrchr(any->type_url, '.');
    return strcmp(dot != NULL ? dot + 1 : any->type_url, name) == 0;
}

/* Unpacks an Any's value as a desc message into the same arena and cap. */
static int unpack_any(pv_pb_arena *pa, const any_msg *any, const ProtobufCMessageDescriptor *desc,
                      const char *path, ProtobufCMessage **out, pv_error *err)
{
    return pv_pb_unpack(pa, desc, any->value.data, any->value.len, path, out, err);
}

/* ---- input pipeline ------------------------------------------------------- */

static pv_step_details read_step(const Tensorflow__Profiler__PerGenericStepDetails *s,
                                 pv_arena *a)
{
    pv_step_details d;
    memset(&d, 0, sizeof d);
    d.ms[PV_BD_STEP_TIME] = s->step_time_ms;
    d.ms[PV_BD_UNKNOWN] = s->unknown_time_ms;
    d.ms[PV_BD_OUTPUT] = s->output_ms;
    d.ms[PV_BD_DEVICE_COMPUTE] = s->device_compute_ms;
    d.ms[PV_BD_DEVICE_TO_DEVICE] = s->device_to_device_ms;
    d.ms[PV_BD_HOST_COMPUTE] = s->host_compute_ms;
    d.ms[PV_BD_HOST_PREPARE] = s->host_prepare_ms;
    d.ms[PV_BD_HOST_COMPILE] = s->host_compile_ms;
    d.ms[PV_BD_HOST_WAIT_INPUT] = s->host_wait_input_ms;
    d.ms[PV_BD_HOST_TO_DEVICE] = s->host_to_device_ms;
    d.ms[PV_BD_DEVICE_COLLECTIVES] = s->device_collectives_ms;
    d.ms[PV_BD_INPUT] = d.ms[PV_BD_HOST_WAIT_INPUT] + d.ms[PV_BD_HOST_TO_DEVICE];
    /* Legacy details do not split compute by precision. */
    d.compute32_ms = d.ms[PV_BD_DEVICE_COMPUTE];
    d.group_id = s->step_number;
    d.name = s->step_name[0] != '\0' ? s->step_name
                                     : pv_arena_printf(a, "%lld", (long long)s->step_number);
    return d;
}

static uint32_t input_cat_of(const char *s)
{
    static const char *const names[] = {"Enqueue", "Demanded file read", "Advanced file read",
                                        "Preprocessing"};
    for (uint32_t i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return PV_INPUT_UNKNOWN;
}

static void read_input_op(const Tensorflow__Profiler__InputOpDetails *d, pv_steps_op *op,
                          pv_input_op *in)
{
    memset(op, 0, sizeof *op);
    op->name = d->op_name;
    op->type = "Dataset";
    op->category = PV_TF_OP_DATASET;
    op->occurrences = d->count;
    op->time_ps = (int64_t)pv__legacy_ps(d->time_in_ms, 1e9, INT64_MAX);
    op->self_time_ps = (int64_t)pv__legacy_ps(d->self_time_in_ms, 1e9, INT64_MAX);
    *in = (pv_input_op){op, input_cat_of(d->category), d->time_in_percent,
                        d->self_time_in_percent};
}

/* The verdict the file wrote; its NULL fields keep the recomputed ones. */
static void read_bottleneck(const Tensorflow__Profiler__BottleneckAnalysis *f, pv_bottleneck *b)
{
    b->input_classification = set_or_null(f->input_classification);
    b->input_statement = set_or_null(f->input_statement);
    b->kernel_launch_classification = set_or_null(f->kernel_launch_classification);
    b->kernel_launch_statement = set_or_null(f->kernel_launch_statement);
    b->all_other_classification = set_or_null(f->all_other_classification);
    b->all_other_statement = set_or_null(f->all_other_statement);
    b->device_collectives_classification = set_or_null(f->device_collectives_classification);
    b->device_collectives_statement = set_or_null(f->device_collectives_statement);
}

/* Info, then warnings, then errors: the order a protobuf library writes
 * the three fields in. */
static void read_diagnostics(const diag_msg *m, pv_arena *a, pv_diagnostic **d, size_t *n)
{
    *n = m->n_info + m->n_warnings + m->n_errors;
    *d = pv_arena_zalloc(a, (*n > 0 ? *n : 1) * sizeof **d);
    size_t k = 0;
    for (size_t i = 0; i < m->n_info; i++)
        (*d)[k++] = (pv_diagnostic){"INFO", m->info[i]};
    for (size_t i = 0; i < m->n_warnings; i++)
        (*d)[k++] = (pv_diagnostic){"WARNING", m->warnings[i]};
    for (size_t i = 0; i < m->n_errors; i++)
        (*d)[k++] = (pv_diagnostic){"ERROR", m->errors[i]};
}

/* Keeps the file's words where it has them, the recomputed ones else. */
static void apply_verdict(pv_bottleneck *b, const pv_bottleneck *f)
{
#define KEEP(x) if (f->x != NULL) b->x = f->x
    KEEP(input_classification);
    KEEP(input_statement);
    KEEP(kernel_launch_classification);
    KEEP(kernel_launch_statement);
    KEEP(all_other_classification);
    KEEP(all_other_statement);
    KEEP(device_collectives_classification);
    KEEP(device_collectives_statement);
    KEEP(summary_next_step);
#undef KEEP
}

/* The file's steps; PV_ENOTIMPL when one is not a PerGenericStepDetails
 * (TPU steps), after every generic one was unpacked. */
static int read_steps(const ip_msg *m, pv_pb_arena *pa, const char *path, pv_arena *a,
                      pv_step_details **out, pv_error *err)
{
    *out = pv_arena_zalloc(a, (m->n_step_details > 0 ? m->n_step_details : 1) * sizeof **out);
    bool other_steps = false;
    for (size_t i = 0; i < m->n_step_details; i++) {
        if (!any_is(m->step_details[i], "PerGenericStepDetails")) {
            other_steps = true;
            continue;
        }
        ProtobufCMessage *step;
        int rc = unpack_any(pa, m->step_details[i],
                            &tensorflow__profiler__per_generic_step_details__descriptor, path,
                            &step, err);
        if (rc != 0)
            return rc;
        (*out)[i] = read_step((const void *)step, a);
    }
    if (other_steps)
        return pv_error_set(err, PV_ENOTIMPL, path, PV_NO_OFFSET,
                            "TPU step details in legacy input pipeline files are not read yet");
    return 0;
}

/* An unpacked InputPipelineAnalysisResult into *out (zeroed first). */
static int convert_input_pipeline(const ip_msg *m, pv_pb_arena *pa, const char *path,
                                  pv_arena *a, pv_input_pipeline_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_step_details *steps;
    int rc = read_steps(m, pa, path, a, &steps, err);
    if (rc != 0)
        return rc;
    pv_bottleneck verdict;
    memset(&verdict, 0, sizeof verdict);
    const Tensorflow__Profiler__InputPipelineAnalysisRecommendation *reco = m->recommendation;
    if (reco != NULL && reco->bottleneck_analysis != NULL &&
        any_is(reco->bottleneck_analysis, "BottleneckAnalysis")) {
        ProtobufCMessage *b;
        rc = unpack_any(pa, reco->bottleneck_analysis,
                        &tensorflow__profiler__bottleneck_analysis__descriptor, path, &b, err);
        if (rc != 0)
            return rc;
        read_bottleneck((const void *)b, &verdict);
    }
    if (reco != NULL)
        verdict.summary_next_step = set_or_null(reco->summary_next_step);

    const char *hw = m->hardware_type;
    out->steps.hardware = strcmp(hw, "GPU") == 0 ? PV_HW_GPU
                          : strcmp(hw, "TPU") == 0 ? PV_HW_TPU
                                                   : PV_HW_CPU_ONLY;
    out->steps.n_steps = m->n_step_details;
    out->steps.has_trace_times = false;
    size_t n_ops = m->n_input_op_details;
    out->host_ops.n_ops = n_ops;
    out->host_ops.ops = pv_arena_zalloc(a, (n_ops > 0 ? n_ops : 1) * sizeof *out->host_ops.ops);
    out->n_input_ops = n_ops;
    out->input_ops = pv_arena_zalloc(a, (n_ops > 0 ? n_ops : 1) * sizeof *out->input_ops);
    for (size_t i = 0; i < n_ops; i++) {
        read_input_op(m->input_op_details[i], &out->host_ops.ops[i], &out->input_ops[i]);
        /* times are 0 .. INT64_MAX (legacy_time.h); a file's may add up past it */
        if (__builtin_add_overflow(out->input_op_self_ps, out->host_ops.ops[i].self_time_ps,
                                   &out->input_op_self_ps))
            out->input_op_self_ps = INT64_MAX;
        if (out->bottleneck == NULL ||
            out->input_ops[i].op->self_time_ps > out->bottleneck->op->self_time_ps)
            out->bottleneck = &out->input_ops[i];
    }
    const Tensorflow__Profiler__InputTimeBreakdown *tb = m->input_time_breakdown;
    if (tb != NULL)
        out->breakdown = (pv_input_breakdown){
            .enqueue_us = tb->enqueue_us,
            .demanded_file_read_us = tb->demanded_file_read_us,
            .advanced_file_read_us = tb->advanced_file_read_us,
            .preprocessing_us = tb->preprocessing_us,
            .unclassified_non_enqueue_us = tb->unclassified_non_enqueue_us};
    const pv_input_breakdown *b = &out->breakdown;
    out->tfdata_used = b->demanded_file_read_us > 0 || b->advanced_file_read_us > 0 ||
                       b->preprocessing_us > 0;
    if (m->diagnostics != NULL)
        read_diagnostics(m->diagnostics, a, &out->diagnostics, &out->n_diagnostics);
    pv_step_analysis_from_details(steps, m->n_step_details, out->tfdata_used, a,
                                  &out->analysis);
    apply_verdict(&out->analysis.bottleneck, &verdict);
    if (out->bottleneck != NULL)
        out->bottleneck_advice = pv__input_advice(a, out->bottleneck,
                                                  out->analysis.bottleneck.input_percent);
    return 0;
}

int pv_input_pipeline_legacy_read(const uint8_t *data, size_t len, const char *path,
                                  pv_arena *a, pv_input_pipeline_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_pb_arena pa;
    pv_pb_arena_init(&pa, a, pv_pb_arena_cap(len));
    ProtobufCMessage *m;
    int rc = pv_pb_unpack(&pa, &tensorflow__profiler__input_pipeline_analysis_result__descriptor,
                          data, len, path, &m, err);
    if (rc != 0)
        return rc;
    return convert_input_pipeline((const void *)m, &pa, path, a, out, err);
}

/* ---- overview ------------------------------------------------------------- */

static void read_analysis(const Tensorflow__Profiler__OverviewPageAnalysis *m,
                          pv_overview_result *out)
{
    for (size_t i = 0; i < m->n_top_device_ops && i < PV_OVERVIEW_TOP_OPS; i++) {
        const Tensorflow__Profiler__OverviewTfOp *t = m->top_device_ops[i];
        out->top_device[i] = (pv_overview_op){
            .name = t->name, .category = t->category,
            .self_time_fraction = t->self_time_fraction,
            .cumulative_time_fraction = t->cumulative_time_fraction, .flop_rate = t->flop_rate,
            .tc_eligible = t->is_op_tensorcore_eligible, .tc_using = t->is_op_using_tensorcore};
        out->n_top_device = i + 1;
    }
    out->device_idle_percent = m->device_idle_time_percent;
    out->host_idle_percent = m->host_idle_time_percent;
    out->host_tf_op_percent = m->host_tf_op_percent;
    out->device_tf_op_percent = m->device_tf_op_percent;
    out->host_op_time_eager_percent = m->host_op_time_eager_percent;
    out->device_op_time_eager_percent = m->device_op_time_eager_percent;
    /* A split the file lacks keeps the one computed from its steps. */
    if (m->device_compute_16bit_percent != 0)
        out->ip.analysis.compute16_percent = m->device_compute_16bit_percent;
    if (m->device_compute_32bit_percent != 0)
        out->ip.analysis.compute32_percent = m->device_compute_32bit_percent;
}

static int read_recommendation(const Tensorflow__Profiler__OverviewPageRecommendation *m,
                               pv_pb_arena *pa, const char *path, pv_overview_result *out,
                               pv_bottleneck *verdict, pv_error *err)
{
    verdict->input_classification = set_or_null(m->bottleneck);
    verdict->input_statement = set_or_null(m->statement);
    if (m->recommendation == NULL || !any_is(m->recommendation, "GenericRecommendation"))
        return 0;
    ProtobufCMessage *g;
    int rc = unpack_any(pa, m->recommendation,
                        &tensorflow__profiler__generic_recommendation__descriptor, path, &g,
                        err);
    if (rc == 0)
        out->precision_statement =
            ((const Tensorflow__Profiler__GenericRecommendation *)(const void *)g)
                ->precision_statement;
    return rc;
}

static void read_run_environment(const Tensorflow__Profiler__OverviewPageRunEnvironment *m,
                                 pv_arena *a, pv_overview_result *out)
{
    const char **hosts = pv_arena_zalloc(a, (m->n_hostnames > 0 ? m->n_hostnames : 1) *
                                                sizeof *hosts);
    for (size_t i = 0; i < m->n_hostnames; i++)
        hosts[i] = m->hostnames[i]->key;
    out->n_hostnames = (uint32_t)m->n_hostnames;
    out->hostnames = hosts;
    out->device_type = m->device_type;
    out->device_core_count = (uint32_t)m->device_core_count;
}

int pv_overview_legacy_read(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                            pv_overview_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    out->device_type = "";
    out->precision_statement = "";
    out->eager_statement = "";
    pv_pb_arena pa;
    pv_pb_arena_init(&pa, a, pv_pb_arena_cap(len));
    ProtobufCMessage *msg;
    int rc = pv_pb_unpack(&pa, &tensorflow__profiler__overview_page__descriptor, data, len, path,
                          &msg, err);
    if (rc != 0)
        return rc;
    const Tensorflow__Profiler__OverviewPage *m = (const void *)msg;
    /* The input analysis first: the others refine what it computed. A
     * page without one reads as one of no steps, so the verdict's words
     * are there for the page (the JSON writer compares them). */
    ip_msg none = TENSORFLOW__PROFILER__INPUT_PIPELINE_ANALYSIS_RESULT__INIT;
    rc = convert_input_pipeline(m->input_analysis != NULL ? m->input_analysis : &none, &pa,
                                path, a, &out->ip, err);
    if (rc != 0)
        return rc;
    double c16 = out->ip.analysis.compute16_percent, c32 = out->ip.analysis.compute32_percent;
    if (m->analysis != NULL)
        read_analysis(m->analysis, out);
    /* proto3 writes no zero, and TensorFlow left idle at 0 on GPUs: an
     * absent idle share is unknown, not 0. */
    if (out->device_idle_percent <= 0)
        out->device_idle_percent = -1;
    if (out->host_idle_percent <= 0)
        out->host_idle_percent = -1;
    if (out->ip.analysis.compute16_percent + out->ip.analysis.compute32_percent <= 0) {
        out->ip.analysis.compute16_percent = c16;
        out->ip.analysis.compute32_percent = c32;
    }
    pv_bottleneck verdict;
    memset(&verdict, 0, sizeof verdict);
    if (m->recommendation != NULL) {
        rc = read_recommendation(m->recommendation, &pa, path, out, &verdict, err);
        if (rc != 0)
            return rc;
    }
    apply_verdict(&out->ip.analysis.bottleneck, &verdict);
    if (m->run_environment != NULL)
        read_run_environment(m->run_environment, a, out);
    if (out->device_type[0] == '\0')
        out->device_type = out->ip.steps.hardware == PV_HW_CPU_ONLY ? "CPU" : "GPU";
    out->ip.steps.n_device_planes = out->device_core_count;
    if (m->diagnostics != NULL)
        read_diagnostics(m->diagnostics, a, &out->ip.diagnostics, &out->ip.n_diagnostics);
    return 0;
}
