/* test_xspace_threads: the XSpace decode on two threads (the lines read
 * ahead by a walker, ingest/xspace/xs_walk.c) against the decode on one,
 * byte for byte through the model's serializer (model/serialize.h): on
 * every real XSpace in ../shared/testdata, on a generated profile of
 * several planes and lines whose events outnumber the walker's ring, and
 * on that profile cut short or corrupted (the same error, at the same
 * byte). The generated profile's events per line are counted as it is
 * written, independently of the decoder. */
#include "ingest/ingest.h"
#include "ingest/xspace/xspace.h"
#include "model/builder.h"
#include "model/serialize.h"
#include "testutil.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a growable protobuf writer ------------------------------------------------ */

typedef struct gbuf {
    uint8_t *data;
    size_t len, cap;
} gbuf;

static void g_raw(gbuf *g, const void *p, size_t n)
{
    if (g->len + n > g->cap) {
        g->cap = (g->len + n) * 2 + 64;
        g->data = realloc(g->data, g->cap);
        ck_assert_ptr_nonnull(g->data);
    }
    memcpy(g->data + g->len, p, n);
    g->len += n;
}

static void g_varint(gbuf *g, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    while (v >= 0x80) {
        b[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (uint8_t)v;
    g_raw(g, b, n);
}

static void g_int(gbuf *g, uint32_t field, uint64_t v)
{
    g_varint(g, (uint64_t)field << 3);
    g_varint(g, v);
}

static void g_bytes(gbuf *g, uint32_t field, const void *p, size_t n)
{
    g_varint(g, ((uint64_t)field << 3) | 2);
    g_varint(g, n);
    g_raw(g, p, n);
}

static void g_str(gbuf *g, uint32_t field, const char *s)
{
    g_bytes(g, field, s, strlen(s));
}

static void g_msg(gbuf *g, uint32_t field, const gbuf *m)
{
    g_bytes(g, field, m->data, m->len);
}

static void g_map_entry(gbuf *g, uint32_t field, int64_t key, const gbuf *value)
{
    gbuf e = {0};
    g_int(&e, 1, (uint64_t)key);
    g_msg(&e, 2, value);
    g_msg(g, field, &e);
    free(e.data);
}

/* ---- the generated profile ------------------------------------------------------ */

enum { STAT_CORRELATION = 1, STAT_GROUP, STAT_TF_OP, STAT_FLOPS, STAT_KERNEL, STAT_NOTE,
       N_STAT_NAMES = STAT_NOTE };
static const char *const stat_names[N_STAT_NAMES + 1] = {
    "", "correlation_id", "group_id", "tf_op", "flops", "kernel_details", "note"};

#define N_METAS 40
#define N_LINES 6
/* events per line: the first outnumbers the walker's ring (16 x 2048
 * items), two have no events, one has a line field between its events */
static const unsigned line_events[N_LINES] = {70000, 3000, 0, 5000, 0, 4100};
static const int line_plane[N_LINES] = {0, 0, 0, 1, 1, 1};

typedef struct gen {
    gbuf space;
    uint64_t timeline[N_LINES];   /* events with a start time, per line */
} gen;

/* One event of line l, number i: nested runs of ops, every 97th an
 * aggregate, every 501st with an unknown field (so the general decoder
 * reads it), every 1000th with a metadata id the plane never defines. */
static void gen_event(gen *gn, gbuf *line, int l, unsigned i)
{
    gbuf ev = {0}, st = {0};
    uint64_t meta = 1 + (i * 7u + (unsigned)l) % N_METAS;
    if (i % 1000 == 999)
        meta = 5000 + (unsigned)l;
    g_int(&ev, 1, meta);
    if (i % 97 == 96) {
        g_int(&ev, 5, 3);
    } else {
        g_int(&ev, 2, (uint64_t)(i / 4) * 10000 + (i % 4) * 100);
        g_int(&ev, 3, i % 4 == 0 ? 9000 : 50);
        gn->timeline[l]++;
    }
    if (i % 501 == 500)
        g_int(&ev, 7, i);
    if (i % 3 != 2) {
        st.len = 0;
        g_int(&st, 1, STAT_CORRELATION);
        g_int(&st, 3, 1000 + i % 4500);
        g_msg(&ev, 4, &st);
    }
    if (i % 5 == 0) {
        st.len = 0;
        g_int(&st, 1, STAT_GROUP);
        g_int(&st, 4, i / 300);
        g_msg(&ev, 4, &st);
    }
    if (i % 4 == 1) {
        char text[32];
        snprintf(text, sizeof text, "scope/op_%u", (i * 13u) % 2000);
        st.len = 0;
        g_int(&st, 1, STAT_TF_OP);
        g_str(&st, 5, text);
        g_msg(&ev, 4, &st);
    }
    if (i % 6 == 3) {
        st.len = 0;
        g_int(&st, 1, STAT_KERNEL);
        g_int(&st, 7, STAT_NOTE);   /* a ref_value: the name of stat metadata 6 */
        g_msg(&ev, 4, &st);
        st.len = 0;
        g_int(&st, 1, STAT_FLOPS);
        g_int(&st, 3, (uint64_t)i * 1000);
        g_msg(&ev, 4, &st);
    }
    g_msg(line, 4, &ev);
    free(ev.data);
    free(st.data);
}

/* Plane p; line `late` (-1: none) has its id, name and timestamp after its
 * events, which protobuf allows and no producer writes. */
static void gen_plane(gen *gn, int p, int late)
{
    gbuf plane = {0}, line = {0}, v = {0};
    g_int(&plane, 1, (uint64_t)p + 1);
    g_str(&plane, 2, p == 0 ? "/host:CPU" : "/device:GPU:0");
    for (int l = 0; l < N_LINES; l++) {
        if (line_plane[l] != p)
            continue;
        char name[32];
        snprintf(name, sizeof name, p == 0 ? "thread %d" : "Stream #%d", l);
        line.len = 0;
        if (l != late) {
            g_int(&line, 1, (uint64_t)l + 10);
            g_str(&line, 2, name);
            g_int(&line, 3, 1000000 + (uint64_t)l);
        }
        for (unsigned i = 0; i < line_events[l]; i++) {
            gen_event(gn, &line, l, i);
            if (l == 5 && i == line_events[l] / 2)
                g_int(&line, 10, 77);   /* display_id, between events */
        }
        g_int(&line, 9, 123456);
        if (l == late) {
            g_int(&line, 3, 1000000 + (uint64_t)l);
            g_str(&line, 2, name);
            g_int(&line, 1, (uint64_t)l + 10);
        }
        g_msg(&plane, 3, &line);
    }
    for (int m = 1; m <= N_METAS; m++) {
        char name[32];
        snprintf(name, sizeof name, "%s%d", p == 0 ? "op" : "kernel", m);
        v.len = 0;
        g_int(&v, 1, (uint64_t)m);
        g_str(&v, 2, name);
        if (m % 3 == 0)
            g_str(&v, 4, "display");
        g_map_entry(&plane, 4, m, &v);
    }
    for (int s = 1; s <= N_STAT_NAMES; s++) {
        v.len = 0;
        g_int(&v, 1, (uint64_t)s);
        g_str(&v, 2, stat_names[s]);
        g_map_entry(&plane, 5, s, &v);
    }
    g_msg(&gn->space, 1, &plane);
    free(plane.data);
    free(line.data);
    free(v.data);
}

static void gen_space(gen *gn, int late)
{
    memset(gn, 0, sizeof *gn);
    gen_plane(gn, 0, late);
    gen_plane(gn, 1, late);
    g_str(&gn->space, 4, "h0");
}

/* ---- decoding and comparing ------------------------------------------------------ */

static int decode(const uint8_t *data, size_t len, unsigned threads, pv_model **out,
                  pv_error *err)
{
    pv_ingest_src src = {data, len, "gen", NULL, false};
    pv_model_builder *b = pv_builder_new();
    pv_builder_source(b, data, len, PV_SRC_NONE);
    *out = NULL;
    int rc = pv_decode_xspace_threads(&src, b, err, threads);
    if (rc != 0) {
        pv_builder_free(b);
        return rc;
    }
    return pv_builder_finish(b, out, err);
}

/* The model's file bytes (model/serialize.h), malloc'd. */
static uint8_t *serialized(const pv_model *m, size_t *len)
{
    char path[64];
    pv_error err = {0};
    snprintf(path, sizeof path, "/tmp/pv-test-xspace-threads-%ld.model", (long)getpid());
    ck_assert_int_eq(pv_model_save(m, path, &err), 0);
    uint8_t *bytes = pv_test_read_file(path, len);
    unlink(path);
    return bytes;
}

/* Decodes data on one and on two threads and checks both end the same:
 * the same model file, or the same error at the same byte. Returns the
 * rc; *two (may be NULL) gets the two-thread model. */
static int same_on_two_threads(const uint8_t *data, size_t len, const char *what,
                               pv_model **two)
{
    pv_model *m1 = NULL, *m2 = NULL;
    pv_error e1 = {0}, e2 = {0};
    int rc1 = decode(data, len, 1, &m1, &e1);
    int rc2 = decode(data, len, 2, &m2, &e2);
    ck_assert_msg(rc1 == rc2, "%s: rc %d on one thread, %d on two", what, rc1, rc2);
    if (rc1 != 0) {
        ck_assert_msg(e1.offset == e2.offset && strcmp(e1.reason, e2.reason) == 0,
                      "%s: '%s' at %llu on one thread, '%s' at %llu on two", what, e1.reason,
                      (unsigned long long)e1.offset, e2.reason, (unsigned long long)e2.offset);
    } else {
        size_t n1, n2;
        uint8_t *b1 = serialized(m1, &n1), *b2 = serialized(m2, &n2);
        ck_assert_msg(n1 == n2 && memcmp(b1, b2, n1) == 0,
                      "%s: the model files differ (%zu and %zu bytes)", what, n1, n2);
        free(b1);
        free(b2);
    }
    pv_model_free(m1);
    if (two != NULL)
        *two = m2;
    else
        pv_model_free(m2);
    return rc1;
}

/* ---- tests ------------------------------------------------------------------------ */

START_TEST(test_generated_same_model)
{
    gen gn;
    gen_space(&gn, -1);
    pv_model *m = NULL;
    ck_assert_int_eq(same_on_two_threads(gn.space.data, gn.space.len, "generated", &m), 0);
    ck_assert_uint_eq(m->n_planes, 2);
    ck_assert_uint_eq(m->n_tracks, N_LINES);
    uint64_t total = 0;
    for (int l = 0; l < N_LINES; l++) {
        ck_assert_msg(m->tracks[l].n_events == gn.timeline[l], "line %d: %llu events, %llu written",
                      l, (unsigned long long)m->tracks[l].n_events,
                      (unsigned long long)gn.timeline[l]);
        total += gn.timeline[l];
    }
    ck_assert_uint_eq(m->n_events, total);
    ck_assert_uint_eq(total, 70000 - 721 + 3000 - 30 + 5000 - 51 + 4100 - 42);
    ck_assert_int_eq(m->tracks[5].display_id, 77);
    pv_model_free(m);
    free(gn.space.data);
}
END_TEST

START_TEST(test_generated_cut_or_corrupt)
{
    gen gn;
    gen_space(&gn, -1);
    uint8_t *copy = malloc(gn.space.len);
    int failed = 0;
    for (unsigned k = 1; k <= 24; k++) {
        size_t at = gn.space.len / 25 * k + k;
        char what[64];
        snprintf(what, sizeof what, "cut at %zu", at);
        failed += same_on_two_threads(gn.space.data, at, what, NULL) != 0;
        memcpy(copy, gn.space.data, gn.space.len);
        copy[at] = (uint8_t)(k % 2 ? 0xff : 0x07);
        snprintf(what, sizeof what, "byte %zu set to %u", at, copy[at]);
        failed += same_on_two_threads(copy, gn.space.len, what, NULL) != 0;
    }
    /* every cut ends the file inside a plane: each must fail */
    ck_assert_int_ge(failed, 24);
    free(copy);
    free(gn.space.data);
}
END_TEST

/* A line's id, name and timestamp after its events: the decode, which
 * reads a line once taking them to come first, starts again reading every
 * line's own fields first, on one thread and on two. The line's track and
 * events come out as when they come first. */
START_TEST(test_line_named_after_its_events)
{
    gen canon, late;
    gen_space(&canon, -1);
    gen_space(&late, 3);
    pv_model *mc = NULL, *ml = NULL;
    ck_assert_int_eq(same_on_two_threads(canon.space.data, canon.space.len, "canonical", &mc), 0);
    ck_assert_int_eq(same_on_two_threads(late.space.data, late.space.len, "late", &ml), 0);
    /* as written: line 3 is "Stream #3", id 13, timestamp 1000003 ns, and
     * its first event is at offset 0 */
    const pv_track *t = &ml->tracks[3];
    ck_assert_str_eq(pv_model_str(ml, t->name), "Stream #3");
    ck_assert_int_eq(t->line_id, 13);
    ck_assert_int_eq(t->timestamp_ns, 1000003);
    ck_assert_int_eq(t->duration_ps, 123456);
    ck_assert_uint_eq(t->n_events, late.timeline[3]);
    ck_assert_int_eq(ml->ev_start_ps[t->first_event], (int64_t)1000003 * 1000);
    ck_assert_uint_eq(ml->n_tracks, mc->n_tracks);
    for (uint32_t k = 0; k < ml->n_tracks; k++) {
        const pv_track *a = &mc->tracks[k], *b = &ml->tracks[k];
        ck_assert_str_eq(pv_model_str(ml, b->name), pv_model_str(mc, a->name));
        ck_assert_int_eq(b->line_id, a->line_id);
        ck_assert_int_eq(b->timestamp_ns, a->timestamp_ns);
        ck_assert_int_eq(b->display_id, a->display_id);
        ck_assert_uint_eq(b->n_events, a->n_events);
    }
    ck_assert_uint_eq(ml->n_events, mc->n_events);
    for (uint64_t e = 0; e < ml->n_events; e++) {
        ck_assert_int_eq(ml->ev_start_ps[e], mc->ev_start_ps[e]);
        ck_assert_int_eq(ml->ev_dur_ps[e], mc->ev_dur_ps[e]);
        ck_assert_str_eq(pv_model_event_name(ml, e), pv_model_event_name(mc, e));
    }
    pv_model_free(mc);
    pv_model_free(ml);
    free(canon.space.data);
    free(late.space.data);
}
END_TEST

static unsigned n_real;

static int compare_real(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    size_t ext = sizeof ".xplane.pb" - 1;
    if (type != FTW_F || n < ext || strcmp(path + n - ext, ".xplane.pb") != 0)
        return 0;
    size_t len;
    uint8_t *data = pv_test_read_file(path, &len);
    pv_model *m = NULL;
    ck_assert_int_eq(same_on_two_threads(data, len, path, &m), 0);
    ck_assert_uint_gt(m->n_events, 0);
    pv_model_free(m);
    free(data);
    n_real++;
    return 0;
}

START_TEST(test_real_profiles_same_model)
{
    PV_NEED_TESTDATA("test_real_profiles_same_model");
    n_real = 0;
    ck_assert_int_eq(nftw(pv_test_data_path("/logdirs"), compare_real, 16, FTW_PHYS), 0);
    ck_assert_uint_ge(n_real, 9);   /* SOURCES.md lists nine XSpace files */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("xspace_threads");
    TCase *t = tcase_create("threads");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_generated_same_model);
    tcase_add_test(t, test_generated_cut_or_corrupt);
    tcase_add_test(t, test_line_named_after_its_events);
    tcase_add_test(t, test_real_profiles_same_model);
    suite_add_tcase(s, t);
    return pv_test_run(s);
}
