/* kernel_stats_json: the kernel_stats result as the reference's DataTable
 * JSON object (FORMATS.md §4.0, §4.5). */
#include "tools/kernel_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

static int add_col(json_t *cols, const char *id, const char *type, const char *label)
{
    return json_array_append_new(cols, json_pack("{s:s, s:s, s:s}", "id", id, "label", label,
                                                 "type", type));
}

static json_t *cell(json_t *v)
{
    return json_pack("{s:o}", "v", v);
}

/* A JSON string of s. Names come from the profile's bytes and may not be
 * UTF-8, which jansson refuses: then every non-ASCII byte becomes '?', so
 * the cell is still there (lossy, but only for broken names). */
static json_t *text(const char *s)
{
    json_t *j = json_string(s);
    if (j != NULL)
        return j;
    size_t n = strlen(s);
    char *c = malloc(n + 1);
    if (c == NULL)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        c[i] = (unsigned char)s[i] >= 0x80 ? '?' : s[i];
    j = json_string(c);
    free(c);
    return j;
}

/* JSON has no NaN or infinity (jansson refuses them); values read from a
 * legacy file may be either, and are written as 0. */
static json_t *num(double d)
{
    return json_real(isfinite(d) ? d : 0.0);
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

static json_t *row_json(const pv_kernel_row *r, size_t rank)
{
    json_t *c = json_array();
    if (c == NULL)
        return NULL;
    /* The reference stores occupancy in a float proto field; going through
     * float keeps the printed digits identical. */
    double occ = (double)(float)r->occupancy_pct;
    json_array_append_new(c, cell(num((double)rank)));
    json_array_append_new(c, cell(text(r->kernel_name)));
    json_array_append_new(c, cell(num((double)r->registers_per_thread)));
    json_array_append_new(
        c, cell(num((double)r->static_shmem_bytes + (double)r->dynamic_shmem_bytes)));
    json_array_append_new(c, cell(dim3(r->block)));
    json_array_append_new(c, cell(dim3(r->grid)));
    json_array_append_new(c, cell(num(occ)));
    json_array_append_new(c, cell(json_boolean(r->is_op_tensor_core_eligible)));
    json_array_append_new(c, cell(json_boolean(r->is_kernel_using_tensor_core)));
    json_array_append_new(c, cell(text(r->op_name)));
    json_array_append_new(c, cell(num((double)r->occurrences)));
    json_array_append_new(c, cell(us(r->total_ns)));
    json_array_append_new(c, cell(us(r->occurrences > 0 ? r->total_ns / r->occurrences : 0)));
    json_array_append_new(c, cell(us(r->min_ns)));
    json_array_append_new(c, cell(us(r->max_ns)));
    return json_pack("{s:o}", "c", c);
}

json_t *pv_kernel_stats_to_json(const pv_kernel_stats_result *r)
{
    static const char *const cols[][3] = {
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
    json_t *jcols = json_array();
    json_t *jrows = json_array();
    if (jcols == NULL || jrows == NULL)
        goto fail;
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        if (add_col(jcols, cols[i][0], cols[i][1], cols[i][2]) != 0)
            goto fail;
    for (size_t i = 0; i < r->n_rows; i++)
        if (json_array_append_new(jrows, row_json(&r->rows[i], i + 1)) != 0)
            goto fail;
    return json_pack("{s:o, s:o}", "cols", jcols, "rows", jrows);
fail:
    json_decref(jcols);
    json_decref(jrows);
    return NULL;
}
