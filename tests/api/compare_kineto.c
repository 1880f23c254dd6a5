/* compare_kineto: profview's views of PyTorch (Kineto) traces against
 * torch-tb-profiler 0.4.3's and HolisticTraceAnalysis 0.5.0's, the
 * references of issue 21 (written by tools/reference/kineto/tb_views.py
 * and tools/reference/hta/hta_views.py into tests/data/reference/kineto/).
 * For every golden folder <rel>/ it copies the trace
 * ../shared/testdata/traces/<rel>.json[.gz] into a temporary logdir as a
 * PyTorch run, starts the real profview binary and compares, through the
 * TensorBoard route /data/plugin/profile/data:
 *
 *   operator  each of torch-tb-profiler's operators against
 *             framework_op_stats' Host row (calls, host total and self
 *             time) and Device row (device total and self time; no row: 0)
 *   kernel    its kernels by name against kernel_stats' rows summed by
 *             kernel name (calls, total, min, max time), and their number
 *   steps     its overview's steps against input_pipeline_analyzer's step
 *             table (Kernel, Memcpy + Memset, Communication, Runtime,
 *             DataLoader, CPU Exec, Other per step), and their number
 *   memory    its "Peak Memory Usage" per device against memory_profile's
 *             peak per allocator
 *   distributed  its overlap of computation and communication per step
 *             (the worker's row of /distributed/overlap) against
 *             distributed_view's
 *   recommendations  its overview's recommendations (their text without
 *             the links' markup) against overview_page's PyTorch table,
 *             each and their number
 *   gpu       its GPU summary per GPU (utilization, est. SM efficiency,
 *             est. achieved occupancy) against overview_page's GPU table,
 *             within 0.1 percentage points; a measure it has none of, null
 *
 * and HTA's (hta.json.gz) against distributed_view's second and third
 * tables and kernel_stats:
 *
 *   hta_temporal  its temporal breakdown (GPU span, idle, computation,
 *             non-compute time)
 *   hta_overlap   its comm-comp overlap (% of communication kernel time),
 *             within 0.1 points (it rounds to 0.01); none: null
 *   hta_types     its kernel type breakdown, each set of types running
 *   hta_kernels   its top computation and communication kernels by name
 *             (calls = sum / mean, total, max, min); its memory "kernels"
 *             are memcpys and memsets, which kernel_stats does not list
 *
 * Times match within 0.5 % or 1 us (torch-tb-profiler rounds to whole
 * microseconds), counts and bytes exactly. A difference named by a rule of
 * the table below is accepted and counted under its reason; a rule that
 * accepts nothing is itself a failure. Prints one line per trace and view:
 *   match <trace> <view>: <n> values[; accepted: <reason> (<n>)]
 *   DIFF  <trace> <view>: <key> <field>: ours X, reference Y; ...
 * then PASS or FAIL. Run by make check (SKIP without ../shared/testdata),
 * or by hand: PROFVIEW_BIN=./profview tests/api/compare_kineto [-v]. */
#include "compare_io.h"
#include "httpc.h"
#include "served.h"
#include "testutil.h"

#include <dirent.h>
#include <fnmatch.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define PATH_CAP 4096
#define MAX_SETS 64
#define SHOWN_DIFFS 3

/* ---- accepted differences -------------------------------------------------- */

typedef struct rule {
    const char *trace;    /* fnmatch pattern on the golden folder */
    const char *view;     /* fnmatch pattern on a view of main()'s table */
    const char *field;    /* fnmatch pattern on the field */
    const char *key;      /* fnmatch pattern on the row (op, kernel, step); NULL any */
    const char *reason;
    unsigned used;
} rule;

/* Reasons that hold for more than one trace or view. */
#define NEGATIVE_SELF                                                                          \
    "torch-tb-profiler subtracts from an operator every runtime call carrying its External "  \
    "id, also one that outlasts it, and shows negative self times; profview's self time "     \
    "stops at 0"
#define HTA_WHOLE_US                                                                           \
    "HTA's kernel type table holds whole microseconds (an int column): on this trace with "  \
    "fractional-microsecond times it truncates each stretch between two kernel edges, so "   \
    "its sums fall short by under 1 us a stretch; its temporal breakdown, which keeps the "  \
    "fractions, matches"
#define NO_HOST_OPERATOR                                                                       \
    "the trace has no host operator: torch-tb-profiler draws one empty step 0 over "          \
    "nothing, profview no step"

static rule rules[] = {
    {"kineto_resnet50_*", "kernel", "calls", "*FillFunctor*",
     "kernel_stats counts the launches of 1 ns or more, as XProf does; torch-tb-profiler "
     "counts this fill kernel's zero-length launches too (test_kernel_stats.c)",
     0},
    {"hta/ns_resolution/*", "operator", "*", NULL,
     "torch-tb-profiler reads times as doubles, which step by 0.25 us at these epoch "
     "timestamps: sub-microsecond operators' times round, and 28 aten::slice, 25 detach, "
     "9 aten::detach and 1 aten::mul round past their parent's end and leave its tree; "
     "profview keeps picoseconds",
     0},
    {"hta/ns_resolution/*", "steps", "*", NULL,
     "torch-tb-profiler's double times step by 0.25 us at these timestamps, so each role's "
     "share of a step moves by a few microseconds; profview keeps picoseconds",
     0},
    {"hta/critical_path_alexnet/*", "operator", "host_self", NULL,
     NEGATIVE_SELF " (aten::to: -33288 us)", 0},
    {"hta/cupti_profiler/*", "operator", "host_self", NULL,
     NEGATIVE_SELF, 0},
    {"tracelens/h100_*", "operator", "device_*", NULL,
     "22 kernels (164.5 us) launched through the CUDA driver (cuLaunchKernel): "
     "torch-tb-profiler reads no runtime call for them and gives them to no operator; "
     "profview gives each kernel to the operator its External id names",
     0},
    {"hta/triton_example/*", "operator", "device_*", NULL,
     "the Triton kernel is launched through the CUDA driver (cuLaunchKernel), which "
     "torch-tb-profiler reads no runtime call of; profview gives it to the operator its "
     "External id names",
     0},
    {"tracelens/mi210_gpu_only_trace", "steps", "*", NULL,
     NO_HOST_OPERATOR, 0},
    {"tracelens/mi210_gpu_only_trace", "distributed", "*", NULL,
     NO_HOST_OPERATOR, 0},
    {"tracelens/mi210_gpu_only_trace", "recommendations", "*", NULL,
     NO_HOST_OPERATOR ", so profview measures no GPU utilization inside steps and makes "
     "no recommendation about it",
     0},
    {"tracelens/mi210_gpu_only_trace", "gpu", "*", NULL,
     NO_HOST_OPERATOR ", so profview has no steps' span to measure the GPU summary over",
     0},
    {"tracelens/torch_compile_triton_trace", "recommendations", "*", NULL,
     "the trace's deviceProperties describe only GPU 0, which ran nothing; its kernels ran on "
     "GPU 2, whose compute capability profview does not know, so it does not judge Tensor "
     "Core use; torch-tb-profiler reads the first listed device's properties for every GPU",
     0},
    /* HolisticTraceAnalysis */
    {"hta/critical_path_alexnet/*", "hta_temporal", "*", NULL,
     "HTA takes every event with a stream argument for GPU work, also the trace's 41 "
     "cuda_sync events (Context Sync, Stream Sync, Stream Wait Event), which stretch its GPU "
     "span by 75767 us past the kernels, memcpys and memsets; profview counts a wait for "
     "the GPU as idle, not as work",
     0},
    {"hta/mtia_inference/*", "hta_*", "*", NULL,
     "the device work of this MTIA trace is in mtia_ccp_events, which HTA reads as GPU "
     "kernels (they carry a stream argument); profview, like torch-tb-profiler, reads "
     "kernels, memcpys and memsets by their Kineto categories and finds none",
     0},
    {"hta/negative_queue_length/*", "hta_*", "*", NULL,
     "872 kernels, memcpys and memsets (59526 us, inside the steps) carry correlation ids "
     "that no runtime call in the trace has; HTA drops GPU work that no host event up to "
     "the last ProfilerStep's end launched, profview keeps what the GPU ran",
     0},
    {"hta/triton_example/*", "hta_*", "*", NULL,
     "the cpu_op that launches the Triton kernel carries a stream argument, so HTA counts "
     "its 95.812 us on the host as a second run of the GPU kernel of the same name; "
     "profview counts the 1.76 us kernel",
     0},
    {"hta/amd_mi250/*", "hta_types", "time", NULL, HTA_WHOLE_US, 0},
    {"hta/ns_resolution/*", "hta_types", "time", NULL, HTA_WHOLE_US, 0},
    {"tracelens/*", "hta_types", "time", NULL, HTA_WHOLE_US, 0},
};
#define N_RULES (sizeof rules / sizeof rules[0])

static rule *accepting(const char *trace, const char *view, const char *field, const char *key)
{
    for (size_t i = 0; i < N_RULES; i++) {
        rule *r = &rules[i];
        if (fnmatch(r->trace, trace, 0) == 0 && fnmatch(r->view, view, 0) == 0 &&
            fnmatch(r->field, field, 0) == 0 && (r->key == NULL || fnmatch(r->key, key, 0) == 0))
            return r;
    }
    return NULL;
}

/* ---- one view's tally -------------------------------------------------------- */

typedef struct view_tally {
    const char *trace, *view;
    size_t values, diffs;
    char shown[2048];
    size_t n_shown;
    rule *accepted[N_RULES];
    size_t n_accepted[N_RULES];
    bool verbose;
} view_tally;

static void differ(view_tally *t, const char *key, const char *field, double ours, double ref)
{
    rule *r = accepting(t->trace, t->view, field, key);
    if (r != NULL) {
        size_t i = (size_t)(r - rules);
        r->used++;
        t->accepted[i] = r;
        t->n_accepted[i]++;
        return;
    }
    t->diffs++;
    if (t->verbose)
        printf("    %s %s: ours %.6g, reference %.6g\n", key, field, ours, ref);
    if (t->n_shown < SHOWN_DIFFS) {
        size_t n = strlen(t->shown);
        snprintf(t->shown + n, sizeof t->shown - n, "%s%.120s %s: ours %.6g, reference %.6g",
                 t->n_shown ? "; " : "", key, field, ours, ref);
        t->n_shown++;
    }
}

static void check_time(view_tally *t, const char *key, const char *field, double ours, double ref)
{
    t->values++;
    if (fabs(ours - ref) > fmax(1.0, 0.005 * fabs(ref)))
        differ(t, key, field, ours, ref);
}

/* Percentages (0..100) within 0.1 points: torch-tb-profiler's times are
 * whole microseconds, profview's picoseconds. NAN: not measured. */
static void check_pct(view_tally *t, const char *key, const char *field, double ours, double ref)
{
    t->values++;
    bool same = isnan(ours) || isnan(ref) ? isnan(ours) && isnan(ref) : fabs(ours - ref) <= 0.1;
    if (!same)
        differ(t, key, field, ours, ref);
}

static void check_count(view_tally *t, const char *key, const char *field, double ours,
                        double ref)
{
    t->values++;
    if (ours != ref)
        differ(t, key, field, ours, ref);
}

/* Prints the view's line; returns whether it failed. */
static bool report(const view_tally *t)
{
    if (t->diffs > 0) {
        printf("DIFF      %s %s: %s; %zu differences in all\n", t->trace, t->view, t->shown,
               t->diffs);
        return true;
    }
    printf("match     %s %s: %zu values", t->trace, t->view, t->values);
    for (size_t i = 0; i < N_RULES; i++)
        if (t->n_accepted[i] > 0)
            printf("; accepted: %s (%zu values)", t->accepted[i]->reason, t->n_accepted[i]);
    printf("\n");
    return false;
}

/* ---- DataTables ------------------------------------------------------------- */

/* The cell of column id in row of DataTable t, as a number (strings that
 * hold one too); NAN when absent. */
static double cell_num(json_t *t, json_t *row, const char *id)
{
    json_t *cols = json_object_get(t, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *c = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        if (c == NULL || strcmp(c, id) != 0)
            continue;
        json_t *v = json_object_get(json_array_get(json_object_get(row, "c"), i), "v");
        return json_is_string(v) ? strtod(json_string_value(v), NULL) : json_number_value(v);
    }
    return NAN;
}

static const char *cell_str(json_t *t, json_t *row, const char *id)
{
    json_t *cols = json_object_get(t, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *c = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        if (c != NULL && strcmp(c, id) == 0)
            return json_string_value(
                json_object_get(json_array_get(json_object_get(row, "c"), i), "v"));
    }
    return NULL;
}

/* ---- the views ---------------------------------------------------------------- */

static json_t *find_op_row(json_t *t, const char *side, const char *name)
{
    json_t *rows = json_object_get(t, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        const char *s = cell_str(t, r, "host_or_device"), *op = cell_str(t, r, "operation");
        if (s != NULL && op != NULL && strcmp(s, side) == 0 && strcmp(op, name) == 0)
            return r;
    }
    return NULL;
}

static void compare_operator(view_tally *t, json_t *ref, json_t *ours)
{
    json_t *table = json_array_get(ours, 1);   /* without IDLE: PyTorch has none */
    json_t *data = json_object_get(ref, "data");
    size_t n_host = 0;
    json_t *rows = json_object_get(table, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        const char *s = cell_str(table, json_array_get(rows, i), "host_or_device");
        n_host += s != NULL && strcmp(s, "Host") == 0;
    }
    check_count(t, "operators", "rows", (double)n_host, (double)json_array_size(data));
    for (size_t i = 0; i < json_array_size(data); i++) {
        json_t *op = json_array_get(data, i);
        const char *name = json_string_value(json_object_get(op, "name"));
        json_t *h = find_op_row(table, "Host", name), *d = find_op_row(table, "Device", name);
        if (h == NULL) {
            check_count(t, name, "missing", 1, 0);
            continue;
        }
        check_count(t, name, "calls", cell_num(table, h, "occurrences"),
                    json_number_value(json_object_get(op, "calls")));
        check_time(t, name, "host_total", cell_num(table, h, "total_time"),
                   json_number_value(json_object_get(op, "host_total_duration")));
        check_time(t, name, "host_self", cell_num(table, h, "total_self_time"),
                   json_number_value(json_object_get(op, "host_self_duration")));
        check_time(t, name, "device_total", d != NULL ? cell_num(table, d, "total_time") : 0,
                   json_number_value(json_object_get(op, "device_total_duration")));
        check_time(t, name, "device_self", d != NULL ? cell_num(table, d, "total_self_time") : 0,
                   json_number_value(json_object_get(op, "device_self_duration")));
    }
}

typedef struct kernel_sum {
    const char *name;
    double calls, total, min, max;
} kernel_sum;

static void compare_kernel(view_tally *t, json_t *ref, json_t *ours)
{
    json_t *rows = json_object_get(ours, "rows");
    size_t n = 0;
    kernel_sum *sums = calloc(json_array_size(rows) + 1, sizeof *sums);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        const char *name = cell_str(ours, r, "kernel_name");
        size_t k = 0;
        while (k < n && strcmp(sums[k].name, name) != 0)
            k++;
        if (k == n)
            sums[n++] = (kernel_sum){name, 0, 0, INFINITY, 0};
        sums[k].calls += cell_num(ours, r, "occurrences");
        sums[k].total += cell_num(ours, r, "total_duration_us");
        sums[k].min = fmin(sums[k].min, cell_num(ours, r, "min_duration_us"));
        sums[k].max = fmax(sums[k].max, cell_num(ours, r, "max_duration_us"));
    }
    /* the reference's table: name, TensorCores, calls, total, mean, max, min, ... */
    json_t *krows = json_object_get(json_object_get(json_object_get(ref, "by_kernel"), "data"),
                                    "rows");
    check_count(t, "kernels", "names", (double)n, (double)json_array_size(krows));
    for (size_t i = 0; i < json_array_size(krows); i++) {
        json_t *r = json_array_get(krows, i);
        const char *name = json_string_value(json_array_get(r, 0));
        size_t k = 0;
        while (k < n && strcmp(sums[k].name, name) != 0)
            k++;
        if (k == n) {
            check_count(t, name, "missing", 1, 0);
            continue;
        }
        check_count(t, name, "calls", sums[k].calls, json_number_value(json_array_get(r, 2)));
        check_time(t, name, "total", sums[k].total, json_number_value(json_array_get(r, 3)));
        check_time(t, name, "max", sums[k].max, json_number_value(json_array_get(r, 5)));
        check_time(t, name, "min", sums[k].min, json_number_value(json_array_get(r, 6)));
    }
    free(sums);
}

/* The reference step's value of the named column (0 when the column is
 * not drawn, as Communication is not on traces without collectives). */
static double ref_col(json_t *cols, json_t *row, const char *name)
{
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *n = json_string_value(json_object_get(json_array_get(cols, i), "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return json_number_value(json_array_get(row, i));
    }
    return 0;
}

static void compare_steps(view_tally *t, json_t *ref, json_t *ours)
{
    /* the analyzer's step table: the DataTable with a stepnum column */
    json_t *table = NULL;
    for (size_t i = 0; i < json_array_size(ours); i++) {
        json_t *cols = json_object_get(json_array_get(ours, i), "cols");
        for (size_t k = 0; k < json_array_size(cols); k++) {
            const char *id = json_string_value(json_object_get(json_array_get(cols, k), "id"));
            if (id != NULL && strcmp(id, "stepnum") == 0)
                table = json_array_get(ours, i);
        }
    }
    json_t *steps = json_object_get(ref, "steps");
    json_t *cols = json_object_get(steps, "columns"), *rrows = json_object_get(steps, "rows");
    json_t *rows = json_object_get(table, "rows");
    check_count(t, "steps", "steps", (double)json_array_size(rows), (double)json_array_size(rrows));
    static const struct {
        const char *ours;
        const char *ref[2];
    } cats[] = {
        {"deviceComputeTimeMs", {"Kernel", NULL}},
        {"deviceToDeviceTimeMs", {"Memcpy", "Memset"}},
        {"deviceCollectivesTimeMs", {"Communication", NULL}},
        {"kernelLaunchTimeMs", {"Runtime", NULL}},
        {"infeedTimeMs", {"DataLoader", NULL}},
        {"hostComputeTimeMs", {"CPU Exec", NULL}},
        {"otherTimeMs", {"Other", NULL}},
    };
    for (size_t i = 0; i < json_array_size(rrows); i++) {
        json_t *rr = json_array_get(rrows, i);
        const char *step = json_string_value(json_array_get(rr, 0));
        json_t *row = NULL;
        for (size_t k = 0; k < json_array_size(rows) && row == NULL; k++) {
            const char *s = cell_str(table, json_array_get(rows, k), "stepnum");
            if (s != NULL && step != NULL && strcmp(s, step) == 0)
                row = json_array_get(rows, k);
        }
        if (row == NULL) {
            check_count(t, step ? step : "?", "missing", 1, 0);
            continue;
        }
        for (size_t c = 0; c < sizeof cats / sizeof cats[0]; c++) {
            double want = ref_col(cols, rr, cats[c].ref[0]) +
                          (cats[c].ref[1] != NULL ? ref_col(cols, rr, cats[c].ref[1]) : 0);
            check_time(t, step, cats[c].ref[0], cell_num(table, row, cats[c].ours) * 1000, want);
        }
    }
}

/* torch-tb-profiler names a GPU "GPU0"; profview's allocator is "GPU 0". */
static void compare_memory(view_tally *t, json_t *ref, json_t *ours)
{
    json_t *curve = json_object_get(ref, "curve");
    json_t *peaks = json_object_get(json_object_get(curve, "metadata"), "peaks");
    json_t *per = json_object_get(ours, "memoryProfilePerAllocator");
    const char *dev;
    json_t *v;
    json_object_foreach(peaks, dev, v) {
        const char *text = strrchr(json_string_value(v), ':');
        double want = text != NULL ? strtod(text + 1, NULL) : NAN;
        char name[64];
        if (strncmp(dev, "GPU", 3) == 0)
            snprintf(name, sizeof name, "GPU %s", dev + 3);
        else
            snprintf(name, sizeof name, "%s", dev);
        json_t *a = json_object_get(per, name);
        if (a == NULL) {
            check_count(t, dev, "missing", 1, 0);
            continue;
        }
        json_t *peak = json_object_get(json_object_get(json_object_get(a, "profileSummary"),
                                                       "peakStats"),
                                       "peakBytesInUse");
        check_count(t, dev, "peak", strtod(json_string_value(peak), NULL), want);
    }
}

static void compare_distributed(view_tally *t, json_t *ref, json_t *answer)
{
    static const char *const parts[4] = {"computation", "overlapping", "communication", "other"};
    static const char *const cols[4] = {"computation_us", "overlapping_us", "communication_us",
                                        "other_us"};
    json_t *ours = json_array_get(answer, 0);   /* torch-tb-profiler's table */
    json_t *names = json_object_get(ref, "steps"), *costs = json_object_get(ref, "costs");
    json_t *rows = json_object_get(ours, "rows");
    check_count(t, "steps", "steps", (double)json_array_size(rows) - 1,
                (double)json_array_size(names));
    for (size_t i = 0; i < json_array_size(names); i++) {
        const char *step = json_string_value(json_array_get(names, i));
        json_t *row = NULL;
        for (size_t k = 0; k < json_array_size(rows) && row == NULL; k++) {
            const char *s = cell_str(ours, json_array_get(rows, k), "step");
            if (s != NULL && step != NULL && strcmp(s, step) == 0)
                row = json_array_get(rows, k);
        }
        if (row == NULL) {
            check_count(t, step ? step : "?", "missing", 1, 0);
            continue;
        }
        for (int c = 0; c < 4; c++)
            check_time(t, step, parts[c], cell_num(ours, row, cols[c]),
                       json_number_value(json_array_get(json_array_get(costs, i), (size_t)c)));
    }
}

/* The reference's <li> items without their markup, one at a time: the
 * next one's text into buf, or false when there are no more. */
static bool next_item(const char **p, char *buf, size_t cap)
{
    const char *li = strstr(*p, "<li>");
    if (li == NULL)
        return false;
    li += 4;
    const char *end = strstr(li, "</li>");
    if (end == NULL)
        return false;
    size_t n = 0;
    bool tag = false;
    for (const char *c = li; c < end && n + 1 < cap; c++) {
        if (*c == '<')
            tag = true;
        else if (*c == '>')
            tag = false;
        else if (!tag)
            buf[n++] = *c;
    }
    buf[n] = '\0';
    *p = end + 5;
    return true;
}

static void compare_recommendations(view_tally *t, json_t *ref, json_t *ours)
{
    json_t *table = json_array_get(ours, 7);
    json_t *rows = json_object_get(table, "rows");
    const char *html = json_string_value(json_object_get(ref, "recommendations"));
    char item[2048];
    size_t n_ref = 0;
    for (const char *p = html != NULL ? html : ""; next_item(&p, item, sizeof item);) {
        if (strcmp(item, "N/A") == 0)
            continue;   /* its "nothing to recommend" */
        n_ref++;
        bool found = false;
        for (size_t k = 0; k < json_array_size(rows) && !found; k++) {
            const char *text = cell_str(table, json_array_get(rows, k), "text");
            found = text != NULL && strcmp(text, item) == 0;
        }
        char key[48];
        snprintf(key, sizeof key, "%.40s", item);
        check_count(t, key, "found", found ? 1 : 0, 1);
    }
    check_count(t, "recommendations", "count", (double)json_array_size(rows), (double)n_ref);
}

/* A cell's number; NAN when null or absent. */
static double cell_or_nan(json_t *t, json_t *row, const char *id)
{
    json_t *cols = json_object_get(t, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *c = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        json_t *v = json_object_get(json_array_get(json_object_get(row, "c"), i), "v");
        if (c != NULL && strcmp(c, id) == 0)
            return json_is_number(v) ? json_number_value(v) : NAN;
    }
    return NAN;
}

static void compare_gpu(view_tally *t, json_t *ref, json_t *ours)
{
    json_t *table = json_array_get(ours, 8);
    json_t *rows = json_object_get(table, "rows");
    check_count(t, "gpus", "count", (double)json_array_size(rows), (double)json_object_size(ref));
    const char *id;
    json_t *g;
    json_object_foreach(ref, id, g) {
        char name[64];
        snprintf(name, sizeof name, "GPU %s", id);
        json_t *row = NULL;
        for (size_t k = 0; k < json_array_size(rows) && row == NULL; k++) {
            const char *d = cell_str(table, json_array_get(rows, k), "device");
            if (d != NULL && strcmp(d, name) == 0)
                row = json_array_get(rows, k);
        }
        if (row == NULL) {
            check_count(t, name, "missing", 1, 0);
            continue;
        }
        json_t *sm = json_object_get(g, "sm_efficiency"), *occ = json_object_get(g, "occupancy");
        check_pct(t, name, "utilization", cell_or_nan(table, row, "utilization"),
                  100 * json_number_value(json_object_get(g, "utilization")));
        check_pct(t, name, "sm_efficiency", cell_or_nan(table, row, "sm_efficiency"),
                  json_is_number(sm) ? 100 * json_number_value(sm) : NAN);
        check_pct(t, name, "occupancy", cell_or_nan(table, row, "occupancy"),
                  json_is_number(occ) ? json_number_value(occ) : NAN);
    }
}

/* ---- HolisticTraceAnalysis ---------------------------------------------------- */

static double ref_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The one rank's row of distributed_view's table i (one worker per run). */
static json_t *hta_row(json_t *answer, size_t i, json_t **table)
{
    *table = json_array_get(answer, i);
    return json_array_get(json_object_get(*table, "rows"), 0);
}

static void compare_hta_temporal(view_tally *t, json_t *ref, json_t *answer)
{
    static const char *const keys[4][2] = {{"span_us", "span_us"},
                                           {"idle_us", "idle_us"},
                                           {"compute_us", "computation_us"},
                                           {"non_compute_us", "non_compute_us"}};
    json_t *tr = json_object_get(ref, "temporal"), *table;
    json_t *row = hta_row(answer, 1, &table);
    if (row == NULL) {
        check_count(t, "rank", "missing", 1, 0);
        return;
    }
    for (size_t i = 0; i < 4; i++)
        check_time(t, "rank", keys[i][0], cell_num(table, row, keys[i][1]),
                   ref_num(tr, keys[i][0]));
}

static void compare_hta_overlap(view_tally *t, json_t *ref, json_t *answer)
{
    json_t *table, *row = hta_row(answer, 1, &table);
    if (row == NULL) {
        check_count(t, "rank", "missing", 1, 0);
        return;
    }
    check_pct(t, "rank", "comp_comm_overlap", cell_or_nan(table, row, "comm_comp_overlap_pct"),
              ref_num(json_object_get(ref, "overlap"), "comp_comm_overlap_pct"));
}

static void compare_hta_types(view_tally *t, json_t *ref, json_t *answer)
{
    json_t *table = json_array_get(answer, 2), *rows = json_object_get(table, "rows");
    json_t *types = json_object_get(ref, "kernel_types");
    const char *name;
    json_t *v;
    size_t n_ref = 0;
    json_object_foreach(types, name, v) {
        if (json_number_value(v) == 0)
            continue;   /* HTA lists a type that ran no time; profview leaves it out */
        n_ref++;
        json_t *row = NULL;
        for (size_t k = 0; k < json_array_size(rows) && row == NULL; k++) {
            const char *s = cell_str(table, json_array_get(rows, k), "kernel_types");
            if (s != NULL && strcmp(s, name) == 0)
                row = json_array_get(rows, k);
        }
        check_time(t, name, "time", row != NULL ? cell_num(table, row, "time_us") : 0,
                   json_number_value(v));
    }
    check_count(t, "kernel types", "count", (double)json_array_size(rows), (double)n_ref);
}

static void compare_hta_kernels(view_tally *t, json_t *ref, json_t *ours)
{
    json_t *rows = json_object_get(ours, "rows");
    json_t *kernels = json_object_get(ref, "kernels");
    for (size_t i = 0; i < json_array_size(kernels); i++) {
        json_t *k = json_array_get(kernels, i);
        const char *name = json_string_value(json_object_get(k, "name"));
        const char *type = json_string_value(json_object_get(k, "type"));
        if (name == NULL || type == NULL || strcmp(type, "MEMORY") == 0)
            continue;
        double calls = 0, total = 0, min = INFINITY, max = 0;
        for (size_t r = 0; r < json_array_size(rows); r++) {
            json_t *row = json_array_get(rows, r);
            const char *kn = cell_str(ours, row, "kernel_name");
            if (kn == NULL || strcmp(kn, name) != 0)
                continue;
            calls += cell_num(ours, row, "occurrences");
            total += cell_num(ours, row, "total_duration_us");
            min = fmin(min, cell_num(ours, row, "min_duration_us"));
            max = fmax(max, cell_num(ours, row, "max_duration_us"));
        }
        if (calls == 0) {
            check_count(t, name, "missing", 1, 0);
            continue;
        }
        double sum = ref_num(k, "sum_us"), mean = ref_num(k, "mean_us");
        check_count(t, name, "calls", calls, mean > 0 ? round(sum / mean) : 0);
        check_time(t, name, "total", total, sum);
        check_time(t, name, "max", max, ref_num(k, "max_us"));
        check_time(t, name, "min", min, ref_num(k, "min_us"));
    }
}

/* ---- golden sets -------------------------------------------------------------- */

typedef struct golden {
    char rel[1024];          /* folder under the reference, = trace path without .json[.gz] */
    char trace[PATH_CAP + 1100]; /* the trace in ../shared/testdata/traces */
    char run[32];
    bool read_by_reference;  /* no error.txt */
} golden;

static void find_goldens(const char *root, const char *rel, golden *g, size_t *n)
{
    char dir[PATH_CAP];
    snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *de;
    bool leaf = false, error = false;
    char subs[64][256];
    size_t n_subs = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (strcmp(de->d_name, "operator.json.gz") == 0)
            leaf = true;
        else if (strcmp(de->d_name, "error.txt") == 0)
            error = true;
        else if (!strstr(de->d_name, ".json.gz") && n_subs < 64)
            snprintf(subs[n_subs++], sizeof subs[0], "%s", de->d_name);
    }
    closedir(d);
    if ((leaf || error) && *n < MAX_SETS) {
        golden *x = &g[(*n)++];
        snprintf(x->rel, sizeof x->rel, "%s", rel);
        x->read_by_reference = leaf;
        return;
    }
    for (size_t i = 0; i < n_subs; i++) {
        char sub[1024];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", subs[i]);
        find_goldens(root, sub, g, n);
    }
}

static int cmp_golden(const void *a, const void *b)
{
    return strcmp(((const golden *)a)->rel, ((const golden *)b)->rel);
}

static bool copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    bool ok = in != NULL && out != NULL;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in != NULL)
        fclose(in);
    if (out != NULL)
        fclose(out);
    /* an hour old: the scan offers a file once it stopped changing */
    struct timeval tv[2];
    gettimeofday(&tv[0], NULL);
    tv[0].tv_sec -= 3600;
    tv[1] = tv[0];
    return ok && utimes(to, tv) == 0;
}

static json_t *ours_of(const pv_test_server *s, const golden *g, const char *tool, char *detail,
                       size_t cap)
{
    char path[512];
    snprintf(path, sizeof path, "/data/plugin/profile/data?run=%s&host=trace&tag=%s%s", g->run,
             tool, strcmp(tool, "kernel_stats") == 0 ? "&max_rows=0" : "");
    int status;
    return pv_cmp_get_json(s, path, &status, detail, cap);
}

int main(int argc, char **argv)
{
    bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    char traces[PATH_CAP], refdir[PATH_CAP];
    snprintf(traces, sizeof traces, "%s/traces", PV_TESTDATA);
    snprintf(refdir, sizeof refdir, "%s/tests/data/reference/kineto", PV_SRCDIR);
    struct stat st;
    if (stat(traces, &st) != 0)
        return pv_test_testdata_exit("compare_kineto");
    static golden g[MAX_SETS];
    size_t n = 0;
    find_goldens(refdir, "", g, &n);
    qsort(g, n, sizeof *g, cmp_golden);
    char logdir[] = "/tmp/pv_compare_kineto_XXXXXX";
    if (mkdtemp(logdir) == NULL)
        return 1;
    for (size_t i = 0; i < n; i++) {
        snprintf(g[i].run, sizeof g[i].run, "k%zu", i);
        bool gz = true;
        snprintf(g[i].trace, sizeof g[i].trace, "%s/%s.json.gz", traces, g[i].rel);
        if (stat(g[i].trace, &st) != 0) {
            snprintf(g[i].trace, sizeof g[i].trace, "%s/%s.json", traces, g[i].rel);
            gz = false;
        }
        char dir[PATH_CAP], to[PATH_CAP + 64];
        snprintf(dir, sizeof dir, "%s/%s", logdir, g[i].run);
        mkdir(dir, 0755);
        snprintf(to, sizeof to, "%s/trace.pt.trace.json%s", dir, gz ? ".gz" : "");
        if (g[i].read_by_reference && !copy_file(g[i].trace, to)) {
            printf("ERROR compare_kineto: cannot copy %s\n", g[i].trace);
            return 1;
        }
    }
    pv_test_server srv;
    if (pv_test_server_start_indexed(&srv, logdir, NULL) != 0) {
        printf("ERROR compare_kineto: profview did not start\n");
        return 1;
    }
    typedef void (*compare_fn)(view_tally *, json_t *, json_t *);
    static const struct {
        const char *view, *golden, *tool;
        compare_fn compare;
    } views[] = {
        {"operator", "operator", "framework_op_stats", compare_operator},
        {"kernel", "kernel", "kernel_stats", compare_kernel},
        {"steps", "overview", "input_pipeline_analyzer", compare_steps},
        {"memory", "memory", "memory_profile", compare_memory},
        {"distributed", "distributed", "distributed_view", compare_distributed},
        {"recommendations", "overview", "overview_page", compare_recommendations},
        {"gpu", "gpu", "overview_page", compare_gpu},
        {"hta_temporal", "hta", "distributed_view", compare_hta_temporal},
        {"hta_overlap", "hta", "distributed_view", compare_hta_overlap},
        {"hta_types", "hta", "distributed_view", compare_hta_types},
        {"hta_kernels", "hta", "kernel_stats", compare_hta_kernels},
    };
    bool failed = false;
    size_t n_views = 0;
    for (size_t i = 0; i < n; i++) {
        if (!g[i].read_by_reference) {
            printf("not read  %s: torch-tb-profiler 0.4.3 cannot read it (error.txt)\n", g[i].rel);
            continue;
        }
        char file[2 * PATH_CAP];
        int n_file = snprintf(file, sizeof file, "%s/%s/hta_error.txt", refdir, g[i].rel);
        if (n_file > 0 && (size_t)n_file < sizeof file && stat(file, &st) == 0)
            printf("not read  %s: HolisticTraceAnalysis 0.5.0 fails on it (hta_error.txt)\n",
                   g[i].rel);
        for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
            char detail[1024] = "";
            int len = snprintf(file, sizeof file, "%s/%s/%s.json.gz", refdir, g[i].rel,
                               views[v].golden);
            if (len < 0 || (size_t)len >= sizeof file || stat(file, &st) != 0)
                continue;   /* memory: only traces recorded with profile_memory; hta: read */
            json_t *ref = pv_cmp_load_gz_json(file);
            json_t *ours = ours_of(&srv, &g[i], views[v].tool, detail, sizeof detail);
            view_tally t = {.trace = g[i].rel, .view = views[v].view, .verbose = verbose};
            if (ref == NULL || ours == NULL) {
                printf("ERROR     %s %s: %s\n", g[i].rel, views[v].view,
                       ref == NULL ? "golden unreadable" : detail);
                failed = true;
            } else {
                views[v].compare(&t, ref, ours);
                failed = report(&t) || failed;
                n_views++;
            }
            json_decref(ref);
            json_decref(ours);
        }
    }
    pv_test_server_stop(&srv);
    char cmd[PATH_CAP + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", logdir);
    if (system(cmd) != 0)
        failed = true;
    for (size_t i = 0; i < N_RULES; i++) {
        if (rules[i].used == 0) {
            printf("UNUSED    rule %s %s %s: accepts nothing: %s\n", rules[i].trace, rules[i].view,
                   rules[i].field, rules[i].reason);
            failed = true;
        }
    }
    printf("compare_kineto: %zu traces, %zu views\n%s: compare_kineto\n", n, n_views,
           failed ? "FAIL" : "PASS");
    return failed ? 1 : 0;
}
