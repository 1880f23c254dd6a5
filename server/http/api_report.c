/* api_report: the report routes, the page's compare view and run history
 * (#20). The same figures as `profview summary` and `compare`
 * (report/), read through the store (report.c):
 *
 *   api/summary?run=R[&host=H][&top=K]      a run's figures
 *   api/compare?base=R&new=R2[&base_host=H][&new_host=H2][&top=K]
 *              [&max_step_time_ratio=X][&max_peak_memory_ratio=X]
 *              [&max_input_bound_percent=P]  two runs side by side
 *   api/history[?prefix=P]                   every run (whose name starts
 *              with P) in time order with its brief; briefs not read yet
 *              are null and counted in "pending", a few of them read per
 *              request, so the page asks again until none is.
 *
 * top defaults to 0 (every op and kernel): the compare view filters and
 * sorts them itself. */
#include "http/report.h"
#include "http/target.h"
#include "report/compare.h"
#include "answer/param_read.h"

#include <stdio.h>
#include <string.h>

/* Briefs read per history request: each may decode a profile. */
#define HISTORY_BATCH 4
#define MAX_GATE 1e12

/* The hosts of run a request names with the parameter called key (all of
 * them by default); 0 with rs filled (404) when it names none. */
static size_t want_hosts(pv_request *rq, pv_response *rs, const pv_run *run, const char *key,
                         const pv_host **out)
{
    bool bad = false;
    const char *name = pv_http_param(rq, key, &bad);
    if (name == NULL)
        return pv__report_hosts(run, out);
    out[0] = pv_run_host_find(run, name);
    if (out[0] != NULL)
        return 1;
    char detail[600];
    snprintf(detail, sizeof detail, "run \"%.200s\" has no host \"%.200s\"", run->name, name);
    pv_respond_error(rs, 404, "unknown host", detail);
    return 0;
}

/* Reads the figures of the run named by parameter run_key on the hosts
 * named by host_key into *f; false with rs filled when it cannot. */
static bool figures_of(pv_request *rq, pv_response *rs, const pv_index *ix, const char *run_key,
                       const char *host_key, pv_figures *f)
{
    bool bad = false;
    const char *name = pv_http_param(rq, run_key, &bad);
    if (name == NULL) {
        char detail[100];
        snprintf(detail, sizeof detail, "%s names the run and is required", run_key);
        pv_respond_error(rs, 400, "missing parameter", detail);
        return false;
    }
    const pv_run *run = pv_http_target_find_run(rs, ix, name);
    if (run == NULL)
        return false;
    const pv_host **hosts = pv_arena_zalloc(&rq->arena, (run->n_hosts + 1) * sizeof *hosts);
    size_t n = want_hosts(rq, rs, run, host_key, hosts);
    if (n == 0)
        return false;
    pv_error err = {0};
    int rc = pv__report_figures(rq, ix, run, hosts, n, false, &rq->arena, f, &err);
    if (rc != 0)
        pv_respond_pv_error(rs, &err);
    return rc == 0;
}

static bool read_top(pv_request *rq, pv_response *rs, size_t *top)
{
    pv_params p = pv_http_params(rq);
    uint64_t v;
    pv_error err = {0};
    if (pv_param_uint(&p, "top", 0, 1000000, &v, &err) != 0) {
        pv_respond_error(rs, 400, "bad parameter", err.reason);
        return false;
    }
    *top = (size_t)v;
    return true;
}

void pv_serve_api_summary(pv_request *rq, pv_response *rs)
{
    size_t top;
    if (!read_top(rq, rs, &top))
        return;
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    pv_figures f;
    if (figures_of(rq, rs, ix, "run", "host", &f))
        pv_respond_json(rs, 200, pv_figures_to_json(&f, top));
    pv_index_store_release(rq->app->index, ix);
}

static bool read_gates(pv_request *rq, pv_response *rs, pv_gates *g)
{
    pv_params p = pv_http_params(rq);
    pv_error err = {0};
    bool set;
    *g = (pv_gates){0, 0, -1};
    if (pv_param_number(&p, "max_step_time_ratio", 1e-9, MAX_GATE, &g->max_step_time_ratio,
                        &set, &err) != 0 ||
        pv_param_number(&p, "max_peak_memory_ratio", 1e-9, MAX_GATE, &g->max_peak_memory_ratio,
                        &set, &err) != 0 ||
        pv_param_number(&p, "max_input_bound_percent", 0, MAX_GATE, &g->max_input_bound_percent,
                        &set, &err) != 0) {
        pv_respond_error(rs, 400, "bad parameter", err.reason);
        return false;
    }
    return true;
}

void pv_serve_api_compare(pv_request *rq, pv_response *rs)
{
    size_t top;
    pv_gates gates;
    if (!read_top(rq, rs, &top) || !read_gates(rq, rs, &gates))
        return;
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    pv_figures base, next;
    if (figures_of(rq, rs, ix, "base", "base_host", &base) &&
        figures_of(rq, rs, ix, "new", "new_host", &next)) {
        pv_comparison c;
        pv_compare(&base, &next, &gates, &rq->arena, &c);
        pv_respond_json(rs, 200, pv_comparison_to_json(&c, top));
    }
    pv_index_store_release(rq->app->index, ix);
}

/* ---- history ------------------------------------------------------------------------ */

void pv_serve_api_history(pv_request *rq, pv_response *rs)
{
    bool bad = false;
    const char *prefix = pv_http_param(rq, "prefix", &bad);
    if (bad) {
        pv_respond_error(rs, 400, "bad parameter", "prefix is not valid UTF-8 text");
        return;
    }
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    size_t n;
    const pv_dated_run *runs = pv__report_runs_by_time(&rq->arena, ix, prefix, &n);
    pv_brief *briefs = pv_arena_zalloc(&rq->arena, (n + 1) * sizeof *briefs);
    bool *known = pv_arena_zalloc(&rq->arena, n + 1);
    size_t read = 0, pending = 0;
    /* The newest are read first: they are the ones a team looks at. */
    for (size_t i = n; i-- > 0;) {
        const pv_run *run = runs[i].run;
        const pv_host **hosts = pv_arena_zalloc(&rq->arena, (run->n_hosts + 1) * sizeof *hosts);
        size_t nh = pv__report_hosts(run, hosts);
        known[i] = pv__report_brief(rq, ix, run, hosts, nh, false, &briefs[i]);
        if (!known[i] && read < HISTORY_BATCH) {
            read++;
            known[i] = pv__report_brief(rq, ix, run, hosts, nh, true, &briefs[i]);
        }
        pending += !known[i];
    }
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++) {
        const pv_run *run = runs[i].run;
        json_t *brief = known[i] ? pv_brief_to_json(&briefs[i]) : json_null();
        json_array_append_new(list, json_pack("{s:s, s:f, s:I, s:o}", "run", run->name, "time_s",
                                              (double)runs[i].ns / 1e9, "hosts",
                                              (json_int_t)run->n_hosts, "brief", brief));
    }
    pv_index_store_release(rq->app->index, ix);
    rs->cache_control = "no-store";
    pv_respond_json(rs, 200, json_pack("{s:o, s:I}", "runs", list, "pending",
                                       (json_int_t)pending));
}
