/* Unit tests of the on-disk cache: a stored entry reads back exactly; a
 * changed source (size, mtime) or a different computation misses; a
 * corrupt or truncated entry is reported absent and removed, never
 * served; a cache that cannot be created is off and harmless. */
#include "cache/disk.h"
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[128];
static pv_disk_cache cache;

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pv_cache_test_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char sub[200];
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    pv_disk_cache_init(&cache, sub);
    ck_assert_ptr_nonnull(cache.dir);
}

static void teardown(void)
{
    pv_disk_cache_fini(&cache);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Path of the only entry file in the cache folder. */
static void only_entry(char *out, size_t cap)
{
    DIR *d = opendir(cache.dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(out, cap, "%s/%s", cache.dir, de->d_name);
        n++;
    }
    closedir(d);
    ck_assert_int_eq(n, 1);
}

static const pv_cache_key key = {"/logs/plugins/profile/r/h.xplane.pb", 1234, 5678,
                                 "data:overview_page?"};
static const char payload[] = "[{\"cols\":[],\"rows\":[]}]";

START_TEST(test_disk_cache_get_roundtrip)
{
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &key, &out), 0);
    ck_assert_uint_eq(out.len, strlen(payload));
    ck_assert_str_eq(out.data, payload);
    pv_buf_fini(&out);
}
END_TEST

START_TEST(test_disk_cache_get_misses_changed_source)
{
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    pv_cache_key k = key;
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    k.source_mtime_ns++;
    ck_assert_int_eq(pv_disk_cache_get(&cache, &k, &out), PV_ENOTFOUND);
    k = key;
    k.source_size_bytes++;
    ck_assert_int_eq(pv_disk_cache_get(&cache, &k, &out), PV_ENOTFOUND);
    k = key;
    k.what = "data:kernel_stats?";
    ck_assert_int_eq(pv_disk_cache_get(&cache, &k, &out), PV_ENOTFOUND);
    ck_assert_uint_eq(out.len, 0);
    pv_buf_fini(&out);
}
END_TEST

START_TEST(test_disk_cache_get_rejects_corrupt)
{
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    char path[400];
    only_entry(path, sizeof path);
    /* Flip one payload byte: the last byte of the file. */
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    off_t end = lseek(fd, -1, SEEK_END);
    ck_assert_int_gt(end, 0);
    ck_assert_int_eq(write(fd, "X", 1), 1);
    close(fd);
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &key, &out), PV_ENOTFOUND);
    ck_assert_uint_eq(out.len, 0);
    ck_assert_int_ne(access(path, F_OK), 0);   /* removed, to be rebuilt */
    pv_buf_fini(&out);
}
END_TEST

START_TEST(test_disk_cache_get_rejects_truncated)
{
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    char path[400];
    only_entry(path, sizeof path);
    ck_assert_int_eq(truncate(path, 40), 0);
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &key, &out), PV_ENOTFOUND);
    ck_assert_uint_eq(out.len, 0);
    ck_assert_int_ne(access(path, F_OK), 0);
    /* Rebuilt, it serves again. */
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &key, &out), 0);
    ck_assert_str_eq(out.data, payload);
    pv_buf_fini(&out);
}
END_TEST

START_TEST(test_disk_cache_init_off)
{
    pv_disk_cache off;
    pv_disk_cache_init(&off, "/proc/pv_cannot_exist/cache");
    ck_assert_ptr_null(off.dir);
    ck_assert_int_eq(pv_disk_cache_put(&off, &key, payload, strlen(payload)), 0);
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_disk_cache_get(&off, &key, &out), PV_ENOTFOUND);
    pv_buf_fini(&out);
    pv_disk_cache_fini(&off);
}
END_TEST

static Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("pv_disk_cache");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_disk_cache_get_roundtrip);
    tcase_add_test(tc, test_disk_cache_get_misses_changed_source);
    tcase_add_test(tc, test_disk_cache_get_rejects_corrupt);
    tcase_add_test(tc, test_disk_cache_get_rejects_truncated);
    tcase_add_test(tc, test_disk_cache_init_off);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(cache_suite());
}
