/* distributed_tool: the descriptor of distributed_view, torch-tb-profiler's
 * distributed view of a PyTorch run: for each rank (a host: one worker's
 * trace) and step, the time spent computing and not communicating, both
 * at once, communicating and not computing, and neither
 * (steps_kineto.c's pv_steps_kineto_overlap), plus each rank's average
 * over its steps ("all", whole microseconds as the reference rounds).
 * Listed only for PyTorch traces (trace JSON); on ALL_HOSTS it puts the
 * ranks side by side. The answer is a DataTable, which the page's generic
 * view draws; the CSV export is the same table. */
#include "tools/common/datatable.h"
#include "tools/common/json_out.h"
#include "tools/kineto/kineto.h"
#include "tools/registry.h"
#include "tools/steps/steps.h"

typedef struct rank_steps {
    const char *host;
    pv_step_overlap *steps;
    size_t n;
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
        pv_kineto k;
        pv_kineto_init(&k, in->models[i], a);
        rank_steps *rs = &r->ranks[r->n++];
        rs->host = in->hosts != NULL ? in->hosts[i] : "";
        if (!k.present)
            continue;
        pv_kineto_link_hosts(&k, a);
        pv_steps_kineto_overlap(in->models[i], &k, a, &rs->steps, &rs->n);
    }
    *result = r;
    return 0;
}

static json_t *table_of(const distributed_result *r)
{
    json_t *t = pv_dt_new();
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
            double v[4] = {(double)o->computation_ps / 1e6, (double)o->overlap_ps / 1e6,
                           (double)o->communication_ps / 1e6, (double)o->other_ps / 1e6};
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

static int write_json(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                      pv_error *err)
{
    (void)in;
    (void)q;
    return pv_json_write(table_of(result), out, err);
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

static const char *const params[] = {NULL};

const pv_tool pv_distributed_view_tool = {
    .name = "distributed_view",
    .title = "Distributed (PyTorch)",
    .params = params,
    .compute = compute,
    .combines_hosts = true,
    .lists_all_hosts = true,
    .pytorch_only = true,
    .write_json = write_json,
    .write_csv = write_csv,
};
