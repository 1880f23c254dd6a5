/* report: runs' figures as the server reads them (report/answers.h),
 * through the answer layer with the server's models and cache, for the
 * report routes (api_report.c) and /metrics (metrics.c). Inside http/ only. */
#ifndef PV_HTTP_REPORT_H
#define PV_HTTP_REPORT_H

#include "http/http.h"
#include "report/figures.h"

/* The hosts figures of run read when none is named: all of them together
 * when each has a profile, else the first (per-tool files answer one host
 * each). Writes up to run->n_hosts pointers to out; returns the count. */
size_t pv__report_hosts(const pv_run *run, const pv_host **out);

/* Reads the figures of run on hosts [0 .. n) into *out (memory from a),
 * asked of the answer layer; brief_only reads only what a brief needs.
 * Returns 0, PV_EBUSY when no slot for an expensive answer came free in
 * time, or the error of a file. */
int pv__report_figures(pv_request *rq, const pv_index *ix, const pv_run *run,
                       const pv_host *const *hosts, size_t n, bool brief_only, pv_arena *a,
                       pv_figures *out, pv_error *err);

/* The brief of run on hosts [0 .. n): the one kept for these files, or,
 * when compute is true, read now and kept (an unreadable run is kept as
 * one with no figures, so it is not read again until a file changes).
 * Returns true when *out is filled, false when it is not known yet. */
bool pv__report_brief(pv_request *rq, const pv_index *ix, const pv_run *run,
                      const pv_host *const *hosts, size_t n, bool compute, pv_brief *out);

/* A run and when it was last written (its newest file's mtime, ns). */
typedef struct pv_dated_run {
    const pv_run *run;
    int64_t ns;
} pv_dated_run;

/* The runs of ix whose name starts with prefix (NULL: all), the oldest
 * written first (ties by name), in a; *n gets their count. Cannot fail. */
pv_dated_run *pv__report_runs_by_time(pv_arena *a, const pv_index *ix, const char *prefix,
                                      size_t *n);

#endif
