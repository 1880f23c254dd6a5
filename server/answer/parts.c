/* parts: a part of a tool (tools/tool.h, pv_tool_part) answered from one
 * host's model and, when it needs it, the model's trace index, kept and
 * sent by the rules the part declares:
 *
 *   tag_from_key   the tag is a hash of the program and the key, known
 *                  before anything is made: a client that holds it is
 *                  answered without the model being touched;
 *   kept_beside    kept in memory beside the trace index (cache/trace_cache.h);
 *   gzip_level     compressed as it is made, at the part's level;
 *   immutable      clients keep it a year (the page's URLs carry the
 *                  source's id, so a changed file is another URL);
 *   heavy          takes a slot for expensive answers. */
#include "answer/answer_priv.h"
#include "cache/trace_cache.h"
#include "util/gzip.h"
#include "util/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest answer a part makes. */
#define PART_MAX_BYTES ((size_t)1 << 30)

/* A hash of the program and the key: what the answer is made of and by. */
static void key_tag(const pv__asked *k, char out[24])
{
    const char *program = k->ctx->disk != NULL ? k->ctx->disk->program : "";
    uint64_t h = pv_hash_bytes(PV_HASH_SEED, program, strlen(program) + 1);
    h = pv_hash_bytes(h, k->key.source, strlen(k->key.source) + 1);
    h = pv_hash_bytes(h, k->key.what, strlen(k->key.what));
    snprintf(out, 24, "%016llx", (unsigned long long)h);
}

/* The short name of the source's bytes the page puts in its URLs. */
static void source_tag(const pv__asked *k, char out[17])
{
    uint64_t h = pv_hash_bytes(PV_HASH_SEED, k->key.source, strlen(k->key.source));
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* Compresses out's plain body at level when that is smaller. */
static void compress(pv_answer *out, int level)
{
    pv_buf gz;
    pv_buf_init(&gz, PART_MAX_BYTES);
    if (pv_gzip_compress_level(out->body, out->len, level, &gz, NULL) != 0) {
        pv_buf_fini(&gz);
        return;
    }
    free(out->body);
    out->plain_bytes = out->len;
    pv__answer_body(out, &gz);
    out->gzip = true;
}

/* Writes the part into out from the held model (and its trace index), and
 * keeps it beside the index when the part says so. */
static int make(pv__asked *k, const pv_model *m, pv_model_entry *entry, pv_answer *out,
                pv_error *err)
{
    const pv_tool_part *part = k->ask->part;
    pv_part_input in = {m, NULL, NULL};
    char sid[17];
    source_tag(k, sid);
    in.source_tag = sid;
    pv_trace_hold *hold = NULL;
    if (part->needs_trace) {
        int rc = pv_trace_cache_get(k->ctx->models, entry, &in.trace, &hold, err);
        if (rc != 0)
            return rc;
    }
    bool beside = hold != NULL && part->kept_beside != NULL && part->kept_beside(k->query);
    if (beside &&
        pv_trace_cache_kept_get(hold, k->key.what, &out->body, &out->len, &out->gzip) == 0)
        return 0;
    pv_buf body;
    pv_buf_init(&body, PART_MAX_BYTES);
    int rc = part->write(&in, k->query, k->arena, &body, err);
    if (rc != 0) {
        pv_buf_fini(&body);
        return rc;
    }
    pv__answer_body(out, &body);
    int level = part->gzip_level != NULL ? part->gzip_level(k->query, out->len) : -1;
    if (level >= 0)
        compress(out, level);
    if (beside)
        pv_trace_cache_kept_put(k->ctx->models, entry, hold, k->key.what, out->body, out->len,
                                out->gzip);
    return 0;
}

int pv__answer_part(pv__asked *k, pv_answer *out, pv_error *err)
{
    const pv_tool_part *part = k->ask->part;
    out->content_type = part->content_type != NULL ? part->content_type(k->query)
                                                   : "application/json";
    out->immutable = part->immutable;
    if (part->tag_from_key) {
        key_tag(k, out->tag);
        /* Sent gzip'd or not as it is made, so the client may hold either
         * form of the tag. */
        bool plain = pv__answer_held(k->ask, out->tag, false);
        if (plain || pv__answer_held(k->ask, out->tag, true)) {
            out->not_modified = true;
            out->tag_gz = !plain;
            return 0;
        }
    }
    if (part->heavy) {
        int rc = pv__answer_slot(k, err);
        if (rc != 0)
            return rc;
    }
    const pv_model *m;
    pv_model_entry *entry;
    int rc = pv_model_store_get(k->ctx->models, &k->srcs[0], &m, &entry, err);
    if (rc == 0) {
        rc = make(k, m, entry, out, err);
        pv_model_store_put(k->ctx->models, entry);
    }
    if (part->heavy)
        pv__answer_slot_give(k);
    return rc;
}
