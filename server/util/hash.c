/* hash: FNV-1a. */
#include "util/hash.h"

uint64_t pv_hash_bytes(uint64_t seed, const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = seed;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
