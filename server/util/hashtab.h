/* hashtab: the server's one open-addressing hash table.
 *
 * The table holds no keys. A slot holds an entry's 64-bit hash and a
 * 32-bit value, in most tables the index of the caller's row that holds
 * the key (a string id, an op, a kernel). A lookup is a probe cursor that
 * the caller walks: the table yields each value stored under an equal
 * hash, and the caller compares its own key inline and stops at its match.
 * When the hash is a bijection of the key, as pv_hash_u64 is of a 64-bit
 * integer, an equal hash is an equal key and there is nothing to compare
 * (the pv_hashtab_u64_* helpers below).
 *
 * Linear probing, the slot being the hash's low bits (so the caller's hash
 * must mix every key bit into them), and never more than half the slots
 * full: an insert that would pass that doubles the table and rehashes from
 * the stored hashes, so growing never reads the caller's keys. Removal
 * shifts the later entries of the probe run back instead of leaving
 * tombstones, so a table with many removals stays as fast as a fresh one.
 * A lookup may also be given a budget of slots to look at
 * (pv_hashtab_next_within): a table whose keys come from a file can fall
 * back to another method when it runs out, so that ids crafted to collide
 * cost linear time, never quadratic.
 *
 * Storage: two malloc'd arrays, hashes and values, 12 bytes a slot and two
 * to four slots an entry. A probe that meets an empty slot reads only the
 * values, and growing zeroes only them. Values run from 0 to
 * UINT32_MAX - 1 (a slot stores value + 1, 0 being empty). A zeroed
 * pv_hashtab is an empty table and allocates nothing until the first
 * insert. Inserts abort when memory runs out, as pv_xmalloc does. Not
 * thread-safe: any number of readers, or one writer alone. */
#ifndef PV_UTIL_HASHTAB_H
#define PV_UTIL_HASHTAB_H

#include "util/hash.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_hashtab {
    uint64_t *hashes;   /* cap slots: each entry's hash; unset where vals is 0 */
    uint32_t *vals;     /* cap slots: each entry's value + 1; 0 is an empty slot */
    size_t cap;         /* 0, or a power of two of at least PV_HASHTAB_MIN_SLOTS */
    size_t n;           /* entries; at most cap / 2 */
} pv_hashtab;

/* The slots of the first allocation. */
#define PV_HASHTAB_MIN_SLOTS 16

/* One lookup in progress. Valid until the table's next insert or removal
 * (pv_hashtab_set keeps it valid). */
typedef struct pv_hashtab_cursor {
    const uint64_t *hashes;   /* the table's */
    const uint32_t *vals;     /* the table's, or one empty slot for an empty table */
    size_t mask;              /* slot count - 1 */
    uint64_t hash;            /* the hash looked for */
    size_t at;                /* the slot looked at next */
} pv_hashtab_cursor;

/* The one empty slot a cursor over an empty table looks at. */
extern const uint32_t pv__hashtab_empty;

/* ---- lifetime ------------------------------------------------------------ */

/* Makes room for n entries in all, so that the inserts up to n entries do
 * not grow the table. Aborts when memory runs out. Cursors taken before
 * are invalid after it. */
void pv_hashtab_reserve(pv_hashtab *t, size_t n);
/* Releases the slots and leaves an empty table. A zeroed or already
 * released table is fine. */
void pv_hashtab_fini(pv_hashtab *t);
/* For assert() and tests: the slot count is a power of two, n counts the
 * entries, at most half the slots, and each entry lies in the run that
 * starts at its hash's own slot (no empty slot between), without which a
 * lookup would miss it. Looks at every slot. */
bool pv_hashtab_is_sane(const pv_hashtab *t);
/* Bytes of slots held. Cannot fail. */
static inline size_t pv_hashtab_bytes(const pv_hashtab *t)
{
    return t->cap * (sizeof *t->hashes + sizeof *t->vals);
}

/* ---- lookup -------------------------------------------------------------- */

/* A cursor for the entries stored under hash. Cannot fail. */
static inline pv_hashtab_cursor pv_hashtab_probe(const pv_hashtab *t, uint64_t hash)
{
    pv_hashtab_cursor c = {NULL, &pv__hashtab_empty, 0, hash, 0};
    if (t->cap != 0) {
        c.hashes = t->hashes;
        c.vals = t->vals;
        c.mask = t->cap - 1;
        c.at = (size_t)hash & c.mask;
    }
    return c;
}

/* Moves the cursor to the next entry stored under its hash: returns true
 * with that entry's value in *val, or false when there is none left (the
 * cursor then rests on the empty slot where an insert of its hash goes). */
static inline bool pv_hashtab_next(pv_hashtab_cursor *c, uint32_t *val)
{
    for (;;) {
        size_t at = c->at;
        if (c->vals[at] == 0)
            return false;
        c->at = (at + 1) & c->mask;
        if (c->hashes[at] == c->hash) {
            *val = c->vals[at] - 1;
            return true;
        }
    }
}

/* The same, looking at no more than *budget slots: each slot looked at
 * takes one from *budget, and at 0 it returns false as well
 * (pv_hashtab_gave_up tells the two apart). */
static inline bool pv_hashtab_next_within(pv_hashtab_cursor *c, size_t *budget, uint32_t *val)
{
    for (;;) {
        size_t at = c->at;
        if (c->vals[at] == 0 || *budget == 0)
            return false;
        --*budget;
        c->at = (at + 1) & c->mask;
        if (c->hashes[at] == c->hash) {
            *val = c->vals[at] - 1;
            return true;
        }
    }
}

/* After pv_hashtab_next_within returned false: true when its budget ran
 * out before an empty slot, so that an entry might lie further on and
 * pv_hashtab_insert may not be used. */
static inline bool pv_hashtab_gave_up(const pv_hashtab_cursor *c)
{
    return c->vals[c->at] != 0;
}

/* ---- changes through a cursor -------------------------------------------- */

/* (internal) pv_hashtab_insert when the table must grow first. */
void pv__hashtab_insert_grow(pv_hashtab *t, uint64_t hash, uint32_t val);

/* Adds an entry of c's hash with value val (below UINT32_MAX). c is a
 * cursor of t whose last pv_hashtab_next returned false (or whose last
 * pv_hashtab_next_within did without giving up). The key must not be in
 * the table yet: equal hashes may be stored more than once, and the table
 * cannot tell keys apart. Aborts when memory runs out. */
static inline void pv_hashtab_insert(pv_hashtab *t, const pv_hashtab_cursor *c, uint32_t val)
{
    assert(!pv_hashtab_gave_up(c) && val != UINT32_MAX);
    if (2 * (t->n + 1) > t->cap) {
        pv__hashtab_insert_grow(t, c->hash, val);
        return;
    }
    t->hashes[c->at] = c->hash;
    t->vals[c->at] = val + 1;
    t->n++;
}

/* Gives the entry c's last pv_hashtab_next returned the value val (below
 * UINT32_MAX). Cannot fail; c stays valid. */
static inline void pv_hashtab_set(pv_hashtab *t, const pv_hashtab_cursor *c, uint32_t val)
{
    assert(val != UINT32_MAX);
    t->vals[(c->at - 1) & c->mask] = val + 1;
}

/* Removes the entry c's last pv_hashtab_next returned, moving later
 * entries of its probe run back into the gap. Cannot fail. */
void pv_hashtab_remove(pv_hashtab *t, const pv_hashtab_cursor *c);

/* ---- walking every entry ------------------------------------------------- */

/* For slot i < t->cap: true with its value in *val when it holds an entry.
 * The order of the slots is the hashes' and means nothing else. */
static inline bool pv_hashtab_slot_val(const pv_hashtab *t, size_t i, uint32_t *val)
{
    *val = t->vals[i] - 1;
    return t->vals[i] != 0;
}

/* ---- 64-bit integer keys ------------------------------------------------- */

/* Tables keyed by a 64-bit integer through pv_hash_u64: the hash stands
 * for the key, so these compare nothing. Do not mix them with other hashes
 * in one table. */

/* The value stored for key: true with it in *val, or false. Cannot fail. */
static inline bool pv_hashtab_u64_get(const pv_hashtab *t, uint64_t key, uint32_t *val)
{
    pv_hashtab_cursor c = pv_hashtab_probe(t, pv_hash_u64(key));
    return pv_hashtab_next(&c, val);
}

/* The value stored for key; when key is new, val (below UINT32_MAX) is
 * stored for it and returned. Aborts when memory runs out. */
static inline uint32_t pv_hashtab_u64_add(pv_hashtab *t, uint64_t key, uint32_t val)
{
    pv_hashtab_cursor c = pv_hashtab_probe(t, pv_hash_u64(key));
    uint32_t old;
    if (pv_hashtab_next(&c, &old))
        return old;
    pv_hashtab_insert(t, &c, val);
    return val;
}

/* Stores val (below UINT32_MAX) for key, replacing a value stored before.
 * Aborts when memory runs out. */
static inline void pv_hashtab_u64_put(pv_hashtab *t, uint64_t key, uint32_t val)
{
    pv_hashtab_cursor c = pv_hashtab_probe(t, pv_hash_u64(key));
    uint32_t old;
    if (pv_hashtab_next(&c, &old))
        pv_hashtab_set(t, &c, val);
    else
        pv_hashtab_insert(t, &c, val);
}

/* Removes key; true when it was there. Cannot fail. */
static inline bool pv_hashtab_u64_remove(pv_hashtab *t, uint64_t key)
{
    pv_hashtab_cursor c = pv_hashtab_probe(t, pv_hash_u64(key));
    uint32_t old;
    if (!pv_hashtab_next(&c, &old))
        return false;
    pv_hashtab_remove(t, &c);
    return true;
}

#endif
