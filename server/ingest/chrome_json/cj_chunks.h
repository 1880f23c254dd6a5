/* cj_chunks.h: the decoder fed a buffer a few bytes a read, so that every
 * token and event can fall across a refill. Only the unit tests and the
 * fuzz target include it, to hold the split reading both compare with a
 * whole-buffer decode. */
#ifndef PV_INGEST_CJ_CHUNKS_H
#define PV_INGEST_CJ_CHUNKS_H

#include "ingest/chrome_json/cj_priv.h"

#include <string.h>

typedef struct pv__cj_chunks {
    const uint8_t *p, *end;
    size_t step;
} pv__cj_chunks;

static inline int64_t pv__cj_read_chunks(void *ctx, uint8_t *dst, size_t cap, bool *cut,
                                         pv_error *err)
{
    (void)cut;
    (void)err;
    pv__cj_chunks *c = ctx;
    size_t n = (size_t)(c->end - c->p);
    n = n < c->step ? n : c->step;
    n = n < cap ? n : cap;
    if (n > 0)
        memcpy(dst, c->p, n);
    c->p += n;
    return (int64_t)n;
}

/* The model of text[0, len) read step bytes at a time (NULL and *rc set on
 * failure, err saying why); name is the file name errors carry. */
static inline pv_model *pv__cj_decode_chunks(const void *text, size_t len, size_t step,
                                             const char *name, int *rc, pv_error *err)
{
    pv__cj_chunks c = {text, (const uint8_t *)text + len, step};
    pv_ingest_src src = {NULL, 0, name, NULL, false};
    pv_model_builder *b = pv_builder_new();
    memset(err, 0, sizeof *err);
    *rc = pv__cj_decode_text(&src, NULL, 0, pv__cj_read_chunks, &c, (uint64_t)1 << 34, b, err);
    pv_model *m = NULL;
    if (*rc == 0)
        *rc = pv_builder_finish(b, &m, err);
    else
        pv_builder_free(b);
    return m;
}

#endif
