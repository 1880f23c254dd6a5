/* figures_json: figures and briefs as JSON (figures.h). An unknown value
 * (negative in the struct) is written as null, so a script tells "no steps"
 * from a step time of 0. */
#include "report/figures.h"

json_t *pv__report_num(double v)
{
    return v < 0 ? json_null() : json_real(v);
}

static size_t shown(size_t n, size_t top_k)
{
    return top_k == 0 || top_k > n ? n : top_k;
}

static json_t *steps_json(const pv_figures *f)
{
    json_t *parts = json_array();
    for (size_t i = 0; i < f->n_parts; i++)
        json_array_append_new(parts, json_pack("{s:s, s:s, s:f}", "id", f->parts[i].id, "label",
                                               f->parts[i].label, "mean_ms",
                                               f->parts[i].mean_ms));
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "count", (json_int_t)f->n_steps,
                     "mean_ms", pv__report_num(f->step_mean_ms), "min_ms",
                     pv__report_num(f->step_min_ms), "max_ms", pv__report_num(f->step_max_ms),
                     "stddev_ms", pv__report_num(f->step_stddev_ms), "breakdown", parts);
}

static json_t *ops_json(const pv_figures *f, size_t top_k)
{
    json_t *top = json_array();
    for (size_t i = 0; i < shown(f->n_ops, top_k); i++) {
        const pv_fig_op *o = &f->ops[i];
        json_array_append_new(top, json_pack("{s:s, s:s, s:s, s:I, s:f, s:f}", "side", o->side,
                                             "name", o->name, "category", o->category,
                                             "occurrences", (json_int_t)o->occurrences,
                                             "self_us", o->self_us, "total_us", o->total_us));
    }
    return json_pack("{s:I, s:o}", "count", (json_int_t)f->n_ops, "top", top);
}

static json_t *kernels_json(const pv_figures *f, size_t top_k)
{
    json_t *top = json_array();
    for (size_t i = 0; i < shown(f->n_kernels, top_k); i++) {
        const pv_fig_kernel *k = &f->kernels[i];
        json_array_append_new(top, json_pack("{s:s, s:s, s:I, s:f, s:f}", "name", k->name, "op",
                                             k->op, "occurrences", (json_int_t)k->occurrences,
                                             "total_us", k->total_us, "tensor_core_us",
                                             k->tensor_core_us));
    }
    return json_pack("{s:I, s:o, s:o}", "count", (json_int_t)f->n_kernels,
                     "tensor_core_percent", pv__report_num(f->tensor_core_percent), "top", top);
}

static json_t *memory_json(const pv_figures *f)
{
    json_t *all = json_array();
    for (size_t i = 0; i < f->n_allocs; i++) {
        const pv_fig_alloc *m = &f->allocs[i];
        json_array_append_new(all, json_pack("{s:s, s:s, s:f, s:f, s:o}", "host", m->host,
                                             "allocator", m->allocator, "peak_bytes",
                                             m->peak_bytes, "lifetime_peak_bytes",
                                             m->lifetime_peak_bytes, "capacity_bytes",
                                             pv__report_num(m->capacity_bytes)));
    }
    return all;
}

static json_t *utilization_json(const pv_figures *f)
{
    json_t *devs = json_array();
    for (size_t i = 0; i < f->n_devices; i++) {
        const pv_fig_device *d = &f->devices[i];
        json_array_append_new(devs, json_pack("{s:s, s:s, s:f, s:I, s:f}", "host", d->host,
                                              "device", d->device, "mean_percent",
                                              d->mean_percent, "idle_gaps",
                                              (json_int_t)d->idle_gaps, "longest_gap_ms",
                                              d->longest_gap_ms));
    }
    return json_pack("{s:o, s:o}", "mean_percent", pv__report_num(f->utilization_percent),
                     "devices", devs);
}

json_t *pv_figures_to_json(const pv_figures *f, size_t top_k)
{
    return json_pack("{s:s, s:s, s:s, s:o, s:{s:o, s:s, s:s, s:s}, s:{s:o, s:o}, s:o, s:o, "
                     "s:o, s:o}",
                     "run", f->run, "host", f->host, "hardware", f->hardware, "steps",
                     steps_json(f), "input", "percent", pv__report_num(f->input_percent),
                     "verdict", f->input_verdict, "statement", f->input_statement, "stage",
                     f->input_stage, "idle", "device_percent",
                     pv__report_num(f->device_idle_percent), "host_percent",
                     pv__report_num(f->host_idle_percent), "ops", ops_json(f, top_k), "kernels",
                     kernels_json(f, top_k), "memory", memory_json(f), "utilization",
                     utilization_json(f));
}

json_t *pv_brief_to_json(const pv_brief *b)
{
    json_t *peaks = json_array();
    for (size_t i = 0; i < b->n_allocs; i++)
        json_array_append_new(peaks, json_pack("{s:s, s:s, s:f}", "host", b->allocs[i].host,
                                               "allocator", b->allocs[i].allocator, "peak_bytes",
                                               b->allocs[i].peak_bytes));
    return json_pack("{s:I, s:o, s:o, s:o, s:o}", "steps", (json_int_t)b->n_steps,
                     "step_time_ms", pv__report_num(b->step_mean_ms), "input_percent",
                     pv__report_num(b->input_percent), "device_idle_percent",
                     pv__report_num(b->device_idle_percent), "peak_memory", peaks);
}
