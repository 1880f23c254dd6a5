/* test_serialize: saving a model to a file and loading it back, and the
 * same through bytes in memory (server/model/serialize.h). The round trip of every column is checked
 * against values worked out by hand from the fixture below; the list of
 * columns comes from model/columns.h, so a column added there without a
 * check here fails the test. */
#include "ingest/ingest.h"
#include "model/builder.h"
#include "model/model_priv.h"
#include "model/serialize.h"
#include "model_fixture.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *tmp_path(void)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/pv-test-serialize-%ld.bin", (long)getpid());
    return path;
}

static char *tmp_src_path(void)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/pv-test-serialize-%ld.src", (long)getpid());
    return path;
}

/* Two models hold the same data, column by column (columns.h's list). */
static void assert_same_model(const pv_model *a, const pv_model *b)
{
    ck_assert_uint_eq(a->n_strings, b->n_strings);
    for (uint32_t i = 0; i < a->n_strings; i++)
        ck_assert_str_eq(a->strings[i], b->strings[i]);
    for (size_t i = 0; i < PV__N_COLUMNS; i++) {
        const pv__column *c = &pv__columns[i];
        uint64_t n = pv__column_entries(a, c);
        ck_assert_msg(pv__column_count(a, c) == pv__column_count(b, c), "%s", c->name);
        ck_assert_msg((pv__column_data(a, c) == NULL) == (pv__column_data(b, c) == NULL), "%s",
                      c->name);
        if (n == 0 || i == PV__COLUMN_tracks || i == PV__COLUMN_blobs)
            continue;   /* rows with pointers: below */
        ck_assert_msg(memcmp(pv__column_data(a, c), pv__column_data(b, c),
                             (size_t)n * c->elem) == 0, "column %s differs", c->name);
    }
    for (uint32_t t = 0; t < a->n_tracks; t++) {
        const pv_track *x = &a->tracks[t], *y = &b->tracks[t];
        ck_assert(x->plane == y->plane && x->line_id == y->line_id && x->name == y->name);
        ck_assert(x->first_event == y->first_event && x->n_events == y->n_events);
        ck_assert_uint_eq(x->n_depths, y->n_depths);
        if (x->n_events > 0) {
            ck_assert(memcmp(x->depth_start, y->depth_start,
                             (x->n_depths + 1) * sizeof *x->depth_start) == 0);
            ck_assert(memcmp(x->depth_index, y->depth_index,
                             x->n_events * sizeof *x->depth_index) == 0);
        }
    }
    for (uint32_t i = 0; i < a->n_blobs; i++) {
        ck_assert_uint_eq(a->blobs[i].len, b->blobs[i].len);
        ck_assert_int_eq(memcmp(a->blobs[i].data, b->blobs[i].data, a->blobs[i].len), 0);
    }
    ck_assert(a->has_group_stats == b->has_group_stats);
    ck_assert_int_eq(a->min_ps, b->min_ps);
    ck_assert_int_eq(a->max_ps, b->max_ps);
}

/* ---- every column ------------------------------------------------------------ */

/* The GPU event's stats in its source, counted by hand:
 *   bytes 0-5:   22 04 | 08 01 18 09   stat metadata 1, uint64 9
 *   bytes 6-11:  22 04 | 08 02 20 03   stat metadata 2, int64 3 */
static const uint8_t every_src[] = {0x22, 0x04, 0x08, 0x01, 0x18, 0x09,
                                    0x22, 0x04, 0x08, 0x02, 0x20, 0x03};

/* Host plane 5 "/host:CPU" (a 3-byte "Hlo Proto" stat), line 11:
 *   train [100, +1000] with group_id 3, step_num 42, step_name "train 3"
 *   op "Op Display" [200, +50] with correlation_id 9, inside train
 * ("train" lists "op", metadata id 2, as its child). Roles: train a step,
 * op a runtime call, kernel a kernel; group_id links launches and
 * correlation_id calls, so the kernel (group 3, correlation 9, read from
 * its source) was launched by train (group 3) through op (correlation 9).
 * GPU plane 7 "/device:GPU:0", stat metadata 1 correlation_id and
 * 2 group_id, line 3: kernel [300, +20], its stats in the source, its
 * metadata's kernel_details "regs:32 static_shared:16 dynamic_shared:8
 * grid:2,3,4 block:64,1,1 occ_pct:50".
 * Hostname "h", error "e1", warning "w1". */
static pv_model *every_column_model(void)
{
    pv_model_builder *b = pv_builder_new();
    pv_builder_source(b, every_src, sizeof every_src, PV_SRC_NONE);
    uint32_t host = pv_builder_plane(b, 5, "/host:CPU");
    uint32_t gpu = pv_builder_plane(b, 7, "/device:GPU:0");
    static const uint8_t hlo[] = {1, 2, 3};
    pv_builder_plane_stat_bytes(b, host, "Hlo Proto", hlo, sizeof hlo);
    pv_builder_plane_stat_name(b, gpu, 1, pv_builder_intern_cstr(b, "correlation_id"));
    pv_builder_plane_stat_name(b, gpu, 2, pv_builder_intern_cstr(b, "group_id"));
    uint32_t th = pv_builder_track(b, host, 11, "python3", 0);
    uint32_t ts = pv_builder_track(b, gpu, 3, "Stream #3", 0);
    uint32_t train = pv_builder_meta(b, host, 1, "train", NULL);
    pv_builder_meta(b, host, 2, "op", "Op Display");
    pv_builder_meta_child(b, train, 2);
    uint32_t kernel = pv_builder_meta(b, gpu, 1, "kernel", NULL);
    pv_builder_meta_stat_str(b, kernel, "kernel_details",
                             "regs:32 static_shared:16 dynamic_shared:8 grid:2,3,4 "
                             "block:64,1,1 occ_pct:50");
    static const char *const launch[] = {"group_id", NULL}, *const call[] = {"correlation_id",
                                                                             NULL};
    pv_builder_link_stats(b, launch, call);
    pv_builder_meta_role(b, train, PV_ROLE_STEP);
    pv_builder_meta_role(b, pv_builder_meta_find(b, host, 2), PV_ROLE_RUNTIME);
    pv_builder_meta_role(b, kernel, PV_ROLE_KERNEL);
    uint64_t e = pv_builder_event(b, th, train, 100, 1000);
    pv_builder_event_stat_i64(b, e, "group_id", 3);
    pv_builder_event_stat_i64(b, e, "step_num", 42);
    pv_builder_event_stat_str(b, e, "step_name", "train 3");
    e = pv_builder_event(b, th, pv_builder_meta_find(b, host, 2), 200, 50);
    pv_builder_event_stat_u64(b, e, "correlation_id", 9);
    pv_builder_event(b, ts, kernel, 300, 20);
    ck_assert(pv_builder_event_wire(b, 0, sizeof every_src));
    pv_builder_hostname(b, "h", 1);
    pv_builder_error(b, "e1", 2);
    pv_builder_warning(b, "w1", 2);
    return pv_test_finish(b);
}

static void check_str(const pv_model *m, uint32_t id, const char *want)
{
    ck_assert_str_eq(pv_model_str(m, id), want);
}

/* The fixture's columns, worked out by hand (events: 0 train, 1 op,
 * 2 kernel). */
static void check_every_column(const pv_model *m)
{
    for (size_t i = 0; i < PV__N_COLUMNS; i++) {
        const pv__column *c = &pv__columns[i];
        ck_assert_msg(pv__column_entries(m, c) > 0, "the fixture leaves %s empty", c->name);
        switch (i) {
        case PV__COLUMN_planes:
            ck_assert_uint_eq(m->n_planes, 2);
            ck_assert_int_eq(m->planes[0].id, 5);
            check_str(m, m->planes[0].name, "/host:CPU");
            ck_assert_uint_eq(m->planes[0].kind, PV_PLANE_HOST);
            ck_assert(m->planes[0].first_track == 0 && m->planes[0].n_tracks == 1);
            ck_assert(m->planes[0].first_stat == 5 && m->planes[0].n_stats == 1);
            ck_assert_int_eq(m->planes[1].id, 7);
            ck_assert_uint_eq(m->planes[1].kind, PV_PLANE_GPU);
            ck_assert_int_eq(m->planes[1].device_ordinal, 0);
            ck_assert(m->planes[1].first_track == 1 && m->planes[1].n_tracks == 1);
            ck_assert(m->planes[1].first_stat_name == 0 && m->planes[1].n_stat_names == 2);
            break;
        case PV__COLUMN_tracks: {
            ck_assert_uint_eq(m->n_tracks, 2);
            const pv_track *h = &m->tracks[0], *g = &m->tracks[1];
            ck_assert(h->plane == 0 && h->line_id == 11 && h->first_event == 0);
            check_str(m, h->name, "python3");
            ck_assert(h->n_events == 2 && h->n_depths == 2);
            ck_assert(h->depth_start[0] == 0 && h->depth_start[1] == 1 && h->depth_start[2] == 2);
            ck_assert(h->depth_index[0] == 0 && h->depth_index[1] == 1);
            ck_assert(g->plane == 1 && g->line_id == 3 && g->first_event == 2);
            ck_assert(g->n_events == 1 && g->n_depths == 1);
            ck_assert(g->depth_start[0] == 0 && g->depth_start[1] == 1 && g->depth_index[0] == 0);
            break;
        }
        case PV__COLUMN_metas:
            ck_assert_uint_eq(m->n_metas, 3);
            check_str(m, m->metas[0].name, "train");
            ck_assert(m->metas[0].first_child == 0 && m->metas[0].n_children == 1);
            check_str(m, m->metas[1].display_name, "Op Display");
            ck_assert(m->metas[2].plane == 1 && m->metas[2].id == 1);
            ck_assert(m->metas[2].first_stat == 4 && m->metas[2].n_stats == 1);
            break;
        case PV__COLUMN_meta_children:
            ck_assert_uint_eq(m->n_meta_children, 1);
            ck_assert_uint_eq(m->meta_children[0], 1);
            break;
        case PV__COLUMN_meta_roles:
            ck_assert(m->meta_roles[0] == PV_ROLE_STEP && m->meta_roles[1] == PV_ROLE_RUNTIME &&
                      m->meta_roles[2] == PV_ROLE_KERNEL);
            break;
        case PV__COLUMN_ev_start_ps:
            ck_assert_uint_eq(m->n_events, 3);
            ck_assert(m->ev_start_ps[0] == 100 && m->ev_start_ps[1] == 200 &&
                      m->ev_start_ps[2] == 300);
            break;
        case PV__COLUMN_ev_dur_ps:
            ck_assert(m->ev_dur_ps[0] == 1000 && m->ev_dur_ps[1] == 50 && m->ev_dur_ps[2] == 20);
            break;
        case PV__COLUMN_ev_meta:
            ck_assert(m->ev_meta[0] == 0 && m->ev_meta[1] == 1 && m->ev_meta[2] == 2);
            break;
        case PV__COLUMN_ev_depth:
            ck_assert(m->ev_depth[0] == 0 && m->ev_depth[1] == 1 && m->ev_depth[2] == 0);
            break;
        case PV__COLUMN_ev_stat_off:
            ck_assert(m->ev_stat_off[0] == 0 && m->ev_stat_off[1] == 3 &&
                      m->ev_stat_off[2] == 4 && m->ev_stat_off[3] == 4);
            break;
        case PV__COLUMN_ev_wire:
            ck_assert(m->ev_wire[0] == 0 && m->ev_wire[1] == 0);
            ck_assert_uint_eq(m->ev_wire[2], (uint64_t)0 << PV__WIRE_LEN_BITS | 12);
            break;
        case PV__COLUMN_ev_group:
            ck_assert(m->ev_group[0] == 3 && m->ev_group[1] == PV_NO_GROUP &&
                      m->ev_group[2] == 3);
            break;
        case PV__COLUMN_ev_extra:
            ck_assert(m->ev_extra[0] == 0 && m->ev_extra[1] == 1 && m->ev_extra[2] == 2);
            break;
        case PV__COLUMN_stats:
            /* the events' in event order, then the metadata's, then the planes' */
            ck_assert_uint_eq(m->n_stats, 6);
            check_str(m, m->stats[0].name, "group_id");
            ck_assert(m->stats[0].type == PV_STAT_I64 && m->stats[0].v.i64 == 3);
            check_str(m, m->stats[1].name, "step_num");
            ck_assert_int_eq(m->stats[1].v.i64, 42);
            ck_assert_uint_eq(m->stats[2].type, PV_STAT_STR);
            check_str(m, m->stats[2].v.str, "train 3");
            check_str(m, m->stats[3].name, "correlation_id");
            ck_assert(m->stats[3].type == PV_STAT_U64 && m->stats[3].v.u64 == 9);
            check_str(m, m->stats[4].name, "kernel_details");
            check_str(m, m->stats[5].name, "Hlo Proto");
            ck_assert(m->stats[5].type == PV_STAT_BYTES && m->stats[5].v.blob == 0);
            break;
        case PV__COLUMN_blobs:
            ck_assert_uint_eq(m->n_blobs, 1);
            ck_assert_uint_eq(m->blobs[0].len, 3);
            ck_assert(m->blobs[0].data[0] == 1 && m->blobs[0].data[2] == 3);
            break;
        case PV__COLUMN_stat_names:
            ck_assert_uint_eq(m->n_stat_names, 2);
            ck_assert_int_eq(m->stat_names[0].id, 1);
            check_str(m, m->stat_names[0].name, "correlation_id");
            ck_assert_int_eq(m->stat_names[1].id, 2);
            check_str(m, m->stat_names[1].name, "group_id");
            break;
        case PV__COLUMN_extras:
            ck_assert_uint_eq(m->n_extras, 3);
            ck_assert(m->extras[0].step == 0 && !(m->extras[0].flags & PV_EXTRA_CORRELATION));
            ck_assert(m->extras[1].flags == PV_EXTRA_CORRELATION &&
                      m->extras[1].correlation_id == 9 && m->extras[1].step == PV_NO_STEP);
            ck_assert_uint_eq(m->extras[2].flags, PV_EXTRA_CORRELATION | PV_EXTRA_KERNEL);
            ck_assert(m->extras[2].correlation_id == 9 && m->extras[2].detail == 0);
            break;
        case PV__COLUMN_kernels: {
            ck_assert_uint_eq(m->n_kernels, 1);
            const pv_kernel_details *k = &m->kernels[0];
            ck_assert(k->registers_per_thread == 32 && k->static_shmem_bytes == 16 &&
                      k->dynamic_shmem_bytes == 8);
            ck_assert(k->grid[0] == 2 && k->grid[1] == 3 && k->grid[2] == 4);
            ck_assert(k->block[0] == 64 && k->block[1] == 1 && k->block[2] == 1);
            ck_assert(k->occupancy_pct == 50.0);
            break;
        }
        case PV__COLUMN_step_infos:
            ck_assert_uint_eq(m->n_step_infos, 1);
            check_str(m, m->step_infos[0].step_name, "train 3");
            ck_assert(m->step_infos[0].step_id == -1 && m->step_infos[0].iter_num == -1 &&
                      m->step_infos[0].step_num == 42);
            break;
        case PV__COLUMN_groups:
            ck_assert_uint_eq(m->n_groups, 1);
            ck_assert_int_eq(m->groups[0].group_id, 3);
            check_str(m, m->groups[0].name, "train 3");
            ck_assert_int_eq(m->groups[0].step_num, 42);
            break;
        case PV__COLUMN_launches:
            ck_assert_uint_eq(m->n_launches, 1);
            ck_assert(m->launches[0].ev == 2 && m->launches[0].by == 0 &&
                      m->launches[0].call == 1);
            break;
        case PV__COLUMN_hostnames:
            ck_assert_uint_eq(m->n_hostnames, 1);
            check_str(m, m->hostnames[0], "h");
            break;
        case PV__COLUMN_errors:
            ck_assert_uint_eq(m->n_errors, 1);
            check_str(m, m->errors[0], "e1");
            break;
        case PV__COLUMN_warnings:
            ck_assert_uint_eq(m->n_warnings, 1);
            check_str(m, m->warnings[0], "w1");
            break;
        default:
            ck_abort_msg("column %s: this test does not check it yet", c->name);
        }
    }
    ck_assert(m->has_group_stats);
    ck_assert(m->min_ps == 100 && m->max_ps == 1100);
}

START_TEST(test_model_save_every_column)
{
    pv_model *m = every_column_model();
    check_every_column(m);
    pv_error err = {0};
    ck_assert_int_eq(pv_model_save(m, tmp_path(), &err), 0);
    FILE *f = fopen(tmp_src_path(), "wb");
    ck_assert_uint_eq(fwrite(every_src, 1, sizeof every_src, f), sizeof every_src);
    fclose(f);
    pv_model *back = NULL;
    ck_assert_int_eq(pv_model_load(tmp_path(), tmp_src_path(), &back, &err), 0);
    ck_assert(pv_model_is_sane(back));
    check_every_column(back);
    assert_same_model(m, back);
    ck_assert_uint_eq(back->mem_bytes, m->mem_bytes);
    /* the kernel's stats come from the source again, named */
    pv_stat own[4];
    ck_assert_uint_eq(pv_model_event_own_stats(back, 2, own, 4), 2);
    check_str(back, own[0].name, "correlation_id");
    ck_assert_uint_eq(own[0].v.u64, 9);
    check_str(back, own[1].name, "group_id");
    ck_assert_int_eq(own[1].v.i64, 3);
    pv_model_free(back);
    pv_model_free(m);
    unlink(tmp_path());
    unlink(tmp_src_path());
}
END_TEST

/* ---- round trips ------------------------------------------------------------- */

START_TEST(test_model_save_round_trip)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 3, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 0);
    uint32_t meta = pv_builder_meta(b, p, 1, "op", NULL);
    uint64_t e = pv_builder_event(b, t, meta, 10, 100);
    pv_builder_event_stat_str(b, e, "tf_op", "a:B");
    pv_builder_event(b, t, meta, 20, 5);
    uint8_t blob[] = {1, 2, 3};
    pv_builder_plane_stat_bytes(b, p, "Hlo Proto", blob, sizeof blob);
    pv_builder_hostname(b, "h", 1);
    pv_model *m = pv_test_finish(b);
    pv_error err = {0};
    ck_assert_int_eq(pv_model_save(m, tmp_path(), &err), 0);
    pv_model *back = NULL;
    ck_assert_int_eq(pv_model_load(tmp_path(), NULL, &back, &err), 0);
    ck_assert(pv_model_is_sane(back));
    assert_same_model(m, back);
    ck_assert_uint_eq(pv_model_str_find(back, "a:B"), pv_model_str_find(m, "a:B"));
    pv_model_free(back);
    pv_model_free(m);
    unlink(tmp_path());
}
END_TEST

START_TEST(test_model_save_round_trip_real)
{
    PV_NEED_TESTDATA("test_model_save_round_trip_real");
    pv_model *m = NULL, *back = NULL;
    pv_error err = {0};
    const char *src = pv_test_data_path("/logdirs/jax_tpu_v6e_inference/plugins/profile/"
                                        "tpu_inference/tpu_inference_2.xplane.pb");
    ck_assert_int_eq(pv_ingest_file(src, NULL, &m, &err), 0);
    ck_assert_int_eq(pv_model_save(m, tmp_path(), &err), 0);
    /* the model reads its events' stats from the profile: without it,
     * or with another file in its place, it does not load */
    ck_assert_int_eq(pv_model_load(tmp_path(), NULL, &back, &err), PV_EFORMAT);
    ck_assert_int_eq(pv_model_load(tmp_path(), PV_SRCDIR "/tests/data/xplane/"
                                   "crash-empty-metadata-entry.bin", &back, &err), PV_EFORMAT);
    ck_assert_ptr_null(back);
    ck_assert_int_eq(pv_model_load(tmp_path(), src, &back, &err), 0);
    assert_same_model(m, back);
    /* and reads the same stats as the decoded model: every event's */
    pv_stat sa[64], sb[64];
    for (uint64_t e = 0; e < m->n_events; e++) {
        size_t na = pv_model_event_own_stats(m, e, sa, 64);
        ck_assert_uint_eq(pv_model_event_own_stats(back, e, sb, 64), na);
        for (size_t k = 0; k < na && k < 64; k++)
            ck_assert(sa[k].name == sb[k].name && sa[k].type == sb[k].type &&
                      sa[k].v.u64 == sb[k].v.u64);
    }
    pv_model_free(back);
    pv_model_free(m);
    unlink(tmp_path());
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

/* Saves a one-event model, then changes its file: truncated to cut bytes,
 * byte flip xor'ed with 0x40, and (unless 0) the format version in the
 * header (bytes 8-11) set to version. Returns what pv_model_load says. */
static int load_changed(size_t cut, size_t flip, uint32_t version, pv_error *err)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 0, "/host:CPU");
    uint32_t t = pv_builder_track(b, p, 1, "t", 0);
    pv_builder_event(b, t, pv_builder_meta(b, p, 1, "op", NULL), 0, 1);
    pv_model *m = pv_test_finish(b);
    ck_assert_int_eq(pv_model_save(m, tmp_path(), err), 0);
    pv_model_free(m);
    FILE *f = fopen(tmp_path(), "rb");
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ck_assert_uint_lt(n, sizeof buf);
    ck_assert_uint_gt(n, 600);   /* so the cuts below land inside */
    if (flip < n)
        buf[flip] ^= 0x40;
    if (version != 0)
        memcpy(buf + 8, &version, sizeof version);
    f = fopen(tmp_path(), "wb");
    fwrite(buf, 1, cut < n ? cut : n, f);
    fclose(f);
    pv_model *back = (pv_model *)1;
    int rc = pv_model_load(tmp_path(), NULL, &back, err);
    ck_assert(rc != 0 || back != NULL);
    ck_assert(rc == 0 || back == NULL);
    pv_model_free(rc == 0 ? back : NULL);
    unlink(tmp_path());
    return rc;
}

START_TEST(test_model_load_rejects_damage)
{
    pv_error err = {0};
    ck_assert_int_eq(load_changed(SIZE_MAX, SIZE_MAX, 0, &err), 0);
    ck_assert_int_eq(load_changed(600, SIZE_MAX, 0, &err), PV_EFORMAT);
    ck_assert(strstr(err.reason, "truncated") != NULL);
    ck_assert_int_eq(load_changed(SIZE_MAX, 100, 0, &err), PV_EFORMAT);
    ck_assert(strstr(err.reason, "checksum") != NULL);
    ck_assert_int_eq(load_changed(SIZE_MAX, 0, 0, &err), PV_EFORMAT);
    ck_assert(strstr(err.reason, "not a profview model") != NULL);
    ck_assert_int_eq(load_changed(SIZE_MAX, 8, 0, &err), PV_EFORMAT);
    ck_assert(strstr(err.reason, "another version") != NULL);
    ck_assert_int_eq(load_changed(10, SIZE_MAX, 0, &err), PV_EFORMAT);
    pv_model *m = NULL;
    ck_assert_int_eq(pv_model_load("/nonexistent/model.bin", NULL, &m, &err), PV_EIO);
    ck_assert_ptr_null(m);
}
END_TEST

/* A file that says it is of the version before (4, without roles and
 * launch links) is refused, never read with this version's layout: the
 * cache then decodes the profile again. Its payload is intact, so the
 * version alone refuses it. */
START_TEST(test_model_load_refuses_old_version)
{
    ck_assert_uint_eq(PV_MODEL_FILE_VERSION, 5);
    pv_error err = {0};
    ck_assert_int_eq(load_changed(SIZE_MAX, SIZE_MAX, 4, &err), PV_EFORMAT);
    ck_assert(strstr(err.reason, "another version") != NULL);
    ck_assert_int_eq(load_changed(SIZE_MAX, SIZE_MAX, PV_MODEL_FILE_VERSION, &err), 0);
}
END_TEST

/* ---- in memory ------------------------------------------------------------------ */

/* The round trip's model without stats read from a file (a model in memory
 * has no profile to read them from): written after 16 bytes of the
 * caller's, bound in place, and the same column by column. */
static pv_model *memory_model(void)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t p = pv_builder_plane(b, 3, "/device:GPU:0");
    uint32_t t = pv_builder_track(b, p, 0xdeadbeefll + 293, "XLA Ops - from #7", 0);
    pv_builder_track_set(b, t, 5, 0, 0);
    pv_builder_track_kind(b, t, PV_TRACK_XLA_OPS);
    uint32_t meta = pv_builder_meta(b, p, 1, "5/fusion.1", "fusion.1");
    uint64_t e = pv_builder_event(b, t, meta, 10, 100);
    pv_builder_event_stat_i64(b, e, "group_id", 2);
    pv_builder_event(b, t, meta, 20, 5);
    return pv_test_finish(b);
}

START_TEST(test_model_write_buf_load_mem)
{
    pv_model *m = memory_model();
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    pv_buf_add(&b, "sixteen bytes...", 16);
    pv_error err = {0};
    ck_assert_int_eq(pv_model_write_buf(m, &b, &err), 0);
    pv_model *back = NULL;
    ck_assert_msg(pv_model_load_mem((const uint8_t *)b.data + 16, b.len - 16, &back, &err) == 0,
                  "%s", err.reason);
    ck_assert(pv_model_is_sane(back));
    assert_same_model(m, back);
    /* the kind given by hand, the display id and the group survive; the
     * columns are the caller's bytes, not copies */
    ck_assert_uint_eq(back->tracks[0].kind, PV_TRACK_XLA_OPS);
    ck_assert_int_eq(back->tracks[0].display_id, 5);
    ck_assert_int_eq(back->ev_group[0], 2);
    ck_assert_str_eq(pv_model_event_name(back, 0), "fusion.1");
    ck_assert((const char *)back->ev_start_ps > b.data &&
              (const char *)back->ev_start_ps < b.data + b.len);
    ck_assert_uint_lt(back->mem_bytes, m->mem_bytes);
    pv_model_free(back);   /* leaves the bytes alone */
    ck_assert_int_eq(pv_model_load_mem((const uint8_t *)b.data + 16, b.len - 16, &back, &err), 0);
    pv_model_free(back);
    pv_buf_fini(&b);
    pv_model_free(m);
}
END_TEST

START_TEST(test_model_load_mem_rejects)
{
    pv_model *m = memory_model();
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    pv_error err = {0};
    /* a buffer whose length is no multiple of 16 is refused up front */
    pv_buf_add(&b, "x", 1);
    ck_assert_int_eq(pv_model_write_buf(m, &b, &err), PV_ETOOBIG);
    pv_buf_reset(&b);
    ck_assert_int_eq(pv_model_write_buf(m, &b, &err), 0);
    pv_model *back = NULL;
    /* cut short, misaligned, or not a model */
    ck_assert_int_eq(pv_model_load_mem((const uint8_t *)b.data, b.len - 16, &back, &err),
                     PV_EFORMAT);
    ck_assert_ptr_null(back);
    uint8_t *shifted = malloc(b.len + 16);
    memcpy(shifted + 8, b.data, b.len);
    ck_assert_int_eq(pv_model_load_mem(shifted + 8, b.len, &back, &err), PV_EFORMAT);
    memset(shifted, 0, b.len);
    ck_assert_int_eq(pv_model_load_mem(shifted, b.len, &back, &err), PV_EFORMAT);
    free(shifted);
    pv_buf_fini(&b);
    pv_model_free(m);
}
END_TEST

static Suite *serialize_suite(void)
{
    Suite *s = suite_create("serialize");
    TCase *save = tcase_create("pv_model_save");
    tcase_add_test(save, test_model_save_every_column);
    tcase_add_test(save, test_model_save_round_trip);
    tcase_add_test(save, test_model_save_round_trip_real);
    suite_add_tcase(s, save);
    TCase *load = tcase_create("pv_model_load");
    tcase_add_test(load, test_model_load_rejects_damage);
    tcase_add_test(load, test_model_load_refuses_old_version);
    suite_add_tcase(s, load);
    TCase *mem = tcase_create("pv_model_load_mem");
    tcase_add_test(mem, test_model_write_buf_load_mem);
    tcase_add_test(mem, test_model_load_mem_rejects);
    suite_add_tcase(s, mem);
    return s;
}

int main(void)
{
    return pv_test_run(serialize_suite());
}
