/* Tests of the model store's scheduling (cache/store.h): the memory budget
 * bounds what is held and what is being loaded together; a load only
 * polled for never drops a model in use, a load a request waits for may,
 * and one that cannot fit still runs when nothing else loads (so a request
 * holding one model while it waits for another cannot hang); a failure is
 * tried again after the retry time even when the file looks unchanged.
 * Sizes come from the store itself after one load (what a model costs is
 * docs/model.md's business); the expected states follow from the rules. */
#include "cache/disk.h"
#include "cache/store.h"
#include "model/memo.h"
#include "util/quiet.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REF PV_SRCDIR "/tests/data/reference/"
#define FILE_A REF "tf_memory/plugins/profile/2026_11_29_17_36_35/vm.xplane.pb"
#define FILE_B REF "jax_train/plugins/profile/2026_11_29_17_36_39/vm.xplane.pb"
#define SMALL PV_SRCDIR "/demo/plugins/profile/2026_11_29_17_33_29/vm.xplane.pb"

static pv_source source_of(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return pv_source_file(path, NULL, pv_file_id_of(&st));
}

static void sleep_ms(long ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

/* A disk cache in folder, a fresh folder under the new temporary dir
 * (a mkdtemp template). */
static void cache_in_temp(char *dir, char folder[64], pv_disk_cache *disk)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(folder, 64, "%s/cache", dir);
    pv_disk_cache_init(disk, folder, PV_DISK_CACHE_MAX_AUTO);
}

/* The bytes a model of path holds once loaded, from a store of its own. */
static size_t model_bytes(const char *path)
{
    pv_disk_cache off = {0};
    pv_model_store *s = pv_model_store_new(0, &off, NULL);
    pv_source src = source_of(path);
    const pv_model *m;
    pv_model_entry *e;
    ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, NULL), 0);
    size_t n = pv_model_store_bytes(s);
    pv_model_store_put(s, e);
    pv_model_store_free(s);
    return n;
}

/* A model a page is using is not dropped for a load that is only polled
 * for: that load waits, queued; a request that needs it may drop the idle
 * one. */
START_TEST(test_store_poll_does_not_evict)
{
    size_t a_bytes = model_bytes(FILE_A);
    pv_disk_cache off = {0};
    /* Room for A, not for A and B's estimate (1.5x B's file). */
    pv_model_store *s = pv_model_store_new(a_bytes + 1000, &off, NULL);
    pv_source a = source_of(FILE_A), b = source_of(FILE_B);
    const pv_model *m;
    pv_model_entry *ea;
    ck_assert_int_eq(pv_model_store_get(s, &a, &m, &ea, NULL), 0);
    pv_model_store_put(s, ea);
    pv_load_status st;
    for (int i = 0; i < 5; i++) {
        pv_model_store_poll(s, &b, &st);
        ck_assert_int_eq(st.state, PV_LOAD_LOADING);
        ck_assert(st.queued);
        ck_assert_uint_eq(st.done_bytes, 0);
        sleep_ms(20);
    }
    ck_assert_uint_eq(pv_model_store_bytes(s), a_bytes);
    /* A request for B may drop A, which nothing holds. */
    pv_model_entry *eb;
    ck_assert_int_eq(pv_model_store_get(s, &b, &m, &eb, NULL), 0);
    pv_model_store_put(s, eb);
    pv_model_store_poll(s, &b, &st);
    ck_assert_int_eq(st.state, PV_LOAD_READY);
    ck_assert_uint_eq(pv_model_store_bytes(s), st.model_bytes);
    pv_model_store_free(s);
}
END_TEST

/* Once the model in use is left alone long enough, the polled load may
 * drop it and runs. */
START_TEST(test_store_poll_evicts_idle)
{
    size_t a_bytes = model_bytes(FILE_A);
    pv_disk_cache off = {0};
    pv_model_store *s = pv_model_store_new(a_bytes + 1000, &off, NULL);
    pv_model_store_set_timing(s, 10000000000LL, 50000000LL);
    pv_source a = source_of(FILE_A), b = source_of(FILE_B);
    const pv_model *m;
    pv_model_entry *ea;
    ck_assert_int_eq(pv_model_store_get(s, &a, &m, &ea, NULL), 0);
    pv_model_store_put(s, ea);
    sleep_ms(100);
    pv_load_status st;
    for (int i = 0; i < 3000; i++) {
        pv_model_store_poll(s, &b, &st);
        if (st.state != PV_LOAD_LOADING)
            break;
        sleep_ms(10);
    }
    ck_assert_int_eq(st.state, PV_LOAD_READY);
    ck_assert_uint_eq(pv_model_store_bytes(s), st.model_bytes);
    pv_model_store_free(s);
}
END_TEST

/* A request holding A that waits for B, with no room for both, gets B:
 * nothing else loads, so B runs over the budget rather than never. */
START_TEST(test_store_wanted_load_runs_alone_over_budget)
{
    size_t a_bytes = model_bytes(FILE_A);
    pv_disk_cache off = {0};
    pv_model_store *s = pv_model_store_new(a_bytes + 1000, &off, NULL);
    pv_source a = source_of(FILE_A), b = source_of(FILE_B);
    const pv_model *ma, *mb;
    pv_model_entry *ea, *eb;
    ck_assert_int_eq(pv_model_store_get(s, &a, &ma, &ea, NULL), 0);
    ck_assert_int_eq(pv_model_store_get(s, &b, &mb, &eb, NULL), 0);
    ck_assert_ptr_nonnull(ma);
    ck_assert_ptr_nonnull(mb);
    ck_assert_uint_gt(pv_model_store_bytes(s), pv_model_store_budget(s));
    pv_model_store_put(s, ea);
    pv_model_store_put(s, eb);
    pv_model_store_free(s);
}
END_TEST

/* A file that failed keeps its error while it looks unchanged, and is tried
 * again after the retry time: fixed in place with the same size and mtime,
 * it loads. */
START_TEST(test_store_failure_retried)
{
    char dir[] = "/tmp/pv-store-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/h.xplane.pb", dir);
    size_t len;
    uint8_t *good = pv_test_read_file(SMALL, &len);
    uint8_t *bad = malloc(len);
    memset(bad, 0xff, len);
    FILE *f = fopen(path, "wb");
    ck_assert_uint_eq(fwrite(bad, 1, len, f), len);
    fclose(f);
    pv_source src = source_of(path);
    pv_disk_cache off = {0};
    pv_model_store *s = pv_model_store_new(0, &off, NULL);
    pv_model_store_set_timing(s, 200000000LL, 10000000000LL);
    const pv_model *m;
    pv_model_entry *e;
    pv_error err = {0};
    ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, &err), PV_EFORMAT);
    /* Fixed, with the same size and mtime as the broken copy. */
    f = fopen(path, "wb");
    ck_assert_uint_eq(fwrite(good, 1, len, f), len);
    fclose(f);
    struct timespec times[2] = {{0, UTIME_OMIT},
                                {src.id.mtime_ns / 1000000000, src.id.mtime_ns % 1000000000}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, &err), PV_EFORMAT);
    sleep_ms(250);
    ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, &err), 0);
    pv_model_store_put(s, e);
    pv_model_store_free(s);
    unlink(path);
    rmdir(dir);
    free(good);
    free(bad);
}
END_TEST

static int memo_calls;

/* A memo of 1000 bytes, each 7. */
static int make_memo(const pv_model *m, void *arg, uint8_t **data, size_t *len, pv_error *err)
{
    (void)m;
    (void)arg;
    (void)err;
    memo_calls++;
    *data = malloc(1000);
    memset(*data, 7, 1000);
    *len = 1000;
    return 0;
}

/* A memo a request makes counts in the budget from the put that ends the
 * request, and is saved for the next start: a store on the same disk
 * cache gives the model it loads the memo, counted from the start, and
 * never makes it again. */
START_TEST(test_store_memos_counted_and_saved)
{
    char dir[] = "/tmp/pv-store-XXXXXX", folder[64];
    pv_disk_cache disk;
    cache_in_temp(dir, folder, &disk);
    pv_source src = source_of(SMALL);
    memo_calls = 0;

    pv_model_store *s = pv_model_store_new(0, &disk, NULL);
    const pv_model *m;
    pv_model_entry *e;
    ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, NULL), 0);
    size_t model_only = pv_model_store_bytes(s);
    const uint8_t *d;
    size_t len;
    bool owned;
    ck_assert_int_eq(pv_model_memo(m, "test memo", make_memo, NULL, &d, &len, &owned, NULL), 0);
    pv_model_store_put(s, e);
    ck_assert_uint_eq(pv_model_store_bytes(s), model_only + 1000);
    pv_model_store_free(s);

    s = pv_model_store_new(0, &disk, NULL);
    ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, NULL), 0);
    ck_assert_uint_eq(pv_model_store_bytes(s), model_only + 1000);
    ck_assert_int_eq(pv_model_memo(m, "test memo", make_memo, NULL, &d, &len, &owned, NULL), 0);
    ck_assert_int_eq(memo_calls, 1);
    ck_assert_uint_eq(len, 1000);
    ck_assert_uint_eq(d[0], 7);
    ck_assert_uint_eq(d[999], 7);
    pv_model_store_put(s, e);
    pv_model_store_free(s);
    pv_disk_cache_fini(&disk);
    pv_test_remove_tree(dir);
}
END_TEST

static int build_nothing(const pv_model *m, pv_meter *meter, void **out, size_t *bytes,
                         pv_error *err)
{
    (void)m;
    (void)meter;
    (void)err;
    *out = malloc(1);
    *bytes = 1;
    return 0;
}

/* A warm-up that makes the memo of make_memo. */
static void warm_test_memo(const pv_model *m)
{
    const uint8_t *d;
    size_t len;
    bool owned;
    pv_model_memo(m, "test memo", make_memo, NULL, &d, &len, &owned, NULL);
}

/* The companion's warm-up makes its memos on the loader thread and they
 * are saved with the model with no request asking for them: the next
 * store on the same disk cache finds the memo made once, by the first
 * store's loader. */
START_TEST(test_store_warm_memos_saved)
{
    char dir[] = "/tmp/pv-store-XXXXXX", folder[64];
    pv_disk_cache disk;
    cache_in_temp(dir, folder, &disk);
    pv_source src = source_of(SMALL);
    memo_calls = 0;
    const pv_model_companion warm = {build_nothing, free, warm_test_memo, NULL, NULL};

    pv_model_store *s = pv_model_store_new(0, &disk, &warm);
    const pv_model *m;
    pv_model_entry *e;
    ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, NULL), 0);
    pv_model_store_put(s, e);
    pv_model_store_free(s);   /* waits for the loader, warm-up and saves included */
    ck_assert_int_eq(memo_calls, 1);

    s = pv_model_store_new(0, &disk, &warm);
    ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, NULL), 0);
    ck_assert_uint_eq(pv_model_memo_count(m), 1);
    const char *name;
    const uint8_t *d;
    size_t len;
    pv_model_memo_at(m, 0, &name, &d, &len);
    ck_assert_str_eq(name, "test memo");
    ck_assert_uint_eq(len, 1000);
    ck_assert_uint_eq(d[999], 7);
    pv_model_store_put(s, e);
    pv_model_store_free(s);
    ck_assert_int_eq(memo_calls, 1);
    pv_disk_cache_fini(&disk);
    pv_test_remove_tree(dir);
}
END_TEST

/* The loader writes the model to the disk cache in a moment without
 * requests: while one is in flight (another page's), no saved model
 * appears; once it ends, one does, no sooner than the gap after it.
 * A store whose quiet is switched off (the server stopping) saves with
 * the request still in flight (that its waits then return at once is
 * test_quiet's). */
START_TEST(test_store_saves_when_quiet)
{
    const int64_t gap = 50000000LL;
    char dir[] = "/tmp/pv-store-XXXXXX", folder[64];
    pv_disk_cache disk;
    cache_in_temp(dir, folder, &disk);
    pv_source src = source_of(SMALL);
    pv_quiet q;
    pv_quiet_init(&q, gap);
    pv_quiet_enter(&q);

    pv_model_store *s = pv_model_store_new(0, &disk, NULL);
    pv_model_store_set_quiet(s, &q);
    const pv_model *m;
    pv_model_entry *e;
    ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, NULL), 0);
    pv_model_store_put(s, e);
    sleep_ms(400);
    ck_assert_ptr_null(pv_model_store_saved(s, &src));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pv_quiet_leave(&q);
    pv_model_store_free(s);   /* waits for the loader's save */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int64_t took = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    ck_assert_int_ge(took, gap);
    s = pv_model_store_new(0, &disk, NULL);
    char *saved = pv_model_store_saved(s, &src);
    ck_assert_ptr_nonnull(saved);
    free(saved);
    pv_model_store_free(s);
    pv_disk_cache_fini(&disk);
    pv_test_remove_tree(folder);

    pv_disk_cache_init(&disk, folder, PV_DISK_CACHE_MAX_AUTO);
    pv_quiet_enter(&q);
    s = pv_model_store_new(0, &disk, NULL);
    pv_model_store_set_quiet(s, &q);
    ck_assert_int_eq(pv_model_store_get(s, &src, &m, &e, NULL), 0);
    pv_model_store_put(s, e);
    pv_quiet_off(&q);
    pv_model_store_free(s);
    s = pv_model_store_new(0, &disk, NULL);
    saved = pv_model_store_saved(s, &src);
    ck_assert_ptr_nonnull(saved);
    free(saved);
    pv_model_store_free(s);
    pv_disk_cache_fini(&disk);
    pv_test_remove_tree(dir);
}
END_TEST

static Suite *store_suite(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("pv_model_store");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_store_poll_does_not_evict);
    tcase_add_test(tc, test_store_poll_evicts_idle);
    tcase_add_test(tc, test_store_wanted_load_runs_alone_over_budget);
    tcase_add_test(tc, test_store_failure_retried);
    tcase_add_test(tc, test_store_memos_counted_and_saved);
    tcase_add_test(tc, test_store_warm_memos_saved);
    tcase_add_test(tc, test_store_saves_when_quiet);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(store_suite());
}
