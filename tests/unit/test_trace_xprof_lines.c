/* The trace viewer's own routes (tools/trace_tiles/trace_index.h) against
 * XProf 2.24.2's trace of the same profile, on real profiles:
 *
 *   - the device lines XProf derives on JAX GPU and TPU profiles (XLA
 *     Modules, XLA Ops, Framework Ops, Framework Name Scope, Source code,
 *     Host Offload Ops rows) are tracks of their device, named, placed and
 *     counted as in XProf's golden trace_viewer JSON
 *     (tests/data/reference/shared_golden/, written by XProf itself), whose
 *     events are counted per line here; tiles account for their events,
 *     search finds an XLA op on them, their details and box sums read;
 *   - a step marker reads as XProf shows it ("train 16", not "train") in
 *     search and details, against the step events of XProf's golden
 *     trace of the demo and reference profiles.
 * The profiles are ../shared/testdata's (skipped by name when absent) and
 * the reference corpus of tests/data/reference and demo/. */
#include "gz_file.h"
#include "ingest/ingest.h"
#include "testutil.h"
#include "tools/trace_tiles/trace_aggregate.h"
#include "tools/trace_tiles/trace_event.h"
#include "tools/trace_tiles/trace_index.h"
#include "tools/trace_tiles/trace_meta.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- XProf's golden trace, its lines counted ------------------------------------- */

#define MAX_LINES 512

typedef struct gline {
    char process[64];
    char name[96];
    int64_t pid, tid, sort;
    uint64_t n_events;     /* complete and instant events */
} gline;

typedef struct golden {
    json_t *j;
    size_t n;
    gline lines[MAX_LINES];
} golden;

static int cmp_gline(const void *pa, const void *pb)
{
    const gline *a = pa, *b = pb;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return a->sort < b->sort ? -1 : a->sort > b->sort;
}

static gline *find_gline(golden *g, int64_t pid, int64_t tid)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->lines[i].pid == pid && g->lines[i].tid == tid)
            return &g->lines[i];
    return NULL;
}

/* Reads XProf's trace at path (relative to the source tree) and counts
 * the events of each named thread; lines by process, then sort index. */
static void golden_read(const char *rel, golden *g)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/reference/%s", PV_SRCDIR, rel);
    memset(g, 0, sizeof *g);
    g->j = pv_test_load_gz_json(path, SIZE_MAX);
    ck_assert_msg(g->j != NULL, "cannot open %s", path);
    json_t *ev = json_object_get(g->j, "traceEvents");
    /* process names first, then threads and their sort indexes */
    char pname[64][64];
    int64_t ppid[64];
    size_t np = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *what = json_string_value(json_object_get(e, "name"));
        if (ph == NULL || strcmp(ph, "M") != 0 || what == NULL ||
            strcmp(what, "process_name") != 0 || np == 64)
            continue;
        ppid[np] = json_integer_value(json_object_get(e, "pid"));
        snprintf(pname[np], sizeof pname[np], "%s",
                 json_string_value(json_object_get(json_object_get(e, "args"), "name")));
        np++;
    }
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *what = json_string_value(json_object_get(e, "name"));
        if (ph == NULL || strcmp(ph, "M") != 0 || what == NULL)
            continue;
        bool is_name = strcmp(what, "thread_name") == 0;
        bool is_sort = strcmp(what, "thread_sort_index") == 0;
        if (!is_name && !is_sort)
            continue;
        int64_t pid = json_integer_value(json_object_get(e, "pid"));
        int64_t tid = json_integer_value(json_object_get(e, "tid"));
        gline *l = find_gline(g, pid, tid);
        if (l == NULL) {
            ck_assert_uint_lt(g->n, MAX_LINES);
            l = &g->lines[g->n++];
            l->pid = pid;
            l->tid = tid;
            for (size_t k = 0; k < np; k++)
                if (ppid[k] == pid)
                    memcpy(l->process, pname[k], sizeof l->process);
        }
        json_t *args = json_object_get(e, "args");
        if (is_name)
            snprintf(l->name, sizeof l->name, "%s",
                     json_string_value(json_object_get(args, "name")));
        else
            l->sort = json_integer_value(json_object_get(args, "sort_index"));
    }
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph == NULL || (strcmp(ph, "X") != 0 && strcmp(ph, "i") != 0))
            continue;
        gline *l = find_gline(g, json_integer_value(json_object_get(e, "pid")),
                              json_integer_value(json_object_get(e, "tid")));
        if (l != NULL)
            l->n_events++;
    }
    qsort(g->lines, g->n, sizeof *g->lines, cmp_gline);
}

/* XProf's names of the lines it derives. */
static bool derived_name(const char *name)
{
    return strstr(name, " - from #") != NULL || strcmp(name, "Framework Ops") == 0 ||
           strcmp(name, "Framework Name Scope") == 0 || strcmp(name, "Source code") == 0 ||
           strncmp(name, "Host Offload Ops row ", 21) == 0;
}

/* ---- the profiles ------------------------------------------------------------------ */

typedef struct profile {
    const char *dir;      /* session folder under ../shared/testdata/logdirs */
    const char *host;
    uint64_t min_lines;   /* derived lines but the host-offload rows, at least (a
                             floor read off XProf's trace by hand) */
} profile;

static const profile profiles[] = {
    {"jax_rocm_mi300/plugins/profile/jax_conv_minimal_08", "tw003", 40},
    {"jax_rocm_mi300/plugins/profile/jax08_gemm", "tw003", 5},
    {"jax_rocm_mi300/plugins/profile/jax08_elementwise", "tw003", 5},
    {"jax_rocm_mi300/plugins/profile/jax_conv_minimal_legacy",
     "chi-mi300x-013.ord.vultr.cpe.ice.amd.com", 5},
    {"jax_tpu_v6e_inference/plugins/profile/tpu_inference", "tpu_inference_2", 12},
};

static pv_model *load_shared(const profile *p)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/logdirs/%s/%s.xplane.pb", PV_TESTDATA, p->dir, p->host);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_msg(pv_ingest_file(path, NULL, &m, &err) == 0, "%s: %s", path, err.reason);
    return m;
}

static void golden_of(const profile *p, golden *g)
{
    char rel[1024];
    snprintf(rel, sizeof rel, "shared_golden/logdirs/%s/%s.trace_viewer.json.gz", p->dir,
             p->host);
    golden_read(rel, g);
}

/* The thread of the trace with track id `track`: its model and track. */
static const pv_track *thread_of(const pv_model *m, const pv_trace_index *ix, uint32_t track,
                                 const pv_model **tm)
{
    uint32_t local = track;
    *tm = pv_trace_track_model(m, ix, &local);
    return &(*tm)->tracks[local];
}

static const char *track_name(const pv_model *tm, const pv_track *t)
{
    return pv_model_str(tm, t->display_name ? t->display_name : t->name);
}

/* ---- derived lines: names, places, counts ------------------------------------------ */

START_TEST(test_derived_lines_as_xprof)
{
    PV_NEED_TESTDATA("test_derived_lines_as_xprof");
    const profile *p = &profiles[_i];
    golden g;
    golden_of(p, &g);
    pv_model *m = load_shared(p);
    pv_trace_index *ix = NULL;
    pv_error err = {0};
    ck_assert_msg(pv_trace_index_new(m, NULL, &ix, &err) == 0, "%s", err.reason);
    ck_assert_ptr_nonnull(ix->derived.lines);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_trace_meta meta;
    ck_assert_int_eq(pv_tool_trace_meta(m, ix, &a, &meta, NULL), 0);
    uint64_t n_lines = 0, n_golden_lines = 0;
    for (size_t i = 0; i < meta.n_processes; i++) {
        const pv_trace_process *pr = &meta.processes[i];
        const char *pname = pv_model_str(m, m->planes[pr->plane].name);
        if (strncmp(pname, "/device:", 8) != 0)
            continue;
        /* XProf's lines of this device, in its order */
        const gline *gl[MAX_LINES];
        size_t ng = 0;
        for (size_t k = 0; k < g.n; k++)
            if (strcmp(g.lines[k].process, pname) == 0)
                gl[ng++] = &g.lines[k];
        /* (1) the derived lines, in order, with XProf's event counts;
         * the host-offload copies as a whole, since which row a copy
         * lands in is a deliberate difference (docs/compare.md) */
        size_t at = 0;
        uint64_t offload = 0, golden_offload = 0;
        for (size_t k = 0; k < pr->n_threads; k++) {
            const pv_model *tm;
            const pv_track *t = thread_of(m, ix, pr->tracks[k], &tm);
            if (tm == m)
                continue;
            const char *name = track_name(tm, t);
            ck_assert_msg(derived_name(name), "%s: not a name XProf gives a line", name);
            if (strncmp(name, "Host Offload Ops row ", 21) == 0) {
                offload += t->n_events;
                continue;
            }
            while (at < ng && (!derived_name(gl[at]->name) ||
                               strncmp(gl[at]->name, "Host Offload Ops row ", 21) == 0))
                at++;
            ck_assert_msg(at < ng, "%s %s: XProf has no such line", pname, name);
            ck_assert_str_eq(name, gl[at]->name);
            ck_assert_msg(t->n_events == gl[at]->n_events, "%s %s: %llu events, XProf %llu",
                          pname, gl[at]->name, (unsigned long long)t->n_events,
                          (unsigned long long)gl[at]->n_events);
            n_lines++;
            at++;
        }
        for (; at < ng; at++)
            ck_assert_msg(!derived_name(gl[at]->name) ||
                              strncmp(gl[at]->name, "Host Offload Ops row ", 21) == 0,
                          "%s %s: missing", pname, gl[at]->name);
        for (size_t k = 0; k < ng; k++) {
            bool rows = strncmp(gl[k]->name, "Host Offload Ops row ", 21) == 0;
            n_golden_lines += derived_name(gl[k]->name) && !rows;
            golden_offload += rows ? gl[k]->n_events : 0;
        }
        ck_assert_uint_eq(offload, golden_offload);
        /* (2) every line both list with events, in XProf's order: a GPU's
         * derived lines right after their stream, its streams in XProf's
         * order; a TPU's after the plane's own lines */
        size_t gk = 0;
        for (size_t k = 0; k < pr->n_threads; k++) {
            const pv_model *tm;
            const pv_track *t = thread_of(m, ix, pr->tracks[k], &tm);
            const char *name = track_name(tm, t);
            size_t found = ng;
            for (size_t x = 0; x < ng; x++)
                if (strcmp(gl[x]->name, name) == 0 && gl[x]->n_events > 0)
                    found = x;
            if (found == ng || t->n_events == 0)
                continue;
            ck_assert_msg(found >= gk, "%s: %s comes before %s in XProf's trace", pname, name,
                          gl[gk]->name);
            gk = found;
        }
    }
    ck_assert_uint_eq(n_lines, n_golden_lines);
    ck_assert_uint_ge(n_lines, p->min_lines);
    /* the trace's counts take the lines in */
    ck_assert_uint_eq(pv_trace_n_events(m, ix), m->n_events + ix->derived.lines->n_events);
    pv_arena_fini(&a);
    pv_trace_index_free(ix);
    pv_model_free(m);
    json_decref(g.j);
}
END_TEST

/* ---- tiles, search, details and sums on them ---------------------------------------- */

/* Events starting in each tile of every level up to 8 plus the box counts
 * add up to each track's events: the derived lines' as the model's. */
START_TEST(test_derived_tiles_account_for_every_event)
{
    PV_NEED_TESTDATA("test_derived_tiles_account_for_every_event");
    pv_model *m = load_shared(&profiles[_i]);
    pv_trace_index *ix = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &ix, NULL), 0);
    uint32_t n_tracks = pv_trace_n_tracks(m, ix);
    uint64_t *got = calloc(n_tracks, sizeof *got);
    for (uint32_t level = 0; level <= 8 && level <= ix->geom.max_level; level++) {
        memset(got, 0, n_tracks * sizeof *got);
        pv_arena a;
        pv_arena_init(&a, 1 << 16);
        for (uint64_t i = 0; i < (1ull << level); i++) {
            pv_trace_tile t;
            pv_trace_tile_query q = {level, i};
            ck_assert_int_eq(pv_trace_index_tile(m, ix, &q, &a, &t, NULL), 0);
            for (size_t r = 0; r < t.n_rows; r++) {
                const pv_trace_row *row = &t.rows[r];
                ck_assert_uint_lt(row->track, n_tracks);
                ck_assert_ptr_eq(row->model, row->track < m->n_tracks ? m : ix->derived.lines);
                got[row->track] += row->n_events - row->n_crossing;
                for (size_t k = 0; k < row->n_boxes; k++)
                    got[row->track] += row->boxes[k].count;
            }
        }
        for (uint32_t k = 0; k < n_tracks; k++) {
            const pv_model *tm;
            const pv_track *t = thread_of(m, ix, k, &tm);
            ck_assert_msg(got[k] == t->n_events, "level %u track %u (%s): %llu of %llu", level,
                          k, track_name(tm, t), (unsigned long long)got[k],
                          (unsigned long long)t->n_events);
        }
        pv_arena_fini(&a);
    }
    free(got);
    pv_trace_index_free(ix);
    pv_model_free(m);
}
END_TEST

/* A search for an XLA op finds its events on the "XLA Ops - from #N"
 * lines, as many as XProf's trace holds there, and each one's details
 * read as XProf writes the event (its long name "<program>/<op>"). */
START_TEST(test_search_finds_xla_op_on_derived_line)
{
    PV_NEED_TESTDATA("test_search_finds_xla_op_on_derived_line");
    const profile *p = &profiles[0];   /* jax_conv_minimal_08 */
    const char *op = "cudnn-conv.1";
    golden g;
    golden_of(p, &g);
    /* XProf's events of op on its XLA Ops lines: count, and the long name
     * of each by start */
    json_t *ev = json_object_get(g.j, "traceEvents");
    uint64_t want = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (name == NULL || ph == NULL || strcmp(ph, "X") != 0 || strcmp(name, op) != 0)
            continue;
        gline *l = find_gline(&g, json_integer_value(json_object_get(e, "pid")),
                              json_integer_value(json_object_get(e, "tid")));
        want += l != NULL && strncmp(l->name, "XLA Ops - from #", 16) == 0;
    }
    ck_assert_uint_ge(want, 8);   /* one a GPU at least, read off the file by hand */
    pv_model *m = load_shared(p);
    pv_trace_index *ix = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &ix, NULL), 0);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_trace_search r;
    pv_trace_search_query q = {op, 0, 1000};
    ck_assert_int_eq(pv_tool_trace_search(m, ix, &q, &a, &r, NULL), 0);
    ck_assert_uint_eq(r.n, r.total);
    uint64_t on_lines = 0;
    for (size_t i = 0; i < r.n; i++) {
        uint64_t e = r.ids[i];
        const pv_model *em = pv_trace_event_model(m, ix, &e);
        if (em == m)
            continue;
        const pv_track *t = &em->tracks[pv_model_event_track(em, e)];
        ck_assert_msg(strncmp(track_name(em, t), "XLA Ops - from #", 16) == 0, "%s",
                      track_name(em, t));
        ck_assert_str_eq(pv_trace_event_shown_name(m, ix, em, e), op);
        on_lines++;
        /* its details: XProf's event at the same time has the same long name */
        pv_trace_event d;
        pv_trace_event_query eq = {r.ids[i]};
        ck_assert_int_eq(pv_tool_trace_event(m, ix, &eq, &a, &d, NULL), 0);
        ck_assert_uint_eq(d.n_flows, 0);
        ck_assert_uint_ge(d.track, m->n_tracks);
        json_t *j = pv_trace_event_to_json(m, ix, &d);
        ck_assert_str_eq(json_string_value(json_object_get(j, "name")), op);
        int64_t start = json_integer_value(json_object_get(j, "start_ps")) + ix->geom.t0_ps;
        const char *theirs = NULL;
        for (size_t k = 0; k < json_array_size(ev) && theirs == NULL; k++) {
            json_t *x = json_array_get(ev, k);
            const char *name = json_string_value(json_object_get(x, "name"));
            if (name != NULL && strcmp(name, op) == 0 &&
                llround(json_number_value(json_object_get(x, "ts")) * 1e6) == start &&
                json_object_get(json_object_get(x, "args"), "long_name") != NULL)
                theirs = json_string_value(
                    json_object_get(json_object_get(x, "args"), "long_name"));
        }
        ck_assert_ptr_nonnull(theirs);
        ck_assert_str_eq(json_string_value(json_object_get(j, "long_name")), theirs);
        json_decref(j);
    }
    ck_assert_uint_eq(on_lines, want);
    /* a box over one derived line holds its events once */
    const pv_model *d = ix->derived.lines;
    uint32_t track = m->n_tracks;
    pv_trace_aggregate_query aq = {ix->geom.t0_ps, ix->geom.t0_ps + ix->geom.span_ps, 1, &track};
    pv_trace_aggregate agg;
    ck_assert_int_eq(pv_tool_trace_aggregate(m, ix, &aq, &a, &agg, NULL), 0);
    ck_assert_uint_eq(agg.n_events, d->tracks[0].n_events);
    pv_arena_fini(&a);
    pv_trace_index_free(ix);
    pv_model_free(m);
    json_decref(g.j);
}
END_TEST

/* ---- step names ---------------------------------------------------------------------- */

typedef struct stepped {
    const char *profile;   /* the .xplane.pb, under the source tree */
    const char *golden;    /* XProf's trace of it, under tests/data/reference */
} stepped;

static const stepped stepped_profiles[] = {
    {"demo/plugins/profile/2026_11_29_17_33_32/vm.xplane.pb",
     "demo_golden/2026_11_29_17_33_32/vm.trace_viewer.json.gz"},
    {"tests/data/reference/jax_train/plugins/profile/2026_11_29_17_36_39/vm.xplane.pb",
     "jax_train/golden/2026_11_29_17_36_39/vm.trace_viewer.json.gz"},
    {"tests/data/reference/keras_input_bound/plugins/profile/2026_11_29_17_36_18/vm.xplane.pb",
     "keras_input_bound/golden/2026_11_29_17_36_18/vm.trace_viewer.json.gz"},
};

/* Every event XProf's trace names by its step (a step_name arg: "train
 * 16") is found under that name at the same time, its details say it,
 * and a plain search for the marker's own name lists it so. */
START_TEST(test_step_markers_named_as_xprof)
{
    const stepped *sp = &stepped_profiles[_i];
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PV_SRCDIR, sp->profile);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_msg(pv_ingest_file(path, NULL, &m, &err) == 0, "%s: %s", path, err.reason);
    golden g;
    golden_read(sp->golden, &g);
    pv_trace_index *ix = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &ix, NULL), 0);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    json_t *ev = json_object_get(g.j, "traceEvents");
    size_t n_steps = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        json_t *sn = json_object_get(json_object_get(e, "args"), "step_name");
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (!json_is_string(sn) || ph == NULL || strcmp(ph, "X") != 0)
            continue;
        const char *name = json_string_value(json_object_get(e, "name"));
        ck_assert_str_eq(name, json_string_value(sn));
        int64_t start = llround(json_number_value(json_object_get(e, "ts")) * 1e6);
        pv_trace_search r;
        pv_trace_search_query q = {name, 0, 1000};
        ck_assert_int_eq(pv_tool_trace_search(m, ix, &q, &a, &r, NULL), 0);
        uint64_t hit = UINT64_MAX;
        for (size_t k = 0; k < r.n; k++)
            if (r.ids[k] < m->n_events && m->ev_start_ps[r.ids[k]] == start &&
                strcmp(pv_trace_event_shown_name(m, ix, m, r.ids[k]), name) == 0)
                hit = r.ids[k];
        ck_assert_msg(hit != UINT64_MAX, "%s at %lld ps: not found by its name", name,
                      (long long)start);
        pv_trace_event d;
        pv_trace_event_query eq = {hit};
        ck_assert_int_eq(pv_tool_trace_event(m, ix, &eq, &a, &d, NULL), 0);
        json_t *j = pv_trace_event_to_json(m, ix, &d);
        ck_assert_str_eq(json_string_value(json_object_get(j, "name")), name);
        json_decref(j);
        n_steps++;
    }
    ck_assert_uint_ge(n_steps, 5);
    /* the tiles say it too: a fine tile around each renamed event lists
     * its step name (whole-trace search for "train " finds every step) */
    pv_trace_search r;
    pv_trace_search_query q = {"train ", 0, 1000};
    ck_assert_int_eq(pv_tool_trace_search(m, ix, &q, &a, &r, NULL), 0);
    ck_assert_uint_ge(r.total, n_steps);
    uint64_t e = r.ids[0];
    const char *want = pv_trace_event_shown_name(m, ix, m, e);
    uint32_t level = ix->geom.max_level < 12 ? ix->geom.max_level : 12;
    uint64_t index = 0;
    while (index + 1 < (1ull << level) && pv_trace_tile_edge(&ix->geom, level, index + 1) <=
                                              m->ev_start_ps[e])
        index++;
    pv_trace_tile t;
    pv_trace_tile_query tq = {level, index};
    ck_assert_int_eq(pv_trace_index_tile(m, ix, &tq, &a, &t, NULL), 0);
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    ck_assert_int_eq(pv_trace_tile_write_json(m, &ix->geom, &t, NULL, &a, &b), 0);
    json_t *tile = json_loadb(b.data, b.len, 0, NULL);
    ck_assert_ptr_nonnull(tile);
    bool listed = false;
    json_t *names = json_object_get(tile, "names");
    for (size_t i = 0; i < json_array_size(names); i++)
        listed = listed || strcmp(json_string_value(json_array_get(names, i)), want) == 0;
    ck_assert_msg(listed, "the tile around %s does not name it", want);
    json_decref(tile);
    pv_buf_fini(&b);
    pv_arena_fini(&a);
    pv_trace_index_free(ix);
    pv_model_free(m);
    json_decref(g.j);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace_xprof_lines");
    TCase *tc = tcase_create("derived lines");
    tcase_set_timeout(tc, 120);
    int n = (int)(sizeof profiles / sizeof profiles[0]);
    tcase_add_loop_test(tc, test_derived_lines_as_xprof, 0, n);
    tcase_add_loop_test(tc, test_derived_tiles_account_for_every_event, 0, n);
    tcase_add_test(tc, test_search_finds_xla_op_on_derived_line);
    suite_add_tcase(s, tc);
    tc = tcase_create("step names");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_step_markers_named_as_xprof, 0,
                        (int)(sizeof stepped_profiles / sizeof stepped_profiles[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
