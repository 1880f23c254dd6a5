/* hash: FNV-1a 64-bit over bytes (ETags, cache keys, flow ids, and the
 * keys of hash tables whose key is a byte string or a struct), and a mix
 * of one 64-bit integer (hash tables keyed by an integer). Not
 * cryptographic: hash tables compare their keys, or rely on the integer
 * mix being a bijection. Pure, thread-safe. */
#ifndef PV_UTIL_HASH_H
#define PV_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define PV_HASH_SEED 0xcbf29ce484222325ull

uint64_t pv_hash_bytes(uint64_t seed, const void *p, size_t n);

/* A bijection of the 64-bit integers (the splitmix64 finaliser) whose
 * every output bit depends on every input bit: keys that share their low
 * bits (aligned addresses, ids counting up in a high field) still spread
 * over a power-of-two table, and no two keys share a hash. */
static inline uint64_t pv_hash_u64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

#endif
