/* strtab: string interning and the int64 -> uint32 id map used by the
 * builder and the model (model_priv.h). */
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
    t->n_slots = 1024;
    t->slots = pv_xcalloc(t->n_slots, sizeof *t->slots);
    t->slot_hash = pv_xcalloc(t->n_slots, sizeof *t->slot_hash);
    pv__strtab_intern(t, "", 0);
}

void pv__strtab_fini(pv__strtab *t)
{
    pv_arena_fini(&t->arena);
    free(t->strs);
    free(t->lens);
    free(t->slots);
    free(t->slot_hash);
    memset(t, 0, sizeof *t);
}

static void strtab_rehash(pv__strtab *t)
{
    size_t n_slots = t->n_slots * 2;
    uint32_t *slots = pv_xcalloc(n_slots, sizeof *slots);
    uint64_t *hashes = pv_xcalloc(n_slots, sizeof *hashes);
    for (size_t i = 0; i < t->n_slots; i++) {
        if (t->slots[i] == 0)
            continue;
        size_t j = (size_t)t->slot_hash[i] & (n_slots - 1);
        while (slots[j] != 0)
            j = (j + 1) & (n_slots - 1);
        slots[j] = t->slots[i];
        hashes[j] = t->slot_hash[i];
    }
    free(t->slots);
    free(t->slot_hash);
    t->slots = slots;
    t->slot_hash = hashes;
    t->n_slots = n_slots;
}

/* Slot holding s, or the empty slot where it would go. */
static size_t strtab_probe(const pv__strtab *t, const char *s, size_t len, uint64_t h)
{
    size_t j = (size_t)h & (t->n_slots - 1);
    while (t->slots[j] != 0) {
        uint32_t id = t->slots[j] - 1;
        if (t->slot_hash[j] == h && t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
            return j;
        j = (j + 1) & (t->n_slots - 1);
    }
    return j;
}

uint32_t pv__strtab_intern(pv__strtab *t, const char *s, size_t len)
{
    uint64_t h = str_hash(s, len);
    size_t j = strtab_probe(t, s, len, h);
    if (t->slots[j] != 0)
        return t->slots[j] - 1;
    if (t->n == t->cap) {
        size_t cap = t->cap;
        pv__grow((void **)&t->strs, &cap, t->n + 1, sizeof *t->strs);
        t->lens = pv_xrealloc(t->lens, cap * sizeof *t->lens);
        t->cap = cap;
    }
    uint32_t id = (uint32_t)t->n++;
    t->strs[id] = pv_arena_strndup(&t->arena, s, len);
    t->lens[id] = (uint32_t)len;
    t->slots[j] = id + 1;
    t->slot_hash[j] = h;
    if (t->n * 2 > t->n_slots)
        strtab_rehash(t);
    return id;
}

uint32_t pv__strtab_find(const pv__strtab *t, const char *s, size_t len)
{
    if (t->n_slots == 0)
        return 0;
    size_t j = strtab_probe(t, s, len, str_hash(s, len));
    return t->slots[j] != 0 ? t->slots[j] - 1 : 0;
}

size_t pv__strtab_bytes(const pv__strtab *t)
{
    return t->arena.total_bytes + t->cap * (sizeof *t->strs + sizeof *t->lens) +
           t->n_slots * (sizeof *t->slots + sizeof *t->slot_hash);
}

/* ---- int64 -> uint32 map ------------------------------------------------ */

static size_t idmap_slot(uint64_t key, size_t n_slots)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (n_slots - 1);
}

void pv__idmap_fini(pv__idmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static void idmap_resize(pv__idmap *m, size_t n_slots)
{
    uint64_t *keys = pv_xmalloc(n_slots * sizeof *keys);
    uint32_t *vals = pv_xmalloc(n_slots * sizeof *vals);
    memset(vals, 0xff, n_slots * sizeof *vals);
    for (size_t i = 0; i < m->n_slots; i++) {
        if (m->vals[i] == UINT32_MAX)
            continue;
        size_t j = idmap_slot(m->keys[i], n_slots);
        while (vals[j] != UINT32_MAX)
            j = (j + 1) & (n_slots - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->n_slots = n_slots;
}

void pv__idmap_put(pv__idmap *m, uint64_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->n_slots)
        idmap_resize(m, m->n_slots ? m->n_slots * 2 : 64);
    size_t j = idmap_slot(key, m->n_slots);
    while (m->vals[j] != UINT32_MAX && m->keys[j] != key)
        j = (j + 1) & (m->n_slots - 1);
    if (m->vals[j] == UINT32_MAX)
        m->n++;
    m->keys[j] = key;
    m->vals[j] = val;
}

uint32_t pv__idmap_get(const pv__idmap *m, uint64_t key)
{
    if (m->n_slots == 0)
        return UINT32_MAX;
    size_t j = idmap_slot(key, m->n_slots);
    while (m->vals[j] != UINT32_MAX) {
        if (m->keys[j] == key)
            return m->vals[j];
        j = (j + 1) & (m->n_slots - 1);
    }
    return UINT32_MAX;
}
