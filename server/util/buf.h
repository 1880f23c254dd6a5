/* buf: a growable byte buffer with a maximum size fixed at init, so hostile
 * input cannot make it grow forever. An append past the cap fails with
 * PV_ETOOBIG and leaves the buffer freed and empty. The contents are always
 * NUL-terminated (the NUL is not counted in len). Not thread-safe. */
#ifndef PV_UTIL_BUF_H
#define PV_UTIL_BUF_H

#include <stddef.h>

/* Takes the n bytes at p that a buffer hands on (pv_buf_drain_to):
 * returns 0, or an error code that the append then returns. */
typedef int (*pv_buf_drain_fn)(void *ctx, const char *p, size_t n);

typedef struct pv_buf {
    char *data;     /* NULL until the first append */
    size_t len;     /* bytes in use, excluding the trailing NUL */
    size_t cap;     /* bytes allocated */
    size_t max;     /* appends that would pass this (drained bytes count) fail */
    pv_buf_drain_fn drain; /* NULL: the buffer only grows */
    void *drain_ctx;
    size_t drain_at;       /* bytes held past which an append drains first */
    size_t drained;        /* bytes handed to drain, all before data */
} pv_buf;

void pv_buf_init(pv_buf *b, size_t max_bytes);
void pv_buf_fini(pv_buf *b);
void pv_buf_reset(pv_buf *b);   /* len = 0, storage kept */

/* Append; 0 or PV_ETOOBIG (buffer then freed and empty). */
int pv_buf_add(pv_buf *b, const void *p, size_t n);
int pv_buf_adds(pv_buf *b, const char *s);
int pv_buf_addf(pv_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* From now on, an append that would take the bytes held past at first
 * hands them to fn(ctx, ...) and empties the buffer, so a writer that
 * only appends makes a body of any size in about at bytes. The cap counts
 * every byte appended. What is held at the end is the body's tail, after
 * b->drained bytes. Cannot fail. */
void pv_buf_drain_to(pv_buf *b, size_t at, pv_buf_drain_fn fn, void *ctx);

/* Hands the storage to the caller (free() it) and resets b. May return
 * NULL when nothing was appended; *len may be NULL. */
char *pv_buf_take(pv_buf *b, size_t *len);

#endif
