/* hash: FNV-1a 64-bit, used for ETags, cache keys and string interning.
 * Not cryptographic; nothing relies on it resisting an attacker except
 * the intern table, which also compares the bytes. Pure, thread-safe. */
#ifndef PV_UTIL_HASH_H
#define PV_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define PV_HASH_SEED 0xcbf29ce484222325ull

uint64_t pv_hash_bytes(uint64_t seed, const void *p, size_t n);

#endif
