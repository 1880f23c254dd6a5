/* kernel_stats_json: the kernel_stats result as the reference's DataTable
 * JSON object (FORMATS.md §4.0, §4.5). */
#include "tools/kernel_stats/kernel_stats.h"
#include "tools/common/datatable.h"

#include <stdio.h>

static int add_col(json_t *cols, const char *id, const char *type, const char *label)
{
    return json_array_append_new(cols, json_pack("{s:s, s:s, s:s}", "id", id, "label", label,
                                                 "type", type));
}

/* ns -> us as the reference prints it (a double, ns / 1000). */
static json_t *us(uint64_t ns)
{
    return json_real((double)ns / 1000.0);
}

static json_t *dim3(const uint32_t d[3])
{
    char buf[48];
    snprintf(buf, sizeof buf, "%u,%u,%u", d[0], d[1], d[2]);
    return json_string(buf);
}

#define N_COLS 15

/* The row's cell values, in column order (new references in v). */
static void row_values(const pv_kernel_row *r, size_t rank, json_t *v[N_COLS])
{
    /* The reference stores occupancy in a float proto field; going through
     * float keeps the printed digits identical. */
    double occ = (double)(float)r->occupancy_pct;
    v[0] = pv_dt_real((double)rank);
    v[1] = pv_dt_text(r->kernel_name);
    v[2] = pv_dt_real((double)r->registers_per_thread);
    v[3] = pv_dt_real((double)r->static_shmem_bytes + (double)r->dynamic_shmem_bytes);
    v[4] = dim3(r->block);
    v[5] = dim3(r->grid);
    v[6] = pv_dt_real(occ);
    v[7] = json_boolean(r->is_op_tensor_core_eligible);
    v[8] = json_boolean(r->is_kernel_using_tensor_core);
    v[9] = pv_dt_text(r->op_name);
    v[10] = pv_dt_real((double)r->occurrences);
    v[11] = us(r->total_ns);
    v[12] = us(r->occurrences > 0 ? r->total_ns / r->occurrences : 0);
    v[13] = us(r->min_ns);
    v[14] = us(r->max_ns);
}

static json_t *row_json(const pv_kernel_row *r, size_t rank)
{
    json_t *c = json_array();
    json_t *v[N_COLS];
    row_values(r, rank, v);
    for (size_t i = 0; i < N_COLS; i++) {
        if (c == NULL)
            json_decref(v[i]);
        else
            json_array_append_new(c, pv_dt_cell(v[i]));
    }
    return c == NULL ? NULL : json_pack("{s:o}", "c", c);
}

static json_t *columns_json(void)
{
    static const char *const cols[N_COLS][3] = {
        {"rank", "number", "Rank"},
        {"kernel_name", "string", "Kernel Name"},
        {"registers_per_thread", "number", "Registers per thread"},
        {"shmem_bytes", "number", "Shared Mem bytes"},
        {"block_dim", "string", "Block dim"},
        {"grid_dim", "string", "Grid dim"},
        {"occupancy_pct", "number", "Theoretical Occupancy %"},
        {"is_op_tensor_core_eligible", "boolean", "Op is TensorCore eligible"},
        {"is_kernel_using_tensor_core", "boolean", "Kernel uses TensorCore"},
        {"op_name", "string", "Op Name"},
        {"occurrences", "number", "Occurrences"},
        {"total_duration_us", "number", "Total Duration (\xce\xbcs)"},
        {"avg_duration_us", "number", "Avg Duration (\xce\xbcs)"},
        {"min_duration_us", "number", "Min Duration (\xce\xbcs)"},
        {"max_duration_us", "number", "Max Duration (\xce\xbcs)"},
    };
    json_t *j = json_array();
    for (size_t i = 0; j != NULL && i < N_COLS; i++) {
        if (add_col(j, cols[i][0], cols[i][1], cols[i][2]) != 0) {
            json_decref(j);
            return NULL;
        }
    }
    return j;
}

json_t *pv_kernel_stats_to_json_columns(const pv_kernel_stats_result *r)
{
    json_t *columns = json_array();
    json_t *col[N_COLS];
    for (size_t c = 0; c < N_COLS; c++) {
        col[c] = json_array();
        json_array_append_new(columns, col[c]);
    }
    json_t *v[N_COLS];
    for (size_t i = 0; i < r->n_rows; i++) {
        row_values(&r->rows[i], i + 1, v);
        for (size_t c = 0; c < N_COLS; c++)
            json_array_append_new(col[c], v[c]);
    }
    return json_pack("{s:o, s:o}", "cols", columns_json(), "columns", columns);
}

json_t *pv_kernel_stats_to_json(const pv_kernel_stats_result *r)
{
    json_t *jrows = json_array();
    for (size_t i = 0; jrows != NULL && i < r->n_rows; i++) {
        if (json_array_append_new(jrows, row_json(&r->rows[i], i + 1)) != 0) {
            json_decref(jrows);
            return NULL;
        }
    }
    return json_pack("{s:o, s:o}", "cols", columns_json(), "rows", jrows);
}
