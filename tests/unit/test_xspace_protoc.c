/* test_xspace_protoc: every real .xplane.pb in ../shared/testdata decoded
 * by pv_ingest_file and checked against protoc --decode: counts of planes,
 * lines, events and stats per plane, nesting depths, group ids and a
 * handful of events with their stats (tests/data/xplane/expected_counts.tsv,
 * made by tools/reference/xplane_counts.py). */
#include "ingest/ingest.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool stat_matches(const pv_model *m, uint64_t ev, const char *spec)
{
    const char *eq = strchr(spec, '=');
    char name[256];
    size_t n = (size_t)(eq - spec);
    if (eq == NULL || n >= sizeof name || eq[1] == '\0' || eq[2] != ':')
        return false;
    memcpy(name, spec, n);
    name[n] = '\0';
    char kind = eq[1];
    const char *val = eq + 3;
    uint32_t id = pv_model_str_find(m, name);
    pv_stat own[64];
    size_t n_own = pv_model_event_own_stats(m, ev, own, 64);
    for (size_t k = 0; k < n_own && k < 64; k++) {
        const pv_stat *s = &own[k];
        if (s->name != id)
            continue;
        if (kind == 'i' && s->type == PV_STAT_I64 && s->v.i64 == strtoll(val, NULL, 10))
            return true;
        if (kind == 'u' && s->type == PV_STAT_U64 && s->v.u64 == strtoull(val, NULL, 10))
            return true;
        if (kind == 'd' && s->type == PV_STAT_F64 &&
            fabs(s->v.f64 - strtod(val, NULL)) <= 1e-9 * (fabs(s->v.f64) + 1))
            return true;
        size_t len;
        const char *text = pv_model_stat_text(m, s, &len);
        if (kind == 's' && (s->type == PV_STAT_STR || s->type == PV_STAT_WSTR) &&
            len == strlen(val) && memcmp(text, val, len) == 0)
            return true;
    }
    return false;
}

static void check_plane(const pv_model *m, char **col, int n_col)
{
    ck_assert_int_eq(n_col, 10);
    uint32_t p = (uint32_t)atoi(col[2]);
    ck_assert_uint_lt(p, m->n_planes);
    const pv_plane *pl = &m->planes[p];
    ck_assert_str_eq(pv_model_str(m, pl->name), col[9]);
    ck_assert_uint_eq(pl->n_tracks, strtoull(col[3], NULL, 10));
    uint64_t events = 0, stats = 0;
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        events += tr->n_events;
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++)
            stats += pv_model_event_own_stats(m, e, NULL, 0);
    }
    ck_assert_uint_eq(events, strtoull(col[4], NULL, 10));
    ck_assert_uint_eq(stats, strtoull(col[5], NULL, 10));
    ck_assert_uint_eq(pl->n_stats, strtoull(col[6], NULL, 10));
    uint64_t metas = 0, meta_stats = 0;
    for (uint32_t i = 0; i < m->n_metas; i++) {
        if (m->metas[i].plane == p) {
            metas++;
            meta_stats += m->metas[i].n_stats;
        }
    }
    ck_assert_uint_eq(metas, strtoull(col[7], NULL, 10));
    ck_assert_uint_eq(meta_stats, strtoull(col[8], NULL, 10));
}

/* Events per nesting depth over a plane's tracks, against the script's
 * independent stack walk. */
static void check_depths(const pv_model *m, char **col, int n_col)
{
    ck_assert_int_eq(n_col, 4);
    const pv_plane *pl = &m->planes[atoi(col[2])];
    uint64_t have[256] = {0};
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            ck_assert_uint_lt(m->ev_depth[e], 256);
            have[m->ev_depth[e]]++;
        }
    }
    int d = 0;
    for (char *p = col[3]; *p != '\0'; d++) {
        char *end;
        ck_assert_uint_eq(have[d], strtoull(p, &end, 10));
        p = *end == ',' ? end + 1 : end;
    }
    ck_assert_uint_eq(have[d], 0);
}

/* Events with a group and distinct group ids of a plane. */
static void check_groups(const pv_model *m, char **col, int n_col)
{
    ck_assert_int_eq(n_col, 5);
    const pv_plane *pl = &m->planes[atoi(col[2])];
    uint64_t grouped = 0, distinct = 0;
    static uint8_t seen[1 << 16];
    memset(seen, 0, sizeof seen);
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        for (uint64_t e = tr->first_event; e < tr->first_event + tr->n_events; e++) {
            int32_t g = m->ev_group[e];
            if (g == PV_NO_GROUP)
                continue;
            grouped++;
            ck_assert_int_lt(g, 1 << 16);
            distinct += seen[g] == 0;
            seen[g] = 1;
            ck_assert_ptr_nonnull(pv_model_group_find(m, g));
        }
    }
    ck_assert_uint_eq(grouped, strtoull(col[3], NULL, 10));
    ck_assert_uint_eq(distinct, strtoull(col[4], NULL, 10));
}

static void check_event(const pv_model *m, char **col, int n_col)
{
    ck_assert_int_ge(n_col, 8);
    const pv_plane *pl = &m->planes[atoi(col[2])];
    const pv_track *tr = &m->tracks[pl->first_track + (uint32_t)atoi(col[3])];
    int64_t start = strtoll(col[4], NULL, 10), dur = strtoll(col[5], NULL, 10);
    uint64_t found = UINT64_MAX;
    for (uint64_t e = pv_model_track_lower_bound(m, tr, start);
         e < tr->first_event + tr->n_events && m->ev_start_ps[e] == start; e++) {
        const char *name = pv_model_str(m, m->metas[m->ev_meta[e]].name);
        if (m->ev_dur_ps[e] == dur && strcmp(name, col[7]) == 0)
            found = e;
    }
    ck_assert_msg(found != UINT64_MAX, "event %s at %s not found", col[7], col[4]);
    ck_assert_uint_eq(pv_model_event_own_stats(m, found, NULL, 0), strtoull(col[6], NULL, 10));
    for (int i = 8; i < n_col; i++)
        ck_assert_msg(stat_matches(m, found, col[i]), "stat %s of %s", col[i], col[7]);
}

START_TEST(test_ingest_file_matches_protoc)
{
    PV_NEED_TESTDATA("test_ingest_file_matches_protoc");
    FILE *f = fopen(PV_SRCDIR "/tests/data/xplane/expected_counts.tsv", "r");
    ck_assert_ptr_nonnull(f);
    static char line[65536];
    pv_model *m = NULL;
    int files = 0, planes = 0, events = 0, depths = 0, groups = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (line[0] == '#')
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *col[64];
        int n_col = 0;
        for (char *tok = line; tok != NULL && n_col < 64; n_col++) {
            col[n_col] = tok;
            tok = strchr(tok, '\t');
            if (tok != NULL)
                *tok++ = '\0';
        }
        if (strcmp(col[0], "file") == 0) {
            pv_model_free(m);
            m = NULL;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", PV_TESTDATA, col[1]);
            pv_error err = {0};
            pv_progress prog = {0};
            ck_assert_msg(pv_ingest_file(path, &prog, &m, &err) == 0, "%s: %s", path, err.reason);
            ck_assert(pv_model_is_sane(m));
            ck_assert_uint_eq(prog.done_bytes, prog.total_bytes);
            ck_assert_uint_eq(m->n_planes, strtoull(col[2], NULL, 10));
            ck_assert_uint_eq(m->n_hostnames, strtoull(col[3], NULL, 10));
            ck_assert_uint_eq(m->n_errors, strtoull(col[4], NULL, 10));
            ck_assert_uint_eq(m->n_warnings, strtoull(col[5], NULL, 10));
            files++;
        } else if (strcmp(col[0], "plane") == 0) {
            check_plane(m, col, n_col);
            planes++;
        } else if (strcmp(col[0], "event") == 0) {
            check_event(m, col, n_col);
            events++;
        } else if (strcmp(col[0], "depths") == 0) {
            check_depths(m, col, n_col);
            depths++;
        } else if (strcmp(col[0], "groups") == 0) {
            check_groups(m, col, n_col);
            groups++;
        }
    }
    pv_model_free(m);
    fclose(f);
    ck_assert_int_eq(files, 9);
    ck_assert_int_gt(planes, 9);
    ck_assert_int_gt(events, 20);
    ck_assert_int_gt(depths, 20);
    ck_assert_int_gt(groups, 10);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("xspace_protoc");
    TCase *tc = tcase_create("pv_ingest_file");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_ingest_file_matches_protoc);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
