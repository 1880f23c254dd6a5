/* overview: top ops, idle and eager shares, precision remark and run
 * environment (reference: xprof/convert/op_stats_to_overview_page.cc). */
#include "tools/steps/overview.h"
#include "model/hlo_table.h"
#include "tools/common/plane_stat.h"
#include "tools/op_stats/op_stats.h"
#include "util/pbwire.h"

#include <stdlib.h>
#include <string.h>

/* Share of 16-bit device compute under which the page suggests more. */
#define PRECISION_16BIT_MIN_PERCENT 10.0
/* Eager share above which the page suggests tf.function. */
#define EAGER_HIGH_PERCENT 10.0

/* The top host ops: shares of the host's op time, idle excluded. */
static size_t top_host_ops(const pv_steps_op_db *db, pv_overview_op *out)
{
    size_t n = 0;
    double cum = 0;
    for (size_t i = 0; i < db->n_ops && n < PV_OVERVIEW_TOP_OPS; i++) {
        const pv_steps_op *op = &db->ops[i];
        double f = db->op_time_ps > 0 ? (double)op->self_time_ps / (double)db->op_time_ps : 0;
        cum += f;
        out[n++] = (pv_overview_op){.name = op->name, .category = op->type,
                                    .self_time_fraction = f, .cumulative_time_fraction = cum};
    }
    return n;
}

/* The top device ops as the reference's ComputeAnalysisResult lists them:
 * framework ops by self time, IDLE left out, shares of the ops' time;
 * FLOP rate over the op's time (its flops include nested ops'); the
 * TensorCore flags of its kernels. */
static size_t top_device_ops(const pv_op_metrics_db *db, const pv_kernel_stats_result *k,
                             pv_overview_op *out)
{
    size_t n = 0;
    double cum = 0;
    for (size_t i = 0; i < db->n_ops && n < PV_OVERVIEW_TOP_OPS; i++) {
        const pv_op_metrics *op = &db->ops[i];
        if (op->is_idle)
            continue;
        double f = db->total_op_time_ps > 0
                       ? (double)op->self_time_ps / (double)db->total_op_time_ps
                       : 0;
        cum += f;
        pv_overview_op *o = &out[n++];
        *o = (pv_overview_op){.name = op->name, .category = op->type,
                              .self_time_fraction = f, .cumulative_time_fraction = cum,
                              .flop_rate = op->time_ps > 0
                                               ? op->flops / ((double)op->time_ps / 1e3)
                                               : 0};
        o->tc_using = pv_op_stats_tensor_core(k, op->name, &o->tc_eligible) > 0;
    }
    return n;
}

static uint64_t host_occurrences(const pv_steps_op_db *db)
{
    uint64_t n = 0;
    for (size_t i = 0; i < db->n_ops; i++)
        n += db->ops[i].occurrences;
    return n;
}

static uint64_t device_occurrences(const pv_op_metrics_db *db, uint64_t *eager_ps)
{
    uint64_t n = 0;
    *eager_ps = 0;
    for (size_t i = 0; i < db->n_ops; i++) {
        n += db->ops[i].occurrences;
        if (db->ops[i].is_eager && !db->ops[i].is_idle)
            *eager_ps += db->ops[i].self_time_ps;
    }
    return n;
}

/* The reference's is_training: some instruction of some HLO module sits
 * under a gradient scope (ModelTracker over the HLO modules). */
static bool hlo_is_training(const pv_model *const *ms, size_t n_models)
{
    for (size_t k = 0; k < n_models; k++) {
        const pv_hlo_table *t = pv_model_hlo(ms[k]);
        for (size_t i = 0; i < t->n_instructions; i++)
            if (pv_tf_op_has_gradients(t->instructions[i].op_name, t->instructions[i].op_type))
                return true;
    }
    return false;
}

/* Reads one varint field of a serialized ProfileOptions (field 2 is
 * host_tracer_level) with the one wire reader; -1 when absent or
 * malformed. */
static int profile_option(const uint8_t *p, size_t len, uint32_t want)
{
    const uint8_t *end = p + len;
    pv_pb_field f;
    while (pv_pb_field_in(&p, end, end, &f) == PV_PB_OK) {
        if (f.num == want && f.wt == 0)
            return f.v <= 100 ? (int)f.v : -1;
    }
    return -1;
}

/* Profile start/stop and tracer level from the "Task Environment" plane. */
static void task_environment(const pv_model *m, pv_overview_result *out)
{
    out->host_tracer_level = -1;
    uint32_t start = pv_model_str_find(m, "profile_start_time");
    uint32_t stop = pv_model_str_find(m, "profile_stop_time");
    uint32_t opts = pv_model_str_find(m, "profile_options");
    for (uint32_t i = 0; i < m->n_planes; i++) {
        const pv_plane *p = &m->planes[i];
        if (strcmp(pv_model_str(m, p->name), "Task Environment") != 0)
            continue;
        for (uint64_t k = p->first_stat; k < p->first_stat + p->n_stats; k++) {
            const pv_stat *st = &m->stats[k];
            uint64_t v = st->type == PV_STAT_I64 ? (uint64_t)st->v.i64 : st->v.u64;
            bool num = st->type == PV_STAT_I64 || st->type == PV_STAT_U64;
            if (st->name == start && start != 0 && num)
                out->profile_start_ns = v;
            else if (st->name == stop && stop != 0 && num)
                out->profile_stop_ns = v;
            else if (st->name == opts && opts != 0 && st->type == PV_STAT_BYTES &&
                     st->v.blob < m->n_blobs)
                out->host_tracer_level =
                    profile_option(m->blobs[st->v.blob].data, m->blobs[st->v.blob].len, 2);
        }
    }
}

int pv_tool_overview(const pv_model *m, const pv_overview_query *q, pv_arena *a,
                     pv_overview_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_input_pipeline_query iq = {.steps = {false, false}};
    if (q != NULL)
        iq.steps = q->steps;
    int rc = pv_tool_input_pipeline(m, q != NULL ? &iq : NULL, a, &out->ip, err);
    if (rc != 0)
        return rc;
    rc = pv_op_metrics_device(m, a, &out->device_ops, err);
    if (rc == 0)
        rc = pv_tool_kernel_stats(m, &(pv_kernel_stats_query){PV_KERNEL_STATS_REFERENCE_ROWS},
                                  a, &out->kernels, err);
    if (rc != 0)
        return rc;
    pv_op_metrics_sort(&out->device_ops);
    pv__overview_finish(&m, 1, a, out);
    return 0;
}

void pv__overview_finish(const pv_model *const *ms, size_t n_models, pv_arena *a,
                         pv_overview_result *out)
{
    const pv_model *m = ms[0];
    const pv_steps_op_db *host = &out->ip.host_ops;
    const pv_op_metrics_db *dev = &out->device_ops;

    out->n_top_device = top_device_ops(dev, &out->kernels, out->top_device);
    out->n_top_host = top_host_ops(host, out->top_host);
    out->is_training = hlo_is_training(ms, n_models);

    uint64_t dev_eager_ps;
    uint64_t nh = host_occurrences(host), nd = device_occurrences(dev, &dev_eager_ps);
    if (nh + nd > 0) {
        out->host_tf_op_percent = 100.0 * (double)nh / (double)(nh + nd);
        out->device_tf_op_percent = 100.0 * (double)nd / (double)(nh + nd);
    }
    if (host->op_time_ps > 0)
        out->host_op_time_eager_percent =
            100.0 * (double)host->eager_self_ps / (double)host->op_time_ps;
    if (dev->total_op_time_ps > 0)
        out->device_op_time_eager_percent =
            100.0 * (double)dev_eager_ps / (double)dev->total_op_time_ps;
    out->device_idle_percent =
        dev->total_time_ps > 0
            ? 100.0 * (1.0 - (double)dev->total_op_time_ps / (double)dev->total_time_ps)
            : -1.0;
    out->host_idle_percent =
        host->total_time_ps > 0
            ? 100.0 * (1.0 - (double)host->op_time_ps / (double)host->total_time_ps)
            : -1.0;
    if (out->device_idle_percent < 0 && dev->total_time_ps > 0)
        out->device_idle_percent = 0;
    if (out->host_idle_percent < 0 && host->total_time_ps > 0)
        out->host_idle_percent = 0;

    const pv_step_analysis *an = &out->ip.analysis;
    out->precision_statement = "";
    if (out->ip.steps.hardware != PV_HW_CPU_ONLY &&
        an->compute16_percent + an->compute32_percent > 0 &&
        an->compute16_percent < PRECISION_16BIT_MIN_PERCENT)
        out->precision_statement = pv_arena_printf(
            a,
            "Only %.1f%% of device computation is 16 bit. So you might want to replace more "
            "32-bit Ops by 16-bit Ops to improve performance (if the reduced accuracy is "
            "acceptable).",
            an->compute16_percent);
    out->eager_statement = "";
    if (out->host_op_time_eager_percent > EAGER_HIGH_PERCENT ||
        out->device_op_time_eager_percent > EAGER_HIGH_PERCENT)
        out->eager_statement = pv_arena_printf(
            a,
            "%.1f%% of Op time on the host and %.1f%% on the device are spent on eager "
            "execution. Wrap the step in tf.function to run it as a graph.",
            out->host_op_time_eager_percent, out->device_op_time_eager_percent);

    const char *name = pv_device_type_name(m);
    out->device_type = out->ip.steps.hardware == PV_HW_CPU_ONLY ? "CPU"
                       : name != NULL                           ? name
                                                                : "GPU";
    out->device_core_count = out->ip.steps.n_device_planes;
    /* The run environment lists every host's names; the first host
     * speaks for the device kind and the profiling session. */
    size_t n_names = 0;
    for (size_t k = 0; k < n_models; k++)
        n_names += ms[k]->n_hostnames;
    out->hostnames = pv_arena_zalloc(a, (n_names + 1u) * sizeof *out->hostnames);
    for (size_t k = 0; k < n_models; k++)
        for (uint32_t i = 0; i < ms[k]->n_hostnames; i++)
            out->hostnames[out->n_hostnames++] = pv_model_str(ms[k], ms[k]->hostnames[i]);
    out->task_count = (uint32_t)n_models;
    task_environment(m, out);

    if (pv_model_has_roles(m)) {
        /* TensorFlow's advice (tf.data, tf.function, mixed_float16) does
         * not apply; torch-tb-profiler's does. */
        pv_overview_pytorch(m, &out->ip.steps, n_models == 1, a, &out->pytorch);
        out->precision_statement = "";
        out->eager_statement = "";
        /* A trace's kernels belong to no framework op of the device table
         * (which then says 100 % idle beside a busy GPU): its idle share is
         * what the GPUs' kernels leave uncovered, torch-tb-profiler's
         * utilization turned round. */
        if (out->pytorch.n_gpus > 0 && dev->total_op_time_ps == 0) {
            double busy = 0;
            for (size_t g = 0; g < out->pytorch.n_gpus; g++)
                busy += out->pytorch.gpus[g].utilization;
            out->device_idle_percent = 100.0 * (1.0 - busy / (double)out->pytorch.n_gpus);
        }
    }
}
