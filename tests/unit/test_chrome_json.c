/* Unit tests of the trace JSON decoder (ingest/chrome_json/): the pieces
 * (exact times, ids), the phases on a hand-counted fixture, the roles and
 * launch links PyTorch's traces give the model, chunking,
 * gzip, the reader on a second thread, bad input, and the real PyTorch and TensorFlow traces of
 * ../shared/testdata/traces against an independent count. */
#include "ingest/chrome_json/chrome_json.h"
#include "ingest/chrome_json/cj_chunks.h"
#include "ingest/ingest.h"
#include "testutil.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- helpers ------------------------------------------------------------------ */

static pv_model *decode(const char *text, size_t len, int *rc, pv_error *err)
{
    pv_model *m = NULL;
    memset(err, 0, sizeof *err);
    *rc = pv_ingest_buffer((const uint8_t *)text, len, "t.trace.json", NULL, &m, err);
    if (*rc == 0)
        ck_assert(pv_model_is_sane(m));
    return m;
}

static pv_model *decode_ok(const char *text)
{
    int rc;
    pv_error err;
    pv_model *m = decode(text, strlen(text), &rc, &err);
    ck_assert_msg(rc == 0, "decode failed: %s", err.reason);
    return m;
}

static uint64_t find_event(const pv_model *m, const char *name)
{
    for (uint64_t e = 0; e < m->n_events; e++)
        if (strcmp(pv_model_event_name(m, e), name) == 0)
            return e;
    ck_abort_msg("no event %s", name);
    return 0;
}

static bool stat_of(const pv_model *m, uint64_t ev, const char *name, pv_stat *out)
{
    uint32_t id = pv_model_str_find(m, name);
    return id != 0 && pv_model_event_stat(m, ev, id, out);
}

static const char *stat_text(const pv_model *m, uint64_t ev, const char *name)
{
    pv_stat s;
    if (!stat_of(m, ev, name, &s))
        return NULL;
    size_t len;
    return s.type == PV_STAT_STR ? pv_model_stat_text(m, &s, &len) : NULL;
}

static int64_t stat_int(const pv_model *m, uint64_t ev, const char *name)
{
    pv_stat s;
    ck_assert_msg(stat_of(m, ev, name, &s), "no stat %s", name);
    ck_assert_int_eq(s.type, PV_STAT_I64);
    return s.v.i64;
}

static const pv_plane *plane_named(const pv_model *m, const char *name)
{
    for (uint32_t p = 0; p < m->n_planes; p++)
        if (strcmp(pv_model_str(m, m->planes[p].name), name) == 0)
            return &m->planes[p];
    return NULL;
}

static bool has_warning(const pv_model *m, const char *part)
{
    for (uint32_t i = 0; i < m->n_warnings; i++)
        if (strstr(pv_model_str(m, m->warnings[i]), part) != NULL)
            return true;
    return false;
}

/* ---- the fixture -------------------------------------------------------------- */

/* Hand count: 3 X, one B/E pair nested in another (2 events), 1 i, 2 C
 * events of 2 series each (4 events): 10 events. Processes: pid 7
 * (labelled CPU, /host:CPU) with threads 7 ("7" is the same thread), 8
 * and its counters; pid 0 (labelled GPU 0) with "stream 7"; and the Task
 * Environment of the top-level members. The first timed event is at
 * 1000.5 us, so times count from 1000 us. */
static const char fixture[] =
    "{\"traceEvents\":[\n"
    " {\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"args\":{\"name\":\"python\"}},\n"
    " {\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":7,\"args\":{\"labels\":\"CPU\"}},\n"
    " {\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},\n"
    " {\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":\"7\","
    "\"args\":{\"name\":\"main\"}},\n"
    " {\"ph\":\"X\",\"name\":\"step\",\"cat\":\"user_annotation\",\"pid\":7,\"tid\":7,"
    "\"ts\":1000.5,\"dur\":100,\"args\":{\"n\":1}},\n"
    " {\"ph\":\"X\",\"name\":\"launch\",\"cat\":\"cuda_runtime\",\"pid\":7,\"tid\":\"7\","
    "\"ts\":1010,\"dur\":5.25,\"args\":{\"correlation\":42}},\n"
    " {\"ph\":\"s\",\"id\":42,\"pid\":7,\"tid\":7,\"ts\":1010,\"cat\":\"ac2g\","
    "\"name\":\"ac2g\"},\n"
    " {\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":1020,"
    "\"dur\":3.001,\"args\":{\"correlation\":42,\"grid\":[2, 1, 1],\"block\":[128,1,1],"
    "\"registers per thread\":32,\"shared memory\":1024,\"est. achieved occupancy %\":50}},\n"
    " {\"ph\":\"f\",\"id\":42,\"pid\":0,\"tid\":\"stream 7\",\"ts\":1020,\"cat\":\"ac2g\","
    "\"name\":\"ac2g\",\"bp\":\"e\"},\n"
    " {\"ph\":\"B\",\"name\":\"outer\",\"pid\":7,\"tid\":8,\"ts\":1100},\n"
    " {\"ph\":\"B\",\"name\":\"inner\",\"pid\":7,\"tid\":8,\"ts\":1101,\"args\":{\"a\":\"x\"}},\n"
    " {\"ph\":\"E\",\"pid\":7,\"tid\":8,\"ts\":1102,\"args\":{\"b\":2}},\n"
    " {\"ph\":\"E\",\"pid\":7,\"tid\":8,\"ts\":1110},\n"
    " {\"ph\":\"i\",\"name\":\"mark\",\"pid\":7,\"tid\":8,\"ts\":1105,\"s\":\"t\"},\n"
    " {\"ph\":\"C\",\"name\":\"mem\",\"pid\":7,\"ts\":1000,\"args\":{\"used\":10,\"free\":2.5}},\n"
    " {\"ph\":\"C\",\"name\":\"mem\",\"pid\":7,\"ts\":1050,\"args\":{\"used\":12,\"free\":0.5}}\n"
    "],\"displayTimeUnit\":\"ns\",\"baseTimeNanoseconds\":1700000000000000000}\n";

/* The events of two models are the same: names, times, tracks, stats. */
static void assert_same_events(const pv_model *a, const pv_model *b)
{
    ck_assert_uint_eq(a->n_events, b->n_events);
    ck_assert_uint_eq(a->n_tracks, b->n_tracks);
    for (uint64_t e = 0; e < a->n_events; e++) {
        ck_assert_str_eq(pv_model_event_name(a, e), pv_model_event_name(b, e));
        ck_assert_int_eq(a->ev_start_ps[e], b->ev_start_ps[e]);
        ck_assert_int_eq(a->ev_dur_ps[e], b->ev_dur_ps[e]);
        pv_stat sa[16], sb[16];
        size_t na = pv_model_event_own_stats(a, e, sa, 16);
        size_t nb = pv_model_event_own_stats(b, e, sb, 16);
        ck_assert_uint_eq(na, nb);
        for (size_t k = 0; k < na && k < 16; k++) {
            ck_assert_str_eq(pv_model_str(a, sa[k].name), pv_model_str(b, sb[k].name));
            ck_assert_int_eq(sa[k].type, sb[k].type);
        }
    }
}

/* ---- pieces ------------------------------------------------------------------- */

static void assert_time(const char *text, int64_t us, int32_t ps)
{
    pv__cj_time t = {0, 0, false};
    ck_assert_msg(pv__cj_time_parse(text, strlen(text), &t), "%s did not parse", text);
    ck_assert_msg(t.us == us && t.ps == ps, "%s: %lld us %d ps", text, (long long)t.us, t.ps);
}

START_TEST(test_time_parse_exact)
{
    /* by hand: the digits after the sixth decimal are below a picosecond */
    assert_time("1712195495507783.250", 1712195495507783, 250000);
    assert_time("4.928", 4, 928000);
    assert_time("12", 12, 0);
    assert_time("1.5e3", 1500, 0);
    assert_time("15E-1", 1, 500000);
    assert_time("0.000001", 0, 1);
    assert_time("0.0000009", 0, 0);
    assert_time("-1.5", -2, 500000);
    assert_time("-3", -3, 0);
    assert_time("0", 0, 0);
    assert_time("1.623142623460111e15", 1623142623460111, 0);
    assert_time("9000000000000000000", 9000000000000000000, 0);
    pv__cj_time t;
    ck_assert(!pv__cj_time_parse("1e19", 4, &t));
    ck_assert(!pv__cj_time_parse("123456789012345678901", 21, &t));
    ck_assert(!pv__cj_time_parse("abc", 3, &t));
    ck_assert(!pv__cj_time_parse("", 0, &t));
    ck_assert(!pv__cj_time_parse("1e", 2, &t));
}
END_TEST

START_TEST(test_decimal_id)
{
    int64_t v;
    ck_assert(pv__cj_decimal_id((pv__cj_str){"25738", 5}, &v) && v == 25738);
    ck_assert(pv__cj_decimal_id((pv__cj_str){"0", 1}, &v) && v == 0);
    ck_assert(pv__cj_decimal_id((pv__cj_str){"-7", 2}, &v) && v == -7);
    ck_assert(!pv__cj_decimal_id((pv__cj_str){"025", 3}, &v));
    ck_assert(!pv__cj_decimal_id((pv__cj_str){"-0", 2}, &v));
    ck_assert(!pv__cj_decimal_id((pv__cj_str){"1.0", 3}, &v));
    ck_assert(!pv__cj_decimal_id((pv__cj_str){"stream 7", 8}, &v));
    ck_assert(!pv__cj_decimal_id((pv__cj_str){"", 0}, &v));
    ck_assert(!pv__cj_decimal_id((pv__cj_str){"99999999999999999999", 20}, &v));
}
END_TEST

/* ---- the phases ------------------------------------------------------------------ */

START_TEST(test_decode_fixture_counts)
{
    pv_model *m = decode_ok(fixture);
    ck_assert_uint_eq(m->n_events, 10);
    ck_assert_uint_eq(m->n_planes, 3);
    ck_assert_uint_eq(m->n_tracks, 4);
    const pv_plane *host = plane_named(m, "/host:CPU");
    const pv_plane *gpu = plane_named(m, "/device:GPU:0");
    ck_assert_ptr_nonnull(host);
    ck_assert_ptr_nonnull(gpu);
    ck_assert_ptr_nonnull(plane_named(m, "Task Environment"));
    ck_assert_int_eq(host->kind, PV_PLANE_HOST);
    ck_assert_int_eq(gpu->kind, PV_PLANE_GPU);
    ck_assert_int_eq(gpu->device_ordinal, 0);
    ck_assert_uint_eq(host->n_tracks, 3);
    ck_assert_uint_eq(gpu->n_tracks, 1);
    /* thread 7 is one track whether its tid is 7 or "7", named by its
     * thread_name */
    uint64_t step = find_event(m, "step"), launch = find_event(m, "launch");
    uint32_t t = pv_model_event_track(m, step);
    ck_assert_uint_eq(t, pv_model_event_track(m, launch));
    ck_assert_str_eq(pv_model_str(m, m->tracks[t].display_name), "main");
    ck_assert_uint_eq(m->n_warnings, 0);
    pv_model_free(m);
}
END_TEST

START_TEST(test_decode_fixture_times)
{
    pv_model *m = decode_ok(fixture);
    /* times count from 1000 us: 1000.5 us is 500000 ps */
    uint64_t step = find_event(m, "step");
    ck_assert_int_eq(m->ev_start_ps[step], 500000);
    ck_assert_int_eq(m->ev_dur_ps[step], 100000000);
    uint64_t launch = find_event(m, "launch");
    ck_assert_int_eq(m->ev_start_ps[launch], 10000000);
    ck_assert_int_eq(m->ev_dur_ps[launch], 5250000);
    uint64_t k = find_event(m, "k");
    ck_assert_int_eq(m->ev_start_ps[k], 20000000);
    ck_assert_int_eq(m->ev_dur_ps[k], 3001000);
    /* B/E: 1100 to 1110 and 1101 to 1102, the inner one with both args */
    uint64_t outer = find_event(m, "outer"), inner = find_event(m, "inner");
    ck_assert_int_eq(m->ev_start_ps[outer], 100000000);
    ck_assert_int_eq(m->ev_dur_ps[outer], 10000000);
    ck_assert_int_eq(m->ev_start_ps[inner], 101000000);
    ck_assert_int_eq(m->ev_dur_ps[inner], 1000000);
    ck_assert_uint_eq(m->ev_depth[inner], 1);
    ck_assert_str_eq(stat_text(m, inner, "a"), "x");
    ck_assert_int_eq(stat_int(m, inner, "b"), 2);
    uint64_t mark = find_event(m, "mark");
    ck_assert_int_eq(m->ev_start_ps[mark], 105000000);
    ck_assert_int_eq(m->ev_dur_ps[mark], 0);
    /* the profile's start: baseTimeNanoseconds + 1000 us + the first
     * event (0); its stop: + the last end, 110 us after 1000 us */
    const pv_plane *env = plane_named(m, "Task Environment");
    bool start = false, stop = false;
    for (uint32_t i = 0; i < env->n_stats; i++) {
        const pv_stat *s = &m->stats[env->first_stat + i];
        const char *name = pv_model_str(m, s->name);
        if (strcmp(name, "profile_start_time") == 0) {
            ck_assert_uint_eq(s->v.u64, 1700000000001000000ull);
            start = true;
        } else if (strcmp(name, "profile_stop_time") == 0) {
            ck_assert_uint_eq(s->v.u64, 1700000000001110000ull);
            stop = true;
        }
    }
    ck_assert(start && stop);
    pv_model_free(m);
}
END_TEST

START_TEST(test_decode_fixture_kernel_and_flows)
{
    pv_model *m = decode_ok(fixture);
    uint64_t k = find_event(m, "k"), launch = find_event(m, "launch");
    const pv_event_extra *xk = pv_model_event_extra(m, k);
    ck_assert_ptr_nonnull(xk);
    const pv_kernel_details *kd = pv_model_kernel(m, xk);
    ck_assert_ptr_nonnull(kd);
    ck_assert_uint_eq(kd->registers_per_thread, 32);
    ck_assert_uint_eq(kd->static_shmem_bytes, 1024);
    ck_assert_uint_eq(kd->grid[0], 2);
    ck_assert_uint_eq(kd->block[0], 128);
    ck_assert(kd->occupancy_pct == 50.0);
    /* the ac2g flow binds s to the launch and f (bp "e") to the kernel */
    const pv_event_extra *xl = pv_model_event_extra(m, launch);
    ck_assert_ptr_nonnull(xl);
    ck_assert(xk->flags & PV_EXTRA_FLOW);
    ck_assert(xl->flags & PV_EXTRA_FLOW);
    ck_assert_uint_eq(xl->flow >> 2, xk->flow >> 2);
    ck_assert_uint_eq(xl->flow & 3, 2);
    ck_assert_uint_eq(xk->flow & 3, 1);
    /* a kernel of a ROCm trace, with no launch args, is still a kernel */
    pv_model *r =
        decode_ok("[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"rk\",\"ts\":1,\"dur\":2}]");
    const pv_kernel_details *rk = pv_model_kernel(r, pv_model_event_extra(r, 0));
    ck_assert_ptr_nonnull(rk);
    ck_assert_uint_eq(rk->grid[0], 0);
    ck_assert_uint_eq(rk->block[0], 0);
    pv_model_free(r);
    /* the step holds the launch's time but is not its innermost slice */
    const pv_event_extra *xs = pv_model_event_extra(m, find_event(m, "step"));
    ck_assert(xs == NULL || !(xs->flags & PV_EXTRA_FLOW));
    pv_model_free(m);
}
END_TEST

START_TEST(test_decode_fixture_counters)
{
    pv_model *m = decode_ok(fixture);
    uint32_t counters = UINT32_MAX;
    for (uint32_t t = 0; t < m->n_tracks; t++)
        if (m->tracks[t].kind == PV_TRACK_COUNTERS)
            counters = t;
    ck_assert_uint_ne(counters, UINT32_MAX);
    const pv_track *t = &m->tracks[counters];
    ck_assert_uint_eq(t->n_events, 4);
    uint64_t used = find_event(m, "mem used");
    ck_assert_int_eq(m->ev_start_ps[used], 0);
    ck_assert_int_eq(stat_int(m, used, "value"), 10);
    uint64_t fr = find_event(m, "mem free");
    pv_stat s;
    ck_assert(stat_of(m, fr, "value", &s));
    ck_assert_int_eq(s.type, PV_STAT_F64);
    ck_assert(s.v.f64 == 2.5);
    pv_model_free(m);
}
END_TEST

START_TEST(test_decode_args_types)
{
    pv_model *m = decode_ok(
        "[{\"ph\":\"X\",\"name\":\"e\",\"ts\":1,\"dur\":1,\"args\":{"
        "\"i\":-5,\"u\":18446744073709551615,\"d\":0.25,\"big\":1e400,\"s\":\"caf\\u00e9\\n\","
        "\"pair\":\"\\ud83d\\ude00\",\"nul\":\"a\\u0000b\",\"t\":true,\"f\":false,\"z\":null,"
        "\"arr\":[ [1, 2], { \"k\" : \"v w\" } ],\"nan\":NaN}}]");
    uint64_t e = find_event(m, "e");
    ck_assert_int_eq(stat_int(m, e, "i"), -5);
    pv_stat s;
    ck_assert(stat_of(m, e, "u", &s) && s.type == PV_STAT_U64 && s.v.u64 == UINT64_MAX);
    ck_assert(stat_of(m, e, "d", &s) && s.type == PV_STAT_F64 && s.v.f64 == 0.25);
    ck_assert(stat_of(m, e, "big", &s) && s.type == PV_STAT_F64 && s.v.f64 > 1e308);
    ck_assert(stat_of(m, e, "nan", &s) && s.type == PV_STAT_F64 && s.v.f64 != s.v.f64);
    ck_assert_str_eq(stat_text(m, e, "s"), "caf\xc3\xa9\n");
    ck_assert_str_eq(stat_text(m, e, "pair"), "\xf0\x9f\x98\x80");
    ck_assert_str_eq(stat_text(m, e, "nul"), "a\xef\xbf\xbd" "b");
    ck_assert_str_eq(stat_text(m, e, "t"), "true");
    ck_assert_str_eq(stat_text(m, e, "f"), "false");
    ck_assert_str_eq(stat_text(m, e, "z"), "null");
    ck_assert_str_eq(stat_text(m, e, "arr"), "[[1,2],{\"k\":\"v w\"}]");
    pv_model_free(m);
}
END_TEST

START_TEST(test_decode_ids_and_names)
{
    /* string pids and tids, a pid that is no number, a process named
     * like a plane (TensorFlow's trace JSON) */
    pv_model *m = decode_ok(
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":\"Traces\",\"tid\":\"PyTorch\","
        "\"ts\":5,\"dur\":1},{\"ph\":\"X\",\"name\":\"b\",\"pid\":3,\"tid\":\"x\",\"ts\":5,"
        "\"dur\":1},{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3,"
        "\"args\":{\"name\":\"/device:GPU:2\"}},{\"ph\":\"X\",\"name\":\"c\",\"pid\":4,\"tid\":1,"
        "\"ts\":5,\"dur\":1},{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4,"
        "\"args\":{\"name\":\"Renderer\"}},{\"ph\":\"X\",\"name\":\"d\",\"pid\":5,\"tid\":1,"
        "\"ts\":5,\"dur\":1},{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":5,"
        "\"args\":{\"name\":\"Renderer\"}}]}");
    ck_assert_ptr_nonnull(plane_named(m, "Traces"));
    const pv_plane *g = plane_named(m, "/device:GPU:2");
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(g->device_ordinal, 2);
    ck_assert_ptr_nonnull(plane_named(m, "Renderer"));
    ck_assert_ptr_nonnull(plane_named(m, "Renderer (pid 5)"));
    pv_model_free(m);
}
END_TEST

START_TEST(test_decode_unmatched_and_far)
{
    pv_model *m = decode_ok(
        "[{\"ph\":\"E\",\"ts\":1},{\"ph\":\"B\",\"name\":\"open\",\"ts\":2},"
        "{\"ph\":\"X\",\"name\":\"x\",\"ts\":10,\"dur\":5},"
        "{\"ph\":\"X\",\"name\":\"far\",\"ts\":1e16,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"nots\",\"dur\":1},{\"ph\":\"b\",\"ts\":3,\"id\":1},"
        "{\"ph\":\"X\",\"name\":\"neg\",\"ts\":4,\"dur\":-2}]");
    ck_assert_uint_eq(m->n_events, 3);
    /* the open B runs to the trace's end, 15 us */
    uint64_t open = find_event(m, "open");
    ck_assert_int_eq(m->ev_dur_ps[open], 13000000);
    ck_assert_int_eq(m->ev_dur_ps[find_event(m, "neg")], 0);
    ck_assert(has_warning(m, "1 ends (E) had no begin"));
    ck_assert(has_warning(m, "1 begins (B) had no end"));
    ck_assert(has_warning(m, "1 events lie more than 100 days"));
    ck_assert(has_warning(m, "1 events without a time"));
    ck_assert(has_warning(m, "phases 'b'"));
    ck_assert(has_warning(m, "negative duration"));
    pv_model_free(m);
}
END_TEST

START_TEST(test_decode_flow_next_and_v2)
{
    /* an f without bp "e" binds to the next slice; flow v2 ids pair up */
    pv_model *m = decode_ok(
        "[{\"ph\":\"X\",\"name\":\"src\",\"tid\":1,\"ts\":0,\"dur\":10},"
        "{\"ph\":\"s\",\"id\":\"0x1\",\"cat\":\"c\",\"tid\":1,\"ts\":5},"
        "{\"ph\":\"f\",\"id\":\"0x1\",\"cat\":\"c\",\"tid\":2,\"ts\":20},"
        "{\"ph\":\"X\",\"name\":\"before\",\"tid\":2,\"ts\":15,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"after\",\"tid\":2,\"ts\":30,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"v2a\",\"tid\":3,\"ts\":0,\"dur\":1,\"bind_id\":9,"
        "\"flow_out\":true},"
        "{\"ph\":\"X\",\"name\":\"v2b\",\"tid\":3,\"ts\":5,\"dur\":1,\"bind_id\":9,"
        "\"flow_in\":true}]");
    const pv_event_extra *s = pv_model_event_extra(m, find_event(m, "src"));
    const pv_event_extra *a = pv_model_event_extra(m, find_event(m, "after"));
    const pv_event_extra *b = pv_model_event_extra(m, find_event(m, "before"));
    ck_assert(s != NULL && a != NULL && (s->flags & PV_EXTRA_FLOW) && (a->flags & PV_EXTRA_FLOW));
    ck_assert_uint_eq(s->flow >> 2, a->flow >> 2);
    ck_assert(b == NULL || !(b->flags & PV_EXTRA_FLOW));
    const pv_event_extra *x = pv_model_event_extra(m, find_event(m, "v2a"));
    const pv_event_extra *y = pv_model_event_extra(m, find_event(m, "v2b"));
    ck_assert(x != NULL && y != NULL);
    ck_assert_uint_eq(x->flow >> 2, y->flow >> 2);
    ck_assert_uint_ne(x->flow >> 2, s->flow >> 2);
    ck_assert_uint_eq(x->flow & 3, 2);
    ck_assert_uint_eq(y->flow & 3, 1);
    pv_model_free(m);
    /* a counter without a name (found by the fuzzer) */
    m = decode_ok("[{\"ph\":\"C\",\"ts\":3,\"args\":{\"a\":1}}]");
    ck_assert_str_eq(pv_model_event_name(m, 0), " a");
    pv_model_free(m);
    /* flows and no slice at all (found by the fuzzer) */
    m = decode_ok("[{\"ph\":\"s\",\"id\":1,\"ts\":1},{\"ph\":\"f\",\"id\":1,\"ts\":2}]");
    ck_assert_uint_eq(m->n_events, 0);
    ck_assert(has_warning(m, "2 flow events had no slice to bind to"));
    pv_model_free(m);
}
END_TEST

/* Kineto's [memory] instants read as memory events of an allocator named
 * after the device, shown as [memory]; by hand: two allocations then a
 * release on GPU 0 (peak 3072 after the second), one on the CPU. */
START_TEST(test_decode_kineto_memory)
{
    pv_model *m = decode_ok(
        "[{\"ph\":\"i\",\"name\":\"[memory]\",\"s\":\"t\",\"ts\":1,\"args\":{\"Bytes\":1024,"
        "\"Total Allocated\":1024,\"Total Reserved\":2097152,\"Addr\":4096,\"Device Type\":1,"
        "\"Device Id\":0}},"
        "{\"ph\":\"i\",\"name\":\"[memory]\",\"s\":\"t\",\"ts\":2,\"args\":{\"Bytes\":2048,"
        "\"Total Allocated\":3072,\"Addr\":8192,\"Device Type\":1,\"Device Id\":0}},"
        "{\"ph\":\"i\",\"name\":\"[memory]\",\"s\":\"t\",\"ts\":3,\"args\":{\"Bytes\":-1024,"
        "\"Total Allocated\":2048,\"Addr\":4096,\"Device Type\":1,\"Device Id\":0}},"
        "{\"ph\":\"i\",\"name\":\"[memory]\",\"s\":\"t\",\"ts\":4,\"args\":{\"Bytes\":16,"
        "\"Total Allocated\":16,\"Device Type\":0,\"Device Id\":-1}}]");
    ck_assert_uint_eq(m->n_events, 4);
    pv_memory_details md;
    uint64_t first = 0, release = 2, cpu = 3;
    ck_assert_str_eq(pv_model_event_name(m, first), "[memory]");
    ck_assert(pv_model_event_memory(m, first, &md));
    ck_assert_str_eq(pv_model_str(m, md.memory_id), "GPU 0");
    ck_assert_int_eq(md.bytes_allocated, 1024);
    ck_assert_int_eq(md.requested_bytes, 1024);
    ck_assert_uint_eq(md.address, 4096);
    ck_assert(pv_model_event_extra(m, first)->flags & PV_EXTRA_MEM_ALLOC);
    ck_assert(pv_model_event_memory(m, release, &md));
    ck_assert(pv_model_event_extra(m, release)->flags & PV_EXTRA_MEM_FREE);
    ck_assert_int_eq(md.bytes_allocated, 2048);
    ck_assert_int_eq(md.peak_bytes_in_use, 3072);
    ck_assert_int_eq(md.allocation_bytes, 1024);
    ck_assert(pv_model_event_memory(m, cpu, &md));
    ck_assert_str_eq(pv_model_str(m, md.memory_id), "CPU");
    /* Kineto's own args stay beside them */
    ck_assert_int_eq(stat_int(m, first, "Total Reserved"), 2097152);
    pv_model_free(m);
}
END_TEST

/* ---- chunks, gzip -------------------------------------------------------------- */

START_TEST(test_decode_chunks_same_model)
{
    pv_model *whole = decode_ok(fixture);
    for (size_t step = 1; step <= 19; step++) {
        int rc;
        pv_error err;
        pv_model *m =
            pv__cj_decode_chunks(fixture, sizeof fixture - 1, step, "t.trace.json", &rc, &err);
        ck_assert_msg(rc == 0, "step %zu: %s", step, err.reason);
        assert_same_events(whole, m);
        ck_assert_uint_eq(m->n_warnings, 0);
        pv_model_free(m);
    }
    pv_model_free(whole);
}
END_TEST

/* gzip'd text[0..len) appended to out (a gzip member). */
static size_t gzip_member(const char *text, size_t len, uint8_t *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (Bytef *)text;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t n = z.total_out;
    deflateEnd(&z);
    return n;
}

START_TEST(test_decode_gzip)
{
    pv_model *whole = decode_ok(fixture);
    size_t len = sizeof fixture - 1;
    uint8_t gz[8192];
    /* two members, split inside an event */
    size_t n1 = gzip_member(fixture, 300, gz, sizeof gz);
    size_t n = n1 + gzip_member(fixture + 300, len - 300, gz + n1, sizeof gz - n1);
    ck_assert(pv_format_sniff(gz, n) != NULL);
    int rc;
    pv_error err;
    pv_model *m = decode((const char *)gz, n, &rc, &err);
    ck_assert_msg(rc == 0, "%s", err.reason);
    assert_same_events(whole, m);
    pv_model_free(m);
    /* cut off inside the second member: what was read, and a warning */
    m = decode((const char *)gz, n1 + (n - n1) / 2, &rc, &err);
    ck_assert_msg(rc == 0, "%s", err.reason);
    ck_assert(has_warning(m, "the gzip stream ends early"));
    ck_assert_uint_lt(m->n_events, whole->n_events);
    pv_model_free(m);
    /* corrupt inside the deflate data */
    gz[n1 / 2] ^= 0xff;
    gz[n1 / 2 + 1] ^= 0x5a;
    m = decode((const char *)gz, n, &rc, &err);
    ck_assert_int_eq(rc, PV_EFORMAT);
    ck_assert_ptr_null(m);
    ck_assert_str_eq(err.path, "t.trace.json");
    pv_model_free(whole);
}
END_TEST

/* ---- bad input ------------------------------------------------------------------ */

START_TEST(test_decode_truncated_everywhere)
{
    size_t len = sizeof fixture - 1;
    const char *events = strstr(fixture, "[") + 1;
    for (size_t cut = 1; cut < len - 1; cut++) {
        int rc;
        pv_error err;
        pv_model *m = decode(fixture, cut, &rc, &err);
        if (fixture + cut < events) {
            ck_assert_msg(rc == PV_EFORMAT, "cut at %zu", cut);
            ck_assert(strstr(err.reason, "traceEvents") != NULL);
            continue;
        }
        ck_assert_msg(rc == 0, "cut at %zu: %s", cut, err.reason);
        ck_assert(m->n_events <= 10);
        ck_assert_msg(has_warning(m, "the trace is cut off at byte"), "cut at %zu", cut);
        pv_model_free(m);
    }
    /* cut just after the fifth event's '}' (the step X): the step, and
     * nothing after it */
    const char *after = strstr(fixture, "\"n\":1}}") + 7;
    int rc;
    pv_error err;
    pv_model *m = decode(fixture, (size_t)(after - fixture), &rc, &err);
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(m->n_events, 1);
    ck_assert_str_eq(pv_model_event_name(m, 0), "step");
    pv_model_free(m);
    /* a bare array may lack its ']' */
    m = decode_ok("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1},\n");
    ck_assert_uint_eq(m->n_events, 1);
    ck_assert_uint_eq(m->n_warnings, 0);
    pv_model_free(m);
}
END_TEST

static void assert_refused(const char *text, int code, const char *reason_part, uint64_t offset)
{
    int rc;
    pv_error err;
    pv_model *m = decode(text, strlen(text), &rc, &err);
    ck_assert_msg(rc == code, "%s: rc %d", text, rc);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(err.reason, reason_part) != NULL, "%s: %s", text, err.reason);
    ck_assert_str_eq(err.path, "t.trace.json");
    if (offset != PV_NO_OFFSET)
        ck_assert_uint_eq(err.offset, offset);
}

START_TEST(test_decode_garbage)
{
    assert_refused("{\"traceEvents\":[{\"ph\":\"X\" \"name\":1}]}", PV_EFORMAT,
                   "a ',' or '}' is missing in an event", 26);
    assert_refused("{\"a\":1}", PV_EFORMAT, "no traceEvents", PV_NO_OFFSET);
    assert_refused("[{\"ph\":\"X\",\"name\":\"\\q\"}]", PV_EFORMAT, "invalid escape", 19);
    assert_refused("{\"traceEvents\":[{\"ts\":12x}]}", PV_EFORMAT, "a ',' or '}' is missing", 24);
    assert_refused("[{\"ts\":\"soon\"}]", PV_EFORMAT, "time is not a number", 7);
    assert_refused("[{\"args\":{\"a\":[}]}}]", PV_EFORMAT, "closing bracket", 15);
    assert_refused("[{\"ph\":\"X\"} {\"ph\":\"X\"}]", PV_EFORMAT, "a ',' or ']' is missing",
                   12);
    assert_refused("[{\"ph\":tru}]", PV_EFORMAT, "unexpected text", 7);
    /* not a trace at all: the sniffer says so */
    assert_refused("hello", PV_EFORMAT, "not a supported profile format", 0);
    /* gzip's magic, then nothing that inflates (strlen stops at the 0) */
    assert_refused("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage", PV_EFORMAT,
                   "gzip data that is corrupt or holds no supported profile format", 0);
    /* text after the trace is left with a warning; a trailing comma is
     * read */
    pv_model *t = decode_ok("[{\"ph\":\"X\",\"ts\":1},]x");
    ck_assert_uint_eq(t->n_events, 1);
    ck_assert(has_warning(t, "text after the end of the trace at byte 20 was left out"));
    pv_model_free(t);
    /* elements that are no events are skipped */
    pv_model *m = decode_ok("[1,\"x\",{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1},null]");
    ck_assert_uint_eq(m->n_events, 1);
    pv_model_free(m);
}
END_TEST

START_TEST(test_decode_deeply_nested)
{
    size_t depth = 100000;
    char *text = malloc(depth + 64);
    size_t n = (size_t)sprintf(text, "[{\"args\":{\"a\":");
    memset(text + n, '[', depth);
    strcpy(text + n + depth, "]}}]");
    assert_refused(text, PV_EFORMAT, "nested too deeply", n + PV__CJ_MAX_DEPTH);
    free(text);
}
END_TEST

START_TEST(test_decode_huge_string)
{
    /* one event holding a string past the 64 MiB an event may have */
    size_t big = PV__CJ_MAX_EVENT_BYTES + 16;
    char *text = malloc(big + 64);
    size_t n = (size_t)sprintf(text, "[{\"ph\":\"X\",\"ts\":1,\"name\":\"");
    memset(text + n, 'a', big);
    strcpy(text + n + big, "\"}]");
    size_t len = n + big + 3;
    int rc;
    pv_error err;
    pv_model *m = pv__cj_decode_chunks(text, len, (size_t)1 << 20, "t.trace.json", &rc, &err);
    ck_assert_int_eq(rc, PV_ETOOBIG);
    ck_assert_ptr_null(m);
    ck_assert(strstr(err.reason, "larger than 64 MiB") != NULL);
    m = decode(text, len, &rc, &err);
    ck_assert_int_eq(rc, PV_ETOOBIG);
    ck_assert(strstr(err.reason, "larger than 64 MiB") != NULL);
    ck_assert_uint_eq(err.offset, 1);
    free(text);
}
END_TEST

/* ---- the reader on a second thread (cj_pipe.c) ------------------------------------ */

/* A trace of every kind of piece the reader hands the parser, past the
 * size that puts the reader on its own thread: top-level members before
 * and after the events, escaped strings (unescaped into scratch), B/E
 * pairs, flows, kernels, [memory] instants, counters, thread names. */
static char *pipe_trace(size_t *len)
{
    size_t cap = (size_t)24 << 20, n = 0;
    char *t = malloc(cap);
    n += (size_t)sprintf(t + n, "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,"
                                "\"name\":\"A\\u00e9\"}],\"traceEvents\":[\n");
    for (int i = 0; n < cap - ((size_t)1 << 20); i++) {
        long long ts = 1700000000000000LL + 20LL * i;
        n += (size_t)sprintf(
            t + n,
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\\u00e9 %d\",\"pid\":7,\"tid\":7,"
            "\"ts\":%lld.%03d,\"dur\":9.5,\"args\":{\"External id\":%d,\"Input Dims\":[[1, 2], "
            "[3]],\"s\":\"a\\\"b\"}},\n"
            "{\"ph\":\"B\",\"name\":\"outer\",\"pid\":7,\"tid\":8,\"ts\":%lld},\n"
            "{\"ph\":\"E\",\"pid\":7,\"tid\":8,\"ts\":%lld.5,\"args\":{\"b\":%d}},\n"
            "{\"ph\":\"s\",\"id\":%d,\"pid\":7,\"tid\":7,\"ts\":%lld,\"cat\":\"ac2g\","
            "\"name\":\"ac2g\"},\n"
            "{\"ph\":\"X\",\"name\":\"k%d\",\"cat\":\"kernel\",\"pid\":0,\"tid\":\"stream 7\","
            "\"ts\":%lld.25,\"dur\":3.001,\"args\":{\"correlation\":%d,\"grid\":[2, 1, 1],"
            "\"block\":[128,1,1],\"registers per thread\":32,\"shared memory\":1024}},\n"
            "{\"ph\":\"f\",\"id\":%d,\"pid\":0,\"tid\":\"stream 7\",\"ts\":%lld.25,"
            "\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
            "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":7,\"tid\":7,\"ts\":%lld,"
            "\"args\":{\"Bytes\":%d,\"Total Allocated\":%d,\"Addr\":1,\"Device Id\":0,"
            "\"Device Type\":1}},\n"
            "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":7,\"ts\":%lld,\"args\":{\"used\":%d}},\n"
            "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":%d,\"args\":{\"name\":"
            "\"t%d\"}},\n",
            i % 50, ts, i % 1000, i, ts + 1, ts + 2, i, i, ts + 1, i, ts + 3, i, i, ts + 3, ts + 4,
            i % 2 ? 64 : -64, 64 * (i % 7), ts + 5, i % 13, 9 + i % 3, i % 5);
    }
    n += (size_t)sprintf(t + n, "{}],\"traceName\":\"x\\u00e9\",\"displayTimeUnit\":\"ns\"}\n");
    *len = n;
    return t;
}

/* text[0..len) decoded as one window (read on a second thread when that
 * pays), as pv__cj_decode_chunks decodes it in chunks on one. */
static pv_model *decode_window(const char *text, size_t len, int *rc, pv_error *err)
{
    pv_ingest_src src = {(const uint8_t *)text, len, "t.trace.json", NULL, false};
    pv_model_builder *b = pv_builder_new();
    memset(err, 0, sizeof *err);
    *rc = pv__cj_decode_text(&src, src.data, len, NULL, NULL, (uint64_t)1 << 34, b, err);
    pv_model *m = NULL;
    if (*rc == 0)
        *rc = pv_builder_finish(b, &m, err);
    else
        pv_builder_free(b);
    return m;
}

/* The value of a stat as its type holds it (a string id fills half the
 * union; the rest is whatever was there). */
static uint64_t stat_value(const pv_stat *st)
{
    return st->type == PV_STAT_STR || st->type == PV_STAT_BYTES ? st->v.str : st->v.u64;
}

/* Both models hold the same: strings (so the same ids), planes, tracks,
 * metadata, events with their columns, stats, warnings. */
static void assert_same_model(const pv_model *a, const pv_model *b)
{
    assert_same_events(a, b);
    ck_assert_uint_eq(a->n_strings, b->n_strings);
    for (uint32_t i = 0; i < a->n_strings; i++)
        ck_assert_str_eq(a->strings[i], b->strings[i]);
    ck_assert_uint_eq(a->n_planes, b->n_planes);
    for (uint32_t i = 0; i < a->n_planes; i++) {
        const pv_plane *x = &a->planes[i], *y = &b->planes[i];
        ck_assert(x->id == y->id && x->name == y->name && x->kind == y->kind &&
                  x->first_track == y->first_track && x->n_tracks == y->n_tracks &&
                  x->first_stat == y->first_stat && x->n_stats == y->n_stats);
    }
    for (uint32_t i = 0; i < a->n_tracks; i++) {
        const pv_track *x = &a->tracks[i], *y = &b->tracks[i];
        ck_assert(x->plane == y->plane && x->kind == y->kind && x->line_id == y->line_id &&
                  x->name == y->name && x->display_name == y->display_name &&
                  x->first_event == y->first_event && x->n_events == y->n_events &&
                  x->n_depths == y->n_depths);
    }
    ck_assert_uint_eq(a->n_metas, b->n_metas);
    for (uint32_t i = 0; i < a->n_metas; i++) {
        const pv_event_meta *x = &a->metas[i], *y = &b->metas[i];
        ck_assert(x->id == y->id && x->plane == y->plane && x->name == y->name &&
                  x->display_name == y->display_name && x->first_stat == y->first_stat &&
                  x->n_stats == y->n_stats);
    }
    for (uint64_t e = 0; e < a->n_events; e++) {
        ck_assert(a->ev_meta[e] == b->ev_meta[e] && a->ev_depth[e] == b->ev_depth[e] &&
                  a->ev_group[e] == b->ev_group[e] && a->ev_extra[e] == b->ev_extra[e]);
        ck_assert(a->ev_stat_off[e] == b->ev_stat_off[e]);
    }
    ck_assert_uint_eq(a->n_stats, b->n_stats);
    for (uint64_t i = 0; i < a->n_stats; i++) {
        const pv_stat *x = &a->stats[i], *y = &b->stats[i];
        ck_assert(x->name == y->name && x->type == y->type && stat_value(x) == stat_value(y));
    }
    ck_assert_uint_eq(a->n_warnings, b->n_warnings);
    for (uint32_t i = 0; i < a->n_warnings; i++)
        ck_assert_uint_eq(a->warnings[i], b->warnings[i]);
    ck_assert(a->n_extras == b->n_extras && a->n_kernels == b->n_kernels &&
              a->n_groups == b->n_groups && a->min_ps == b->min_ps && a->max_ps == b->max_ps);
}

START_TEST(test_decode_pipe_same_model)
{
    size_t len;
    char *text = pipe_trace(&len);
    /* where this process may run on one core only, both sides read on
     * one thread and the comparison is of the serial reader with itself */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2)
        ck_assert(pv__cj_pipe_worth(len));
    int rc;
    pv_error err;
    pv_model *piped = decode_window(text, len, &rc, &err);
    ck_assert_msg(rc == 0, "%s", err.reason);
    pv_model *serial = pv__cj_decode_chunks(text, len, (size_t)1 << 20, "t.trace.json", &rc, &err);
    ck_assert_msg(rc == 0, "%s", err.reason);
    /* 9 pieces a round, of which the M is no event and the two flow
     * points bind to slices: 6 events a round, 4 of them counted here */
    ck_assert_uint_gt(serial->n_events, 100000);
    ck_assert_msg(serial->n_warnings == 0, "%s", pv_model_str(serial, serial->warnings[0]));
    assert_same_model(serial, piped);
    pv_model_free(piped);
    pv_model_free(serial);

    /* cut off inside an event past the first batches: the same events and
     * the same warning */
    size_t cut = len * 2 / 3;
    piped = decode_window(text, cut, &rc, &err);
    ck_assert_msg(rc == 0, "%s", err.reason);
    serial = pv__cj_decode_chunks(text, cut, (size_t)1 << 20, "t.trace.json", &rc, &err);
    ck_assert_msg(rc == 0, "%s", err.reason);
    ck_assert(has_warning(piped, "the trace is cut off"));
    assert_same_model(serial, piped);
    pv_model_free(piped);
    pv_model_free(serial);

    /* a bad byte in the middle: the same error at the same offset */
    char *bad = strstr(text + len / 2, "\"ph\"");
    *bad = '#';
    pv_error err2;
    int rc2;
    piped = decode_window(text, len, &rc, &err);
    serial = pv__cj_decode_chunks(text, len, (size_t)1 << 20, "t.trace.json", &rc2, &err2);
    ck_assert_ptr_null(piped);
    ck_assert_ptr_null(serial);
    ck_assert_int_eq(rc, PV_EFORMAT);
    ck_assert_int_eq(rc2, PV_EFORMAT);
    ck_assert_uint_eq(err.offset, (uint64_t)(bad - text));
    ck_assert_uint_eq(err2.offset, err.offset);
    ck_assert_str_eq(err.reason, err2.reason);
    free(text);
}
END_TEST

/* ---- real traces ----------------------------------------------------------------- */

typedef struct real_trace {
    const char *path;          /* under PV_TESTDATA/traces */
    uint64_t x, i;             /* events by phase */
    uint64_t kernels;          /* X events of cat kernel / Kernel */
    uint64_t kernel_ps;        /* their durations, summed exactly */
} real_trace;

/* Counted by a program independent of profview, tools/reference's
 * count_trace.py (Python's json with decimals, so durations stay exact):
 *   python3 tools/reference/count_trace.py $(find ../shared/testdata/traces -name '*.gz')
 * Model events are the X and i events (these traces have no B, E or C);
 * s, f and M are not events of their own. */
static const real_trace real[] = {
    {"hta/amd_mi250/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 113, 2, 14, 110881000},
    {"hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 7480, 2, 0, 0},
    {"hta/critical_path_alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 868, 2, 79,
     10692000000},
    {"hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz", 2324, 3, 0, 0},
    {"hta/mtia_inference/mtia_inference_rank_0.json.gz", 14179, 2, 0, 0},
    {"hta/negative_queue_length/rank0.json.gz", 67217, 2, 6080, 401445000000},
    {"hta/ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 45420, 2, 4350,
     468153602000},
    {"hta/sampled_multi_rank/sampled_rank-0.json.gz", 4811, 0, 1154, 606519000000},
    {"hta/sampled_multi_rank/sampled_rank-1.json.gz", 4676, 0, 1104, 651026000000},
    {"hta/trace_diff_control/control.json.gz", 74937, 2, 8568, 446813000000},
    {"hta/triton_example/triton_example.json.gz", 8, 2, 1, 1760000},
    {"kineto_resnet50_autograd_api_num_workers_0_2021-01/worker0.pt.trace.json.gz", 59423, 2, 9329,
     973041000000},
    {"kineto_resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", 44666, 12840, 8772,
     591532000000},
    {"kineto_resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz", 44666, 12840, 8772,
     591209000000},
    {"kineto_resnet50_num_workers_0_2020-12_array_format/worker0.pt.trace.json.gz", 63166, 1, 9538,
     635237000000},
    {"tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz", 2060, 238, 60, 307197000},
    {"tracelens/mi210_gpu_only_trace.json.gz", 1194, 2, 562, 5343422000},
    {"tracelens/mi300_ddp_resnet18_train.json.gz", 20802, 212, 2360, 358908852000},
    {"tracelens/torch_compile_triton_trace.json.gz", 115, 2, 12, 12549021000},
    {"tf_trace_viewer_json/ip-172-31-19-241.trace.json", 1663, 0, 0, 0},
};

/* Whether ev's metadata says cat kernel (Kineto's older "Kernel" too). */
static bool is_kernel(const pv_model *m, uint64_t ev, uint32_t cat_id)
{
    const pv_event_meta *meta = &m->metas[m->ev_meta[ev]];
    for (uint32_t i = 0; i < meta->n_stats; i++) {
        const pv_stat *s = &m->stats[meta->first_stat + i];
        if (s->name == cat_id && s->type == PV_STAT_STR)
            return strcasecmp(pv_model_str(m, s->v.str), "kernel") == 0;
    }
    return false;
}

/* Events sharing a flow that both carry Kineto's "correlation" carry the
 * same one: the binding found the launch and its kernel. */
static void assert_flows_consistent(const pv_model *m, uint64_t *n_flow_events)
{
    uint32_t corr = pv_model_str_find(m, "correlation");
    size_t cap = 1024, n = 0;
    uint64_t (*pairs)[2] = malloc(cap * sizeof *pairs);
    for (uint64_t e = 0; e < m->n_events; e++) {
        const pv_event_extra *x = pv_model_event_extra(m, e);
        pv_stat s;
        if (x == NULL || !(x->flags & PV_EXTRA_FLOW))
            continue;
        (*n_flow_events)++;
        if (corr == 0 || !pv_model_event_stat(m, e, corr, &s) || s.type != PV_STAT_I64)
            continue;
        if (n == cap) {
            cap *= 2;
            pairs = realloc(pairs, cap * sizeof *pairs);
        }
        pairs[n][0] = x->flow >> 2;
        pairs[n][1] = (uint64_t)s.v.i64;
        n++;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && j < i + 64; j++)
            if (pairs[i][0] == pairs[j][0])
                ck_assert_uint_eq(pairs[i][1], pairs[j][1]);
    free(pairs);
}

START_TEST(test_decode_real_traces)
{
    PV_NEED_TESTDATA("test_decode_real_traces");
    const real_trace *r = &real[_i];
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/%s", PV_TESTDATA, r->path);
    pv_model *m = NULL;
    pv_error err = {0};
    int rc = pv_ingest_file(path, NULL, &m, &err);
    ck_assert_msg(rc == 0, "%s: %s", r->path, err.reason);
    ck_assert(pv_model_is_sane(m));
    ck_assert_uint_eq(m->n_events, r->x + r->i);
    uint32_t cat = pv_model_str_find(m, "cat");
    uint64_t kernels = 0, kernel_ps = 0;
    for (uint64_t e = 0; e < m->n_events; e++) {
        if (cat != 0 && is_kernel(m, e, cat)) {
            kernels++;
            kernel_ps += (uint64_t)m->ev_dur_ps[e];
        }
    }
    ck_assert_uint_eq(kernels, r->kernels);
    ck_assert_uint_eq(kernel_ps, r->kernel_ps);
    uint64_t n_flow = 0;
    assert_flows_consistent(m, &n_flow);
    ck_assert_uint_eq(m->n_warnings, 0);
    /* every device with kernels is a GPU plane (the MTIA and CPU-only
     * traces have none) */
    if (r->kernels > 0) {
        bool gpu = false;
        for (uint32_t p = 0; p < m->n_planes; p++)
            gpu = gpu || m->planes[p].kind == PV_PLANE_GPU;
        ck_assert(gpu);
    }
    pv_model_free(m);
}
END_TEST

/* ---- roles and launch links ---------------------------------------------------- */

/* Host thread 1: ProfilerStep#3 [0,100] (ext 1) over aten::mm [10,40]
 * (ext 2) launching gemm through cudaLaunchKernel (correlation 7), and
 * nccl:all_reduce [50,60] (B/E, ext 3) launching a copy through
 * cudaMemcpyAsync (correlation 8); cudaStreamSynchronize [62,64] (B/E,
 * its External id 3 in E's args); an annotation of ext 2 at 95, written
 * before aten::mm, which is not the launcher of ext 2: aten::mm comes first
 * in time;
 * cuLaunchKernel (cuda_driver: no role) with ext 4 and correlation 9;
 * two [memory] instants, one without a category and one of
 * cpu_instant_event. Thread 2: a Python function. Device: gemm (ext 2,
 * corr 7), the copy (2021's "external id" 3, corr 8), a memset of ext 0
 * and correlation 99 (no launcher, no call), k_driver (ext 4, corr 9:
 * neither an op nor a runtime call has them), the step's GPU annotation
 * (ext 1). The Trace span comes first, so times count from 0. By hand,
 * 6 launched events have a row:
 *   cudaLaunchKernel  by aten::mm
 *   gemm              by aten::mm, call cudaLaunchKernel
 *   cudaMemcpyAsync   by nccl:all_reduce
 *   Memcpy DtoD       by nccl:all_reduce, call cudaMemcpyAsync
 *   cudaStreamSync..  by nccl:all_reduce
 *   GPU annotation    by ProfilerStep#3 (the host one) */
static const char roles_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\","
    "\"tid\":\"PyTorch Profiler\",\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"late\",\"pid\":1,\"tid\":1,\"ts\":95,"
    "\"dur\":1,\"args\":{\"External id\":2}},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":1,\"tid\":1,"
    "\"ts\":0,\"dur\":100,\"args\":{\"External id\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,"
    "\"dur\":30,\"args\":{\"External id\":2}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":12,\"dur\":5,\"args\":{\"External id\":2,\"correlation\":7}},"
    "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"nccl:all_reduce\",\"pid\":1,\"tid\":1,\"ts\":50,"
    "\"args\":{\"External id\":3}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,"
    "\"ts\":52,\"dur\":3,\"args\":{\"External id\":3,\"correlation\":8}},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":60},"
    "{\"ph\":\"B\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"pid\":1,"
    "\"tid\":1,\"ts\":62},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":64,\"args\":{\"External id\":3}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":70,\"dur\":2,\"args\":{\"External id\":4,\"correlation\":9}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":11,"
    "\"args\":{\"Bytes\":16}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,"
    "\"tid\":1,\"ts\":13,\"args\":{\"Bytes\":-16}},"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"forward\",\"pid\":1,\"tid\":2,\"ts\":0,"
    "\"dur\":90},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":15,"
    "\"args\":{\"External id\":2,\"correlation\":7}},"
    "{\"ph\":\"X\",\"cat\":\"Memcpy\",\"name\":\"Memcpy DtoD\",\"pid\":0,\"tid\":8,\"ts\":56,"
    "\"dur\":4,\"args\":{\"external id\":3,\"correlation\":8}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset\",\"pid\":0,\"tid\":8,\"ts\":80,"
    "\"dur\":1,\"args\":{\"External id\":0,\"correlation\":99}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_driver\",\"pid\":0,\"tid\":7,\"ts\":75,"
    "\"dur\":2,\"args\":{\"External id\":4,\"correlation\":9}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":0,"
    "\"tid\":9,\"ts\":20,\"dur\":60,\"args\":{\"External id\":1}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":1,\"args\":{\"labels\":\"CPU\"}},"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}}"
    "]}";

/* The event called name that starts at us microseconds. */
static uint64_t event_at(const pv_model *m, const char *name, int64_t us)
{
    for (uint64_t e = 0; e < m->n_events; e++)
        if (strcmp(pv_model_event_name(m, e), name) == 0 &&
            m->ev_start_ps[e] == us * 1000000)
            return e;
    ck_abort_msg("no %s at %lld us", name, (long long)us);
    return 0;
}

START_TEST(test_decode_roles)
{
    pv_model *m = decode_ok(roles_trace);
    ck_assert(pv_model_has_roles(m));
    static const struct {
        const char *name;
        int64_t us;
        pv_event_role role;
        unsigned facts;
    } want[] = {
        {"ProfilerStep#3", 0, PV_ROLE_STEP, 0},
        {"late", 95, PV_ROLE_ANNOTATION, 0},
        {"aten::mm", 10, PV_ROLE_OPERATOR, PV_ROLE_TENSOR_CORE_OP},
        {"cudaLaunchKernel", 12, PV_ROLE_RUNTIME, 0},
        {"nccl:all_reduce", 50, PV_ROLE_OPERATOR, PV_ROLE_COLLECTIVE},
        {"cudaStreamSynchronize", 62, PV_ROLE_RUNTIME, 0},
        {"cuLaunchKernel", 70, PV_ROLE_NONE, 0},
        {"[memory]", 11, PV_ROLE_MEMORY, 0},
        {"[memory]", 13, PV_ROLE_NONE, 0},
        {"forward", 0, PV_ROLE_PYTHON, 0},
        {"gemm", 20, PV_ROLE_KERNEL, 0},
        {"Memcpy DtoD", 56, PV_ROLE_MEMCPY, 0},
        {"Memset", 80, PV_ROLE_MEMSET, 0},
        {"ProfilerStep#3", 20, PV_ROLE_DEVICE_ANNOTATION, 0},
        {"PyTorch Profiler (0)", 0, PV_ROLE_TRACE_MARK, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint64_t e = event_at(m, want[i].name, want[i].us);
        unsigned roles = pv_model_meta_roles(m, m->ev_meta[e]);
        ck_assert_msg(pv_model_event_role(m, e) == want[i].role, "%s: role %u", want[i].name,
                      roles & PV_ROLE_MASK);
        ck_assert_msg((roles & ~PV_ROLE_MASK) == want[i].facts, "%s: facts %#x", want[i].name,
                      roles);
    }
    /* every event of the fixture, by role, counted by hand from its text:
     * 17 events, of which cuLaunchKernel and the cpu_instant_event have
     * none */
    static const unsigned per_role[PV_ROLE_TRACE_MARK + 1] = {
        [PV_ROLE_NONE] = 2,   [PV_ROLE_OPERATOR] = 2, [PV_ROLE_STEP] = 1,
        [PV_ROLE_ANNOTATION] = 1, [PV_ROLE_PYTHON] = 1, [PV_ROLE_RUNTIME] = 3,
        [PV_ROLE_KERNEL] = 2, [PV_ROLE_MEMCPY] = 1, [PV_ROLE_MEMSET] = 1,
        [PV_ROLE_DEVICE_ANNOTATION] = 1, [PV_ROLE_MEMORY] = 1, [PV_ROLE_TRACE_MARK] = 1,
    };
    unsigned got[PV_ROLE_TRACE_MARK + 1] = {0};
    ck_assert_uint_eq(m->n_events, 17);
    for (uint64_t e = 0; e < m->n_events; e++)
        got[pv_model_event_role(m, e)]++;
    for (unsigned r = 0; r <= PV_ROLE_TRACE_MARK; r++)
        ck_assert_msg(got[r] == per_role[r], "role %u: %u events", r, got[r]);
    pv_model_free(m);
}
END_TEST

START_TEST(test_decode_launch_links)
{
    pv_model *m = decode_ok(roles_trace);
    uint64_t mm = event_at(m, "aten::mm", 10), nccl = event_at(m, "nccl:all_reduce", 50);
    uint64_t launch = event_at(m, "cudaLaunchKernel", 12);
    uint64_t copy_call = event_at(m, "cudaMemcpyAsync", 52);
    static const uint64_t none = PV_NO_EVENT;
    const struct {
        uint64_t ev, by, call;
    } want[] = {
        {launch, mm, none},
        {event_at(m, "gemm", 20), mm, launch},
        {copy_call, nccl, none},
        {event_at(m, "Memcpy DtoD", 56), nccl, copy_call},
        {event_at(m, "cudaStreamSynchronize", 62), nccl, none},
        {event_at(m, "ProfilerStep#3", 20), event_at(m, "ProfilerStep#3", 0), none},
        {event_at(m, "Memset", 80), none, none},
        {event_at(m, "k_driver", 75), none, none},
        {event_at(m, "cuLaunchKernel", 70), none, none},
        {mm, none, none},
        {event_at(m, "[memory]", 11), none, none},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_msg(pv_model_launcher(m, want[i].ev) == want[i].by, "row %zu: launcher", i);
        ck_assert_msg(pv_model_launch_call(m, want[i].ev) == want[i].call, "row %zu: call", i);
    }
    ck_assert_uint_eq(m->n_launches, 6);
    for (uint32_t i = 1; i < m->n_launches; i++)
        ck_assert_uint_lt(m->launches[i - 1].ev, m->launches[i].ev);
    pv_model_free(m);
}
END_TEST

/* A trace of no producer that gives roles (TensorFlow's trace JSON) has
 * none, and no links. */
START_TEST(test_decode_no_roles)
{
    pv_model *m = decode_ok("[{\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"MatMul\",\"pid\":1,"
                            "\"tid\":1,\"ts\":0,\"dur\":5,\"args\":{\"External id\":1}},"
                            "{\"ph\":\"X\",\"name\":\"k\",\"pid\":2,\"tid\":1,\"ts\":1,"
                            "\"dur\":2,\"args\":{\"External id\":1,\"correlation\":3}}]");
    ck_assert(!pv_model_has_roles(m));
    ck_assert_ptr_null(m->meta_roles);
    ck_assert_uint_eq(m->n_launches, 0);
    pv_model_free(m);
}
END_TEST

/* Kernels by role and launch links on two real traces against Python's
 * json over the file (X and i events; roles by category as cj_roles.c
 * lists them): `by`, the events outside the launching categories whose
 * integer External id (or external id), not 0, is one an operator,
 * annotation or Python function has; `call`, the kernels, copies and
 * fills whose integer correlation is a runtime call's. No event has a
 * call without a launcher here, so the rows are the `by` events. */
START_TEST(test_decode_real_links)
{
    PV_NEED_TESTDATA("test_decode_real_links");
    static const struct {
        const char *path;
        uint32_t by, call, kernels;
    } want[] = {
        {"tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz", 192, 39, 60},
        {"kineto_resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", 21018, 9096,
         8772},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/traces/%s", PV_TESTDATA, want[i].path);
        pv_model *m = NULL;
        pv_error err = {0};
        ck_assert_msg(pv_ingest_file(path, NULL, &m, &err) == 0, "%s", err.reason);
        uint32_t by = 0, call = 0, kernels = 0;
        for (uint32_t r = 0; r < m->n_launches; r++) {
            by += m->launches[r].by != PV_NO_LAUNCH;
            call += m->launches[r].call != PV_NO_LAUNCH;
        }
        for (uint64_t e = 0; e < m->n_events; e++)
            kernels += pv_model_event_role(m, e) == PV_ROLE_KERNEL;
        ck_assert_uint_eq(by, want[i].by);
        ck_assert_uint_eq(call, want[i].call);
        ck_assert_uint_eq(m->n_launches, want[i].by);
        ck_assert_uint_eq(kernels, want[i].kernels);
        pv_model_free(m);
    }
}
END_TEST

static Suite *chrome_json_suite(void)
{
    Suite *s = suite_create("chrome_json");
    TCase *tc = tcase_create("pieces");
    tcase_add_test(tc, test_time_parse_exact);
    tcase_add_test(tc, test_decimal_id);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_decode_chrome_json");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_decode_fixture_counts);
    tcase_add_test(tc, test_decode_fixture_times);
    tcase_add_test(tc, test_decode_fixture_kernel_and_flows);
    tcase_add_test(tc, test_decode_fixture_counters);
    tcase_add_test(tc, test_decode_args_types);
    tcase_add_test(tc, test_decode_ids_and_names);
    tcase_add_test(tc, test_decode_unmatched_and_far);
    tcase_add_test(tc, test_decode_flow_next_and_v2);
    tcase_add_test(tc, test_decode_kineto_memory);
    tcase_add_test(tc, test_decode_roles);
    tcase_add_test(tc, test_decode_launch_links);
    tcase_add_test(tc, test_decode_no_roles);
    tcase_add_test(tc, test_decode_real_links);
    tcase_add_test(tc, test_decode_chunks_same_model);
    tcase_add_test(tc, test_decode_gzip);
    tcase_add_test(tc, test_decode_truncated_everywhere);
    tcase_add_test(tc, test_decode_garbage);
    tcase_add_test(tc, test_decode_deeply_nested);
    tcase_add_test(tc, test_decode_huge_string);
    tcase_add_test(tc, test_decode_pipe_same_model);
    tcase_add_loop_test(tc, test_decode_real_traces, 0, (int)(sizeof real / sizeof real[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(chrome_json_suite());
}
