/* input_pipeline_json: the analyzer's response in the reference's shape
 * (FORMATS.md §4.4 "Response: array of 5 tables"; reference:
 * InputPipelineAnalysisResultToDataTableJson). Keys starting "pv_" are
 * profview additions (group ids and trace window per step, bottleneck
 * stage); everything else matches the reference key by key. */
#include "tools/steps/input_pipeline.h"
#include "tools/common/datatable.h"
#include "tools/common/json_out.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const RECOMMENDATIONS[] = {
    "Enqueuing data: you may want to combine small input data chunks into fewer but larger "
    "chunks.",
    "Data preprocessing: you may increase num_parallel_calls in <a "
    "href=\"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#map\" "
    "target=\"_blank\">Dataset map()</a> or preprocess the data OFFLINE.",
    "Reading data from files in advance: you may tune parameters in the following tf.data API "
    "(<a href=\"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#prefetch\" "
    "target=\"_blank\">prefetch size</a>, <a "
    "href=\"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#interleave\" "
    "target=\"_blank\">interleave cycle_length</a>, <a "
    "href=\"https://www.tensorflow.org/api_docs/python/tf/data/"
    "TFRecordDataset#class_tfrecorddataset\" target=\"_blank\">reader buffer_size</a>)",
    "Reading data from files on demand: you should read data IN ADVANCE using the following "
    "tf.data API (<a href=\"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#prefetch\" "
    "target=\"_blank\">prefetch</a>, <a "
    "href=\"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#interleave\" "
    "target=\"_blank\">interleave</a>, <a "
    "href=\"https://www.tensorflow.org/api_docs/python/tf/data/"
    "TFRecordDataset#class_tfrecorddataset\" target=\"_blank\">reader buffer</a>)",
    "Other data reading or processing: you may consider using the <a "
    "href=\"https://www.tensorflow.org/programmers_guide/datasets\" target=\"_blank\">tf.data "
    "API</a> (if you are not using it now)",
};

/* Summary property keys in the reference's order, with their field. */
static const struct {
    const char *key;
    int field;
} SUMMARY_KEYS[] = {
    {"device_compute_time_ms", PV_BD_DEVICE_COMPUTE},
    {"device_to_device_time_ms", PV_BD_DEVICE_TO_DEVICE},
    {"device_collectives_time_ms", PV_BD_DEVICE_COLLECTIVES},
    {"infeed_time_ms", PV_BD_INPUT},
    {"outfeed_time_ms", PV_BD_OUTPUT},
    {"host_compute_time_ms", PV_BD_HOST_COMPUTE},
    {"kernel_launch_time_ms", PV_BD_HOST_PREPARE},
    {"compile_time_ms", PV_BD_HOST_COMPILE},
    {"other_time_ms", PV_BD_UNKNOWN},
};

/* A step time in ms as whole ps, saturated: a legacy file's double may be
 * anything, and converting one past int64 is undefined behaviour. */
static json_int_t rounded_ps(double ms)
{
    double ps = ms * 1e9 + 0.5;
    if (ps != ps)
        return 0;
    if (ps >= 9223372036854775808.0)   /* 2^63 */
        return INT64_MAX;
    if (ps < -9223372036854775808.0)
        return INT64_MIN;
    return (json_int_t)ps;
}

/* The step table's columns and properties; its rows and per-row arrays
 * are streamed (pv_input_pipeline_step_table_write). */
static json_t *step_table_head(const pv_input_pipeline_result *r)
{
    const pv_step_analysis *an = &r->analysis;
    const pv_bottleneck *b = &an->bottleneck;
    json_t *t = pv_dt_new();
    pv_dt_col(t, "stepnum", "string", "Step number", NULL);
    pv_dt_col(t, "deviceComputeTimeMs", "number", "Device compute", NULL);
    pv_dt_col(t, "deviceToDeviceTimeMs", "number", "Device to device", NULL);
    pv_dt_col(t, "deviceCollectivesTimeMs", "number", "Device collective communication", NULL);
    pv_dt_col(t, "hostComputeTimeMs", "number", "Host compute", NULL);
    pv_dt_col(t, "kernelLaunchTimeMs", "number", "Kernel launch", NULL);
    pv_dt_col(t, "infeedTimeMs", "number", "Input", NULL);
    pv_dt_col(t, "outfeedTimeMs", "number", "Output", NULL);
    pv_dt_col(t, "compileTimeMs", "number", "Compilation", NULL);
    pv_dt_col(t, "otherTimeMs", "number", "All others", NULL);
    pv_dt_col(t, "tooltip", "string", "tooltip", "tooltip");
    pv_dt_col(t, "stepTimeMs", "number", "Step time", NULL);

    pv_dt_prop(t, "step_time_graph_column_ids",
               "stepnum,deviceComputeTimeMs,deviceToDeviceTimeMs,deviceCollectivesTimeMs,"
               "hostComputeTimeMs,kernelLaunchTimeMs,infeedTimeMs,outfeedTimeMs,compileTimeMs,"
               "otherTimeMs, tooltip");
    pv_dt_prop(t, "hardware_type", pv_hardware_name(r->steps.hardware));
    const pv_step_summary *st = &an->summary[PV_BD_STEP_TIME];
    pv_dt_propf(t, "steptime_ms_average", 1, st->average);
    pv_dt_propf(t, "steptime_ms_standard_deviation", 1, st->standard_deviation);
    pv_dt_propf(t, "steptime_ms_minimum", 1, st->minimum);
    pv_dt_propf(t, "steptime_ms_maximum", 1, st->maximum);
    for (size_t i = 0; i < sizeof SUMMARY_KEYS / sizeof SUMMARY_KEYS[0]; i++) {
        char key[64];
        const pv_step_summary *s = &an->summary[SUMMARY_KEYS[i].field];
        snprintf(key, sizeof key, "%s_avg", SUMMARY_KEYS[i].key);
        pv_dt_propf(t, key, 1, s->average);
        snprintf(key, sizeof key, "%s_sdv", SUMMARY_KEYS[i].key);
        pv_dt_propf(t, key, 1, s->standard_deviation);
    }
    pv_dt_prop(t, "input_conclusion", b->input_statement);
    pv_dt_prop(t, "device_collectives_bottleneck", b->device_collectives_statement);
    pv_dt_prop(t, "device_collectives_statement", b->device_collectives_statement);
    pv_dt_prop(t, "kernel_launch_bottleneck", b->kernel_launch_statement);
    pv_dt_prop(t, "kernel_launch_statement", b->kernel_launch_statement);
    pv_dt_prop(t, "all_other_bottleneck", b->all_other_statement);
    pv_dt_prop(t, "all_other_statement", b->all_other_statement);
    pv_dt_prop(t, "summary_nextstep", b->summary_next_step);
    if (r->pytorch)
        pv_dt_prop(t, "pv_framework", "pytorch");

    return t;
}

/* One row's tooltip, as the reference writes it. */
static void step_tooltip(const pv_step_details *d, char *tip, size_t cap)
{
    snprintf(tip, cap,
             "Step %s, duration: %.2f ms\n-All others: %.2f ms\n-Compilation: %.2f ms\n"
             "-Output: %.2f ms\n-Input: %.2f ms\n-Kernel launch: %.2f ms\n"
             "-Host compute: %.2f ms\n-Device collectives: %.2f ms\n"
             "-Device to device: %.2f ms\n-Device compute: %.2f ms",
             d->name, d->ms[PV_BD_STEP_TIME], d->ms[PV_BD_UNKNOWN], d->ms[PV_BD_HOST_COMPILE],
             d->ms[PV_BD_OUTPUT], d->ms[PV_BD_INPUT], d->ms[PV_BD_HOST_PREPARE],
             d->ms[PV_BD_HOST_COMPUTE], d->ms[PV_BD_DEVICE_COLLECTIVES],
             d->ms[PV_BD_DEVICE_TO_DEVICE], d->ms[PV_BD_DEVICE_COMPUTE]);
}

/* Cells of a row after the step name, up to the tooltip. */
static const int ROW_FIELDS[] = {
    PV_BD_DEVICE_COMPUTE, PV_BD_DEVICE_TO_DEVICE, PV_BD_DEVICE_COLLECTIVES,
    PV_BD_HOST_COMPUTE,   PV_BD_HOST_PREPARE,     PV_BD_INPUT,
    PV_BD_OUTPUT,         PV_BD_HOST_COMPILE,     PV_BD_UNKNOWN,
};

/* One of the per-row arrays profview adds: ",\"KEY\":[...]". */
static void step_array(pv__jw *w, const char *key, const pv_input_pipeline_result *r, int which)
{
    const pv_step_analysis *an = &r->analysis;
    pv__jw_lit(w, key);
    pv__jw_raw(w, "[", 1);
    for (size_t i = 0; i < an->n_steps; i++) {
        const pv_step_details *d = &an->steps[i];
        if (i > 0)
            pv__jw_raw(w, ",", 1);
        switch (which) {
        case 0: pv__jw_i64(w, d->group_id); break;
        case 1: pv__jw_i64(w, d->begin_ps - r->steps.t0_ps); break;
        case 2: pv__jw_i64(w, rounded_ps(d->ms[PV_BD_STEP_TIME])); break;
        case 3: pv_json_real(w, d->ms[PV_BD_HOST_WAIT_INPUT]); break;
        default: pv_json_real(w, d->ms[PV_BD_HOST_TO_DEVICE]); break;
        }
    }
    pv__jw_raw(w, "]", 1);
}

void pv_input_pipeline_step_table_write(const pv_input_pipeline_result *r, pv__jw *w)
{
    json_t *t = step_table_head(r);
    if (t == NULL) {
        pv_json_tree(w, NULL);
        return;
    }
    /* The keys in jansson's sorted order. profview's additions sit outside
     * "p" so that "p" stays all strings: per row, the group id, the step's
     * window in trace-viewer time (ps after the trace's first event) and
     * the two parts of the input time. */
    pv__jw_lit(w, "{\"cols\":");
    pv_json_tree(w, json_incref(json_object_get(t, "cols")));
    pv__jw_lit(w, ",\"p\":");
    pv_json_tree(w, json_incref(json_object_get(t, "p")));
    json_decref(t);
    if (r->steps.has_trace_times) {
        step_array(w, ",\"pv_begin_ps\":", r, 1);
        step_array(w, ",\"pv_dur_ps\":", r, 2);
    }
    step_array(w, ",\"pv_group_ids\":", r, 0);
    pv__jw_lit(w, r->steps.host_merged ? ",\"pv_host_steps\":true" : ",\"pv_host_steps\":false");
    step_array(w, ",\"pv_host_to_device_ms\":", r, 4);
    step_array(w, ",\"pv_host_wait_input_ms\":", r, 3);
    pv__jw_lit(w, ",\"rows\":[");
    const pv_step_analysis *an = &r->analysis;
    for (size_t i = 0; i < an->n_steps && w->rc == 0; i++) {
        const pv_step_details *d = &an->steps[i];
        char tip[1024];
        step_tooltip(d, tip, sizeof tip);
        pv__jw_lit(w, i > 0 ? ",{\"c\":[{\"v\":" : "{\"c\":[{\"v\":");
        pv_json_text(w, d->name);
        for (size_t k = 0; k < sizeof ROW_FIELDS / sizeof ROW_FIELDS[0]; k++) {
            pv__jw_lit(w, "},{\"v\":");
            pv_json_real(w, d->ms[ROW_FIELDS[k]]);
        }
        pv__jw_lit(w, "},{\"v\":");
        pv_json_text(w, tip);
        pv__jw_lit(w, "},{\"v\":");
        pv_json_real(w, d->ms[PV_BD_STEP_TIME]);
        pv__jw_lit(w, "}]}");
    }
    pv__jw_lit(w, "]}");
}

json_t *pv_input_pipeline_diagnostics_json(const pv_diagnostic *d, size_t n)
{
    json_t *t = pv_dt_new();
    pv_dt_col(t, "severity", "string", "Severity", NULL);
    pv_dt_col(t, "message", "string", "Message", NULL);
    static const char *const order[] = {"INFO", "WARNING", "ERROR"};
    for (size_t o = 0; o < 3; o++) {
        for (size_t i = 0; i < n; i++) {
            if (strcmp(d[i].severity, order[o]) != 0)
                continue;
            json_t *row = pv_dt_row(t);
            pv_dt_str(row, d[i].severity);
            pv_dt_str(row, d[i].message);
        }
    }
    return t;
}

static json_t *host_table(const pv_input_pipeline_result *r)
{
    json_t *t = pv_dt_new();
    pv_dt_col(t, "opName", "string", "Input Op", NULL);
    pv_dt_col(t, "count", "number", "Count", NULL);
    pv_dt_col(t, "timeInMs", "number", "Total Time (in ms)", NULL);
    pv_dt_col(t, "timeInPercent", "number", "Total Time (as % of total input-processing time)",
              NULL);
    pv_dt_col(t, "selfTimeInMs", "number", "Total Self Time (in ms)", NULL);
    pv_dt_col(t, "selfTimeInPercent", "number",
              "Total Self Time (as % of total input-processing time)", NULL);
    pv_dt_col(t, "category", "string", "Category", NULL);
    for (size_t i = 0; i < r->n_input_ops; i++) {
        const pv_input_op *op = &r->input_ops[i];
        json_t *row = pv_dt_row(t);
        pv_dt_str(row, op->op->name);
        pv_dt_num(row, (double)op->op->occurrences);
        pv_dt_num(row, (double)op->op->time_ps / 1e9);
        pv_dt_num(row, op->time_percent / 100.0);
        pv_dt_num(row, (double)op->op->self_time_ps / 1e9);
        pv_dt_num(row, op->self_time_percent / 100.0);
        pv_dt_str(row, pv_input_cat_name(op->category));
    }
    const pv_input_breakdown *b = &r->breakdown;
    pv_dt_propf(t, "enqueue_us", 3, b->enqueue_us);
    pv_dt_propf(t, "demanded_file_read_us", 3, b->demanded_file_read_us);
    pv_dt_propf(t, "advanced_file_read_us", 3, b->advanced_file_read_us);
    pv_dt_propf(t, "preprocessing_us", 3, b->preprocessing_us);
    pv_dt_propf(t, "unclassified_nonequeue_us", 3, b->unclassified_non_enqueue_us);
    if (r->bottleneck != NULL) {
        pv_dt_prop(t, "pv_bottleneck_stage", r->bottleneck->op->name);
        pv_dt_prop(t, "pv_bottleneck_advice", r->bottleneck_advice);
    }
    return t;
}

static json_t *max_infeed_core_table(void)
{
    /* TPU-only in the reference; profview has no per-core TPU infeed
     * analysis yet, so the table is empty on every platform. */
    return pv_dt_new();
}

int pv_input_pipeline_write(const pv_input_pipeline_result *r, pv_buf *out, pv_error *err)
{
    json_t *recs = pv_dt_new();
    pv_dt_col(recs, "link", "string", "link", NULL);
    /* tf.data advice means nothing to a PyTorch run. */
    for (size_t i = 0; !r->pytorch && i < sizeof RECOMMENDATIONS / sizeof RECOMMENDATIONS[0];
         i++)
        pv_dt_str(pv_dt_row(recs), RECOMMENDATIONS[i]);
    pv__jw w;
    pv__jw_init(&w, out);
    pv__jw_raw(&w, "[", 1);
    pv_json_tree(&w, max_infeed_core_table());
    pv__jw_raw(&w, ",", 1);
    pv_input_pipeline_step_table_write(r, &w);
    pv__jw_raw(&w, ",", 1);
    pv_json_tree(&w, host_table(r));
    pv__jw_raw(&w, ",", 1);
    pv_json_tree(&w, recs);
    pv__jw_raw(&w, ",", 1);
    pv_json_tree(&w, pv_input_pipeline_diagnostics_json(r->diagnostics, r->n_diagnostics));
    pv__jw_raw(&w, "]", 1);
    return pv_json_finish(&w, err);
}

json_t *pv_input_pipeline_to_json(const pv_input_pipeline_result *r)
{
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    pv_error err = {0};
    json_t *j = pv_input_pipeline_write(r, &b, &err) == 0 ? pv_json_loadb(&b) : NULL;
    pv_buf_fini(&b);
    return j;
}
