/* api_profile: the TensorBoard profile plugin's listing routes (runs,
 * run_tools, hosts, config, version, capture_profile) and the native
 * /api/index and /healthz. They answer from the index snapshot alone. */
#include "cache/store.h"
#include "http/http.h"
#include "http/target.h"
#include "tools/registry.h"

#include <stdio.h>
#include <string.h>

#define MAX_TOOLS 32

/* Looks up the run named by ?run=; on failure fills rs and returns NULL. */
static const pv_run *want_run(pv_request *rq, pv_response *rs, const pv_index *ix)
{
    bool bad = false;
    const char *name = pv_http_param(rq, "run", &bad);
    if (bad) {
        pv_respond_error(rs, 400, "bad parameter", "run is not valid UTF-8 text");
        return NULL;
    }
    if (name == NULL) {
        pv_respond_error(rs, 400, "missing parameter", "run is required");
        return NULL;
    }
    return pv_http_target_find_run(rs, ix, name);
}

void pv_serve_runs(pv_request *rq, pv_response *rs)
{
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    json_t *arr = json_array();
    /* TensorBoard lists runs newest first: reverse name order, since run
     * folders are timestamps. */
    for (size_t i = ix->n_runs; i-- > 0;)
        json_array_append_new(arr, json_string(ix->runs[i].name));
    pv_index_store_release(rq->app->index, ix);
    pv_respond_json(rs, 200, arr);
}

void pv_serve_run_tools(pv_request *rq, pv_response *rs)
{
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    const pv_run *run = want_run(rq, rs, ix);
    if (run != NULL) {
        const pv_tool *tools[MAX_TOOLS];
        size_t n = pv_run_tools(run, tools, MAX_TOOLS);
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, json_string(tools[i]->name));
        pv_respond_json(rs, 200, arr);
    }
    pv_index_store_release(rq->app->index, ix);
}

/* The reference lists the pseudo host ALL_HOSTS after the hosts when a
 * run has several; profview does for the tools that say so (tools/tool.h),
 * over the hosts with a profile. XProf lists only the real hosts for the
 * trace viewer, which takes several through hosts=; ALL_HOSTS still
 * answers when asked. */
static bool offers_all_hosts(const pv_run *run, const pv_tool *t)
{
    return t->lists_all_hosts && pv_run_host_find(run, "ALL_HOSTS") == NULL &&
           pv_run_profiles(run) > 1;
}

void pv_serve_hosts(pv_request *rq, pv_response *rs)
{
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    const pv_run *run = want_run(rq, rs, ix);
    if (run != NULL) {
        bool bad = false;
        const char *name = pv_http_param(rq, "tag", &bad);
        const pv_tool *tool = name != NULL ? pv_tool_find(name) : NULL;
        json_t *arr = json_array();
        for (size_t i = 0; i < run->n_hosts; i++) {
            if (name != NULL && (tool == NULL || !pv_host_has_tool(&run->hosts[i], tool)))
                continue;
            json_array_append_new(arr, json_pack("{s:s}", "hostname", run->hosts[i].name));
        }
        if (tool != NULL && offers_all_hosts(run, tool))
            json_array_append_new(arr, json_pack("{s:s}", "hostname", "ALL_HOSTS"));
        pv_respond_json(rs, 200, arr);
    }
    pv_index_store_release(rq->app->index, ix);
}

void pv_serve_config(pv_request *rq, pv_response *rs)
{
    (void)rq;
    /* Capturing needs a live training job and network access, which an
     * offline viewer does not have, so the button is hidden. */
    pv_respond_json(rs, 200, json_pack("{s:b, s:s, s:b}", "hideCaptureProfileButton", 1,
                                       "srcPathPrefix", "", "enableTabNameLabel", 0));
}

void pv_serve_version(pv_request *rq, pv_response *rs)
{
    (void)rq;
    pv_respond_text(rs, 200, "text/plain; charset=utf-8", PV_VERSION);
}

void pv_serve_capture(pv_request *rq, pv_response *rs)
{
    (void)rq;
    pv_respond_error(rs, 501, "not supported",
                     "profview is an offline viewer and does not capture profiles; capture with "
                     "tf.profiler or jax.profiler and point --logdir at the result");
}

/* The tools profview knows, in the registry's order, with their titles,
 * aliases and the host their view opens on: the page's one source for them
 * (web/registry.js). */
/* A table of declared parameters as /api/tools lists it: each one's name,
 * kind, what it changes and its rule. */
static json_t *params_json(const pv_param_decl *d, size_t n)
{
    static const char *const kinds[] = {"uint", "switch", "choice", "number", "text",
                                        "uint_list"};
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_pack("{s:s, s:s, s:s, s:b}", "name", d[i].name, "kind",
                              kinds[d[i].kind], "about", d[i].about, "required", d[i].required);
        char num[24];
        switch (d[i].kind) {
        case PV_PARAM_UINT:
        case PV_PARAM_UINT_LIST:
            if (d[i].kind == PV_PARAM_UINT) {
                snprintf(num, sizeof num, "%llu", (unsigned long long)d[i].def);
                json_object_set_new(p, "default", json_string(num));
                snprintf(num, sizeof num, "%llu", (unsigned long long)d[i].min);
                json_object_set_new(p, "min", json_string(num));
            } else {
                json_object_set_new(p, "max_items", json_integer((json_int_t)d[i].max_items));
            }
            snprintf(num, sizeof num, "%llu", (unsigned long long)d[i].max);
            json_object_set_new(p, "max", json_string(num));
            break;
        case PV_PARAM_SWITCH:
            json_object_set_new(p, "default", json_boolean(d[i].def != 0));
            break;
        case PV_PARAM_CHOICE: {
            json_t *words = json_array();
            for (size_t k = 0; d[i].choices[k] != NULL; k++)
                json_array_append_new(words, json_string(d[i].choices[k]));
            json_object_set_new(p, "choices", words);
            json_object_set_new(p, "default", json_string(d[i].choices[d[i].def]));
            break;
        }
        case PV_PARAM_NUMBER:
            json_object_set_new(p, "min", json_real(d[i].lo));
            json_object_set_new(p, "max", json_real(d[i].hi));
            break;
        case PV_PARAM_TEXT:
            break;
        }
        json_array_append_new(arr, p);
    }
    return arr;
}

void pv_serve_api_tools(pv_request *rq, pv_response *rs)
{
    (void)rq;
    size_t n;
    const pv_tool *const *tools = pv_tools(&n);
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        const pv_tool *t = tools[i];
        json_t *aliases = json_array();
        for (size_t k = 0; t->aliases != NULL && t->aliases[k] != NULL; k++)
            json_array_append_new(aliases, json_string(t->aliases[k]));
        json_t *parts = json_array();
        for (size_t k = 0; k < t->n_parts; k++)
            json_array_append_new(parts, json_pack("{s:s, s:o}", "name", t->parts[k].name,
                                                   "params",
                                                   params_json(t->parts[k].params,
                                                               t->parts[k].n_params)));
        json_array_append_new(arr, json_pack("{s:s, s:s, s:o, s:b, s:o, s:o, s:b}", "name",
                                             t->name, "title", t->title, "aliases", aliases,
                                             "opens_on_all_hosts", t->opens_on_all_hosts,
                                             "params", params_json(t->params, t->n_params),
                                             "parts", parts, "csv", t->write_csv != NULL));
    }
    pv_respond_json(rs, 200, arr);
}

void pv_serve_healthz(pv_request *rq, pv_response *rs)
{
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    pv_index_store_release(rq->app->index, ix);
    pv_respond_text(rs, 200, "text/plain; charset=utf-8", "ok\n");
}

void pv_serve_api_index(pv_request *rq, pv_response *rs)
{
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    json_t *runs = json_array();
    for (size_t i = ix->n_runs; i-- > 0;) {
        const pv_run *run = &ix->runs[i];
        json_t *hosts = json_array();
        for (size_t h = 0; h < run->n_hosts; h++) {
            const pv_tool *offered[MAX_TOOLS];
            size_t n = pv_host_tools(&run->hosts[h], offered, MAX_TOOLS);
            json_t *tools = json_array();
            for (size_t t = 0; t < n; t++)
                json_array_append_new(tools, json_string(offered[t]->name));
            json_t *files = json_array();
            for (size_t f = 0; f < run->hosts[h].n_files; f++) {
                const pv_host_file *hf = &run->hosts[h].files[f];
                const char *base = strrchr(hf->path, '/');
                json_array_append_new(files, json_pack("{s:s, s:I}", "name",
                                                       base ? base + 1 : hf->path, "bytes",
                                                       (json_int_t)hf->id.size_bytes));
            }
            json_array_append_new(hosts, json_pack("{s:s, s:o, s:o}", "name",
                                                   run->hosts[h].name, "tools", tools,
                                                   "files", files));
        }
        json_array_append_new(runs, json_pack("{s:s, s:o}", "name", run->name, "hosts", hosts));
    }
    /* What the model store's loads did: a replica of a precompute'd cache
     * serves with "decoded" 0. */
    pv_store_stats loads;
    pv_model_store_stats(rq->app->models, &loads);
    json_t *j = json_pack("{s:s, s:o, s:I, s:{s:I, s:I}}", "version", PV_VERSION, "runs", runs,
                          "generation", (json_int_t)ix->generation, "loads", "decoded",
                          (json_int_t)loads.decoded, "from_disk", (json_int_t)loads.from_disk);
    pv_index_store_release(rq->app->index, ix);
    pv_respond_json(rs, 200, j);
}
