/* device_util_json: the device_utilization answer (device_util.h). Shares
 * are written to four decimals: the curve is drawn, and a bucket's share
 * is not measured more finely than that. */
#include "tools/device_util/device_util.h"

#include <math.h>

static json_t *share(double percent)
{
    return json_real(round(percent * 1e4) / 1e4);
}

static json_t *device_json(const pv_device_util *d, uint32_t n_buckets)
{
    json_t *busy = json_array();
    for (uint32_t b = 0; b < n_buckets; b++)
        json_array_append_new(busy, share(d->busy_percent[b]));
    json_t *gaps = json_array();
    for (size_t i = 0; i < d->n_longest; i++)
        json_array_append_new(gaps, json_pack("{s:I, s:I}", "start_ps",
                                              (json_int_t)d->longest[i].start_ps, "dur_ps",
                                              (json_int_t)d->longest[i].dur_ps));
    return json_pack("{s:s, s:o, s:I, s:o, s:I, s:o}", "name", d->name, "mean_percent",
                     share(d->mean_percent), "busy_ps", (json_int_t)d->busy_ps, "busy_percent",
                     busy, "idle_gaps", (json_int_t)d->n_gaps, "longest_gaps", gaps);
}

json_t *pv_device_util_to_json(const pv_device_util_result *r)
{
    json_t *devices = json_array();
    for (size_t i = 0; i < r->n_devices; i++)
        json_array_append_new(devices, device_json(&r->devices[i], r->n_buckets));
    double bucket_ps = r->n_buckets > 0 ? (double)r->window_ps / r->n_buckets : 0;
    return json_pack("{s:I, s:I, s:I, s:f, s:o, s:o}", "t0_ps", (json_int_t)r->t0_ps,
                     "window_start_ps",
                     (json_int_t)(r->n_devices > 0 ? r->window_start_ps - r->t0_ps : 0),
                     "window_ps", (json_int_t)r->window_ps, "bucket_ps", bucket_ps,
                     "mean_percent", share(r->mean_percent), "devices", devices);
}
