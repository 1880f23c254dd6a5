/* mem: allocation helpers for small, fixed-size objects. pv_xmalloc and
 * friends abort with a message when memory runs out, so callers need no
 * NULL check. Sizes that come from input must be checked against a cap
 * before they reach these (STYLE rule 7). Thread-safe. */
#ifndef PV_UTIL_MEM_H
#define PV_UTIL_MEM_H

#include <stddef.h>

void *pv_xmalloc(size_t n);
void *pv_xcalloc(size_t count, size_t size);
void *pv_xrealloc(void *p, size_t n);
char *pv_xstrdup(const char *s);
char *pv_xstrndup(const char *s, size_t n);

#endif
