/* distributed_tool: the descriptor of distributed_view, the distributed
 * view of a PyTorch run, three DataTables with a row per rank (a host: one
 * worker's trace):
 *
 *   1. torch-tb-profiler's: per step, the time spent computing and not
 *      communicating, both at once, communicating and not computing, and
 *      neither (steps_kineto.c's pv_steps_kineto_overlap), plus each
 *      rank's average over its steps ("all", whole microseconds as the
 *      reference rounds);
 *   2. HolisticTraceAnalysis' temporal breakdown and comm-comp overlap of
 *      the rank's GPU time over the whole trace (gpu_time.h);
 *   3. HTA's kernel type breakdown of that time, a row per set of types.
 *
 * Listed only for PyTorch traces (trace JSON); on ALL_HOSTS it puts the
 * ranks side by side. The page's generic view draws the tables; the CSV
 * export is the first. */
#include "tools/common/datatable.h"
#include "tools/common/json_out.h"
#include "tools/registry.h"
#include "tools/steps/gpu_time.h"
#include "tools/steps/steps.h"

typedef struct rank_steps {
    const char *host;
    pv_step_overlap *steps;
    size_t n;
    pv_gpu_time gpu;
} rank_steps;

typedef struct distributed_result {
    rank_steps *ranks;
    size_t n;
} distributed_result;

static int compute(const pv_tool_input *in, const void *q, pv_arena *a, void **result,
                   pv_error *err)
{
    (void)q;
    (void)err;
    distributed_result *r = pv_arena_zalloc(a, sizeof *r);
    r->ranks = pv_arena_zalloc(a, (in->n ? in->n : 1) * sizeof *r->ranks);
    for (size_t i = 0; i < in->n; i++) {
        rank_steps *rs = &r->ranks[r->n++];
        rs->host = in->hosts != NULL ? in->hosts[i] : "";
        if (!pv_model_has_roles(in->models[i]))
            continue;
        pv_steps_kineto_overlap(in->models[i], a, &rs->steps, &rs->n);
        pv_gpu_time_of(in->models[i], &rs->gpu);
    }
    *result = r;
    return 0;
}

static double us(int64_t ps)
{
    return (double)ps / 1e6;
}

static json_t *table_of(const distributed_result *r)
{
    json_t *t = pv_dt_new();
    pv_dt_prop(t, "view", "torch-tb-profiler's overlap of computation and communication per "
                          "step (communication: collective operators' time)");
    pv_dt_col(t, "worker", "string", "Worker", NULL);
    pv_dt_col(t, "step", "string", "Step", NULL);
    pv_dt_col(t, "computation_us", "number", "Computation (us)", NULL);
    pv_dt_col(t, "overlapping_us", "number", "Overlapping (us)", NULL);
    pv_dt_col(t, "communication_us", "number", "Communication (us)", NULL);
    pv_dt_col(t, "other_us", "number", "Other (us)", NULL);
    for (size_t i = 0; i < r->n; i++) {
        const rank_steps *rs = &r->ranks[i];
        double sum[4] = {0, 0, 0, 0};
        for (size_t s = 0; s < rs->n; s++) {
            const pv_step_overlap *o = &rs->steps[s];
            double v[4] = {us(o->computation_ps), us(o->overlap_ps), us(o->communication_ps),
                           us(o->other_ps)};
            json_t *row = pv_dt_row(t);
            pv_dt_str(row, rs->host);
            pv_dt_str(row, o->name);
            for (int c = 0; c < 4; c++) {
                pv_dt_num(row, v[c]);
                sum[c] += v[c];
            }
        }
        json_t *row = pv_dt_row(t);
        pv_dt_str(row, rs->host);
        pv_dt_str(row, "all");
        for (int c = 0; c < 4; c++)
            pv_dt_num(row, rs->n > 0 ? (double)(int64_t)(sum[c] / (double)rs->n) : 0);
    }
    return t;
}

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/* HTA's temporal breakdown and comm-comp overlap, a row per rank with GPU
 * activity. */
static json_t *gpu_table_of(const distributed_result *r)
{
    json_t *t = pv_dt_new();
    pv_dt_prop(t, "view", "HolisticTraceAnalysis' temporal breakdown and comm-comp overlap of "
                          "each rank's GPU time, over the whole trace");
    pv_dt_col(t, "worker", "string", "Worker", NULL);
    pv_dt_col(t, "span_us", "number", "GPU span (us)", NULL);
    pv_dt_col(t, "idle_us", "number", "Idle (us)", NULL);
    pv_dt_col(t, "computation_us", "number", "Computation (us)", NULL);
    pv_dt_col(t, "non_compute_us", "number", "Non-compute (us)", NULL);
    pv_dt_col(t, "idle_pct", "number", "Idle (%)", NULL);
    pv_dt_col(t, "computation_pct", "number", "Computation (%)", NULL);
    pv_dt_col(t, "non_compute_pct", "number", "Non-compute (%)", NULL);
    pv_dt_col(t, "comm_comp_overlap_pct", "number", "Communication overlapped (%)", NULL);
    for (size_t i = 0; i < r->n; i++) {
        const pv_gpu_time *g = &r->ranks[i].gpu;
        if (!g->any)
            continue;
        json_t *row = pv_dt_row(t);
        pv_dt_str(row, r->ranks[i].host);
        pv_dt_num(row, us(g->span_ps));
        pv_dt_num(row, us(g->idle_ps));
        pv_dt_num(row, us(g->computation_ps));
        pv_dt_num(row, us(g->non_compute_ps));
        pv_dt_num(row, pct(g->idle_ps, g->span_ps));
        pv_dt_num(row, pct(g->computation_ps, g->span_ps));
        pv_dt_num(row, pct(g->non_compute_ps, g->span_ps));
        json_array_append_new(json_object_get(row, "c"),
                              pv_dt_cell(g->communication_ps > 0
                                             ? pv_dt_real(pct(g->overlap_ps, g->communication_ps))
                                             : json_null()));
    }
    return t;
}

/* HTA's kernel type breakdown: each rank's busy time by the set of types
 * running, its share of the rank's typed time. */
static json_t *types_table_of(const distributed_result *r)
{
    json_t *t = pv_dt_new();
    pv_dt_prop(t, "view", "HolisticTraceAnalysis' kernel type breakdown: each rank's GPU time "
                          "by the kernel types running at once");
    pv_dt_col(t, "worker", "string", "Worker", NULL);
    pv_dt_col(t, "kernel_types", "string", "Kernel types running", NULL);
    pv_dt_col(t, "time_us", "number", "Time (us)", NULL);
    pv_dt_col(t, "percent", "number", "Share (%)", NULL);
    for (size_t i = 0; i < r->n; i++) {
        const pv_gpu_time *g = &r->ranks[i].gpu;
        int64_t typed = 0;
        for (unsigned set = 1; set < PV_GPU_TYPE_SETS; set++)
            typed += g->by_types_ps[set];
        for (unsigned set = 1; set < PV_GPU_TYPE_SETS; set++) {
            if (g->by_types_ps[set] == 0)
                continue;
            json_t *row = pv_dt_row(t);
            pv_dt_str(row, r->ranks[i].host);
            pv_dt_str(row, pv_gpu_type_set_name(set));
            pv_dt_num(row, us(g->by_types_ps[set]));
            pv_dt_num(row, pct(g->by_types_ps[set], typed));
        }
    }
    return t;
}

static int write_json(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                      pv_error *err)
{
    (void)in;
    (void)q;
    json_t *all = json_array();
    json_array_append_new(all, table_of(result));
    json_array_append_new(all, gpu_table_of(result));
    json_array_append_new(all, types_table_of(result));
    return pv_json_write(all, out, err);
}

static int write_csv(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                     pv_error *err)
{
    (void)in;
    (void)q;
    json_t *table = table_of(result);
    int rc = pv_dt_write_csv(table, out, err);
    json_decref(table);
    return rc;
}

const pv_tool pv_distributed_view_tool = {
    .name = "distributed_view",
    .title = "Distributed (PyTorch)",
    .compute = compute,
    .combines_hosts = true,
    .lists_all_hosts = true,
    .opens_on_all_hosts = true,
    .needs = PV_PROFILE_ROLES,
    .write_json = write_json,
    .write_csv = write_csv,
};
