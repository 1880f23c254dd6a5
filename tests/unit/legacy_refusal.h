/* legacy_refusal: the hostile files every legacy per-tool converter must
 * refuse, written by hand from protobuf's encoding rules: cut short, a
 * message field sent as a varint, a length prefix past the end, a group,
 * and a file of tiny messages past the unpacking cap (ingest/pb_arena.h).
 * Shared by test_legacy_stats.c and test_input_pipeline_legacy.c. */
#ifndef PV_TESTS_LEGACY_REFUSAL_H
#define PV_TESTS_LEGACY_REFUSAL_H

#include "testutil.h"
#include "util/arena.h"
#include "util/error.h"

#include <string.h>

/* A converter that keeps its result to itself (results live in a). */
typedef int (*pv_test_convert_fn)(const uint8_t *b, size_t n, const char *path, pv_arena *a,
                                  pv_error *err);

/* One file and what the converter must say about it. */
static inline void pv_test_expect_convert(pv_test_convert_fn convert, const char *path,
                                          const uint8_t *b, size_t n, int code,
                                          const char *what)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_error err = {0};
    int rc = convert(b, n, path, &a, &err);
    ck_assert_msg(rc == code, "%s: %s gave %d, not %d", path, what, rc, code);
    if (code != 0) {
        ck_assert_int_eq(err.code, code);
        ck_assert_str_eq(err.path, path);
        ck_assert(err.reason[0] != '\0');
    }
    pv_arena_fini(&a);
}

/* field: a message field of the converter's top-level message whose
 * first field (tag 0a) may be empty. tiny_outer (0: none) and tiny_inner:
 * the tags of a repeated message field, and of the field that holds it,
 * for 200000 empty two-byte messages: each costs protobuf-c a struct of
 * more than 32 bytes, past the cap of 16 bytes per file byte plus 1 MiB. */
static inline void pv_test_legacy_refusals(pv_test_convert_fn convert, const char *path,
                                           uint8_t field, uint8_t tiny_outer,
                                           uint8_t tiny_inner)
{
    uint8_t tag = (uint8_t)(field << 3 | 2);
    /* the field holding an empty first field 0a 00: a valid file ... */
    const uint8_t whole[] = {tag, 0x02, 0x0a, 0x00};
    pv_test_expect_convert(convert, path, whole, sizeof whole, 0, "valid");
    /* ... cut by one byte: the field claims 2 bytes, 1 is left */
    pv_test_expect_convert(convert, path, whole, sizeof whole - 1, PV_EFORMAT, "cut short");
    const uint8_t varint[] = {(uint8_t)(field << 3), 0x01};
    pv_test_expect_convert(convert, path, varint, sizeof varint, PV_EFORMAT,
                           "a message field sent as a varint");
    /* a length prefix of 2^32 - 1 with two bytes after it */
    const uint8_t huge[] = {tag, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0a, 0x00};
    pv_test_expect_convert(convert, path, huge, sizeof huge, PV_EFORMAT, "huge length prefix");
    const uint8_t group[] = {(uint8_t)(field << 3 | 3), 0x00};
    pv_test_expect_convert(convert, path, group, sizeof group, PV_EFORMAT, "a group");

    size_t n = 200000, k = 0;
    uint8_t *b = malloc(2 * n + 16);
    if (tiny_outer != 0) {
        b[k++] = tiny_outer;
        for (uint64_t v = 2 * n;; v >>= 7) {
            b[k++] = (uint8_t)(v < 0x80 ? v : (v & 0x7f) | 0x80);
            if (v < 0x80)
                break;
        }
    }
    for (size_t i = 0; i < n; i++) {
        b[k++] = tiny_inner;
        b[k++] = 0x00;
    }
    pv_test_expect_convert(convert, path, b, k, PV_ETOOBIG, "tiny messages");
    free(b);
}

#endif
