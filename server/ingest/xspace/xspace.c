/* xspace: the XSpace (<host>.xplane.pb) decoder, written by hand over the
 * read-only file bytes with the one wire reader, util/pbwire.h. No message
 * is unpacked into heap objects: fields go straight into the builder's
 * columns, so an event costs no malloc. This is the one format not read
 * with protoc-c's generated code: docs/ingest.md has the measurement.
 *
 * Fields read (proto/xplane.proto; unknown fields are skipped):
 *   XSpace          1 planes (msg)  2 errors  3 warnings  4 hostnames (str)
 *   XPlane          1 id  2 name  3 lines (msg)  4 event_metadata (map)
 *                   5 stat_metadata (map)  6 stats (msg)
 *   XLine           1 id  2 name  3 timestamp_ns  4 events (msg)
 *                   9 duration_ps  10 display_id  11 display_name
 *   XEvent          1 metadata_id  2 offset_ps  3 duration_ps  4 stats (msg)
 *                   5 num_occurrences (aggregate without a time: skipped)
 *   XStat           1 metadata_id  2 double (fixed64)  3 uint64  4 int64
 *                   5 str  6 bytes  7 ref_value (-> stat_metadata name)
 *   XEventMetadata  1 id  2 name  4 display_name  5 stats  6 child_id
 *                   (packed or not); 3 metadata bytes ignored
 *   XStatMetadata   1 id  2 name; 3 description ignored
 *   map entries     1 key  2 value
 *
 * Events' own stats are not kept: the model reads them from the file when
 * a tool asks (model.h). The common layout is only framed here; the
 * builder reads each event's stats once, as it is added, for the
 * well-known ones and refuses a stat that does not parse (the general
 * path below checks them itself). Metadata and plane stats are kept.
 *
 * A plane is read in three passes over its bytes, because serialized
 * field order puts lines (3) before the metadata (4, 5) they refer to:
 * pass 1 the id, name and stat metadata, pass 2 event metadata and plane
 * stats, pass 3 the lines. Skipping a length-delimited field is O(1), so
 * the extra passes touch only field headers. A line, though, is read in
 * one pass (decode_line): stepping over its events costs a read of every
 * byte of them (a tenth of the decode on one thread). */
#include "ingest/xspace/xs_dec.h"
#include "ingest/xspace/xspace.h"
#include "util/mem.h"
#include "util/pbwire.h"

#include <stdlib.h>
#include <string.h>

/* Caps on counts from the input; each keeps our 32-bit indices valid. */
#define MAX_EVENTS ((uint64_t)UINT32_MAX - 1)
#define MAX_PLANES 100000u
#define MAX_TRACKS 50000000u
#define PROGRESS_EVENTS 65536u  /* events between progress updates */
#define MODEL_BYTES_PER_FILE_BYTE 16u
#define MODEL_BYTES_SLACK ((uint64_t)64 << 20)
/* d->rc when the decode must start again with lines_whole (decode_line);
 * the PV_E* codes are negative. */
#define LINES_AGAIN 1

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return (a > 0) == (b > 0) ? INT64_MAX : INT64_MIN;
    return r;
}

/* ---- events and lines ------------------------------------------------------ */

static uint32_t meta_of(pv__xs_dec *d, int64_t id)
{
    uint32_t m = pv__idtab_get(&d->metas, id);
    if (m != PV_IDTAB_NONE)
        return m;
    /* An event whose metadata is missing keeps its id with an empty name
     * rather than failing the whole file. */
    m = pv_builder_meta_find(d->b, d->plane, id);
    return m != PV_NO_META ? m : pv_builder_meta_sid(d->b, d->plane, id, 0, 0);
}

/* ---- fast paths ------------------------------------------------------------- */

/* The fast path (pv__xs_event_scan, then scanned_event) decodes the
 * layout every producer writes (one-byte tags, known fields, well-formed
 * varints) in one pass. On anything else the caller reruns the general
 * decoder, which also produces the precise error. */

/* The largest XEvent whose place the model can record (model.h). */
#define MAX_EVENT_BYTES ((1u << 24) - 1)

/* Hands the builder the newest event's stats: from its first stats field
 * to the end of its message (the model skips other fields there). The
 * builder reads them now, unless s (may be NULL) has them read ahead
 * from the same bytes, and refuses one that does not parse. */
static bool event_wire(pv__xs_dec *d, const pv_pb_field *ef, const uint8_t *first_stat,
                       uint64_t meta_id, const pv__xs_scan *s)
{
    size_t len = (size_t)(ef->data + ef->v - first_stat);
    if (len > MAX_EVENT_BYTES)
        return PV__XS_FAIL(d, PV_ETOOBIG, ef->at, "an XEvent of %zu bytes (more than %u)",
                    (size_t)ef->v, MAX_EVENT_BYTES);
    bool ahead = s != NULL && s->n_stats >= 0;
    if (pv_builder_event_wire_read(d->b, (uint64_t)(first_stat - d->src->data), len,
                                   ahead ? s->stats : NULL, ahead ? (size_t)s->n_stats : 0))
        return true;
    return PV__XS_FAIL(d, PV_EFORMAT, first_stat,
                "corrupt: a stat of an XEvent (metadata id %llu) is not a well-formed XStat",
                (unsigned long long)meta_id);
}

/* Adds the event ef that pv__xs_event_scan read into s. False to ask for
 * the general decoder. */
static inline bool scanned_event(pv__xs_dec *d, uint32_t track, int64_t line_ps,
                                 const pv_pb_field *ef, const pv__xs_scan *s)
{
    if (s->aggregate)
        return true;  /* FORMATS.md §2.1: no start time, not on a timeline */
    if (d->n_events >= MAX_EVENTS || (size_t)ef->v > MAX_EVENT_BYTES)
        return false;
    d->n_events = 1 + pv_builder_event(d->b, track, meta_of(d, (int64_t)s->meta_id),
                                       sat_add(line_ps, (int64_t)s->offset_ps),
                                       (int64_t)s->duration_ps);
    return s->first_stat == NULL || event_wire(d, ef, s->first_stat, s->meta_id, s);
}

/* Every PROGRESS_EVENTS events: reports progress and checks the model's
 * worst-case size against the file's. Real profiles stay under 6x; tiny
 * hostile events (2 bytes each) could otherwise ask for 100x. */
static bool progress(pv__xs_dec *d, const pv_pb_field *ef)
{
    d->next_progress = d->n_events + PROGRESS_EVENTS;
    pv_ingest_done_upto(d->src, (size_t)(ef->data - d->src->data));
    uint64_t cap = (uint64_t)MODEL_BYTES_PER_FILE_BYTE * d->src->len + MODEL_BYTES_SLACK;
    if (pv_builder_mem_bound(d->b) > cap)
        return PV__XS_FAIL(d, PV_ETOOBIG, ef->at,
                    "the model would need more than %llu bytes (%ux the file): "
                    "too many tiny events", (unsigned long long)cap, MODEL_BYTES_PER_FILE_BYTE);
    return true;
}

/* Keeps the builder's columns room for the events the walker may fault
 * in ahead, so they never grow (and move) but here, under the prefault's
 * lock; also tells the walker of the columns made since last time. */
__attribute__((noinline, cold)) static void columns_room(pv__xs_dec *d)
{
    pv_prefault_col cols[PV_PREFAULT_COLS];
    pv_prefault_lock(&d->pf);
    uint64_t room = pv_builder_reserve(d->b, d->n_events + 2 * PV__XS_WALK_LEAD);
    size_t n = pv_builder_event_columns(d->b, cols, PV_PREFAULT_COLS);
    pv_prefault_set(&d->pf, cols, n, room);
    d->room_check = room - PV__XS_WALK_LEAD;
}

/* One XEvent: s is what pv__xs_event_scan read of it, or NULL when it
 * could not (the general path below reads it then). */
static bool decode_event(pv__xs_dec *d, uint32_t track, int64_t line_ps, const pv_pb_field *ef,
                         const pv__xs_scan *s)
{
    if (d->n_events >= d->room_check)
        columns_room(d);
    if (s != NULL && scanned_event(d, track, line_ps, ef, s)) {
        if (d->n_events >= d->next_progress)
            return progress(d, ef);
        return true;
    }
    pv__xs_rd r = {ef->data, ef->data + (size_t)ef->v};
    pv_pb_field f;
    uint64_t v[6] = {0};    /* by field number: metadata_id, offset_ps, duration_ps */
    bool aggregate = false, has_stats = false;
    while (pv__xs_next_field(d, &r, "XEvent", &f)) {
        if (f.num > 5)
            continue;
        if (!pv__xs_expect(d, &f, "XEvent", f.num == 4 ? 2 : 0))
            return false;
        v[f.num] = f.v;
        aggregate |= f.num == 5;
        has_stats |= f.num == 4;
    }
    if (d->rc != 0)
        return false;
    if (aggregate)
        return true;  /* FORMATS.md §2.1: no start time, not on a timeline */
    if (d->n_events >= MAX_EVENTS)
        return PV__XS_FAIL(d, PV_ETOOBIG, ef->at, "more than %llu events",
                    (unsigned long long)MAX_EVENTS);
    uint64_t ev = pv_builder_event(d->b, track, meta_of(d, (int64_t)v[1]),
                                   sat_add(line_ps, (int64_t)v[2]), (int64_t)v[3]);
    d->n_events = ev + 1;
    if (ev >= d->next_progress && !progress(d, ef))
        return false;
    if (!has_stats)
        return true;
    r.p = ef->data;
    const uint8_t *first_stat = NULL;
    while (pv__xs_next_field(d, &r, "XEvent", &f)) {
        if (f.num != 4)
            continue;
        if (first_stat == NULL)
            first_stat = f.at;
        pv_stat st;
        if (!pv__xs_stat(d, f.data, (size_t)f.v, false, &st))
            return false;
    }
    return d->rc == 0 && event_wire(d, ef, first_stat, v[1], NULL);
}

/* The next field of a line when it is an event: *f filled and r past it
 * (xs_scan.h). False, r untouched, for anything else, which the general
 * reader then takes (and reports if it is bad). */
static inline bool event_field(const pv__xs_dec *d, pv__xs_rd *r, pv_pb_field *f)
{
    return pv__xs_event_field(&r->p, r->end, d->src->data + d->src->len, f);
}

/* The decoder reads on alone: the walker stops, and the columns grow as
 * the builder wants again. */
static void walk_stop(pv__xs_dec *d)
{
    pv__xs_walk_free(d->walk);
    d->walk = NULL;
    d->room_check = UINT64_MAX;
}

/* Whether the walker's next item starts line lf; when not, the walker is
 * stopped, and the decoder reads on alone. */
static bool walked_line(pv__xs_dec *d, const pv_pb_field *lf)
{
    const pv__xs_item *it = pv__xs_walk_next(d->walk);
    if (it == NULL || it->kind != PV_XS_LINE || it->f.data != lf->data) {
        walk_stop(d);
        return false;
    }
    return true;
}

/* Line lf's own fields, the general reader's way (it says what is wrong
 * with them), into ln: up to its first event with upto_event, else all. */
static bool line_fields(pv__xs_dec *d, const pv_pb_field *lf, bool upto_event, pv__xs_line *ln)
{
    pv__xs_rd r = {lf->data, lf->data + (size_t)lf->v};
    pv_pb_field f;
    while (event_field(d, &r, &f) || pv__xs_next_field(d, &r, "XLine", &f)) {
        if (f.num == 4 && upto_event)
            break;
        if (!pv__xs_line_field(ln, &f))
            return pv__xs_expect(d, &f, "XLine", pv__xs_line_wire(f.num));
    }
    return d->rc == 0;
}

/* The events of the line the walker read ahead, up to where it stopped;
 * r is left there, for the general loop to read the rest. At the line's
 * end, ln gets the line's own fields it read on its way; when it stopped
 * inside the line, *decoded is where its events end, and the general
 * loop reads the line's own fields again from the line's start. */
static bool walked_events(pv__xs_dec *d, uint32_t track, int64_t line_ps, pv__xs_rd *r,
                          pv__xs_line *ln, const uint8_t **decoded)
{
    const pv__xs_item *it;
    const uint8_t *line_start = r->p;
    while ((it = pv__xs_walk_next(d->walk)) != NULL && it->kind == PV_XS_EVENT) {
        if (!decode_event(d, track, line_ps, &it->f, it->scanned ? &it->s : NULL))
            return false;
        r->p = it->f.data + it->f.v;
    }
    if (it != NULL && it->kind == PV_XS_END) {
        r->p = it->f.data;
        *ln = it->line;
    } else {
        walk_stop(d);
        *decoded = r->p;
        r->p = line_start;
        *ln = (pv__xs_line){0};
    }
    return true;
}

/* Interns the string field whose tag is at `at` (read whole once
 * already), or gives 0 for none. */
static uint32_t intern_at(pv__xs_dec *d, const uint8_t *at, const pv_pb_field *lf)
{
    if (at == NULL)
        return 0;
    pv_pb_field f;
    if (pv_pb_field_in(&at, lf->data + lf->v, d->src->data + d->src->len, &f) != PV_PB_OK)
        return 0;
    return pv__xs_intern(d, &f);
}

/* A line is read in one pass: the fields that place its events (id, name,
 * timestamp) come before them in the layout every producer writes, and
 * the rest (display id and name, duration) are given to its track after
 * them. A line with one of the first kind after an event is found only
 * at its end, with its events already added: the decode starts again
 * then, reading every line's own fields before its events (lines_whole). */
static bool decode_line(pv__xs_dec *d, const pv_pb_field *lf)
{
    pv__xs_line ln = {0};
    if (!line_fields(d, lf, !d->lines_whole, &ln))
        return false;
    if (++d->n_tracks > MAX_TRACKS)
        return PV__XS_FAIL(d, PV_ETOOBIG, lf->at, "more than %u lines", MAX_TRACKS);
    uint32_t track = pv_builder_track_sid(d->b, d->plane, ln.id, intern_at(d, ln.name, lf),
                                          ln.timestamp_ns);
    int64_t line_ps = sat_mul(ln.timestamp_ns, 1000);
    pv__xs_rd r = {lf->data, lf->data + (size_t)lf->v};
    const uint8_t *decoded = lf->data;   /* the events before were added */
    if (d->walk != NULL && walked_line(d, lf) &&
        !walked_events(d, track, line_ps, &r, &ln, &decoded))
        return false;
    const uint8_t *readable = d->src->data + d->src->len;
    pv_pb_field f;
    while (event_field(d, &r, &f) || pv__xs_next_field(d, &r, "XLine", &f)) {
        if (!pv__xs_line_field(&ln, &f))
            return pv__xs_expect(d, &f, "XLine", pv__xs_line_wire(f.num));
        pv__xs_scan s;
        if (f.num == 4 && f.data >= decoded &&
            !decode_event(d, track, line_ps, &f, pv__xs_event_scan(&f, readable, &s) ? &s : NULL))
            return false;
    }
    if (d->rc != 0)
        return false;
    if (ln.late && !d->lines_whole) {
        d->rc = LINES_AGAIN;
        return false;
    }
    pv_builder_track_set(d->b, track, ln.display_id, intern_at(d, ln.display, lf),
                         ln.duration_ps);
    return true;
}

/* ---- planes and the space -------------------------------------------------- */

/* Pass 1 remembers where fields 3, 4 and 6 start (8 bytes per field, so
 * a hostile plane cannot make this list outgrow the file by much), and
 * passes 2 and 3 read just those fields again. */
static void remember(pv__xs_dec *d, const uint8_t *at)
{
    if (d->n_later == d->cap_later) {
        d->cap_later = d->cap_later < 64 ? 64 : d->cap_later * 2;
        d->later = pv_xrealloc(d->later, d->cap_later * sizeof *d->later);
    }
    d->later[d->n_later++] = at;
}

static bool decode_plane(pv__xs_dec *d, const pv_pb_field *pf)
{
    pv__xs_rd r = {pf->data, pf->data + (size_t)pf->v};
    pv_pb_field f;
    int64_t id = 0;
    uint32_t name = 0;
    pv__idtab_reset(&d->stat_names);
    pv__idtab_reset(&d->metas);
    d->n_later = 0;
    while (pv__xs_next_field(d, &r, "XPlane", &f)) {
        if (f.num > 6)
            continue;
        if (!pv__xs_expect(d, &f, "XPlane", f.num == 1 ? 0 : 2))
            return false;
        if (f.num == 1)
            id = (int64_t)f.v;
        else if (f.num == 2)
            name = pv__xs_intern(d, &f);
        else if (f.num == 5 && !pv__xs_stat_meta(d, &f))
            return false;
        else if (f.num != 5)
            remember(d, f.at);
    }
    if (d->rc != 0)
        return false;
    pv__idtab_seal(&d->stat_names);
    d->plane = pv_builder_plane_sid(d->b, id, name);
    for (size_t i = 0; i < d->stat_names.n; i++)
        pv_builder_plane_stat_name(d->b, d->plane, d->stat_names.entries[i].id,
                                   d->stat_names.entries[i].val);

    for (size_t i = 0; i < d->n_later; i++) {
        r.p = d->later[i];
        if (!pv__xs_next_field(d, &r, "XPlane", &f))
            return false;
        if (f.num == 4 && !pv__xs_event_meta(d, &f))
            return false;
        if (f.num == 6) {
            pv_stat s;
            if (!pv__xs_stat(d, f.data, (size_t)f.v, true, &s))
                return false;
            pv_builder_plane_stat(d->b, d->plane, s);
        }
    }
    pv__idtab_seal(&d->metas);

    for (size_t i = 0; i < d->n_later; i++) {
        r.p = d->later[i];
        if (!pv__xs_next_field(d, &r, "XPlane", &f))
            return false;
        if (f.num != 3)
            continue;
        if (!decode_line(d, &f))
            return false;
        pv_ingest_done_upto(d->src, (size_t)(f.data + f.v - d->src->data));
    }
    return d->rc == 0;
}

/* Frees what a decode allocated: at its end, or when it is cut short
 * (pv_ingest_on_abort). */
static void dec_free(void *p)
{
    pv__xs_dec *d = p;
    pv__idtab_fini(&d->stat_names);
    pv__idtab_fini(&d->metas);
    pv__xs_walk_free(d->walk);
    pv_prefault_fini(&d->pf);
    free(d->later);
    free(d);
}

int pv_decode_xspace(const pv_ingest_src *src, pv_model_builder *b, pv_error *err)
{
    return pv_decode_xspace_threads(src, b, err, pv__xs_walk_worth(src->len) ? 2u : 1u);
}

static int decode_space(const pv_ingest_src *src, pv_model_builder *b, pv_error *err,
                        unsigned threads, bool lines_whole)
{
    /* On the heap, not the stack: a file that shrinks under its mapping
     * ends the decode with a jump, and this must still be freed. */
    pv__xs_dec *d = pv_xcalloc(1, sizeof *d);
    d->src = src;
    d->b = b;
    d->err = err;
    d->lines_whole = lines_whole;
    d->n_events = pv_builder_n_events(b);
    pv__idtab_init(&d->stat_names);
    pv__idtab_init(&d->metas);
    pv_prefault_init(&d->pf, d->n_events);
    pv_ingest_on_abort(dec_free, d);
    if (threads >= 2)
        d->walk = pv__xs_walk_start(src, &d->pf, d->n_events);
    d->room_check = d->walk != NULL ? d->n_events + 1 : UINT64_MAX;
    pv__xs_rd r = {src->data, src->data + src->len};
    pv_pb_field f;
    uint32_t n_planes = 0;
    while (pv__xs_next_field(d, &r, "XSpace", &f)) {
        if (f.num > 4 || !pv__xs_expect(d, &f, "XSpace", 2))
            continue;
        if (f.num == 1) {
            if (++n_planes > MAX_PLANES)
                (void)PV__XS_FAIL(d, PV_ETOOBIG, f.at, "more than %u planes", MAX_PLANES);
            else
                decode_plane(d, &f);
        } else if (f.num == 2) {
            pv_builder_error(b, (const char *)f.data, (size_t)f.v);
        } else if (f.num == 3) {
            pv_builder_warning(b, (const char *)f.data, (size_t)f.v);
        } else {
            pv_builder_hostname(b, (const char *)f.data, (size_t)f.v);
        }
    }
    /* Other protobufs (the legacy per-tool .pb files) can pass the sniff
     * and parse as an XSpace of only unknown fields: without a plane the
     * bytes are not a profile. */
    if (d->rc == 0 && n_planes == 0)
        (void)PV__XS_FAIL(d, PV_EFORMAT, src->data,
                   "no XPlane in the file: a protobuf, but not an XSpace");
    pv_ingest_on_abort(NULL, NULL);
    int rc = d->rc;
    dec_free(d);
    return rc;
}

int pv_decode_xspace_threads(const pv_ingest_src *src, pv_model_builder *b, pv_error *err,
                             unsigned threads)
{
    int rc = decode_space(src, b, err, threads, false);
    if (rc == LINES_AGAIN) {
        pv_builder_clear(b);
        rc = decode_space(src, b, err, threads, true);
    }
    return rc;
}
