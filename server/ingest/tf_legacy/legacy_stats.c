/* legacy_stats: KernelStatsDb and TfStatsDatabase unpacked with the code
 * protoc-c generates from proto/kernel_stats.proto and proto/tf_stats.proto
 * (see legacy_stats.h for the fields), into the caller's arena under the
 * cap of pb_arena.h; the rows point at the unpacked strings. */
#include "ingest/tf_legacy/legacy_stats.h"

#include "ingest/pb_arena.h"
#include "ingest/tf_legacy/legacy_time.h"
#include "kernel_stats.pb-c.h"
#include "tf_stats.pb-c.h"

#include <string.h>

/* ---- kernel stats ----------------------------------------------------------- */

/* The first three values of a repeated dimension (x, y, z); 0 for missing. */
static void dims3(const uint32_t *v, size_t n, uint32_t out[3])
{
    for (size_t i = 0; i < 3; i++)
        out[i] = i < n ? v[i] : 0;
}

int pv_legacy_kernel_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                           pv_kernel_stats_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_pb_arena pa;
    pv_pb_arena_init(&pa, a, pv_pb_arena_cap(len));
    ProtobufCMessage *msg;
    int rc = pv_pb_unpack(&pa, &tensorflow__profiler__kernel_stats_db__descriptor, data, len,
                          path, &msg, err);
    if (rc != 0)
        return rc;
    const Tensorflow__Profiler__KernelStatsDb *db = (const void *)msg;
    size_t n = db->n_reports;
    if (n > PV_LEGACY_STATS_MAX_ROWS)
        return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                            "more than %u kernel rows", PV_LEGACY_STATS_MAX_ROWS);
    out->rows = pv_arena_zalloc(a, (n > 0 ? n : 1) * sizeof *out->rows);
    for (size_t i = 0; i < n; i++) {
        const Tensorflow__Profiler__KernelReport *r = db->reports[i];
        pv_kernel_row *k = &out->rows[i];
        k->kernel_name = r->name;
        k->op_name = r->op_name;
        k->registers_per_thread = r->registers_per_thread;
        k->static_shmem_bytes = r->static_shmem_bytes;
        k->dynamic_shmem_bytes = r->dynamic_shmem_bytes;
        dims3(r->block_dim, r->n_block_dim, k->block);
        dims3(r->grid_dim, r->n_grid_dim, k->grid);
        k->total_ns = r->total_duration_ns;
        k->min_ns = r->min_duration_ns;
        k->max_ns = r->max_duration_ns;
        k->is_kernel_using_tensor_core = r->is_kernel_using_tensor_core;
        k->is_op_tensor_core_eligible = r->is_op_tensor_core_eligible;
        k->occurrences = r->occurrences;
        k->occupancy_pct = (double)r->occupancy_pct;
        out->n_kernel_events += k->occurrences;
    }
    out->n_rows = out->n_rows_total = n;
    /* The file only exists for GPU profiles; say so for the page. */
    out->n_gpu_planes = n > 0 ? 1 : 0;
    return 0;
}

/* ---- op stats --------------------------------------------------------------- */

typedef struct record {
    pv_op_metrics op;
    pv_op_stats_row row;
} record;

static void read_record(const Tensorflow__Profiler__TfStatsRecord *r, record *rec)
{
    memset(rec, 0, sizeof *rec);
    pv_op_metrics *op = &rec->op;
    pv_op_stats_row *row = &rec->row;
    op->name = r->op_name;
    op->type = r->op_type;
    op->occurrences = (uint64_t)r->occurrences;
    op->is_eager = r->is_eager;
    op->is_idle = strcmp(op->type, "IDLE") == 0;
    op->time_ps = pv__legacy_ps(r->total_time_in_us, 1e6, UINT64_MAX);
    op->self_time_ps = pv__legacy_ps(r->total_self_time_in_us, 1e6, UINT64_MAX);
    row->op = op;
    row->on_device = strcmp(r->host_or_device, "Device") == 0;
    row->rank = r->rank;
    row->total_time_us = r->total_time_in_us;
    row->avg_time_us = r->avg_time_in_us;
    row->total_self_time_us = r->total_self_time_in_us;
    row->avg_self_time_us = r->avg_self_time_in_us;
    row->device_fraction = r->device_total_self_time_as_fraction;
    row->device_cumulative = r->device_cumulative_total_self_time_as_fraction;
    row->host_fraction = r->host_total_self_time_as_fraction;
    row->host_cumulative = r->host_cumulative_total_self_time_as_fraction;
    row->measured_flop_rate = r->measured_flop_rate;
    row->measured_memory_bw = r->measured_memory_bw;
    row->operational_intensity = r->operational_intensity;
    row->gpu_tensorcore_utilization = r->gpu_tensorcore_utilization;
    row->model_flop_rate = r->model_flop_rate;
    /* proto3 does not write an empty string: absent is TensorFlow's unknown */
    row->bound_by = r->bound_by[0] != '\0' ? r->bound_by : "Unknown";
}

static int read_table(const Tensorflow__Profiler__TfStatsTable *t, const char *path,
                      pv_arena *a, pv_op_stats_table *out, pv_error *err)
{
    if (t == NULL)
        return 0;   /* the table is absent: no rows */
    size_t n = t->n_tf_stats_record;
    if (n > PV_LEGACY_STATS_MAX_ROWS)
        return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                            "more than %u op rows", PV_LEGACY_STATS_MAX_ROWS);
    out->rows = pv_arena_zalloc(a, (n > 0 ? n : 1) * sizeof *out->rows);
    for (size_t i = 0; i < n; i++) {
        record *rec = pv_arena_alloc(a, sizeof *rec);
        read_record(t->tf_stats_record[i], rec);
        out->rows[i] = rec->row;
    }
    out->n_rows = n;
    return 0;
}

int pv_legacy_op_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                       pv_op_stats_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_pb_arena pa;
    pv_pb_arena_init(&pa, a, pv_pb_arena_cap(len));
    ProtobufCMessage *msg;
    int rc = pv_pb_unpack(&pa, &tensorflow__profiler__tf_stats_database__descriptor, data,
                          len, path, &msg, err);
    if (rc != 0)
        return rc;
    const Tensorflow__Profiler__TfStatsDatabase *db = (const void *)msg;
    rc = read_table(db->with_idle, path, a, &out->with_idle, err);
    if (rc == 0)
        rc = read_table(db->without_idle, path, a, &out->without_idle, err);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->is_gpu = strstr(db->device_type, "GPU") != NULL;
    out->task_type = pv_op_stats_task_type(&out->with_idle);
    out->architecture_type = "Unknown";
    return 0;
}
