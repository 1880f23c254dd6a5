/* hashtab: growth and removal; lookups and plain inserts are inline in
 * hashtab.h. */
#include "util/hashtab.h"
#include "util/mem.h"

#include <stdlib.h>

const uint32_t pv__hashtab_empty;

/* Moves every entry into a table of cap slots, each to the first empty
 * slot from its hash's own: the stored hashes are all it needs. */
static void resize(pv_hashtab *t, size_t cap)
{
    uint64_t *hashes = pv_xmalloc(cap * sizeof *hashes);
    uint32_t *vals = pv_xcalloc(cap, sizeof *vals);
    size_t mask = cap - 1;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->vals[i] == 0)
            continue;
        size_t j = (size_t)t->hashes[i] & mask;
        while (vals[j] != 0)
            j = (j + 1) & mask;
        hashes[j] = t->hashes[i];
        vals[j] = t->vals[i];
    }
    free(t->hashes);
    free(t->vals);
    t->hashes = hashes;
    t->vals = vals;
    t->cap = cap;
}

void pv_hashtab_reserve(pv_hashtab *t, size_t n)
{
    size_t cap = PV_HASHTAB_MIN_SLOTS;
    while (cap / 2 < n && cap <= SIZE_MAX / 4)
        cap *= 2;
    if (cap > t->cap)
        resize(t, cap);
}

void pv_hashtab_fini(pv_hashtab *t)
{
    free(t->hashes);
    free(t->vals);
    t->hashes = NULL;
    t->vals = NULL;
    t->cap = 0;
    t->n = 0;
}

void pv__hashtab_insert_grow(pv_hashtab *t, uint64_t hash, uint32_t val)
{
    resize(t, t->cap != 0 ? 2 * t->cap : PV_HASHTAB_MIN_SLOTS);
    size_t mask = t->cap - 1;
    size_t j = (size_t)hash & mask;
    while (t->vals[j] != 0)
        j = (j + 1) & mask;
    t->hashes[j] = hash;
    t->vals[j] = val + 1;
    t->n++;
}

void pv_hashtab_remove(pv_hashtab *t, const pv_hashtab_cursor *c)
{
    size_t mask = t->cap - 1;
    size_t hole = (c->at - 1) & mask;
    /* An entry further on may fill the hole unless its own slot lies
     * after the hole (cyclically): a lookup for it starts there and would
     * never reach the hole. Distances are counted back from j. */
    for (size_t j = (hole + 1) & mask; t->vals[j] != 0; j = (j + 1) & mask) {
        size_t home = (size_t)t->hashes[j] & mask;
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            t->hashes[hole] = t->hashes[j];
            t->vals[hole] = t->vals[j];
            hole = j;
        }
    }
    t->vals[hole] = 0;
    t->n--;
}

bool pv_hashtab_is_sane(const pv_hashtab *t)
{
    if (t->cap == 0)
        return t->n == 0 && t->vals == NULL && t->hashes == NULL;
    if ((t->cap & (t->cap - 1)) != 0 || t->cap < PV_HASHTAB_MIN_SLOTS || 2 * t->n > t->cap)
        return false;
    size_t mask = t->cap - 1, full = 0;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->vals[i] == 0)
            continue;
        full++;
        for (size_t j = (size_t)t->hashes[i] & mask; j != i; j = (j + 1) & mask)
            if (t->vals[j] == 0)
                return false;
    }
    return full == t->n;
}
