/* legacy_time: a time from a legacy file's double, in ps. Shared by the
 * converters of server/ingest/tf_legacy/ only. */
#ifndef PV_INGEST_TF_LEGACY_LEGACY_TIME_H
#define PV_INGEST_TF_LEGACY_LEGACY_TIME_H

#include <stdint.h>

/* v * ps_per_unit, saturated at max (UINT64_MAX or INT64_MAX, as the
 * result's type needs): the double may be anything (negative, NaN,
 * huge), and converting an out-of-range double to an integer is undefined
 * behaviour. Negative and NaN read as 0. */
static inline uint64_t pv__legacy_ps(double v, double ps_per_unit, uint64_t max)
{
    double ps = v * ps_per_unit;
    if (!(ps > 0))
        return 0;
    if (ps >= (double)max)   /* max rounds up to a power of two: still in range below */
        return max;
    return (uint64_t)ps;
}

#endif
