/* tool_op_stats: /data?tag=framework_op_stats (and its legacy name
 * tensorflow_stats). Answers the reference's [with IDLE, without IDLE]
 * DataTables, 500 ops per side; max_ops=N (0 = all) raises the cap for
 * profview's page. The _multi handler answers ALL_HOSTS the same way. */
#include "http/tool_table.h"
#include "tools/op_stats/op_stats.h"

#include <errno.h>
#include <stdlib.h>

/* Reads max_ops; on a bad one fills rs (400) and returns -1. */
static int parse_params(pv_request *rq, pv_response *rs, pv_op_stats_query *q)
{
    bool bad = false;
    const char *max_ops = pv_http_param(rq, "max_ops", &bad);
    *q = (pv_op_stats_query){PV_OP_STATS_REFERENCE_OPS};
    if (!bad && max_ops != NULL) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(max_ops, &end, 10);
        bad = errno != 0 || *end != '\0' || end == max_ops || max_ops[0] == '-';
        /* 0 means every op: the tool's own "no cap" is SIZE_MAX. */
        q->max_ops_per_side = v == 0 ? (size_t)-1 : (size_t)v;
    }
    if (bad) {
        pv_respond_error(rs, 400, "bad parameter",
                         "max_ops must be a non-negative integer (0 = all ops)");
        return -1;
    }
    return 0;
}

static void respond(pv_response *rs, const pv_op_stats_result *r)
{
    json_t *j = pv_op_stats_to_json(r);
    if (j == NULL) {
        pv_respond_error(rs, 500, "internal error", "the op stats could not be serialised");
        return;
    }
    pv_respond_json(rs, 200, j);
}

void pv_http_tool_op_stats(pv_request *rq, pv_response *rs, const pv_model *m)
{
    pv_op_stats_query q;
    if (parse_params(rq, rs, &q) != 0)
        return;
    pv_op_stats_result r;
    pv_error err = {0};
    if (pv_tool_op_stats(m, &q, &rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    respond(rs, &r);
}

void pv_http_tool_op_stats_multi(pv_request *rq, pv_response *rs, const pv_model *const *models,
                                 size_t n_models)
{
    pv_op_stats_query q;
    if (parse_params(rq, rs, &q) != 0)
        return;
    pv_op_stats_result r;
    pv_error err = {0};
    if (pv_tool_op_stats_multi(models, n_models, &q, &rq->arena, &r, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    respond(rs, &r);
}
