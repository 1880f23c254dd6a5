/* memory_profile: per-allocator memory timeline, peak and the allocations
 * alive at the peak (FORMATS.md §4.7), computed from the MemoryAllocation /
 * MemoryDeallocation events of the host plane the way the reference
 * (xprof xplane_to_memory_profile) does:
 *
 *   1. every memory event of /host:CPU is visited in file order (tracks,
 *      then events) and counted to its allocator (memory id); the
 *      summary's peak is updated on each (ties move the peak later);
 *   2. per allocator, the events in time order (stable: a merge of the
 *      tracks, each in time order already), step ids -1 fixed to last
 *      valid + 1, frees take op/region/type/shape from the allocation at
 *      the same address;
 *   3. the timeline is sampled to at most max_timeline_points with a max
 *      box filter, so the peak and the top of every window survive; for
 *      profview's page each window also gives its lowest point, so local
 *      minima survive too (at most twice as many points);
 *   4. the allocations alive at the peak are those of the peak step up to
 *      the peak time, plus the special "unused preallocated device memory"
 *      and "stack" rows, sorted and merged like the reference.
 *
 * Steps 2 to 4 walk the events in time order twice (the peak step is only
 * known at the end of the first walk) and keep only the snapshots the
 * answer shows, so the scratch is bounded by the timeline points and the
 * allocations alive at the peak, not by the events: a 1 GB profile has
 * millions of memory events.
 *
 * Everything in a result is allocated from the caller's arena and borrows
 * strings from the model: valid while both live. Pure: no I/O, no clock,
 * no globals; any thread may call it on a shared model. */
#ifndef PV_TOOLS_MEMORY_PROFILE_MEMORY_PROFILE_H
#define PV_TOOLS_MEMORY_PROFILE_MEMORY_PROFILE_H

#include "model/model.h"
#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PV_MEMORY_TIMELINE_POINTS 1000   /* the reference's max_num_snapshots */
#define PV_MEMORY_MAX_ALLOCATORS 1024    /* distinct memory ids accepted in one profile */

typedef enum pv_memory_activity {
    PV_MEMORY_UNKNOWN_ACTIVITY = 0,
    PV_MEMORY_ALLOCATION = 1,
    PV_MEMORY_DEALLOCATION = 2
} pv_memory_activity;

typedef struct pv_memory_profile_query {
    size_t max_timeline_points;  /* 0 means PV_MEMORY_TIMELINE_POINTS */
} pv_memory_profile_query;

/* MemoryAggregationStats: the allocator's state right after one event. */
typedef struct pv_memory_stats {
    int64_t stack_reserved_bytes;
    int64_t heap_allocated_bytes;
    int64_t free_memory_bytes;
    double fragmentation;        /* 0..1 as the allocator reported it */
    int64_t peak_bytes_in_use;   /* allocator lifetime peak; in peak_stats: stack+heap */
} pv_memory_stats;

/* MemoryActivityMetadata. Strings are borrowed (model or static). */
typedef struct pv_memory_meta {
    uint32_t activity;           /* pv_memory_activity */
    int64_t requested_bytes;
    int64_t allocation_bytes;
    uint64_t address;
    const char *tf_op_name;
    int64_t step_id;
    const char *region_type;
    const char *data_type;       /* TF DataType name, e.g. "float" */
    const char *tensor_shape;
} pv_memory_meta;

/* One memory event of an allocator, kept because the answer shows it. */
typedef struct pv_memory_snapshot {
    size_t position;             /* index in the allocator's events in time order */
    int64_t time_offset_ps;      /* offset from its line's timestamp (the reference's time) */
    int64_t start_ps;            /* absolute model time of the event */
    uint64_t event;              /* model event id */
    uint64_t meta_event;         /* event whose op/region/type/shape apply: the event,
                                    or for a matched free its allocation */
    int64_t step_id;             /* group id after step-id fixing */
    pv_memory_details details;   /* the event's, decoded once (the model reads
                                    them from the stats on each call) */
} pv_memory_snapshot;

/* MemoryProfileSummary. */
typedef struct pv_memory_summary {
    int64_t peak_bytes_usage_lifetime; /* the last event's peak_bytes_in_use */
    pv_memory_stats peak_stats;        /* stats at the peak; peak_bytes_in_use = stack+heap */
    int64_t peak_stats_time_ps;        /* time_offset_ps of the peak */
    int64_t memory_capacity;           /* stack + heap + free at the peak */
} pv_memory_summary;

/* One row of the table of allocations alive at the peak. */
typedef struct pv_memory_active {
    int64_t snapshot;            /* position of its snapshot, or -1-k for special k */
    int64_t num_occurrences;     /* identical allocations merged into this row */
    int64_t free_start_ps;       /* absolute time the allocation was freed, or
                                    INT64_MIN when it was still alive at the end */
} pv_memory_active;

typedef struct pv_memory_allocator {
    const char *memory_id;       /* allocator name or device ordinal as text */
    size_t n_snapshots;          /* its memory events */
    pv_memory_snapshot *kept;    /* the snapshots that timeline, extremes and
                                    active name, by position (pv_memory_snapshot_at) */
    size_t n_kept;
    size_t *timeline;            /* positions of the sampled snapshots, in time order */
    size_t n_timeline;
    size_t *extremes;            /* profview's timeline: the positions of the lowest
                                    and the highest snapshot of each sampling window,
                                    in time order, so dips survive as well as peaks */
    size_t n_extremes;
    pv_memory_summary summary;
    size_t peak_snapshot;        /* position of the snapshot that set the peak */
    int64_t peak_step_id;        /* step of the (last) snapshot at the peak bytes */
    pv_memory_active *active;    /* sorted as the reference sorts them */
    size_t n_active;
    pv_memory_meta special[2];   /* "unused preallocated device memory", "stack" */
    size_t n_special;
    uint64_t n_allocations;      /* ALLOCATION snapshots */
    uint64_t n_deallocations;    /* DEALLOCATION snapshots */
    uint64_t n_unmatched_frees;  /* frees whose address had no earlier allocation */
} pv_memory_allocator;

/* One execution of an XLA module on a TPU (an "XLA Modules" line event),
 * which the reference lists so its page can mark them on the timeline. */
typedef struct pv_memory_hlo_module {
    const char *name;            /* the event's (metadata) name */
    int64_t start_time_ps;       /* offset from its line's timestamp */
    int64_t end_time_ps;         /* start + duration */
    int64_t id;                  /* 0, 1, ... in plane, line, event order */
    const char *plane_name;      /* the plane's name without "/device:", e.g. "TPU:0" */
} pv_memory_hlo_module;

typedef struct pv_memory_profile_result {
    bool has_host_plane;         /* false: the reference answers an empty body */
    pv_memory_allocator *allocators; /* sorted by memory_id (bytewise) */
    size_t n_allocators;
    pv_memory_hlo_module *hlo_modules; /* TPU planes' XLA Modules events */
    size_t n_hlo_modules;
    int64_t model_min_ps;        /* the model's min_ps, for times relative to the trace */
} pv_memory_profile_result;

/* ---- the tool ------------------------------------------------------------- */

/* Computes the memory profile of m. q may be NULL (defaults). Returns 0,
 * PV_EINVAL when q asks for more than 2^24 timeline points, or PV_ETOOBIG
 * when the events name more than PV_MEMORY_MAX_ALLOCATORS allocators or
 * give one allocator 2^32 - 1 events or more (out is then empty). Results
 * come from arena a. A model without a host plane gives has_host_plane
 * false and no allocators. */
int pv_tool_memory_profile(const pv_model *m, const pv_memory_profile_query *q, pv_arena *a,
                           pv_memory_profile_result *out, pv_error *err);

/* ---- reading a result ------------------------------------------------------ */

/* The kept snapshot at this position of al's time order, or NULL when
 * the answer does not show it. */
const pv_memory_snapshot *pv_memory_snapshot_at(const pv_memory_allocator *al, size_t position);
/* The aggregation stats of snapshot s. Cannot fail. */
pv_memory_stats pv_memory_snapshot_stats(const pv_model *m, const pv_memory_snapshot *s);
/* The activity metadata of snapshot s. Strings are borrowed from m, except
 * the name of an unknown data type number, which is written into a. */
pv_memory_meta pv_memory_snapshot_meta(const pv_model *m, const pv_memory_snapshot *s,
                                       pv_arena *a);
/* The metadata of an active row: its snapshot's, or the special one. */
pv_memory_meta pv_memory_active_meta(const pv_model *m, const pv_memory_allocator *al,
                                     const pv_memory_active *row, pv_arena *a);
/* TF DataType name of a DataType enum value, as the reference spells it
 * ("float", "int32", "float_ref", "unknown dtype enum (77)"). Static
 * strings for known values; unknown ones are written into a. */
const char *pv_memory_data_type_name(int32_t dtype, pv_arena *a);

/* ---- JSON -------------------------------------------------------------------- */

/* The reference's MemoryProfile JSON (protobuf JSON mapping: lowerCamelCase,
 * int64 as strings, enums by name, defaults printed), or an empty object
 * when the profile has no host plane. With extras, each allocator also
 * gets "pvActiveAllocationTimes" (profview's UI: per active row the
 * allocation and free time relative to the model start, in ps, as
 * strings; "" free when never freed), "pvCounts" and "pvTimeline" (the
 * window minima and maxima as parallel arrays of numbers). Returns a new
 * reference, NULL only when memory runs out. */
json_t *pv_memory_profile_to_json(const pv_model *m, const pv_memory_profile_result *r,
                                  bool extras);

#endif
