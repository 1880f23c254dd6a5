/* group_keys: putting step grouping's edge keys with equal (k1, k2) next
 * to each other (model_priv.h). Producer/consumer ids are random 64-bit
 * values, so a sort by them spends its passes on comparisons that are a
 * coin toss (a twentieth of a TPU profile's ingest); a hash table finds
 * each key's group in one pass and a counting pass places it. */
#include "model/model_priv.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

/* A key whose group takes more probes than this makes the caller sort
 * instead: crafted ids that all hash alike cost a hostile file linear
 * time, never quadratic. */
#define PROBES_MAX 64

typedef struct group_slot {
    uint64_t k1, k2;
    uint32_t group;         /* group index + 1; 0 = empty */
} group_slot;

/* The group index of (k1, k2), a new one when it is unseen; UINT32_MAX
 * past PROBES_MAX probes. */
static uint32_t group_of(group_slot *slots, size_t mask, uint64_t k1, uint64_t k2,
                         uint32_t *n_groups)
{
    size_t at = (size_t)pv__keys_hash(k1, k2) & mask;
    for (int probe = 0; probe < PROBES_MAX; probe++) {
        group_slot *s = &slots[at];
        if (s->group == 0) {
            *s = (group_slot){k1, k2, ++*n_groups};
            return s->group - 1;
        }
        if (s->k1 == k1 && s->k2 == k2)
            return s->group - 1;
        at = (at + 1) & mask;
    }
    return UINT32_MAX;
}

bool pv__keys_group(pv__keys *ks)
{
    size_t n = ks->n;
    if (n == 0)
        return true;
    size_t n_slots = 16;
    while (n_slots < 2 * n)
        n_slots *= 2;
    group_slot *slots = pv_xcalloc(n_slots, sizeof *slots);
    uint32_t *gid = pv_xmalloc(n * sizeof *gid);
    /* per group: its side 0 count, then its side 1 count; later where
     * each side goes, UINT32_MAX for a group that joins nothing */
    uint32_t *place = pv_xcalloc(2 * n, sizeof *place);
    uint32_t n_groups = 0;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        gid[i] = group_of(slots, n_slots - 1, ks->v[i].k1, ks->v[i].k2, &n_groups);
        ok = gid[i] != UINT32_MAX;
        if (ok)
            place[2 * (size_t)gid[i] + (ks->v[i].side != 0)]++;
    }
    free(slots);
    if (ok) {
        uint32_t kept = 0;
        for (size_t g = 0; g < n_groups; g++) {
            uint32_t n0 = place[2 * g], n1 = place[2 * g + 1];
            if (n0 == 0 || n1 == 0) {
                place[2 * g] = place[2 * g + 1] = UINT32_MAX;
                continue;
            }
            place[2 * g] = kept;
            place[2 * g + 1] = kept + n0;
            kept += n0 + n1;
        }
        pv__keyed *out = pv_xmalloc((kept ? kept : 1) * sizeof *out);
        for (size_t i = 0; i < n; i++) {
            uint32_t *at = &place[2 * (size_t)gid[i] + (ks->v[i].side != 0)];
            if (*at != UINT32_MAX)
                out[(*at)++] = ks->v[i];
        }
        free(ks->v);
        ks->v = out;
        ks->n = ks->cap = kept;
    }
    free(place);
    free(gid);
    return ok;
}
