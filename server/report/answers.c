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
    const pv_answer_ctx *ctx;
    const char *root;
    const pv_run *run;
    const pv_host *const *hosts;
    size_t n_hosts;
    pv_arena *arena;
} asking;

/* The parameters of an ask (a query string) as the answer layer reads them. */
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

/* The plain bytes of ans into out: its body, or what its file holds,
 * inflated when gzip'd. */
static int plain_body(const pv_answer *ans, const char *path, pv_buf *out, pv_error *err)
{
    if (!ans->from_fd)
        return ans->gzip ? pv_gzip_decompress(ans->body, ans->len, out, path, err)
                         : pv_buf_add(out, ans->body != NULL ? ans->body : "", ans->len);
    char chunk[1 << 16];
    ssize_t n = 0;
    int rc = 0;
    if (ans->gzip) {
        int fd = dup(ans->fd);
        pv_gunzip_fd *g = fd >= 0 ? pv_gunzip_fd_new(fd, ans->offset, ans->len) : NULL;
        while (g != NULL && rc == 0 && (n = pv_gunzip_fd_read(g, chunk, sizeof chunk)) > 0)
            rc = pv_buf_add(out, chunk, (size_t)n);
        pv_gunzip_fd_free(g);
        if (g == NULL)
            n = -1;
    } else {
        for (size_t done = 0; rc == 0 && done < ans->len; done += (size_t)n) {
            size_t want = ans->len - done < sizeof chunk ? ans->len - done : sizeof chunk;
            n = pread(ans->fd, chunk, want, (off_t)(ans->offset + done));
            if (n <= 0)
                break;
            rc = pv_buf_add(out, chunk, (size_t)n);
        }
    }
    if (rc == 0 && n < 0)
        rc = pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot read the answer");
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
    pv_ask a = {.tool = t,
                .form = PV_ANSWER_JSON,
                .run = k->run->name,
                .root = k->root,
                .hosts = &k->hosts[first],
                .n_hosts = n,
                .all_hosts = n > 1,
                .params = &p,
                .accepts_gzip = true};
    pv_answer ans;
    int rc = pv_answer_get(k->ctx, &a, k->arena, &ans, NULL, err);
    pv_buf body;
    pv_buf_init(&body, ANSWER_MAX_BYTES);
    if (rc == 0)
        rc = plain_body(&ans, file->path, &body, err);
    pv_answer_release(&ans);
    const char *host = ask->per_host ? k->hosts[first]->name : "";
    if (rc == 0)
        rc = pv_figures_add(f, ask, host, body.data != NULL ? body.data : "", body.len, err);
    if (rc != 0 && rc != PV_EBUSY && err != NULL && err->path[0] == '\0') {
        char why[sizeof err->reason];
        snprintf(why, sizeof why, "%s", err->reason);
        pv_error_set(err, rc, file->path, PV_NO_OFFSET, "%s: %s", ask->tool, why);
    }
    pv_buf_fini(&body);
    return rc;
}

int pv_report_figures(const pv_answer_ctx *ctx, const char *root, const pv_run *run,
                      const pv_host *const *hosts, size_t n_hosts, bool brief_only, pv_arena *a,
                      pv_figures *out, pv_error *err)
{
    for (size_t i = 0; n_hosts > 1 && i < n_hosts; i++)
        if (pv_host_profile(hosts[i]) == NULL)
            return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                                "run \"%s\" has %zu hosts and \"%s\" has no profile to read "
                                "with the others; pick one host", run->name, n_hosts,
                                hosts[i]->name);
    asking k = {ctx, root, run, hosts, n_hosts, a};
    pv_figures_init(out, run->name, n_hosts == 1 ? hosts[0]->name : "", a);
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
