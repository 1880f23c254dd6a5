/* report: figures and briefs read through the answer layer (report.h),
 * with the server's models, disk cache and slots for expensive answers,
 * so a run's figures are the answers the pages get, from the same cache. */
#include "http/report.h"
#include "report/answers.h"
#include "report/briefs.h"
#include "util/sort.h"

#include <stdio.h>
#include <string.h>

size_t pv__report_hosts(const pv_run *run, const pv_host **out)
{
    if (run->n_hosts > 1 && pv_run_profiles(run) == run->n_hosts) {
        for (size_t i = 0; i < run->n_hosts; i++)
            out[i] = &run->hosts[i];
        return run->n_hosts;
    }
    out[0] = &run->hosts[0];
    return run->n_hosts > 0;
}

int pv__report_figures(pv_request *rq, const pv_index *ix, const pv_run *run,
                       const pv_host *const *hosts, size_t n, bool brief_only, pv_arena *a,
                       pv_figures *out, pv_error *err)
{
    pv_answer_ctx ctx = pv_http_answer_ctx(rq);
    return pv_report_figures(&ctx, ix->logdir, run, hosts, n, brief_only, a, out, err);
}

/* What a brief was read from: the run, its hosts and every file's
 * identity, so a changed file is a new key. */
static const char *brief_key(pv_arena *a, const pv_run *run, const pv_host *const *hosts,
                             size_t n)
{
    const char *key = pv_arena_printf(a, "%s", run->name);
    for (size_t i = 0; i < n; i++) {
        key = pv_arena_printf(a, "%s\n%s", key, hosts[i]->name);
        for (size_t k = 0; k < hosts[i]->n_files; k++) {
            const pv_host_file *f = &hosts[i]->files[k];
            key = pv_arena_printf(a, "%s|%s:%llu:%llu:%llu:%lld:%lld", key, f->path,
                                  (unsigned long long)f->id.dev, (unsigned long long)f->id.ino,
                                  (unsigned long long)f->id.size_bytes, (long long)f->id.mtime_ns,
                                  (long long)f->id.ctime_ns);
        }
    }
    return key;
}

bool pv__report_brief(pv_request *rq, const pv_index *ix, const pv_run *run,
                      const pv_host *const *hosts, size_t n, bool compute, pv_brief *out)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    const char *key = brief_key(&a, run, hosts, n);
    bool known = pv_briefs_get(rq->app->briefs, key, out);
    if (!known && compute) {
        pv_figures f;
        pv_error err = {0};
        int rc = pv__report_figures(rq, ix, run, hosts, n, true, &a, &f, &err);
        if (rc != PV_EBUSY) {
            if (rc != 0)
                pv_figures_init(&f, run->name, "", &a);
            pv_brief_of(&f, out);
            pv_briefs_put(rq->app->briefs, key, out);
            known = true;
        }
    }
    pv_arena_fini(&a);
    return known;
}

static int64_t written_ns(const pv_run *run)
{
    int64_t ns = 0;
    for (size_t i = 0; i < run->n_hosts; i++)
        for (size_t k = 0; k < run->hosts[i].n_files; k++)
            if (run->hosts[i].files[k].id.mtime_ns > ns)
                ns = run->hosts[i].files[k].id.mtime_ns;
    return ns;
}

static int older_first(const void *pa, const void *pb)
{
    const pv_dated_run *a = pa, *b = pb;
    if (a->ns != b->ns)
        return a->ns < b->ns ? -1 : 1;
    return strcmp(a->run->name, b->run->name);
}

pv_dated_run *pv__report_runs_by_time(pv_arena *a, const pv_index *ix, const char *prefix,
                                      size_t *n)
{
    size_t len = prefix != NULL ? strlen(prefix) : 0;
    pv_dated_run *v = pv_arena_zalloc(a, (ix->n_runs + 1) * sizeof *v);
    *n = 0;
    for (size_t i = 0; i < ix->n_runs; i++)
        if (len == 0 || strncmp(ix->runs[i].name, prefix, len) == 0)
            v[(*n)++] = (pv_dated_run){&ix->runs[i], written_ns(&ix->runs[i])};
    pv_sort(v, *n, sizeof *v, older_first);
    return v;
}
