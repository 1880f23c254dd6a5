/* routes: the one table of dynamic paths. Anything not listed is looked
 * up among the embedded frontend files. */
#include "http/http.h"

#include <string.h>

typedef struct route {
    const char *path;
    pv_handler handler;
} route;

static const route routes[] = {
    {"/data/plugin/profile/runs", pv_serve_runs},
    {"/data/plugin/profile/run_tools", pv_serve_run_tools},
    {"/data/plugin/profile/hosts", pv_serve_hosts},
    {"/data/plugin/profile/data", pv_serve_data},
    {"/data/plugin/profile/data_csv", pv_serve_data_csv},
    {"/data/plugin/profile/module_list", pv_serve_module_list},
    {"/data/plugin/profile/config", pv_serve_config},
    {"/data/plugin/profile/version", pv_serve_version},
    {"/data/plugin/profile/capture_profile", pv_serve_capture},
    {"/healthz", pv_serve_healthz},
    {"/api/index", pv_serve_api_index},
    {"/api/load", pv_serve_api_load},
    {"/api/tools", pv_serve_api_tools},
    {"/api/trace/meta", pv_serve_trace_part},
    {"/api/trace/tile", pv_serve_trace_part},
    {"/api/trace/event", pv_serve_trace_part},
    {"/api/trace/search", pv_serve_trace_part},
    {"/api/trace/aggregate", pv_serve_trace_part},
    {"/api/summary", pv_serve_api_summary},
    {"/api/compare", pv_serve_api_compare},
    {"/api/history", pv_serve_api_history},
    {"/metrics", pv_serve_metrics},
};

#define N_ROUTES (sizeof routes / sizeof routes[0])

int pv_http_route_index(const char *path)
{
    for (size_t i = 0; i < N_ROUTES; i++)
        if (strcmp(routes[i].path, path) == 0)
            return (int)i;
    return -1;
}

pv_handler pv_http_route(const char *path)
{
    int i = pv_http_route_index(path);
    return i >= 0 ? routes[i].handler : NULL;
}

size_t pv_http_route_count(void)
{
    return N_ROUTES;
}

const char *pv_http_route_path(size_t i)
{
    return i < N_ROUTES ? routes[i].path : "";
}
