/* model_priv: the parts of the model and builder shared between the files
 * of server/model/ only (STYLE rule 1: pv__ names). Nothing outside model/
 * includes this header.
 *
 * Storage: every column is one malloc'd array grown with realloc (glibc
 * moves large blocks with mremap, so growing a column never holds two
 * copies). The finished model takes the builder's arrays over, so a model
 * costs what its columns cost and nothing is copied at finish when the
 * events already arrived sorted per track (the decoder's case). The
 * columns are listed once, in columns.h.
 *
 * Files, lowest first: each calls functions of the files above it only,
 * so the build steps sit on the storage and readers, never the reverse.
 *   storage.c          growable arrays, owned storage, the column list as data
 *   strtab.c           the string table and the id map
 *   details_parse.c    kernel_details / memcpy_details text
 *   hlo_table.c        the HLO table, decoded on first use (model/hlo_table.h)
 *   memo.c             what tools compute once from the model (model/memo.h)
 *   group_keys.c       grouping's keys, put together by hash
 *   model.c            lookups, release, sanity check
 *   event_stats.c      an event's own stats, read on demand
 *   launch.c           roles and launch links: made at finish, looked up
 *   extras.c           what well-known stats give an event
 *   event_memory.c     a memory event's details, read on demand
 *   extras_add.c       well-known stats applied as the builder adds events
 *   extras_finish.c    well-known stats applied at finish
 *   group_forest.c     step grouping's event forest
 *   group_eager.c      eager execution marks
 *   group_tpu.c        TPU device steps
 *   group.c            step grouping
 *   depths.c           nesting depths and the per-depth index
 *   builder.c          what the decoders add
 *   finish.c           a builder into a model
 *   serialize.c        a finished model to a file and back
 * tests/unit/model_layers.sh checks the order on the built objects. */
#ifndef PV_MODEL_MODEL_PRIV_H
#define PV_MODEL_MODEL_PRIV_H

#include "model/builder.h"
#include "model/columns.h"
#include "model/model.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/hashtab.h"

#include <stddef.h>
#include <stdint.h>

/* ---- growable arrays (storage.c) ---------------------------------------- */

/* Makes room for `need` elements of `elem` bytes in *p (capacity *cap, in
 * elements), growing by half. Aborts when memory runs out. */
void pv__grow(void **p, size_t *cap, size_t need, size_t elem);

#define PV__PUSH(arr, n, cap, value)                                             \
    do {                                                                         \
        if ((n) == (cap))                                                        \
            pv__grow((void **)&(arr), &(cap), (size_t)(n) + 1, sizeof *(arr));   \
        (arr)[(n)++] = (value);                                                  \
    } while (0)

/* ---- string table ------------------------------------------------------- */

/* Interns byte strings: equal bytes get one id; id 0 is "". Strings live
 * in an arena, NUL-terminated; the hash table compares the bytes, so a
 * collision costs time, never a wrong id. */
typedef struct pv__strtab {
    pv_arena arena;       /* string bytes */
    const char **strs;    /* id -> string */
    uint32_t *lens;       /* id -> length in bytes */
    size_t n, cap;        /* ids in use, capacity of strs/lens */
    pv_hashtab ids;       /* string hash -> id */
} pv__strtab;

void pv__strtab_init(pv__strtab *t);
void pv__strtab_fini(pv__strtab *t);
uint32_t pv__strtab_intern(pv__strtab *t, const char *s, size_t len);
/* Returns the id or 0 when s was never interned. */
uint32_t pv__strtab_find(const pv__strtab *t, const char *s, size_t len);
size_t pv__strtab_bytes(const pv__strtab *t);

/* ---- int64 -> uint32 map ------------------------------------------------ */

/* A map from a 64-bit key to a 32-bit value, used for (plane, metadata
 * id) lookups: a pv_hashtab keyed by pv_hash_u64. A zeroed map is empty. */
typedef struct pv__idmap {
    pv_hashtab t;
} pv__idmap;

static inline void pv__idmap_fini(pv__idmap *m)
{
    pv_hashtab_fini(&m->t);
}

/* Sets key to val, replacing any previous value. */
static inline void pv__idmap_put(pv__idmap *m, uint64_t key, uint32_t val)
{
    pv_hashtab_u64_put(&m->t, key, val);
}

/* The value for key, or UINT32_MAX. */
static inline uint32_t pv__idmap_get(const pv__idmap *m, uint64_t key)
{
    uint32_t v;
    return pv_hashtab_u64_get(&m->t, key, &v) ? v : UINT32_MAX;
}

/* ---- builder state ------------------------------------------------------ */

typedef struct pv__run {
    uint32_t track;       /* builder track index */
    uint64_t first;       /* first builder event of the run */
    uint64_t n;           /* consecutive events added to that track */
} pv__run;

typedef struct pv__owned_stat {
    uint64_t owner;       /* event, meta or plane index */
    pv_stat stat;
} pv__owned_stat;

/* A stat name of a plane as the decoder gave it; finish sorts them by
 * (plane, id) and keeps the last of equal ids, like a protobuf map. */
typedef struct pv__plane_stat_name {
    uint32_t plane;
    uint32_t seq;         /* order added */
    pv_stat_name sn;
} pv__plane_stat_name;

/* ev_wire packs a place in the source: offset << 24 | length. */
#define PV__WIRE_LEN_BITS 24u
#define PV__WIRE_LEN_MASK ((1u << PV__WIRE_LEN_BITS) - 1)

/* The text of a PV_STAT_WSTR / PV_STAT_WBYTES value in the source
 * [src, src + src_len): NULL (and *len 0) when it lies outside. */
static inline const char *pv__wire_text(const uint8_t *src, size_t src_len, uint64_t wire,
                                        size_t *len)
{
    uint64_t off = wire >> PV__WIRE_LEN_BITS, n = wire & PV__WIRE_LEN_MASK;
    *len = 0;
    if (src == NULL || off > src_len || n > src_len - off)
        return NULL;
    *len = (size_t)n;
    return (const char *)src + off;
}

/* An integer stat's value (int64 or uint64) in *v; false for other types. */
static inline bool pv__stat_int(const pv_stat *s, int64_t *v)
{
    if (s->type == PV_STAT_I64)
        *v = s->v.i64;
    else if (s->type == PV_STAT_U64)
        *v = (int64_t)s->v.u64;
    else
        return false;
    return true;
}

/* Whether a plane's n stat metadata ids, lo to hi, are small and packed
 * enough for a table indexed by id: a hostile id of 2^40 is looked up in
 * a map or by search instead. */
static inline bool pv__stat_ids_dense(int64_t lo, int64_t hi, size_t n)
{
    return lo >= 0 && hi < 4 * (int64_t)n + 1024;
}

/* Whether an extra row holds no value unique to its event (a
 * correlation id, a flow, step fields). Such rows are shared by every
 * event with the same values (extras.c), so whoever changes a row in
 * place must give a shareable one's event a row of its own first. */
static inline bool pv__extra_is_shareable(const pv_event_extra *x)
{
    return x->correlation_id == 0 && x->flow == 0 && x->step == PV_NO_STEP;
}

/* Releases a source the builder or model owns (storage.c). */
void pv__source_release(const uint8_t *data, size_t len, pv_source_owner owner);

/* Well-known stats applied while events are added, and what finish does
 * with them (extras.c). */
typedef struct pv__extras pv__extras;
#define PV__EXTRA_PENDING (UINT32_MAX - 1)

/* A key of step grouping's inter-thread edges (group.c): the events of
 * one (k1, k2) are joined, side 0 to side 1. Producer/consumer contexts
 * (the `_pt`/`_p` and `_ct`/`_c` stats) are keyed as the builder applies
 * stats, so grouping does not read every event's stats again. */
typedef struct pv__keyed {
    uint64_t k1, k2;        /* the kind in k1's low byte, then the ids */
    uint32_t ev;            /* event (grouping runs below UINT32_MAX events) */
    int32_t side;           /* 0 producer/parent, 1 consumer/child */
} pv__keyed;

typedef struct pv__keys {
    pv__keyed *v;
    size_t n, cap;
} pv__keys;

/* Puts keys with equal (k1, k2) next to each other, side 0 before side 1,
 * each side in the order the keys came; the groups' order is unspecified.
 * Drops the keys of a group that lacks either side (it joins nothing).
 * False, keys untouched, when their ids collide too much to group fast:
 * then sort them (group_keys.c). */
bool pv__keys_group(pv__keys *ks);
/* The hash pv__keys_group places a key's (k1, k2) by (the low bits pick
 * its slot of a power-of-two table with at least two per key). */
static inline uint64_t pv__keys_hash(uint64_t k1, uint64_t k2)
{
    uint64_t h = (k1 ^ 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
    h ^= k2 * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

#define PV__KEY_LAUNCH 1u       /* correlation_id: host launch -> device kernel */
#define PV__KEY_CONTEXT 2u      /* (_pt, _p) -> (_ct, _c) */
#define PV__KEY_ITERATION 3u    /* Process (id, iter_num) -> IteratorGetNext */

/* The stats that link events (builder.h, pv_builder_link_stats): string
 * ids, the launch keys' names[0 .. n_launch), then the call keys' up to
 * n, in one list as finish compares each stat with all of them. */
typedef struct pv__link_stats {
    uint32_t names[2 * PV_LINK_STATS];
    uint8_t n_launch, n;
} pv__link_stats;

typedef struct pv__child_ref {
    uint32_t meta;        /* parent metadata index */
    int64_t child_id;     /* XEventMetadata.id of the child in the same plane */
} pv__child_ref;

struct pv_model_builder {
    pv__strtab strs;

    pv_plane *planes;
    size_t n_planes, cap_planes;
    pv_track *tracks;
    size_t n_tracks, cap_tracks;
    pv_event_meta *metas;
    size_t n_metas, cap_metas;
    pv__idmap *meta_ids;     /* per plane: XEventMetadata.id -> meta index */
    pv__child_ref *child_refs;
    size_t n_child_refs, cap_child_refs;
    uint8_t *roles;          /* per metadata given one (meta_roles); NULL none */
    size_t cap_roles;        /*   its entries, zeroed past those set */

    /* events, in the order they were added */
    int64_t *ev_start_ps;
    int64_t *ev_dur_ps;
    uint32_t *ev_meta;
    uint64_t *ev_stat_first; /* index into stats of the event's first stat;
                                NULL until an event has array stats */
    uint64_t *ev_wire;       /* place of the XEvent in src; NULL until set */
    pv__extras *extras;      /* well-known stats applied so far (extras.c) */
    int32_t *ev_group;       /* what they gave each event; NULL until then */
    uint32_t *ev_extra;      /*   PV__EXTRA_PENDING: left to finish */
    size_t n_events, cap_events;
    const uint8_t *src;      /* the source file's bytes, owned per src_owner */
    size_t src_len;
    pv_source_owner src_owner;
    pv__plane_stat_name *stat_names;
    size_t n_stat_names, cap_stat_names;
    pv__run *runs;
    size_t n_runs, cap_runs;
    pv__link_stats link_stats; /* what finish links events by */

    pv_stat *stats;          /* stats of events, in event order */
    size_t n_stats, cap_stats;
    pv__owned_stat *late;    /* event stats added after a later event */
    size_t n_late, cap_late;
    pv__owned_stat *meta_stats;
    size_t n_meta_stats, cap_meta_stats;
    pv__owned_stat *plane_stats;
    size_t n_plane_stats, cap_plane_stats;

    pv_arena blob_arena;     /* bytes_value payloads */
    pv_blob *blobs;
    size_t n_blobs, cap_blobs;

    uint32_t *hostnames, *errors, *warnings;
    size_t n_hostnames, cap_hostnames, n_errors, cap_errors, n_warnings, cap_warnings;
};

/* Owned storage of a finished model (model->priv), beside its columns
 * (columns.h says how those are freed). */
typedef struct pv__model_store {
    pv__strtab strs;
    pv_arena blob_arena;
    void *arrays[16];        /* malloc'd tables beside the columns, freed together */
    size_t n_arrays;
    void *map;               /* a loaded model file's mapping, or NULL */
    size_t map_len;
    bool borrowed;           /* loaded from bytes its caller keeps (the
                                columns lie there, not in the model) */
    const uint8_t *src;      /* the source file's bytes (model->src) */
    size_t src_len;
    pv_source_owner src_owner;
    /* stat metadata id -> string id + 1 (0 = unknown) for ids below
     * dense_n[plane], at dense + dense_first[plane]: producers number
     * stat metadata 1, 2, 3, ..., so reading stats needs no search */
    uint32_t *dense;
    uint32_t *dense_first, *dense_n;
    uint8_t *wk;             /* string id -> well-known stat (extras.c) */
    size_t n_wk;
    struct pv__hlo_slot *hlo; /* the lazily decoded HLO table (hlo_table.c); NULL none */
    struct pv__memos *_Atomic memos; /* memo.c's table; NULL until the first memo */
    _Atomic uint64_t src_reads;  /* events' stats read from the source (event_stats.c) */
} pv__model_store;

/* Releases a model's HLO slot (hlo_table.c). NULL is fine. */
void pv__hlo_slot_free(struct pv__hlo_slot *h);
/* Bytes the HLO table holds once decoded, 0 before (hlo_table.c). NULL is fine. */
size_t pv__hlo_bytes(const struct pv__hlo_slot *h);
/* Releases a model's memos (memo.c). NULL is fine. */
void pv__memos_free(struct pv__memos *t);
/* Takes the pages of a mapped source out of the process's resident
 * memory (storage.c; model.h, pv_model_release_pages). */
void pv__release_source(const pv__model_store *s);

/* Records a malloc'd table that is no column (a column's storage is the
 * model's already) so pv_model_free releases it (storage.c). */
void pv__store_keep(pv__model_store *s, void *p);

/* Builds the store's table of well-known stat names (finish and load;
 * pv_model_event_memory reads it). */
void pv__wk_index(pv__model_store *s);

/* Builds the store's dense stat-name tables from m->stat_names (finish
 * and load call it; they are not saved). */
void pv__stat_names_index(const pv_model *m, pv__model_store *s);

/* pv_model_event_own_stats for an event of plane `plane` known to the
 * caller, without arming a SIGBUS guard: for a caller that holds one
 * over the source already (finish runs under the decoder's). Sets *bad
 * (may be NULL) when a stat in the file does not parse. */
size_t pv__event_own_stats(const pv_model *m, uint32_t plane, uint64_t ev, pv_stat *out,
                           size_t cap, bool *bad);

/* ---- well-known stat values (details_parse.c) --------------------------- */

/* kernel_details: space-separated key:value pairs into k (fields not
 * named keep their values). */
void pv__parse_kernel_details(const char *s, pv_kernel_details *k);
/* memcpy_details: sets x->memcpy_bytes and, unless the name already gave
 * one, x->memcpy_kind. */
void pv__parse_memcpy_details(const char *s, pv_event_extra *x);
/* The memcpy kind an event name says (MemcpyH2D, MEMCPYHToD, ...), or
 * PV_MEMCPY_NONE. */
uint32_t pv__memcpy_kind_of_name(const char *name);

/* ---- launch links (launch.c) ---------------------------------------------- */

/* Makes m's launches from the stats that link its events and m's roles
 * (builder.h says the rules), as its column. Reads the events' own stats
 * (their names indexed: pv__stat_names_index), with no SIGBUS guard of
 * its own: finish runs under the decoder's. Cannot fail. */
void pv__launches_build(pv_model *m, const pv__link_stats *links);

/* ---- finish steps (finish.c, extras.c, group.c, depths.c) --------------- */

/* Applies the well-known stats of builder event ev, whose XEvent bytes
 * are [p, end) in b->src, or the n of them pv_builder_wire_read read
 * there already (st NULL: read them now); false when a stat there does
 * not parse. The results wait in b->ev_group and b->ev_extra for finish. */
bool pv__extras_wire_event(pv_model_builder *b, uint64_t ev, const uint8_t *p,
                           const uint8_t *end, const pv_wire_stat *st, size_t n);
/* The builder calls these when a plane's stat names or a metadata's stats
 * change: results applied with the old ones no longer hold, and finish
 * applies every event again. x may be NULL. */
void pv__extras_changed_plane(pv__extras *x, uint32_t plane);
void pv__extras_changed_meta(pv__extras *x, uint32_t meta);
void pv__extras_changed_all(pv__extras *x);
void pv__extras_free(pv__extras *x);
/* Finish reorders events: perm[new id] = builder id (n events). Renumbers
 * what x holds by event id. x may be NULL. */
void pv__extras_renumber(pv__extras *x, const uint64_t *perm, size_t n);

/* Fills ev_extra/extras, ev_group and has_group_stats from well-known
 * stats: takes over x (may be NULL) and finishes m's ev_group and
 * ev_extra as the builder filled them while events were added (taken
 * over in model order; NULL when none; events marked PV__EXTRA_PENDING,
 * or all when x went stale, are done here). Hands the producer/consumer
 * context keys of every event to *contexts (empty when some event has a
 * group_id: grouping does not need them). Returns 0 or a negative PV_E*
 * code. */
int pv__extras_build(pv_model *m, pv__model_store *s, pv__extras *x, pv__keys *contexts,
                     pv_error *err);

/* Step grouping (FORMATS.md §3.7) when no event carries a group_id
 * (have_groups false): assigns ev_group and fills groups from the
 * model and the context keys (consumed); otherwise the groups table
 * comes from the file's ids. */
int pv__group_build(pv_model *m, pv__model_store *s, bool have_groups, pv__keys *contexts,
                    pv_error *err);

/* The nesting depths of m's events and each track's per-depth index
 * (depths.c), worked out from m's final tracks and events: started on a
 * thread of their own when that pays, while the caller goes on with what
 * reads neither (the grouping); pv__depths_end then works on them on the
 * caller's thread too, waits for them, puts them in m (kept by s) and
 * frees d. Returns 0, or PV_ETOOBIG with err (may be NULL) set when a
 * line nests deeper than PV_MAX_DEPTH. */
typedef struct pv__depths pv__depths;
pv__depths *pv__depths_start(const pv_model *m);
int pv__depths_end(pv__depths *d, pv_model *m, pv__model_store *s, pv_error *err);

/* The end of event e (start + duration, saturated: hostile durations
 * must not wrap into the past). */
static inline int64_t pv__event_end_ps(const pv_model *m, uint64_t e)
{
    int64_t s = m->ev_start_ps[e], d = m->ev_dur_ps[e];
    return d > 0 && s > INT64_MAX - d ? INT64_MAX : s + (d > 0 ? d : 0);
}

#endif
