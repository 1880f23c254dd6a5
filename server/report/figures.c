/* figures: reading the tools' answers into pv_figures (figures.h). The
 * answers are Google DataTables (FORMATS.md §4.0) and the memory profile's
 * object; columns are found by their ids, never by position, so the older
 * overview tables TensorFlow wrote as JSON (computeTimeMs, inputTimeMs,
 * idleTimeMs instead of today's breakdown) read the same way. */
#include "report/figures.h"
#include "util/sort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* kernel_stats keeps the reference's 1000 rows unless asked for more;
 * compare needs every kernel to tell an added one from one that fell off
 * the list. */
static const pv_figures_ask asks[] = {
    {"overview_page", "", false, true},
    {"framework_op_stats", "max_ops=0", false, false},
    {"kernel_stats", "max_rows=1000000000", false, false},
    {"memory_profile", "", true, true},
    {"device_utilization", "", true, false},
};

const pv_figures_ask *pv_figures_asks(size_t *n)
{
    *n = sizeof asks / sizeof asks[0];
    return asks;
}

const char *pv_figures_query_param(const char *query, const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    for (const char *p = query; p != NULL && *p != '\0';) {
        size_t len = strcspn(p, "&");
        if (len > n && strncmp(p, name, n) == 0 && p[n] == '=') {
            size_t v = len - n - 1;
            if (v >= cap)
                v = cap - 1;
            memcpy(buf, p + n + 1, v);
            buf[v] = '\0';
            return buf;
        }
        p += len + (p[len] == '&');
    }
    return NULL;
}

/* ---- DataTable access --------------------------------------------------------- */

static int column(const json_t *table, const char *id)
{
    const json_t *cols = json_object_get(table, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *c = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        if (c != NULL && strcmp(c, id) == 0)
            return (int)i;
    }
    return -1;
}

static const json_t *cell(const json_t *row, int col)
{
    if (col < 0)
        return NULL;
    return json_object_get(json_array_get(json_object_get(row, "c"), (size_t)col), "v");
}

/* A number written as a number or as text ("1310720", "96.8%"); def when
 * neither. */
static double number(const json_t *v, double def)
{
    if (json_is_number(v))
        return json_number_value(v);
    const char *s = json_string_value(v);
    if (s == NULL)
        return def;
    char *end;
    double d = strtod(s, &end);
    return end != s && isfinite(d) ? d : def;
}

static const char *text(pv_arena *a, const json_t *v)
{
    const char *s = json_string_value(v);
    return pv_arena_strdup(a, s != NULL ? s : "");
}

static const char *prop(const json_t *table, const char *key)
{
    return json_string_value(json_object_get(json_object_get(table, "p"), key));
}

/* The first table of an overview answer whose properties include key, or
 * whose columns include a column key when by_column. */
static const json_t *table_with(const json_t *tables, const char *key, bool by_column)
{
    for (size_t i = 0; i < json_array_size(tables); i++) {
        const json_t *t = json_array_get(tables, i);
        if (by_column ? column(t, key) >= 0 : prop(t, key) != NULL)
            return t;
    }
    return NULL;
}

static bool ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), e = strlen(end);
    return n >= e && strcmp(s + n - e, end) == 0;
}

/* ---- overview_page --------------------------------------------------------------- */

static void read_parts(pv_figures *f, const json_t *steps)
{
    const json_t *cols = json_object_get(steps, "cols");
    f->parts = pv_arena_zalloc(f->arena, (json_array_size(cols) + 1) * sizeof *f->parts);
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const json_t *c = json_array_get(cols, i);
        const char *id = json_string_value(json_object_get(c, "id"));
        if (id == NULL || !ends_with(id, "TimeMs") || strcmp(id, "stepTimeMs") == 0)
            continue;
        const char *label = json_string_value(json_object_get(c, "label"));
        f->parts[f->n_parts++] = (pv_fig_part){pv_arena_strdup(f->arena, id),
                                               pv_arena_strdup(f->arena, label ? label : id), 0};
    }
}

static void read_steps(pv_figures *f, const json_t *steps)
{
    read_parts(f, steps);
    const json_t *rows = json_object_get(steps, "rows");
    size_t n = json_array_size(rows);
    int step_col = column(steps, "stepTimeMs");
    int input_col = column(steps, "infeedTimeMs");
    if (input_col < 0)
        input_col = column(steps, "inputTimeMs");
    double *ms = pv_arena_zalloc(f->arena, (n + 1) * sizeof *ms);
    double sum = 0, input = 0;
    for (size_t r = 0; r < n; r++) {
        const json_t *row = json_array_get(rows, r);
        double part_sum = 0;
        for (size_t p = 0; p < f->n_parts; p++) {
            double v = number(cell(row, column(steps, f->parts[p].id)), 0);
            f->parts[p].mean_ms += v / (double)n;
            part_sum += v;
        }
        /* The older tables have no step time column: their parts add up to it. */
        ms[r] = step_col >= 0 ? number(cell(row, step_col), 0) : part_sum;
        sum += ms[r];
        input += number(cell(row, input_col), 0);
    }
    f->n_steps = n;
    if (n == 0)
        return;
    f->step_mean_ms = sum / (double)n;
    f->step_min_ms = f->step_max_ms = ms[0];
    double sq = 0;
    for (size_t r = 0; r < n; r++) {
        f->step_min_ms = ms[r] < f->step_min_ms ? ms[r] : f->step_min_ms;
        f->step_max_ms = ms[r] > f->step_max_ms ? ms[r] : f->step_max_ms;
        sq += (ms[r] - f->step_mean_ms) * (ms[r] - f->step_mean_ms);
    }
    f->step_stddev_ms = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
    if (input_col >= 0 && sum > 0)
        f->input_percent = 100.0 * input / sum;
}

static int read_overview(pv_figures *f, const json_t *j, pv_error *err)
{
    if (!json_is_array(j) || json_array_size(j) == 0)
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "the overview_page answer is not a list of tables");
    const json_t *first = json_array_get(j, 0);
    f->device_idle_percent = number(json_object_get(json_object_get(first, "p"),
                                                    "device_idle_time_percent"), -1);
    f->host_idle_percent = number(json_object_get(json_object_get(first, "p"),
                                                  "host_idle_time_percent"), -1);
    const json_t *steps = table_with(j, "stepnum", true);
    if (steps != NULL)
        read_steps(f, steps);
    const json_t *tips = table_with(j, "statement", false);
    if (tips != NULL) {
        f->input_verdict = pv_arena_strdup(f->arena, prop(tips, "bottleneck"));
        f->input_statement = pv_arena_strdup(f->arena, prop(tips, "statement"));
        const char *stage = prop(tips, "pv_input_bottleneck_stage");
        f->input_stage = pv_arena_strdup(f->arena, stage != NULL ? stage : "");
    }
    const json_t *env = table_with(j, "device_type", false);
    if (env != NULL)
        f->hardware = pv_arena_strdup(f->arena, prop(env, "device_type"));
    return 0;
}

/* ---- framework_op_stats ------------------------------------------------------------ */

static int read_ops(pv_figures *f, const json_t *j, pv_error *err)
{
    /* [with the IDLE rows, without them]; a single table is read as the
     * first, its IDLE rows skipped below. */
    const json_t *t = json_is_array(j) ? json_array_get(j, json_array_size(j) > 1 ? 1 : 0) : j;
    int side = column(t, "host_or_device"), type = column(t, "type");
    int name = column(t, "operation"), occ = column(t, "occurrences");
    int self = column(t, "total_self_time"), total = column(t, "total_time");
    if (name < 0 || self < 0)
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "the framework_op_stats answer has no operation or self time column");
    const json_t *rows = json_object_get(t, "rows");
    f->ops = pv_arena_zalloc(f->arena, (json_array_size(rows) + 1) * sizeof *f->ops);
    f->n_ops = 0;
    for (size_t r = 0; r < json_array_size(rows); r++) {
        const json_t *row = json_array_get(rows, r);
        const char *ty = json_string_value(cell(row, type));
        if (ty != NULL && strcmp(ty, "IDLE") == 0)
            continue;
        f->ops[f->n_ops++] = (pv_fig_op){
            text(f->arena, cell(row, side)), text(f->arena, cell(row, name)),
            text(f->arena, cell(row, type)), (uint64_t)number(cell(row, occ), 0),
            number(cell(row, self), 0), number(cell(row, total), 0)};
    }
    return 0;
}

/* ---- kernel_stats -------------------------------------------------------------------- */

static int read_kernels(pv_figures *f, const json_t *j, pv_error *err)
{
    int name = column(j, "kernel_name"), op = column(j, "op_name");
    int occ = column(j, "occurrences"), total = column(j, "total_duration_us");
    int tc = column(j, "is_kernel_using_tensor_core");
    if (name < 0 || total < 0)
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "the kernel_stats answer has no kernel name or duration column");
    const json_t *rows = json_object_get(j, "rows");
    f->kernels = pv_arena_zalloc(f->arena, (json_array_size(rows) + 1) * sizeof *f->kernels);
    f->n_kernels = 0;
    for (size_t r = 0; r < json_array_size(rows); r++) {
        const json_t *row = json_array_get(rows, r);
        double us = number(cell(row, total), 0);
        f->kernels[f->n_kernels++] =
            (pv_fig_kernel){text(f->arena, cell(row, name)), text(f->arena, cell(row, op)),
                            (uint64_t)number(cell(row, occ), 0), us,
                            json_is_true(cell(row, tc)) ? us : 0};
    }
    return 0;
}

/* ---- memory_profile --------------------------------------------------------------------- */

/* A new array of n + more elements (size bytes each, zeroed) from a, the
 * n at old copied to its start: per-host answers add to a list. */
static void *grow(pv_arena *a, const void *old, size_t n, size_t more, size_t size)
{
    void *v = pv_arena_zalloc(a, (n + more + 1) * size);
    if (n > 0)
        memcpy(v, old, n * size);
    return v;
}

static int read_memory(pv_figures *f, const char *host, const json_t *j, pv_error *err)
{
    const json_t *per = json_object_get(j, "memoryProfilePerAllocator");
    if (!json_is_object(j) || (per != NULL && !json_is_object(per)))
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "the memory_profile answer has no allocator map");
    pv_fig_alloc *all = grow(f->arena, f->allocs, f->n_allocs, json_object_size(per),
                             sizeof *all);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)per, key, v) {
        const json_t *s = json_object_get(v, "profileSummary");
        all[f->n_allocs++] = (pv_fig_alloc){
            pv_arena_strdup(f->arena, host), pv_arena_strdup(f->arena, key),
            number(json_object_get(json_object_get(s, "peakStats"), "peakBytesInUse"), 0),
            number(json_object_get(s, "peakBytesUsageLifetime"), 0),
            number(json_object_get(s, "memoryCapacity"), -1)};
    }
    f->allocs = all;
    return 0;
}

/* ---- device_utilization -------------------------------------------------------------------- */

static int read_utilization(pv_figures *f, const char *host, const json_t *j, pv_error *err)
{
    const json_t *devs = json_object_get(j, "devices");
    if (!json_is_array(devs))
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "the device_utilization answer has no device list");
    pv_fig_device *all = grow(f->arena, f->devices, f->n_devices, json_array_size(devs),
                              sizeof *all);
    for (size_t i = 0; i < json_array_size(devs); i++) {
        const json_t *d = json_array_get(devs, i);
        const json_t *longest = json_array_get(json_object_get(d, "longest_gaps"), 0);
        all[f->n_devices++] = (pv_fig_device){
            pv_arena_strdup(f->arena, host), text(f->arena, json_object_get(d, "name")),
            number(json_object_get(d, "mean_percent"), 0),
            (uint64_t)number(json_object_get(d, "idle_gaps"), 0),
            number(json_object_get(longest, "dur_ps"), 0) / 1e9};
    }
    f->devices = all;
    return 0;
}

/* ---- the calls ---------------------------------------------------------------------------- */

void pv_figures_init(pv_figures *f, const char *run, const char *host, pv_arena *a)
{
    memset(f, 0, sizeof *f);
    f->arena = a;
    f->run = pv_arena_strdup(a, run);
    f->host = pv_arena_strdup(a, host);
    f->hardware = "";
    f->step_mean_ms = f->step_min_ms = f->step_max_ms = f->step_stddev_ms = -1;
    f->input_percent = f->device_idle_percent = f->host_idle_percent = -1;
    f->input_verdict = f->input_statement = f->input_stage = "";
    f->tensor_core_percent = f->utilization_percent = -1;
}

int pv_figures_add(pv_figures *f, const pv_figures_ask *ask, const char *host, const char *json,
                   size_t len, pv_error *err)
{
    json_error_t jerr;
    json_t *j = json_loadb(json, len, 0, &jerr);
    if (j == NULL)
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET,
                            "the %s answer is not JSON: %s", ask->tool, jerr.text);
    int rc = 0;
    pv_figures keep = *f;
    if (strcmp(ask->tool, "overview_page") == 0)
        rc = read_overview(f, j, err);
    else if (strcmp(ask->tool, "framework_op_stats") == 0)
        rc = read_ops(f, j, err);
    else if (strcmp(ask->tool, "kernel_stats") == 0)
        rc = read_kernels(f, j, err);
    else if (strcmp(ask->tool, "memory_profile") == 0)
        rc = read_memory(f, host, j, err);
    else if (strcmp(ask->tool, "device_utilization") == 0)
        rc = read_utilization(f, host, j, err);
    json_decref(j);
    if (rc != 0)
        *f = keep;
    return rc;
}

/* ---- finishing ------------------------------------------------------------------------------ */

static int cmp_kernel_name(const void *pa, const void *pb)
{
    const pv_fig_kernel *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c != 0)
        return c;
    return a->total_us > b->total_us ? -1 : a->total_us < b->total_us;
}

static int cmp_kernel_time(const void *pa, const void *pb)
{
    const pv_fig_kernel *a = pa, *b = pb;
    if (a->total_us != b->total_us)
        return a->total_us > b->total_us ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_alloc(const void *pa, const void *pb)
{
    const pv_fig_alloc *a = pa, *b = pb;
    int c = strcmp(a->host, b->host);
    return c != 0 ? c : strcmp(a->allocator, b->allocator);
}

/* One row per kernel name: its launch configurations added up, the
 * framework op of the costliest one kept. */
static void merge_kernels(pv_figures *f)
{
    pv_sort(f->kernels, f->n_kernels, sizeof *f->kernels, cmp_kernel_name);
    size_t w = 0;
    double all = 0, tc = 0;
    for (size_t i = 0; i < f->n_kernels; i++) {
        all += f->kernels[i].total_us;
        tc += f->kernels[i].tensor_core_us;
        if (w > 0 && strcmp(f->kernels[w - 1].name, f->kernels[i].name) == 0) {
            f->kernels[w - 1].occurrences += f->kernels[i].occurrences;
            f->kernels[w - 1].total_us += f->kernels[i].total_us;
            f->kernels[w - 1].tensor_core_us += f->kernels[i].tensor_core_us;
        } else {
            f->kernels[w++] = f->kernels[i];
        }
    }
    f->n_kernels = w;
    pv_sort(f->kernels, f->n_kernels, sizeof *f->kernels, cmp_kernel_time);
    if (all > 0)
        f->tensor_core_percent = 100.0 * tc / all;
}

void pv_figures_finish(pv_figures *f)
{
    merge_kernels(f);
    pv_sort(f->allocs, f->n_allocs, sizeof *f->allocs, cmp_alloc);
    if (f->n_devices > 0) {
        f->utilization_percent = 0;
        for (size_t i = 0; i < f->n_devices; i++)
            f->utilization_percent += f->devices[i].mean_percent / (double)f->n_devices;
    }
}

/* ---- the brief ------------------------------------------------------------------------------- */

void pv_brief_of(const pv_figures *f, pv_brief *out)
{
    memset(out, 0, sizeof *out);
    out->n_steps = f->n_steps;
    out->step_mean_ms = f->step_mean_ms;
    out->input_percent = f->input_percent;
    out->device_idle_percent = f->device_idle_percent;
    for (size_t i = 0; i < f->n_allocs && out->n_allocs < PV_BRIEF_ALLOCS; i++) {
        size_t k = out->n_allocs++;
        snprintf(out->allocs[k].host, sizeof out->allocs[k].host, "%s", f->allocs[i].host);
        snprintf(out->allocs[k].allocator, sizeof out->allocs[k].allocator, "%s",
                 f->allocs[i].allocator);
        out->allocs[k].peak_bytes = f->allocs[i].peak_bytes;
    }
}

double pv_figures_part_ms(const pv_figures *f, const char *id)
{
    for (size_t i = 0; i < f->n_parts; i++)
        if (strcmp(f->parts[i].id, id) == 0)
            return f->parts[i].mean_ms;
    return -1;
}
