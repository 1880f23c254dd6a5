/* tile_decode: a test-side reader of binary tiles (docs/trace_api.md,
 * "Binary tiles"), written from the document, not from the server's
 * encoder: it turns one into the JSON tile's shape, so the API test can
 * check that both encodings of a tile say the same thing. */
#ifndef PV_TESTS_TILE_DECODE_H
#define PV_TESTS_TILE_DECODE_H

#include <jansson.h>
#include <stddef.h>

/* The tile in buf[0 .. len) as the JSON form would write it, or NULL when
 * the bytes are not a well-formed tile (also when bytes are left over). */
json_t *pv_test_tile_from_bin(const unsigned char *buf, size_t len);

#endif
