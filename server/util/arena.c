/* arena: a chain of malloc'd blocks with a bump pointer in the newest. */
#include "util/arena.h"
#include "util/mem.h"

#include <stdlib.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct pv_arena_block {
    pv_arena_block *next; /* older block */
    size_t used;          /* bytes handed out from data */
    size_t cap;           /* bytes available in data */
    _Alignas(16) unsigned char data[];
};

void pv_arena_init(pv_arena *a, size_t block_bytes)
{
    a->head = NULL;
    a->block_bytes = block_bytes < 4096 ? 4096 : block_bytes;
    a->total_bytes = 0;
}

void pv_arena_fini(pv_arena *a)
{
    pv_arena_block *b = a->head;
    while (b != NULL) {
        pv_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total_bytes = 0;
}

void *pv_arena_alloc(pv_arena *a, size_t n)
{
    size_t need = (n + 15u) & ~(size_t)15u;
    pv_arena_block *b = a->head;
    if (b == NULL || b->cap - b->used < need) {
        /* A large request gets a block of its own so the default block
         * size stays the granularity for everything else. */
        size_t cap = need > a->block_bytes ? need : a->block_bytes;
        b = pv_xmalloc(sizeof *b + cap);
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
        a->total_bytes += sizeof *b + cap;
    }
    void *p = b->data + b->used;
    b->used += need;
    return p;
}

void *pv_arena_zalloc(pv_arena *a, size_t n)
{
    void *p = pv_arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

char *pv_arena_strndup(pv_arena *a, const char *s, size_t n)
{
    char *d = pv_arena_alloc(a, n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *pv_arena_strdup(pv_arena *a, const char *s)
{
    return pv_arena_strndup(a, s, strlen(s));
}

char *pv_arena_printf(pv_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *d = pv_arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(d, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return d;
}
