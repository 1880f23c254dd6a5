/* arena: bump allocation for data that dies together (one HTTP request,
 * one model's strings and columns). Allocations are 16-byte aligned and
 * never freed one by one; pv_arena_free releases everything. Not
 * thread-safe: one owner at a time. */
#ifndef PV_UTIL_ARENA_H
#define PV_UTIL_ARENA_H

#include <stddef.h>

typedef struct pv_arena_block pv_arena_block;

typedef struct pv_arena {
    pv_arena_block *head;   /* newest block; older ones chained behind */
    size_t block_bytes;     /* default size of a new block */
    size_t total_bytes;     /* bytes obtained from malloc, for budgets */
} pv_arena;

/* Prepares an empty arena; allocates nothing yet. Cannot fail. */
void pv_arena_init(pv_arena *a, size_t block_bytes);
/* Releases every block. The arena may be reused after pv_arena_init. */
void pv_arena_fini(pv_arena *a);

/* Returns n bytes (uninitialised / zeroed), aborting when memory runs out.
 * Valid until pv_arena_fini. */
void *pv_arena_alloc(pv_arena *a, size_t n);
void *pv_arena_zalloc(pv_arena *a, size_t n);
char *pv_arena_strndup(pv_arena *a, const char *s, size_t n);
char *pv_arena_strdup(pv_arena *a, const char *s);
char *pv_arena_printf(pv_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
