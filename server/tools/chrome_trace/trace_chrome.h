/* trace_chrome: the whole trace (or a time window of it) as Chrome trace
 * JSON in the reference's shapes (FORMATS.md §4.1 for trace_viewer, §4.2
 * for trace_viewer@), with no event cap. Written straight into a capped
 * buffer: a big profile gives gigabytes, far too many for a jansson tree.
 * Pure function of the model. */
#ifndef PV_TOOLS_CHROME_TRACE_TRACE_CHROME_H
#define PV_TOOLS_CHROME_TRACE_TRACE_CHROME_H

#include "model/model.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct pv_trace_chrome_query {
    bool streaming;      /* trace_viewer@: native arg types, window, extra fields */
    int64_t start_ps;    /* absolute window; events overlapping it are written */
    int64_t end_ps;      /* INT64_MIN / INT64_MAX for the whole trace */
    uint64_t resolution; /* trace_viewer@: slots per row (trace_visibility.h); 0: all */
    uint64_t filter_min_events; /* decimate only models with at least this many
                                   events (XProf: PV_TRACE_VIS_MIN_EVENTS) */
} pv_trace_chrome_query;

/* Appends the JSON to b. Returns 0, or PV_ETOOBIG when b's cap is hit
 * (b is then empty). */
int pv_trace_chrome_write(const pv_model *m, const pv_trace_chrome_query *q, pv_buf *b,
                          pv_error *err);

/* The same for several hosts of one run in one answer (the reference's
 * hosts= and ALL_HOSTS). In trace_viewer@, or with several hosts, each
 * host's processes get pid 1000 x (its place in models, from 1) + the
 * plane's pid and names "<host> <plane>" when hosts (may be NULL, or hold
 * NULLs) names it, as XProf's streaming converter writes them. Each host is
 * windowed and decimated on its own. Returns 0, or PV_ETOOBIG (b is then
 * empty). pv_trace_chrome_write is this for one unnamed host. */
int pv_trace_chrome_write_hosts(const pv_model *const *models, const char *const *hosts,
                                size_t n, const pv_trace_chrome_query *q, pv_buf *b,
                                pv_error *err);

#endif
