/* buf: a growable byte buffer with a maximum size fixed at init, so hostile
 * input cannot make it grow forever. An append past the cap fails with
 * PV_ETOOBIG and leaves the buffer freed and empty. The contents are always
 * NUL-terminated (the NUL is not counted in len). Not thread-safe. */
#ifndef PV_UTIL_BUF_H
#define PV_UTIL_BUF_H

#include <stddef.h>

typedef struct pv_buf {
    char *data;     /* NULL until the first append */
    size_t len;     /* bytes in use, excluding the trailing NUL */
    size_t cap;     /* bytes allocated */
    size_t max;     /* appends that would pass this fail */
} pv_buf;

void pv_buf_init(pv_buf *b, size_t max_bytes);
void pv_buf_fini(pv_buf *b);
void pv_buf_reset(pv_buf *b);   /* len = 0, storage kept */

/* Append; 0 or PV_ETOOBIG (buffer then freed and empty). */
int pv_buf_add(pv_buf *b, const void *p, size_t n);
int pv_buf_adds(pv_buf *b, const char *s);
int pv_buf_addf(pv_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Hands the storage to the caller (free() it) and resets b. May return
 * NULL when nothing was appended; *len may be NULL. */
char *pv_buf_take(pv_buf *b, size_t *len);

#endif
