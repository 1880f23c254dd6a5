/* input_pipeline: host input-op analysis and the analyzer's result
 * (reference: GenerateHostResult, CategorizeInputOp and
 * ConvertOpStatsToInputPipelineAnalysis in xprof/convert/
 * op_stats_to_input_pipeline_analysis.cc). JSON is input_pipeline_json.c. */
#include "tools/steps/input_pipeline.h"
#include "tools/steps/overview_pytorch.h"

#include <string.h>
#include <strings.h>

static const char NO_STEP_MARKER[] =
    "No step marker observed and hence the step time is unknown. This may happen if (1) "
    "training steps are not instrumented (e.g., if you are not using Keras) or (2) the "
    "profiling duration is shorter than the step time. For (1), you need to add step "
    "instrumentation; for (2), you may try to profile longer.";

const char *pv_input_cat_name(uint32_t cat)
{
    switch (cat) {
    case PV_INPUT_ENQUEUE:
        return "Enqueue";
    case PV_INPUT_DEMANDED_FILE_READ:
        return "Demanded file read";
    case PV_INPUT_ADVANCED_FILE_READ:
        return "Advanced file read";
    case PV_INPUT_PREPROCESSING:
        return "Preprocessing";
    default:
        return "Unknown";
    }
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* New-style stage categories (_ipl_stage_cat) arrive as the op type. */
static int new_style_cat(const char *type)
{
    if (strcasecmp(type, "enqueue") == 0)
        return PV_INPUT_ENQUEUE;
    if (strcasecmp(type, "read") == 0)
        return PV_INPUT_DEMANDED_FILE_READ;
    if (strcasecmp(type, "preprocessing") == 0)
        return PV_INPUT_PREPROCESSING;
    if (strcasecmp(type, "unknown") == 0)
        return PV_INPUT_UNKNOWN;
    return -1;
}

/* Input category of a host op, or -1 when it is not an input op. */
static int input_category(const pv_steps_op *op)
{
    /* The reference tests the infeed by type alone here: op metrics keep
     * only the type. */
    if (pv_tf_op_type_is_infeed_enqueue(op->type, strlen(op->type)) ||
        op->category == PV_TF_OP_MEMCPY_H2D)
        return PV_INPUT_ENQUEUE;
    if (op->category != PV_TF_OP_DATASET)
        return new_style_cat(op->type);
    static const char *const readers[] = {"::TFRecord", "::TextLine", "::FixedLengthRecord",
                                          "::SSTable", "::RecordIO", "::ArrayRecord"};
    static const char *const advanced[] = {"::MemoryReader", "::MemoryWriter", "::Interleave",
                                           "::Prefetch", "::ParallelMap"};
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        if (!ends_with(op->name, readers[i]))
            continue;
        for (size_t k = 0; k < sizeof advanced / sizeof advanced[0]; k++)
            if (strstr(op->name, advanced[k]) != NULL)
                return PV_INPUT_ADVANCED_FILE_READ;
        return PV_INPUT_DEMANDED_FILE_READ;
    }
    return PV_INPUT_PREPROCESSING;
}

/* The last "::" component of an iterator name without its [i] suffix,
 * e.g. "ParallelMapV2" for "Iterator::Model::ParallelMapV2". */
static const char *stage_kind(const char *name)
{
    const char *last = name;
    for (const char *p = strstr(name, "::"); p != NULL; p = strstr(p + 2, "::"))
        last = p + 2;
    return last;
}

static bool kind_is(const char *kind, const char *prefix)
{
    return strncmp(kind, prefix, strlen(prefix)) == 0;
}

/* What to do about the slowest stage, by what kind of stage it is. */
const char *pv__input_advice(pv_arena *a, const pv_input_op *b, double input_percent)
{
    const char *kind = stage_kind(b->op->name);
    const char *what;
    if (b->category == PV_INPUT_ENQUEUE)
        what = "host-to-device copies dominate: combine small input chunks into fewer larger "
               "ones and overlap the copy with compute (prefetch to device).";
    else if (b->category == PV_INPUT_DEMANDED_FILE_READ)
        what = "files are read on demand: read in advance with interleave(num_parallel_calls="
               "tf.data.AUTOTUNE) and prefetch, or cache() the dataset if it fits in memory.";
    else if (b->category == PV_INPUT_ADVANCED_FILE_READ)
        what = "reading is already asynchronous: raise interleave cycle_length, the reader "
               "buffer_size or the prefetch size.";
    else if (kind_is(kind, "Map") || kind_is(kind, "MapAndBatch"))
        what = "a sequential map: pass num_parallel_calls=tf.data.AUTOTUNE to map(), or "
               "vectorise it by batching before map.";
    else if (kind_is(kind, "ParallelMap"))
        what = "the map function itself is slow: vectorise it (batch before map), move fixed "
               "work offline, or cache() its output.";
    else if (kind_is(kind, "Generator") || kind_is(kind, "FlatMap") ||
             kind_is(kind, "Concatenate") || kind_is(kind, "FromTensor") ||
             kind_is(kind, "TensorSlice"))
        what = "Python-side or element-wise sources are slow: cache() after them and add "
               "prefetch(tf.data.AUTOTUNE) at the end of the pipeline.";
    else if (kind_is(kind, "Batch") || kind_is(kind, "PaddedBatch"))
        what = "batching is slow: use map-then-batch with parallel calls or larger batches.";
    else
        what = "add prefetch(tf.data.AUTOTUNE) at the end of the pipeline so input overlaps "
               "with the step, and parallelise the stages before it.";
    return pv_arena_printf(a, "%s has the most self time (%.1f%% of input-op time) while input "
                              "is %.1f%% of step time; %s",
                           b->op->name, b->self_time_percent, input_percent, what);
}

/* Splits input time into categories the way the reference does, scaling
 * the non-enqueue categories by the host-to-device share of step time. */
static void input_breakdown(pv_input_pipeline_result *r)
{
    double us[PV_INPUT_UNKNOWN + 1] = {0};
    for (size_t i = 0; i < r->n_input_ops; i++)
        us[r->input_ops[i].category] += (double)r->input_ops[i].op->self_time_ps / 1e6;
    double enqueue = us[PV_INPUT_ENQUEUE];
    double total = us[PV_INPUT_DEMANDED_FILE_READ] + us[PV_INPUT_ADVANCED_FILE_READ] +
                   us[PV_INPUT_PREPROCESSING];
    double avg_step = r->analysis.summary[PV_BD_STEP_TIME].average;
    double ratio = avg_step > 0 ? r->analysis.summary[PV_BD_HOST_TO_DEVICE].average / avg_step : 0;
    if (ratio > 1)
        ratio = 1;
    double non_enqueue = ratio != 0 ? enqueue * (1 - ratio) / ratio : total;
    pv_input_breakdown *b = &r->breakdown;
    b->enqueue_us = enqueue;
    if (total > 0) {
        b->demanded_file_read_us = non_enqueue * us[PV_INPUT_DEMANDED_FILE_READ] / total;
        b->advanced_file_read_us = non_enqueue * us[PV_INPUT_ADVANCED_FILE_READ] / total;
        b->preprocessing_us = non_enqueue * us[PV_INPUT_PREPROCESSING] / total;
    }
    double rest = non_enqueue - b->demanded_file_read_us - b->advanced_file_read_us -
                  b->preprocessing_us;
    b->unclassified_non_enqueue_us = rest > 0 ? rest : 0;
}

static void diagnostics(const pv_model *const *ms, size_t n_models, pv_arena *a,
                        pv_input_pipeline_result *r)
{
    /* Dropped incomplete steps are not reported: the reference's
     * "steps dropped" warning counts steps lost in the multi-host
     * intersection only. */
    size_t cap = 2;
    for (size_t k = 0; k < n_models; k++)
        cap += (size_t)ms[k]->n_errors + ms[k]->n_warnings;
    r->diagnostics = pv_arena_zalloc(a, cap * sizeof *r->diagnostics);
    for (size_t k = 0; k < n_models; k++)
        for (uint32_t i = 0; i < ms[k]->n_warnings; i++)
            r->diagnostics[r->n_diagnostics++] =
                (pv_diagnostic){"WARNING", pv_model_str(ms[k], ms[k]->warnings[i])};
    if (r->n_steps_dropped > 0)
        r->diagnostics[r->n_diagnostics++] = (pv_diagnostic){
            "WARNING", pv_arena_printf(a, "%zu step(s) were dropped because not every host "
                                          "recorded them; only the steps common to all hosts "
                                          "are shown.",
                                       r->n_steps_dropped)};
    if (r->steps.n_steps == 0)
        r->diagnostics[r->n_diagnostics++] = (pv_diagnostic){"WARNING", NO_STEP_MARKER};
    for (size_t k = 0; k < n_models; k++)
        for (uint32_t i = 0; i < ms[k]->n_errors; i++)
            r->diagnostics[r->n_diagnostics++] =
                (pv_diagnostic){"ERROR", pv_model_str(ms[k], ms[k]->errors[i])};
}

/* On a PyTorch trace, torch-tb-profiler's word on data loading in place of
 * TensorFlow's (tf.data) verdict. */
static void pytorch_verdict(const pv_model *m, pv_arena *a, pv_input_pipeline_result *out)
{
    if (!pv_model_has_roles(m))
        return;
    out->pytorch = true;
    pv_pytorch_overview ov;
    pv_overview_pytorch(m, &out->steps, false, a, &ov);
    pv_bottleneck *b = &out->analysis.bottleneck;
    b->summary_next_step = "";
    for (size_t i = 0; i < ov.n; i++) {
        if (strcmp(ov.items[i].kind, "data_loading") == 0) {
            b->input_statement = ov.items[i].text;
            return;
        }
    }
    b->input_statement =
        out->steps.n_steps == 0
            ? "No ProfilerStep#N was recorded, so the time spent loading data per step is "
              "not known."
            : pv_arena_printf(a,
                              "%.1f%% of the step time is in DataLoader, within the 5%% "
                              "torch-tb-profiler recommends acting on: data loading is not "
                              "what slows this run.",
                              b->input_percent);
}

int pv_tool_input_pipeline(const pv_model *m, const pv_input_pipeline_query *q, pv_arena *a,
                           pv_input_pipeline_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = pv_tool_steps(m, q != NULL ? &q->steps : NULL, a, &out->steps, err);
    if (rc != 0)
        return rc;
    pv_steps_host_ops(m, a, &out->host_ops);
    pv__input_pipeline_finish(&m, 1, a, out);
    return 0;
}

void pv__input_pipeline_finish(const pv_model *const *ms, size_t n_models, pv_arena *a,
                               pv_input_pipeline_result *out)
{
    out->input_ops = pv_arena_zalloc(a, (out->host_ops.n_ops + 1) * sizeof *out->input_ops);
    for (size_t i = 0; i < out->host_ops.n_ops; i++) {
        int cat = input_category(&out->host_ops.ops[i]);
        if (cat < 0)
            continue;
        out->input_ops[out->n_input_ops++] =
            (pv_input_op){&out->host_ops.ops[i], (uint32_t)cat, 0, 0};
        out->input_op_self_ps += out->host_ops.ops[i].self_time_ps;
    }
    for (size_t i = 0; i < out->n_input_ops; i++) {
        pv_input_op *op = &out->input_ops[i];
        if (out->input_op_self_ps > 0) {
            op->time_percent = 100.0 * (double)op->op->time_ps / (double)out->input_op_self_ps;
            op->self_time_percent =
                100.0 * (double)op->op->self_time_ps / (double)out->input_op_self_ps;
        }
    }

    /* tf.data is "in use" when reading or preprocessing took time; the
     * reference decides this from the breakdown before scaling by the
     * step analysis, which only rescales the same non-zero categories. */
    for (size_t i = 0; i < out->n_input_ops; i++)
        if (out->input_ops[i].category != PV_INPUT_ENQUEUE &&
            out->input_ops[i].category != PV_INPUT_UNKNOWN &&
            out->input_ops[i].op->self_time_ps > 0)
            out->tfdata_used = true;
    pv_step_analysis_compute(&out->steps, out->tfdata_used, a, &out->analysis);
    input_breakdown(out);

    if (out->n_input_ops > 0) {
        out->bottleneck = &out->input_ops[0];
        out->bottleneck_advice =
            pv__input_advice(a, out->bottleneck, out->analysis.bottleneck.input_percent);
    }
    diagnostics(ms, n_models, a, out);
    pytorch_verdict(ms[0], a, out);
}
