/* tool_kernel_stats: /data?tag=kernel_stats. Answers the reference's
 * DataTable (top 1000 kernels by total time). profview's page may ask for
 * more rows with max_rows=N (0 = all), for the compact column form with
 * pv_format=columns (kernel_stats.h), and, with pv_extras=1, gets the
 * table property pv_total_rows (distinct rows before the cap) and
 * pv_gpu_planes so it can say why a table is empty. The _multi handler
 * answers ALL_HOSTS with the same parameters. */
#include "http/tool_table.h"
#include "tools/kernel_stats/kernel_stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses a non-negative decimal count; returns -1 when malformed. */
static int parse_count(const char *s, size_t *out)
{
    if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = (size_t)v;
    return 0;
}

typedef struct ks_params {
    pv_kernel_stats_query q;
    bool columns;
    bool extras;
} ks_params;

/* Reads max_rows, pv_extras and pv_format; on a bad one fills rs (400)
 * and returns -1. */
static int parse_params(pv_request *rq, pv_response *rs, ks_params *p)
{
    bool bad = false;
    const char *max_rows = pv_http_param(rq, "max_rows", &bad);
    const char *extras = pv_http_param(rq, "pv_extras", &bad);
    const char *format = pv_http_param(rq, "pv_format", &bad);
    p->columns = format != NULL && strcmp(format, "columns") == 0;
    p->extras = extras != NULL && strcmp(extras, "1") == 0;
    if (!bad && format != NULL && !p->columns && strcmp(format, "rows") != 0) {
        pv_respond_error(rs, 400, "bad parameter", "pv_format must be rows or columns");
        return -1;
    }
    p->q = (pv_kernel_stats_query){PV_KERNEL_STATS_REFERENCE_ROWS};
    if (bad || (max_rows != NULL && parse_count(max_rows, &p->q.max_rows) != 0)) {
        pv_respond_error(rs, 400, "bad parameter",
                         "max_rows must be a non-negative integer (0 = all rows)");
        return -1;
    }
    return 0;
}

static void respond(pv_response *rs, const ks_params *p, const pv_kernel_stats_result *r)
{
    json_t *j = p->columns ? pv_kernel_stats_to_json_columns(r) : pv_kernel_stats_to_json(r);
    if (j != NULL && p->extras) {
        char total[32];
        char planes[16];
        snprintf(total, sizeof total, "%zu", r->n_rows_total);
        snprintf(planes, sizeof planes, "%u", r->n_gpu_planes);
        json_object_set_new(j, "p", json_pack("{s:s, s:s}", "pv_total_rows", total,
                                              "pv_gpu_planes", planes));
    }
    if (j == NULL) {
        pv_respond_error(rs, 500, "internal error", "the kernel stats could not be serialised");
        return;
    }
    pv_respond_json(rs, 200, j);
}

void pv_http_tool_kernel_stats(pv_request *rq, pv_response *rs, const pv_model *m)
{
    ks_params p;
    if (parse_params(rq, rs, &p) != 0)
        return;
    pv_kernel_stats_result r;
    pv_error err = {0};
    if (pv_tool_kernel_stats(m, &p.q, &rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    respond(rs, &p, &r);
}

void pv_http_tool_kernel_stats_multi(pv_request *rq, pv_response *rs,
                                     const pv_model *const *models, size_t n_models)
{
    ks_params p;
    if (parse_params(rq, rs, &p) != 0)
        return;
    pv_kernel_stats_result r;
    pv_error err = {0};
    if (pv_tool_kernel_stats_multi(models, n_models, &p.q, &rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    respond(rs, &p, &r);
}
