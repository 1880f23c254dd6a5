/* answers: a run's figures from its tools' answers, asked of the answer
 * layer (answer/answer.h) as any request asks: the hosts' models or
 * TensorFlow's per-tool files answer them, kept in the cache where the
 * caller's context keeps answers, so compare, history and /metrics read
 * what the pages read, from the same keys.
 *
 * Hosts are read together where a tool combines hosts (as ALL_HOSTS is),
 * and one by one otherwise; several hosts need a profile each, since
 * per-tool files answer one host. Any thread; state is the caller's. */
#ifndef PV_REPORT_ANSWERS_H
#define PV_REPORT_ANSWERS_H

#include "answer/answer.h"
#include "index/index.h"
#include "report/figures.h"

/* Reads the figures of run on hosts[0 .. n_hosts), the run's files below
 * root (NULL: opened as named), into *out, memory from a; only the asks a
 * brief needs when brief_only. Returns 0, PV_EINVAL when several hosts are
 * asked and one has no profile, PV_EBUSY when no slot for an expensive
 * answer came free in time, or the error of a model, file or answer that
 * could not be read (err names the file). */
int pv_report_figures(const pv_answer_ctx *ctx, const char *root, const pv_run *run,
                      const pv_host *const *hosts, size_t n_hosts, bool brief_only, pv_arena *a,
                      pv_figures *out, pv_error *err);

#endif
