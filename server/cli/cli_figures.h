/* cli_figures: from a path on the command line to a run's figures. Resolves the
 * path into a run and its hosts (index/index.h's types, so offer.c decides
 * what answers each tool), asks every tool figures read (report/figures.h)
 * for its answer — computed from the hosts' models by the tool's
 * descriptor, or read from TensorFlow's per-tool file — and reads the
 * answers into figures. Inside cli/ only. */
#ifndef PV_CLI_CLI_FIGURES_H
#define PV_CLI_CLI_FIGURES_H

#include "report/figures.h"

/* Reads the figures of the run path names into *out (memory from a).
 * run (may be NULL) names a run of a logdir; host (may be NULL) one host.
 * Returns 0, or PV_EIO / PV_ENOTFOUND / PV_EFORMAT / PV_ETOOBIG with err
 * saying what is wrong with which file or choice. */
int pv__cli_figures(const char *path, const char *run, const char *host, pv_arena *a,
                    pv_figures *out, pv_error *err);

#endif
