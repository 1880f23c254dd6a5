/* memory_profile_addrmap: linear probing over a power-of-two table. Keys
 * are spread with the splitmix64 finaliser because allocator addresses
 * share their low bits (256-byte alignment) and high bits. */
#include "tools/memory_profile/memory_profile_addrmap.h"
#include "util/mem.h"

#include <stdlib.h>

static size_t slot_of(const pv__addrmap *h, uint64_t key)
{
    uint64_t x = key;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (size_t)(x & (uint64_t)(h->cap - 1));
}

void pv__addrmap_init(pv__addrmap *h, size_t max_entries)
{
    size_t cap = 16;
    while (cap < 2 * max_entries)
        cap *= 2;
    h->keys = pv_xmalloc(cap * sizeof *h->keys);
    h->vals = pv_xmalloc(cap * sizeof *h->vals);
    h->used = pv_xcalloc(cap, 1);
    h->cap = cap;
    h->n = 0;
}

void pv__addrmap_fini(pv__addrmap *h)
{
    free(h->keys);
    free(h->vals);
    free(h->used);
    h->keys = NULL;
    h->vals = NULL;
    h->used = NULL;
    h->cap = 0;
    h->n = 0;
}

int64_t *pv__addrmap_find(const pv__addrmap *h, uint64_t key)
{
    if (h->cap == 0)
        return NULL;
    for (size_t i = slot_of(h, key);; i = (i + 1) & (h->cap - 1)) {
        if (!h->used[i])
            return NULL;
        if (h->keys[i] == key)
            return &h->vals[i];
    }
}

void pv__addrmap_put(pv__addrmap *h, uint64_t key, int64_t val)
{
    size_t i = slot_of(h, key);
    while (h->used[i] && h->keys[i] != key)
        i = (i + 1) & (h->cap - 1);
    if (!h->used[i]) {
        h->used[i] = 1;
        h->keys[i] = key;
        h->n++;
    }
    h->vals[i] = val;
}

bool pv__addrmap_erase(pv__addrmap *h, uint64_t key)
{
    if (h->cap == 0)
        return false;
    size_t mask = h->cap - 1;
    size_t i = slot_of(h, key);
    while (h->used[i] && h->keys[i] != key)
        i = (i + 1) & mask;
    if (!h->used[i])
        return false;
    /* Backward shift: pull later entries of the probe run into the hole
     * unless their home slot lies (cyclically) after the hole. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; h->used[j]; j = (j + 1) & mask) {
        size_t home = slot_of(h, h->keys[j]);
        bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (stays)
            continue;
        h->keys[hole] = h->keys[j];
        h->vals[hole] = h->vals[j];
        hole = j;
    }
    h->used[hole] = 0;
    h->n--;
    return true;
}
