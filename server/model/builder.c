/* builder: collecting planes, tracks, metadata, events and stats into
 * growable columns. Sorting, nesting and the rest happen in finish.c. */
#include "model/model_priv.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

/* ---- lifetime ----------------------------------------------------------- */

#define FREE_COLUMN(field, type, count, from, flags) PV__IF_##from(free(b->field);)

static void builder_init(pv_model_builder *b)
{
    pv__strtab_init(&b->strs);
    pv_arena_init(&b->blob_arena, 256 * 1024);
}

pv_model_builder *pv_builder_new(void)
{
    pv_model_builder *b = pv_xcalloc(1, sizeof *b);
    builder_init(b);
    return b;
}

/* Frees all b holds but itself and its source. */
static void builder_fini(pv_model_builder *b)
{
    pv__strtab_fini(&b->strs);
    pv_arena_fini(&b->blob_arena);
    for (size_t i = 0; i < b->n_planes; i++)
        pv__idmap_fini(&b->meta_ids[i]);
    free(b->meta_ids);
    PV__MODEL_COLUMNS(FREE_COLUMN)
    free(b->child_refs);
    free(b->roles);
    free(b->ev_stat_first);
    pv__extras_free(b->extras);
    free(b->stat_names);
    free(b->runs);
    free(b->late);
    free(b->meta_stats);
    free(b->plane_stats);
}

void pv_builder_free(pv_model_builder *b)
{
    if (b == NULL)
        return;
    builder_fini(b);
    pv__source_release(b->src, b->src_len, b->src_owner);
    free(b);
}

void pv_builder_clear(pv_model_builder *b)
{
    const uint8_t *src = b->src;
    size_t len = b->src_len;
    pv_source_owner owner = b->src_owner;
    builder_fini(b);
    memset(b, 0, sizeof *b);
    builder_init(b);
    pv_builder_source(b, src, len, owner);
}

uint64_t pv_builder_n_events(const pv_model_builder *b)
{
    return b->n_events;
}

uint64_t pv_builder_mem_bound(const pv_model_builder *b)
{
    /* per event: the model's columns, the depth index, at worst one
     * extra row and, with roles, one launch row */
    uint64_t per_event = PV__MODEL_EVENT_BYTES + sizeof(uint32_t) + sizeof(pv_event_extra) +
                         (b->roles != NULL ? sizeof(pv_launch) : 0);
    return b->n_events * per_event + (b->n_stats + b->n_late) * sizeof(pv_stat) +
           b->strs.arena.total_bytes + b->blob_arena.total_bytes;
}

/* ---- strings ------------------------------------------------------------ */

uint32_t pv_builder_intern(pv_model_builder *b, const char *s, size_t len)
{
    return pv__strtab_intern(&b->strs, s, len);
}

uint32_t pv_builder_intern_cstr(pv_model_builder *b, const char *s)
{
    if (s == NULL)
        return 0;
    return pv__strtab_intern(&b->strs, s, strlen(s));
}

const char *pv_builder_str(const pv_model_builder *b, uint32_t id)
{
    return id < b->strs.n ? b->strs.strs[id] : "";
}

/* ---- planes ------------------------------------------------------------- */

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Device ordinal of "<prefix>N" when the rest is all digits, else -1. */
static int32_t ordinal_after(const char *s, const char *prefix)
{
    const char *p = s + strlen(prefix);
    if (*p == '\0')
        return -1;
    int64_t v = 0;
    for (; *p != '\0'; p++) {
        if (*p < '0' || *p > '9' || v > 1000000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return (int32_t)v;
}

static void plane_classify(pv_plane *p, const char *name)
{
    p->device_ordinal = -1;
    if (strcmp(name, "/host:CPU") == 0) {
        p->kind = PV_PLANE_HOST;
    } else if (strcmp(name, "/host:metadata") == 0) {
        p->kind = PV_PLANE_METADATA;
    } else if (starts_with(name, "/device:GPU:")) {
        p->kind = PV_PLANE_GPU;
        p->device_ordinal = ordinal_after(name, "/device:GPU:");
    } else if (starts_with(name, "/device:TPU:")) {
        /* SparseCore planes ("/device:TPU:0 SparseCore 1") are not cores. */
        p->device_ordinal = ordinal_after(name, "/device:TPU:");
        p->kind = p->device_ordinal >= 0 ? PV_PLANE_TPU : PV_PLANE_OTHER;
    } else if (starts_with(name, "/device:CUSTOM:")) {
        p->kind = PV_PLANE_CUSTOM;
    } else {
        p->kind = PV_PLANE_OTHER;
    }
}

uint32_t pv_builder_plane_sid(pv_model_builder *b, int64_t id, uint32_t name)
{
    pv_plane p;
    memset(&p, 0, sizeof p);
    p.id = id;
    p.name = name;
    plane_classify(&p, b->strs.strs[name]);
    size_t cap = b->cap_planes;
    PV__PUSH(b->planes, b->n_planes, b->cap_planes, p);
    if (cap != b->cap_planes) {
        b->meta_ids = pv_xrealloc(b->meta_ids, b->cap_planes * sizeof *b->meta_ids);
        memset(b->meta_ids + cap, 0, (b->cap_planes - cap) * sizeof *b->meta_ids);
    }
    return (uint32_t)(b->n_planes - 1);
}

void pv_builder_plane_rename(pv_model_builder *b, uint32_t plane, uint32_t name)
{
    b->planes[plane].name = name;
    plane_classify(&b->planes[plane], b->strs.strs[name]);
}

uint32_t pv_builder_plane(pv_model_builder *b, int64_t id, const char *name)
{
    return pv_builder_plane_sid(b, id, pv_builder_intern_cstr(b, name));
}

void pv_builder_plane_stat(pv_model_builder *b, uint32_t plane, pv_stat s)
{
    pv__owned_stat o = {plane, s};
    PV__PUSH(b->plane_stats, b->n_plane_stats, b->cap_plane_stats, o);
}

/* ---- tracks ------------------------------------------------------------- */

#define DERIVED_LINE_FIRST 0xdeadbeefll
#define DERIVED_LINE_LAST (0xdeadbeefll + 289)

static uint32_t track_classify(const char *name, int64_t line_id)
{
    static const struct {
        const char *name;
        uint32_t kind;
    } known[] = {
        {"Steps", PV_TRACK_STEPS},
        {"Launch Stats", PV_TRACK_LAUNCH_STATS},
        {"Framework Name Scope", PV_TRACK_FW_NAME_SCOPE},
        {"TensorFlow Name Scope", PV_TRACK_FW_NAME_SCOPE},
        {"Framework Ops", PV_TRACK_FW_OPS},
        {"TensorFlow Ops", PV_TRACK_FW_OPS},
        {"XLA Modules", PV_TRACK_XLA_MODULES},
        {"XLA Ops", PV_TRACK_XLA_OPS},
        {"_counters_", PV_TRACK_COUNTERS},
        {"Source code", PV_TRACK_DERIVED_OTHER},
        {"Async XLA Ops", PV_TRACK_DERIVED_OTHER},
        {"Host Offload Ops", PV_TRACK_DERIVED_OTHER},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(name, known[i].name) == 0)
            return known[i].kind;
    }
    if (line_id >= DERIVED_LINE_FIRST && line_id <= DERIVED_LINE_LAST)
        return PV_TRACK_DERIVED_OTHER;
    return PV_TRACK_PLAIN;
}

uint32_t pv_builder_track_sid(pv_model_builder *b, uint32_t plane, int64_t line_id,
                              uint32_t name, int64_t timestamp_ns)
{
    pv_track t;
    memset(&t, 0, sizeof t);
    t.plane = plane;
    t.kind = track_classify(b->strs.strs[name], line_id);
    t.line_id = line_id;
    t.display_id = line_id;
    t.name = name;
    t.display_name = name;
    t.timestamp_ns = timestamp_ns;
    PV__PUSH(b->tracks, b->n_tracks, b->cap_tracks, t);
    return (uint32_t)(b->n_tracks - 1);
}

uint32_t pv_builder_track(pv_model_builder *b, uint32_t plane, int64_t line_id,
                          const char *name, int64_t timestamp_ns)
{
    return pv_builder_track_sid(b, plane, line_id, pv_builder_intern_cstr(b, name),
                                timestamp_ns);
}

void pv_builder_track_set(pv_model_builder *b, uint32_t track, int64_t display_id,
                          uint32_t display_name, int64_t duration_ps)
{
    pv_track *t = &b->tracks[track];
    t->display_id = display_id != 0 ? display_id : t->line_id;
    t->display_name = display_name != 0 ? display_name : t->name;
    t->duration_ps = duration_ps;
}

void pv_builder_track_kind(pv_model_builder *b, uint32_t track, uint32_t kind)
{
    b->tracks[track].kind = kind;
}

/* ---- metadata ----------------------------------------------------------- */

uint32_t pv_builder_meta_sid(pv_model_builder *b, uint32_t plane, int64_t meta_id,
                             uint32_t name, uint32_t display_name)
{
    pv_event_meta e;
    memset(&e, 0, sizeof e);
    e.id = meta_id;
    e.plane = plane;
    e.name = name;
    e.display_name = display_name;
    PV__PUSH(b->metas, b->n_metas, b->cap_metas, e);
    uint32_t idx = (uint32_t)(b->n_metas - 1);
    pv__idmap_put(&b->meta_ids[plane], (uint64_t)meta_id, idx);
    return idx;
}

uint32_t pv_builder_meta(pv_model_builder *b, uint32_t plane, int64_t meta_id,
                         const char *name, const char *display_name)
{
    return pv_builder_meta_sid(b, plane, meta_id, pv_builder_intern_cstr(b, name),
                               pv_builder_intern_cstr(b, display_name));
}

uint32_t pv_builder_meta_find(const pv_model_builder *b, uint32_t plane, int64_t meta_id)
{
    if (plane >= b->n_planes)
        return PV_NO_META;
    uint32_t v = pv__idmap_get(&b->meta_ids[plane], (uint64_t)meta_id);
    return v == UINT32_MAX ? PV_NO_META : v;
}

void pv_builder_meta_child(pv_model_builder *b, uint32_t meta, int64_t child_id)
{
    pv__child_ref r = {meta, child_id};
    PV__PUSH(b->child_refs, b->n_child_refs, b->cap_child_refs, r);
}

void pv_builder_meta_stat(pv_model_builder *b, uint32_t meta, pv_stat s)
{
    /* first_stat and n_stats say where meta's stats are while they come
     * in one run, as the decoder adds them (UINT32_MAX: they do not) */
    pv_event_meta *em = &b->metas[meta];
    if (em->n_stats == 0)
        em->first_stat = b->n_meta_stats;
    else if (em->n_stats != UINT32_MAX && em->first_stat + em->n_stats != b->n_meta_stats)
        em->n_stats = UINT32_MAX;
    if (em->n_stats != UINT32_MAX)
        em->n_stats++;
    pv__extras_changed_meta(b->extras, meta);
    pv__owned_stat o = {meta, s};
    PV__PUSH(b->meta_stats, b->n_meta_stats, b->cap_meta_stats, o);
}

void pv_builder_meta_role(pv_model_builder *b, uint32_t meta, unsigned roles)
{
    if (meta >= b->cap_roles) {
        size_t old = b->cap_roles;
        pv__grow((void **)&b->roles, &b->cap_roles, (size_t)meta + 1, sizeof *b->roles);
        memset(b->roles + old, 0, b->cap_roles - old);
    }
    b->roles[meta] = (uint8_t)roles;
}

static void link_names(pv_model_builder *b, const char *const *names)
{
    pv__link_stats *l = &b->link_stats;
    for (size_t i = 0; names != NULL && names[i] != NULL && i < PV_LINK_STATS; i++)
        l->names[l->n++] = pv_builder_intern_cstr(b, names[i]);
}

void pv_builder_link_stats(pv_model_builder *b, const char *const *launch,
                           const char *const *call)
{
    memset(&b->link_stats, 0, sizeof b->link_stats);
    link_names(b, launch);
    b->link_stats.n_launch = b->link_stats.n;
    link_names(b, call);
}

/* ---- events ------------------------------------------------------------- */

/* Gives every event column (columns.h; a lazy one once made) room for
 * cap events. */
#define GROW_EVENTS(field, type, count, from, flags)                                 \
    PV__IF_##from(if (PV__COL_PER_EVENT(count) &&                                   \
                      (b->field != NULL || !((flags) & PV__COL_LAZY)))               \
                      b->field = pv_xrealloc(b->field, cap * sizeof *b->field);)

static void events_capacity(pv_model_builder *b, size_t cap)
{
    PV__MODEL_COLUMNS(GROW_EVENTS)
    if (b->ev_stat_first != NULL)
        b->ev_stat_first = pv_xrealloc(b->ev_stat_first, cap * sizeof *b->ev_stat_first);
    b->cap_events = cap;
}

uint64_t pv_builder_reserve(pv_model_builder *b, uint64_t n)
{
    if (n > b->cap_events) {
        size_t grown = b->cap_events < 16 ? 16 : b->cap_events + b->cap_events / 2;
        events_capacity(b, n > grown ? (size_t)n : grown);
    }
    return b->cap_events;
}

#define EVENT_COLUMN(field, type, count, from, flags)                                \
    PV__IF_##from(if (PV__COL_PER_EVENT(count) && k < max)                           \
                      out[k] = (pv_prefault_col){(void *)b->field, sizeof(type)};    \
                  k += PV__COL_PER_EVENT(count) ? 1 : 0;)

size_t pv_builder_event_columns(const pv_model_builder *b, pv_prefault_col *out, size_t max)
{
    size_t k = 0;
    PV__MODEL_COLUMNS(EVENT_COLUMN)
    if (k < max)
        out[k] = (pv_prefault_col){b->ev_stat_first, sizeof *b->ev_stat_first};
    k++;
    return k < max ? k : max;
}

uint64_t pv_builder_event(pv_model_builder *b, uint32_t track, uint32_t meta,
                          int64_t start_ps, int64_t dur_ps)
{
    if (b->n_events == b->cap_events)
        pv_builder_reserve(b, b->n_events + 1);
    uint64_t ev = b->n_events++;
    b->ev_start_ps[ev] = start_ps;
    b->ev_dur_ps[ev] = dur_ps;
    b->ev_meta[ev] = meta;
    if (b->ev_stat_first != NULL)
        b->ev_stat_first[ev] = b->n_stats;
    if (b->ev_wire != NULL)
        b->ev_wire[ev] = 0;
    if (b->ev_extra != NULL)
        b->ev_extra[ev] = PV__EXTRA_PENDING;
    if (b->n_runs > 0 && b->runs[b->n_runs - 1].track == track) {
        b->runs[b->n_runs - 1].n++;
    } else {
        pv__run r = {track, ev, 1};
        PV__PUSH(b->runs, b->n_runs, b->cap_runs, r);
    }
    return ev;
}

/* The stat-offset column exists once some event has array stats (a
 * decoded XSpace never does); until then every event had none, so it
 * starts as zeros. */
static void need_stat_first(pv_model_builder *b)
{
    if (b->ev_stat_first == NULL)
        b->ev_stat_first = pv_xcalloc(b->cap_events ? b->cap_events : 1,
                                      sizeof *b->ev_stat_first);
}

bool pv_builder_event_wire(pv_model_builder *b, uint64_t offset, uint64_t len)
{
    return pv_builder_event_wire_read(b, offset, len, NULL, 0);
}

bool pv_builder_event_wire_read(pv_model_builder *b, uint64_t offset, uint64_t len,
                                const pv_wire_stat *st, size_t n)
{
    if (b->n_events == 0 || b->src == NULL || offset > b->src_len || len > b->src_len - offset)
        return false;
    if (b->ev_wire == NULL)
        b->ev_wire = pv_xcalloc(b->cap_events, sizeof *b->ev_wire);
    b->ev_wire[b->n_events - 1] = offset << PV__WIRE_LEN_BITS | len;
    return pv__extras_wire_event(b, b->n_events - 1, b->src + offset, b->src + offset + len, st,
                                 n);
}

/* A source's events, guessed from its size: real profiles spend 30 to 130
 * bytes an event, so room for len / 32 spares a small file's decode the
 * copies of growing its columns (a twentieth of it for an 800 KB TPU
 * profile). Large files' columns grow by remapping, without copies, so
 * the guess stops at a size that costs little address space. */
#define SOURCE_BYTES_PER_EVENT 32u
#define SOURCE_EVENTS_GUESS_MAX ((size_t)1 << 20)

void pv_builder_source(pv_model_builder *b, const uint8_t *data, size_t len,
                       pv_source_owner owner)
{
    pv__source_release(b->src, b->src_len, b->src_owner);
    b->src = data;
    b->src_len = len;
    b->src_owner = owner;
    size_t guess = len / SOURCE_BYTES_PER_EVENT;
    if (guess > SOURCE_EVENTS_GUESS_MAX)
        guess = SOURCE_EVENTS_GUESS_MAX;
    if (guess > b->cap_events)
        events_capacity(b, guess);
}

void pv_builder_plane_stat_name(pv_model_builder *b, uint32_t plane, int64_t id, uint32_t name)
{
    /* first_stat_name and n_stat_names say where the plane's names are
     * while they come in one run (UINT32_MAX: they do not) */
    if (plane < b->n_planes) {
        pv_plane *pl = &b->planes[plane];
        if (pl->n_stat_names == 0)
            pl->first_stat_name = (uint32_t)b->n_stat_names;
        else if (pl->n_stat_names != UINT32_MAX &&
                 (size_t)pl->first_stat_name + pl->n_stat_names != b->n_stat_names)
            pl->n_stat_names = UINT32_MAX;
        if (pl->n_stat_names != UINT32_MAX)
            pl->n_stat_names++;
        pv__extras_changed_plane(b->extras, plane);
    }
    pv__plane_stat_name sn = {plane, (uint32_t)b->n_stat_names, {id, name, 0}};
    PV__PUSH(b->stat_names, b->n_stat_names, b->cap_stat_names, sn);
}

void pv_builder_event_stat(pv_model_builder *b, uint64_t ev, pv_stat s)
{
    need_stat_first(b);
    if (ev + 1 == b->n_events) {
        PV__PUSH(b->stats, b->n_stats, b->cap_stats, s);
    } else {
        /* Keeping stats contiguous per event is what lets finish skip a
         * copy; an older event's stat waits aside until then. */
        pv__owned_stat o = {ev, s};
        PV__PUSH(b->late, b->n_late, b->cap_late, o);
    }
}

void pv_builder_event_stats(pv_model_builder *b, const pv_stat *s, size_t n)
{
    need_stat_first(b);
    pv__grow((void **)&b->stats, &b->cap_stats, b->n_stats + n, sizeof *b->stats);
    memcpy(b->stats + b->n_stats, s, n * sizeof *s);
    b->n_stats += n;
}

pv_stat *pv_builder_stats_reserve(pv_model_builder *b, size_t n)
{
    need_stat_first(b);
    pv__grow((void **)&b->stats, &b->cap_stats, b->n_stats + n, sizeof *b->stats);
    return b->stats + b->n_stats;
}

void pv_builder_stats_commit(pv_model_builder *b, size_t k)
{
    b->n_stats += k;
}

uint32_t pv_builder_blob(pv_model_builder *b, const uint8_t *data, size_t len)
{
    uint8_t *copy = pv_arena_alloc(&b->blob_arena, len ? len : 1);
    if (len > 0)
        memcpy(copy, data, len);
    pv_blob blob = {copy, len};
    PV__PUSH(b->blobs, b->n_blobs, b->cap_blobs, blob);
    return (uint32_t)(b->n_blobs - 1);
}

/* ---- stat shorthands ---------------------------------------------------- */

static pv_stat stat_i64(pv_model_builder *b, const char *name, int64_t v)
{
    pv_stat s = {pv_builder_intern_cstr(b, name), PV_STAT_I64, {.i64 = v}};
    return s;
}

static pv_stat stat_u64(pv_model_builder *b, const char *name, uint64_t v)
{
    pv_stat s = {pv_builder_intern_cstr(b, name), PV_STAT_U64, {.u64 = v}};
    return s;
}

static pv_stat stat_f64(pv_model_builder *b, const char *name, double v)
{
    pv_stat s = {pv_builder_intern_cstr(b, name), PV_STAT_F64, {.f64 = v}};
    return s;
}

static pv_stat stat_str(pv_model_builder *b, const char *name, const char *v)
{
    pv_stat s = {pv_builder_intern_cstr(b, name), PV_STAT_STR,
                 {.str = pv_builder_intern_cstr(b, v)}};
    return s;
}

void pv_builder_event_stat_i64(pv_model_builder *b, uint64_t ev, const char *name, int64_t v)
{
    pv_builder_event_stat(b, ev, stat_i64(b, name, v));
}

void pv_builder_event_stat_u64(pv_model_builder *b, uint64_t ev, const char *name, uint64_t v)
{
    pv_builder_event_stat(b, ev, stat_u64(b, name, v));
}

void pv_builder_event_stat_f64(pv_model_builder *b, uint64_t ev, const char *name, double v)
{
    pv_builder_event_stat(b, ev, stat_f64(b, name, v));
}

void pv_builder_event_stat_str(pv_model_builder *b, uint64_t ev, const char *name,
                               const char *v)
{
    pv_builder_event_stat(b, ev, stat_str(b, name, v));
}

void pv_builder_meta_stat_i64(pv_model_builder *b, uint32_t meta, const char *name, int64_t v)
{
    pv_builder_meta_stat(b, meta, stat_i64(b, name, v));
}

void pv_builder_meta_stat_u64(pv_model_builder *b, uint32_t meta, const char *name, uint64_t v)
{
    pv_builder_meta_stat(b, meta, stat_u64(b, name, v));
}

void pv_builder_meta_stat_f64(pv_model_builder *b, uint32_t meta, const char *name, double v)
{
    pv_builder_meta_stat(b, meta, stat_f64(b, name, v));
}

void pv_builder_meta_stat_str(pv_model_builder *b, uint32_t meta, const char *name,
                              const char *v)
{
    pv_builder_meta_stat(b, meta, stat_str(b, name, v));
}

void pv_builder_plane_stat_i64(pv_model_builder *b, uint32_t plane, const char *name,
                               int64_t v)
{
    pv_builder_plane_stat(b, plane, stat_i64(b, name, v));
}

void pv_builder_plane_stat_u64(pv_model_builder *b, uint32_t plane, const char *name,
                               uint64_t v)
{
    pv_builder_plane_stat(b, plane, stat_u64(b, name, v));
}

void pv_builder_plane_stat_f64(pv_model_builder *b, uint32_t plane, const char *name,
                               double v)
{
    pv_builder_plane_stat(b, plane, stat_f64(b, name, v));
}

void pv_builder_plane_stat_str(pv_model_builder *b, uint32_t plane, const char *name,
                               const char *v)
{
    pv_builder_plane_stat(b, plane, stat_str(b, name, v));
}

void pv_builder_plane_stat_bytes(pv_model_builder *b, uint32_t plane, const char *name,
                                 const uint8_t *data, size_t len)
{
    pv_stat s = {pv_builder_intern_cstr(b, name), PV_STAT_BYTES,
                 {.blob = pv_builder_blob(b, data, len)}};
    pv_builder_plane_stat(b, plane, s);
}

/* ---- XSpace-level strings ----------------------------------------------- */

void pv_builder_hostname(pv_model_builder *b, const char *s, size_t len)
{
    uint32_t id = pv_builder_intern(b, s, len);
    PV__PUSH(b->hostnames, b->n_hostnames, b->cap_hostnames, id);
}

void pv_builder_error(pv_model_builder *b, const char *s, size_t len)
{
    uint32_t id = pv_builder_intern(b, s, len);
    PV__PUSH(b->errors, b->n_errors, b->cap_errors, id);
}

void pv_builder_warning(pv_model_builder *b, const char *s, size_t len)
{
    uint32_t id = pv_builder_intern(b, s, len);
    PV__PUSH(b->warnings, b->n_warnings, b->cap_warnings, id);
}
