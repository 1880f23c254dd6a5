/* from_models: a tool's answer from its hosts' models (answer.h): the
 * one kept under its key when there is one, else made by the tool's
 * compute and writer from the models held from the store, and kept.
 *
 * A kept answer of PV_KEPT_GZ_MIN_BYTES or more is gzip'd behind its tag:
 * a revalidation is answered from the tag alone, a repeat is sent from the
 * entry's file as it is, and a client that does not take gzip gets a plain
 * copy kept beside it after its first ask (cache/kept_answer.h). An answer
 * past STREAM_AT bytes (a whole trace as JSON is gigabytes) is compressed
 * as it is written, so its plain bytes are never held whole. */
#include "answer/answer_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Plain bytes held at most while an answer is written: past them it is
 * compressed as it goes. */
#define STREAM_AT ((size_t)64 << 20)

/* ---- kept answers ----------------------------------------------------------------------- */

/* Sends the opened kept answer g, or nothing when the client holds it:
 * true either way; false when g fails its check (then gone). */
static bool send_kept(pv__asked *k, pv_kept_gz *g, bool gz, pv_answer *out)
{
    snprintf(out->tag, sizeof out->tag, "%s", g->tag);
    out->gzip = gz;
    /* A gzip'd body goes out gzip'd only to a client that takes it, and
     * its tag says which (http/server.c). */
    bool gz_out = k->ask->accepts_gzip;
    if (pv__answer_held(k->ask, g->tag, gz_out) || k->ask->no_body) {
        close(g->entry.fd);
        out->not_modified = !k->ask->no_body;
        out->tag_gz = gz_out;
        return true;
    }
    int checked = gz ? pv_kept_check_gz(k->ctx->disk, &k->key, g)
                     : pv_kept_check_plain(k->ctx->disk, &k->key, g);
    if (checked != 0) {
        out->tag[0] = '\0';
        out->gzip = false;
        return false;
    }
    out->from_fd = true;
    out->fd = g->entry.fd;
    out->offset = g->entry.offset;
    out->len = (size_t)g->entry.len;
    out->plain_bytes = gz ? g->plain_bytes : 0;
    return true;
}

/* The kept gzip'd answer, or its plain copy for a client without gzip. */
static bool kept_gz(pv__asked *k, pv_answer *out)
{
    pv_kept_gz g;
    bool plain_client = !k->ask->accepts_gzip && !k->ask->no_body;
    if (plain_client && pv_kept_open_plain(k->ctx->disk, &k->key, &g) == 0 &&
        send_kept(k, &g, false, out))
        return true;
    if (pv_kept_open_gz(k->ctx->disk, &k->key, &g) != 0)
        return false;
    if (!send_kept(k, &g, true, out))
        return false;
    /* This client gets it inflated as it is sent; the next from the copy. */
    if (plain_client && out->from_fd)
        pv_kept_keep_plain(k->ctx->disk, &k->key, &g);
    return true;
}

/* Fills out with the answer kept under the key and returns true, or false. */
static bool kept(pv__asked *k, pv_answer *out)
{
    if (kept_gz(k, out))
        return true;
    pv_buf body;
    pv_buf_init(&body, PV_ANSWER_MAX_BYTES);
    if (pv_kept_get(k->ctx->disk, &k->key, &body) != 0) {
        pv_buf_fini(&body);
        return false;
    }
    pv__answer_body(out, &body);
    return true;
}

/* ---- made ------------------------------------------------------------------------------- */

/* Keeps a fresh plain answer; a large one is then sent as the compressed
 * copy just kept, so it is not compressed again on its way out. */
static void keep(pv__asked *k, pv_answer *out)
{
    char tag[PV_KEPT_TAG_CHARS + 1];
    char *gz;
    size_t gz_len;
    pv_kept_keep(k->ctx->disk, &k->key, out->body, out->len, &gz, &gz_len, tag);
    if (k->ctx->disk->dir != NULL)
        out->kept_bytes = gz != NULL ? gz_len : out->len;
    if (gz == NULL)
        return;
    snprintf(out->tag, sizeof out->tag, "%s", tag);
    out->plain_bytes = out->len;
    free(out->body);
    out->body = gz;
    out->len = gz_len;
    out->gzip = true;
}

/* The gzip body a stream made of a writer's answer, whose tail is still in
 * body; kept under the key. */
static int streamed(pv__asked *k, pv_kept_stream *st, pv_buf *body, pv_answer *out,
                    pv_error *err)
{
    pv_kept_gz_body g;
    int rc = pv_kept_stream_keep(k->ctx->disk, &k->key, st, body->data, body->len, &g);
    pv_buf_fini(body);
    if (rc != 0)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                            "the compressed answer passes its cap");
    if (k->ctx->disk->dir != NULL)
        out->kept_bytes = g.gz_len;
    /* A client without gzip gets the kept copy inflated as it is sent, not
     * the whole body inflated in memory first. */
    if (!k->ask->accepts_gzip && k->ctx->disk->dir != NULL && kept_gz(k, out)) {
        free(g.gz);
        return 0;
    }
    snprintf(out->tag, sizeof out->tag, "%s", g.tag);
    out->body = g.gz;
    out->len = g.gz_len;
    out->gzip = true;
    out->plain_bytes = g.plain_bytes;
    return 0;
}

/* The tool's compute and writer over the models of the sources, each held
 * from the store for the call. */
static int make(pv__asked *k, pv_buf *body, pv_error *err)
{
    const pv_tool *t = k->ask->tool;
    const pv_model **models = pv_arena_zalloc(k->arena, k->n * sizeof *models);
    pv_model_entry **entries = pv_arena_zalloc(k->arena, k->n * sizeof *entries);
    size_t held = 0;
    int rc = 0;
    while (held < k->n && rc == 0) {
        rc = pv_model_store_get(k->ctx->models, &k->srcs[held], &models[held], &entries[held],
                                err);
        held += rc == 0;
    }
    if (rc == 0) {
        pv_tool_input in = {models, k->host_names, k->n};
        void *result = NULL;
        if (t->compute != NULL)
            rc = t->compute(&in, k->query, k->arena, &result, err);
        if (rc == 0)
            rc = (k->ask->form == PV_ANSWER_CSV ? t->write_csv : t->write_json)(&in, k->query,
                                                                              result, body, err);
    }
    for (size_t i = 0; i < held; i++)
        pv_model_store_put(k->ctx->models, entries[i]);
    /* A tool knows no file: a bad profile it found is the one it was given. */
    if (rc == PV_EFORMAT && err != NULL && err->path[0] == '\0' && k->n == 1) {
        char reason[sizeof err->reason];
        snprintf(reason, sizeof reason, "%s", err->reason);
        pv_error_set(err, rc, k->srcs[0].path, err->offset, "%s", reason);
    }
    return rc;
}

int pv__answer_from_models(pv__asked *k, pv_answer *out, pv_error *err)
{
    const pv_tool *t = k->ask->tool;
    if (k->ask->form == PV_ANSWER_JSON && t->content_type != NULL)
        out->content_type = t->content_type(k->query);
    out->looked_up = true;
    if (kept(k, out)) {
        out->was_kept = true;
        return 0;
    }
    int rc = pv__answer_slot(k, err);
    if (rc != 0)
        return rc;
    pv_buf body;
    pv_buf_init(&body, PV_ANSWER_MAX_BYTES);
    pv_kept_stream *st = pv_kept_stream_new(PV_ANSWER_MAX_BYTES);
    if (st != NULL)
        pv_buf_drain_to(&body, STREAM_AT, pv_kept_stream_add, st);
    rc = make(k, &body, err);
    if (rc == 0 && body.drained > 0) {
        rc = streamed(k, st, &body, out, err);
    } else if (rc == 0) {
        pv__answer_body(out, &body);
        keep(k, out);
    } else {
        pv_buf_fini(&body);
    }
    pv_kept_stream_free(st);
    pv__answer_slot_give(k);
    return rc;
}
