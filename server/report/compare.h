/* compare: two runs' figures side by side (figures.h) — the step time and
 * its breakdown, the input share, idle shares, memory peaks and device
 * utilization with their deltas and ratios, the ops and kernels that were
 * added, removed or changed (by absolute change, largest first), and the
 * gates a CI job sets on them.
 *
 * Figures are matched by name: ops by side and name, kernels by name,
 * allocators and devices by host and name — or by name alone when each run
 * has them from one host, so a baseline recorded on another machine still
 * lines up.
 *
 * A gate holds, fails, or cannot be judged when a figure it needs is
 * unknown in either run (no steps, no memory profile): a gate that cannot
 * be judged never passes quietly.
 *
 * Pure: output in the caller's arena, borrowing the figures, which must
 * outlive it. */
#ifndef PV_REPORT_COMPARE_H
#define PV_REPORT_COMPARE_H

#include "report/figures.h"

typedef enum pv_change {
    PV_CHANGED,
    PV_ADDED,                  /* only in the new run */
    PV_REMOVED                 /* only in the base run */
} pv_change;

typedef struct pv_item_delta {
    const char *side;          /* ops: "Host" / "Device"; "" otherwise */
    const char *name;
    const char *category;      /* ops: the op type; kernels: the framework op */
    double base, new_;         /* self time (ops) or total time (kernels), us; 0 when absent */
    uint32_t change;           /* pv_change */
} pv_item_delta;

typedef struct pv_named_delta {
    const char *host;          /* the host ("" when matched by name alone) */
    const char *name;          /* the allocator or the device */
    double base, new_;         /* peak bytes in the profiling window, or mean busy
                                  share (%); < 0 when the run lacks it */
} pv_named_delta;

typedef struct pv_gates {
    double max_step_time_ratio;     /* <= 0: not set */
    double max_peak_memory_ratio;   /* <= 0: not set */
    double max_input_bound_percent; /* < 0: not set */
} pv_gates;

typedef enum pv_gate_state { PV_GATE_HOLDS, PV_GATE_FAILS, PV_GATE_UNKNOWN } pv_gate_state;

typedef struct pv_gate {
    const char *flag;          /* e.g. "--max-step-time-ratio" */
    double limit;
    double value;              /* the measured ratio or percent; < 0 when unknown */
    uint32_t state;            /* pv_gate_state */
    const char *message;       /* one sentence with the numbers */
} pv_gate;

typedef struct pv_comparison {
    const pv_figures *base;
    const pv_figures *new_;
    double step_ratio;         /* new / base mean step time; < 0 when unknown */
    size_t n_ops, n_ops_added, n_ops_removed, n_ops_changed;
    pv_item_delta *ops;        /* every op that differs, by |new - base| */
    size_t n_kernels, n_kernels_added, n_kernels_removed, n_kernels_changed;
    pv_item_delta *kernels;
    size_t n_allocs;
    pv_named_delta *allocs;    /* memory peaks */
    size_t n_devices;
    pv_named_delta *devices;   /* device utilization */
    size_t n_gates;
    pv_gate gates[3];          /* the gates set, in the order of pv_gates */
    pv_gate_state verdict;     /* FAILS if one fails, else UNKNOWN if one is, else HOLDS */
} pv_comparison;

/* Compares base with new_ under gates (NULL: none). Cannot fail. */
void pv_compare(const pv_figures *base, const pv_figures *new_, const pv_gates *gates,
                pv_arena *a, pv_comparison *out);

/* The comparison as JSON: both runs' figures (top_k ops and kernels), the
 * ratios, the top_k deltas of each list with their counts, and the gates.
 * New reference; NULL only when out of memory. */
json_t *pv_comparison_to_json(const pv_comparison *c, size_t top_k);

#endif
