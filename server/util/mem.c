/* mem: aborting allocators. */
#include "util/mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The model's columns, the trace index and the tools' tables grow to
 * hundreds of MB, written once in order. Faulted in 4 KiB at a time, the
 * faults were a seventh of an XSpace decode on one core (bench/ingest,
 * docs/big_profiles.md); in 2 MiB pages they are gone. Past this size a
 * block is asked for in those pages where the kernel does so on request
 * (transparent_hugepage "madvise", Debian's default); elsewhere the hint
 * changes nothing. Small blocks are left alone: a huge page under a
 * sparsely used block would make it resident whole. */
#define HUGE_MIN ((size_t)2 << 20)

static void *huge_hint(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (p != NULL && n >= HUGE_MIN) {
        /* The whole pages the block lies on: a hint on part of its
         * mapping would split it in two, and realloc could no longer move
         * it with mremap but would copy it on every growth. */
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t from = (uintptr_t)p & ~(page - 1);
        uintptr_t to = ((uintptr_t)p + n + page - 1) & ~(page - 1);
        (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
    }
#endif
    return p;
}

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
    return huge_hint(checked(malloc(n ? n : 1), n), n);
}

void *pv_xcalloc(size_t count, size_t size)
{
    return huge_hint(checked(calloc(count ? count : 1, size ? size : 1), count * size),
                     count * size);
}

void *pv_xrealloc(void *p, size_t n)
{
    return huge_hint(checked(realloc(p, n ? n : 1), n), n);
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
