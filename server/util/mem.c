/* mem: aborting allocators. */
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *checked(void *p, size_t n)
{
    if (p == NULL && n != 0) {
        fprintf(stderr, "profview: out of memory allocating %zu bytes\n", n);
        abort();
    }
    return p;
}

void *pv_xmalloc(size_t n)
{
    return checked(malloc(n ? n : 1), n);
}

void *pv_xcalloc(size_t count, size_t size)
{
    return checked(calloc(count ? count : 1, size ? size : 1), count * size);
}

void *pv_xrealloc(void *p, size_t n)
{
    return checked(realloc(p, n ? n : 1), n);
}

char *pv_xstrdup(const char *s)
{
    return pv_xstrndup(s, strlen(s));
}

char *pv_xstrndup(const char *s, size_t n)
{
    char *d = pv_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}
