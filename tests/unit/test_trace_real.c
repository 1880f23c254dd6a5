/* The trace viewer tools on the real profiles in ../shared/testdata,
 * against independent oracles:
 *   - tests/data/trace_viewer/<name>.txt, extracted from the .xplane.pb
 *     with `protoc --decode` by tools/reference/trace_expected.py (event
 *     count, one known event's name/start/duration, a search count);
 *   - the <host>.trace.json.gz TensorFlow itself wrote next to the xplane:
 *     our Chrome trace must hold exactly its complete events (name, ts,
 *     dur). TensorFlow's converter hides the same internal events we do
 *     (memory allocation and tf.data producer/consumer markers). */
#include "ingest/ingest.h"
#include "tools/chrome_trace/trace_chrome.h"
#include "tools/trace_tiles/trace_event.h"
#include "tools/trace_tiles/trace_index.h"
#include "tools/trace_tiles/trace_meta.h"
#include "gz_file.h"
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct profile {
    const char *name;      /* tests/data/trace_viewer/<name>.txt */
    const char *dir;       /* session folder under ../shared/testdata/logdirs */
    const char *host;
} profile;

static const profile profiles[] = {
    {"tf_keras_gpu_gcp", "tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12",
     "instance-ecbm"},
    {"tf_keras_cpu_macos", "tf_keras_cpu_macos/train/plugins/profile/2022_10_31_19_09_08",
     "gaoyihaodeMacBook-Pro.local"},
};

typedef struct expected {
    uint64_t n_events;
    char known_name[1024];
    int64_t known_start_ps, known_dur_ps;
    char search[64];
    uint64_t search_hits;
} expected;

static void read_expected(const char *name, expected *x)
{
    char path[1024], line[2048];
    snprintf(path, sizeof path, "%s/tests/data/trace_viewer/%s.txt", PV_SRCDIR, name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    memset(x, 0, sizeof *x);
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = 0;
        char *val = strchr(line, ' ');
        if (val == NULL)
            continue;
        *val++ = 0;
        if (strcmp(line, "n_events") == 0)
            x->n_events = strtoull(val, NULL, 10);
        else if (strcmp(line, "known_name") == 0)
            snprintf(x->known_name, sizeof x->known_name, "%s", val);
        else if (strcmp(line, "known_start_ps") == 0)
            x->known_start_ps = strtoll(val, NULL, 10);
        else if (strcmp(line, "known_dur_ps") == 0)
            x->known_dur_ps = strtoll(val, NULL, 10);
        else if (strcmp(line, "search") == 0)
            sscanf(val, "%63s %llu", x->search, (unsigned long long *)&x->search_hits);
    }
    fclose(f);
}

static pv_model *load(const profile *p, const char *suffix, char *path, size_t cap)
{
    snprintf(path, cap, "%s/logdirs/%s/%s%s", PV_TESTDATA, p->dir, p->host, suffix);
    pv_model *m = NULL;
    pv_error err = {0};
    if (strcmp(suffix, ".xplane.pb") == 0)
        ck_assert_msg(pv_ingest_file(path, NULL, &m, &err) == 0, "%s: %s", path, err.reason);
    return m;
}

/* ---- counts and tiles ---------------------------------------------------------- */

START_TEST(test_real_counts_and_tiles)
{
    PV_NEED_TESTDATA("test_real_counts_and_tiles");
    const profile *p = &profiles[_i];
    expected x;
    read_expected(p->name, &x);
    char path[1024];
    pv_model *m = load(p, ".xplane.pb", path, sizeof path);
    ck_assert_uint_eq(m->n_events, x.n_events);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_trace_meta meta;
    ck_assert_int_eq(pv_tool_trace_meta(m, NULL, &a, &meta, NULL), 0);
    uint64_t listed = 0;
    for (size_t i = 0; i < meta.n_processes; i++)
        for (size_t k = 0; k < meta.processes[i].n_threads; k++)
            listed += m->tracks[meta.processes[i].tracks[k]].n_events;
    ck_assert_uint_eq(listed, x.n_events);
    /* Every level up to 12: the tiles of a row account for every event
     * exactly once, whether they come from the pyramid or are cut. */
    pv_trace_pyramid_opts o = {50, (size_t)64 << 20, NULL, 0};
    pv_trace_pyramid *pyr = NULL;
    ck_assert_int_eq(pv_trace_pyramid_new(m, NULL, &o, &pyr, NULL), 0);
    pv_trace_geom g = pv_trace_geom_of(m);
    for (uint32_t level = 0; level <= 12 && level <= g.max_level; level++) {
        uint64_t counted = 0, counted_direct = 0;
        for (uint64_t i = 0; i < (1ull << level); i++) {
            for (int direct = 0; direct < 2; direct++) {
                pv_trace_tile t;
                pv_trace_tile_query q = {level, i};
                ck_assert_int_eq(pv_tool_trace_tile(m, direct ? NULL : pyr, &q, &a, &t, NULL), 0);
                uint64_t n = 0;
                for (size_t r = 0; r < t.n_rows; r++) {
                    n += t.rows[r].n_events - t.rows[r].n_crossing;
                    for (size_t k = 0; k < t.rows[r].n_boxes; k++)
                        n += t.rows[r].boxes[k].count;
                }
                if (direct)
                    counted_direct += n;
                else
                    counted += n;
            }
        }
        ck_assert_uint_eq(counted, x.n_events);
        ck_assert_uint_eq(counted_direct, x.n_events);
        pv_arena_fini(&a);
        pv_arena_init(&a, 1 << 16);
    }
    pv_trace_pyramid_free(pyr);
    pv_arena_fini(&a);
    pv_model_free(m);
}
END_TEST

/* ---- search and details ---------------------------------------------------------- */

START_TEST(test_real_search_and_details)
{
    PV_NEED_TESTDATA("test_real_search_and_details");
    const profile *p = &profiles[_i];
    expected x;
    read_expected(p->name, &x);
    char path[1024];
    pv_model *m = load(p, ".xplane.pb", path, sizeof path);
    pv_trace_index *ix = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &ix, NULL), 0);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_trace_search r;
    pv_trace_search_query q = {x.search, 0, 1000};
    ck_assert_int_eq(pv_tool_trace_search(m, NULL, &q, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.total, x.search_hits);
    /* The known event is among the results for its full name. */
    q = (pv_trace_search_query){x.known_name, 0, 1000};
    ck_assert_int_eq(pv_tool_trace_search(m, NULL, &q, &a, &r, NULL), 0);
    uint64_t found = UINT64_MAX;
    for (size_t i = 0; i < r.n; i++)
        if (m->ev_start_ps[r.ids[i]] == x.known_start_ps)
            found = r.ids[i];
    ck_assert_msg(found != UINT64_MAX, "%s at %lld not found", x.known_name,
                  (long long)x.known_start_ps);
    pv_trace_event ev;
    pv_trace_event_query eq = {found};
    ck_assert_int_eq(pv_tool_trace_event(m, ix, &eq, &a, &ev, NULL), 0);
    json_t *j = pv_trace_event_to_json(m, ix, &ev);
    ck_assert_str_eq(json_string_value(json_object_get(j, "name")), x.known_name);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "start_ps")) + ix->geom.t0_ps,
                     x.known_start_ps);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "dur_ps")), x.known_dur_ps);
    /* A GPU kernel has its launch: a host event with the same correlation id. */
    json_t *corr = json_object_get(json_object_get(j, "stats"), "correlation_id");
    if (corr != NULL) {
        ck_assert_uint_ge(ev.n_flows, 1);
        ck_assert(ev.flows[0].launch && !ev.flows[0].out);
        const pv_event_extra *pe = pv_model_event_extra(m, ev.flows[0].ev);
        ck_assert_ptr_nonnull(pe);
        ck_assert_uint_eq(pe->correlation_id, (uint64_t)json_integer_value(corr));
        uint32_t pt = pv_model_event_track(m, ev.flows[0].ev);
        ck_assert_uint_eq(m->planes[m->tracks[pt].plane].kind, PV_PLANE_HOST);
    }
    json_decref(j);
    pv_arena_fini(&a);
    pv_trace_index_free(ix);
    pv_model_free(m);
}
END_TEST

/* ---- Chrome JSON against TensorFlow's own trace.json.gz --------------------------- */

static json_t *load_gz_json(const char *path)
{
    json_t *j = pv_test_load_gz_json(path, SIZE_MAX);
    ck_assert_msg(j != NULL, "cannot open %s", path);
    return j;
}

static int strcmp_ptr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted "name|ts|dur" keys of the complete and instant events. With
 * use_step_name, an event whose args carry step_name is keyed by it:
 * TensorFlow's older converter kept the op name and only listed step_name
 * in args, while today's reference (FORMATS.md §4.1), and profview, show
 * the step name. Zero-duration events are keyed with dur 0: TensorFlow's
 * older converter wrote them as complete events of 1 ps (dur 1e-06),
 * XProf 2.24.2 as instants ("ph":"i"), which profview follows since the
 * TensorBoard route must match XProf; on this CPU profile (nanosecond
 * clock) no real event lasts 1 ps, so the two forms name the same events. */
static char **x_keys(json_t *j, bool use_step_name, size_t *n_out)
{
    json_t *ev = json_object_get(j, "traceEvents");
    char **keys = calloc(json_array_size(ev) + 1, sizeof *keys);
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        bool instant = ph != NULL && strcmp(ph, "i") == 0;
        if (ph == NULL || (strcmp(ph, "X") != 0 && !instant))
            continue;
        double dur = instant ? 0.0 : json_number_value(json_object_get(e, "dur"));
        if (dur == 1e-06)
            dur = 0.0;
        const char *name = json_string_value(json_object_get(e, "name"));
        json_t *sn = json_object_get(json_object_get(e, "args"), "step_name");
        if (use_step_name && json_is_string(sn))
            name = json_string_value(sn);
        size_t len = strlen(name) + 64;
        keys[n] = malloc(len);
        snprintf(keys[n], len, "%s|%.17g|%.17g", name,
                 json_number_value(json_object_get(e, "ts")), dur);
        n++;
    }
    qsort(keys, n, sizeof *keys, strcmp_ptr);
    *n_out = n;
    return keys;
}

START_TEST(test_real_chrome_matches_tensorflow)
{
    PV_NEED_TESTDATA("test_real_chrome_matches_tensorflow");
    const profile *p = &profiles[_i];
    char path[1024], tf_path[1024];
    pv_model *m = load(p, ".xplane.pb", path, sizeof path);
    load(p, ".trace.json.gz", tf_path, sizeof tf_path);
    pv_buf b;
    pv_buf_init(&b, (size_t)1 << 30);
    pv_trace_chrome_query q = {false, INT64_MIN, INT64_MAX, 0, 0};
    ck_assert_int_eq(pv_trace_chrome_write(m, &q, &b, NULL), 0);
    json_t *ours = json_loadb(b.data, b.len, 0, NULL);
    ck_assert_ptr_nonnull(ours);
    json_t *theirs = load_gz_json(tf_path);
    size_t n_ours, n_theirs;
    char **ko = x_keys(ours, false, &n_ours), **kt = x_keys(theirs, true, &n_theirs);
    ck_assert_uint_eq(n_ours, n_theirs);
    for (size_t i = 0; i < n_ours; i++) {
        ck_assert_str_eq(ko[i], kt[i]);
        free(ko[i]);
        free(kt[i]);
    }
    free(ko);
    free(kt);
    json_decref(ours);
    json_decref(theirs);
    pv_buf_fini(&b);
    pv_model_free(m);
}
END_TEST

/* ---- the index on one thread and on two ---------------------------------------- */

/* The index's parts built beside the pyramid on a second thread (step
 * names, counters, links) are the same as on one, as is what it counts. */
START_TEST(test_real_index_two_threads)
{
    PV_NEED_TESTDATA("test_real_index_two_threads");
    const profile *p = &profiles[_i];
    char path[1024];
    pv_model *m = load(p, ".xplane.pb", path, sizeof path);
    pv_trace_index *ix[2];
    for (unsigned t = 0; t < 2; t++) {
        pv_trace_pyramid_opts o = pv_trace_pyramid_defaults();
        o.threads = t + 1;
        ck_assert_int_eq(pv_trace_index_new(m, &o, &ix[t], NULL), 0);
    }
    const pv_trace_index *a = ix[0], *b = ix[1];
    /* the GPU profile has counters and links, so the comparison there
     * means something */
    if (strcmp(p->name, "tf_keras_gpu_gcp") == 0) {
        ck_assert_uint_gt(a->n_counters, 0);
        ck_assert_uint_gt(a->n_corr, 0);
    }
    ck_assert_uint_eq(a->bytes, b->bytes);
    ck_assert_uint_eq(pv_trace_pyramid_levels(a->pyramid), pv_trace_pyramid_levels(b->pyramid));
    ck_assert_uint_eq(a->n_counters, b->n_counters);
    for (size_t c = 0; c < a->n_counters; c++) {
        const pv_trace_counter *x = &a->counters[c], *y = &b->counters[c];
        ck_assert_str_eq(x->name, y->name);
        ck_assert_uint_eq(x->plane, y->plane);
        ck_assert_uint_eq(x->n_points, y->n_points);
        ck_assert(memcmp(x->t_ps, y->t_ps, x->n_points * sizeof *x->t_ps) == 0);
        ck_assert(memcmp(x->value, y->value, x->n_points * sizeof *x->value) == 0);
    }
    ck_assert_uint_eq(a->n_corr, b->n_corr);
    ck_assert(memcmp(a->corr, b->corr, a->n_corr * sizeof *a->corr) == 0);
    ck_assert_uint_eq(a->n_flows, b->n_flows);
    ck_assert(a->n_flows == 0 || memcmp(a->flows, b->flows, a->n_flows * sizeof *a->flows) == 0);
    ck_assert_uint_eq(a->steps.n, b->steps.n);
    ck_assert(a->steps.n == 0 ||
              (memcmp(a->steps.ev, b->steps.ev, a->steps.n * sizeof *a->steps.ev) == 0 &&
               memcmp(a->steps.name, b->steps.name, a->steps.n * sizeof *a->steps.name) == 0));
    ck_assert(memcmp(a->steps.meta_has, b->steps.meta_has, (size_t)m->n_metas + 1) == 0);
    pv_trace_index_free(ix[0]);
    pv_trace_index_free(ix[1]);
    pv_model_free(m);
}
END_TEST

/* ---- the index saved and read back ------------------------------------------------ */

/* Profiles whose index has every part: the TF GPU one (counters, links),
 * a JAX GPU and a TPU one (derived lines and their pyramid, step names). */
static const char *const saved_profiles[] = {
    "tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12/instance-ecbm",
    "jax_rocm_mi300/plugins/profile/jax_conv_minimal_08/tw003",
    "jax_tpu_v6e_inference/plugins/profile/tpu_inference/tpu_inference_2",
};

/* Tile (level, index) of ix as the page gets it: JSON with counters. */
static char *tile_text(const pv_model *m, const pv_trace_index *ix, uint32_t level,
                       uint64_t index)
{
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_trace_tile_query q = {level, index};
    pv_trace_tile t;
    ck_assert_int_eq(pv_trace_index_tile(m, ix, &q, &a, &t, NULL), 0);
    pv_buf counters, b;
    pv_buf_init(&counters, SIZE_MAX);
    pv_buf_init(&b, SIZE_MAX);
    ck_assert_int_eq(pv_trace_counters_tile_json(ix, t.start_ps, t.end_ps, &counters), 0);
    ck_assert_int_eq(pv_trace_tile_write_json(m, &ix->geom, &t, counters.data ? counters.data : "[]",
                                              &a, &b), 0);
    pv_buf_fini(&counters);
    pv_arena_fini(&a);
    return pv_buf_take(&b, NULL);
}

/* ix written and read back, as the disk cache does. */
static int read_back(const pv_model *m, const pv_trace_index *ix, size_t cut, uint64_t flip,
                     pv_trace_index **out)
{
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    ck_assert_int_eq(pv_trace_index_write(ix, m, &b), 0);
    size_t len = b.len < cut ? b.len : cut;
    uint8_t *data = malloc(len + 1);
    memcpy(data, b.data, len);
    if (flip < len)
        data[flip] ^= 0x80;
    pv_buf_fini(&b);
    return pv_trace_index_read(m, data, len, out, NULL);
}

START_TEST(test_real_index_read_back)
{
    PV_NEED_TESTDATA("test_real_index_read_back");
    char path[1024];
    snprintf(path, sizeof path, "%s/logdirs/%s.xplane.pb", PV_TESTDATA, saved_profiles[_i]);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_msg(pv_ingest_file(path, NULL, &m, &err) == 0, "%s: %s", path, err.reason);
    pv_trace_index *built = NULL, *back = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &built, NULL), 0);
    ck_assert_int_eq(read_back(m, built, SIZE_MAX, UINT64_MAX, &back), 0);
    ck_assert_ptr_nonnull(back->block);
    /* what the routes read: the parts, and every tile of the pyramid's
     * levels and of the first level cut on demand, counters spliced in */
    ck_assert_uint_eq(back->n_counters, built->n_counters);
    ck_assert_uint_eq(back->n_corr, built->n_corr);
    ck_assert_uint_eq(back->n_flows, built->n_flows);
    ck_assert_uint_eq(back->steps.n, built->steps.n);
    ck_assert(built->n_corr == 0 ||
              memcmp(back->corr, built->corr, built->n_corr * sizeof *built->corr) == 0);
    ck_assert_uint_eq(pv_trace_pyramid_levels(back->pyramid),
                      pv_trace_pyramid_levels(built->pyramid));
    ck_assert((back->derived_pyramid == NULL) == (built->derived_pyramid == NULL));
    uint32_t levels = pv_trace_pyramid_levels(built->pyramid) + 1;
    if (levels > built->geom.max_level + 1)
        levels = built->geom.max_level + 1;
    size_t tiles = 0;
    for (uint32_t l = 0; l < levels && l <= 7; l++) {
        for (uint64_t i = 0; i < (1ull << l); i++) {
            char *x = tile_text(m, built, l, i), *y = tile_text(m, back, l, i);
            ck_assert_msg(strcmp(x, y) == 0, "%s: tile %u/%llu differs", saved_profiles[_i], l,
                          (unsigned long long)i);
            tiles += strlen(x) > 40;
            free(x);
            free(y);
        }
    }
    ck_assert_uint_gt(tiles, 0);
    pv_trace_index_free(back);

    /* cut anywhere, or an event id made too big, it is refused */
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    ck_assert_int_eq(pv_trace_index_write(built, m, &b), 0);
    size_t len = b.len;
    pv_buf_fini(&b);
    for (size_t cut = 0; cut < len; cut += len / 97 + 1) {
        back = NULL;
        ck_assert_int_eq(read_back(m, built, cut, UINT64_MAX, &back), PV_EFORMAT);
        ck_assert_ptr_null(back);
    }
    /* the top byte of level 0's first event id: after the head (72
     * bytes), the pyramid's (24), level 0's two offset arrays */
    uint64_t first_event = 72 + 24 + 2 * 8 * ((uint64_t)m->n_tracks + 1) + 7;
    back = NULL;
    ck_assert_int_eq(read_back(m, built, SIZE_MAX, first_event, &back), PV_EFORMAT);
    ck_assert_ptr_null(back);
    pv_trace_index_free(built);
    pv_model_free(m);
}
END_TEST

/* An index read back for another profile's model is refused. */
START_TEST(test_real_index_read_back_other_model)
{
    PV_NEED_TESTDATA("test_real_index_read_back_other_model");
    pv_model *m[2];
    for (int k = 0; k < 2; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/logdirs/%s.xplane.pb", PV_TESTDATA, saved_profiles[k]);
        pv_error err = {0};
        ck_assert_msg(pv_ingest_file(path, NULL, &m[k], &err) == 0, "%s", err.reason);
    }
    pv_trace_index *ix = NULL, *back = NULL;
    ck_assert_int_eq(pv_trace_index_new(m[0], NULL, &ix, NULL), 0);
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    ck_assert_int_eq(pv_trace_index_write(ix, m[0], &b), 0);
    size_t len = b.len;
    uint8_t *data = (uint8_t *)pv_buf_take(&b, NULL);
    pv_error err = {0};
    ck_assert_int_eq(pv_trace_index_read(m[1], data, len, &back, &err), PV_EFORMAT);
    ck_assert_ptr_null(back);
    ck_assert_ptr_nonnull(strstr(err.reason, "saved trace index"));
    pv_trace_index_free(ix);
    pv_model_free(m[0]);
    pv_model_free(m[1]);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace_real");
    TCase *tc = tcase_create("real profiles");
    tcase_set_timeout(tc, 60);
    int n = (int)(sizeof profiles / sizeof profiles[0]);
    tcase_add_loop_test(tc, test_real_counts_and_tiles, 0, n);
    tcase_add_loop_test(tc, test_real_search_and_details, 0, n);
    tcase_add_loop_test(tc, test_real_chrome_matches_tensorflow, 0, n);
    tcase_add_loop_test(tc, test_real_index_two_threads, 0, n);
    tcase_add_loop_test(tc, test_real_index_read_back, 0,
                        (int)(sizeof saved_profiles / sizeof saved_profiles[0]));
    tcase_add_test(tc, test_real_index_read_back_other_model);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
