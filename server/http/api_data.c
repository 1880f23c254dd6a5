/* api_data: /data and /data_csv (a tool's answer for one run and host, or
 * several), and the native /api/load progress route. One handler serves
 * every tool: it names the tool (tag= or tool=, aliases included) and the
 * hosts (host=, or the run's only one; the pseudo host ALL_HOSTS, every
 * host with a profile, FORMATS.md §5; or, for tools that read it,
 * hosts=h1,h2, XProf's trace viewer, which wins over host=), and asks the
 * answer layer (answer/answer.h) for the rest. */
#include "http/http.h"
#include "http/target.h"
#include "tools/registry.h"

#include <stdio.h>
#include <string.h>

#define ALL_HOSTS "ALL_HOSTS"

/* ---- which hosts ---------------------------------------------------------------------- */

/* The hosts of a hosts= list, each once, in the list's order; NULL with rs
 * filled (404) when one is not a host of run with a profile. The list can
 * name no more hosts than the run has, so its cost is bounded by the run,
 * whatever the request repeats. */
static const pv_host **listed_hosts(pv_request *rq, pv_response *rs, const pv_run *run,
                                    const char *list, size_t *n)
{
    const pv_host **hosts = pv_arena_zalloc(&rq->arena, (run->n_hosts + 1) * sizeof *hosts);
    *n = 0;
    char *names = pv_arena_strdup(&rq->arena, list);
    for (char *save = NULL, *name = strtok_r(names, ",", &save); name != NULL;
         name = strtok_r(NULL, ",", &save)) {
        const pv_host *h = pv_run_host_find(run, name);
        if (h == NULL || pv_host_profile(h) == NULL) {
            char detail[600];
            snprintf(detail, sizeof detail, "run \"%.200s\" has no profile for host \"%.200s\"",
                     run->name, name);
            pv_respond_error(rs, 404, "unknown host", detail);
            return NULL;
        }
        bool seen = false;
        for (size_t i = 0; i < *n && !seen; i++)
            seen = hosts[i] == h;
        if (!seen)
            hosts[(*n)++] = h;
    }
    if (*n == 0) {
        pv_respond_error(rs, 404, "unknown host", "hosts= names no host");
        return NULL;
    }
    return hosts;
}

/* Every host of run with a profile; NULL with rs filled (404) when fewer
 * than two have one. */
static const pv_host **all_hosts(pv_request *rq, pv_response *rs, const pv_run *run, size_t *n)
{
    const pv_host **hosts = pv_arena_zalloc(&rq->arena, (run->n_hosts + 1) * sizeof *hosts);
    *n = 0;
    for (size_t i = 0; i < run->n_hosts; i++)
        if (pv_host_profile(&run->hosts[i]) != NULL)
            hosts[(*n)++] = &run->hosts[i];
    if (*n < 2) {
        char detail[600];
        snprintf(detail, sizeof detail,
                 "run \"%.400s\" has %zu host(s) with a profile; " ALL_HOSTS " needs at least two",
                 run->name, *n);
        pv_respond_error(rs, 404, "unknown host", detail);
        return NULL;
    }
    return hosts;
}

/* Answers a request for several hosts (ALL_HOSTS, or a hosts= list for a
 * tool that reads one) and returns true; returns false, answering nothing,
 * when the request names one host. */
static bool serve_several(pv_request *rq, pv_response *rs, const pv_tool *t, pv_answer_form form)
{
    bool bad = false;
    const char *host = pv_http_param(rq, "host", &bad);
    const char *run_name = pv_http_param(rq, "run", &bad);
    const char *list = t->reads_hosts_list ? pv_http_param(rq, "hosts", &bad) : NULL;
    bool all = host != NULL && strcmp(host, ALL_HOSTS) == 0;
    if (bad || (!all && list == NULL) || run_name == NULL)
        return false;
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    const pv_run *run = pv_index_run_find(ix, run_name);
    /* A real host called ALL_HOSTS is asked for by name. */
    bool mine = run != NULL && (list != NULL || pv_run_host_find(run, ALL_HOSTS) == NULL);
    size_t n = 0;
    const pv_host **hosts = NULL;
    if (mine)
        hosts = list != NULL ? listed_hosts(rq, rs, run, list, &n) : all_hosts(rq, rs, run, &n);
    if (hosts != NULL) {
        pv_ask ask = pv_http_ask(rq, t, NULL, form, run->name, ix->logdir, hosts, n, list == NULL);
        pv_http_answer(rq, rs, &ask);
    }
    pv_index_store_release(rq->app->index, ix);
    return mine;
}

/* ---- the routes ----------------------------------------------------------------------- */

static void serve(pv_request *rq, pv_response *rs, pv_answer_form form)
{
    const pv_tool *t = pv_http_target_tool(rq, rs);
    if (t == NULL || serve_several(rq, rs, t, form))
        return;
    pv_http_target tg = {0};
    if (pv_http_target_resolve(rq, rs, NULL, &tg) != 0)
        return;
    pv_ask ask = pv_http_ask(rq, t, NULL, form, tg.run->name, tg.ix->logdir, &tg.host, 1, false);
    pv_http_answer(rq, rs, &ask);
    pv_http_target_release(rq, &tg);
}

void pv_serve_data(pv_request *rq, pv_response *rs)
{
    serve(rq, rs, PV_ANSWER_JSON);
}

void pv_serve_data_csv(pv_request *rq, pv_response *rs)
{
    serve(rq, rs, PV_ANSWER_CSV);
}

void pv_serve_api_load(pv_request *rq, pv_response *rs)
{
    pv_http_target t = {0};
    if (pv_http_target_resolve(rq, rs, NULL, &t) != 0)
        return;
    const pv_host_file *profile = pv_host_profile(t.host);
    if (profile == NULL) {
        /* Per-tool files are read per request; there is nothing to load. */
        pv_respond_json(rs, 200, json_pack("{s:s}", "state", "ready"));
        pv_http_target_release(rq, &t);
        return;
    }
    pv_source src = pv_host_file_source(profile, t.ix->logdir);
    pv_load_status st;
    pv_model_store_poll(rq->app->models, &src, &st);
    pv_http_target_release(rq, &t);
    if (st.state == PV_LOAD_FAILED) {
        pv_respond_pv_error(rs, &st.err);
        return;
    }
    rs->cache_control = "no-store";
    /* The trace index is built after the model is ready, so "state" says
     * when the other tools can answer and "trace_index" when the trace
     * viewer can; the byte counts are what the memory budget sees. */
    static const char *const index_state[] = {"building", "ready", "failed"};
    /* "queued": waiting until the memory budget allows the load. */
    json_t *j = json_pack("{s:s, s:I, s:I, s:s, s:I, s:I, s:I, s:I}", "state",
                          st.state == PV_LOAD_READY ? "ready"
                          : st.queued               ? "queued"
                                                    : "loading",
                          "done_bytes",
                          (json_int_t)st.done_bytes, "total_bytes", (json_int_t)st.total_bytes,
                          "trace_index", index_state[st.companion_state], "model_bytes",
                          (json_int_t)st.model_bytes, "trace_index_bytes",
                          (json_int_t)st.companion_bytes, "held_bytes",
                          (json_int_t)pv_model_store_bytes(rq->app->models), "budget_bytes",
                          (json_int_t)pv_model_store_budget(rq->app->models));
    /* The page's bar: the phase by name, its own measure (bytes, then the
     * finish's and the index's passes over the events) and the whole load
     * as one fraction that never goes back. */
    static const char *const phase_name[] = {"reading", "finishing", "indexing", "done"};
    if (j != NULL)
        json_object_update_new(j, json_pack("{s:s, s:I, s:I, s:f}", "phase",
                                            phase_name[st.phase], "phase_done",
                                            (json_int_t)st.phase_done, "phase_total",
                                            (json_int_t)st.phase_total, "progress",
                                            pv_load_status_fraction(&st)));
    if (j != NULL && st.companion_state == PV_LOAD_FAILED) {
        char msg[1200];
        pv_error_format(&st.companion_err, msg, sizeof msg);
        json_object_set_new(j, "trace_index_error", json_string(msg));
    }
    pv_respond_json(rs, st.state == PV_LOAD_READY ? 200 : 202, j);
}

/* XProf's module list: the HLO modules of the host's profile as the memory
 * and graph viewers name them (tools/hlo/hlo_modules.h), a part of the
 * graph viewer. */
void pv_serve_module_list(pv_request *rq, pv_response *rs)
{
    pv_http_target t = {0};
    if (pv_http_target_resolve(rq, rs, NULL, &t) != 0)
        return;
    const pv_tool *gv = pv_tool_find("graph_viewer");
    pv_ask ask = pv_http_ask(rq, gv, pv_tool_part_find(gv, "module_list"), PV_ANSWER_JSON,
                             t.run->name, t.ix->logdir, &t.host, 1, false);
    pv_http_answer(rq, rs, &ask);
    pv_http_target_release(rq, &t);
}
