/* group_keys: putting step grouping's edge keys with equal (k1, k2) next
 * to each other (model_priv.h). Producer/consumer ids are random 64-bit
 * values, so a sort by them spends its passes on comparisons that are a
 * coin toss (a twentieth of a TPU profile's ingest); a hash table finds
 * each key's group in one pass and a counting pass places it. */
#include "model/model_priv.h"
#include "util/hashtab.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

/* A key whose group takes more probes than this makes the caller sort
 * instead: crafted ids that all hash alike cost a hostile file linear
 * time, never quadratic. */
#define PROBES_MAX 64

/* The group index of key i, a new one when no earlier key has its
 * (k1, k2); UINT32_MAX when its hash's run passes PROBES_MAX slots. groups
 * maps a key's hash to the first key of each group; gid holds the groups
 * of the keys before i. */
static uint32_t group_of(pv_hashtab *groups, const pv__keyed *v, uint32_t i, const uint32_t *gid,
                         uint32_t *n_groups)
{
    uint64_t k1 = v[i].k1, k2 = v[i].k2;
    pv_hashtab_cursor c = pv_hashtab_probe(groups, pv__keys_hash(k1, k2));
    size_t budget = PROBES_MAX;
    uint32_t first;
    while (pv_hashtab_next_within(&c, &budget, &first))
        if (v[first].k1 == k1 && v[first].k2 == k2)
            return gid[first];
    if (pv_hashtab_gave_up(&c))
        return UINT32_MAX;
    pv_hashtab_insert(groups, &c, i);
    return (*n_groups)++;
}

bool pv__keys_group(pv__keys *ks)
{
    size_t n = ks->n;
    if (n == 0)
        return true;
    pv_hashtab groups = {0};
    pv_hashtab_reserve(&groups, n);
    uint32_t *gid = pv_xmalloc(n * sizeof *gid);
    /* per group: its side 0 count, then its side 1 count; later where
     * each side goes, UINT32_MAX for a group that joins nothing */
    uint32_t *place = pv_xcalloc(2 * n, sizeof *place);
    uint32_t n_groups = 0;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        gid[i] = group_of(&groups, ks->v, (uint32_t)i, gid, &n_groups);
        ok = gid[i] != UINT32_MAX;
        if (ok)
            place[2 * (size_t)gid[i] + (ks->v[i].side != 0)]++;
    }
    pv_hashtab_fini(&groups);
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
