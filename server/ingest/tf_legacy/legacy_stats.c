/* legacy_stats: KernelStatsDb and TfStatsDatabase from their wire bytes
 * (see legacy_stats.h for the fields). Two passes per table: count the
 * rows, then fill an arena array of exactly that size. */
#include "ingest/tf_legacy/legacy_stats.h"

#include "ingest/tf_legacy/pb_wire.h"

#include <string.h>

static int bad_bytes(const char *path, pv__wire *w, const uint8_t *data, pv_error *err)
{
    return pv_error_set(err, PV_EFORMAT, path, (uint64_t)(w->p - data),
                        "not a valid legacy stats protobuf");
}

static const char *wire_str(pv__wire *w, pv_arena *a)
{
    pv__wire s = pv__wire_bytes(w);
    if (s.bad)
        return "";
    return pv_arena_strndup(a, (const char *)s.p, (size_t)(s.end - s.p));
}

/* Counts the fields numbered field (length-delimited) in w. */
static size_t count_fields(pv__wire w, uint32_t field)
{
    size_t n = 0;
    uint32_t f, t;
    while (pv__wire_next(&w, &f, &t)) {
        if (f == field && t == 2)
            n++;
        pv__wire_skip(&w, t);
    }
    return w.bad ? 0 : n;
}

/* ---- kernel stats ----------------------------------------------------------- */

/* A repeated uint32 (block_dim, grid_dim): packed or one value per field. */
static void read_dims(pv__wire *w, uint32_t type, uint32_t dims[3], size_t *n)
{
    if (type == 2) {
        pv__wire p = pv__wire_bytes(w);
        while (!p.bad && p.p < p.end) {
            uint64_t v = pv__wire_varint(&p);
            if (*n < 3)
                dims[(*n)++] = (uint32_t)v;
        }
        w->bad = w->bad || p.bad;
    } else {
        uint64_t v = pv__wire_varint(w);
        if (*n < 3)
            dims[(*n)++] = (uint32_t)v;
    }
}

static bool read_report(pv__wire r, pv_arena *a, pv_kernel_row *k)
{
    memset(k, 0, sizeof *k);
    k->kernel_name = "";
    k->op_name = "";
    size_t nb = 0, ng = 0;
    uint32_t f, t;
    while (pv__wire_next(&r, &f, &t)) {
        switch (f) {
        case 1: k->kernel_name = wire_str(&r, a); break;
        case 2: k->registers_per_thread = (uint32_t)pv__wire_varint(&r); break;
        case 3: k->static_shmem_bytes = (uint32_t)pv__wire_varint(&r); break;
        case 4: k->dynamic_shmem_bytes = (uint32_t)pv__wire_varint(&r); break;
        case 5: read_dims(&r, t, k->block, &nb); break;
        case 6: read_dims(&r, t, k->grid, &ng); break;
        case 7: k->total_ns = pv__wire_varint(&r); break;
        case 8: k->min_ns = pv__wire_varint(&r); break;
        case 9: k->max_ns = pv__wire_varint(&r); break;
        case 10: k->is_kernel_using_tensor_core = pv__wire_varint(&r) != 0; break;
        case 11: k->is_op_tensor_core_eligible = pv__wire_varint(&r) != 0; break;
        case 12: k->op_name = wire_str(&r, a); break;
        case 13: k->occurrences = pv__wire_varint(&r); break;
        case 14:
            if (t == 5)
                k->occupancy_pct = (double)pv__wire_float(&r);
            else
                pv__wire_skip(&r, t);
            break;
        default: pv__wire_skip(&r, t); break;
        }
    }
    return !r.bad;
}

int pv_legacy_kernel_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                           pv_kernel_stats_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv__wire w = {data, data + len, false};
    size_t n = count_fields(w, 1);
    if (n > PV_LEGACY_STATS_MAX_ROWS)
        return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                            "more than %u kernel rows", PV_LEGACY_STATS_MAX_ROWS);
    out->rows = pv_arena_zalloc(a, (n > 0 ? n : 1) * sizeof *out->rows);
    uint32_t f, t;
    while (pv__wire_next(&w, &f, &t)) {
        if (f != 1 || t != 2) {
            pv__wire_skip(&w, t);
            continue;
        }
        pv__wire r = pv__wire_bytes(&w);
        if (r.bad || out->n_rows >= n || !read_report(r, a, &out->rows[out->n_rows]))
            return bad_bytes(path, &w, data, err);
        pv_kernel_row *k = &out->rows[out->n_rows++];
        out->n_kernel_events += k->occurrences;
    }
    if (w.bad) {
        int rc = bad_bytes(path, &w, data, err);
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->n_rows_total = out->n_rows;
    /* The file only exists for GPU profiles; say so for the page. */
    out->n_gpu_planes = out->n_rows > 0 ? 1 : 0;
    return 0;
}

/* ---- op stats --------------------------------------------------------------- */

typedef struct record {
    pv_op_metrics op;
    pv_op_stats_row row;
} record;

/* A time from the file in ps, saturated: the double may be anything
 * (negative, NaN, huge), and converting an out-of-range double to an
 * integer is undefined behaviour. */
static uint64_t us_to_ps(double us)
{
    double ps = us * 1e6;
    if (!(ps > 0))
        return 0;
    if (ps >= 18446744073709549568.0)   /* the largest double below 2^64 */
        return UINT64_MAX;
    return (uint64_t)ps;
}

static bool read_record(pv__wire r, pv_arena *a, record *rec)
{
    memset(rec, 0, sizeof *rec);
    pv_op_metrics *op = &rec->op;
    pv_op_stats_row *row = &rec->row;
    op->name = "";
    op->type = "";
    row->bound_by = "Unknown";
    const char *side = "";
    uint32_t f, t;
    while (pv__wire_next(&r, &f, &t)) {
        if (f >= 6 && f <= 16 && t == 1) {
            double d = pv__wire_double(&r);
            double *dst[] = {&row->total_time_us, &row->avg_time_us, &row->total_self_time_us,
                             &row->avg_self_time_us, &row->device_fraction,
                             &row->device_cumulative, &row->host_fraction,
                             &row->host_cumulative, &row->measured_flop_rate,
                             &row->measured_memory_bw, &row->operational_intensity};
            *dst[f - 6] = d;
            continue;
        }
        switch (f) {
        case 1: row->rank = pv__wire_varint(&r); break;
        case 2: side = wire_str(&r, a); break;
        case 3: op->type = wire_str(&r, a); break;
        case 4: op->name = wire_str(&r, a); break;
        case 5: op->occurrences = pv__wire_varint(&r); break;
        case 17: row->bound_by = wire_str(&r, a); break;
        case 18: op->is_eager = pv__wire_varint(&r) != 0; break;
        case 19:
            if (t == 1)
                row->gpu_tensorcore_utilization = pv__wire_double(&r);
            else
                pv__wire_skip(&r, t);
            break;
        case 20:
            if (t == 1)
                row->model_flop_rate = pv__wire_double(&r);
            else
                pv__wire_skip(&r, t);
            break;
        default: pv__wire_skip(&r, t); break;
        }
    }
    row->on_device = strcmp(side, "Device") == 0;
    op->is_idle = strcmp(op->type, "IDLE") == 0;
    op->time_ps = us_to_ps(row->total_time_us);
    op->self_time_ps = us_to_ps(row->total_self_time_us);
    return !r.bad;
}

static int read_table(pv__wire t, const uint8_t *data, const char *path, pv_arena *a,
                      pv_op_stats_table *out, pv_error *err)
{
    size_t n = count_fields(t, 1);
    if (n > PV_LEGACY_STATS_MAX_ROWS)
        return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                            "more than %u op rows", PV_LEGACY_STATS_MAX_ROWS);
    out->rows = pv_arena_zalloc(a, (n > 0 ? n : 1) * sizeof *out->rows);
    uint32_t f, ty;
    while (pv__wire_next(&t, &f, &ty)) {
        if (f != 1 || ty != 2) {
            pv__wire_skip(&t, ty);
            continue;
        }
        pv__wire r = pv__wire_bytes(&t);
        record *rec = pv_arena_alloc(a, sizeof *rec);
        if (r.bad || out->n_rows >= n || !read_record(r, a, rec))
            return bad_bytes(path, &t, data, err);
        rec->row.op = &rec->op;
        out->rows[out->n_rows++] = rec->row;
    }
    return t.bad ? bad_bytes(path, &t, data, err) : 0;
}

int pv_legacy_op_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                       pv_op_stats_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv__wire w = {data, data + len, false};
    const char *device_type = "";
    int rc = 0;
    uint32_t f, t;
    while (rc == 0 && pv__wire_next(&w, &f, &t)) {
        if ((f == 4 || f == 5) && t == 2) {
            pv__wire tab = pv__wire_bytes(&w);
            if (tab.bad)
                break;
            rc = read_table(tab, data, path, a, f == 4 ? &out->with_idle : &out->without_idle,
                            err);
        } else if (f == 6 && t == 2) {
            device_type = wire_str(&w, a);
        } else {
            pv__wire_skip(&w, t);
        }
    }
    if (rc == 0 && w.bad)
        rc = bad_bytes(path, &w, data, err);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->is_gpu = strstr(device_type, "GPU") != NULL;
    out->task_type = pv_op_stats_task_type(&out->with_idle);
    out->architecture_type = "Unknown";
    return 0;
}
