/* memory_profile_addrmap: an open-addressing map from a 64-bit memory
 * address to a 64-bit value, sized once for a known number of entries.
 * The memory profile needs three such maps per allocator (free -> its
 * allocation, live allocations at the peak, their later frees), each as
 * big as the allocator's event count, so a flat table with linear probing
 * and backward-shift deletion keeps them at 17 bytes a slot without
 * tombstones. Internal to the memory profile tool (pv__ names). Not
 * thread-safe: one owner. */
#ifndef PV_TOOLS_MEMORY_PROFILE_MEMORY_PROFILE_ADDRMAP_H
#define PV_TOOLS_MEMORY_PROFILE_MEMORY_PROFILE_ADDRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv__addrmap {
    uint64_t *keys;   /* cap slots */
    int64_t *vals;    /* cap slots */
    uint8_t *used;    /* 1 when the slot holds an entry */
    size_t cap;       /* power of two, at least twice max_entries */
    size_t n;         /* entries held */
} pv__addrmap;

/* Prepares a map for at most max_entries entries (aborts when memory runs
 * out; max_entries is bounded by the model's event count). */
void pv__addrmap_init(pv__addrmap *h, size_t max_entries);
/* Releases the slots. A zeroed map is fine. */
void pv__addrmap_fini(pv__addrmap *h);

/* The value stored for key, or NULL. Valid until the next put or erase. */
int64_t *pv__addrmap_find(const pv__addrmap *h, uint64_t key);
/* Stores val for key, replacing an earlier value. The caller keeps the
 * entry count within max_entries. */
void pv__addrmap_put(pv__addrmap *h, uint64_t key, int64_t val);
/* Removes key; returns whether it was there. */
bool pv__addrmap_erase(pv__addrmap *h, uint64_t key);

#endif
