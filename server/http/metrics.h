/* metrics: what /metrics reports about the server itself, counted where it
 * is cheap: requests by route and status and their latency (server.c, once
 * per answer), kept answers found and missed (api_data.c). Loads come from
 * the store (cache/store.h), runs from the index, and the per-run figures
 * from report.c's briefs. Counters are relaxed atomics: any thread adds,
 * a scrape reads them without stopping anyone. */
#ifndef PV_HTTP_METRICS_H
#define PV_HTTP_METRICS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pv_http_metrics pv_http_metrics;

/* For routes routes (pv_http_route_count()). Cannot fail. */
pv_http_metrics *pv_http_metrics_new(void);
/* NULL is fine. */
void pv_http_metrics_free(pv_http_metrics *m);

/* One answer: route is pv_http_route_index's (or -1 for the embedded
 * files, -2 for a request refused or outside the prefix). m may be NULL. */
void pv__metrics_request(pv_http_metrics *m, int route, unsigned status, double seconds);
/* One look for a kept answer; bytes kept after a miss. m may be NULL. */
void pv__metrics_cache(pv_http_metrics *m, bool hit);
void pv__metrics_kept(pv_http_metrics *m, size_t bytes);

#endif
