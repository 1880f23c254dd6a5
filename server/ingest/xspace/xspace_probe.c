/* xspace_probe: what an XSpace file holds that decides which tools
 * run_tools lists, read from the file's field headers only, without
 * loading the profile: XLA programs' HLO protos (a "Hlo Proto" stat on its
 * /host:metadata plane: memory_viewer, graph_viewer) and GPU planes (a
 * plane named /device:GPU:N: kernel_stats), as XProf lists those tools
 * exactly when it finds them.
 *
 * The top-level planes (field 1) are walked by their lengths; a plane's
 * name (field 2, written before its lines) says whether it is a GPU or
 * the metadata plane, and any other plane is left at once; in the
 * metadata plane the event metadata (field 4, the protos themselves) are
 * skipped by length and the stat metadata (field 5, small) are read for
 * the name "Hlo Proto". A few hundred small reads for a file of any size. */
#include "ingest/xspace/xspace.h"
#include "util/pbwire.h"

#include <string.h>
#include <unistd.h>

#define METADATA_PLANE "/host:metadata"
#define GPU_PLANE_PREFIX "/device:GPU:"
#define HLO_STAT "Hlo Proto"
/* Reads past this many fields give up (a file that is no XSpace). */
#define MAX_FIELDS 1000000

typedef struct reader {
    int fd;
    uint64_t size;
    size_t n_fields;
} reader;

/* A field header at *off below end: number, wire type, and for a
 * length-delimited field its length; *off moves past the header. */
static bool header(reader *r, uint64_t *off, uint64_t end, uint32_t *num, uint32_t *wt,
                   uint64_t *len)
{
    uint8_t buf[20];
    if (*off >= end || ++r->n_fields > MAX_FIELDS)
        return false;
    size_t want = end - *off < sizeof buf ? (size_t)(end - *off) : sizeof buf;
    ssize_t got = pread(r->fd, buf, want, (off_t)*off);
    if (got <= 0)
        return false;
    const uint8_t *p = buf, *e = buf + got;
    uint64_t tag;
    if (!pv_varint_read(&p, e, &tag))
        return false;
    *num = (uint32_t)(tag >> 3);
    *wt = (uint32_t)(tag & 7);
    *len = 0;
    if (*wt == 2 && !pv_varint_read(&p, e, len))
        return false;
    *off += (uint64_t)(p - buf);
    return true;
}

/* Moves *off past the value of a field of wire type wt (length len). */
static bool skip(reader *r, uint64_t *off, uint64_t end, uint32_t wt, uint64_t len)
{
    uint8_t b[10];
    switch (wt) {
    case 0: {
        ssize_t got = pread(r->fd, b, sizeof b, (off_t)*off);
        const uint8_t *p = b;
        uint64_t v;
        if (got <= 0 || !pv_varint_read(&p, b + got, &v))
            return false;
        *off += (uint64_t)(p - b);
        break;
    }
    case 1: *off += 8; break;
    case 2: *off += len; break;
    case 5: *off += 4; break;
    default: return false;
    }
    return *off <= end;
}

/* Whether the bytes [off, off + len) are exactly s. */
static bool text_is(reader *r, uint64_t off, uint64_t len, const char *s)
{
    char b[32];
    size_t n = strlen(s);
    return len == n && n < sizeof b && pread(r->fd, b, n, (off_t)off) == (ssize_t)n &&
           memcmp(b, s, n) == 0;
}

/* A stat_metadata map entry {key, XStatMetadata {id, name, ...}} names the
 * HLO stat. */
static bool entry_is_hlo(reader *r, uint64_t off, uint64_t end)
{
    uint32_t num, wt;
    uint64_t len;
    while (header(r, &off, end, &num, &wt, &len)) {
        if (num == 2 && wt == 2) {
            uint64_t e2 = off + len, o2 = off;
            while (header(r, &o2, e2, &num, &wt, &len)) {
                if (num == 2 && wt == 2)
                    return text_is(r, o2, len, HLO_STAT);
                if (!skip(r, &o2, e2, wt, len))
                    return false;
            }
            return false;
        }
        if (!skip(r, &off, end, wt, len))
            return false;
    }
    return false;
}

/* Whether the bytes [off, off + len) start with prefix. */
static bool text_starts(reader *r, uint64_t off, uint64_t len, const char *prefix)
{
    char b[32];
    size_t n = strlen(prefix);
    return len >= n && n < sizeof b && pread(r->fd, b, n, (off_t)off) == (ssize_t)n &&
           memcmp(b, prefix, n) == 0;
}

/* What one plane holds: a GPU plane is known by its name; the metadata
 * plane by its name and then a stat metadata naming the HLO stat. */
static unsigned plane_holds(reader *r, uint64_t off, uint64_t end)
{
    uint32_t num, wt;
    uint64_t len;
    bool metadata = false;
    while (header(r, &off, end, &num, &wt, &len)) {
        if (num == 2 && wt == 2) {
            if (text_starts(r, off, len, GPU_PLANE_PREFIX))
                return PV_PROFILE_GPU;
            if (!text_is(r, off, len, METADATA_PLANE))
                return 0;
            metadata = true;
        } else if (num == 5 && wt == 2 && metadata && entry_is_hlo(r, off, off + len)) {
            return PV_PROFILE_HLO;
        }
        if (!skip(r, &off, end, wt, len))
            return 0;
    }
    return 0;
}

unsigned pv_xspace_probe(int fd, uint64_t size)
{
    reader r = {fd, size, 0};
    uint64_t off = 0;
    uint32_t num, wt;
    uint64_t len;
    unsigned holds = 0;
    const unsigned all = PV_PROFILE_HLO | PV_PROFILE_GPU;
    while (holds != all && header(&r, &off, size, &num, &wt, &len)) {
        if (num == 1 && wt == 2 && off + len <= size)
            holds |= plane_holds(&r, off, off + len);
        if (!skip(&r, &off, size, wt, len))
            break;
    }
    return holds;
}
