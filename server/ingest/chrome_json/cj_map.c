/* cj_map: open addressing over two-word keys, for the decoder's lookups
 * of processes, threads, event metadata and flow ids. Keys come from the
 * file, so the hash mixes every bit; a collision costs a probe, never a
 * wrong value, as the whole key is compared. */
#include "ingest/chrome_json/cj_priv.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

static inline size_t slot_of(uint64_t a, uint64_t b, size_t n_slots)
{
    uint64_t h = (a ^ 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
    h = (h ^ (h >> 32) ^ b) * 0xc4ceb9fe1a85ec53ull;
    return (size_t)(h ^ (h >> 29)) & (n_slots - 1);
}

void pv__cj_map_fini(pv__cj_map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

uint32_t pv__cj_map_get(const pv__cj_map *m, uint64_t a, uint64_t b)
{
    if (m->n_slots == 0)
        return UINT32_MAX;
    for (size_t s = slot_of(a, b, m->n_slots);; s = (s + 1) & (m->n_slots - 1)) {
        if (m->vals[s] == UINT32_MAX)
            return UINT32_MAX;
        if (m->keys[2 * s] == a && m->keys[2 * s + 1] == b)
            return m->vals[s];
    }
}

static void rehash(pv__cj_map *m)
{
    size_t n_slots = m->n_slots ? 2 * m->n_slots : 64;
    uint64_t *keys = pv_xmalloc(2 * n_slots * sizeof *keys);
    uint32_t *vals = pv_xmalloc(n_slots * sizeof *vals);
    memset(vals, 0xff, n_slots * sizeof *vals);
    for (size_t i = 0; i < m->n_slots; i++) {
        if (m->vals[i] == UINT32_MAX)
            continue;
        size_t s = slot_of(m->keys[2 * i], m->keys[2 * i + 1], n_slots);
        while (vals[s] != UINT32_MAX)
            s = (s + 1) & (n_slots - 1);
        keys[2 * s] = m->keys[2 * i];
        keys[2 * s + 1] = m->keys[2 * i + 1];
        vals[s] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->n_slots = n_slots;
}

void pv__cj_map_put(pv__cj_map *m, uint64_t a, uint64_t b, uint32_t v)
{
    if (2 * (m->n + 1) > m->n_slots)
        rehash(m);
    size_t s = slot_of(a, b, m->n_slots);
    while (m->vals[s] != UINT32_MAX) {
        if (m->keys[2 * s] == a && m->keys[2 * s + 1] == b) {
            m->vals[s] = v;
            return;
        }
        s = (s + 1) & (m->n_slots - 1);
    }
    m->keys[2 * s] = a;
    m->keys[2 * s + 1] = b;
    m->vals[s] = v;
    m->n++;
}
