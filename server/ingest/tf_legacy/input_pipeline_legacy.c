/* input_pipeline_legacy: legacy overview_page.pb / input_pipeline.pb.
 *
 * Fields read (package tensorflow.profiler; the rest is skipped):
 *
 *   InputPipelineAnalysisResult  4 step_details (Any)  5 input_time_breakdown
 *                                6 input_op_details  7 recommendation
 *                                9 hardware_type  12 diagnostics
 *   PerGenericStepDetails        1 step_number  14 step_name  2 step_time_ms
 *                                3 unknown  11 host_wait_input  12 host_to_device
 *                                5 output  6 device_compute  7 device_to_device
 *                                13 device_collectives  8 host_compute
 *                                9 host_prepare  10 host_compile (doubles, ms)
 *   InputTimeBreakdown           1 demanded  2 advanced  3 preprocessing
 *                                4 enqueue  5 unclassified (doubles, us)
 *   InputOpDetails               1 op_name  2 count  3 time_in_ms
 *                                4 time_in_percent  5 self_time_in_ms
 *                                6 self_time_in_percent  7 category
 *   InputPipelineAnalysisRecommendation  2 bottleneck_analysis (Any)
 *                                3 summary_next_step
 *   BottleneckAnalysis           1/2 input class/statement, 3/4 kernel
 *                                launch, 5/6 all other, 11/12 collectives,
 *                                7 input % 8 output % 9 idle % 10 compute %
 *   Diagnostics                  1 info  2 warnings  3 errors
 *   OverviewPage                 2 input_analysis  3 analysis
 *                                4 recommendation  6 run_environment
 *                                8 diagnostics
 *   OverviewPageAnalysis         2 device idle %  3 host idle %
 *                                4 top_device_ops  9/10 16/32-bit %
 *                                11/12 host/device TF op %  14/15 eager %
 *   OverviewTfOp                 1 name  2 category  3 self fraction
 *                                4 cumulative fraction
 *   OverviewPageRecommendation   1 bottleneck  2 statement
 *                                6 recommendation (Any GenericRecommendation:
 *                                5 precision_statement)
 *   OverviewPageRunEnvironment   3 hostnames (map: 1 key)  4 device_type
 *                                5 device_core_count */
#include "ingest/tf_legacy/input_pipeline_legacy.h"

#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

/* ---- protobuf wire reading ---------------------------------------------- */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

typedef struct pb {
    const uint8_t *p;
    const uint8_t *end;
    bool bad;              /* set on the first malformed byte; sticky */
} pb;

static uint64_t rd_varint(pb *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            break;
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0)
            return v;
    }
    r->bad = true;
    return 0;
}

static bool rd_next(pb *r, uint32_t *field, uint32_t *wt)
{
    if (r->bad || r->p >= r->end)
        return false;
    uint64_t key = rd_varint(r);
    *field = (uint32_t)(key >> 3);
    *wt = (uint32_t)(key & 7);
    if (r->bad || *field == 0) {
        r->bad = true;
        return false;
    }
    return true;
}

/* The length-delimited payload at r as its own reader. */
static pb rd_sub(pb *r)
{
    uint64_t n = rd_varint(r);
    pb s = {r->p, r->p, false};
    if (r->bad || n > (uint64_t)(r->end - r->p)) {
        r->bad = true;
        s.bad = true;
        return s;
    }
    s.end = r->p + n;
    r->p += n;
    return s;
}

static void rd_skip(pb *r, uint32_t wt)
{
    size_t need = wt == WT_I64 ? 8 : wt == WT_I32 ? 4 : 0;
    if (wt == WT_VARINT) {
        rd_varint(r);
    } else if (wt == WT_LEN) {
        rd_sub(r);
    } else if (need > 0 && (size_t)(r->end - r->p) >= need) {
        r->p += need;
    } else {
        r->bad = true;
    }
}

static double rd_double(pb *r, uint32_t wt)
{
    if (wt != WT_I64 || r->end - r->p < 8) {
        rd_skip(r, wt);
        return 0;
    }
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint64_t rd_uint(pb *r, uint32_t wt)
{
    if (wt != WT_VARINT) {
        rd_skip(r, wt);
        return 0;
    }
    return rd_varint(r);
}

static const char *rd_str(pb *r, uint32_t wt, pv_arena *a)
{
    if (wt != WT_LEN) {
        rd_skip(r, wt);
        return "";
    }
    pb s = rd_sub(r);
    return s.bad ? "" : pv_arena_strndup(a, (const char *)s.p, (size_t)(s.end - s.p));
}

/* A google.protobuf.Any: *type gets the last component of its type_url. */
static pb rd_any(pb *r, uint32_t wt, const char **type, pv_arena *a)
{
    pb value = {NULL, NULL, false};
    *type = "";
    if (wt != WT_LEN) {
        rd_skip(r, wt);
        return value;
    }
    pb any = rd_sub(r);
    uint32_t f, t;
    while (rd_next(&any, &f, &t)) {
        if (f == 1) {
            const char *url = rd_str(&any, t, a);
            const char *dot = strrchr(url, '.');
            *type = dot != NULL ? dot + 1 : url;
        } else if (f == 2 && t == WT_LEN) {
            value = rd_sub(&any);
        } else {
            rd_skip(&any, t);
        }
    }
    r->bad = r->bad || any.bad;
    return value;
}

/* ---- growable arrays (scratch; moved to the arena when done) ------------ */

#define PUSH(arr, n, cap, val)                                           \
    do {                                                                 \
        if ((n) == (cap)) {                                              \
            (cap) = (cap) ? 2 * (cap) : 16;                              \
            (arr) = pv_xrealloc((arr), (cap) * sizeof *(arr));           \
        }                                                                \
        (arr)[(n)++] = (val);                                            \
    } while (0)

static void *to_arena(pv_arena *a, void *v, size_t n, size_t size)
{
    void *out = pv_arena_zalloc(a, (n ? n : 1) * size);
    if (n > 0)
        memcpy(out, v, n * size);
    free(v);
    return out;
}

/* ---- input pipeline ------------------------------------------------------- */

static pv_step_details read_step(pb v, pv_arena *a, bool *bad)
{
    pv_step_details d;
    memset(&d, 0, sizeof d);
    int64_t number = 0;
    const char *name = "";
    uint32_t f, t;
    /* Field number -> pv_bd + 1 (0: not a time field). */
    static const int field_of[15] = {
        [2] = PV_BD_STEP_TIME + 1, [3] = PV_BD_UNKNOWN + 1, [5] = PV_BD_OUTPUT + 1,
        [6] = PV_BD_DEVICE_COMPUTE + 1, [7] = PV_BD_DEVICE_TO_DEVICE + 1,
        [8] = PV_BD_HOST_COMPUTE + 1, [9] = PV_BD_HOST_PREPARE + 1,
        [10] = PV_BD_HOST_COMPILE + 1, [11] = PV_BD_HOST_WAIT_INPUT + 1,
        [12] = PV_BD_HOST_TO_DEVICE + 1, [13] = PV_BD_DEVICE_COLLECTIVES + 1};
    while (rd_next(&v, &f, &t)) {
        if (f == 1)
            number = (int64_t)rd_uint(&v, t);
        else if (f == 14)
            name = rd_str(&v, t, a);
        else if (f < 15 && field_of[f] != 0)
            d.ms[field_of[f] - 1] = rd_double(&v, t);
        else
            rd_skip(&v, t);
    }
    *bad = *bad || v.bad;
    d.ms[PV_BD_INPUT] = d.ms[PV_BD_HOST_WAIT_INPUT] + d.ms[PV_BD_HOST_TO_DEVICE];
    /* Legacy details do not split compute by precision. */
    d.compute32_ms = d.ms[PV_BD_DEVICE_COMPUTE];
    d.group_id = number;
    d.name = name[0] ? name : pv_arena_printf(a, "%lld", (long long)number);
    return d;
}

static uint32_t input_cat_of(const char *s)
{
    static const char *const names[] = {"Enqueue", "Demanded file read", "Advanced file read",
                                        "Preprocessing"};
    for (uint32_t i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return PV_INPUT_UNKNOWN;
}

static void read_input_op(pb v, pv_arena *a, pv_op_metrics *op, pv_input_op *in)
{
    uint32_t f, t;
    memset(op, 0, sizeof *op);
    op->name = "";
    op->type = "Dataset";
    op->category = PV_TF_OP_DATASET;
    *in = (pv_input_op){op, PV_INPUT_UNKNOWN, 0, 0};
    while (rd_next(&v, &f, &t)) {
        switch (f) {
        case 1: op->name = rd_str(&v, t, a); break;
        case 2: op->occurrences = rd_uint(&v, t); break;
        case 3: op->time_ps = (int64_t)(rd_double(&v, t) * 1e9); break;
        case 4: in->time_percent = rd_double(&v, t); break;
        case 5: op->self_time_ps = (int64_t)(rd_double(&v, t) * 1e9); break;
        case 6: in->self_time_percent = rd_double(&v, t); break;
        case 7: in->category = input_cat_of(rd_str(&v, t, a)); break;
        default: rd_skip(&v, t); break;
        }
    }
}

typedef struct file_verdict {
    bool present;
    pv_bottleneck b;
} file_verdict;

static void read_bottleneck(pb v, pv_arena *a, file_verdict *fv)
{
    uint32_t f, t;
    fv->present = true;
    pv_bottleneck *b = &fv->b;
    while (rd_next(&v, &f, &t)) {
        switch (f) {
        case 1: b->input_classification = rd_str(&v, t, a); break;
        case 2: b->input_statement = rd_str(&v, t, a); break;
        case 3: b->kernel_launch_classification = rd_str(&v, t, a); break;
        case 4: b->kernel_launch_statement = rd_str(&v, t, a); break;
        case 5: b->all_other_classification = rd_str(&v, t, a); break;
        case 6: b->all_other_statement = rd_str(&v, t, a); break;
        case 11: b->device_collectives_classification = rd_str(&v, t, a); break;
        case 12: b->device_collectives_statement = rd_str(&v, t, a); break;
        default: rd_skip(&v, t); break;
        }
    }
}

static void read_diagnostics(pb v, pv_arena *a, pv_diagnostic **d, size_t *n)
{
    pv_diagnostic *arr = NULL;
    size_t cap = 0;
    uint32_t f, t;
    *n = 0;
    while (rd_next(&v, &f, &t)) {
        const char *sev = f == 1 ? "INFO" : f == 2 ? "WARNING" : f == 3 ? "ERROR" : NULL;
        if (sev == NULL) {
            rd_skip(&v, t);
            continue;
        }
        PUSH(arr, *n, cap, ((pv_diagnostic){sev, rd_str(&v, t, a)}));
    }
    *d = to_arena(a, arr, *n, sizeof *arr);
}

/* Keeps the file's words where it has them, the recomputed ones else. */
static void apply_verdict(pv_bottleneck *b, const file_verdict *fv)
{
    const pv_bottleneck *f = &fv->b;
#define KEEP(x) if (f->x != NULL) b->x = f->x
    KEEP(input_classification);
    KEEP(input_statement);
    KEEP(kernel_launch_classification);
    KEEP(kernel_launch_statement);
    KEEP(all_other_classification);
    KEEP(all_other_statement);
    KEEP(device_collectives_classification);
    KEEP(device_collectives_statement);
    KEEP(summary_next_step);
#undef KEEP
}

static int bad_file(pv_error *err, const char *path, const char *what)
{
    return pv_error_set(err, PV_EFORMAT, path, PV_NO_OFFSET, "%s", what);
}

int pv_input_pipeline_legacy_read(const uint8_t *data, size_t len, const char *path,
                                  pv_arena *a, pv_input_pipeline_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pb r = {data, data + len, false};
    pv_step_details *steps = NULL;
    size_t n_steps = 0, cap_steps = 0;
    pv_op_metrics *ops = NULL;
    pv_input_op *ins = NULL;
    size_t n_ops = 0, cap_ops = 0, n_ins = 0, cap_ins = 0;
    file_verdict fv = {false, {0}};
    bool other_steps = false;
    const char *hw = "";
    uint32_t f, t;
    while (rd_next(&r, &f, &t)) {
        if (f == 4) {
            const char *type;
            pb v = rd_any(&r, t, &type, a);
            if (strcmp(type, "PerGenericStepDetails") == 0)
                PUSH(steps, n_steps, cap_steps, read_step(v, a, &r.bad));
            else
                other_steps = true;
        } else if (f == 5 && t == WT_LEN) {
            pb v = rd_sub(&r);
            uint32_t g, u;
            pv_input_breakdown *b = &out->breakdown;
            double *dst[] = {NULL, &b->demanded_file_read_us, &b->advanced_file_read_us,
                             &b->preprocessing_us, &b->enqueue_us,
                             &b->unclassified_non_enqueue_us};
            while (rd_next(&v, &g, &u)) {
                if (g >= 1 && g <= 5)
                    *dst[g] = rd_double(&v, u);
                else
                    rd_skip(&v, u);
            }
            r.bad = r.bad || v.bad;
        } else if (f == 6 && t == WT_LEN) {
            pv_op_metrics op;
            pv_input_op in;
            read_input_op(rd_sub(&r), a, &op, &in);
            PUSH(ops, n_ops, cap_ops, op);
            PUSH(ins, n_ins, cap_ins, in);   /* in.op is fixed up below */
        } else if (f == 7 && t == WT_LEN) {
            pb v = rd_sub(&r);
            uint32_t g, u;
            while (rd_next(&v, &g, &u)) {
                const char *type;
                if (g == 2) {
                    pb b = rd_any(&v, u, &type, a);
                    if (strcmp(type, "BottleneckAnalysis") == 0)
                        read_bottleneck(b, a, &fv);
                } else if (g == 3) {
                    fv.b.summary_next_step = rd_str(&v, u, a);
                } else {
                    rd_skip(&v, u);
                }
            }
            r.bad = r.bad || v.bad;
        } else if (f == 9) {
            hw = rd_str(&r, t, a);
        } else if (f == 12 && t == WT_LEN) {
            read_diagnostics(rd_sub(&r), a, &out->diagnostics, &out->n_diagnostics);
        } else {
            rd_skip(&r, t);
        }
    }
    int rc = 0;
    if (r.bad)
        rc = bad_file(err, path, "not an InputPipelineAnalysisResult: malformed protobuf");
    else if (other_steps)
        rc = pv_error_set(err, PV_ENOTIMPL, path, PV_NO_OFFSET,
                          "TPU step details in legacy input pipeline files are not read yet");
    if (rc != 0) {
        free(steps);
        free(ops);
        free(ins);
        return rc;
    }

    out->steps.hardware = strcmp(hw, "GPU") == 0 ? PV_HW_GPU
                          : strcmp(hw, "TPU") == 0 ? PV_HW_TPU
                                                   : PV_HW_CPU_ONLY;
    out->steps.n_steps = n_steps;
    out->steps.has_trace_times = false;
    out->host_ops.n_ops = n_ops;
    out->host_ops.ops = to_arena(a, ops, n_ops, sizeof *ops);
    out->n_input_ops = n_ops;
    out->input_ops = to_arena(a, ins, n_ops, sizeof *ins);
    for (size_t i = 0; i < n_ops; i++) {
        out->input_ops[i].op = &out->host_ops.ops[i];
        out->input_op_self_ps += out->host_ops.ops[i].self_time_ps;
        if (out->bottleneck == NULL ||
            out->input_ops[i].op->self_time_ps > out->bottleneck->op->self_time_ps)
            out->bottleneck = &out->input_ops[i];
    }
    const pv_input_breakdown *b = &out->breakdown;
    out->tfdata_used = b->demanded_file_read_us > 0 || b->advanced_file_read_us > 0 ||
                       b->preprocessing_us > 0;
    pv_step_analysis_from_details(to_arena(a, steps, n_steps, sizeof *steps), n_steps,
                                  out->tfdata_used, a, &out->analysis);
    if (fv.present || fv.b.summary_next_step != NULL)
        apply_verdict(&out->analysis.bottleneck, &fv);
    if (out->bottleneck != NULL)
        out->bottleneck_advice = pv__input_advice(a, out->bottleneck,
                                                  out->analysis.bottleneck.input_percent);
    return 0;
}

/* ---- overview ------------------------------------------------------------- */

static void read_top_op(pb v, pv_arena *a, pv_op_metrics *op, pv_overview_op *top)
{
    uint32_t f, t;
    memset(op, 0, sizeof *op);
    op->name = "";
    op->type = "";
    *top = (pv_overview_op){op, 0, 0};
    while (rd_next(&v, &f, &t)) {
        switch (f) {
        case 1: op->name = rd_str(&v, t, a); break;
        case 2: op->type = rd_str(&v, t, a); break;
        case 3: top->self_time_fraction = rd_double(&v, t); break;
        case 4: top->cumulative_time_fraction = rd_double(&v, t); break;
        default: rd_skip(&v, t); break;
        }
    }
}

static void read_analysis(pb v, pv_arena *a, pv_overview_result *out)
{
    uint32_t f, t;
    pv_op_metrics *ops = pv_arena_zalloc(a, PV_OVERVIEW_TOP_OPS * sizeof *ops);
    out->device_ops.ops = ops;
    while (rd_next(&v, &f, &t)) {
        if (f == 4 && t == WT_LEN && out->n_top_device < PV_OVERVIEW_TOP_OPS) {
            size_t i = out->n_top_device++;
            read_top_op(rd_sub(&v), a, &ops[i], &out->top_device[i]);
            out->device_ops.n_ops = out->n_top_device;
            continue;
        }
        double *dst = f == 2 ? &out->device_idle_percent
                      : f == 3 ? &out->host_idle_percent
                      : f == 9 ? &out->ip.analysis.compute16_percent
                      : f == 10 ? &out->ip.analysis.compute32_percent
                      : f == 11 ? &out->host_tf_op_percent
                      : f == 12 ? &out->device_tf_op_percent
                      : f == 14 ? &out->host_op_time_eager_percent
                      : f == 15 ? &out->device_op_time_eager_percent
                                : NULL;
        if (dst != NULL)
            *dst = rd_double(&v, t);
        else
            rd_skip(&v, t);
    }
}

static void read_recommendation(pb v, pv_arena *a, pv_overview_result *out, file_verdict *fv)
{
    uint32_t f, t;
    while (rd_next(&v, &f, &t)) {
        if (f == 1) {
            fv->b.input_classification = rd_str(&v, t, a);
        } else if (f == 2) {
            fv->b.input_statement = rd_str(&v, t, a);
        } else if (f == 6) {
            const char *type;
            pb g = rd_any(&v, t, &type, a);
            uint32_t h, u;
            while (strcmp(type, "GenericRecommendation") == 0 && rd_next(&g, &h, &u)) {
                if (h == 5)
                    out->precision_statement = rd_str(&g, u, a);
                else
                    rd_skip(&g, u);
            }
        } else {
            rd_skip(&v, t);
        }
    }
}

static void read_run_environment(pb v, pv_arena *a, pv_overview_result *out)
{
    const char **hosts = NULL;
    size_t n = 0, cap = 0;
    uint32_t f, t;
    while (rd_next(&v, &f, &t)) {
        if (f == 3 && t == WT_LEN) {
            pb e = rd_sub(&v);
            uint32_t g, u;
            while (rd_next(&e, &g, &u)) {
                if (g == 1)
                    PUSH(hosts, n, cap, rd_str(&e, u, a));
                else
                    rd_skip(&e, u);
            }
        } else if (f == 4) {
            out->device_type = rd_str(&v, t, a);
        } else if (f == 5) {
            out->device_core_count = (uint32_t)rd_uint(&v, t);
        } else {
            rd_skip(&v, t);
        }
    }
    out->n_hostnames = (uint32_t)n;
    out->hostnames = to_arena(a, (void *)hosts, n, sizeof *hosts);
}

int pv_overview_legacy_read(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                            pv_overview_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    out->device_type = "";
    out->precision_statement = "";
    out->eager_statement = "";
    pb r = {data, data + len, false};
    pb analysis = {NULL, NULL, false}, reco = {NULL, NULL, false};
    pb diag = {NULL, NULL, false}, env = {NULL, NULL, false};
    bool have_ip = false;
    uint32_t f, t;
    /* The input analysis first: the others refine what it computed. */
    while (rd_next(&r, &f, &t)) {
        if (t != WT_LEN) {
            rd_skip(&r, t);
            continue;
        }
        pb v = rd_sub(&r);
        if (f == 2) {
            int rc = pv_input_pipeline_legacy_read(v.p, (size_t)(v.end - v.p), path, a,
                                                   &out->ip, err);
            if (rc != 0)
                return rc;
            have_ip = true;
        } else if (f == 3) {
            analysis = v;
        } else if (f == 4) {
            reco = v;
        } else if (f == 6) {
            env = v;
        } else if (f == 8) {
            diag = v;
        }
    }
    if (r.bad)
        return bad_file(err, path, "not an OverviewPage: malformed protobuf");
    if (!have_ip)
        out->ip.steps.hardware = PV_HW_CPU_ONLY;
    double c16 = out->ip.analysis.compute16_percent, c32 = out->ip.analysis.compute32_percent;
    if (analysis.p != NULL)
        read_analysis(analysis, a, out);
    /* proto3 writes no zero, and TensorFlow left idle at 0 on GPUs: an
     * absent idle share is unknown, not 0. */
    if (out->device_idle_percent <= 0)
        out->device_idle_percent = -1;
    if (out->host_idle_percent <= 0)
        out->host_idle_percent = -1;
    if (out->ip.analysis.compute16_percent + out->ip.analysis.compute32_percent <= 0) {
        out->ip.analysis.compute16_percent = c16;
        out->ip.analysis.compute32_percent = c32;
    }
    file_verdict fv = {false, {0}};
    if (reco.p != NULL)
        read_recommendation(reco, a, out, &fv);
    apply_verdict(&out->ip.analysis.bottleneck, &fv);
    if (env.p != NULL)
        read_run_environment(env, a, out);
    if (out->device_type[0] == '\0')
        out->device_type = out->ip.steps.hardware == PV_HW_CPU_ONLY ? "CPU" : "GPU";
    out->ip.steps.n_device_planes = out->device_core_count;
    if (diag.p != NULL)
        read_diagnostics(diag, a, &out->ip.diagnostics, &out->ip.n_diagnostics);
    if (analysis.bad || reco.bad || env.bad || diag.bad)
        return bad_file(err, path, "not an OverviewPage: malformed protobuf");
    return 0;
}
