/* target: resolving the run, host and tool a request names, shared by
 * every route that reads one host's profile. */
#include "http/target.h"
#include "tools/registry.h"

#include <stdio.h>

void pv_http_target_release(pv_request *rq, pv_http_target *t)
{
    if (t->ix != NULL)
        pv_index_store_release(rq->app->index, t->ix);
    t->ix = NULL;
}

const pv_run *pv_http_target_find_run(pv_response *rs, const pv_index *ix, const char *name)
{
    const pv_run *run = pv_index_run_find(ix, name);
    if (run == NULL) {
        char detail[600];
        snprintf(detail, sizeof detail, "no run named \"%.500s\" in the logdir", name);
        pv_respond_error(rs, 404, "unknown run", detail);
    }
    return run;
}

const pv_tool *pv_http_target_tool(pv_request *rq, pv_response *rs)
{
    bool bad = false;
    const char *name = pv_http_param(rq, "tag", &bad);
    if (name == NULL && !bad)
        name = pv_http_param(rq, "tool", &bad);
    if (bad) {
        pv_respond_error(rs, 400, "bad parameter", "tag must be UTF-8 text without NUL bytes");
        return NULL;
    }
    if (name == NULL) {
        pv_respond_error(rs, 400, "missing parameter", "run and tag are required");
        return NULL;
    }
    const pv_tool *t = pv_tool_find(name);
    if (t == NULL) {
        char detail[300];
        snprintf(detail, sizeof detail, "profview knows no tool called \"%.200s\"", name);
        pv_respond_error(rs, 404, "unknown tool", detail);
    }
    return t;
}

/* Run and host are looked up by exact name in the index, so no parameter
 * ever becomes part of a file path. */
int pv_http_target_resolve(pv_request *rq, pv_response *rs, const pv_tool *t,
                           pv_http_target *out)
{
    bool bad = false;
    const char *run = pv_http_param(rq, "run", &bad);
    const char *host = pv_http_param(rq, "host", &bad);
    if (bad) {
        pv_respond_error(rs, 400, "bad parameter",
                         "run and host must be UTF-8 text without NUL bytes");
        return -1;
    }
    if (run == NULL) {
        pv_respond_error(rs, 400, "missing parameter", "run is required");
        return -1;
    }
    out->ix = pv_index_store_acquire(rq->app->index);
    char detail[1200];
    out->run = pv_http_target_find_run(rs, out->ix, run);
    if (out->run == NULL) {
        pv_http_target_release(rq, out);
        return -1;
    }
    if (host == NULL && out->run->n_hosts == 1) {
        out->host = &out->run->hosts[0];
    } else if (host == NULL) {
        pv_respond_error(rs, 400, "missing parameter", "host is required: this run has several");
        pv_http_target_release(rq, out);
        return -1;
    } else {
        out->host = pv_run_host_find(out->run, host);
    }
    if (out->host == NULL) {
        snprintf(detail, sizeof detail, "run \"%.500s\" has no host named \"%.500s\"", run, host);
        pv_respond_error(rs, 404, "unknown host", detail);
        pv_http_target_release(rq, out);
        return -1;
    }
    if (t != NULL && !pv_host_has_tool(out->host, t)) {
        snprintf(detail, sizeof detail, "host \"%.400s\" of run \"%.400s\" has no tool \"%.200s\"",
                 out->host->name, run, t->name);
        pv_respond_error(rs, 404, "unknown tool", detail);
        pv_http_target_release(rq, out);
        return -1;
    }
    return 0;
}
