/* op_stats_json: framework_op_stats as the reference's array of two
 * DataTables (FORMATS.md §4.0, §4.6). profview's additions for PyTorch:
 * an "input_shape" or "call_stack" column after the op's name when the
 * rows are grouped by it, and the properties pv_has_input_shapes and
 * pv_has_call_stacks ("1") when the trace recorded them, so the page can
 * offer those groupings. */
#include "tools/op_stats/op_stats.h"
#include "tools/common/datatable.h"

/* Per pv_op_group: the column's id and label, the property. */
static const char *const group_col[PV_OP_GROUP_N][3] = {
    [PV_OP_GROUP_INPUT_SHAPE] = {"input_shape", "Input Shape", "pv_has_input_shapes"},
    [PV_OP_GROUP_CALL_STACK] = {"call_stack", "Call Stack", "pv_has_call_stacks"},
};

static json_t *columns(bool is_gpu, pv_op_group group)
{
    static const char *const cols[][3] = {
        {"rank", "number", "Rank"},
        {"host_or_device", "string", "Host/device"},
        {"type", "string", "Operation Type"},
        {"operation", "string", "Operation Name"},
        {"occurrences", "number", "#Occurrences"},
        {"total_time", "number", "Total time (us)"},
        {"avg_time", "number", "Avg. time (us)"},
        {"total_self_time", "number", "Total self-time (us)"},
        {"avg_self_time", "number", "Avg. self-time (us)"},
        {"device_total_self_time_percent", "number", "Total self-time on Device (%)"},
        {"device_cumulative_total_self_time_percent", "number",
         "Cumulative total-self time on Device (%)"},
        {"host_total_self_time_percent", "number", "Total self-time on Host (%)"},
        {"Host_cumulative_total_self_time_percent", "number",
         "Cumulative total-self time on Host (%)"},
        {"measured_flop_rate", "number", "Normalized FLOP Rate (FLOPs/s)"},
        {"model_flop_rate", "number", "Model FLOP Rate (GFLOP/s)"},
        {"measured_memory_bw", "number", "Measured Memory BW (GBytes/Sec)"},
        {"operational_intensity", "number", "Operational Intensity (FLOPs/Byte)"},
        {"gpu_tensorcore_utilization", "number", "GPU TensorCore utilization"},
        {"bound_by", "string", "Bound by"},
        {"eager", "string", "Execution mode"},
    };
    json_t *j = json_array();
    for (size_t i = 0; j != NULL && i < sizeof cols / sizeof cols[0]; i++) {
        /* The TensorCore column exists only for GPU profiles. */
        if (!is_gpu && i == 17)
            continue;
        if (json_array_append_new(j, json_pack("{s:s, s:s, s:s}", "id", cols[i][0], "label",
                                               cols[i][2], "type", cols[i][1])) != 0) {
            json_decref(j);
            return NULL;
        }
        if (group != PV_OP_GROUP_OPERATOR && i == 3 &&
            json_array_append_new(j, json_pack("{s:s, s:s, s:s}", "id", group_col[group][0],
                                               "label", group_col[group][1], "type",
                                               "string")) != 0) {
            json_decref(j);
            return NULL;
        }
    }
    return j;
}

static json_t *row_json(const pv_op_stats_row *r, bool is_gpu, pv_op_group group)
{
    json_t *c = json_array();
    if (c == NULL)
        return NULL;
    json_array_append_new(c, pv_dt_cell(pv_dt_real((double)r->rank)));
    json_array_append_new(c, pv_dt_cell(pv_dt_text(r->on_device ? "Device" : "Host")));
    json_array_append_new(c, pv_dt_cell(pv_dt_text(r->op->type)));
    json_array_append_new(c, pv_dt_cell(pv_dt_text(r->op->name)));
    if (group != PV_OP_GROUP_OPERATOR)
        json_array_append_new(c, pv_dt_cell(pv_dt_text(r->op->group_value != NULL
                                                           ? r->op->group_value
                                                           : "")));
    json_array_append_new(c, pv_dt_cell(pv_dt_real((double)r->op->occurrences)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->total_time_us)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->avg_time_us)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->total_self_time_us)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->avg_self_time_us)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->device_fraction)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->device_cumulative)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->host_fraction)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->host_cumulative)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->measured_flop_rate)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->model_flop_rate)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->measured_memory_bw)));
    json_array_append_new(c, pv_dt_cell(pv_dt_real(r->operational_intensity)));
    if (is_gpu)
        json_array_append_new(c, pv_dt_cell(pv_dt_real(r->gpu_tensorcore_utilization)));
    json_array_append_new(c, pv_dt_cell(pv_dt_text(r->bound_by != NULL ? r->bound_by : "Unknown")));
    json_array_append_new(c, pv_dt_cell(pv_dt_text(r->op->is_eager ? "Eager" : "Function")));
    return json_pack("{s:o}", "c", c);
}

static json_t *table_json(const pv_op_stats_result *res, const pv_op_stats_table *t)
{
    json_t *rows = json_array();
    if (rows == NULL)
        return NULL;
    for (size_t i = 0; i < t->n_rows; i++) {
        if (json_array_append_new(rows,
                                  row_json(&t->rows[i], res->is_gpu, res->group)) != 0) {
            json_decref(rows);
            return NULL;
        }
    }
    json_t *dt = json_pack("{s:o, s:o, s:{s:s, s:s}}", "cols",
                           columns(res->is_gpu, res->group), "rows", rows, "p",
                           "architecture_type", res->architecture_type, "task_type",
                           res->task_type);
    for (int g = 1; dt != NULL && g < PV_OP_GROUP_N; g++)
        if (res->has_group[g])
            json_object_set_new(json_object_get(dt, "p"), group_col[g][2], json_string("1"));
    return dt;
}

json_t *pv_op_stats_to_json(const pv_op_stats_result *r)
{
    return json_pack("[o, o]", table_json(r, &r->with_idle), table_json(r, &r->without_idle));
}
