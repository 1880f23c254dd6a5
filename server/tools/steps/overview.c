/* overview: top ops, idle and eager shares, precision remark and run
 * environment (reference: xprof/convert/op_stats_to_overview_page.cc). */
#include "tools/steps/overview.h"
#include "tools/kineto/kineto.h"
#include "util/pbwire.h"

#include <stdlib.h>
#include <string.h>

/* Share of 16-bit device compute under which the page suggests more. */
#define PRECISION_16BIT_MIN_PERCENT 10.0
/* Eager share above which the page suggests tf.function. */
#define EAGER_HIGH_PERCENT 10.0

static size_t top_ops(const pv_op_db *db, pv_overview_op *out)
{
    size_t n = 0;
    double cum = 0;
    for (size_t i = 0; i < db->n_ops && n < PV_OVERVIEW_TOP_OPS; i++) {
        const pv_op_metrics *op = &db->ops[i];
        /* Share of op time, idle excluded, as the reference's TF-level
         * device table (built without its IDLE row) computes it. */
        double f = db->op_time_ps > 0 ? (double)op->self_time_ps / (double)db->op_time_ps : 0;
        cum += f;
        out[n++] = (pv_overview_op){op, f, cum};
    }
    return n;
}

static uint64_t occurrences(const pv_op_db *db)
{
    uint64_t n = 0;
    for (size_t i = 0; i < db->n_ops; i++)
        n += db->ops[i].occurrences;
    return n;
}

/* GPU model name the way the reference builds it from the plane's device
 * capabilities; NULL for an unknown vendor (the caller then says "GPU"). */
static const char *gpu_name(const char *vendor, int64_t major, int64_t minor)
{
    if (vendor != NULL && strcmp(vendor, "Nvidia") == 0) {
        switch (major) {
        case 2: return "Nvidia GPU (Fermi)";
        case 3: return "Nvidia GPU (Kepler)";
        case 5: return "Nvidia GPU (Maxwell)";
        case 6: return "Nvidia GPU (Pascal)";
        case 7: return minor < 5 ? "Nvidia GPU (Volta)" : "Nvidia GPU (Turing)";
        case 8: return minor < 9 ? "Nvidia GPU (Ampere)" : "Nvidia GPU (Ada Lovelace)";
        case 9: return "Nvidia GPU (Hopper)";
        case 10: return "Nvidia GPU (Blackwell)";
        default: return "Nvidia GPU";
        }
    }
    if (vendor != NULL && strcmp(vendor, "AMD") == 0) {
        /* Only pairs that name one architecture resolve to a gfx id. */
        if (major == 9 && minor == 4)
            return "AMD GPU - gfx942";
        if (major == 9 && minor == 5)
            return "AMD GPU - gfx950";
        switch (major) {
        case 9: return "AMD GPU - gfx-9XX series";
        case 10: return "AMD GPU - gfx-10XX series";
        case 11: return "AMD GPU - gfx-11XX series";
        default: return "AMD GPU";
        }
    }
    return NULL;
}

static bool plane_stat_i64(const pv_model *m, const pv_plane *p, uint32_t name, int64_t *v)
{
    for (uint64_t i = p->first_stat; name != 0 && i < p->first_stat + p->n_stats; i++) {
        const pv_stat *s = &m->stats[i];
        if (s->name != name)
            continue;
        if (s->type == PV_STAT_I64)
            *v = s->v.i64;
        else if (s->type == PV_STAT_U64)
            *v = (int64_t)s->v.u64;
        else
            continue;
        return true;
    }
    return false;
}

static const char *plane_stat_str(const pv_model *m, const pv_plane *p, uint32_t name)
{
    for (uint64_t i = p->first_stat; name != 0 && i < p->first_stat + p->n_stats; i++)
        if (m->stats[i].name == name && m->stats[i].type == PV_STAT_STR)
            return pv_model_str(m, m->stats[i].v.str);
    return NULL;
}

static const char *device_type(const pv_model *m, uint32_t hw)
{
    if (hw == PV_HW_CPU_ONLY)
        return "CPU";
    uint32_t major_sid = pv_model_str_find(m, "compute_cap_major");
    uint32_t minor_sid = pv_model_str_find(m, "compute_cap_minor");
    uint32_t vendor_sid = pv_model_str_find(m, "device_vendor");
    uint32_t type_sid = pv_model_str_find(m, "device_type_string");
    for (uint32_t i = 0; i < m->n_planes; i++) {
        const pv_plane *p = &m->planes[i];
        if (hw == PV_HW_TPU && p->kind == PV_PLANE_TPU) {
            const char *s = plane_stat_str(m, p, type_sid);
            return s != NULL && s[0] ? s : "TPU";
        }
        if (hw == PV_HW_GPU && p->kind == PV_PLANE_GPU) {
            /* The first GPU plane speaks for all, as in the reference. */
            int64_t major = 0, minor = 0;
            plane_stat_i64(m, p, major_sid, &major);
            plane_stat_i64(m, p, minor_sid, &minor);
            const char *name = gpu_name(plane_stat_str(m, p, vendor_sid), major, minor);
            return name != NULL ? name : "GPU";
        }
    }
    return hw == PV_HW_TPU ? "TPU" : "GPU";
}

/* Reads one varint field of a serialized ProfileOptions (field 2 is
 * host_tracer_level) with the one wire reader; -1 when absent or
 * malformed. */
static int profile_option(const uint8_t *p, size_t len, uint32_t want)
{
    const uint8_t *end = p + len;
    pv_pb_field f;
    while (pv_pb_field_in(&p, end, end, &f) == PV_PB_OK) {
        if (f.num == want && f.wt == 0)
            return f.v <= 100 ? (int)f.v : -1;
    }
    return -1;
}

/* Profile start/stop and tracer level from the "Task Environment" plane. */
static void task_environment(const pv_model *m, pv_overview_result *out)
{
    out->host_tracer_level = -1;
    uint32_t start = pv_model_str_find(m, "profile_start_time");
    uint32_t stop = pv_model_str_find(m, "profile_stop_time");
    uint32_t opts = pv_model_str_find(m, "profile_options");
    for (uint32_t i = 0; i < m->n_planes; i++) {
        const pv_plane *p = &m->planes[i];
        if (strcmp(pv_model_str(m, p->name), "Task Environment") != 0)
            continue;
        for (uint64_t k = p->first_stat; k < p->first_stat + p->n_stats; k++) {
            const pv_stat *st = &m->stats[k];
            uint64_t v = st->type == PV_STAT_I64 ? (uint64_t)st->v.i64 : st->v.u64;
            bool num = st->type == PV_STAT_I64 || st->type == PV_STAT_U64;
            if (st->name == start && start != 0 && num)
                out->profile_start_ns = v;
            else if (st->name == stop && stop != 0 && num)
                out->profile_stop_ns = v;
            else if (st->name == opts && opts != 0 && st->type == PV_STAT_BYTES &&
                     st->v.blob < m->n_blobs)
                out->host_tracer_level =
                    profile_option(m->blobs[st->v.blob].data, m->blobs[st->v.blob].len, 2);
        }
    }
}

int pv_tool_overview(const pv_model *m, const pv_overview_query *q, pv_arena *a,
                     pv_overview_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_input_pipeline_query iq = {.steps = {false, false}};
    if (q != NULL)
        iq.steps = q->steps;
    int rc = pv_tool_input_pipeline(m, q != NULL ? &iq : NULL, a, &out->ip, err);
    if (rc != 0)
        return rc;
    pv_steps_device_ops(m, a, &out->device_ops);
    pv__overview_finish(&m, 1, a, out);
    return 0;
}

void pv__overview_finish(const pv_model *const *ms, size_t n_models, pv_arena *a,
                         pv_overview_result *out)
{
    const pv_model *m = ms[0];
    const pv_op_db *host = &out->ip.host_ops;
    const pv_op_db *dev = &out->device_ops;

    out->n_top_device = top_ops(dev, out->top_device);
    out->n_top_host = top_ops(host, out->top_host);

    uint64_t nh = occurrences(host), nd = 0;
    for (size_t k = 0; k < n_models; k++)
        nd += pv__overview_device_op_count(ms[k], a);
    if (nh + nd > 0) {
        out->host_tf_op_percent = 100.0 * (double)nh / (double)(nh + nd);
        out->device_tf_op_percent = 100.0 * (double)nd / (double)(nh + nd);
    }
    if (host->op_time_ps > 0)
        out->host_op_time_eager_percent =
            100.0 * (double)host->eager_self_ps / (double)host->op_time_ps;
    if (dev->op_time_ps > 0)
        out->device_op_time_eager_percent =
            100.0 * (double)dev->eager_self_ps / (double)dev->op_time_ps;
    out->device_idle_percent =
        dev->total_time_ps > 0
            ? 100.0 * (1.0 - (double)dev->op_time_ps / (double)dev->total_time_ps)
            : -1.0;
    out->host_idle_percent =
        host->total_time_ps > 0
            ? 100.0 * (1.0 - (double)host->op_time_ps / (double)host->total_time_ps)
            : -1.0;
    if (out->device_idle_percent < 0 && dev->total_time_ps > 0)
        out->device_idle_percent = 0;
    if (out->host_idle_percent < 0 && host->total_time_ps > 0)
        out->host_idle_percent = 0;

    const pv_step_analysis *an = &out->ip.analysis;
    out->precision_statement = "";
    if (out->ip.steps.hardware != PV_HW_CPU_ONLY &&
        an->compute16_percent + an->compute32_percent > 0 &&
        an->compute16_percent < PRECISION_16BIT_MIN_PERCENT)
        out->precision_statement = pv_arena_printf(
            a,
            "Only %.1f%% of device computation is 16 bit. So you might want to replace more "
            "32-bit Ops by 16-bit Ops to improve performance (if the reduced accuracy is "
            "acceptable).",
            an->compute16_percent);
    out->eager_statement = "";
    if (out->host_op_time_eager_percent > EAGER_HIGH_PERCENT ||
        out->device_op_time_eager_percent > EAGER_HIGH_PERCENT)
        out->eager_statement = pv_arena_printf(
            a,
            "%.1f%% of Op time on the host and %.1f%% on the device are spent on eager "
            "execution. Wrap the step in tf.function to run it as a graph.",
            out->host_op_time_eager_percent, out->device_op_time_eager_percent);

    out->device_type = device_type(m, out->ip.steps.hardware);
    out->device_core_count = out->ip.steps.n_device_planes;
    /* The run environment lists every host's names; the first host
     * speaks for the device kind and the profiling session. */
    size_t n_names = 0;
    for (size_t k = 0; k < n_models; k++)
        n_names += ms[k]->n_hostnames;
    out->hostnames = pv_arena_zalloc(a, (n_names + 1u) * sizeof *out->hostnames);
    for (size_t k = 0; k < n_models; k++)
        for (uint32_t i = 0; i < ms[k]->n_hostnames; i++)
            out->hostnames[out->n_hostnames++] = pv_model_str(ms[k], ms[k]->hostnames[i]);
    out->task_count = (uint32_t)n_models;
    task_environment(m, out);

    pv_kineto k;
    pv_kineto_init(&k, m, a);
    if (k.present) {
        /* TensorFlow's advice (tf.data, tf.function, mixed_float16) does
         * not apply; torch-tb-profiler's does. */
        pv_kineto_link_hosts(&k, a);
        pv_overview_pytorch(&k, &out->ip.steps, n_models == 1, a, &out->pytorch);
        out->precision_statement = "";
        out->eager_statement = "";
    }
}
