/* device_util: how busy each device was over the profile, bucket by bucket.
 *
 * A device is a GPU plane (its stream lines: kernels and memcpys, the
 * events the overview page's device ops count) or a TPU plane (its "XLA
 * Ops" line). Its busy time is the union of its top-level events over all
 * its lines, so two streams running at once count once and a device is
 * never more than 100 % busy. The window is the one the overview page's
 * device idle share uses: from the first device event's start to the last
 * one's end over every device, cut into n equal buckets.
 *
 * Idle gaps are the stretches of the window where a device ran nothing;
 * the ones of at least 1 % of the window are counted, the longest listed.
 *
 * Pure: no I/O, no clock, no globals; output in the caller's arena. */
#ifndef PV_TOOLS_DEVICE_UTIL_DEVICE_UTIL_H
#define PV_TOOLS_DEVICE_UTIL_DEVICE_UTIL_H

#include "model/model.h"
#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define PV_DEVICE_UTIL_BUCKETS 100      /* default bucket count */
#define PV_DEVICE_UTIL_MAX_BUCKETS 100000
#define PV_DEVICE_UTIL_GAPS 5           /* longest gaps listed per device */

typedef struct pv_device_util_query {
    uint32_t n_buckets;                 /* 1 .. PV_DEVICE_UTIL_MAX_BUCKETS */
} pv_device_util_query;

typedef struct pv_idle_gap {
    int64_t start_ps;                   /* from the window's start */
    int64_t dur_ps;
} pv_idle_gap;

typedef struct pv_device_util {
    uint32_t plane;                     /* index into model->planes */
    const char *name;                   /* the plane's name, e.g. "/device:GPU:0" */
    int64_t busy_ps;                    /* union of its events inside the window */
    double mean_percent;                /* busy_ps / window * 100 */
    double *busy_percent;               /* n_buckets shares, 0 .. 100 */
    size_t n_gaps;                      /* gaps of at least 1 % of the window */
    size_t n_longest;                   /* <= PV_DEVICE_UTIL_GAPS */
    pv_idle_gap longest[PV_DEVICE_UTIL_GAPS]; /* longest first */
} pv_device_util;

typedef struct pv_device_util_result {
    int64_t window_start_ps;            /* absolute, the model's clock */
    int64_t window_ps;                  /* 0 when no device ran anything */
    int64_t t0_ps;                      /* model->min_ps: time 0 of the trace viewer */
    uint32_t n_buckets;
    size_t n_devices;                   /* devices with at least one event */
    pv_device_util *devices;            /* in plane order */
    double mean_percent;                /* mean over the devices; 0 with none */
} pv_device_util_result;

/* Fills out from m. q may be NULL (PV_DEVICE_UTIL_BUCKETS buckets).
 * Returns 0; cannot fail on a sane model. */
int pv_tool_device_util(const pv_model *m, const pv_device_util_query *q, pv_arena *a,
                        pv_device_util_result *out, pv_error *err);

/* The start of bucket i (0 .. n_buckets) from the window's start, in ps. */
int64_t pv_device_util_edge_ps(const pv_device_util_result *r, uint32_t i);

/* {"t0_ps", "window_start_ps" (from t0), "window_ps", "bucket_ps",
 * "mean_percent", "devices": [{"name", "mean_percent", "busy_ps",
 * "busy_percent": [...], "idle_gaps", "longest_gaps": [{"start_ps",
 * "dur_ps"}]}]}. New reference; NULL only when out of memory. */
json_t *pv_device_util_to_json(const pv_device_util_result *r);

#endif
