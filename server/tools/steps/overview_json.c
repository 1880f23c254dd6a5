/* overview_json: the overview page in the reference's shape (FORMATS.md
 * §4.3, array of 7 entries; reference: op_stats_to_overview_page.cc).
 * Keys starting "pv_" are profview additions: the top host ops table, the
 * hostnames and idle shares the generic reference table leaves out. A
 * PyTorch trace's answer has an 8th entry, torch-tb-profiler's
 * recommendations, and a 9th, its GPU summary (overview_pytorch.h), and
 * no TensorFlow tips or statements in the 4th. */
#include "tools/steps/overview.h"
#include "tools/common/datatable.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The reference has a GPU table and, for every other device type, its TPU
 * table, whose flop-rate label differs. */
static json_t *ops_table(const pv_overview_op *ops, size_t n, bool gpu)
{
    json_t *t = pv_dt_new();
    pv_dt_col(t, "selfTimePercent", "number", "Time (%)", NULL);
    pv_dt_col(t, "cumulativeTimePercent", "number", "Cumulative time (%)", NULL);
    pv_dt_col(t, "category", "string", "Category", NULL);
    pv_dt_col(t, "operation", "string", "Operation", NULL);
    pv_dt_col(t, "flopRate", "number",
              gpu ? "GFLOPs/Sec" : "Bf16 Normalized Flop Rate(GFLOPs/Sec)", NULL);
    if (gpu) {
        pv_dt_col(t, "tcEligibility", "boolean", "TensorCore eligibility", NULL);
        pv_dt_col(t, "tcUtilization", "boolean", "Op is using TensorCore", NULL);
    }
    for (size_t i = 0; i < n; i++) {
        json_t *row = pv_dt_row(t);
        pv_dt_num(row, ops[i].self_time_fraction);
        pv_dt_num(row, ops[i].cumulative_time_fraction);
        pv_dt_str(row, ops[i].category);
        pv_dt_str(row, ops[i].name);
        pv_dt_num(row, ops[i].flop_rate);
        if (gpu) {
            pv_dt_bool(row, ops[i].tc_eligible);
            pv_dt_bool(row, ops[i].tc_using);
        }
    }
    return t;
}

static json_t *analysis_table(const pv_overview_result *r)
{
    bool gpu = r->ip.steps.hardware == PV_HW_GPU;
    json_t *t = ops_table(r->top_device, r->n_top_device, gpu);
    pv_dt_prop(t, "host_trace_level", "0");
    pv_dt_prop_pct(t, "host_tf_op_percent", r->host_tf_op_percent);
    pv_dt_prop_pct(t, "device_tf_op_percent", r->device_tf_op_percent);
    pv_dt_prop_pct(t, "host_op_time_eager_percent", r->host_op_time_eager_percent);
    pv_dt_prop_pct(t, "device_op_time_eager_percent", r->device_op_time_eager_percent);
    pv_dt_prop(t, "remark_text", "");
    pv_dt_prop(t, "remark_color", "");
    pv_dt_prop_pct(t, "mxu_utilization_percent", 0);
    pv_dt_prop_pct(t, "hbm_utilization_percent", 0);
    if (gpu) {
        pv_dt_prop_pct(t, "device_compute_16bit_percent", r->ip.analysis.compute16_percent);
        pv_dt_prop_pct(t, "device_compute_32bit_percent", r->ip.analysis.compute32_percent);
    } else {
        /* Keys of the reference's TPU table that need TPU performance
         * counters or roofline data; "unknown" rather than a made-up 0. */
        pv_dt_prop_pct(t, "device_duty_cycle_high_confidence_percent", -1);
        pv_dt_prop_pct(t, "device_duty_cycle_percent", -1);
        pv_dt_prop_pct(t, "flop_rate_utilization_relative_to_roofline", -1);
        pv_dt_prop_pct(t, "memory_bw_utilization_relative_to_hw_limit", -1);
    }
    /* The reference fills these for TPUs only; profview computes them for
     * every profile from the op tables ("unknown" without a device). */
    pv_dt_prop_pct(t, "device_idle_time_percent", r->device_idle_percent);
    pv_dt_prop_pct(t, "host_idle_time_percent", r->host_idle_percent);
    pv_dt_prop(t, "pv_eager_statement", r->eager_statement);
    json_object_set_new(t, "pv_host_ops", ops_table(r->top_host, r->n_top_host, false));
    return t;
}

static json_t *run_environment_table(const pv_overview_result *r)
{
    json_t *t = pv_dt_new();
    pv_dt_col(t, "host_id", "string", "host_id", NULL);
    pv_dt_col(t, "command_line", "string", "command_line", NULL);
    pv_dt_col(t, "start_time", "string", "start_time", NULL);
    pv_dt_col(t, "bns_address", "string", "bns_address", NULL);
    pv_dt_prop(t, "host_count", "1");
    /* The reference counts the combined profiles as tasks of one host. */
    unsigned tasks = r->task_count > 0 ? r->task_count : 1u;
    char task_count[64];
    snprintf(task_count, sizeof task_count, "%u (num tasks per host = %u)", tasks, tasks);
    pv_dt_prop(t, "task_count", task_count);
    pv_dt_prop(t, "device_type", r->device_type);
    pv_dt_propf(t, "device_core_count", 0, (double)r->device_core_count);
    pv_dt_prop(t, "is_training", r->is_training ? "true" : "false");
    json_t *hosts = json_array();
    for (uint32_t i = 0; i < r->n_hostnames; i++)
        json_array_append_new(hosts, json_string(r->hostnames[i]));
    json_object_set_new(t, "pv_hostnames", hosts);
    if (r->profile_start_ns != 0) {
        /* Calendar time of the recorded start (UTC): data, not the clock. */
        time_t secs = (time_t)(r->profile_start_ns / 1000000000u);
        struct tm tm;
        char buf[64];
        if (gmtime_r(&secs, &tm) != NULL &&
            strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm) > 0)
            pv_dt_prop(t, "pv_profile_start_time", buf);
    }
    if (r->profile_stop_ns > r->profile_start_ns && r->profile_start_ns != 0)
        pv_dt_propf(t, "pv_profile_duration_ms", 1,
                    (double)(r->profile_stop_ns - r->profile_start_ns) / 1e6);
    if (r->host_tracer_level >= 0)
        pv_dt_propf(t, "pv_host_tracer_level", 0, (double)r->host_tracer_level);
    return t;
}

static void tip(json_t *t, const char *type, const char *link, const char *desc)
{
    json_t *row = pv_dt_row(t);
    pv_dt_str(row, type);
    pv_dt_str(row, link);
    pv_dt_str(row, desc);
}

/* torch-tb-profiler's recommendations, one row each. */
static json_t *pytorch_table(const pv_pytorch_overview *l)
{
    json_t *t = pv_dt_new();
    pv_dt_col(t, "kind", "string", "Rule", NULL);
    pv_dt_col(t, "percent", "number", "Measured (%)", NULL);
    pv_dt_col(t, "text", "string", "Recommendation", NULL);
    pv_dt_col(t, "link", "string", "Read more", NULL);
    for (size_t i = 0; i < l->n; i++) {
        json_t *row = pv_dt_row(t);
        pv_dt_str(row, l->items[i].kind);
        pv_dt_num(row, l->items[i].percent);
        pv_dt_str(row, l->items[i].text);
        pv_dt_str(row, l->items[i].link);
    }
    return t;
}

/* A percentage cell; null when not measured (v < 0). */
static void pct_cell(json_t *row, double v)
{
    json_array_append_new(json_object_get(row, "c"), pv_dt_cell(v < 0 ? json_null()
                                                                       : pv_dt_real(v)));
}

/* torch-tb-profiler's GPU summary, a row per GPU that ran kernels. */
static json_t *pytorch_gpu_table(const pv_pytorch_overview *l)
{
    json_t *t = pv_dt_new();
    pv_dt_col(t, "device", "string", "GPU", NULL);
    pv_dt_col(t, "utilization", "number", "GPU Utilization (%)", NULL);
    pv_dt_col(t, "sm_efficiency", "number", "Est. SM Efficiency (%)", NULL);
    pv_dt_col(t, "occupancy", "number", "Est. Achieved Occupancy (%)", NULL);
    for (size_t i = 0; i < l->n_gpus; i++) {
        const pv_pytorch_gpu *g = &l->gpus[i];
        char name[32];
        snprintf(name, sizeof name, "GPU %d", (int)g->device);
        json_t *row = pv_dt_row(t);
        pv_dt_str(row, name);
        pv_dt_num(row, 100 * g->utilization);
        pct_cell(row, g->sm_efficiency < 0 ? -1 : 100 * g->sm_efficiency);
        pct_cell(row, g->occupancy_pct);
    }
    return t;
}

static json_t *recommendation_table(const pv_overview_result *r)
{
    const pv_bottleneck *b = &r->ip.analysis.bottleneck;
    const char *dev = pv_hardware_name(r->ip.steps.hardware);
    json_t *t = pv_dt_new();
    pv_dt_col(t, "tip_type", "string", "tip_type", NULL);
    pv_dt_col(t, "link", "string", "link", NULL);
    pv_dt_col(t, "description", "string", "description", NULL);
    if (r->pytorch.present)
        return t;
    tip(t, "faq", "Refer to the TF2 Profiler FAQ", "Tool troubleshooting / FAQ");
    const char *host_desc = "Next steps for reducing the Host time";
    tip(t, "host",
        "input_pipeline_analyzer (especially Section 3 for the breakdown of input operations on "
        "the Host)",
        host_desc);
    tip(t, "host",
        "trace_viewer (look at the activities on the timeline of each Host Thread near the bottom "
        "of the trace view)",
        host_desc);
    const char *dev_desc = "Next steps for reducing the Device time";
    json_t *row = pv_dt_row(t);
    pv_dt_str(row, "device");
    char buf[256];
    /* On a TPU the reference sends people to the op profile, elsewhere to
     * the framework op table. */
    snprintf(buf, sizeof buf, "%s (identify the time-consuming operations executed on the %s)",
             r->ip.steps.hardware == PV_HW_TPU ? "op_profile" : "framework_op_stats", dev);
    pv_dt_str(row, buf);
    pv_dt_str(row, dev_desc);
    row = pv_dt_row(t);
    pv_dt_str(row, "device");
    /* The reference's timeline is per TPU core, not per chip. */
    snprintf(buf, sizeof buf,
             "trace_viewer (look at the activities on the timeline of each %s%s in the trace "
             "view)",
             dev, r->ip.steps.hardware == PV_HW_TPU ? " core" : "");
    pv_dt_str(row, buf);
    pv_dt_str(row, dev_desc);
    tip(t, "doc",
        "<a href=\"https://www.tensorflow.org/guide/data_performance_analysis\" "
        "target=\"_blank\">Analyze tf.data performance with the TF Profiler</a>",
        "Other useful resources");
    tip(t, "doc",
        "<a href=\"https://www.tensorflow.org/guide/data_performance\" target=\"_blank\">Better "
        "performance with the tf.data API</a>",
        "Other useful resources");
    pv_dt_prop(t, "bottleneck", b->input_classification);
    pv_dt_prop(t, "statement", b->input_statement);
    pv_dt_prop(t, "kernel_launch_bottleneck", b->kernel_launch_classification);
    pv_dt_prop(t, "kernel_launch_statement", b->kernel_launch_statement);
    pv_dt_prop(t, "all_other_bottleneck", b->all_other_classification);
    pv_dt_prop(t, "all_other_statement", b->all_other_statement);
    pv_dt_prop(t, "precision_statement", r->precision_statement);
    pv_dt_prop(t, "device_collectives_bottleneck", b->device_collectives_classification);
    pv_dt_prop(t, "device_collectives_statement", b->device_collectives_statement);
    const char *nb = strcmp(b->input_classification, "host") == 0     ? "device"
                     : strcmp(b->input_classification, "device") == 0 ? "host"
                                                                      : "";
    pv_dt_prop(t, "non_bottleneck_tip_types", nb);
    if (r->ip.bottleneck != NULL) {
        pv_dt_prop(t, "pv_input_bottleneck_stage", r->ip.bottleneck->op->name);
        pv_dt_prop(t, "pv_input_advice", r->ip.bottleneck_advice);
    }
    return t;
}

static json_t *inference_table(void)
{
    json_t *t = pv_dt_new();
    pv_dt_col(t, "percentile", "string", "percentile", NULL);
    pv_dt_col(t, "hostTimeMs", "number", "Host time (in ms)", NULL);
    pv_dt_col(t, "deviceTimeMs", "number", "Device time (in ms)", NULL);
    pv_dt_col(t, "communicationTimeMs", "number", "Host-device communication time (in ms)", NULL);
    pv_dt_col(t, "totalTimeMs", "number", "Total latency (in ms)", NULL);
    return t;
}

int pv_overview_write(const pv_overview_result *r, pv_buf *out, pv_error *err)
{
    pv__jw w;
    pv__jw_init(&w, out);
    pv__jw_raw(&w, "[", 1);
    pv_json_tree(&w, analysis_table(r));
    pv__jw_raw(&w, ",", 1);
    pv_input_pipeline_step_table_write(&r->ip, &w);
    pv__jw_raw(&w, ",", 1);
    pv_json_tree(&w, run_environment_table(r));
    pv__jw_raw(&w, ",", 1);
    pv_json_tree(&w, recommendation_table(r));
    pv__jw_raw(&w, ",", 1);
    pv_json_tree(&w, inference_table());
    pv__jw_lit(&w, ",{},");
    pv_json_tree(&w, pv_input_pipeline_diagnostics_json(r->ip.diagnostics, r->ip.n_diagnostics));
    if (r->pytorch.present) {
        pv__jw_raw(&w, ",", 1);
        pv_json_tree(&w, pytorch_table(&r->pytorch));
        pv__jw_raw(&w, ",", 1);
        pv_json_tree(&w, pytorch_gpu_table(&r->pytorch));
    }
    pv__jw_raw(&w, "]", 1);
    return pv_json_finish(&w, err);
}

json_t *pv_overview_to_json(const pv_overview_result *r)
{
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    pv_error err = {0};
    json_t *j = pv_overview_write(r, &b, &err) == 0 ? pv_json_loadb(&b) : NULL;
    pv_buf_fini(&b);
    return j;
}
