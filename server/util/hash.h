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

/* A bijection of the 64-bit integers, so no two keys share a hash, that
 * brings every key bit into the low bits a power-of-two table takes its
 * slot from: the high half is folded into the low one, a multiply by an
 * odd constant carries each bit upwards, and folding again brings the
 * high bits down (the first half of MurmurHash3's 64-bit finaliser, which
 * the id map used before). Aligned addresses, ids in a high field and
 * counting ids all fill a half-full table with runs as short as random
 * keys make (test_hashtab). One multiply: it runs once per event in the
 * tile writers and the step tables. */
static inline uint64_t pv_hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    return x ^ (x >> 33);
}

#endif
