/* Unit test of util/varint.h against a plain encoder: every length from
 * one to ten bytes, at the edges of each length, read with many bytes
 * after it (the 8-byte load) and with none (the byte loop), with bytes
 * readable past the message's end or not, and the malformed cases the
 * decoder must refuse. */
#include "util/varint.h"
#include "testutil.h"

#include <string.h>

/* The protobuf encoding of v, written byte by byte; returns its length. */
static size_t encode(uint64_t v, uint8_t *out)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* Reads v back with `tail` bytes of 0xff after it inside the message,
 * and as many again readable past the message's end. */
static void check_round_trip(uint64_t v, size_t tail)
{
    uint8_t buf[48];
    memset(buf, 0xff, sizeof buf);
    size_t n = encode(v, buf);
    for (int past = 0; past < 2; past++) {
        const uint8_t *p = buf, *end = buf + n + tail;
        uint64_t got = 0;
        bool ok = past ? pv_varint_in(&p, end, end + tail, &got) : pv_varint_read(&p, end, &got);
        ck_assert_msg(ok, "value %llu tail %zu refused", (unsigned long long)v, tail);
        ck_assert_msg(got == v, "value %llu tail %zu read as %llu", (unsigned long long)v, tail,
                      (unsigned long long)got);
        ck_assert_int_eq((int)(p - buf), (int)n);
    }
}

START_TEST(test_varint_every_length)
{
    for (unsigned bits = 0; bits <= 64; bits++) {
        uint64_t top = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
        uint64_t values[] = {top, top + 1, top / 3, top ^ 0x5555555555555555ull};
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
            for (size_t tail = 0; tail <= 12; tail++)
                check_round_trip(values[i], tail);
        }
    }
}
END_TEST

START_TEST(test_varint_known_bytes)
{
    /* 300 is ac 02 (the protobuf documentation's example); 2^35 + 1 is
     * 81 80 80 80 80 01, counted by hand */
    static const uint8_t b300[] = {0xac, 0x02, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t big[] = {0x81, 0x80, 0x80, 0x80, 0x80, 0x01, 0, 0, 0, 0};
    const uint8_t *p = b300;
    uint64_t v;
    ck_assert(pv_varint_read(&p, b300 + sizeof b300, &v));
    ck_assert_uint_eq(v, 300);
    ck_assert_ptr_eq(p, b300 + 2);
    p = big;
    ck_assert(pv_varint_read(&p, big + sizeof big, &v));
    ck_assert_uint_eq(v, (1ull << 35) + 1);
    ck_assert_ptr_eq(p, big + 6);
}
END_TEST

START_TEST(test_varint_malformed)
{
    uint8_t buf[16];
    uint64_t v = 7;
    /* eleven continuation bytes: longer than any varint */
    memset(buf, 0x80, sizeof buf);
    const uint8_t *p = buf;
    ck_assert(!pv_varint_read(&p, buf + sizeof buf, &v));
    ck_assert_ptr_eq(p, buf);
    /* ten bytes whose last carries more than bit 63 */
    memset(buf, 0xff, 9);
    buf[9] = 0x02;
    ck_assert(!pv_varint_read(&p, buf + sizeof buf, &v));
    buf[9] = 0x01;
    ck_assert(pv_varint_read(&p, buf + sizeof buf, &v));
    ck_assert(v == UINT64_MAX);
    /* truncated: continuation bits up to the end, near and far from it,
     * also when the varint's last byte lies readable past the end */
    memset(buf, 0x80, sizeof buf);
    for (size_t len = 0; len <= 9; len++) {
        p = buf;
        ck_assert_msg(!pv_varint_read(&p, buf + len, &v), "length %zu", len);
        ck_assert_ptr_eq(p, buf);
        buf[len] = 0x01;
        ck_assert_msg(!pv_varint_in(&p, buf + len, buf + sizeof buf, &v), "length %zu", len);
        ck_assert_ptr_eq(p, buf);
        buf[len] = 0x80;
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("varint");
    TCase *tc = tcase_create("read");
    tcase_add_test(tc, test_varint_every_length);
    tcase_add_test(tc, test_varint_known_bytes);
    tcase_add_test(tc, test_varint_malformed);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
