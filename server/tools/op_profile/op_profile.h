/* op_profile: the device's XLA ops as a tree (XProf's op_profile,
 * xprof/convert/op_profile_builder.cc), built from the device op metrics
 * (tools/hlo/xla_ops.h):
 *
 *   by program:  root -> IDLE, and a node per program ("jit_f(42)") ->
 *                a node per category -> the ops
 *   by category: root -> IDLE, and a node per category -> the ops
 *
 * Ops that XLA marked duplicates of one another (deduplicated_name) sit
 * under one "<op> and its duplicate(s)" node; a fusion on a TPU lists its
 * fused instructions (from its program's HLO) under it. Every node has
 * its time (a group's: its ops' time; the root's: the device's time),
 * occurrences, flops and bytes by memory; each tree is built with and
 * without IDLE (the root's time then leaves idle out). Children come by
 * time (a fusion's by flops), programs and categories all of them, ops at
 * most `limit` per node; a node says how many children it had before
 * that.
 *
 * Ownership: the tree lives in the caller's arena, its strings there or
 * in the model. Pure; any thread. */
#ifndef PV_TOOLS_OP_PROFILE_OP_PROFILE_H
#define PV_TOOLS_OP_PROFILE_OP_PROFILE_H

#include "tools/hlo/xla_ops.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum pv_op_profile_grouping {
    PV_OP_PROFILE_BY_PROGRAM,
    PV_OP_PROFILE_BY_CATEGORY
} pv_op_profile_grouping;

#define PV_OP_PROFILE_LIMIT 100   /* XProf's op_profile_limit */

typedef struct pv_op_node {
    const char *name;
    const pv_xla_op *op;       /* a leaf's op (a group of duplicates: its first
                                  child's); NULL for programs and categories */
    uint64_t time_ps;
    uint64_t occurrences;
    double flops;              /* device flops */
    double model_flops;
    double mem_bytes[PV_MEM_COUNT]; /* the bytes the trace or cost model filed by
                                       memory (none otherwise) */
    uint64_t normalized_ps;    /* a TPU's op time at its nominal clock (its
                                  ops' time, as they state no other scale) */
    bool fusion_child;         /* a fused instruction (sorted by flops, no time) */
    bool dedup_group;          /* "<op> and its duplicate(s)": op is its first's */
    struct pv_op_node **children;
    size_t n_children;         /* after pruning */
    size_t cap;
    size_t num_children;       /* before pruning */
} pv_op_node;

typedef struct pv_op_profile {
    pv_op_node *root;
    pv_op_node *root_exclude_idle;
    pv_op_profile_grouping grouping;
    const pv_perf_env *env;
    uint64_t total_time_ps;    /* the device's, idle included */
    uint64_t idle_ps;
} pv_op_profile;

/* Builds both trees of db (with m, whose HLO names the programs and whose
 * TPU metadata lists fused instructions). Cannot fail (allocation failure
 * aborts). */
void pv_op_profile_build(const pv_model *m, const pv_xla_op_db *db,
                         pv_op_profile_grouping grouping, size_t limit, pv_arena *a,
                         pv_op_profile *out);

/* XProf's Profile JSON: {"byProgram" (or "byCategory"), "...ExcludeIdle",
 * "deviceType", "aggDvfsTimeScaleMultiplier"}. New reference; NULL when
 * out of memory. */
json_t *pv_op_profile_to_json(const pv_op_profile *p, const char *device_type);

#endif
