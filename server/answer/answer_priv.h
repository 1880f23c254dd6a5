/* answer_priv: what answer.c shares with the files that make answers
 * (from_models.c, from_file.c, parts.c). Inside answer/ only. */
#ifndef PV_ANSWER_ANSWER_PRIV_H
#define PV_ANSWER_ANSWER_PRIV_H

#include "answer/answer.h"
#include "cache/kept_answer.h"

/* An ask as it is answered: its sources, its query and its key. */
typedef struct pv__asked {
    const pv_answer_ctx *ctx;
    const pv_ask *ask;
    pv_arena *arena;
    const pv_source *srcs;         /* one per host: profiles, or the one per-tool file */
    const char *const *host_names;
    size_t n;
    const pv_host_file *file;      /* the per-tool file answering, or NULL */
    const void *query;             /* the tool's or part's */
    pv_cache_key key;
    const char *title;             /* set with an error: the kind of refusal */
} pv__asked;

/* Answers k from its hosts' models; from a per-tool file; from a part. Each
 * returns 0 or an error with err filled (and k->title where it has words
 * for it). */
int pv__answer_from_models(pv__asked *k, pv_answer *out, pv_error *err);
int pv__answer_from_file(pv__asked *k, pv_answer *out, pv_error *err);
int pv__answer_part(pv__asked *k, pv_answer *out, pv_error *err);

/* Takes a slot for an expensive answer, or fails with PV_EBUSY. */
int pv__answer_slot(pv__asked *k, pv_error *err);
void pv__answer_slot_give(pv__asked *k);

/* out's body is b's bytes (taken), plain. */
void pv__answer_body(pv_answer *out, pv_buf *b);
/* Whether the client already holds tag (plain, or gzip'd when gz). */
bool pv__answer_held(const pv_ask *ask, const char *tag, bool gz);

/* The largest answer made. */
#define PV_ANSWER_MAX_BYTES PV_KEPT_MAX_BYTES

#endif
