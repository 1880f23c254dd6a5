/* strtab: string interning (model_priv.h). */
#include "model/model_priv.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

/* ---- string table ------------------------------------------------------- */

/* Sixteen bytes per step in two independent lanes instead of FNV's one
 * byte: interning is a fifth of an ingest on metadata-heavy files, whose
 * names run to a hundred bytes. Not for anything but this table, which
 * compares the bytes on every hit anyway. */
#define HASH_K1 0x87c37b91114253d5ull
#define HASH_K2 0x4cf5ad432745937full

static inline uint64_t hash_step(uint64_t h, uint64_t w)
{
    h = (h ^ (w * HASH_K1)) * HASH_K2;
    return h ^ (h >> 31);
}

static uint64_t str_hash(const char *s, size_t len)
{
    uint64_t a = 0x9e3779b97f4a7c15ull ^ (len * 0xff51afd7ed558ccdull);
    uint64_t b = 0x6a09e667f3bcc909ull;
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        uint64_t w1, w2;
        memcpy(&w1, s + i, 8);
        memcpy(&w2, s + i + 8, 8);
        a = hash_step(a, w1);
        b = hash_step(b, w2);
    }
    /* The last 1 to 15 bytes: 8-byte loads that may overlap what the
     * loop read (the length is in the seed); a short string bytewise. */
    uint64_t t1 = 0, t2 = 0;
    if (len >= 8) {
        memcpy(&t1, s + len - 8, 8);
        if (len - i > 8)
            memcpy(&t2, s + i, 8);
    } else {
        for (size_t k = 0; k < len; k++)
            t1 |= (uint64_t)(unsigned char)s[k] << (8 * k);
    }
    a = hash_step(a, t1);
    b = hash_step(b, t2);
    uint64_t h = (a ^ (b * HASH_K1)) * HASH_K2;
    return h ^ (h >> 29);
}

void pv__strtab_init(pv__strtab *t)
{
    memset(t, 0, sizeof *t);
    pv_arena_init(&t->arena, 64 * 1024);
    pv_hashtab_reserve(&t->ids, 512);
    pv__strtab_intern(t, "", 0);
}

void pv__strtab_fini(pv__strtab *t)
{
    pv_arena_fini(&t->arena);
    free(t->strs);
    free(t->lens);
    pv_hashtab_fini(&t->ids);
    memset(t, 0, sizeof *t);
}

/* The id of s, or UINT32_MAX with *c on the slot s would take. */
static inline uint32_t strtab_lookup(const pv__strtab *t, const char *s, size_t len,
                                     pv_hashtab_cursor *c)
{
    *c = pv_hashtab_probe(&t->ids, str_hash(s, len));
    uint32_t id;
    while (pv_hashtab_next(c, &id))
        if (t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
            return id;
    return UINT32_MAX;
}

uint32_t pv__strtab_intern(pv__strtab *t, const char *s, size_t len)
{
    pv_hashtab_cursor c;
    uint32_t id = strtab_lookup(t, s, len, &c);
    if (id != UINT32_MAX)
        return id;
    if (t->n == t->cap) {
        size_t cap = t->cap;
        pv__grow((void **)&t->strs, &cap, t->n + 1, sizeof *t->strs);
        t->lens = pv_xrealloc(t->lens, cap * sizeof *t->lens);
        t->cap = cap;
    }
    id = (uint32_t)t->n++;
    t->strs[id] = pv_arena_strndup(&t->arena, s, len);
    t->lens[id] = (uint32_t)len;
    pv_hashtab_insert(&t->ids, &c, id);
    return id;
}

uint32_t pv__strtab_find(const pv__strtab *t, const char *s, size_t len)
{
    pv_hashtab_cursor c;
    uint32_t id = strtab_lookup(t, s, len, &c);
    return id != UINT32_MAX ? id : 0;
}

size_t pv__strtab_bytes(const pv__strtab *t)
{
    return t->arena.total_bytes + t->cap * (sizeof *t->strs + sizeof *t->lens) +
           pv_hashtab_bytes(&t->ids);
}
