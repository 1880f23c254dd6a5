/* xspace_sniff: whether a file is an XSpace, from its first bytes, and the
 * format's entry in the table of ingest/formats.h. */
#include "ingest/xspace/xspace.h"
#include "util/pbwire.h"

/* An XSpace starts with a length-delimited field 1..4 (planes, errors,
 * warnings, hostnames) whose length fits the file; a plane's first field
 * must itself be a plausible XPlane field. */
bool pv_xspace_sniff(const uint8_t *data, size_t len)
{
    const uint8_t *p = data, *end = data + len;
    uint64_t tag, n;
    if (!pv_varint_read(&p, end, &tag) || (tag & 7) != 2 || (tag >> 3) < 1 || (tag >> 3) > 4)
        return false;
    if (!pv_varint_read(&p, end, &n))
        return false;
    if ((tag >> 3) != 1 || n == 0 || p >= end)
        return true;
    if (!pv_varint_read(&p, end, &tag))
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
    .caps = PV_PROFILE_XLA_OPS,
};
