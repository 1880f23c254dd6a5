/* answers: a run's figures from its tools' answers, computed the way /data
 * computes them. For each ask of figures.h, offer.c says what answers the
 * tool on each host: the hosts' models, which the tool's descriptor
 * (tools/registry.h) computes from and writes as JSON, or one of
 * TensorFlow's per-tool files, read as it is (JSON) or converted by its
 * format's reader and written by the same descriptor. Where the models
 * and files come from is the caller's: the command line decodes files
 * itself, the server takes models from its store and opens files beneath
 * the logdir.
 *
 * Hosts are read together where a tool combines hosts (as ALL_HOSTS is),
 * and one by one otherwise; several hosts need a profile each, since
 * per-tool files answer one host. Any thread; state is the caller's. */
#ifndef PV_REPORT_ANSWERS_H
#define PV_REPORT_ANSWERS_H

#include "index/index.h"
#include "report/figures.h"

/* Where the models and files come from. */
typedef struct pv_report_source {
    /* The model of host i's profile (i indexes the hosts given), valid
     * until the figures are read. Returns 0, or an error code with err. */
    int (*model)(void *ctx, size_t host, const pv_model **out, pv_error *err);
    /* A descriptor open for reading on one of a host's per-tool files,
     * which the caller closes; -1 with err when it cannot be opened. */
    int (*open)(void *ctx, const pv_host_file *f, pv_error *err);
    void *ctx;
} pv_report_source;

/* Reads the figures of run (its name) on hosts[0 .. n_hosts) into *out,
 * memory from a; only the asks a brief needs when brief_only. Returns 0,
 * PV_EINVAL when several hosts are asked and one has no profile, or the
 * error of a model, file or answer that could not be read (err names the
 * file). */
int pv_report_figures(const char *run, const pv_host *const *hosts, size_t n_hosts,
                      bool brief_only, const pv_report_source *src, pv_arena *a, pv_figures *out,
                      pv_error *err);

#endif
