/* Tests of tool_trace_cache as the model store's companion: the trace
 * index is built by the loader without any trace request and is the same
 * index a fresh build gives; one budget covers models and indexes, and the
 * least recently used model is dropped with its index (never a held one);
 * coarse tiles are kept, copied out and charged to the budget; with a disk
 * cache the index is saved and read back at the next start. The files
 * are real profiles of the reference corpus in tests/data/reference. */
#include "cache/disk.h"
#include "cache/trace_cache.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define REF PV_SRCDIR "/tests/data/reference/"
#define FILE_A REF "tf_memory/plugins/profile/2026_11_29_17_36_35/vm.xplane.pb"
#define FILE_B REF "jax_train/plugins/profile/2026_11_29_17_36_39/vm.xplane.pb"

static pv_source source_of(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return pv_source_file(path, NULL, pv_file_id_of(&st));
}

/* The trace companion without its warm-up: the tools' memos it makes
 * after the index (tools/registry.h) would be counted in the budget at a
 * moment these tests cannot wait for, and test_store tests them. */
static const pv_model_companion *index_only(void)
{
    static pv_model_companion c;
    c = *pv_trace_companion();
    c.warm = NULL;
    return &c;
}

/* Polls (never gets) src until its model and index are both settled. */
static pv_load_status settle(pv_model_store *s, const pv_source *src)
{
    pv_load_status st;
    for (int i = 0; i < 3000; i++) {
        pv_model_store_poll(s, src, &st);
        if (st.state != PV_LOAD_LOADING && st.companion_state != PV_LOAD_LOADING)
            return st;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    ck_abort_msg("%s did not load in 30 s", src->path);
    return st;
}

START_TEST(test_store_builds_index_at_load)
{
    pv_disk_cache off = {0};
    pv_model_store *s = pv_model_store_new(0, &off, index_only());
    pv_source a = source_of(FILE_A);
    pv_load_status st = settle(s, &a);
    ck_assert_int_eq(st.state, PV_LOAD_READY);
    ck_assert_int_eq(st.companion_state, PV_LOAD_READY);
    const pv_model *m;
    pv_model_entry *e;
    ck_assert_int_eq(pv_model_store_get(s, &a, &m, &e, NULL), 0);
    /* The kept index is the one a fresh build of the same model gives. */
    pv_trace_index *fresh = NULL;
    ck_assert_int_eq(pv_trace_index_new(m, NULL, &fresh, NULL), 0);
    ck_assert_uint_gt(fresh->bytes, 0);
    ck_assert_uint_eq(st.companion_bytes, fresh->bytes);
    ck_assert_uint_eq(st.model_bytes, m->mem_bytes);
    ck_assert_uint_eq(pv_model_store_bytes(s), m->mem_bytes + fresh->bytes);
    const pv_trace_index *i1, *i2;
    pv_trace_hold *h1, *h2;
    ck_assert_int_eq(pv_trace_cache_get(s, e, &i1, &h1, NULL), 0);
    ck_assert_int_eq(pv_trace_cache_get(s, e, &i2, &h2, NULL), 0);
    ck_assert_ptr_eq(i1, i2);
    ck_assert_uint_eq(i1->n_corr, fresh->n_corr);
    ck_assert_uint_eq(i1->n_counters, fresh->n_counters);
    pv_trace_index_free(fresh);
    pv_model_store_put(s, e);
    pv_model_store_free(s);
}
END_TEST

/* Model + index bytes of one file, loaded alone. */
static size_t size_alone(const pv_source *src)
{
    pv_disk_cache off = {0};
    pv_model_store *s = pv_model_store_new(0, &off, index_only());
    pv_load_status st = settle(s, src);
    ck_assert_uint_gt(st.companion_bytes, 0);
    size_t n = st.model_bytes + st.companion_bytes;
    ck_assert_uint_eq(pv_model_store_bytes(s), n);
    pv_model_store_free(s);
    return n;
}

START_TEST(test_store_budget_drops_model_and_index_together)
{
    pv_source a = source_of(FILE_A), b = source_of(FILE_B);
    size_t size_a = size_alone(&a), size_b = size_alone(&b);
    /* Both models fit, but not both with their indexes. */
    pv_disk_cache off = {0};
    pv_model_store *s = pv_model_store_new(size_a + size_b - 1, &off, index_only());
    ck_assert_uint_eq(pv_model_store_budget(s), size_a + size_b - 1);
    const pv_model *m;
    pv_model_entry *ea, *eb;
    ck_assert_int_eq(pv_model_store_get(s, &a, &m, &ea, NULL), 0);
    settle(s, &a);
    /* a is held: b's index cannot drop it, so both stay, over budget */
    pv_load_status st = settle(s, &b);
    ck_assert_int_eq(st.companion_state, PV_LOAD_READY);
    ck_assert_uint_eq(pv_model_store_bytes(s), size_a + size_b);
    pv_model_store_put(s, ea);
    pv_model_store_free(s);

    s = pv_model_store_new(size_a + size_b - 1, &off, index_only());
    ck_assert_int_eq(pv_model_store_get(s, &a, &m, &ea, NULL), 0);
    settle(s, &a);
    pv_model_store_put(s, ea);
    /* a unheld and least recently used: b's index, for a request that
     * waits for b, drops a's model and index together, and only b is left
     * (a load only polled for would leave a, just used, alone: test_store) */
    ck_assert_int_eq(pv_model_store_get(s, &b, &m, &eb, NULL), 0);
    st = settle(s, &b);
    ck_assert_int_eq(st.companion_state, PV_LOAD_READY);
    ck_assert_uint_eq(pv_model_store_bytes(s), size_b);
    pv_model_store_put(s, eb);
    /* asking for a again starts a new load (it was dropped) */
    pv_model_store_poll(s, &a, &st);
    ck_assert(st.state == PV_LOAD_LOADING || st.model_bytes + st.companion_bytes < size_a);
    pv_model_store_free(s);
}
END_TEST

START_TEST(test_cache_tiles)
{
    pv_disk_cache off = {0};
    pv_source a = source_of(FILE_A);
    size_t size_a = size_alone(&a);
    /* room for the model, its index and 8 bytes of kept answers: a key's
     * bytes and its body's count */
    pv_model_store *s = pv_model_store_new(size_a + 8, &off, index_only());
    const pv_model *m;
    pv_model_entry *e;
    ck_assert_int_eq(pv_model_store_get(s, &a, &m, &e, NULL), 0);
    const pv_trace_index *ix;
    pv_trace_hold *h;
    ck_assert_int_eq(pv_trace_cache_get(s, e, &ix, &h, NULL), 0);
    char *body;
    size_t len;
    bool gz = false;
    ck_assert_int_eq(pv_trace_cache_kept_get(h, "t1", &body, &len, &gz), PV_ENOTFOUND);
    pv_trace_cache_kept_put(s, e, h, "t1", "abc", 3, true);
    ck_assert_int_eq(pv_trace_cache_kept_get(h, "t1", &body, &len, &gz), 0);
    ck_assert_uint_eq(len, 3);
    ck_assert(gz);
    ck_assert(memcmp(body, "abc", 3) == 0);
    free(body);
    ck_assert_int_eq(pv_trace_cache_kept_get(h, "t2", &body, &len, &gz), PV_ENOTFOUND);
    /* "t1" and "abc": 5 bytes */
    ck_assert_uint_eq(pv_model_store_bytes(s), size_a + 5);
    /* a second put of a key keeps the first */
    pv_trace_cache_kept_put(s, e, h, "t1", "x", 1, false);
    ck_assert_int_eq(pv_trace_cache_kept_get(h, "t1", &body, &len, &gz), 0);
    ck_assert_uint_eq(len, 3);
    free(body);
    ck_assert_uint_eq(pv_model_store_bytes(s), size_a + 5);
    /* 4 more bytes would pass the budget: not kept, not counted */
    pv_trace_cache_kept_put(s, e, h, "t2", "de", 2, false);
    ck_assert_int_eq(pv_trace_cache_kept_get(h, "t2", &body, &len, &gz), PV_ENOTFOUND);
    ck_assert_uint_eq(pv_model_store_bytes(s), size_a + 5);
    pv_load_status st;
    pv_model_store_poll(s, &a, &st);
    ck_assert_uint_eq(st.companion_bytes, ix->bytes + 5);
    pv_model_store_put(s, e);
    pv_model_store_free(s);
}
END_TEST

/* The index of FILE_A held by a store on disk; *read_back whether it was
 * read from the disk cache rather than built. */
static void index_of(pv_disk_cache *disk, size_t *n_corr, size_t *n_counters,
                     uint32_t *levels, bool *read_back)
{
    pv_model_store *s = pv_model_store_new(0, disk, index_only());
    pv_source a = source_of(FILE_A);
    pv_load_status st = settle(s, &a);
    ck_assert_int_eq(st.companion_state, PV_LOAD_READY);
    const pv_model *m;
    pv_model_entry *e;
    ck_assert_int_eq(pv_model_store_get(s, &a, &m, &e, NULL), 0);
    const pv_trace_index *ix;
    pv_trace_hold *h;
    ck_assert_int_eq(pv_trace_cache_get(s, e, &ix, &h, NULL), 0);
    *n_corr = ix->n_corr;
    *n_counters = ix->n_counters;
    *levels = pv_trace_pyramid_levels(ix->pyramid);
    *read_back = ix->block != NULL;
    ck_assert_uint_eq(st.companion_bytes, ix->bytes);
    pv_model_store_put(s, e);
    pv_model_store_free(s);
}

/* The path of the one saved index in folder, or "" (cap bytes). */
static void saved_index(const char *folder, char *path, size_t cap)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s/*.pvi 2>/dev/null", folder);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    path[0] = '\0';
    if (fgets(path, (int)cap, p) != NULL)
        path[strcspn(path, "\n")] = '\0';
    pclose(p);
}

/* A store with a disk cache saves the index it built, and the next start
 * reads it back instead of building it; a saved index that does not read
 * (a byte changed) is removed and the index built again. */
START_TEST(test_store_reads_index_back)
{
    char dir[] = "/tmp/pv-trace-cache-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char folder[64];
    snprintf(folder, sizeof folder, "%s/cache", dir);
    pv_disk_cache disk;
    pv_disk_cache_init(&disk, folder, PV_DISK_CACHE_MAX_AUTO);
    size_t corr[3], counters[3];
    uint32_t levels[3];
    bool back[3];
    index_of(&disk, &corr[0], &counters[0], &levels[0], &back[0]);
    char saved[512];
    saved_index(folder, saved, sizeof saved);
    ck_assert_msg(saved[0] != '\0', "no index saved in %s", folder);
    index_of(&disk, &corr[1], &counters[1], &levels[1], &back[1]);
    ck_assert(!back[0] && back[1]);
    ck_assert_uint_gt(counters[0], 0);
    ck_assert_uint_eq(corr[1], corr[0]);
    ck_assert_uint_eq(counters[1], counters[0]);
    ck_assert_uint_eq(levels[1], levels[0]);

    FILE *f = fopen(saved, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, 100, SEEK_SET), 0);
    int c = fgetc(f);
    ck_assert_int_eq(fseek(f, 100, SEEK_SET), 0);
    fputc(c ^ 0x40, f);
    fclose(f);
    index_of(&disk, &corr[2], &counters[2], &levels[2], &back[2]);
    ck_assert(!back[2]);
    ck_assert_uint_eq(corr[2], corr[0]);
    pv_disk_cache_fini(&disk);
    pv_test_remove_tree(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trace_cache");
    TCase *tc = tcase_create("pv_model_store_companion");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_store_builds_index_at_load);
    tcase_add_test(tc, test_store_budget_drops_model_and_index_together);
    tcase_add_test(tc, test_store_reads_index_back);
    suite_add_tcase(s, tc);
    tc = tcase_create("pv_trace_cache_kept_get");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cache_tiles);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
