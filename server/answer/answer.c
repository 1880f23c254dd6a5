/* answer: an ask turned into what answers it, its query and its key
 * (answer.h), then handed to the file that makes that kind of answer. */
#include "answer/answer_priv.h"
#include "util/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALL_HOSTS "ALL_HOSTS"

/* Fails k with an error code, its title and the printf-style words. */
#define refuse(k, title_, code, err, ...)                                                   \
    ((k)->title = (title_), pv_error_set((err), (code), NULL, PV_NO_OFFSET, __VA_ARGS__))

/* ---- what answers ------------------------------------------------------------------ */

/* The sources of the hosts' profiles; several hosts all need one. */
static int profiles(pv__asked *k, pv_error *err)
{
    const pv_ask *ask = k->ask;
    pv_source *srcs = pv_arena_zalloc(k->arena, ask->n_hosts * sizeof *srcs);
    const char **names = pv_arena_zalloc(k->arena, ask->n_hosts * sizeof *names);
    for (size_t i = 0; i < ask->n_hosts; i++) {
        const pv_host_file *f = pv_host_profile(ask->hosts[i]);
        if (f == NULL)
            return refuse(k, "unknown host", PV_ENOTFOUND, err,
                          "host \"%.300s\" of run \"%.300s\" has no profile to read%s",
                          ask->hosts[i]->name, ask->run != NULL ? ask->run : "",
                          ask->part != NULL ? " (TensorFlow's per-tool trace files are served "
                                              "through /data?tag=trace_viewer)"
                                            : " with the others");
        srcs[i] = pv_host_file_source(f, ask->root);
        names[i] = ask->hosts[i]->name;
    }
    k->srcs = srcs;
    k->host_names = names;
    k->n = ask->n_hosts;
    return 0;
}

/* What answers the ask: the hosts' profiles, or one per-tool file. */
static int offer(pv__asked *k, pv_error *err)
{
    const pv_ask *ask = k->ask;
    const pv_tool *t = ask->tool;
    bool several = ask->all_hosts || ask->n_hosts > 1;
    if (ask->part != NULL && several)
        return refuse(k, "unknown host", PV_ENOTFOUND, err, "%s's %s answers for one host",
                      t->name, ask->part->name);
    if (ask->part != NULL)
        return profiles(k, err);
    if (several && !t->combines_hosts)
        return refuse(k, "unknown host", PV_ENOTFOUND, err,
                      "profview does not combine hosts (" ALL_HOSTS ") for the %.200s tool; ask "
                      "for one host",
                      t->name);
    if (several)
        return profiles(k, err);
    bool from_model = false;
    const pv_host_file *f = pv_host_answer(ask->hosts[0], t, &from_model);
    if (f == NULL)
        return refuse(k, "unknown tool", PV_ENOTFOUND, err,
                      "host \"%.400s\" of run \"%.400s\" has no tool \"%.200s\"",
                      ask->hosts[0]->name, ask->run != NULL ? ask->run : "", t->name);
    if (from_model)
        return profiles(k, err);
    pv_source *src = pv_arena_zalloc(k->arena, sizeof *src);
    *src = pv_host_file_source(f, ask->root);
    k->srcs = src;
    k->host_names = (const char *const *)&ask->hosts[0]->name;
    k->n = 1;
    k->file = f;
    return 0;
}

/* ---- the query ---------------------------------------------------------------------- */

/* Reads the declared parameters and makes the query from them. */
static int query(pv__asked *k, pv_param_values *v, pv_error *err)
{
    const pv_ask *ask = k->ask;
    const pv_param_decl *decls = ask->part != NULL ? ask->part->params : ask->tool->params;
    size_t n = ask->part != NULL ? ask->part->n_params : ask->tool->n_params;
    size_t bytes = ask->part != NULL ? ask->part->query_bytes : ask->tool->query_bytes;
    int (*make)(const pv_param_values *, void *, pv_error *) =
        ask->part != NULL ? ask->part->make_query : ask->tool->make_query;
    pv_param_value *vals = pv_arena_zalloc(k->arena, (n + 1) * sizeof *vals);
    bool missing;
    int rc = pv_params_read(decls, n, ask->params, k->arena, vals, &missing, err);
    *v = (pv_param_values){decls, vals, n};
    void *q = pv_arena_zalloc(k->arena, bytes > 0 ? bytes : 1);
    if (rc == 0 && make != NULL)
        rc = make(v, q, err);
    if (rc != 0) {
        k->title = missing ? "missing parameter" : "bad parameter";
        return rc;
    }
    k->query = q;
    return 0;
}

/* ---- the key ------------------------------------------------------------------------- */

/* What the answer is made of, as a key: only the declared parameters, with
 * the values read, so other parameters never make a new entry; every
 * source's identity, so a change to any host's file is a new key. The
 * entry is named after the first source. */
static void key(pv__asked *k, const pv_param_values *v)
{
    const pv_ask *ask = k->ask;
    pv_arena *a = k->arena;
    const char *what = pv_arena_printf(a, "%s:%s%s%s?", ask->form == PV_ANSWER_CSV ? "csv" : "data",
                                       ask->tool->name, ask->part != NULL ? "/" : "",
                                       ask->part != NULL ? ask->part->name : "");
    what = pv_params_key(v, what, a);
    /* One host's keys start "data:" or "csv:", so these never equal them. */
    if (ask->all_hosts || ask->n_hosts > 1)
        what = pv_arena_printf(a, "ALL_HOSTS %s", what);
    char *ident = pv_arena_alloc(a, PV_SOURCE_IDENT_MAX);
    for (size_t i = 1; i < k->n; i++)
        what = pv_arena_printf(a, "%s|%s", what,
                               pv_source_ident(&k->srcs[i], ident, PV_SOURCE_IDENT_MAX));
    k->key = (pv_cache_key){pv_source_ident(&k->srcs[0], ident, PV_SOURCE_IDENT_MAX), what};
}

/* Everything up to the key: what answers, the query, the key. */
static int prepare(pv__asked *k, pv_error *err)
{
    const pv_ask *ask = k->ask;
    if (ask->n_hosts == 0)
        return refuse(k, "unknown host", PV_ENOTFOUND, err, "no host asked for");
    if (ask->form == PV_ANSWER_CSV && (ask->part != NULL || ask->tool->write_csv == NULL))
        return refuse(k, "no CSV", PV_ENOTFOUND, err,
                      "the %s tool has no table to export as CSV", ask->tool->name);
    int rc = offer(k, err);
    /* A file served as it is reads no parameter: it answers whatever is
     * asked of it. */
    bool reads_query = k->file == NULL || k->file->format->role == PV_FORMAT_TOOL_PB;
    pv_param_values v;
    if (rc == 0 && reads_query && (k->file == NULL || k->file->format->role != PV_FORMAT_UNREAD))
        rc = query(k, &v, err);
    if (rc == 0 && reads_query)
        key(k, &v);
    return rc;
}

/* ---- answering --------------------------------------------------------------------------- */

int pv__answer_slot(pv__asked *k, pv_error *err)
{
    /* How long an expensive answer waits for a slot before it is refused. */
    enum { HEAVY_WAIT_MS = 1500 };
    if (pv_limit_take(k->ctx->heavy, HEAVY_WAIT_MS))
        return 0;
    k->title = "busy";
    return pv_error_set(err, PV_EBUSY, NULL, PV_NO_OFFSET,
                        "the server is making as many expensive answers as it makes at once; "
                        "ask again in a moment");
}

void pv__answer_slot_give(pv__asked *k)
{
    pv_limit_give(k->ctx->heavy);
}

void pv__answer_body(pv_answer *out, pv_buf *b)
{
    out->body = pv_buf_take(b, &out->len);
    if (out->body == NULL) {
        out->body = malloc(1);
        out->len = 0;
    }
}

bool pv_answer_tag_listed(const char *if_none_match, const char *tag)
{
    if (if_none_match == NULL || tag[0] == '\0')
        return false;
    if (strcmp(if_none_match, "*") == 0)
        return true;
    size_t n = strlen(tag);
    for (const char *p = strstr(if_none_match, tag); p != NULL; p = strstr(p + 1, tag))
        if (p > if_none_match && p[-1] == '"' && p[n] == '"')
            return true;
    return false;
}

bool pv__answer_held(const pv_ask *ask, const char *tag, bool gz)
{
    char named[32];
    snprintf(named, sizeof named, "%s%s", tag, gz ? "-gz" : "");
    return pv_answer_tag_listed(ask->if_none_match, named);
}

int pv_answer_get(const pv_answer_ctx *ctx, const pv_ask *ask, pv_arena *a, pv_answer *out,
                  const char **title, pv_error *err)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    pv__asked k = {.ctx = ctx, .ask = ask, .arena = a};
    int rc = prepare(&k, err);
    if (rc == 0)
        rc = ask->part != NULL ? pv__answer_part(&k, out, err)
             : k.file != NULL  ? pv__answer_from_file(&k, out, err)
                               : pv__answer_from_models(&k, out, err);
    if (rc != 0) {
        pv_answer_release(out);
        if (title != NULL)
            *title = k.title;
        return rc;
    }
    if (ask->form == PV_ANSWER_CSV) {
        out->content_type = "text/csv; charset=utf-8";
        out->filename = pv_arena_printf(a, "%s.csv", ask->tool->name);
    }
    return 0;
}

int pv_answer_key_of(const pv_ask *ask, pv_arena *a, pv_cache_key *out, const char **title,
                     pv_error *err)
{
    pv__asked k = {.ask = ask, .arena = a};
    int rc = prepare(&k, err);
    if (rc == 0 && k.key.what == NULL)
        rc = refuse(&k, "no key", PV_ENOTFOUND, err,
                    "an answer served from TensorFlow's file as it is has no key");
    if (rc != 0 && title != NULL)
        *title = k.title;
    if (rc == 0)
        *out = k.key;
    return rc;
}

void pv_answer_release(pv_answer *ans)
{
    free(ans->body);
    if (ans->from_fd && ans->fd >= 0)
        close(ans->fd);
    memset(ans, 0, sizeof *ans);
    ans->fd = -1;
}
