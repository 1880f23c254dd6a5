/* model: the profile model every tool reads. One model holds one host's
 * profile (one XSpace, or one Chrome/legacy trace) after ingest.
 *
 * Shape (all arrays owned by the model, freed by pv_model_free):
 *   planes  -> a contiguous range of tracks (one per XLine)
 *   tracks  -> a contiguous range of event ids [first_event, +n_events),
 *              sorted by start_ps (ties: longer first, so parents precede
 *              children), plus a per-depth index (depth_index/depth_start)
 *              in which each depth's events are sorted and never overlap.
 *   events  -> columns indexed by event id (stable for the life of the
 *              model, so the UI can ask for one event's details later).
 *   stats   -> metadata and plane stats are ranges of one flat array;
 *              ref_value stats are resolved at ingest (PV_STAT_STR).
 *              An event's own stats are read on demand
 *              (pv_model_event_own_stats): from the array when the
 *              model was built with them (Chrome JSON, tests), else
 *              straight from the source file's bytes, which the model
 *              keeps (mapped; a small file read whole): a decoded copy
 *              of every stat would cost more memory than the file itself.
 *   strings -> interned once; id 0 is "".
 * Well-known stats (FORMATS.md §3.3) are decoded once into typed fields:
 * group_id per event, and a sparse pv_event_extra row for events that
 * carry correlation ids, framework/HLO op names, kernel, memcpy or memory
 * details.
 *
 * Threads: a finished model is immutable and may be read from any number
 * of threads without locks. Building happens in one thread (builder.h). */
#ifndef PV_MODEL_MODEL_H
#define PV_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_model pv_model;

/* ---- what a profile file holds, probed without loading it ----------- */

/* The index reads these from a profile's field headers (ingest's format
 * probe) so that run_tools lists a tool exactly when XProf would, before
 * any model is built; a tool names the ones it needs (tools/tool.h). */
#define PV_PROFILE_HLO 1u   /* XLA programs' HLO protos (/host:metadata) */
#define PV_PROFILE_GPU 2u   /* a /device:GPU:N plane */
/* What a format's files can hold, which its decoder knows rather than a
 * probe: the format reports them (ingest/formats.h, caps), so a tool made
 * for one framework's profiles asks for what it reads, not for a format. */
#define PV_PROFILE_ROLES 4u   /* events with roles and launch links (pv_event_role):
                                 a PyTorch trace, whose own views need them */
#define PV_PROFILE_XLA_OPS 8u /* device events that are XLA ops of HLO modules:
                                 XProf's XLA tables */

/* ---- stats ---------------------------------------------------------- */

typedef enum pv_stat_type {
    PV_STAT_I64 = 1,
    PV_STAT_U64 = 2,
    PV_STAT_F64 = 3,
    PV_STAT_STR = 4,   /* v.str is a string id (also for resolved ref_value) */
    PV_STAT_BYTES = 5, /* v.blob is an index into model->blobs */
    /* Read from the source file, not interned: v.wire packs the value's
     * place in the file (offset << 24 | length). Read the bytes with
     * pv_model_stat_text. Only own event stats have these types. */
    PV_STAT_WSTR = 6,
    PV_STAT_WBYTES = 7
} pv_stat_type;

typedef struct pv_stat {
    uint32_t name;     /* string id of the stat's name, e.g. "group_id" */
    uint32_t type;     /* pv_stat_type */
    union {
        int64_t i64;
        uint64_t u64;
        double f64;
        uint32_t str;
        uint32_t blob;
        uint64_t wire;
    } v;
} pv_stat;

/* The name of an XStatMetadata id of one plane, so own stats read from
 * the file later get their names (and ref_values their strings). */
typedef struct pv_stat_name {
    int64_t id;        /* XStatMetadata.id */
    uint32_t name;     /* string id */
    uint32_t pad;
} pv_stat_name;

typedef struct pv_blob {
    const uint8_t *data; /* bytes_value payload, owned by the model */
    size_t len;          /* bytes */
} pv_blob;

/* ---- planes and tracks ---------------------------------------------- */

typedef enum pv_plane_kind {
    PV_PLANE_HOST,      /* /host:CPU */
    PV_PLANE_GPU,       /* /device:GPU:N */
    PV_PLANE_TPU,       /* /device:TPU:N */
    PV_PLANE_CUSTOM,    /* /device:CUSTOM:... */
    PV_PLANE_METADATA,  /* /host:metadata */
    PV_PLANE_OTHER      /* Task Environment and everything else */
} pv_plane_kind;

typedef struct pv_plane {
    int64_t id;             /* XPlane.id */
    uint32_t name;          /* string id, e.g. "/device:GPU:0" */
    uint32_t kind;          /* pv_plane_kind */
    int32_t device_ordinal; /* N of /device:GPU:N or TPU:N; -1 otherwise */
    uint32_t first_track;   /* tracks [first_track, first_track + n_tracks) */
    uint32_t n_tracks;
    uint64_t first_stat;    /* plane-level stats in model->stats */
    uint32_t n_stats;
    uint32_t first_stat_name; /* stat_names[first .. +n), sorted by id */
    uint32_t n_stat_names;
} pv_plane;

/* Derived lines added by TF/XLA post-processing, recognised by name and id
 * (FORMATS.md §3.2) so tools can skip or pick them without string compares. */
typedef enum pv_track_kind {
    PV_TRACK_PLAIN,         /* a real thread or stream */
    PV_TRACK_STEPS,         /* "Steps" */
    PV_TRACK_LAUNCH_STATS,  /* "Launch Stats" */
    PV_TRACK_FW_NAME_SCOPE, /* "Framework Name Scope" / "TensorFlow Name Scope" */
    PV_TRACK_FW_OPS,        /* "Framework Ops" / "TensorFlow Ops" */
    PV_TRACK_XLA_MODULES,   /* "XLA Modules" */
    PV_TRACK_XLA_OPS,       /* "XLA Ops" */
    PV_TRACK_DERIVED_OTHER, /* any other derived line (source, overhead, ...) */
    PV_TRACK_COUNTERS       /* "_counters_" */
} pv_track_kind;

typedef struct pv_track {
    uint32_t plane;          /* index into model->planes */
    uint32_t kind;           /* pv_track_kind */
    int64_t line_id;         /* XLine.id (thread id, stream id) */
    int64_t display_id;      /* XLine.display_id, or line_id when 0 */
    uint32_t name;           /* string id */
    uint32_t display_name;   /* string id; the name when the file had none */
    int64_t timestamp_ns;    /* XLine.timestamp_ns as written */
    int64_t duration_ps;     /* XLine.duration_ps */
    uint64_t first_event;    /* events [first_event, first_event + n_events) */
    uint64_t n_events;
    uint32_t n_depths;       /* nesting levels in use (0 when no events) */
    const uint32_t *depth_start; /* n_depths + 1 offsets into depth_index */
    const uint32_t *depth_index; /* n_events offsets (event id - first_event),
                                    grouped by depth, each group by start */
} pv_track;

/* ---- events ---------------------------------------------------------- */

typedef struct pv_event_meta {
    int64_t id;              /* XEventMetadata.id (unique within its plane) */
    uint32_t plane;          /* plane the metadata belongs to */
    uint32_t name;           /* string id */
    uint32_t display_name;   /* string id; 0 when the file had none */
    uint64_t first_stat;     /* metadata stats in model->stats */
    uint32_t n_stats;
    uint32_t first_child;    /* model->meta_children[first_child .. +n_children) */
    uint32_t n_children;     /*   hold indices into model->metas */
} pv_event_meta;

/* Parsed kernel_details (FORMATS.md §3.3). */
typedef struct pv_kernel_details {
    uint32_t registers_per_thread;
    uint32_t static_shmem_bytes;
    uint32_t dynamic_shmem_bytes;
    uint32_t grid[3];        /* 1,1,1 when absent */
    uint32_t block[3];       /* 1,1,1 when absent */
    double occupancy_pct;    /* occ_pct or theoretical_occupancy_pct; <0 when absent */
} pv_kernel_details;

typedef enum pv_memcpy_kind {
    PV_MEMCPY_NONE, PV_MEMCPY_H2D, PV_MEMCPY_D2H, PV_MEMCPY_D2D, PV_MEMCPY_H2H,
    PV_MEMCPY_OTHER
} pv_memcpy_kind;

/* Memory allocation details of a MemoryAllocation / MemoryDeallocation
 * host event (FORMATS.md §4.7). Missing integers are 0, strings 0 (""). */
typedef struct pv_memory_details {
    uint32_t memory_id;        /* string id: allocator_name, or the ordinal as text */
    int32_t data_type;         /* TF DataType enum value */
    uint32_t region_type;      /* string id */
    uint32_t shape;            /* string id */
    int64_t bytes_reserved;    /* stack_reserved_bytes */
    int64_t bytes_allocated;   /* heap_allocated_bytes */
    int64_t bytes_available;   /* free_memory_bytes */
    int64_t peak_bytes_in_use;
    double fragmentation;
    int64_t requested_bytes;
    int64_t allocation_bytes;
    uint64_t address;
} pv_memory_details;

enum {
    PV_EXTRA_CORRELATION = 1u << 0,   /* correlation_id is set */
    PV_EXTRA_KERNEL      = 1u << 1,   /* kernel is set */
    PV_EXTRA_MEMCPY      = 1u << 2,   /* memcpy_kind/memcpy_bytes are set */
    PV_EXTRA_MEMORY      = 1u << 3,   /* memory is set (alloc or free) */
    PV_EXTRA_MEM_ALLOC   = 1u << 4,   /* event is a MemoryAllocation */
    PV_EXTRA_MEM_FREE    = 1u << 5,   /* event is a MemoryDeallocation */
    PV_EXTRA_STEP_ROOT   = 1u << 6,   /* event has _r or is TraceContext */
    PV_EXTRA_ASYNC       = 1u << 7,   /* event has _a */
    PV_EXTRA_EAGER       = 1u << 8,   /* is_eager == 1 */
    PV_EXTRA_FLOW        = 1u << 9    /* flow is set */
};

/* Step fields of an event that names its step (step_name, id, iter_num,
 * step_num stats); few events have them, so they live in a side table. */
typedef struct pv_step_info {
    uint32_t step_name;        /* string id of step_name; 0 none */
    uint32_t pad;              /* 0, so a model file holds no stray bytes */
    int64_t step_id;           /* the `id` stat; -1 none */
    int64_t iter_num;          /* -1 none */
    int64_t step_num;          /* -1 none */
} pv_step_info;

/* Well-known stats of one event, merged from its metadata's stats and its
 * own (own stats win). Only events with at least one of them get a row.
 * Rows are many (every kernel, memcpy and op), so the larger details sit
 * in side tables behind `detail` and `step` (pv_model_kernel,
 * pv_model_step_info), or are read from the stats again
 * (pv_model_event_memory). */
typedef struct pv_event_extra {
    uint16_t flags;            /* PV_EXTRA_* */
    uint8_t memcpy_kind;       /* pv_memcpy_kind */
    uint8_t reserved;
    uint32_t tf_op;            /* string id of tf_op ("name:type"); 0 none */
    uint64_t correlation_id;
    uint64_t flow;             /* raw flow stat (§3.4) */
    uint64_t memcpy_bytes;
    uint32_t hlo_op;           /* string id of hlo_op; 0 none */
    uint32_t hlo_module;       /* string id; 0 none */
    uint32_t detail;           /* kernels[] with PV_EXTRA_KERNEL */
    uint32_t step;             /* step_infos[], or PV_NO_STEP */
} pv_event_extra;

#define PV_NO_STEP UINT32_MAX
#define PV_NO_EXTRA UINT32_MAX
#define PV_NO_GROUP (-1)

/* ---- roles and launch links -------------------------------------------- */

/* What the profiler that wrote a file says an event is, when it says so
 * (PyTorch's profiler does, by category: ingest/chrome_json). A role
 * belongs to an event's metadata; a model whose decoder gives none has
 * no roles at all (pv_model_has_roles false, every event PV_ROLE_NONE).
 * The values are kept in model files: add new ones at the end. */
typedef enum pv_event_role {
    PV_ROLE_NONE = 0,
    PV_ROLE_OPERATOR = 1,          /* a framework operator run by the host */
    PV_ROLE_STEP = 2,              /* a training step's span (ProfilerStep#N) */
    PV_ROLE_ANNOTATION = 3,        /* a span the user's code marked on the host */
    PV_ROLE_PYTHON = 4,            /* a Python function */
    PV_ROLE_RUNTIME = 5,           /* a call into a device's runtime (cudaLaunchKernel) */
    PV_ROLE_KERNEL = 6,            /* a kernel run on a device */
    PV_ROLE_MEMCPY = 7,            /* a copy run on a device */
    PV_ROLE_MEMSET = 8,            /* a fill run on a device */
    PV_ROLE_DEVICE_ANNOTATION = 9, /* the user's span as a device's timeline shows it */
    PV_ROLE_MEMORY = 10,           /* an allocation or release (a memory event) */
    PV_ROLE_TRACE_MARK = 11        /* the profiler's own span over its trace */
} pv_event_role;

/* A metadata's roles byte: its pv_event_role in the low bits, and these
 * facts its name tells (the decoder knows its framework's names). */
#define PV_ROLE_MASK 0x0fu
#define PV_ROLE_COLLECTIVE 0x10u     /* a collective communication op (NCCL, Gloo) */
#define PV_ROLE_TENSOR_CORE_OP 0x20u /* an operator whose work Tensor Cores can run */

/* Whether role is work run on a device (kernel, copy, fill). */
static inline bool pv_role_on_device(pv_event_role role)
{
    return role == PV_ROLE_KERNEL || role == PV_ROLE_MEMCPY || role == PV_ROLE_MEMSET;
}

/* Whether an event of role can launch device work (an operator, a step, an
 * annotation, a Python function: what a launch link points to). */
static inline bool pv_role_launches(pv_event_role role)
{
    return role == PV_ROLE_OPERATOR || role == PV_ROLE_STEP || role == PV_ROLE_ANNOTATION ||
           role == PV_ROLE_PYTHON;
}

#define PV_NO_EVENT UINT64_MAX
#define PV_NO_LAUNCH UINT32_MAX

/* Who launched an event: a runtime call or device activity and the host
 * event that launched it (a PyTorch trace's shared External id), and for
 * a device activity the runtime call that launched it (its correlation
 * id). Event ids are 32 bits: every decoder caps a model below 2^32
 * events. */
typedef struct pv_launch {
    uint32_t ev;               /* the launched event */
    uint32_t by;               /* the host event that launched it, or PV_NO_LAUNCH */
    uint32_t call;             /* the runtime call that launched it, or PV_NO_LAUNCH */
} pv_launch;

/* One training step: a group id assigned by step grouping (FORMATS §3.7). */
typedef struct pv_step_group {
    int64_t group_id;
    uint32_t name;             /* string id, e.g. "train 42"; 0 when unnamed */
    uint32_t pad;              /* 0, so a model file holds no stray bytes */
    int64_t step_num;          /* iter_num/step_num, or group_id */
} pv_step_group;

/* Each array member and its count is listed once in model/columns.h,
 * from which finish, pv_model_free, mem_bytes and the model file
 * (serialize.h) handle it: a new array gets its line there too. */
struct pv_model {
    /* strings: str_off[i] .. str_off[i]+str_len[i] in str_data, NUL-terminated */
    uint32_t n_strings;
    const char *const *strings; /* n_strings pointers, strings[0] = "" */

    uint32_t n_planes;
    const pv_plane *planes;
    uint32_t n_tracks;
    const pv_track *tracks;     /* grouped by plane, in file order */

    uint32_t n_metas;
    const pv_event_meta *metas;
    uint32_t n_meta_children;
    const uint32_t *meta_children;  /* indices into metas, per pv_event_meta ranges */
    const uint8_t *meta_roles;    /* per metadata: its role and facts (PV_ROLE_*);
                                     NULL when the decoder gave none */

    uint64_t n_events;
    const int64_t *ev_start_ps;   /* absolute: line.timestamp_ns*1000 + offset_ps */
    const int64_t *ev_dur_ps;
    const uint32_t *ev_meta;      /* index into metas */
    const uint16_t *ev_depth;     /* nesting depth within its track, 0 = top */
    const uint64_t *ev_stat_off;  /* n_events + 1 offsets into stats, or NULL
                                     when no event has stats in the array */
    const uint64_t *ev_wire;      /* the XEvent message in src: offset << 24 |
                                     length; NULL when the model has no
                                     source file. Read through
                                     pv_model_event_own_stats. */
    const int32_t *ev_group;      /* group_id, PV_NO_GROUP when none */
    const uint32_t *ev_extra;     /* index into extras, PV_NO_EXTRA when none */

    uint64_t n_stats;
    const pv_stat *stats;
    uint32_t n_blobs;
    const pv_blob *blobs;

    uint32_t n_stat_names;
    const pv_stat_name *stat_names; /* grouped by plane (pv_plane ranges) */
    const uint8_t *src;           /* the source file's bytes (a read-only
                                     mapping or a copy), or NULL */
    size_t src_len;

    uint32_t n_extras;
    const pv_event_extra *extras;
    uint32_t n_kernels;
    const pv_kernel_details *kernels;   /* distinct launch details */
    uint32_t n_step_infos;
    const pv_step_info *step_infos;

    uint32_t n_groups;
    const pv_step_group *groups;  /* sorted by group_id */

    uint32_t n_launches;
    const pv_launch *launches;    /* sorted by ev, one row per launched event */

    /* XSpace-level data */
    uint32_t n_hostnames;
    const uint32_t *hostnames;    /* string ids */
    uint32_t n_errors;
    const uint32_t *errors;       /* string ids */
    uint32_t n_warnings;
    const uint32_t *warnings;     /* string ids */

    bool has_group_stats;         /* some event or metadata carries a group_id
                                     stat (the producer grouped steps) */
    int64_t min_ps;               /* earliest event start; 0 when no events */
    int64_t max_ps;               /* latest event end */
    size_t mem_bytes;             /* bytes this model holds, for the budget */

    void *priv;                   /* owned storage; opaque to readers */
};

/* ---- lifetime --------------------------------------------------------- */

/* Releases the model and everything it owns. NULL is fine. */
void pv_model_free(pv_model *m);

/* Takes the pages of the files the model maps (its profile, a loaded
 * model file) out of this process's resident memory; the next read
 * brings back what it reads, from the page cache. Nothing a reader sees
 * changes, so any thread may call it at any time; a caller does so after
 * a pass that read much of them, so pages it is done with are not counted
 * as the process's while they stay cached. Cannot fail. */
void pv_model_release_pages(const pv_model *m);

/* ---- lookups (all cannot fail; pointers valid as long as the model) ---- */

/* The string with this id, or "" when id is out of range. */
const char *pv_model_str(const pv_model *m, uint32_t id);

/* The string id of s if s was interned, else 0. Lets a tool compare ids
 * instead of strings in a hot loop. */
uint32_t pv_model_str_find(const pv_model *m, const char *s);

/* Event name (display name when present, else name). */
const char *pv_model_event_name(const pv_model *m, uint64_t ev);

/* The extra row of an event, or NULL when it has none. */
static inline const pv_event_extra *pv_model_event_extra(const pv_model *m, uint64_t ev)
{
    uint32_t x = m->ev_extra[ev];
    return x == PV_NO_EXTRA ? NULL : &m->extras[x];
}

/* The side rows of an extra row: kernel details (NULL unless
 * PV_EXTRA_KERNEL) and step fields (never NULL: a row of "none" values
 * when it has none). */
const pv_kernel_details *pv_model_kernel(const pv_model *m, const pv_event_extra *x);
const pv_step_info *pv_model_step_info(const pv_model *m, const pv_event_extra *x);

/* The memory details of a MemoryAllocation / MemoryDeallocation event
 * (PV_EXTRA_MEMORY), decoded from its stats on each call: a profile can
 * hold millions of them and only the memory profile reads them. Returns
 * false (and leaves *out) for any other event. */
bool pv_model_event_memory(const pv_model *m, uint64_t ev, pv_memory_details *out);

/* The track holding event ev (binary search over tracks). */
uint32_t pv_model_event_track(const pv_model *m, uint64_t ev);

/* Writes event ev's own stats (not its metadata's), in file order, to
 * out[0 .. cap) and returns how many it has, which may be more than cap
 * (call again with more room). Stats read from the source file have
 * WSTR/WBYTES strings. A source file that is unreadable (shrank since
 * it was mapped) or malformed there yields the stats read before it. */
size_t pv_model_event_own_stats(const pv_model *m, uint64_t ev, pv_stat *out, size_t cap);

/* The same into *buf, a malloc'd array of *cap stats grown as needed
 * (NULL and 0 to start; the caller frees it): all of ev's stats. */
size_t pv_model_event_own_stats_into(const pv_model *m, uint64_t ev, pv_stat **buf,
                                     size_t *cap);

/* Finds a stat by name id among an event's metadata stats then its own
 * (own win). Copies it to *out and returns true, or returns false. */
bool pv_model_event_stat(const pv_model *m, uint64_t ev, uint32_t name_id, pv_stat *out);

/* The same for a whole number, signed or unsigned (decoders store one by
 * its wire type or its sign), in *out; false when ev lacks the stat, it
 * holds another type or name_id is 0. */
bool pv_model_event_stat_int(const pv_model *m, uint64_t ev, uint32_t name_id, int64_t *out);

/* The bytes of a STR, WSTR, BYTES or WBYTES stat and their length; NULL
 * (and *len 0) for other types. Strings are not NUL-terminated. */
const char *pv_model_stat_text(const pv_model *m, const pv_stat *s, size_t *len);

/* The string id of a STR stat's value, or of a WSTR value that the model
 * interned (the values of well-known stats and of PV_MODEL_ID_STATS);
 * 0 otherwise. */
uint32_t pv_model_stat_str_id(const pv_model *m, const pv_stat *s);

/* Stats whose string values get a string id at ingest, for tools that key
 * on them: the well-known stats of FORMATS.md §3.3 and these. */
#define PV_MODEL_ID_STATS                                                               \
    {"level 0", "equation", "shape", "graph_type", "long_name", "source_info"}

/* First event id in [t->first_event, +n_events) whose start is >= start_ps
 * (binary search); returns first_event + n_events when none. */
uint64_t pv_model_track_lower_bound(const pv_model *m, const pv_track *t, int64_t start_ps);

/* The roles byte of metadata meta (PV_ROLE_*; 0 when the model has no
 * roles), its role, and event ev's role. */
static inline unsigned pv_model_meta_roles(const pv_model *m, uint32_t meta)
{
    return m->meta_roles != NULL ? m->meta_roles[meta] : 0u;
}

static inline pv_event_role pv_model_meta_role(const pv_model *m, uint32_t meta)
{
    return (pv_event_role)(pv_model_meta_roles(m, meta) & PV_ROLE_MASK);
}

static inline pv_event_role pv_model_event_role(const pv_model *m, uint64_t ev)
{
    return pv_model_meta_role(m, m->ev_meta[ev]);
}

/* Whether some metadata of m has a role other than PV_ROLE_MEMORY: the
 * file's producer said what its events are (a PyTorch trace), so the
 * tools count them by their roles as that framework's own tools do. */
bool pv_model_has_roles(const pv_model *m);

/* The host event that launched runtime call or device activity ev, or
 * PV_NO_EVENT (binary search over launches). */
uint64_t pv_model_launcher(const pv_model *m, uint64_t ev);

/* The runtime call that launched device activity ev, or PV_NO_EVENT. */
uint64_t pv_model_launch_call(const pv_model *m, uint64_t ev);

/* The step group with this id, or NULL. */
const pv_step_group *pv_model_group_find(const pv_model *m, int64_t group_id);

/* For assert() and tests: every track's events sorted, depth index
 * consistent and non-overlapping per depth, offsets in range. A broken
 * model would make tools read out of bounds. */
bool pv_model_is_sane(const pv_model *m);

#endif
