/* overview_multi: the ALL_HOSTS overview page and input pipeline analyzer
 * (reference: xprof/convert/multi_xplanes_to_op_stats.cc with
 * op_stats_combiner.cc and step_intersection.cc). Each host is analysed
 * on its own; the hosts' steps are lined up by time (step_intersection.h)
 * and the step table keeps the first host's per-step breakdown for the
 * steps every host shares, as the reference's combined step database
 * reads its per-step numbers from the first host's core; the op tables
 * add every host's ops up by name. */
#include "tools/steps/overview.h"
#include "tools/steps/step_intersection.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *x, const void *y)
{
    const pv_steps_op *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c != 0 ? c : strcmp(a->type, b->type);
}

/* Self time descending, ties by name: the order pv_steps_op_db promises. */
static int by_self_time(const void *x, const void *y)
{
    const pv_steps_op *a = x, *b = y;
    if (a->self_time_ps != b->self_time_ps)
        return a->self_time_ps > b->self_time_ps ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* Adds the tables up op by op (same name and type) into out. */
static void op_db_combine(const pv_steps_op_db *dbs, size_t n_dbs, pv_arena *a, pv_steps_op_db *out)
{
    memset(out, 0, sizeof *out);
    size_t n_all = 0;
    for (size_t k = 0; k < n_dbs; k++)
        n_all += dbs[k].n_ops;
    pv_steps_op *all = pv_arena_zalloc(a, (n_all + 1) * sizeof *all);
    size_t at = 0;
    for (size_t k = 0; k < n_dbs; k++) {
        if (dbs[k].n_ops > 0)
            memcpy(all + at, dbs[k].ops, dbs[k].n_ops * sizeof *all);
        at += dbs[k].n_ops;
        out->total_time_ps += dbs[k].total_time_ps;
        out->op_time_ps += dbs[k].op_time_ps;
        out->eager_self_ps += dbs[k].eager_self_ps;
    }
    if (n_all > 1)
        qsort(all, n_all, sizeof *all, by_name);
    size_t n = 0;
    for (size_t i = 0; i < n_all; i++) {
        if (n > 0 && by_name(&all[n - 1], &all[i]) == 0) {
            pv_steps_op *d = &all[n - 1];
            d->occurrences += all[i].occurrences;
            d->time_ps += all[i].time_ps;
            d->self_time_ps += all[i].self_time_ps;
            d->is_eager = d->is_eager || all[i].is_eager;
            continue;
        }
        all[n++] = all[i];
    }
    if (n > 1)
        qsort(all, n, sizeof *all, by_self_time);
    out->n_ops = n;
    out->ops = all;
}

/* Mean, sample deviation, minimum and maximum in ms, as the step
 * breakdown summarises. */
static pv_step_summary summarize_ms(const int64_t *ps, size_t n)
{
    pv_step_summary s = {0, 0, 0, 0};
    if (n == 0)
        return s;
    double sum = 0;
    s.minimum = s.maximum = (double)ps[0] / 1e9;
    for (size_t i = 0; i < n; i++) {
        double v = (double)ps[i] / 1e9;
        sum += v;
        s.minimum = v < s.minimum ? v : s.minimum;
        s.maximum = v > s.maximum ? v : s.maximum;
    }
    s.average = sum / (double)n;
    if (n > 1) {
        double sq = 0;
        for (size_t i = 0; i < n; i++) {
            double d = (double)ps[i] / 1e9 - s.average;
            sq += d * d;
        }
        s.standard_deviation = sqrt(sq / (double)(n - 1));
    }
    return s;
}

/* The per-host steps lined up (step_intersection.h); out->steps holds
 * the first host's share of the common run and n_steps_dropped its
 * steps outside it; the device cores are summed over hosts in *n_cores.
 * (*step_ps)[i] is the longest host's duration of common step i: the
 * reference's step-time summary reads the combined step's time, which is
 * the slowest host's, while the rows keep the first host's breakdown. */
static int common_steps(const pv_model *const *ms, size_t n_models, const pv_steps_query *q,
                        pv_arena *a, pv_input_pipeline_result *out, uint32_t *n_cores,
                        int64_t **step_ps, pv_error *err)
{
    pv_steps_result *per = pv_arena_zalloc(a, n_models * sizeof *per);
    *n_cores = 0;
    for (size_t k = 0; k < n_models; k++) {
        int rc = pv_tool_steps(ms[k], q, a, &per[k], err);
        if (rc != 0)
            return rc;
        *n_cores += per[k].n_device_planes;
    }
    size_t *first = pv_arena_zalloc(a, n_models * sizeof *first);
    size_t n = pv_step_intersection(per, n_models, a, first);
    out->steps = per[0];
    out->steps.steps = per[0].steps + first[0];
    out->steps.n_steps = n;
    out->n_steps_dropped = per[0].n_steps - n;
    *step_ps = pv_arena_zalloc(a, (n + 1) * sizeof **step_ps);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n_models; k++) {
            int64_t d = per[k].steps[first[k] + i].dur_ps;
            (*step_ps)[i] = d > (*step_ps)[i] ? d : (*step_ps)[i];
        }
    return 0;
}

static int input_pipeline_multi(const pv_model *const *ms, size_t n_models,
                                const pv_input_pipeline_query *q, pv_arena *a,
                                pv_input_pipeline_result *out, uint32_t *n_cores, pv_error *err)
{
    memset(out, 0, sizeof *out);
    int64_t *step_ps = NULL;
    int rc = common_steps(ms, n_models, q != NULL ? &q->steps : NULL, a, out, n_cores,
                          &step_ps, err);
    if (rc != 0)
        return rc;
    pv_steps_op_db *hosts = pv_arena_zalloc(a, n_models * sizeof *hosts);
    for (size_t k = 0; k < n_models; k++)
        pv_steps_host_ops(ms[k], a, &hosts[k]);
    op_db_combine(hosts, n_models, a, &out->host_ops);
    pv__input_pipeline_finish(ms, n_models, a, out);
    out->analysis.summary[PV_BD_STEP_TIME] = summarize_ms(step_ps, out->steps.n_steps);
    return 0;
}

int pv_tool_input_pipeline_multi(const pv_model *const *ms, size_t n_models,
                                 const pv_input_pipeline_query *q, pv_arena *a,
                                 pv_input_pipeline_result *out, pv_error *err)
{
    uint32_t n_cores;
    return input_pipeline_multi(ms, n_models, q, a, out, &n_cores, err);
}

int pv_tool_overview_multi(const pv_model *const *ms, size_t n_models,
                           const pv_overview_query *q, pv_arena *a, pv_overview_result *out,
                           pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_input_pipeline_query iq = {.steps = {false, false}};
    if (q != NULL)
        iq.steps = q->steps;
    uint32_t n_cores = 0;
    int rc = input_pipeline_multi(ms, n_models, q != NULL ? &iq : NULL, a, &out->ip, &n_cores,
                                  err);
    if (rc != 0)
        return rc;
    pv_op_metrics_db *devs = pv_arena_zalloc(a, n_models * sizeof *devs);
    for (size_t k = 0; k < n_models && rc == 0; k++)
        rc = pv_op_metrics_device(ms[k], a, &devs[k], err);
    if (rc == 0)
        rc = pv_op_metrics_combine(devs, n_models, a, &out->device_ops, err);
    if (rc == 0)
        rc = pv_tool_kernel_stats_multi(
            ms, n_models, &(pv_kernel_stats_query){PV_KERNEL_STATS_REFERENCE_ROWS}, a,
            &out->kernels, err);
    if (rc != 0)
        return rc;
    pv_op_metrics_sort(&out->device_ops);
    pv__overview_finish(ms, n_models, a, out);
    out->device_core_count = n_cores;
    return 0;
}
