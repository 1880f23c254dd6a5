/* metrics: the counters of metrics.h and the /metrics route, in the
 * Prometheus text exposition format (version 0.0.4):
 *
 *   the server      requests by route and status, their latency histogram,
 *                   loads finished and running with their seconds and bytes,
 *                   kept answers found and missed and the bytes kept, model
 *                   bytes held, the memory budget, runs indexed;
 *   the runs        for the --metrics-runs most recently written runs (so
 *                   the label sets stay bounded), per run and host: step
 *                   time, the share of it waiting for input, the device idle
 *                   share, each allocator's peak in the profiling window.
 *
 * A run's figures are read once per file identity (report.c's briefs); a
 * scrape reads at most METRICS_BATCH it does not have yet, each of which
 * may decode a profile, and the others follow on the next scrapes, so a
 * scrape stays short whatever the logdir holds. */
#include "http/metrics.h"
#include "http/report.h"
#include "cache/store.h"
#include "pv_config.h"
#include "util/buf.h"
#include "util/mem.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define METRICS_BATCH 2
#define BODY_MAX_BYTES ((size_t)64 << 20)

static const unsigned statuses[] = {200, 202, 206, 304, 308, 400, 401, 403, 404, 405, 413,
                                    414, 421, 422, 500, 501, 503};
#define N_STATUS (sizeof statuses / sizeof statuses[0] + 1)   /* + any other */

static const double bounds_s[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                  0.5,   1,      2.5,   5,    10};
#define N_BOUNDS (sizeof bounds_s / sizeof bounds_s[0])

struct pv_http_metrics {
    size_t n_routes;
    _Atomic uint64_t *requests;          /* (n_routes + 2) x N_STATUS */
    _Atomic uint64_t buckets[N_BOUNDS + 1]; /* per bound, not cumulative; the last +Inf */
    _Atomic uint64_t sum_ns;
    _Atomic uint64_t cache_hits, cache_misses, kept_bytes;
};

pv_http_metrics *pv_http_metrics_new(void)
{
    pv_http_metrics *m = pv_xcalloc(1, sizeof *m);
    m->n_routes = pv_http_route_count();
    m->requests = pv_xcalloc((m->n_routes + 2) * N_STATUS, sizeof *m->requests);
    return m;
}

void pv_http_metrics_free(pv_http_metrics *m)
{
    if (m == NULL)
        return;
    free((void *)m->requests);
    free(m);
}

static size_t status_slot(unsigned status)
{
    for (size_t i = 0; i + 1 < N_STATUS; i++)
        if (statuses[i] == status)
            return i;
    return N_STATUS - 1;
}

void pv__metrics_request(pv_http_metrics *m, int route, unsigned status, double seconds)
{
    if (m == NULL)
        return;
    /* Route slots: the table's, then the embedded files, then the rest. */
    size_t r = route >= 0 ? (size_t)route : route == -1 ? m->n_routes : m->n_routes + 1;
    atomic_fetch_add_explicit(&m->requests[r * N_STATUS + status_slot(status)], 1,
                              memory_order_relaxed);
    size_t b = 0;
    while (b < N_BOUNDS && seconds > bounds_s[b])
        b++;
    atomic_fetch_add_explicit(&m->buckets[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->sum_ns, (uint64_t)(seconds * 1e9), memory_order_relaxed);
}

void pv__metrics_cache(pv_http_metrics *m, bool hit)
{
    if (m != NULL)
        atomic_fetch_add_explicit(hit ? &m->cache_hits : &m->cache_misses, 1,
                                  memory_order_relaxed);
}

void pv__metrics_kept(pv_http_metrics *m, size_t bytes)
{
    if (m != NULL)
        atomic_fetch_add_explicit(&m->kept_bytes, bytes, memory_order_relaxed);
}

static uint64_t load(_Atomic uint64_t *v)
{
    return atomic_load_explicit(v, memory_order_relaxed);
}

/* ---- writing --------------------------------------------------------------------------- */

static void family(pv_buf *b, const char *name, const char *type, const char *help)
{
    pv_buf_addf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value as the format quotes it: backslash, quote and newline
 * escaped. */
static void label(pv_buf *b, const char *name, const char *value, bool last)
{
    pv_buf_addf(b, "%s=\"", name);
    for (const char *p = value; *p != '\0'; p++) {
        if (*p == '\\' || *p == '"')
            pv_buf_addf(b, "\\%c", *p);
        else if (*p == '\n')
            pv_buf_adds(b, "\\n");
        else
            pv_buf_add(b, p, 1);
    }
    pv_buf_adds(b, last ? "\"}" : "\",");
}

static void requests(pv_buf *b, pv_http_metrics *m)
{
    family(b, "profview_http_requests_total", "counter",
           "HTTP requests answered, by route and status.");
    for (size_t r = 0; r < m->n_routes + 2; r++) {
        const char *route = r < m->n_routes ? pv_http_route_path(r)
                            : r == m->n_routes ? "static"
                                               : "other";
        for (size_t s = 0; s < N_STATUS; s++) {
            uint64_t n = load(&m->requests[r * N_STATUS + s]);
            if (n == 0)
                continue;
            char code[16] = "other";
            if (s + 1 < N_STATUS)
                snprintf(code, sizeof code, "%u", statuses[s]);
            pv_buf_adds(b, "profview_http_requests_total{");
            label(b, "route", route, false);
            label(b, "status", code, true);
            pv_buf_addf(b, " %llu\n", (unsigned long long)n);
        }
    }
    family(b, "profview_http_request_duration_seconds", "histogram",
           "Time from a complete request to its answer queued.");
    uint64_t total = 0;
    for (size_t i = 0; i <= N_BOUNDS; i++) {
        total += load(&m->buckets[i]);
        if (i < N_BOUNDS)
            pv_buf_addf(b, "profview_http_request_duration_seconds_bucket{le=\"%g\"} %llu\n",
                        bounds_s[i], (unsigned long long)total);
    }
    pv_buf_addf(b, "profview_http_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
                   "profview_http_request_duration_seconds_sum %.9f\n"
                   "profview_http_request_duration_seconds_count %llu\n",
                (unsigned long long)total, (double)load(&m->sum_ns) / 1e9,
                (unsigned long long)total);
}

static void gauge(pv_buf *b, const char *name, const char *type, const char *help, double v)
{
    family(b, name, type, help);
    pv_buf_addf(b, "%s %.17g\n", name, v);
}

static void server(pv_buf *b, pv_request *rq, pv_http_metrics *m, size_t n_runs)
{
    pv_store_stats st;
    pv_model_store_stats(rq->app->models, &st);
    gauge(b, "profview_loads_in_flight", "gauge", "Profiles being decoded now.",
          (double)st.in_flight);
    gauge(b, "profview_loads_total", "counter", "Profile loads finished, failed ones too.",
          (double)st.loads);
    gauge(b, "profview_load_failures_total", "counter", "Profile loads that failed.",
          (double)st.failed);
    gauge(b, "profview_load_seconds_total", "counter", "Seconds spent by finished loads.",
          st.load_seconds);
    gauge(b, "profview_load_bytes_total", "counter", "Profile bytes loaded.",
          (double)st.load_bytes);
    gauge(b, "profview_profiles_decoded_total", "counter",
          "Profiles decoded (0 on a replica of a cache precompute filled).", (double)st.decoded);
    gauge(b, "profview_models_from_cache_total", "counter",
          "Saved models read from the disk cache instead of decoding.", (double)st.from_disk);
    gauge(b, "profview_answer_cache_hits_total", "counter",
          "Tool answers sent from the disk cache.", (double)load(&m->cache_hits));
    gauge(b, "profview_answer_cache_misses_total", "counter",
          "Tool answers not in the disk cache, so computed.", (double)load(&m->cache_misses));
    gauge(b, "profview_answer_cache_kept_bytes_total", "counter",
          "Bytes of tool answers kept in the disk cache.", (double)load(&m->kept_bytes));
    gauge(b, "profview_model_bytes", "gauge", "Bytes held by loaded profiles and their indexes.",
          (double)pv_model_store_bytes(rq->app->models));
    gauge(b, "profview_memory_budget_bytes", "gauge",
          "The memory budget of loaded profiles (0: none).",
          (double)pv_model_store_budget(rq->app->models));
    gauge(b, "profview_runs", "gauge", "Runs indexed in the logdir.", (double)n_runs);
}

/* ---- the runs ---------------------------------------------------------------------------- */

typedef struct host_brief {
    const char *run, *host;
    pv_brief brief;
} host_brief;

static void run_series(pv_buf *b, const char *name, const char *help, const host_brief *v,
                       size_t n, int which)
{
    family(b, name, "gauge", help);
    for (size_t i = 0; i < n; i++) {
        const pv_brief *br = &v[i].brief;
        double x = which == 0 ? br->step_mean_ms / 1e3
                   : which == 1 ? br->input_percent / 100
                                : br->device_idle_percent / 100;
        if (x < 0)
            continue;
        pv_buf_addf(b, "%s{", name);
        label(b, "run", v[i].run, false);
        label(b, "host", v[i].host, true);
        pv_buf_addf(b, " %.17g\n", x);
    }
}

static void runs(pv_buf *b, pv_request *rq, const pv_index *ix)
{
    size_t want = pv_cfg.metrics_runs < ix->n_runs ? pv_cfg.metrics_runs : ix->n_runs;
    size_t n_runs;
    const pv_dated_run *all = pv__report_runs_by_time(&rq->arena, ix, NULL, &n_runs);
    size_t cap = 0;
    for (size_t i = n_runs - want; i < n_runs; i++)
        cap += all[i].run->n_hosts;
    host_brief *v = pv_arena_zalloc(&rq->arena, (cap + 1) * sizeof *v);
    size_t n = 0, read = 0, pending = 0;
    /* The newest first: they are read first when several are not yet. */
    for (size_t i = n_runs; i-- > n_runs - want;) {
        const pv_run *run = all[i].run;
        for (size_t h = 0; h < run->n_hosts; h++) {
            const pv_host *host = &run->hosts[h];
            host_brief *x = &v[n];
            bool known = pv__report_brief(rq, ix, run, &host, 1, false, &x->brief);
            if (!known && read < METRICS_BATCH) {
                read++;
                known = pv__report_brief(rq, ix, run, &host, 1, true, &x->brief);
            }
            pending += !known;
            if (known) {
                x->run = run->name;
                x->host = host->name;
                n++;
            }
        }
    }
    gauge(b, "profview_run_figures_pending", "gauge",
          "Hosts of the reported runs whose figures are not read yet.", (double)pending);
    run_series(b, "profview_run_step_time_seconds", "Mean step time of a run on a host.", v, n,
               0);
    run_series(b, "profview_run_input_bound_ratio",
               "Share of step time waiting for input (0 to 1).", v, n, 1);
    run_series(b, "profview_run_device_idle_ratio", "Device idle share (0 to 1).", v, n, 2);
    family(b, "profview_run_peak_memory_bytes", "gauge",
           "Peak memory in use in the profiling window, per allocator.");
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < v[i].brief.n_allocs; k++) {
            pv_buf_adds(b, "profview_run_peak_memory_bytes{");
            label(b, "run", v[i].run, false);
            label(b, "host", v[i].host, false);
            label(b, "allocator", v[i].brief.allocs[k].allocator, true);
            pv_buf_addf(b, " %.17g\n", v[i].brief.allocs[k].peak_bytes);
        }
    }
}

void pv_serve_metrics(pv_request *rq, pv_response *rs)
{
    pv_buf b;
    pv_buf_init(&b, BODY_MAX_BYTES);
    pv_index *ix = pv_index_store_acquire(rq->app->index);
    requests(&b, rq->app->metrics);
    server(&b, rq, rq->app->metrics, ix->n_runs);
    if (pv_cfg.metrics_runs > 0)
        runs(&b, rq, ix);
    pv_index_store_release(rq->app->index, ix);
    rs->status = 200;
    rs->content_type = "text/plain; version=0.0.4; charset=utf-8";
    rs->cache_control = "no-store";
    rs->body = pv_buf_take(&b, &rs->len);
    if (rs->body == NULL)
        rs->body = pv_xstrdup("");
}
