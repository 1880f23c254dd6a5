/* target: resolving the run, host and tool a request names, shared by
 * every route that reads one host's profile. */
#include "http/target.h"

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

/* Resolves ?run=&host=(&tag=). On failure fills rs, releases, returns -1.
 * Run, host and tool are looked up by exact name in the index, so no
 * parameter ever becomes part of a file path. */
int pv_http_target_resolve(pv_request *rq, pv_response *rs, bool need_tool, pv_http_target *t)
{
    bool bad = false;
    const char *run = pv_http_param(rq, "run", &bad);
    const char *host = pv_http_param(rq, "host", &bad);
    const char *tool = pv_http_param(rq, "tag", &bad);
    if (tool == NULL && !bad)
        tool = pv_http_param(rq, "tool", &bad);
    if (bad) {
        pv_respond_error(rs, 400, "bad parameter",
                         "run, host and tag must be UTF-8 text without NUL bytes");
        return -1;
    }
    if (run == NULL || (need_tool && tool == NULL)) {
        pv_respond_error(rs, 400, "missing parameter",
                         need_tool ? "run and tag are required" : "run is required");
        return -1;
    }
    t->ix = pv_index_store_acquire(rq->app->index);
    t->tool = tool;
    char detail[1200];
    t->run = pv_http_target_find_run(rs, t->ix, run);
    if (t->run == NULL) {
        pv_http_target_release(rq, t);
        return -1;
    }
    if (host == NULL && t->run->n_hosts == 1) {
        t->host = &t->run->hosts[0];
    } else if (host == NULL) {
        pv_respond_error(rs, 400, "missing parameter", "host is required: this run has several");
        pv_http_target_release(rq, t);
        return -1;
    } else {
        t->host = pv_run_host_find(t->run, host);
    }
    if (t->host == NULL) {
        snprintf(detail, sizeof detail, "run \"%.500s\" has no host named \"%.500s\"", run, host);
        pv_respond_error(rs, 404, "unknown host", detail);
        pv_http_target_release(rq, t);
        return -1;
    }
    if (need_tool && !pv_host_has_tool(t->host, tool)) {
        snprintf(detail, sizeof detail, "host \"%.400s\" of run \"%.400s\" has no tool \"%.200s\"",
                 t->host->name, run, tool);
        pv_respond_error(rs, 404, "unknown tool", detail);
        pv_http_target_release(rq, t);
        return -1;
    }
    return 0;
}
