/* test_xspace: the XSpace decoder (server/ingest/xspace.c, ingest.c) on
 * hand-encoded messages whose bytes are written out below field by field,
 * on bad and truncated input, and on real files that change under it.
 * The real files' counts and events against protoc are test_xspace_protoc. */
#include "ingest/ingest.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a tiny protobuf writer for hand-made inputs --------------------------- */

typedef struct wbuf {
    uint8_t data[4096];
    size_t len;
} wbuf;

static void w_varint(wbuf *w, uint64_t v)
{
    while (v >= 0x80) {
        w->data[w->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    w->data[w->len++] = (uint8_t)v;
}

static void w_int(wbuf *w, uint32_t field, uint64_t v)
{
    w_varint(w, (uint64_t)field << 3);
    w_varint(w, v);
}

static void w_bytes(wbuf *w, uint32_t field, const void *p, size_t n)
{
    w_varint(w, ((uint64_t)field << 3) | 2);
    w_varint(w, n);
    memcpy(w->data + w->len, p, n);
    w->len += n;
}

static void w_str(wbuf *w, uint32_t field, const char *s)
{
    w_bytes(w, field, s, strlen(s));
}

static void w_msg(wbuf *w, uint32_t field, const wbuf *m)
{
    w_bytes(w, field, m->data, m->len);
}

static void w_double(wbuf *w, uint32_t field, double v)
{
    w_varint(w, ((uint64_t)field << 3) | 1);
    memcpy(w->data + w->len, &v, 8);
    w->len += 8;
}

/* stat_metadata / event_metadata map entry: key + value message */
static void w_map_entry(wbuf *w, uint32_t field, int64_t key, const wbuf *value)
{
    wbuf e = {.len = 0};
    w_int(&e, 1, (uint64_t)key);
    w_msg(&e, 2, value);
    w_msg(w, field, &e);
}

static void w_stat_meta(wbuf *plane, int64_t id, const char *name)
{
    wbuf v = {.len = 0};
    w_int(&v, 1, (uint64_t)id);
    w_str(&v, 2, name);
    w_map_entry(plane, 5, id, &v);
}

/* A one-plane XSpace: plane "/device:GPU:0" (id 7) with stat metadata
 * 1 "correlation_id", 2 "kernel_details", 3 "Copy", 4 "occupancy";
 * event metadata 10 "kernA" (display "A", one meta stat occupancy=0.5,
 * children 11 and 99), 11 "kernB"; one line id 5 "Stream #5" at
 * timestamp 2 ns with events:
 *   kernA offset 1000 dur 500, stats correlation_id=u 42, kernel_details=ref 3
 *   kernB offset 200 dur 100, stat correlation_id=i -1
 *   an aggregate kernB with num_occurrences 9 (not a timeline event)
 *   metadata id 77 (undefined) offset 3000
 * and hostname "h0". */
static size_t make_small(wbuf *space)
{
    wbuf plane = {.len = 0}, line = {.len = 0}, ev = {.len = 0}, st = {.len = 0}, m = {.len = 0};
    w_int(&plane, 1, 7);
    w_str(&plane, 2, "/device:GPU:0");

    w_int(&line, 1, 5);
    w_str(&line, 2, "Stream #5");
    w_int(&line, 3, 2);
    ev.len = 0;
    w_int(&ev, 1, 10);
    w_int(&ev, 2, 1000);
    w_int(&ev, 3, 500);
    st.len = 0;
    w_int(&st, 1, 1);
    w_int(&st, 3, 42);
    w_msg(&ev, 4, &st);
    st.len = 0;
    w_int(&st, 1, 2);
    w_int(&st, 7, 3);
    w_msg(&ev, 4, &st);
    w_msg(&line, 4, &ev);
    ev.len = 0;
    w_int(&ev, 1, 11);
    w_int(&ev, 2, 200);
    w_int(&ev, 3, 100);
    st.len = 0;
    w_int(&st, 1, 1);
    w_int(&st, 4, (uint64_t)-1);
    w_msg(&ev, 4, &st);
    w_msg(&line, 4, &ev);
    ev.len = 0;
    w_int(&ev, 1, 11);
    w_int(&ev, 5, 9);
    w_msg(&line, 4, &ev);
    ev.len = 0;
    w_int(&ev, 1, 77);
    w_int(&ev, 2, 3000);
    w_msg(&line, 4, &ev);
    w_msg(&plane, 3, &line);

    m.len = 0;
    w_int(&m, 1, 10);
    w_str(&m, 2, "kernA");
    w_str(&m, 4, "A");
    st.len = 0;
    w_int(&st, 1, 4);
    w_double(&st, 2, 0.5);
    w_msg(&m, 5, &st);
    uint8_t packed[] = {11, 99};
    w_bytes(&m, 6, packed, sizeof packed);
    w_map_entry(&plane, 4, 10, &m);
    m.len = 0;
    w_int(&m, 1, 11);
    w_str(&m, 2, "kernB");
    w_map_entry(&plane, 4, 11, &m);

    w_stat_meta(&plane, 1, "correlation_id");
    w_stat_meta(&plane, 2, "kernel_details");
    w_stat_meta(&plane, 3, "regs:32 static_shared:0 dynamic_shared:64 grid:4,2,1 block:128,1,1");
    w_stat_meta(&plane, 4, "occupancy");

    space->len = 0;
    w_msg(space, 1, &plane);
    w_str(space, 4, "h0");
    return space->len;
}

/* ---- pv_ingest_buffer ------------------------------------------------------ */

START_TEST(test_ingest_buffer_small_by_hand)
{
    wbuf space;
    size_t len = make_small(&space);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_buffer(space.data, len, "small", NULL, &m, &err), 0);
    ck_assert(pv_model_is_sane(m));
    ck_assert_uint_eq(m->n_planes, 1);
    ck_assert_uint_eq(m->planes[0].kind, PV_PLANE_GPU);
    ck_assert_int_eq(m->planes[0].device_ordinal, 0);
    ck_assert_int_eq(m->planes[0].id, 7);
    ck_assert_uint_eq(m->n_tracks, 1);
    ck_assert_uint_eq(m->n_hostnames, 1);
    ck_assert_str_eq(pv_model_str(m, m->hostnames[0]), "h0");
    /* 3 timeline events; sorted: kernB (2000+200), kernA (2000+1000), #77 */
    ck_assert_uint_eq(m->n_events, 3);
    ck_assert_int_eq(m->ev_start_ps[0], 2200);
    ck_assert_int_eq(m->ev_dur_ps[0], 100);
    ck_assert_str_eq(pv_model_event_name(m, 0), "kernB");
    ck_assert_int_eq(m->ev_start_ps[1], 3000);
    ck_assert_str_eq(pv_model_event_name(m, 1), "A");
    ck_assert_str_eq(pv_model_str(m, m->metas[m->ev_meta[1]].name), "kernA");
    ck_assert_int_eq(m->ev_start_ps[2], 5000);
    ck_assert_str_eq(pv_model_event_name(m, 2), "");
    ck_assert_int_eq(m->metas[m->ev_meta[2]].id, 77);
    /* stats: kernA has 2 own, kernB 1 own, #77 none */
    ck_assert_uint_eq(pv_model_event_own_stats(m, 1, NULL, 0), 2);
    pv_stat kd, occ, corr;
    ck_assert(pv_model_event_stat(m, 1, pv_model_str_find(m, "kernel_details"), &kd));
    /* a ref_value (interned) or a string read back from the file */
    ck_assert(kd.type == PV_STAT_STR || kd.type == PV_STAT_WSTR);
    size_t kd_len;
    const char *kd_text = pv_model_stat_text(m, &kd, &kd_len);
    const char *want = "regs:32 static_shared:0 dynamic_shared:64 grid:4,2,1 block:128,1,1";
    ck_assert_uint_eq(kd_len, strlen(want));
    ck_assert(memcmp(kd_text, want, kd_len) == 0);
    /* a well-known stat's value got a string id at ingest */
    ck_assert_str_eq(pv_model_str(m, pv_model_stat_str_id(m, &kd)), want);
    ck_assert(pv_model_event_stat(m, 1, pv_model_str_find(m, "occupancy"), &occ));
    ck_assert(occ.type == PV_STAT_F64 && occ.v.f64 == 0.5);
    ck_assert(pv_model_event_stat(m, 0, pv_model_str_find(m, "correlation_id"), &corr));
    ck_assert(corr.type == PV_STAT_I64 && corr.v.i64 == -1);
    /* well-known stats decoded once */
    const pv_event_extra *x = pv_model_event_extra(m, 1);
    ck_assert_ptr_nonnull(x);
    ck_assert_uint_eq(x->correlation_id, 42);
    ck_assert(x->flags & PV_EXTRA_KERNEL);
    const pv_kernel_details *k = pv_model_kernel(m, x);
    ck_assert_ptr_nonnull(k);
    ck_assert_uint_eq(k->registers_per_thread, 32);
    ck_assert_uint_eq(k->dynamic_shmem_bytes, 64);
    ck_assert_uint_eq(k->grid[0], 4);
    ck_assert_uint_eq(k->grid[1], 2);
    ck_assert_uint_eq(k->block[0], 128);
    /* children: 11 resolves, 99 does not exist */
    const pv_event_meta *ka = &m->metas[m->ev_meta[1]];
    ck_assert_uint_eq(ka->n_children, 1);
    ck_assert_str_eq(pv_model_str(m, m->metas[m->meta_children[ka->first_child]].name), "kernB");
    pv_model_free(m);
}
END_TEST

static void expect_error(const uint8_t *data, size_t len, int code, uint64_t offset,
                         const char *needle)
{
    pv_model *m = (pv_model *)1;
    pv_error err = {0};
    int rc = pv_ingest_buffer(data, len, "bad.xplane.pb", NULL, &m, &err);
    ck_assert_int_eq(rc, code);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(err.code, code);
    ck_assert_str_eq(err.path, "bad.xplane.pb");
    ck_assert_uint_eq(err.offset, offset);
    ck_assert_msg(strstr(err.reason, needle) != NULL, "reason '%s' lacks '%s'", err.reason,
                  needle);
}

START_TEST(test_ingest_buffer_empty)
{
    expect_error((const uint8_t *)"", 0, PV_EFORMAT, 0, "empty");
}
END_TEST

START_TEST(test_ingest_buffer_not_protobuf)
{
    /* trace JSON is a format of its own now (ingest/chrome_json) */
    const char *text = "Hello, profile";
    expect_error((const uint8_t *)text, strlen(text), PV_EFORMAT, 0, "not a supported");
}
END_TEST

START_TEST(test_ingest_buffer_length_past_end)
{
    /* plane of 5 bytes, only 2 present: tag at offset 0 */
    const uint8_t b[] = {0x0a, 0x05, 0x08, 0x01};
    expect_error(b, sizeof b, PV_EFORMAT, 0, "claims 5 bytes, 2 remain");
}
END_TEST

START_TEST(test_ingest_buffer_wrong_wire_type)
{
    /* XPlane name "A", then field 1 (id) sent length-delimited at offset 5 */
    const uint8_t b[] = {0x0a, 0x06, 0x12, 0x01, 0x41, 0x0a, 0x01, 0x41};
    expect_error(b, sizeof b, PV_EFORMAT, 5, "expected varint");
}
END_TEST

/* An event's stat that does not parse: the decoder only frames event
 * stats; the builder reads them as each event is added and the error
 * names the stats field's place in the file. Two ways to break one: a
 * known field in the wrong wire type (uint64 sent length-delimited), and
 * a uint64 whose value is cut off by the end of the stat. */
static void expect_bad_event_stat(const uint8_t *stat, size_t stat_len)
{
    wbuf space = {.len = 0}, plane = {.len = 0}, line = {.len = 0}, ev = {.len = 0},
         m = {.len = 0};
    w_int(&plane, 1, 1);
    w_str(&plane, 2, "/host:CPU");
    w_int(&line, 1, 1);
    w_int(&ev, 1, 10);
    w_int(&ev, 3, 5);
    w_bytes(&ev, 4, stat, stat_len);
    w_msg(&line, 4, &ev);
    w_msg(&plane, 3, &line);
    w_int(&m, 1, 10);
    w_str(&m, 2, "op");
    w_map_entry(&plane, 4, 10, &m);
    w_stat_meta(&plane, 1, "bytes");
    w_msg(&space, 1, &plane);
    /* the stats field: tag 0x22, its length, then the stat */
    uint8_t want[16] = {0x22, (uint8_t)stat_len};
    memcpy(want + 2, stat, stat_len);
    size_t at = SIZE_MAX;
    for (size_t i = 0; i + stat_len + 2 <= space.len && at == SIZE_MAX; i++)
        if (memcmp(space.data + i, want, stat_len + 2) == 0)
            at = i;
    ck_assert_uint_ne(at, SIZE_MAX);
    expect_error(space.data, space.len, PV_EFORMAT, at, "not a well-formed XStat");
}

START_TEST(test_ingest_buffer_bad_event_stat)
{
    static const uint8_t wrong_type[] = {0x08, 0x01, 0x1a, 0x01, 'x'};
    static const uint8_t cut_value[] = {0x08, 0x01, 0x18};
    expect_bad_event_stat(wrong_type, sizeof wrong_type);
    expect_bad_event_stat(cut_value, sizeof cut_value);
}
END_TEST

START_TEST(test_ingest_buffer_long_varint)
{
    /* XPlane id with an 11-byte varint starting at offset 3 */
    const uint8_t b[] = {0x0a, 0x0c, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                         0xff, 0xff, 0xff, 0xff, 0x01};
    expect_error(b, sizeof b, PV_EFORMAT, 3, "longer than");
}
END_TEST

START_TEST(test_ingest_buffer_truncated_everywhere)
{
    /* Every prefix of a valid file either decodes or fails cleanly. */
    wbuf space;
    size_t len = make_small(&space);
    for (size_t cut = 0; cut < len; cut++) {
        pv_model *m = NULL;
        pv_error err = {0};
        int rc = pv_ingest_buffer(space.data, cut, "cut", NULL, &m, &err);
        ck_assert(rc == 0 || rc == PV_EFORMAT);
        ck_assert(rc != 0 || pv_model_is_sane(m));
        ck_assert(rc == 0 || (m == NULL && err.offset <= cut));
        pv_model_free(m);
    }
}
END_TEST

/* 2,000,000 empty events (22 00, two bytes each) in one line: every one
 * would cost a model row of 98 bytes at worst (pv_builder_mem_bound),
 * more than 16x the 4 MB file plus 64 MB, so the decoder stops with
 * PV_ETOOBIG instead of letting such files eat the server's memory. */
static size_t put_varint4(uint8_t *p, size_t v)
{
    for (int i = 0; i < 3; i++)
        p[i] = (uint8_t)((v >> (7 * i)) | 0x80);
    p[3] = (uint8_t)(v >> 21);
    return 4;
}

START_TEST(test_ingest_buffer_tiny_events_capped)
{
    size_t n = 2000000, line_len = 2 * n;
    uint8_t *b = malloc(line_len + 32);
    size_t at = 0;
    b[at++] = 0x0a;                       /* XSpace.planes */
    at += put_varint4(b + at, 1 + 4 + line_len);  /* lines tag + 4-byte varint + events */
    b[at++] = 0x1a;                       /* XPlane.lines */
    at += put_varint4(b + at, line_len);
    for (size_t i = 0; i < n; i++) {
        b[at++] = 0x22;                   /* XLine.events, empty */
        b[at++] = 0x00;
    }
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_buffer(b, at, "tiny", NULL, &m, &err), PV_ETOOBIG);
    ck_assert_ptr_null(m);
    ck_assert(strstr(err.reason, "16x the file") != NULL);
    free(b);
}
END_TEST

/* ---- pv_ingest_file --------------------------------------------------------- */

START_TEST(test_ingest_file_missing)
{
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_file("/nonexistent/x.xplane.pb", NULL, &m, &err), PV_EIO);
    ck_assert_str_eq(err.path, "/nonexistent/x.xplane.pb");
    ck_assert_ptr_null(m);
}
END_TEST

START_TEST(test_ingest_file_truncated_real)
{
    PV_NEED_TESTDATA("test_ingest_file_truncated_real");
    const char *path = pv_test_data_path("/logdirs/tf_keras_gpu_gcp/train/plugins/profile/"
                                         "2022_11_04_21_26_12/instance-ecbm.xplane.pb");
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static uint8_t buf[200000];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ck_assert_uint_eq(n, 120758);  /* SOURCES.md size */
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_buffer(buf, n / 2, path, NULL, &m, &err), PV_EFORMAT);
    ck_assert_ptr_null(m);
    ck_assert_str_eq(err.path, path);
    ck_assert_uint_lt(err.offset, n / 2);
    ck_assert_msg(strstr(err.reason, "truncated") != NULL, "%s", err.reason);
}
END_TEST

/* Copies the file at src (n bytes, as SOURCES.md gives its size) to a
 * new temporary file; returns its descriptor and fills tmp. */
static int copy_to_tmp(const char *src, size_t n, char *tmp)
{
    int fd = mkstemp(tmp);
    ck_assert_int_ge(fd, 0);
    FILE *in = fopen(src, "rb");
    ck_assert_ptr_nonnull(in);
    uint8_t *buf = malloc(n + 1);
    ck_assert_uint_eq(fread(buf, 1, n + 1, in), n);
    fclose(in);
    ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
    free(buf);
    return fd;
}

/* Ingests the copy in tmp, counts the events with own stats, truncates
 * the file to nothing and counts them again. */
static void stats_before_after_shrink(const char *tmp, int fd, uint64_t want_events,
                                      uint64_t *before, uint64_t *after)
{
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_file(tmp, NULL, &m, &err), 0);
    ck_assert_uint_eq(m->n_events, want_events);
    *before = *after = 0;
    for (uint64_t e = 0; e < m->n_events; e++)
        *before += pv_model_event_own_stats(m, e, NULL, 0) > 0;
    ck_assert_int_eq(ftruncate(fd, 0), 0);
    for (uint64_t e = 0; e < m->n_events; e++)
        *after += pv_model_event_own_stats(m, e, NULL, 0) > 0;
    pv_model_free(m);
}

/* A large profile that shrinks after it was ingested: the model reads
 * its events' stats from the mapped file (model.h), so those reads now
 * touch pages past the file's end. Each read ends with no stats instead
 * of a SIGBUS that would stop the server; what the model holds itself
 * stays. */
START_TEST(test_model_stats_after_file_shrank)
{
    PV_NEED_TESTDATA("test_model_stats_after_file_shrank");
    const char *src = pv_test_data_path("/logdirs/tf2_gpu_multi_worker/plugins/profile/"
                                        "GPU-multi-worker/34.83.195.179_6003.xplane.pb");
    char tmp[] = "/tmp/pv-test-shrink-XXXXXX";
    int fd = copy_to_tmp(src, 3039638, tmp);   /* SOURCES.md size: mapped */
    uint64_t before, after;
    stats_before_after_shrink(tmp, fd, 23128, &before, &after);   /* SOURCES.md */
    ck_assert_uint_gt(before, 0);
    ck_assert_uint_eq(after, 0);
    close(fd);
    unlink(tmp);
}
END_TEST

/* A small profile is read into memory whole rather than mapped: its
 * model keeps every stat when the file shrinks afterwards. */
START_TEST(test_small_file_kept_after_shrink)
{
    PV_NEED_TESTDATA("test_small_file_kept_after_shrink");
    const char *src = pv_test_data_path("/logdirs/tf_keras_gpu_gcp/train/plugins/profile/"
                                        "2022_11_04_21_26_12/instance-ecbm.xplane.pb");
    char tmp[] = "/tmp/pv-test-shrink-XXXXXX";
    int fd = copy_to_tmp(src, 120758, tmp);   /* SOURCES.md size */
    uint64_t before, after;
    stats_before_after_shrink(tmp, fd, 706, &before, &after);   /* SOURCES.md: 706 events */
    ck_assert_uint_gt(before, 0);
    ck_assert_uint_eq(after, before);
    close(fd);
    unlink(tmp);
}
END_TEST

/* ---- inputs the fuzzer found (tests/data/xplane/crash-*.bin) -------------- */

/* 0a 02 22 00: one plane holding one empty event_metadata entry. It
 * decodes to one plane, no tracks and one metadata with id 0 and no
 * stats; with no stat anywhere the stats column must still be usable
 * (it was NULL, and NULL + 0 is undefined: UBSan caught it). */
START_TEST(test_ingest_file_crash_empty_metadata_entry)
{
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_file(PV_SRCDIR "/tests/data/xplane/crash-empty-metadata-entry.bin",
                                    NULL, &m, &err), 0);
    ck_assert(pv_model_is_sane(m));
    ck_assert_uint_eq(m->n_planes, 1);
    ck_assert_uint_eq(m->n_tracks, 0);
    ck_assert_uint_eq(m->n_metas, 1);
    ck_assert_int_eq(m->metas[0].id, 0);
    ck_assert_uint_eq(m->n_stats, 0);
    ck_assert_ptr_nonnull(m->stats);
    pv_model_free(m);
}
END_TEST

/* A legacy per-tool protobuf (overview_page.pb) passes the sniff but
 * holds no XPlane: rejected by name, not turned into an empty model. */
START_TEST(test_ingest_file_other_protobuf)
{
    PV_NEED_TESTDATA("test_ingest_file_other_protobuf");
    const char *path = pv_test_data_path("/logdirs/tf_legacy_demo_2020/plugins/profile/"
                                         "GPU-input-bound/localhost.overview_page.pb");
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_file(path, NULL, &m, &err), PV_EFORMAT);
    ck_assert_ptr_null(m);
    ck_assert(strstr(err.reason, "not an XSpace") != NULL);
}
END_TEST

static Suite *xspace_suite(void)
{
    Suite *s = suite_create("xspace");
    TCase *buffer = tcase_create("pv_ingest_buffer");
    tcase_add_test(buffer, test_ingest_buffer_small_by_hand);
    tcase_add_test(buffer, test_ingest_buffer_empty);
    tcase_add_test(buffer, test_ingest_buffer_not_protobuf);
    tcase_add_test(buffer, test_ingest_buffer_length_past_end);
    tcase_add_test(buffer, test_ingest_buffer_wrong_wire_type);
    tcase_add_test(buffer, test_ingest_buffer_long_varint);
    tcase_add_test(buffer, test_ingest_buffer_bad_event_stat);
    tcase_add_test(buffer, test_ingest_buffer_truncated_everywhere);
    tcase_add_test(buffer, test_ingest_buffer_tiny_events_capped);
    suite_add_tcase(s, buffer);
    TCase *file = tcase_create("pv_ingest_file");
    tcase_set_timeout(file, 60);
    tcase_add_test(file, test_ingest_file_missing);
    tcase_add_test(file, test_ingest_file_truncated_real);
    tcase_add_test(file, test_model_stats_after_file_shrank);
    tcase_add_test(file, test_small_file_kept_after_shrink);
    tcase_add_test(file, test_ingest_file_other_protobuf);
    suite_add_tcase(s, file);
    TCase *crash = tcase_create("fuzz regressions");
    tcase_add_test(crash, test_ingest_file_crash_empty_metadata_entry);
    suite_add_tcase(s, crash);
    return s;
}

int main(void)
{
    return pv_test_run(xspace_suite());
}
