/* print_summary: one run's figures as text and CSV (print.h). Times of ops
 * and kernels are shown in milliseconds in text; CSV keeps the answers'
 * microseconds in full precision. */
#include "cli/print.h"

#include <stdio.h>
#include <string.h>

static size_t shown(size_t n, size_t top_k)
{
    return top_k == 0 || top_k > n ? n : top_k;
}

/* ---- text ------------------------------------------------------------------------- */

static int text_steps(const pv_figures *f, pv_buf *out)
{
    char a[32], b[32], c[32], d[32];
    if (f->n_steps == 0)
        return pv_buf_adds(out, "Step time      no steps found\n");
    int rc = pv_buf_addf(out, "Step time      %zu steps: mean %s ms, min %s, max %s, "
                         "stddev %s\n", f->n_steps, pv__fixed(f->step_mean_ms, 3, a, sizeof a),
                         pv__fixed(f->step_min_ms, 3, b, sizeof b),
                         pv__fixed(f->step_max_ms, 3, c, sizeof c),
                         pv__fixed(f->step_stddev_ms, 3, d, sizeof d));
    for (size_t i = 0; i < f->n_parts && rc == 0; i++) {
        const pv_fig_part *p = &f->parts[i];
        if (p->mean_ms <= 0)
            continue;
        rc = pv_buf_addf(out, "  %-28s %12.3f ms %6.1f %%\n", p->label, p->mean_ms,
                         f->step_mean_ms > 0 ? 100.0 * p->mean_ms / f->step_mean_ms : 0.0);
    }
    return rc;
}

/* "68.0 %", or "not recorded" for an unknown share. */
static const char *share(double v, char *buf, size_t cap)
{
    if (v < 0)
        return "not recorded";
    snprintf(buf, cap, "%.1f %%", v);
    return buf;
}

static int text_input(const pv_figures *f, pv_buf *out)
{
    char a[32], b[32], c[32];
    int rc = pv_buf_addf(out, "Input          %s %% of step time waiting for input",
                         pv__fixed(f->input_percent, 1, a, sizeof a));
    if (rc == 0 && f->input_verdict[0] != '\0')
        rc = pv_buf_addf(out, " (bottleneck: %s)", f->input_verdict);
    if (rc == 0 && f->input_statement[0] != '\0')
        rc = pv_buf_addf(out, "\n               %s", f->input_statement);
    if (rc == 0 && f->input_stage[0] != '\0')
        rc = pv_buf_addf(out, "\n               slowest input stage: %s", f->input_stage);
    if (rc == 0)
        rc = pv_buf_addf(out, "\nIdle           device %s, host %s\n",
                         share(f->device_idle_percent, b, sizeof b),
                         share(f->host_idle_percent, c, sizeof c));
    return rc;
}

static int text_devices(const pv_figures *f, pv_buf *out)
{
    char a[32];
    if (f->n_devices == 0)
        return pv_buf_adds(out, "Devices        none ran anything\n");
    int rc = pv_buf_addf(out, "Devices        %s %% busy on average\n",
                         pv__fixed(f->utilization_percent, 1, a, sizeof a));
    for (size_t i = 0; i < f->n_devices && rc == 0; i++) {
        const pv_fig_device *d = &f->devices[i];
        rc = pv_buf_addf(out, "  %s%s%-22s %6.1f %% busy, %llu idle gaps of 1 %% of the "
                         "window or more, longest %.3f ms\n", d->host, d->host[0] ? " " : "",
                         d->device, d->mean_percent, (unsigned long long)d->idle_gaps,
                         d->longest_gap_ms);
    }
    return rc;
}

static int text_ops(const pv_figures *f, size_t top_k, pv_buf *out)
{
    int rc = pv_buf_addf(out, "\nTop ops by self time (%zu of %zu)\n", shown(f->n_ops, top_k),
                         f->n_ops);
    if (rc == 0 && f->n_ops > 0)
        rc = pv_buf_addf(out, "  %12s %12s %9s  %-6s  %-20s  %s\n", "self ms", "total ms",
                         "count", "side", "category", "op");
    for (size_t i = 0; i < shown(f->n_ops, top_k) && rc == 0; i++) {
        const pv_fig_op *o = &f->ops[i];
        rc = pv_buf_addf(out, "  %12.3f %12.3f %9llu  %-6s  %-20s  %s\n", o->self_us / 1e3,
                         o->total_us / 1e3, (unsigned long long)o->occurrences, o->side,
                         o->category, o->name);
    }
    return rc;
}

static int text_kernels(const pv_figures *f, size_t top_k, pv_buf *out)
{
    char a[32];
    int rc = pv_buf_addf(out, "\nTop kernels by time (%zu of %zu; tensor cores: %s %% of "
                         "kernel time)\n", shown(f->n_kernels, top_k), f->n_kernels,
                         pv__fixed(f->tensor_core_percent, 1, a, sizeof a));
    if (rc == 0 && f->n_kernels > 0)
        rc = pv_buf_addf(out, "  %12s %9s %6s  %s\n", "total ms", "count", "TC %", "kernel (op)");
    for (size_t i = 0; i < shown(f->n_kernels, top_k) && rc == 0; i++) {
        const pv_fig_kernel *k = &f->kernels[i];
        rc = pv_buf_addf(out, "  %12.3f %9llu %6.1f  %s (%s)\n", k->total_us / 1e3,
                         (unsigned long long)k->occurrences,
                         k->total_us > 0 ? 100.0 * k->tensor_core_us / k->total_us : 0.0,
                         k->name, k->op);
    }
    return rc;
}

static int text_memory(const pv_figures *f, pv_buf *out)
{
    int rc = pv_buf_adds(out, "\nMemory peak per allocator (in the profiling window)\n");
    if (rc == 0 && f->n_allocs == 0)
        rc = pv_buf_adds(out, "  no memory profile\n");
    for (size_t i = 0; i < f->n_allocs && rc == 0; i++) {
        const pv_fig_alloc *m = &f->allocs[i];
        char a[32], b[32], c[32];
        rc = pv_buf_addf(out, "  %s %-20s %12s (lifetime peak %s, capacity %s)\n", m->host,
                         m->allocator, pv__human_bytes(m->peak_bytes, a, sizeof a),
                         pv__human_bytes(m->lifetime_peak_bytes, b, sizeof b),
                         pv__human_bytes(m->capacity_bytes, c, sizeof c));
    }
    return rc;
}

int pv__cli_summary_text(const pv_figures *f, size_t top_k, pv_buf *out)
{
    int rc = pv_buf_addf(out, "Run            %s%s%s%s\n", f->run, f->host[0] ? " (host " : "",
                         f->host, f->host[0] ? ")" : " (all hosts)");
    if (rc == 0 && f->hardware[0] != '\0')
        rc = pv_buf_addf(out, "Hardware       %s\n", f->hardware);
    if (rc == 0)
        rc = text_steps(f, out);
    if (rc == 0)
        rc = text_input(f, out);
    if (rc == 0)
        rc = text_devices(f, out);
    if (rc == 0)
        rc = text_ops(f, top_k, out);
    if (rc == 0)
        rc = text_kernels(f, top_k, out);
    return rc == 0 ? text_memory(f, out) : rc;
}

/* ---- CSV ------------------------------------------------------------------------------ */

static int csv_top(const pv_figures *f, size_t top_k, pv_buf *out)
{
    int rc = 0;
    for (size_t i = 0; i < shown(f->n_ops, top_k) && rc == 0; i++) {
        const pv_fig_op *o = &f->ops[i];
        const char *section = strcmp(o->side, "Device") == 0 ? "device_op" : "host_op";
        rc = pv__csv_line(out, section, o->name, "category", o->category);
        if (rc == 0)
            rc = pv__csv_num(out, section, o->name, "occurrences", (double)o->occurrences, 0);
        if (rc == 0)
            rc = pv__csv_num(out, section, o->name, "self_us", o->self_us, false);
        if (rc == 0)
            rc = pv__csv_num(out, section, o->name, "total_us", o->total_us, false);
    }
    for (size_t i = 0; i < shown(f->n_kernels, top_k) && rc == 0; i++) {
        const pv_fig_kernel *k = &f->kernels[i];
        rc = pv__csv_line(out, "kernel", k->name, "op", k->op);
        if (rc == 0)
            rc = pv__csv_num(out, "kernel", k->name, "occurrences", (double)k->occurrences, 0);
        if (rc == 0)
            rc = pv__csv_num(out, "kernel", k->name, "total_us", k->total_us, false);
        if (rc == 0)
            rc = pv__csv_num(out, "kernel", k->name, "tensor_core_us", k->tensor_core_us, false);
    }
    return rc;
}

static int csv_places(const pv_figures *f, pv_buf *out)
{
    int rc = 0;
    char name[300];
    for (size_t i = 0; i < f->n_allocs && rc == 0; i++) {
        const pv_fig_alloc *m = &f->allocs[i];
        snprintf(name, sizeof name, "%s/%s", m->host, m->allocator);
        rc = pv__csv_num(out, "memory", name, "peak_bytes", m->peak_bytes, false);
        if (rc == 0)
            rc = pv__csv_num(out, "memory", name, "lifetime_peak_bytes", m->lifetime_peak_bytes,
                             false);
        if (rc == 0)
            rc = pv__csv_num(out, "memory", name, "capacity_bytes", m->capacity_bytes, true);
    }
    for (size_t i = 0; i < f->n_devices && rc == 0; i++) {
        const pv_fig_device *d = &f->devices[i];
        snprintf(name, sizeof name, "%s/%s", d->host, d->device);
        rc = pv__csv_num(out, "device", name, "mean_percent", d->mean_percent, false);
        if (rc == 0)
            rc = pv__csv_num(out, "device", name, "idle_gaps", (double)d->idle_gaps, false);
        if (rc == 0)
            rc = pv__csv_num(out, "device", name, "longest_gap_ms", d->longest_gap_ms, false);
    }
    return rc;
}

int pv__cli_summary_csv(const pv_figures *f, size_t top_k, pv_buf *out)
{
    int rc = pv__csv_line(out, "section", "name", "field", "value");
    if (rc == 0)
        rc = pv__csv_line(out, "run", f->run, "host", f->host);
    if (rc == 0)
        rc = pv__csv_line(out, "run", f->run, "hardware", f->hardware);
    const struct {
        const char *section, *field;
        double v;
    } nums[] = {
        {"steps", "count", (double)f->n_steps},
        {"steps", "mean_ms", f->step_mean_ms},
        {"steps", "min_ms", f->step_min_ms},
        {"steps", "max_ms", f->step_max_ms},
        {"steps", "stddev_ms", f->step_stddev_ms},
        {"input", "percent", f->input_percent},
        {"idle", "device_percent", f->device_idle_percent},
        {"idle", "host_percent", f->host_idle_percent},
        {"kernels", "tensor_core_percent", f->tensor_core_percent},
        {"devices", "mean_percent", f->utilization_percent},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0] && rc == 0; i++)
        rc = pv__csv_num(out, nums[i].section, "", nums[i].field, nums[i].v, true);
    for (size_t i = 0; i < f->n_parts && rc == 0; i++)
        rc = pv__csv_num(out, "breakdown", f->parts[i].label, "mean_ms", f->parts[i].mean_ms,
                         false);
    if (rc == 0)
        rc = pv__csv_line(out, "input", "", "verdict", f->input_verdict);
    if (rc == 0)
        rc = pv__csv_line(out, "input", "", "stage", f->input_stage);
    if (rc == 0)
        rc = csv_top(f, top_k, out);
    return rc == 0 ? csv_places(f, out) : rc;
}
