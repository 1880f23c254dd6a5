/* Unit tests of the on-disk cache: a stored entry reads back exactly; a
 * changed source (size, mtime) or a different computation misses; a
 * corrupt or truncated entry is reported absent and removed, never
 * served; a cache that cannot be created is off and harmless; an entry
 * stored in two parts is opened for streaming and checked in place. */
#include "cache/disk.h"
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

START_TEST(test_disk_cache_open_streams_put2)
{
    /* head + data stored as one payload: get sees the concatenation, open
     * points at it in the file, check accepts it (CRC of both parts). */
    ck_assert_int_eq(pv_disk_cache_put2(&cache, &key, "0123456789abcdef\n", 17, payload,
                                        strlen(payload)),
                     0);
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &key, &out), 0);
    ck_assert_uint_eq(out.len, 17 + strlen(payload));
    ck_assert(memcmp(out.data, "0123456789abcdef\n", 17) == 0);
    ck_assert(memcmp(out.data + 17, payload, strlen(payload)) == 0);
    pv_buf_fini(&out);
    pv_disk_entry e;
    ck_assert_int_eq(pv_disk_cache_open(&cache, &key, &e), 0);
    ck_assert_uint_eq(e.len, 17 + strlen(payload));
    char got[128] = {0};
    ck_assert_int_eq(pread(e.fd, got, strlen(payload), (off_t)e.offset + 17),
                     (ssize_t)strlen(payload));
    ck_assert_str_eq(got, payload);
    ck_assert_int_eq(pv_disk_cache_check(&cache, &key, &e), 0);
    close(e.fd);
    pv_cache_key other = key;
    other.what = "data:kernel_stats?";
    ck_assert_int_eq(pv_disk_cache_open(&cache, &other, &e), PV_ENOTFOUND);
}
END_TEST

START_TEST(test_disk_cache_check_rejects_corrupt)
{
    ck_assert_int_eq(pv_disk_cache_put2(&cache, &key, "t\n", 2, payload, strlen(payload)), 0);
    char path[400];
    only_entry(path, sizeof path);
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_gt(lseek(fd, -1, SEEK_END), 0);
    ck_assert_int_eq(write(fd, "X", 1), 1);
    close(fd);
    /* open checks only the header and length; check reads the payload */
    pv_disk_entry e;
    ck_assert_int_eq(pv_disk_cache_open(&cache, &key, &e), 0);
    ck_assert_int_eq(pv_disk_cache_check(&cache, &key, &e), PV_ENOTFOUND);
    ck_assert_int_eq(e.fd, -1);
    ck_assert_int_ne(access(path, F_OK), 0);
    /* a file cut short fails open already */
    ck_assert_int_eq(pv_disk_cache_put2(&cache, &key, "t\n", 2, payload, strlen(payload)), 0);
    only_entry(path, sizeof path);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(truncate(path, st.st_size - 1), 0);
    ck_assert_int_eq(pv_disk_cache_open(&cache, &key, &e), PV_ENOTFOUND);
    ck_assert_int_ne(access(path, F_OK), 0);
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
    tcase_add_test(tc, test_disk_cache_open_streams_put2);
    tcase_add_test(tc, test_disk_cache_check_rejects_corrupt);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(cache_suite());
}
