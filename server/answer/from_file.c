/* from_file: a tool's answer from one of TensorFlow's per-tool files
 * (ingest/formats.h): a JSON file sent as it is, from the file (a
 * .json.gz still compressed, as the reference sends it), never read into
 * memory, its tag the file's identity; a protobuf converted by its
 * format's reader into the tool's result and written by the tool's own
 * writers, then kept like an answer made from models. */
#include "answer/answer_priv.h"
#include "ingest/ingest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* A descriptor on src's bytes; a per-tool file is read only from a kind
 * that keeps its bytes in a file. */
static int open_bytes(const pv_source *src, pv_error *err)
{
    if (src->kind->open == NULL) {
        pv_error_set(err, PV_EIO, src->path, PV_NO_OFFSET, "a %s source holds no file to read",
                     src->kind->name);
        return -1;
    }
    return src->kind->open(src, err);
}

/* The JSON file as it is. */
static int as_it_is(pv__asked *k, pv_answer *out, pv_error *err)
{
    const pv_source *src = &k->srcs[0];
    char ident[PV_SOURCE_IDENT_MAX];
    pv_source_ident(src, ident, sizeof ident);
    pv_kept_tag(ident, strlen(ident), out->tag);
    out->gzip = k->file->format->gzip;
    /* a gzip'd file goes out gzip'd only to a client that takes it */
    bool gz_out = out->gzip && k->ask->accepts_gzip;
    if (pv__answer_held(k->ask, out->tag, gz_out) || k->ask->no_body) {
        out->not_modified = !k->ask->no_body;
        out->tag_gz = gz_out;
        return 0;
    }
    int fd = open_bytes(src, err);
    if (fd < 0)
        return err != NULL && err->code != 0 ? err->code : PV_EIO;
    out->from_fd = true;
    out->fd = fd;
    out->offset = 0;
    out->len = (size_t)src->id.size_bytes;
    return 0;
}

/* The protobuf file converted and written by the tool. */
static int converted(pv__asked *k, pv_buf *body, pv_error *err)
{
    const pv_source *src = &k->srcs[0];
    const pv_format *fmt = k->file->format;
    int fd = open_bytes(src, err);
    if (fd < 0)
        return err != NULL && err->code != 0 ? err->code : PV_EIO;
    char *data;
    size_t len;
    int rc = pv_ingest_read_whole(fd, src->path, fmt->max_bytes, &data, &len, err);
    close(fd);
    if (rc != 0)
        return rc;
    const pv_tool *t = k->ask->tool;
    void *result;
    pv_tool_input none = {NULL, NULL, 0};
    rc = fmt->answer((const uint8_t *)data, len, src->path, k->arena, &result, err);
    if (rc == 0)
        rc = (k->ask->form == PV_ANSWER_CSV ? t->write_csv : t->write_json)(&none, k->query,
                                                                          result, body, err);
    /* The result may point into the file's bytes: they go only now. */
    free(data);
    return rc;
}

int pv__answer_from_file(pv__asked *k, pv_answer *out, pv_error *err)
{
    const pv_format *fmt = k->file->format;
    bool csv = k->ask->form == PV_ANSWER_CSV;
    if (fmt->role == PV_FORMAT_UNREAD || (csv && fmt->role != PV_FORMAT_TOOL_PB)) {
        k->title = "not implemented";
        return pv_error_set(err, PV_ENOTIMPL, NULL, PV_NO_OFFSET,
                            "reading %s%s from TensorFlow's %s file (%.300s) is not built yet",
                            k->ask->tool->name, csv ? " as CSV" : "", fmt->name,
                            base_name(k->file->path));
    }
    out->content_type = "application/json";
    if (fmt->role == PV_FORMAT_TOOL_FILE)
        return as_it_is(k, out, err);
    pv_buf body;
    pv_buf_init(&body, PV_ANSWER_MAX_BYTES);
    out->looked_up = true;
    if (pv_kept_get(k->ctx->disk, &k->key, &body) == 0) {
        pv__answer_body(out, &body);
        out->was_kept = true;
        return 0;
    }
    int rc = pv__answer_slot(k, err);
    if (rc != 0) {
        pv_buf_fini(&body);
        return rc;
    }
    rc = converted(k, &body, err);
    pv__answer_slot_give(k);
    if (rc != 0) {
        pv_buf_fini(&body);
        return rc;
    }
    pv__answer_body(out, &body);
    /* Kept plain: these answers are small, and a client that takes gzip
     * gets them compressed on the way out. */
    if (pv_disk_cache_put(k->ctx->disk, &k->key, out->body, out->len) == 0 &&
        k->ctx->disk->dir != NULL)
        out->kept_bytes = out->len;
    return 0;
}
