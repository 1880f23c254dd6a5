/* error: the one way a profview function reports why it failed.
 *
 * A function that can fail returns int: 0, or a negative PV_E* code, and
 * takes a pv_error *err as its last parameter. Only pv_error_set() fills
 * it in; only http/ maps codes to HTTP status. Callers may pass NULL when
 * they only want the code. Thread-safe: a pv_error belongs to its caller. */
#ifndef PV_UTIL_ERROR_H
#define PV_UTIL_ERROR_H

#include <stddef.h>
#include <stdint.h>

enum {
    PV_OK = 0,
    PV_EIO = -1,       /* a file could not be read */
    PV_EFORMAT = -2,   /* the bytes are not what the format says */
    PV_ETOOBIG = -3,   /* a size from the input is past a cap */
    PV_ENOTFOUND = -4, /* no such run, host, tool or event */
    PV_EINVAL = -5,    /* a request parameter is malformed */
    PV_ENOTIMPL = -6,  /* the tool exists in TensorBoard but not here yet */
    PV_ENOMEM = -7,    /* the memory budget cannot hold the result */
    PV_EBUSY = -8      /* no slot for an expensive answer came free in time */
};

typedef struct pv_error {
    int code;           /* PV_E*, 0 when nothing went wrong */
    char path[512];     /* file the problem is in; empty when none */
    uint64_t offset;    /* byte offset in that file; UINT64_MAX when unknown */
    char reason[512];   /* one sentence, no trailing period needed */
} pv_error;

#define PV_NO_OFFSET UINT64_MAX

/* Records code, path (may be NULL), offset and a printf-style reason in err
 * (may be NULL). Returns code so callers can `return pv_error_set(...)`. */
int pv_error_set(pv_error *err, int code, const char *path, uint64_t offset,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Short stable name of a code, e.g. "format". Cannot fail. */
const char *pv_error_name(int code);

/* Writes "path: at byte N: reason" (parts omitted when unknown) into buf.
 * Cannot fail; truncates to cap. */
void pv_error_format(const pv_error *err, char *buf, size_t cap);

#endif
