/* xspace_sniff: whether a file is an XSpace, from its first bytes, and the
 * format's entry in the table of ingest/formats.h. */
#include "ingest/xspace/xspace.h"

/* Reads a varint at p (< end); returns bytes used, 0 when malformed. */
static size_t sniff_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (size_t i = 0; i < 10 && p + i < end; i++) {
        *v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if ((p[i] & 0x80) == 0)
            return i + 1;
    }
    return 0;
}

/* An XSpace starts with a length-delimited field 1..4 (planes, errors,
 * warnings, hostnames) whose length fits the file; a plane's first field
 * must itself be a plausible XPlane field. */
bool pv_xspace_sniff(const uint8_t *data, size_t len)
{
    const uint8_t *p = data, *end = data + len;
    uint64_t tag, n;
    size_t k = sniff_varint(p, end, &tag);
    if (k == 0 || (tag & 7) != 2 || (tag >> 3) < 1 || (tag >> 3) > 4)
        return false;
    p += k;
    k = sniff_varint(p, end, &n);
    if (k == 0)
        return false;
    p += k;
    if ((tag >> 3) != 1 || n == 0 || p >= end)
        return true;
    k = sniff_varint(p, end, &tag);
    if (k == 0)
        return false;
    uint64_t field = tag >> 3, wt = tag & 7;
    return (field == 1 && wt == 0) || (field >= 2 && field <= 6 && wt == 2);
}

const pv_format pv_format_xspace = {
    .name = "XSpace",
    .suffix = "xplane.pb",
    .role = PV_FORMAT_PROFILE,
    .max_bytes = PV_INGEST_MAX_FILE_BYTES,
    .sniff = pv_xspace_sniff,
    .decode = pv_decode_xspace,
    .probe = pv_xspace_probe,
};
