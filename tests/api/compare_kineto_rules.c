/* compare_kineto_rules: the tolerances and accepted differences of
 * compare_kineto (see compare_kineto_rules.h). */
#include "compare_kineto_rules.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tolerances ------------------------------------------------------------ */

typedef struct tolerance {
    const char *view;
    const char *fields;   /* ", "-separated */
    double tol;           /* microseconds, or percentage points for shares */
    const char *reason;
} tolerance;

#define TB_WHOLE_US                                                                            \
    "torch-tb-profiler writes these times as whole microseconds, each rounded once from the "  \
    "sum it keeps: half a microsecond"
#define HTA_EPOCH_US                                                                           \
    "HTA reads times as doubles of epoch microseconds (about 1.7e15), which step by 0.25 us: " \
    "each end of a span is off by up to a quarter microsecond"

static const tolerance tolerances[] = {
    {"operator", "host_total, host_self, device_total, device_self", 0.5, TB_WHOLE_US},
    {"kernel", "total, max, min", 0.5, TB_WHOLE_US},
    {"kernel_op", "total, max, min", 0.5, TB_WHOLE_US},
    {"steps", "Kernel, Memcpy, Communication, Runtime, DataLoader, CPU Exec, Other", 0.5,
     TB_WHOLE_US},
    {"distributed", "computation, overlapping, communication, other", 0.5, TB_WHOLE_US},
    {"gpu", "utilization, sm_efficiency, occupancy", 0.005,
     "torch-tb-profiler writes these shares unrounded, as ratios of its double times: a "
     "two-hundredth of a point"},
    {"hta_temporal", "span_us, idle_us, compute_us, non_compute_us", 0.5, HTA_EPOCH_US},
    {"hta_overlap", "comp_comm_overlap", 0.005, "HTA rounds the share to 0.01 points"},
    {"hta_types", "time", 1.0,
     "HTA's kernel type table is an int column: it truncates a time to whole microseconds"},
    {"hta_kernels", "total, max, min", 0.001,
     "HTA's kernel table sums the trace's own durations, written to the nanosecond"},
};
#define N_TOLERANCES (sizeof tolerances / sizeof tolerances[0])

/* Whether name is one of list's ", "-separated names. */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p != NULL && *p != '\0';) {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, name, n) == 0)
            return true;
        p += k;
        p += strspn(p, ", ");
    }
    return false;
}

static double tolerance_of(const char *view, const char *field)
{
    for (size_t i = 0; i < N_TOLERANCES; i++)
        if (strcmp(tolerances[i].view, view) == 0 && listed(tolerances[i].fields, field))
            return tolerances[i].tol;
    /* a value without a stated tolerance is a defect of this table */
    fprintf(stderr, "compare_kineto: no tolerance for %s %s\n", view, field);
    abort();
}

/* ---- accepted differences --------------------------------------------------- */

typedef enum kv_accepts {
    KV_DIFF_IN,               /* lo <= ours - reference <= hi */
    KV_OURS_ZERO,             /* ours is 0, the reference's is not */
    KV_OURS_ZERO_REF_NEGATIVE /* ours is 0, the reference's below 0 */
} kv_accepts;

typedef struct kv_rule {
    const char *trace;    /* fnmatch pattern on the golden folder */
    const char *view;     /* one view of compare_kineto.c's table */
    const char *fields;   /* exact field names, ", "-separated */
    const char *key;      /* fnmatch pattern on the row (op, kernel, step); NULL: any */
    kv_accepts accepts;
    double lo, hi;        /* KV_DIFF_IN's interval */
    unsigned rows;        /* distinct rows (trace and key) it may touch */
    const char *reason;
} kv_rule;

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
#define NS_RESOLUTION                                                                          \
    "torch-tb-profiler reads times as doubles, which step by 0.25 us at these epoch "         \
    "timestamps: sub-microsecond operators' times round, and 28 aten::slice, 25 detach, "     \
    "9 aten::detach and 1 aten::mul round past their parent's end and leave its tree; "       \
    "profview keeps picoseconds"
#define FILL_ZERO_LENGTH                                                                       \
    "kernel_stats counts the launches of 1 ns or more, as XProf does; torch-tb-profiler "     \
    "counts this fill kernel's zero-length launches too (test_kernel_stats.c)"
#define CUDA_DRIVER                                                                            \
    "kernels launched through the CUDA driver (cuLaunchKernel): torch-tb-profiler reads no "  \
    "runtime call for them and gives them to no operator; profview gives each kernel to the " \
    "operator its External id names"
#define MTIA                                                                                   \
    "the device work of this MTIA trace is in mtia_ccp_events, which HTA reads as GPU "       \
    "kernels (they carry a stream argument); profview, like torch-tb-profiler, reads "        \
    "kernels, memcpys and memsets by their Kineto categories and finds none"
#define NEGATIVE_QUEUE                                                                         \
    "872 kernels, memcpys and memsets (59526 us, inside the steps) carry correlation ids "    \
    "that no runtime call in the trace has; HTA drops GPU work that no host event up to "     \
    "the last ProfilerStep's end launched, profview keeps what the GPU ran"
#define TRITON_CPU_OP                                                                          \
    "the cpu_op that launches the Triton kernel carries a stream argument, so HTA counts "    \
    "its 95.812 us on the host as a second run of the GPU kernel of the same name; "          \
    "profview counts the 1.76 us kernel"
#define SYNC_AS_WORK                                                                           \
    "HTA takes every event with a stream argument for GPU work, also the trace's 41 "         \
    "cuda_sync events (Context Sync, Stream Sync, Stream Wait Event), which stretch its GPU " \
    "span by 75767 us past the kernels, memcpys and memsets, and which it files under "       \
    "computation (their names are neither memory nor communication); profview counts a "      \
    "wait for the GPU as idle, not as work"

/* Keys of kernel_op rows (compare_kineto_views.c) whose op name is empty:
 * kernels no operator launched. */
#define NO_OP "* | op  | *"
#define NO_OP_LEFT_OUT                                                                         \
    "kernels no operator launched (kernel_stats gives them no op name), which "               \
    "torch-tb-profiler leaves out of its by-operator table: it lists there only the kernels " \
    "its call tree reaches, the ones whose runtime call is outside every operator under "     \
    "CallTreeRoot; its kernel table counts them all, and there profview matches it (view "   \
    "kernel)"
#define MATRIX_CORES                                                                           \
    "deliberate: profview counts AMD's matrix-core (MFMA) GEMM kernels as Tensor Core "       \
    "kernels (test_pv_tool_kernel_stats_rocm_tensor_core); torch-tb-profiler knows only "     \
    "NVIDIA's Tensor Core kernel names"

static const kv_rule rules[] = {
    /* torch-tb-profiler */
    {"kineto_resnet50_*", "kernel", "calls", "*FillFunctor*", KV_DIFF_IN, -700, -1, 3,
     FILL_ZERO_LENGTH},
    {"kineto_resnet50_*", "kernel", "min", "*FillFunctor*", KV_DIFF_IN, 0.5, 1, 3,
     FILL_ZERO_LENGTH " (its shortest launch is 0 us there)"},
    {"kineto_resnet50_*", "kernel_op", "calls", "*FillFunctor*", KV_DIFF_IN, -400, -1, 13,
     FILL_ZERO_LENGTH},
    {"kineto_resnet50_*", "kernel_op", "min", "*FillFunctor*", KV_DIFF_IN, 0.5, 1, 13,
     FILL_ZERO_LENGTH " (its shortest launch is 0 us there)"},
    {"kineto_resnet50_*", "kernel_op", "missing", "*FillFunctor*", KV_DIFF_IN, 1, 1, 4,
     FILL_ZERO_LENGTH " (every launch of these rows is zero-length)"},
    {"kineto_resnet50_autograd_*", "kernel_op", "not in the reference", NO_OP, KV_DIFF_IN, 1, 1,
     5, NO_OP_LEFT_OUT},
    {"hta/ns_resolution/*", "operator", "calls", NULL, KV_DIFF_IN, 0, 30, 5, NS_RESOLUTION},
    {"hta/ns_resolution/*", "operator", "host_total, host_self, device_total, device_self",
     NULL, KV_DIFF_IN, -70, 100, 64, NS_RESOLUTION},
    {"hta/ns_resolution/*", "kernel_op", "calls, total", NULL, KV_DIFF_IN, -15, 15, 27,
     NS_RESOLUTION},
    {"hta/ns_resolution/*", "steps", "Kernel, Memcpy, Communication, Runtime, CPU Exec, Other",
     NULL, KV_DIFF_IN, -7, 7, 5,
     "torch-tb-profiler's double times step by 0.25 us at these timestamps, so each role's "
     "share of a step moves by a few microseconds; profview keeps picoseconds"},
    {"hta/ns_resolution/*", "distributed", "computation, overlapping, communication, other",
     NULL, KV_DIFF_IN, -7, 7, 5,
     "torch-tb-profiler's double times step by 0.25 us at these timestamps, so each part of "
     "a step moves by a few microseconds; profview keeps picoseconds"},
    {"hta/critical_path_alexnet/*", "operator", "host_self", NULL, KV_OURS_ZERO_REF_NEGATIVE, 0,
     0, 8, NEGATIVE_SELF " (aten::to: -33288 us)"},
    {"hta/critical_path_alexnet/*", "kernel_op", "not in the reference", NO_OP, KV_DIFF_IN, 1, 1,
     32, NO_OP_LEFT_OUT},
    {"hta/cupti_profiler/*", "operator", "host_self", NULL, KV_OURS_ZERO_REF_NEGATIVE, 0, 0, 5,
     NEGATIVE_SELF},
    {"hta/sampled_multi_rank/*", "kernel_op", "not in the reference", NO_OP, KV_DIFF_IN, 1, 1,
     812, NO_OP_LEFT_OUT},
    {"hta/trace_diff_control/*", "kernel_op", "not in the reference", NO_OP, KV_DIFF_IN, 1, 1,
     539, NO_OP_LEFT_OUT},
    {"hta/negative_queue_length/*", "kernel_op", "not in the reference", NO_OP, KV_DIFF_IN, 1, 1,
     108, NO_OP_LEFT_OUT},
    {"hta/negative_queue_length/*", "kernel_op", "calls, total, max, min", NO_OP, KV_DIFF_IN,
     -1800, 123100, 90, NEGATIVE_QUEUE " (torch-tb-profiler finds their launches nowhere)"},
    {"hta/amd_mi250/*", "kernel_op", "uses_tensor_cores", "Cijk_*", KV_DIFF_IN, 1, 1, 2,
     MATRIX_CORES},
    {"tracelens/mi300_ddp_resnet18_train", "kernel_op", "uses_tensor_cores", "Cijk_*",
     KV_DIFF_IN, 1, 1, 3, MATRIX_CORES},
    {"tracelens/torch_compile_triton_trace", "kernel_op", "uses_tensor_cores", "Cijk_*",
     KV_DIFF_IN, 1, 1, 3, MATRIX_CORES},
    {"tracelens/h100_*", "operator", "device_total, device_self", NULL, KV_DIFF_IN, 164, 165, 2,
     "22 " CUDA_DRIVER},
    {"tracelens/h100_*", "kernel_op", "missing", NO_OP, KV_DIFF_IN, 1, 1, 3,
     "3 GEMM kernels are " CUDA_DRIVER},
    {"tracelens/h100_*", "kernel_op", "not in the reference", "void cutlass::Kernel2<*",
     KV_DIFF_IN, 1, 1, 3, "3 GEMM kernels are " CUDA_DRIVER},
    {"hta/triton_example/*", "operator", "device_total, device_self", NULL, KV_DIFF_IN, 1.76,
     1.76, 2, "the Triton kernel is " CUDA_DRIVER},
    {"hta/triton_example/*", "kernel_op", "missing, not in the reference",
     "triton_poi_fused_add_cos_sin_0 | *", KV_DIFF_IN, 1, 1, 2,
     "the Triton kernel is " CUDA_DRIVER},
    {"tracelens/mi210_gpu_only_trace", "steps", "missing, steps", NULL, KV_DIFF_IN, -1, 1, 2,
     NO_HOST_OPERATOR},
    {"tracelens/mi210_gpu_only_trace", "distributed", "missing, steps", NULL, KV_DIFF_IN, -1, 1,
     2, NO_HOST_OPERATOR},
    {"tracelens/mi210_gpu_only_trace", "recommendations", "found, count", NULL, KV_DIFF_IN, -1,
     -1, 2,
     NO_HOST_OPERATOR ", so profview measures no GPU utilization inside steps and makes "
     "no recommendation about it"},
    {"tracelens/mi210_gpu_only_trace", "gpu", "missing, count", NULL, KV_DIFF_IN, -1, 1, 2,
     NO_HOST_OPERATOR ", so profview has no steps' span to measure the GPU summary over"},
    {"tracelens/mi210_gpu_only_trace", "kernel_op", "not in the reference", NO_OP, KV_DIFF_IN, 1,
     1, 117, NO_HOST_OPERATOR "; " NO_OP_LEFT_OUT},
    {"tracelens/torch_compile_triton_trace", "recommendations", "found, count", NULL, KV_DIFF_IN,
     -1, -1, 2,
     "the trace's deviceProperties describe only GPU 0, which ran nothing; its kernels ran on "
     "GPU 2, whose compute capability profview does not know, so it does not judge Tensor "
     "Core use; torch-tb-profiler reads the first listed device's properties for every GPU"},
    /* HolisticTraceAnalysis */
    {"hta/critical_path_alexnet/*", "hta_temporal",
     "span_us, idle_us, compute_us, non_compute_us", NULL, KV_DIFF_IN, -75800, -1, 1,
     SYNC_AS_WORK},
    {"hta/critical_path_alexnet/*", "hta_types", "time", "COMPUTATION", KV_DIFF_IN, -8, -6, 1,
     SYNC_AS_WORK},
    {"hta/mtia_inference/*", "hta_types", "time", NULL, KV_OURS_ZERO, 0, 0, 3, MTIA},
    {"hta/mtia_inference/*", "hta_types", "count", NULL, KV_DIFF_IN, -3, -3, 1, MTIA},
    {"hta/mtia_inference/*", "hta_kernels", "missing", NULL, KV_DIFF_IN, 1, 1, 5, MTIA},
    {"hta/mtia_inference/*", "hta_temporal", "missing", NULL, KV_DIFF_IN, 1, 1, 1, MTIA},
    {"hta/mtia_inference/*", "hta_overlap", "missing", NULL, KV_DIFF_IN, 1, 1, 1, MTIA},
    {"hta/negative_queue_length/*", "hta_temporal", "span_us, idle_us, compute_us, non_compute_us",
     NULL, KV_DIFF_IN, -55200, 31400, 1, NEGATIVE_QUEUE},
    {"hta/negative_queue_length/*", "hta_types", "time", NULL, KV_DIFF_IN, 0, 30300, 6,
     NEGATIVE_QUEUE},
    {"hta/negative_queue_length/*", "hta_overlap", "comp_comm_overlap", NULL, KV_DIFF_IN, -0.12,
     -0.11, 1, NEGATIVE_QUEUE},
    {"hta/negative_queue_length/*", "hta_kernels", "calls, total, max, min", NULL, KV_DIFF_IN, 0,
     25000, 8, NEGATIVE_QUEUE},
    {"hta/triton_example/*", "hta_temporal", "span_us, compute_us", NULL, KV_DIFF_IN, -94.06,
     -94.05, 1, TRITON_CPU_OP},
    {"hta/triton_example/*", "hta_types", "time", NULL, KV_DIFF_IN, -94, -93, 1, TRITON_CPU_OP},
    {"hta/triton_example/*", "hta_kernels", "calls, total, max", "triton_poi_fused_add_cos_sin_0",
     KV_DIFF_IN, -96, -1, 1, TRITON_CPU_OP},
    {"hta/amd_mi250/*", "hta_types", "time", NULL, KV_DIFF_IN, 0, 10, 2, HTA_WHOLE_US},
    {"hta/ns_resolution/*", "hta_types", "time", NULL, KV_DIFF_IN, 0, 2500, 2, HTA_WHOLE_US},
    {"tracelens/*", "hta_types", "time", NULL, KV_DIFF_IN, 0, 1300, 4, HTA_WHOLE_US},
};
#define N_RULES (sizeof rules / sizeof rules[0])

/* What each rule accepted over the run. */
typedef struct rule_use {
    size_t values;
    char **rows;          /* distinct "trace|key" */
    size_t n_rows;
    double min_diff, max_diff;
} rule_use;

static rule_use uses[N_RULES];

static bool value_fits(const kv_rule *r, double ours, double ref)
{
    switch (r->accepts) {
    case KV_DIFF_IN: return ours - ref >= r->lo && ours - ref <= r->hi;
    case KV_OURS_ZERO: return ours == 0 && ref != 0;
    case KV_OURS_ZERO_REF_NEGATIVE: return ours == 0 && ref < 0;
    }
    return false;
}

static const kv_rule *accepting(const kv_tally *t, const char *key, const char *field,
                                double ours, double ref)
{
    for (size_t i = 0; i < N_RULES; i++) {
        const kv_rule *r = &rules[i];
        if (fnmatch(r->trace, t->trace, 0) == 0 && strcmp(r->view, t->view) == 0 &&
            listed(r->fields, field) && (r->key == NULL || fnmatch(r->key, key, 0) == 0) &&
            value_fits(r, ours, ref))
            return r;
    }
    return NULL;
}

static void use_row(rule_use *u, const char *trace, const char *key)
{
    size_t n = strlen(trace) + strlen(key) + 2;
    char *row = malloc(n);
    if (row == NULL)
        abort();
    snprintf(row, n, "%s|%s", trace, key);
    for (size_t i = 0; i < u->n_rows; i++) {
        if (strcmp(u->rows[i], row) == 0) {
            free(row);
            return;
        }
    }
    u->rows = realloc(u->rows, (u->n_rows + 1) * sizeof *u->rows);
    if (u->rows == NULL)
        abort();
    u->rows[u->n_rows++] = row;
}

/* ---- one view's values ----------------------------------------------------------- */

void kv_tally_init(kv_tally *t, const char *trace, const char *view, bool verbose)
{
    memset(t, 0, sizeof *t);
    t->trace = trace;
    t->view = view;
    t->verbose = verbose;
}

static void differ(kv_tally *t, const char *key, const char *field, double ours, double ref)
{
    const kv_rule *r = accepting(t, key, field, ours, ref);
    if (r != NULL) {
        size_t i = (size_t)(r - rules);
        rule_use *u = &uses[i];
        double d = ours - ref;
        if (u->values == 0 || d < u->min_diff)
            u->min_diff = d;
        if (u->values == 0 || d > u->max_diff)
            u->max_diff = d;
        u->values++;
        use_row(u, t->trace, key);
        t->n_accepted[i]++;
        if (t->verbose)
            printf("    accepted by rule %zu: %s %s: ours %.9g, reference %.9g\n", i + 1, key,
                   field, ours, ref);
        return;
    }
    t->diffs++;
    if (t->verbose)
        printf("    %s %s: ours %.9g, reference %.9g\n", key, field, ours, ref);
    if (t->n_shown < KV_SHOWN_DIFFS) {
        size_t n = strlen(t->shown);
        snprintf(t->shown + n, sizeof t->shown - n, "%s%.120s %s: ours %.9g, reference %.9g",
                 t->n_shown ? "; " : "", key, field, ours, ref);
        t->n_shown++;
    }
}

void kv_time(kv_tally *t, const char *key, const char *field, double ours, double ref)
{
    t->values++;
    if (!(fabs(ours - ref) <= tolerance_of(t->view, field) + 1e-9 * fabs(ref)))
        differ(t, key, field, ours, ref);
}

void kv_pct(kv_tally *t, const char *key, const char *field, double ours, double ref)
{
    t->values++;
    double tol = tolerance_of(t->view, field);
    bool same = isnan(ours) || isnan(ref) ? isnan(ours) && isnan(ref)
                                          : fabs(ours - ref) <= tol + 1e-9 * fabs(ref);
    if (!same)
        differ(t, key, field, ours, ref);
}

void kv_count(kv_tally *t, const char *key, const char *field, double ours, double ref)
{
    t->values++;
    if (ours != ref)
        differ(t, key, field, ours, ref);
}

bool kv_report(const kv_tally *t)
{
    if (t->diffs > 0) {
        printf("DIFF      %s %s: %s; %zu differences in all\n", t->trace, t->view, t->shown,
               t->diffs);
        return true;
    }
    printf("match     %s %s: %zu values", t->trace, t->view, t->values);
    for (size_t i = 0; i < N_RULES; i++)
        if (t->n_accepted[i] > 0)
            printf("; accepted by rule %zu (%zu values)", i + 1, t->n_accepted[i]);
    printf("\n");
    return false;
}

/* ---- judging the rules ------------------------------------------------------------- */

/* Why rule r is broader than a rule may be, or NULL. */
static const char *too_broad(const kv_rule *r)
{
    /* a folder or a family of folders named before any wildcard */
    if (strcspn(r->trace, "*?[") < 8)
        return "it does not name its traces";
    if (strpbrk(r->view, "*?[,") != NULL)
        return "it does not name one view";
    if (r->fields[0] == '\0' || strpbrk(r->fields, "*?[") != NULL)
        return "it does not name its fields";
    if (r->accepts == KV_DIFF_IN && !(isfinite(r->lo) && isfinite(r->hi) && r->lo <= r->hi))
        return "its interval of values is not bounded";
    if (r->rows == 0 || r->reason == NULL || r->reason[0] == '\0')
        return "it declares no rows or gives no reason";
    return NULL;
}

static void describe(const kv_rule *r, char *buf, size_t cap)
{
    switch (r->accepts) {
    case KV_DIFF_IN: snprintf(buf, cap, "ours - reference in [%g, %g]", r->lo, r->hi); return;
    case KV_OURS_ZERO: snprintf(buf, cap, "ours 0"); return;
    case KV_OURS_ZERO_REF_NEGATIVE: snprintf(buf, cap, "ours 0, reference below 0"); return;
    }
}

size_t kv_rules_judge(void)
{
    size_t bad = 0, values = 0, used = 0;
    for (size_t i = 0; i < N_RULES; i++) {
        const kv_rule *r = &rules[i];
        const rule_use *u = &uses[i];
        char what[96];
        describe(r, what, sizeof what);
        const char *why = too_broad(r);
        const char *fault = why != NULL                ? why
                            : u->values == 0           ? "it accepted nothing"
                            : u->n_rows > r->rows      ? "it touched more rows than it declares"
                                                       : NULL;
        printf("%s rule %zu %s %s [%s]%s%s: accepts %s, %u rows: %zu values on %zu rows, "
               "ours - reference %g .. %g%s%s\n",
               fault != NULL ? "RULE     " : "rule     ", i + 1, r->trace, r->view, r->fields,
               r->key != NULL ? " key " : "", r->key != NULL ? r->key : "", what, r->rows,
               u->values, u->n_rows, u->values ? u->min_diff : 0.0,
               u->values ? u->max_diff : 0.0, fault != NULL ? ": " : "",
               fault != NULL ? fault : "");
        bad += fault != NULL;
        values += u->values;
        used += u->values > 0;
    }
    printf("compare_kineto rules: %zu accept rules, %zu used, %zu values accepted, %zu at "
           "fault\n",
           N_RULES, used, values, bad);
    for (size_t i = 0; i < N_RULES; i++) {
        for (size_t k = 0; k < uses[i].n_rows; k++)
            free(uses[i].rows[k]);
        free(uses[i].rows);
        memset(&uses[i], 0, sizeof uses[i]);
    }
    return bad;
}
