/* figures: the numbers profview reports about one run, read from its tools'
 * answers — the very JSON /data answers for them — so `profview summary`
 * and `compare`, /metrics, the run history and the compare view all show
 * the page's numbers, whatever file they came from (a profile decoded into
 * a model, or one of TensorFlow's per-tool files).
 *
 * Call order: pv_figures_init; pv_figures_add once per answer (the tools
 * and parameters of pv_figures_asks(), each for the host set or, for a
 * per-host ask, for each host); pv_figures_finish. An ask nothing answers
 * is left out, and the figures it would give stay unknown (a negative
 * value, or a count of 0).
 *
 * What is read, and from where:
 *   steps        overview_page's step table: every step's time and its
 *                breakdown columns (*TimeMs); count, mean, min, max and
 *                sample standard deviation as the page computes them
 *   input        the share of step time waiting for input (sum of the
 *                input column over the sum of step time, as the verdict
 *                says it), the verdict and its statement, the input stage
 *                with the most self time
 *   idle         device and host idle shares of the overview's first table
 *   ops          framework_op_stats, every op (max_ops=0) but IDLE, in the
 *                table's order: device ops first, each side by self time
 *   kernels      kernel_stats, every row, added up by kernel name; the
 *                share of kernel time on tensor cores
 *   memory       memory_profile, per host and allocator: the peak in use
 *                in the profiling window, the lifetime peak, the capacity
 *   utilization  device_utilization, per host and device: the mean busy
 *                share and the idle gaps
 *
 * All memory comes from the arena given to init; strings are copied. A
 * figures value is not thread-safe while it is built and immutable after
 * finish. */
#ifndef PV_REPORT_FIGURES_H
#define PV_REPORT_FIGURES_H

#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- what is asked --------------------------------------------------------- */

typedef struct pv_figures_ask {
    const char *tool;          /* the registry's name */
    const char *query;         /* its parameters as a query string, "" for defaults */
    bool per_host;             /* asked of each host; otherwise of the hosts together */
    bool brief;                /* needed for pv_brief (history, /metrics) */
} pv_figures_ask;

/* The answers figures read, in a fixed order. *n gets their count. */
const pv_figures_ask *pv_figures_asks(size_t *n);

/* The value of parameter name in a query string like "a=1&b=2", copied into
 * buf (cap bytes), or NULL when absent. Cannot fail. */
const char *pv_figures_query_param(const char *query, const char *name, char *buf, size_t cap);

/* ---- the figures ----------------------------------------------------------- */

typedef struct pv_fig_part {
    const char *id;            /* the step table's column id, e.g. "infeedTimeMs" */
    const char *label;         /* its label, e.g. "Input" */
    double mean_ms;
} pv_fig_part;

typedef struct pv_fig_op {
    const char *side;          /* "Host" or "Device" */
    const char *name;
    const char *category;      /* the op type, e.g. "Conv2D" */
    uint64_t occurrences;
    double self_us;            /* total self time */
    double total_us;
} pv_fig_op;

typedef struct pv_fig_kernel {
    const char *name;
    const char *op;            /* the framework op of its costliest row */
    uint64_t occurrences;
    double total_us;
    double tensor_core_us;     /* of total_us, on tensor cores */
} pv_fig_kernel;

typedef struct pv_fig_alloc {
    const char *host;
    const char *allocator;
    double peak_bytes;         /* peak in use in the profiling window */
    double lifetime_peak_bytes;
    double capacity_bytes;     /* < 0 when unknown */
} pv_fig_alloc;

typedef struct pv_fig_device {
    const char *host;
    const char *device;        /* e.g. "/device:GPU:0" */
    double mean_percent;       /* busy share over the window */
    uint64_t idle_gaps;        /* gaps of at least 1 % of the window */
    double longest_gap_ms;     /* 0 with none */
} pv_fig_device;

typedef struct pv_figures {
    const char *run;
    const char *host;          /* the host, or "" for all hosts together */
    const char *hardware;      /* "CPU", "GPU", "TPU" ...; "" when unknown */
    /* steps */
    size_t n_steps;            /* 0: no step time known (the step figures are < 0) */
    double step_mean_ms, step_min_ms, step_max_ms, step_stddev_ms;
    size_t n_parts;
    pv_fig_part *parts;        /* breakdown columns in the table's order */
    double input_percent;      /* < 0 when unknown */
    const char *input_verdict; /* "host", "device", "both", "unknown", or "" */
    const char *input_statement;
    const char *input_stage;   /* input op with the most self time; "" when none */
    double device_idle_percent; /* < 0 when unknown */
    double host_idle_percent;
    /* ops in the op table's order: device ops first, each side by self time */
    size_t n_ops;
    pv_fig_op *ops;
    /* kernels, by total time, most first */
    size_t n_kernels;
    pv_fig_kernel *kernels;
    double tensor_core_percent; /* of kernel time; < 0 with no kernels */
    size_t n_allocs;
    pv_fig_alloc *allocs;      /* in answer order */
    size_t n_devices;
    pv_fig_device *devices;
    double utilization_percent; /* mean over devices; < 0 with none */
    pv_arena *arena;
} pv_figures;

/* ---- building -------------------------------------------------------------- */

/* Starts empty figures of run (and host, "" for all hosts) in a. */
void pv_figures_init(pv_figures *f, const char *run, const char *host, pv_arena *a);
/* Reads ask's answer, the len bytes of json, given for host (the host asked
 * of a per-host ask; "" otherwise). Returns 0, or PV_EFORMAT with err
 * saying which answer is not what its tool writes; f is then unchanged. */
int pv_figures_add(pv_figures *f, const pv_figures_ask *ask, const char *host, const char *json,
                   size_t len, pv_error *err);
/* Orders kernels and works out the shares. Cannot fail. */
void pv_figures_finish(pv_figures *f);
/* The mean of the breakdown part with this column id, or -1 when f has no
 * such part. Cannot fail. */
double pv_figures_part_ms(const pv_figures *f, const char *id);

/* ---- output (figures_json.c) ------------------------------------------------- */

/* The figures as JSON, the top_k ops and kernels only (0: all). New
 * reference; NULL only when out of memory. */
json_t *pv_figures_to_json(const pv_figures *f, size_t top_k);

/* ---- the brief: what the run history and /metrics show ----------------------- */

#define PV_BRIEF_ALLOCS 8

typedef struct pv_brief {
    size_t n_steps;
    double step_mean_ms;       /* < 0 when unknown */
    double input_percent;      /* < 0 when unknown */
    double device_idle_percent; /* < 0 when unknown */
    size_t n_allocs;           /* the first PV_BRIEF_ALLOCS */
    struct {
        char host[48];
        char allocator[48];
        double peak_bytes;
    } allocs[PV_BRIEF_ALLOCS];
} pv_brief;

/* The brief of f. Cannot fail. */
void pv_brief_of(const pv_figures *f, pv_brief *out);
/* {"steps", "step_time_ms", "input_percent", "device_idle_percent",
 * "peak_memory": [{"host", "allocator", "peak_bytes"}]}, unknown values
 * null. New reference; NULL only when out of memory. */
json_t *pv_brief_to_json(const pv_brief *b);

/* ---- inside report/ ------------------------------------------------------------ */

/* A figure as JSON, or null when it is unknown (negative). */
json_t *pv__report_num(double v);

#endif
