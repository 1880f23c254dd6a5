/* trace_file (shared inside tools/trace/ only, hence pv__): the trace
 * index as bytes, for the disk cache to keep across restarts
 * (pv_trace_index_write, pv_trace_index_read). Its arrays are written as
 * they are held, each padded to 8 bytes, so bytes read back into memory
 * that starts on 8 bytes are used in place: a read copies nothing, and
 * checks every count and offset against what it has and every event id
 * against the model before anything uses them. Pure. */
#ifndef PV_TOOLS_TRACE_TRACE_FILE_H
#define PV_TOOLS_TRACE_TRACE_FILE_H

#include "util/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Appends n bytes of p, then zeros to the next multiple of 8. Returns 0
 * or the buffer's error. */
static inline int pv__tfile_put(pv_buf *b, const void *p, size_t n)
{
    static const uint8_t zeros[8];
    int rc = n > 0 ? pv_buf_add(b, p, n) : 0;
    if (rc == 0 && n % 8 != 0)
        rc = pv_buf_add(b, zeros, 8 - n % 8);
    return rc;
}

/* The bytes being read: p moves on, end does not. */
typedef struct pv__tfile {
    const uint8_t *p, *end;
} pv__tfile;

/* The next n elements of size bytes (their padding stepped over): where
 * they start, or NULL when they do not fit in what is left. */
static inline const void *pv__tfile_array(pv__tfile *f, uint64_t n, size_t size)
{
    uint64_t left = (uint64_t)(f->end - f->p);
    if (size != 0 && n > left / size)
        return NULL;
    uint64_t bytes = n * size, padded = (bytes + 7) & ~(uint64_t)7;
    const void *at = f->p;
    f->p += padded < left ? padded : left;
    return at;
}

#endif
