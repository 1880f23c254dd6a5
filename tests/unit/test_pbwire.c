/* Unit test of util/pbwire.h. Varints against a plain encoder: every
 * length from one to ten bytes, at the edges of each length, read with
 * many bytes after it (the 8-byte load) and with none (the byte loop),
 * with bytes readable past the message's end or not, and the malformed
 * cases the decoder must refuse. Fields: each wire type and each failure,
 * on bytes written by hand from the protobuf encoding rules. */
#include "util/pbwire.h"
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

/* ---- pv_pb_field_in --------------------------------------------------------- */

START_TEST(test_pv_pb_field_in_each_wire_type)
{
    /* field 1 varint 150 (08 96 01), field 2 fixed64 1 (11 + 8 bytes),
     * field 3 "ab" (1a 02 61 62), field 4 fixed32 2 (25 + 4 bytes),
     * field 1000 varint 1 (tag 1000 << 3 = 8000: c0 3e, then 01) */
    static const uint8_t b[] = {0x08, 0x96, 0x01, 0x11, 1, 0, 0, 0, 0, 0, 0, 0,
                                0x1a, 0x02, 'a', 'b', 0x25, 2, 0, 0, 0, 0xc0, 0x3e, 0x01};
    const uint8_t *p = b, *end = b + sizeof b;
    pv_pb_field f;
    ck_assert_int_eq(pv_pb_field_in(&p, end, end, &f), PV_PB_OK);
    ck_assert_uint_eq(f.num, 1);
    ck_assert_uint_eq(f.wt, 0);
    ck_assert_uint_eq(f.v, 150);
    ck_assert_ptr_eq(p, b + 3);
    ck_assert_int_eq(pv_pb_field_in(&p, end, end, &f), PV_PB_OK);
    ck_assert_uint_eq(f.num, 2);
    ck_assert_uint_eq(f.wt, 1);
    ck_assert_uint_eq(f.v, 1);
    ck_assert_int_eq(pv_pb_field_in(&p, end, end, &f), PV_PB_OK);
    ck_assert_uint_eq(f.num, 3);
    ck_assert_uint_eq(f.wt, 2);
    ck_assert_uint_eq(f.v, 2);
    ck_assert_ptr_eq(f.data, b + 14);
    ck_assert_int_eq(pv_pb_field_in(&p, end, end, &f), PV_PB_OK);
    ck_assert_uint_eq(f.num, 4);
    ck_assert_uint_eq(f.wt, 5);
    ck_assert_uint_eq(f.v, 2);
    ck_assert_int_eq(pv_pb_field_in(&p, end, end, &f), PV_PB_OK);
    ck_assert_uint_eq(f.num, 1000);
    ck_assert_uint_eq(f.v, 1);
    ck_assert_ptr_eq(p, end);
    ck_assert_int_eq(pv_pb_field_in(&p, end, end, &f), PV_PB_END);
}
END_TEST

/* Reads the one field in b[0..len) and checks that it fails with want,
 * the cursor unmoved and the fault at b + fault. */
static void expect_fault(const uint8_t *b, size_t len, pv_pb_status want, size_t fault)
{
    const uint8_t *p = b;
    pv_pb_field f;
    ck_assert_int_eq(pv_pb_field_in(&p, b + len, b + len, &f), want);
    ck_assert_ptr_eq(p, b);
    ck_assert_int_eq((int)(f.data - b), (int)fault);
}

START_TEST(test_pv_pb_field_in_faults)
{
    static const uint8_t cut_tag[] = {0x80};
    static const uint8_t cut_value[] = {0x08, 0x96};
    static const uint8_t long_value[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                         0xff, 0xff, 0xff, 0xff, 0x02};
    static const uint8_t number0[] = {0x02, 0x00};
    static const uint8_t group[] = {0x0b};   /* field 1, wire type 3 */
    static const uint8_t type7[] = {0x0f};
    static const uint8_t cut_fixed64[] = {0x09, 1, 2, 3, 4, 5, 6, 7};
    static const uint8_t cut_fixed32[] = {0x0d, 1, 2, 3};
    static const uint8_t cut_len[] = {0x0a, 0x05, 'a', 'b'};
    static const uint8_t huge_len[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 'a'};
    expect_fault(cut_tag, sizeof cut_tag, PV_PB_CUT_VARINT, 0);
    expect_fault(cut_value, sizeof cut_value, PV_PB_CUT_VARINT, 1);
    expect_fault(long_value, sizeof long_value, PV_PB_LONG_VARINT, 1);
    expect_fault(number0, sizeof number0, PV_PB_BAD_NUMBER, 0);
    expect_fault(group, sizeof group, PV_PB_BAD_WIRE_TYPE, 0);
    expect_fault(type7, sizeof type7, PV_PB_BAD_WIRE_TYPE, 0);
    expect_fault(cut_fixed64, sizeof cut_fixed64, PV_PB_CUT_FIXED, 1);
    expect_fault(cut_fixed32, sizeof cut_fixed32, PV_PB_CUT_FIXED, 1);
    expect_fault(cut_len, sizeof cut_len, PV_PB_CUT_LEN, 2);
    expect_fault(huge_len, sizeof huge_len, PV_PB_CUT_LEN, 6);
    /* 2^29 is one past the largest field number: tag 2^32 is 80 80 80 80 10 */
    static const uint8_t number_big[] = {0x80, 0x80, 0x80, 0x80, 0x10, 0x00};
    expect_fault(number_big, sizeof number_big, PV_PB_BAD_NUMBER, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pbwire");
    TCase *tc = tcase_create("pv_varint_in");
    tcase_add_test(tc, test_varint_every_length);
    tcase_add_test(tc, test_varint_known_bytes);
    tcase_add_test(tc, test_varint_malformed);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_pb_field_in");
    tcase_add_test(tc, test_pv_pb_field_in_each_wire_type);
    tcase_add_test(tc, test_pv_pb_field_in_faults);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
