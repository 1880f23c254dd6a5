/* xs_meta: an XPlane's stat and event metadata and the stats kept with
 * them (plane stats, metadata stats), for the XSpace decoder (xspace.c;
 * the fields read are listed there). */
#include "ingest/xspace/xs_dec.h"

#include <string.h>

/* ---- stats --------------------------------------------------------------- */

static uint32_t stat_name(const pv__xs_dec *d, uint64_t id)
{
    uint32_t s = pv__idtab_get(&d->stat_names, (int64_t)id);
    return s == PV_IDTAB_NONE ? 0 : s;
}

bool pv__xs_stat(pv__xs_dec *d, const uint8_t *data, size_t len, bool keep, pv_stat *out)
{
    pv__xs_rd r = {data, data + len};
    pv_pb_field f;
    uint64_t mid = 0;
    out->type = PV_STAT_I64;
    out->v.i64 = 0;
    while (pv__xs_next_field(d, &r, "XStat", &f)) {
        /* wire type each field must have; 8 = ignore the field */
        static const uint8_t want[8] = {8, 0, 1, 0, 0, 2, 2, 0};
        if (f.num >= 8 || want[f.num] == 8)
            continue;
        if (!pv__xs_expect(d, &f, "XStat", want[f.num]))
            return false;
        switch (f.num) {
        case 1: mid = f.v; break;
        case 2:
            out->type = PV_STAT_F64;
            memcpy(&out->v.f64, &f.v, sizeof out->v.f64);
            break;
        case 3: out->type = PV_STAT_U64; out->v.u64 = f.v; break;
        case 4: out->type = PV_STAT_I64; out->v.i64 = (int64_t)f.v; break;
        case 5: out->type = PV_STAT_STR; out->v.str = keep ? pv__xs_intern(d, &f) : 0; break;
        case 6:
            out->type = PV_STAT_BYTES;
            out->v.blob = keep ? pv_builder_blob(d->b, f.data, (size_t)f.v) : 0;
            break;
        default: out->type = PV_STAT_STR; out->v.str = stat_name(d, f.v); break;
        }
    }
    out->name = stat_name(d, mid);
    return d->rc == 0;
}

/* ---- metadata -------------------------------------------------------------- */

/* Splits a map entry into its key and value message. */
static bool map_entry(pv__xs_dec *d, const pv_pb_field *entry, const char *msg, uint64_t *key,
                      pv__xs_rd *value)
{
    /* the layout every producer writes: the key, then the value to the
     * entry's end */
    const uint8_t *q = entry->data, *end = entry->data + (size_t)entry->v;
    uint64_t k, len;
    if (q < end && *q++ == 0x08 && pv_varint_read(&q, end, &k) && q < end && *q++ == 0x12 &&
        pv_varint_read(&q, end, &len) && len == (uint64_t)(end - q)) {
        *key = k;
        value->p = q;
        value->end = end;
        return true;
    }
    pv__xs_rd r = {entry->data, entry->data + (size_t)entry->v};
    pv_pb_field f;
    *key = 0;
    value->p = value->end = r.p;
    while (pv__xs_next_field(d, &r, msg, &f)) {
        if (f.num != 1 && f.num != 2)
            continue;
        if (!pv__xs_expect(d, &f, msg, f.num == 1 ? 0 : 2))
            return false;
        if (f.num == 1) {
            *key = f.v;
        } else {
            value->p = f.data;
            value->end = f.data + (size_t)f.v;
        }
    }
    return d->rc == 0;
}

bool pv__xs_stat_meta(pv__xs_dec *d, const pv_pb_field *entry)
{
    uint64_t key;
    pv__xs_rd v;
    if (!map_entry(d, entry, "stat_metadata entry", &key, &v))
        return false;
    pv_pb_field f;
    uint32_t name = 0;
    while (pv__xs_next_field(d, &v, "XStatMetadata", &f)) {
        if (f.num != 2)
            continue;
        if (!pv__xs_expect(d, &f, "XStatMetadata", 2))
            return false;
        name = pv__xs_intern(d, &f);
    }
    pv__idtab_put(&d->stat_names, (int64_t)key, name);
    return d->rc == 0;
}

/* Adds the children of meta listed in an XEventMetadata child_id field. */
static bool decode_children(pv__xs_dec *d, uint32_t meta, const pv_pb_field *f)
{
    if (f->wt == 0) {
        pv_builder_meta_child(d->b, meta, (int64_t)f->v);
        return true;
    }
    if (!pv__xs_expect(d, f, "XEventMetadata", 2))
        return false;
    pv__xs_rd r = {f->data, f->data + (size_t)f->v};
    while (r.p < r.end) {
        uint64_t v;
        if (!pv__xs_rd_varint(d, &r, &v))
            return false;
        pv_builder_meta_child(d->b, meta, (int64_t)v);
    }
    return true;
}

bool pv__xs_event_meta(pv__xs_dec *d, const pv_pb_field *entry)
{
    uint64_t key;
    pv__xs_rd v;
    if (!map_entry(d, entry, "event_metadata entry", &key, &v))
        return false;
    const uint8_t *value = v.p;
    pv_pb_field f;
    uint64_t id = 0;
    uint32_t name = 0, display = 0;
    bool more = false;   /* stats or children, for a second pass */
    while (pv__xs_next_field(d, &v, "XEventMetadata", &f)) {
        more |= f.num == 5 || f.num == 6;
        if (f.num == 1) {
            if (!pv__xs_expect(d, &f, "XEventMetadata", 0))
                return false;
            id = f.v;
        } else if (f.num == 2 || f.num == 4) {
            if (!pv__xs_expect(d, &f, "XEventMetadata", 2))
                return false;
            if (f.num == 2)
                name = pv__xs_intern(d, &f);
            else
                display = pv__xs_intern(d, &f);
        }
    }
    if (d->rc != 0)
        return false;
    uint32_t meta = pv_builder_meta_sid(d->b, d->plane, (int64_t)(id != 0 ? id : key), name,
                                        display);
    pv__idtab_put(&d->metas, (int64_t)key, meta);
    v.p = value;
    while (more && pv__xs_next_field(d, &v, "XEventMetadata", &f)) {
        if (f.num == 5) {
            pv_stat s;
            if (!pv__xs_expect(d, &f, "XEventMetadata", 2) ||
                !pv__xs_stat(d, f.data, (size_t)f.v, true, &s))
                return false;
            pv_builder_meta_stat(d->b, meta, s);
        } else if (f.num == 6 && !decode_children(d, meta, &f)) {
            return false;
        }
    }
    return d->rc == 0;
}
