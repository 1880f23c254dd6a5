/* Tests of ingest/pb_arena: the cap's arithmetic, an unpack that fits,
 * one that a file of tiny messages pushes past the cap (PV_ETOOBIG), and
 * bytes that are not the message (PV_EFORMAT). Messages are packed by
 * protobuf-c's own packer or written by hand from the encoding rules. */
#include "ingest/pb_arena.h"
#include "kernel_stats.pb-c.h"
#include "testutil.h"

#include <string.h>

START_TEST(test_pv_pb_arena_cap_proportional)
{
    ck_assert_uint_eq(pv_pb_arena_cap(0), PV_PB_SLACK_BYTES);
    ck_assert_uint_eq(pv_pb_arena_cap(1000), 1000u * PV_PB_BYTES_PER_INPUT_BYTE +
                                                 PV_PB_SLACK_BYTES);
    /* a size whose product overflows saturates instead of wrapping */
    ck_assert_uint_eq(pv_pb_arena_cap(SIZE_MAX / 2), SIZE_MAX);
}
END_TEST

START_TEST(test_pv_pb_unpack_fits)
{
    Tensorflow__Profiler__KernelReport r = TENSORFLOW__PROFILER__KERNEL_REPORT__INIT;
    r.name = "volta_sgemm";
    r.registers_per_thread = 32;
    uint32_t block[3] = {256, 1, 1};
    r.block_dim = block;
    r.n_block_dim = 3;
    Tensorflow__Profiler__KernelReport *reports[1] = {&r};
    Tensorflow__Profiler__KernelStatsDb db = TENSORFLOW__PROFILER__KERNEL_STATS_DB__INIT;
    db.reports = reports;
    db.n_reports = 1;
    uint8_t buf[128];
    size_t len = tensorflow__profiler__kernel_stats_db__pack(&db, buf);
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_pb_arena pa;
    pv_pb_arena_init(&pa, &a, pv_pb_arena_cap(len));
    ProtobufCMessage *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_pb_unpack(&pa, &tensorflow__profiler__kernel_stats_db__descriptor, buf,
                                  len, "k.pb", &m, &err), 0);
    const Tensorflow__Profiler__KernelStatsDb *got = (const void *)m;
    ck_assert_uint_eq(got->n_reports, 1);
    ck_assert_str_eq(got->reports[0]->name, "volta_sgemm");
    ck_assert_uint_eq(got->reports[0]->registers_per_thread, 32);
    ck_assert_uint_eq(got->reports[0]->n_block_dim, 3);
    ck_assert_uint_eq(got->reports[0]->block_dim[0], 256);
    /* counted: at least the two message structs, at most the cap */
    ck_assert_uint_ge(pa.used_bytes, sizeof *got + sizeof *got->reports[0]);
    ck_assert_uint_le(pa.used_bytes, pa.cap_bytes);
    pv_arena_fini(&a);
}
END_TEST

START_TEST(test_pv_pb_unpack_tiny_messages_past_cap)
{
    /* 100000 empty reports, two bytes each (0a 00): each costs protobuf-c a
     * KernelReport struct, so at least 100000 * sizeof(struct) bytes, more
     * than 16 x 200000 + 1 MiB. */
    size_t n = 100000, len = 2 * n;
    ck_assert_uint_gt(n * sizeof(Tensorflow__Profiler__KernelReport), pv_pb_arena_cap(len));
    uint8_t *buf = malloc(len);
    for (size_t i = 0; i < n; i++) {
        buf[2 * i] = 0x0a;
        buf[2 * i + 1] = 0x00;
    }
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_pb_arena pa;
    pv_pb_arena_init(&pa, &a, pv_pb_arena_cap(len));
    ProtobufCMessage *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_pb_unpack(&pa, &tensorflow__profiler__kernel_stats_db__descriptor, buf,
                                  len, "tiny.pb", &m, &err), PV_ETOOBIG);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(err.code, PV_ETOOBIG);
    ck_assert_str_eq(err.path, "tiny.pb");
    ck_assert_uint_le(pa.used_bytes, pa.cap_bytes);
    /* without the cap the same bytes unpack: the refusal was the cap's */
    pv_pb_arena_init(&pa, &a, SIZE_MAX);
    ck_assert_int_eq(pv_pb_unpack(&pa, &tensorflow__profiler__kernel_stats_db__descriptor, buf,
                                  len, "tiny.pb", &m, &err), 0);
    ck_assert_uint_eq(((const Tensorflow__Profiler__KernelStatsDb *)(const void *)m)->n_reports,
                      n);
    pv_arena_fini(&a);
    free(buf);
}
END_TEST

static int unpack_db(const uint8_t *b, size_t len, pv_error *err)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_pb_arena pa;
    pv_pb_arena_init(&pa, &a, pv_pb_arena_cap(len));
    ProtobufCMessage *m = NULL;
    int rc = pv_pb_unpack(&pa, &tensorflow__profiler__kernel_stats_db__descriptor, b, len,
                          "bad.pb", &m, err);
    ck_assert(rc == 0 || m == NULL);
    pv_arena_fini(&a);
    return rc;
}

START_TEST(test_pv_pb_unpack_not_the_message)
{
    /* reports { name "k" } is 0a 03 0a 01 6b; cut by one byte */
    static const uint8_t cut[] = {0x0a, 0x03, 0x0a, 0x01};
    /* reports sent as a varint */
    static const uint8_t wrong_type[] = {0x08, 0x01};
    /* a report's name sent as a varint */
    static const uint8_t wrong_inner[] = {0x0a, 0x02, 0x08, 0x01};
    /* a report claiming 2^32 - 1 bytes with one left */
    static const uint8_t huge[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00};
    /* a group (wire type 3) */
    static const uint8_t group[] = {0x0b, 0x0c};
    const struct {
        const uint8_t *b;
        size_t len;
    } cases[] = {{cut, sizeof cut}, {wrong_type, sizeof wrong_type},
                 {wrong_inner, sizeof wrong_inner}, {huge, sizeof huge},
                 {group, sizeof group}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pv_error err = {0};
        ck_assert_int_eq(unpack_db(cases[i].b, cases[i].len, &err), PV_EFORMAT);
        ck_assert_str_eq(err.path, "bad.pb");
        ck_assert_msg(strstr(err.reason, "KernelStatsDb") != NULL, "%s", err.reason);
    }
    /* the valid message those are cut from */
    static const uint8_t whole[] = {0x0a, 0x03, 0x0a, 0x01, 0x6b};
    pv_error err = {0};
    ck_assert_int_eq(unpack_db(whole, sizeof whole, &err), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pb_arena");
    TCase *tc = tcase_create("pv_pb_arena_cap");
    tcase_add_test(tc, test_pv_pb_arena_cap_proportional);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_pb_unpack");
    tcase_add_test(tc, test_pv_pb_unpack_fits);
    tcase_add_test(tc, test_pv_pb_unpack_tiny_messages_past_cap);
    tcase_add_test(tc, test_pv_pb_unpack_not_the_message);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
