/* step_breakdown: per-step details, summaries and the bottleneck verdict
 * (reference: ComputeGenericInputPipelineAnalysisResult and
 * ComputeBottleneckAnalysis in xprof/convert/op_stats_to_input_pipeline_
 * analysis.cc; thresholds and statement wording as there). */
#include "tools/steps/step_breakdown.h"

#include <math.h>
#include <string.h>

/* Thresholds in percent of total step time (reference constants). */
#define HIGHLY_INPUT_BOUND 20.0
#define MODERATELY_INPUT_BOUND 5.0
#define HIGHLY_KERNEL_LAUNCH 15.0
#define MODERATELY_KERNEL_LAUNCH 3.0
#define HIGHLY_ALL_OTHER 15.0
#define MODERATELY_ALL_OTHER 3.0
#define HIGHLY_COLLECTIVES 15.0
#define MODERATELY_COLLECTIVES 3.0

#define PS_PER_MS 1e9

const char *pv_one_digit(pv_arena *a, double v)
{
    return pv_arena_printf(a, "%.1f", v);
}

static pv_step_summary summarize(const double *v, size_t n)
{
    pv_step_summary s = {0, 0, 0, 0};
    if (n == 0)
        return s;
    double sum = 0;
    s.minimum = v[0];
    s.maximum = v[0];
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        if (v[i] < s.minimum)
            s.minimum = v[i];
        if (v[i] > s.maximum)
            s.maximum = v[i];
    }
    s.average = sum / (double)n;
    if (n > 1) {
        double sq = 0;
        for (size_t i = 0; i < n; i++)
            sq += (v[i] - s.average) * (v[i] - s.average);
        s.standard_deviation = sqrt(sq / (double)(n - 1));
    }
    return s;
}

static double ms(int64_t ps)
{
    return (double)ps / PS_PER_MS;
}

static void details_of(const pv_step *st, pv_step_details *d)
{
    const int64_t *t = st->type_ps;
    memset(d, 0, sizeof *d);
    d->name = st->name;
    d->group_id = st->group_id;
    d->begin_ps = st->begin_ps;
    d->ms[PV_BD_STEP_TIME] = ms(st->dur_ps);
    d->ms[PV_BD_UNKNOWN] = ms(t[PV_STEP_UNKNOWN]);
    d->ms[PV_BD_HOST_WAIT_INPUT] = ms(t[PV_STEP_HOST_WAIT_INPUT]);
    d->ms[PV_BD_HOST_TO_DEVICE] = ms(t[PV_STEP_HOST_TO_DEVICE]) + ms(t[PV_STEP_DEVICE_WAIT_HOST]);
    d->ms[PV_BD_INPUT] = d->ms[PV_BD_HOST_WAIT_INPUT] + d->ms[PV_BD_HOST_TO_DEVICE];
    d->ms[PV_BD_OUTPUT] = ms(t[PV_STEP_DEVICE_TO_HOST]);
    d->compute16_ms = ms(t[PV_STEP_DEVICE_COMPUTE_16]);
    d->compute32_ms = ms(t[PV_STEP_DEVICE_COMPUTE_32]);
    d->ms[PV_BD_DEVICE_COMPUTE] = d->compute16_ms + d->compute32_ms;
    d->ms[PV_BD_DEVICE_TO_DEVICE] =
        ms(t[PV_STEP_DEVICE_TO_DEVICE]) + ms(t[PV_STEP_DEVICE_WAIT_DEVICE]);
    d->ms[PV_BD_DEVICE_COLLECTIVES] = ms(t[PV_STEP_DEVICE_COLLECTIVES]);
    d->ms[PV_BD_HOST_COMPUTE] = ms(t[PV_STEP_HOST_COMPUTE]);
    d->ms[PV_BD_HOST_PREPARE] = ms(t[PV_STEP_HOST_PREPARE]);
    d->ms[PV_BD_HOST_COMPILE] = ms(t[PV_STEP_HOST_COMPILE]);
}

/* ---- verdict ------------------------------------------------------------ */

static const char KERNEL_LAUNCH_TFDATA[] =
    " It could be due to CPU contention with tf.data. In this case, you may try to set the "
    "environment variable TF_GPU_THREAD_MODE=gpu_private.";
static const char ALL_OTHER_PYTHON[] =
    " % of the total step time sampled is spent on 'All Others' time. This could be due to "
    "Python execution overhead.";

/* Returns true when the "all others" time was already reported here. */
static bool input_verdict(pv_arena *a, double input_pct, double all_other_pct, pv_bottleneck *b)
{
    const char *in = pv_one_digit(a, input_pct);
    if (input_pct >= HIGHLY_INPUT_BOUND) {
        b->input_classification = "host";
        b->input_statement = pv_arena_printf(
            a,
            "Your program is HIGHLY input-bound because %s%% of the total step time sampled is "
            "waiting for input. Therefore, you should first focus on reducing the input time.",
            in);
        return false;
    }
    if (input_pct >= MODERATELY_INPUT_BOUND) {
        b->input_classification = "both";
        b->input_statement = pv_arena_printf(
            a,
            "Your program is MODERATELY input-bound because %s%% of the total step time sampled "
            "is waiting for input. Therefore, you would need to reduce both the input time and "
            "other time.",
            in);
        return false;
    }
    if (all_other_pct >= MODERATELY_ALL_OTHER) {
        b->input_classification = "both";
        b->input_statement = pv_arena_printf(
            a,
            "Your program is POTENTIALLY input-bound because %s%% of the total step time sampled "
            "is spent on 'All Others' time (which could be due to I/O or Python execution or "
            "both).",
            pv_one_digit(a, all_other_pct));
        return true;
    }
    b->input_classification = "device";
    b->input_statement = pv_arena_printf(
        a,
        "Your program is NOT input-bound because only %s%% of the total step time sampled is "
        "waiting for input. Therefore, you should focus on reducing other time.",
        in);
    return false;
}

static const char *level(double pct, double high, double moderate)
{
    return pct >= high ? "high" : pct >= moderate ? "moderate" : "no";
}

static void verdict(pv_arena *a, const double *total_ms, bool tfdata_used, pv_bottleneck *b)
{
    memset(b, 0, sizeof *b);
    double step = total_ms[PV_BD_STEP_TIME];
    if (step <= 0) {
        b->input_classification = "unknown";
        b->input_statement = "No step time measured. Therefore we cannot tell where the "
                             "performance bottleneck is.";
        b->kernel_launch_classification = "no";
        b->kernel_launch_statement = "";
        b->all_other_classification = "no";
        b->all_other_statement = "";
        b->device_collectives_classification = "no";
        b->device_collectives_statement = "";
    } else {
        b->input_percent = 100.0 * total_ms[PV_BD_INPUT] / step;
        b->output_percent = 100.0 * total_ms[PV_BD_OUTPUT] / step;
        b->compute_percent = 100.0 * total_ms[PV_BD_DEVICE_COMPUTE] / step;
        b->device_collectives_percent = 100.0 * total_ms[PV_BD_DEVICE_COLLECTIVES] / step;
        double idle = 100.0 - b->input_percent - b->output_percent - b->compute_percent -
                      b->device_collectives_percent;
        b->idle_percent = idle > 0 ? idle : 0;
        b->kernel_launch_percent = 100.0 * total_ms[PV_BD_HOST_PREPARE] / step;
        b->all_other_percent = 100.0 * total_ms[PV_BD_UNKNOWN] / step;

        bool other_reported = input_verdict(a, b->input_percent, b->all_other_percent, b);

        b->device_collectives_classification =
            level(b->device_collectives_percent, HIGHLY_COLLECTIVES, MODERATELY_COLLECTIVES);
        b->device_collectives_statement =
            strcmp(b->device_collectives_classification, "no") == 0
                ? ""
                : pv_arena_printf(a,
                                  "%s %% of the total step time sampled is spent on 'Device "
                                  "Collective Communication'.",
                                  pv_one_digit(a, b->device_collectives_percent));

        b->kernel_launch_classification =
            level(b->kernel_launch_percent, HIGHLY_KERNEL_LAUNCH, MODERATELY_KERNEL_LAUNCH);
        b->kernel_launch_statement =
            strcmp(b->kernel_launch_classification, "no") == 0
                ? ""
                : pv_arena_printf(a,
                                  "%s %% of the total step time sampled is spent on 'Kernel "
                                  "Launch'.%s",
                                  pv_one_digit(a, b->kernel_launch_percent),
                                  tfdata_used ? KERNEL_LAUNCH_TFDATA : "");

        b->all_other_classification =
            other_reported ? "no"
                           : level(b->all_other_percent, HIGHLY_ALL_OTHER, MODERATELY_ALL_OTHER);
        b->all_other_statement =
            strcmp(b->all_other_classification, "no") == 0
                ? ""
                : pv_arena_printf(a, "%s%s", pv_one_digit(a, b->all_other_percent),
                                  ALL_OTHER_PYTHON);
    }
    const char *ic = b->input_classification;
    if (strcmp(ic, "host") == 0 || strcmp(ic, "both") == 0) {
        b->summary_next_step =
            tfdata_used
                ? "Look at Section 3 for the breakdown of input time on the host."
                : "Consider using <a href=\"https://www.tensorflow.org/guide/data\" "
                  "target=\"_blank\">the tf.data API</a> to enable profiler's host-side analysis "
                  "for input pipeline. Profiler currently does not support custom input pipeline "
                  "(please ignore Section 3 below).";
    } else {
        b->summary_next_step = "You may skip the rest of this page.";
    }
}

/* ---- entry point -------------------------------------------------------- */

void pv_step_analysis_compute(const pv_steps_result *steps, bool tfdata_used, pv_arena *a,
                              pv_step_analysis *out)
{
    size_t n = steps->n_steps;
    pv_step_details *d = pv_arena_zalloc(a, (n ? n : 1) * sizeof *d);
    for (size_t i = 0; i < n; i++)
        details_of(&steps->steps[i], &d[i]);
    pv_step_analysis_from_details(d, n, tfdata_used, a, out);
}

void pv_step_analysis_from_details(pv_step_details *details, size_t n, bool tfdata_used,
                                   pv_arena *a, pv_step_analysis *out)
{
    memset(out, 0, sizeof *out);
    out->n_steps = n;
    out->steps = details;
    double *col = pv_arena_alloc(a, (n ? n : 1) * sizeof *col);
    double total[PV_BD_N] = {0};
    double c16 = 0, c32 = 0;
    for (size_t i = 0; i < n; i++) {
        pv_step_details *d = &details[i];
        d->input_percent = d->ms[PV_BD_STEP_TIME] > 0
                               ? 100.0 * d->ms[PV_BD_INPUT] / d->ms[PV_BD_STEP_TIME]
                               : 0.0;
        for (int k = 0; k < PV_BD_N; k++)
            total[k] += d->ms[k];
        c16 += d->compute16_ms;
        c32 += d->compute32_ms;
    }
    for (int k = 0; k < PV_BD_N; k++) {
        for (size_t i = 0; i < n; i++)
            col[i] = details[i].ms[k];
        out->summary[k] = summarize(col, n);
    }
    for (size_t i = 0; i < n; i++)
        col[i] = details[i].input_percent;
    out->input_percent = summarize(col, n);
    if (c16 + c32 > 0) {
        out->compute16_percent = 100.0 * c16 / (c16 + c32);
        out->compute32_percent = 100.0 * c32 / (c16 + c32);
    }
    verdict(a, total, tfdata_used, &out->bottleneck);
}
