/* builder: the one way to make a pv_model. Decoders (server/ingest/) and
 * unit tests of tools write through it; pv_builder_finish sorts, nests,
 * indexes, decodes well-known stats and groups steps, then hands back an
 * immutable model.
 *
 * Ownership: the builder owns everything added to it until finish, which
 * consumes it (success or failure). Strings passed in are copied.
 * Threads: one builder belongs to one thread.
 * Ids: planes, tracks and metas keep the index the builder returned
 * (tracks are regrouped by plane when they were added interleaved, so
 * rely on plane/track order only when added in order). Event handles are
 * builder-local: the model numbers events by track, then start, so read
 * a finished model's events through its tracks.
 * Bad input: the builder takes values as given; finish fails with
 * PV_ETOOBIG when nesting passes PV_MAX_DEPTH. Decoders cap counts before
 * they call in. Allocation failure aborts (pv_xmalloc). */
#ifndef PV_MODEL_BUILDER_H
#define PV_MODEL_BUILDER_H

#include "model/model.h"
#include "util/error.h"
#include "util/prefault.h"
#include "util/progress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_model_builder pv_model_builder;

#define PV_MAX_DEPTH 65535u   /* ev_depth is 16 bits */
#define PV_NO_META UINT32_MAX

/* ---- lifetime ----------------------------------------------------------- */

/* A new empty builder. Cannot fail (aborts when memory runs out). */
pv_model_builder *pv_builder_new(void);
/* Releases an unfinished builder. NULL is fine. */
void pv_builder_free(pv_model_builder *b);
/* Empties b as if new, keeping its source (pv_builder_source): for a
 * decoder that starts again another way. */
void pv_builder_clear(pv_model_builder *b);

/* Sorts, nests and indexes everything added, decodes well-known stats,
 * groups steps and returns the model in *out (free with pv_model_free).
 * Consumes b, also on failure. Returns 0, or PV_ETOOBIG (nesting deeper
 * than PV_MAX_DEPTH) with *out NULL. */
int pv_builder_finish(pv_model_builder *b, pv_model **out, pv_error *err);
#define PV_FINISH_PASSES 4
/* The same, counting on meter (may be NULL) as it goes: the finish's
 * passes over the events (ordering and stat layout, well-known stats,
 * nesting, step grouping), each counted as the events + 1 units. */
int pv_builder_finish_metered(pv_model_builder *b, pv_meter *meter, pv_model **out,
                              pv_error *err);

/* ---- strings ------------------------------------------------------------ */

/* The id of s[0..len) in the string table, interning it when new. */
uint32_t pv_builder_intern(pv_model_builder *b, const char *s, size_t len);
/* Convenience for NUL-terminated strings; NULL means "". */
uint32_t pv_builder_intern_cstr(pv_model_builder *b, const char *s);
/* The string with id (NUL-terminated), or "" for an id not interned.
 * Valid as long as the builder, then the model. */
const char *pv_builder_str(const pv_model_builder *b, uint32_t id);

/* ---- planes, tracks, metadata -------------------------------------------- */

/* Adds a plane; returns its index. The kind and device ordinal follow
 * from the name (FORMATS.md §3.1). */
uint32_t pv_builder_plane(pv_model_builder *b, int64_t id, const char *name);
uint32_t pv_builder_plane_sid(pv_model_builder *b, int64_t id, uint32_t name);
/* Gives plane another name (string id); its kind and device ordinal
 * follow the new one. For formats that name a process after its events
 * (Chrome JSON's metadata events come last). */
void pv_builder_plane_rename(pv_model_builder *b, uint32_t plane, uint32_t name);

/* Adds a track (an XLine) to plane; returns its index. display_id is the
 * line id and display_name the name until set otherwise. */
uint32_t pv_builder_track(pv_model_builder *b, uint32_t plane, int64_t line_id,
                          const char *name, int64_t timestamp_ns);
uint32_t pv_builder_track_sid(pv_model_builder *b, uint32_t plane, int64_t line_id,
                              uint32_t name, int64_t timestamp_ns);
/* Sets the optional XLine fields; display_id 0 and display_name 0 mean
 * "as line id / name". */
void pv_builder_track_set(pv_model_builder *b, uint32_t track, int64_t display_id,
                          uint32_t display_name, int64_t duration_ps);
/* Gives track the kind (pv_track_kind) its name and line id do not tell:
 * for lines a tool derives under names of its own ("XLA Ops - from #16"). */
void pv_builder_track_kind(pv_model_builder *b, uint32_t track, uint32_t kind);

/* Adds event metadata of plane with the file's metadata id; returns its
 * index. display_name may be NULL. A second call with the same (plane,
 * meta_id) adds a new meta that later lookups find instead. */
uint32_t pv_builder_meta(pv_model_builder *b, uint32_t plane, int64_t meta_id,
                         const char *name, const char *display_name);
uint32_t pv_builder_meta_sid(pv_model_builder *b, uint32_t plane, int64_t meta_id,
                             uint32_t name, uint32_t display_name);
/* The meta index of (plane, meta_id), or PV_NO_META. */
uint32_t pv_builder_meta_find(const pv_model_builder *b, uint32_t plane, int64_t meta_id);
/* Records child_id (a metadata id of the same plane) as a child of meta;
 * resolved at finish, unknown ids are dropped. */
void pv_builder_meta_child(pv_model_builder *b, uint32_t meta, int64_t child_id);

/* ---- events ----------------------------------------------------------- */

/* Adds an event to track with metadata meta (of the track's plane), an
 * absolute start and a duration in picoseconds; returns its builder
 * handle for adding stats. Events may come in any order. */
uint64_t pv_builder_event(pv_model_builder *b, uint32_t track, uint32_t meta,
                          int64_t start_ps, int64_t dur_ps);

/* ---- stats -------------------------------------------------------------- */

/* Who releases a source handed to pv_builder_source. */
typedef enum pv_source_owner {
    PV_SRC_NONE,      /* not owned: the caller keeps it alive longer than the model */
    PV_SRC_MAPPED,    /* a mapping: munmap */
    PV_SRC_MALLOC,    /* a malloc'd copy: free */
    PV_SRC_MAPPED_BORROWED /* a file mapping the caller releases (its pages
                              may be dropped and read again) */
} pv_source_owner;

/* Gives the builder (then the model) the bytes events' stats are read
 * from later (pv_model_event_own_stats). The builder owns them per
 * owner from here on, also when it is freed unfinished. */
void pv_builder_source(pv_model_builder *b, const uint8_t *data, size_t len,
                       pv_source_owner owner);
/* Makes a finished model the owner of the source it was built with (a
 * decoder that keeps the bytes until the model exists hands them over
 * only once nothing can fail). A malloc'd source counts in the model's
 * mem_bytes from then on. */
void pv_model_own_source(pv_model *m, pv_source_owner owner);
/* The newest event's own stats are the XEvent message at
 * source[offset .. offset + len) (len < 2^24, offset < 2^40). Their
 * well-known values are applied now, while the bytes are in cache, with
 * the plane's stat names and the metadata's stats as added so far: add
 * those first (a later change costs finish a second read of every
 * event). False when the place is outside the source or a stat there
 * does not parse. */
bool pv_builder_event_wire(pv_model_builder *b, uint64_t offset, uint64_t len);

/* One stat of an event's bytes as pv_builder_wire_read reads it, in 16
 * bytes (a reader on another thread hands many over): the metadata id
 * unresolved; a ref_value is PV_STAT_STR with the metadata id it names in
 * v and ref true. */
typedef struct pv_wire_stat {
    uint64_t v;       /* the value, as pv_stat's v.u64 */
    uint32_t mid;     /* the stat's metadata id */
    uint8_t type;     /* pv_stat_type */
    bool ref;
} pv_wire_stat;
/* Reads the stats of the XEvent bytes src[offset, offset + len) (src the
 * source the builder is given, of src_len bytes) into out, as
 * pv_builder_event_wire would: their count, or -1 when one does not parse,
 * there are more than cap, or a metadata id needs more than 32 bits.
 * Pure, for a thread that reads ahead. */
int pv_builder_wire_read(const uint8_t *src, size_t src_len, uint64_t offset, uint64_t len,
                         pv_wire_stat *out, size_t cap);
/* pv_builder_event_wire given the n stats pv_builder_wire_read read at
 * the same place (st NULL: it reads them). */
bool pv_builder_event_wire_read(pv_model_builder *b, uint64_t offset, uint64_t len,
                                const pv_wire_stat *st, size_t n);
/* Plane's XStatMetadata id names string name (later ids win). */
void pv_builder_plane_stat_name(pv_model_builder *b, uint32_t plane, int64_t id, uint32_t name);

/* Adds a stat to an event. Fastest when ev is the newest event. name is a
 * string id; for PV_STAT_STR v.str is a string id, for PV_STAT_BYTES
 * v.blob a pv_builder_blob index. */
void pv_builder_event_stat(pv_model_builder *b, uint64_t ev, pv_stat s);
/* Adds n stats to the newest event in one step. */
void pv_builder_event_stats(pv_model_builder *b, const pv_stat *s, size_t n);
/* The decoder's path, without a copy: reserve room for up to n stats,
 * write them, add the event, then commit the first k of them to it.
 * The pointer is valid until the next builder call other than intern,
 * blob, meta lookups and pv_builder_event. */
pv_stat *pv_builder_stats_reserve(pv_model_builder *b, size_t n);
void pv_builder_stats_commit(pv_model_builder *b, size_t k);
void pv_builder_meta_stat(pv_model_builder *b, uint32_t meta, pv_stat s);
void pv_builder_plane_stat(pv_model_builder *b, uint32_t plane, pv_stat s);

/* Copies data[0..len) into the model; returns its blob index. */
uint32_t pv_builder_blob(pv_model_builder *b, const uint8_t *data, size_t len);

/* Shorthands with a NUL-terminated stat name, for tests and small code. */
void pv_builder_event_stat_i64(pv_model_builder *b, uint64_t ev, const char *name, int64_t v);
void pv_builder_event_stat_u64(pv_model_builder *b, uint64_t ev, const char *name, uint64_t v);
void pv_builder_event_stat_f64(pv_model_builder *b, uint64_t ev, const char *name, double v);
void pv_builder_event_stat_str(pv_model_builder *b, uint64_t ev, const char *name,
                               const char *v);
void pv_builder_meta_stat_i64(pv_model_builder *b, uint32_t meta, const char *name, int64_t v);
void pv_builder_meta_stat_u64(pv_model_builder *b, uint32_t meta, const char *name, uint64_t v);
void pv_builder_meta_stat_f64(pv_model_builder *b, uint32_t meta, const char *name, double v);
void pv_builder_meta_stat_str(pv_model_builder *b, uint32_t meta, const char *name,
                              const char *v);
void pv_builder_plane_stat_i64(pv_model_builder *b, uint32_t plane, const char *name,
                               int64_t v);
void pv_builder_plane_stat_u64(pv_model_builder *b, uint32_t plane, const char *name,
                               uint64_t v);
void pv_builder_plane_stat_f64(pv_model_builder *b, uint32_t plane, const char *name,
                               double v);
void pv_builder_plane_stat_str(pv_model_builder *b, uint32_t plane, const char *name,
                               const char *v);
void pv_builder_plane_stat_bytes(pv_model_builder *b, uint32_t plane, const char *name,
                                 const uint8_t *data, size_t len);

/* ---- roles and launch links ---------------------------------------------- */

/* Gives metadata meta its roles byte (model.h: a pv_event_role and
 * PV_ROLE_* facts); metadata never given one has none. */
void pv_builder_meta_role(pv_model_builder *b, uint32_t meta, unsigned roles);
/* Names the stats that link events (model.h's launches), NULL-terminated
 * lists of at most PV_LINK_STATS names each. An event's launch key is its
 * whole-number stat of the first name of `launch` that it has as one (its
 * own stats, then its metadata's, as pv_model_event_stat_int reads them;
 * 0 is none): the same on a host event and on what it launched
 * (PyTorch's External id). Its call key, of `call`, is the same on a
 * runtime call and the device work it launched (CUDA's correlation id).
 * Finish links by the events' roles: an event whose role does not launch
 * to the launching host event of its launch key, a device activity to
 * the runtime call of its call key; of several events of one key the
 * first in model order. Without roles, or without a call, nothing is
 * linked. */
#define PV_LINK_STATS 4
void pv_builder_link_stats(pv_model_builder *b, const char *const *launch,
                           const char *const *call);

/* ---- XSpace-level strings --------------------------------------------- */

void pv_builder_hostname(pv_model_builder *b, const char *s, size_t len);
void pv_builder_error(pv_model_builder *b, const char *s, size_t len);
void pv_builder_warning(pv_model_builder *b, const char *s, size_t len);

/* ---- room for events ---------------------------------------------------- */

/* Gives every event column room for n events at least (growing by half
 * at a time); returns the room they have now. */
uint64_t pv_builder_reserve(pv_model_builder *b, uint64_t n);
/* Where each event column is now and its element's size (base NULL: one
 * not made yet), the same columns in the same order every time, for a
 * second thread that faults in the pages of the events a decoder is
 * going to add (util/prefault.h). Writes at most max; returns how many. */
size_t pv_builder_event_columns(const pv_model_builder *b, pv_prefault_col *out, size_t max);

/* ---- progress ----------------------------------------------------------- */

/* Events added so far; lets decoders cap a file's event count. */
uint64_t pv_builder_n_events(const pv_model_builder *b);
/* An upper bound on the bytes the finished model will hold (every event
 * counted with an extra row), so decoders can stop a hostile file before
 * it exhausts memory. Cannot fail. */
uint64_t pv_builder_mem_bound(const pv_model_builder *b);

#endif
