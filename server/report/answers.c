/* answers: each ask answered on the chosen hosts, read into figures
 * (answers.h). */
#include "report/answers.h"
#include "tools/registry.h"
#include "util/gzip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ANSWER_MAX_BYTES ((size_t)4 << 30)

typedef struct asking {
    const pv_host *const *hosts;
    size_t n_hosts;
    const pv_report_source *src;
    pv_arena *arena;
} asking;

/* The parameters of an ask (a query string) as a tool reads them. */
typedef struct query_ctx {
    const char *query;
    pv_arena *arena;
} query_ctx;

static const char *query_get(void *ctx, const char *name, bool *bad)
{
    (void)bad;
    query_ctx *q = ctx;
    char buf[256];
    const char *v = pv_figures_query_param(q->query, name, buf, sizeof buf);
    return v != NULL ? pv_arena_strdup(q->arena, v) : NULL;
}

/* The answer of t on hosts [first, first + n) from their models. */
static int from_models(const asking *k, size_t first, size_t n, const pv_tool *t, const void *q,
                       pv_buf *out, pv_error *err)
{
    const pv_model **models = pv_arena_zalloc(k->arena, (n + 1) * sizeof *models);
    const char **names = pv_arena_zalloc(k->arena, (n + 1) * sizeof *names);
    for (size_t i = 0; i < n; i++) {
        int rc = k->src->model(k->src->ctx, first + i, &models[i], err);
        if (rc != 0)
            return rc;
        names[i] = k->hosts[first + i]->name;
    }
    pv_tool_input in = {models, names, n};
    void *result = NULL;
    int rc = t->compute != NULL ? t->compute(&in, q, k->arena, &result, err) : 0;
    return rc != 0 ? rc : t->write_json(&in, q, result, out, err);
}

/* The answer of t from one of TensorFlow's per-tool files. */
static int from_file(const asking *k, const pv_host_file *f, const pv_tool *t, const void *q,
                     pv_buf *out, pv_error *err)
{
    const pv_format *fmt = f->format;
    int fd = k->src->open(k->src->ctx, f, err);
    if (fd < 0)
        return err != NULL && err->code != 0 ? err->code : PV_EIO;
    char *data;
    size_t len;
    int rc = pv_ingest_read_whole(fd, f->path, fmt->max_bytes, &data, &len, err);
    close(fd);
    if (rc != 0)
        return rc;
    if (fmt->role == PV_FORMAT_TOOL_FILE && fmt->gzip) {
        rc = pv_gzip_decompress(data, len, out, f->path, err);
    } else if (fmt->role == PV_FORMAT_TOOL_FILE) {
        rc = pv_buf_add(out, data, len);
    } else {
        void *result;
        pv_tool_input none = {NULL, NULL, 0};
        rc = fmt->answer((const uint8_t *)data, len, f->path, k->arena, &result, err);
        if (rc == 0)
            rc = t->write_json(&none, q, result, out, err);
    }
    /* A converted result may point into the file's bytes until written. */
    free(data);
    return rc;
}

/* Asks ask of hosts [first, first + n) and reads the answer into f; an ask
 * nothing answers there is left out. */
static int ask_hosts(const asking *k, const pv_figures_ask *ask, size_t first, size_t n,
                     pv_figures *f, pv_error *err)
{
    const pv_tool *t = pv_tool_find(ask->tool);
    bool from_model = false;
    const pv_host_file *file = pv_host_answer(k->hosts[first], t, &from_model);
    if (file == NULL || (!from_model && file->format->role == PV_FORMAT_UNREAD))
        return 0;
    query_ctx qc = {ask->query, k->arena};
    pv_params p = {query_get, &qc};
    void *q = pv_arena_zalloc(k->arena, t->query_bytes + 1);
    int rc = t->read_query != NULL ? t->read_query(&p, q, err) : 0;
    pv_buf body;
    pv_buf_init(&body, ANSWER_MAX_BYTES);
    if (rc == 0)
        rc = from_model ? from_models(k, first, n, t, q, &body, err)
                        : from_file(k, file, t, q, &body, err);
    const char *host = ask->per_host ? k->hosts[first]->name : "";
    if (rc == 0)
        rc = pv_figures_add(f, ask, host, body.data != NULL ? body.data : "", body.len, err);
    if (rc != 0 && err != NULL && err->path[0] == '\0') {
        char why[sizeof err->reason];
        snprintf(why, sizeof why, "%s", err->reason);
        pv_error_set(err, rc, file->path, PV_NO_OFFSET, "%s: %s", ask->tool, why);
    }
    pv_buf_fini(&body);
    return rc;
}

int pv_report_figures(const char *run, const pv_host *const *hosts, size_t n_hosts,
                      bool brief_only, const pv_report_source *src, pv_arena *a, pv_figures *out,
                      pv_error *err)
{
    for (size_t i = 0; n_hosts > 1 && i < n_hosts; i++)
        if (pv_host_profile(hosts[i]) == NULL)
            return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                                "run \"%s\" has %zu hosts and \"%s\" has no profile to read "
                                "with the others; pick one host", run, n_hosts, hosts[i]->name);
    asking k = {hosts, n_hosts, src, a};
    pv_figures_init(out, run, n_hosts == 1 ? hosts[0]->name : "", a);
    size_t n_asks;
    const pv_figures_ask *asks = pv_figures_asks(&n_asks);
    int rc = 0;
    for (size_t i = 0; i < n_asks && rc == 0; i++) {
        if (brief_only && !asks[i].brief)
            continue;
        bool each = asks[i].per_host || !pv_tool_find(asks[i].tool)->combines_hosts;
        for (size_t h = 0; h < (each ? n_hosts : 1) && rc == 0; h++)
            rc = ask_hosts(&k, &asks[i], h, each ? 1 : n_hosts, out, err);
    }
    pv_figures_finish(out);
    return rc;
}
