/* kernel_stats_tool: the descriptor of kernel_stats (tools/tool.h). The
 * answer is the reference's DataTable (top 1000 kernels by total time).
 * profview's page may ask for more rows with max_rows=N (0 = all), for the
 * compact column form with pv_format=columns (kernel_stats.h), and, with
 * pv_extras=1, gets the table properties pv_total_rows (distinct rows before
 * the cap), pv_gpu_planes, so it can say why a table is empty, and
 * pv_gpu_vendor when the GPU planes name one. The CSV
 * export is the table in rows. */
#include "tools/common/datatable.h"
#include "tools/common/json_out.h"
#include "tools/kernel_stats/kernel_stats.h"
#include "tools/registry.h"

#include <stdint.h>
#include <stdio.h>

typedef struct kernel_stats_params {
    pv_kernel_stats_query q;
    bool columns;   /* pv_format=columns */
    bool extras;    /* pv_extras=1 */
} kernel_stats_params;

enum { P_MAX_ROWS, P_FORMAT, P_EXTRAS };
static const char *const formats[] = {"rows", "columns", NULL};
static const pv_param_decl params[] = {
    [P_MAX_ROWS] = {"max_rows", PV_PARAM_UINT, "rows kept, the longest first (0: all)",
                    .def = PV_KERNEL_STATS_REFERENCE_ROWS, .max = SIZE_MAX},
    [P_FORMAT] = {"pv_format", PV_PARAM_CHOICE, "the table as rows or as columns",
                  .choices = formats},
    [P_EXTRAS] = {"pv_extras", PV_PARAM_SWITCH,
                  "adds the rows before the cap, the GPU planes and the GPU vendor"},
};

static int make_query(const pv_param_values *v, void *out, pv_error *err)
{
    (void)err;
    kernel_stats_params *q = out;
    q->q.max_rows = (size_t)pv_param_u(v, P_MAX_ROWS);
    q->columns = pv_param_u(v, P_FORMAT) == 1;
    q->extras = pv_param_on(v, P_EXTRAS);
    return 0;
}

static int compute(const pv_tool_input *in, const void *q, pv_arena *a, void **result,
                   pv_error *err)
{
    const kernel_stats_params *k = q;
    pv_kernel_stats_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    return in->n == 1 ? pv_tool_kernel_stats(in->models[0], &k->q, a, r, err)
                      : pv_tool_kernel_stats_multi(in->models, in->n, &k->q, a, r, err);
}

static int write_json(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                      pv_error *err)
{
    (void)in;
    const kernel_stats_params *k = q;
    const pv_kernel_stats_result *r = result;
    json_t *j = k->columns ? pv_kernel_stats_to_json_columns(r) : pv_kernel_stats_to_json(r);
    if (j != NULL && k->extras) {
        char total[32];
        char planes[16];
        snprintf(total, sizeof total, "%zu", r->n_rows_total);
        snprintf(planes, sizeof planes, "%u", r->n_gpu_planes);
        json_t *p = json_pack("{s:s, s:s}", "pv_total_rows", total, "pv_gpu_planes", planes);
        if (r->gpu_vendor != NULL)
            json_object_set_new(p, "pv_gpu_vendor", json_string(r->gpu_vendor));
        json_object_set_new(j, "p", p);
    }
    return pv_json_write(j, out, err);
}

static int write_csv(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                     pv_error *err)
{
    (void)in;
    (void)q;
    json_t *table = pv_kernel_stats_to_json(result);
    int rc = table != NULL ? pv_dt_write_csv(table, out, err)
                           : pv_error_set(err, PV_ENOMEM, NULL, PV_NO_OFFSET,
                                          "the table could not be built (out of memory)");
    json_decref(table);
    return rc;
}

const pv_tool pv_kernel_stats_tool = {
    .name = "kernel_stats",
    .title = "Kernel stats",
    PV_PARAM_TABLE(params),
    .query_bytes = sizeof(kernel_stats_params),
    .make_query = make_query,
    .compute = compute,
    .combines_hosts = true,
    .lists_all_hosts = true,
    .listed_when = PV_PROFILE_GPU,
    .write_json = write_json,
    .write_csv = write_csv,
};
