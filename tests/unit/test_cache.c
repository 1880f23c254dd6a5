/* Unit tests of the on-disk cache.
 *
 * Entries: a stored entry reads back exactly; a changed source (size,
 * mtime) or a different computation misses; a corrupt or truncated entry
 * is reported absent and removed, never served; an entry stored in two
 * parts is opened for streaming and checked in place.
 * The limit: the folder's files, summed here with lstat, stay under it
 * through many puts, and the cache's own count is that sum; the entry
 * read most recently survives an eviction; an entry bigger than the limit
 * is not kept; a folder over the limit at start is brought under it.
 * Links: one planted at the next temporary's name or at an entry's name
 * is neither written through nor read, and its target is unchanged.
 * The folder: made 0700; refused, with a line naming it and the reason,
 * when another user owns it or its group or others may write to it;
 * temporaries of dead writers are removed at start and fresh ones kept;
 * two processes putting and evicting in one folder never serve a wrong
 * payload. The model store saves a decoded model through the cache.
 * Read only: entries another process wrote are served, and nothing in the
 * folder is written, removed or touched; a missing folder is not made.
 * A file's name in keys is the same through two mounts of it.
 * An answer written through a draining buffer into a pv_kept_stream is
 * kept and handed back as the whole-body functions (pv_kept_tag, gzip
 * decompression) say it must be, holding no more than the drain point;
 * drained bytes count against the buffer's cap. */
#include "cache/kept_answer.h"
#include "cache/disk.h"
#include "cache/store.h"
#include "testutil.h"
#include "util/gzip.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[128];        /* the test's own folder */
static char folder[200];     /* the cache folder, dir/a/b, made by init */
static pv_disk_cache cache;

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pv_cache_test_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(folder, sizeof folder, "%s/a/b", dir);
    pv_disk_cache_init(&cache, folder, PV_DISK_CACHE_MAX_AUTO);
    ck_assert_ptr_nonnull(cache.dir);
}

static void teardown(void)
{
    pv_disk_cache_fini(&cache);
    pv_test_remove_tree(dir);
}

/* The fixture's cache started again on its folder with another limit. */
static void reopen(uint64_t max_bytes)
{
    pv_disk_cache_fini(&cache);
    pv_disk_cache_init(&cache, folder, max_bytes);
    ck_assert_ptr_nonnull(cache.dir);
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

/* Bytes of the regular files in folder d, summed with lstat: what the
 * cache's own count must agree with. Their number in *n_files. */
static uint64_t folder_bytes(const char *d, size_t *n_files)
{
    DIR *dd = opendir(d);
    ck_assert_ptr_nonnull(dd);
    uint64_t sum = 0;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dd)) != NULL) {
        char path[400];
        snprintf(path, sizeof path, "%s/%s", d, de->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            sum += (uint64_t)st.st_size;
            n++;
        }
    }
    closedir(dd);
    *n_files = n;
    return sum;
}

static void write_file(const char *path, const void *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
    close(fd);
}

/* Whether the file at path holds exactly the n bytes of data. */
static bool file_is(const char *path, const void *data, size_t n)
{
    size_t len;
    uint8_t *got = pv_test_read_file(path, &len);
    bool same = len == n && memcmp(got, data, n) == 0;
    free(got);
    return same;
}

/* Sets path's times to age_s seconds ago. */
static void set_age(const char *path, int age_s)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct timespec ts[2] = {{now.tv_sec - age_s, 0}, {now.tv_sec - age_s, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static int saved_stderr = -1;
static char log_path[200];

/* Sends stderr to a file until captured() hands back what was written. */
static void capture(void)
{
    snprintf(log_path, sizeof log_path, "%s/stderr.log", dir);
    fflush(stderr);
    saved_stderr = dup(2);
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(dup2(fd, 2), 2);
    close(fd);
}

/* What stderr got since capture(), NUL-terminated; free() it. */
static char *captured(void)
{
    fflush(stderr);
    ck_assert_int_eq(dup2(saved_stderr, 2), 2);
    close(saved_stderr);
    size_t n;
    uint8_t *text = pv_test_read_file(log_path, &n);
    text[n] = '\0';
    unlink(log_path);
    return (char *)text;
}

#define SOURCE "file r/plugins/profile/s/h.xplane.pb:1234:5678:9"
static const pv_cache_key key = {SOURCE, "data:overview_page?"};
static const char payload[] = "[{\"cols\":[],\"rows\":[]}]";

/* The fixture's cache answers key with payload. */
static void assert_serves_payload(void)
{
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &key, &out), 0);
    ck_assert_uint_eq(out.len, strlen(payload));
    ck_assert_str_eq(out.data, payload);
    pv_buf_fini(&out);
}

/* Key number i, its "what" written into what. */
static pv_cache_key key_of(int i, char what[32])
{
    snprintf(what, 32, "data:test?i=%d", i);
    return (pv_cache_key){SOURCE, what};
}

/* The n bytes of key i's payload, different for every key. */
static void payload_of(int i, uint8_t *out, size_t n)
{
    for (size_t j = 0; j < n; j++)
        out[j] = (uint8_t)((size_t)i * 131u + j * 7u + (j >> 8));
}

/* The path of k's entry ending in kind, from the temporary the cache
 * makes for it (and removes again). */
static void entry_path(const pv_cache_key *k, const char *kind, char *out, size_t cap)
{
    pv_disk_tmp t;
    ck_assert_int_eq(pv_disk_cache_create(&cache, k, kind, &t), 0);
    snprintf(out, cap, "%s/%s", folder, t.entry);
    pv_disk_cache_discard(&cache, &t);
}

/* ---- pv_disk_cache_get / put ------------------------------------------------------ */

START_TEST(test_disk_cache_get_roundtrip)
{
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    assert_serves_payload();
}
END_TEST

START_TEST(test_disk_cache_get_misses_changed_source)
{
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    pv_cache_key k = key;
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    k.source = "file r/plugins/profile/s/h.xplane.pb:1234:5679:9";
    ck_assert_int_eq(pv_disk_cache_get(&cache, &k, &out), PV_ENOTFOUND);
    k = key;
    k.source = "file r/plugins/profile/s/h.xplane.pb:1235:5678:9";
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
    ck_assert_uint_eq(pv_disk_cache_bytes(&cache), 0);
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
    pv_buf_fini(&out);
    /* Rebuilt, it serves again. */
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    assert_serves_payload();
}
END_TEST

/* Through many puts of distinct keys, 300 payloads of 200 to 2000 bytes
 * (over four times the limit in all), the folder stays under the limit
 * and the cache counts exactly what is in it. */
START_TEST(test_disk_cache_put_limit_holds)
{
    const uint64_t max = 64 << 10;
    reopen(max);
    uint8_t buf[2000];
    uint64_t put_bytes = 0;
    size_t n_files = 0, last_n = 0;
    for (int i = 0; i < 300; i++) {
        size_t n = 200 + (size_t)(i * 37 % 1800);
        payload_of(i, buf, n);
        char what[32];
        pv_cache_key k = key_of(i, what);
        ck_assert_int_eq(pv_disk_cache_put(&cache, &k, buf, n), 0);
        put_bytes += n;
        uint64_t on_disk = folder_bytes(folder, &n_files);
        ck_assert_uint_le(on_disk, max);
        ck_assert_uint_eq(pv_disk_cache_bytes(&cache), on_disk);
        last_n = n;
    }
    ck_assert_uint_gt(put_bytes, 4 * max);
    ck_assert_uint_lt(n_files, 300);
    /* the newest entry is one of those kept */
    char what[32];
    pv_cache_key k = key_of(299, what);
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &k, &out), 0);
    payload_of(299, buf, last_n);
    ck_assert_uint_eq(out.len, last_n);
    ck_assert(memcmp(out.data, buf, last_n) == 0);
    pv_buf_fini(&out);
}
END_TEST

START_TEST(test_disk_cache_put_too_big_not_kept)
{
    reopen(4096);
    static uint8_t big[5000];
    payload_of(1, big, sizeof big);
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, big, sizeof big), PV_ETOOBIG);
    size_t n_files;
    ck_assert_uint_eq(folder_bytes(folder, &n_files), 0);
    ck_assert_uint_eq(n_files, 0);
    ck_assert_uint_eq(pv_disk_cache_bytes(&cache), 0);
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &key, &out), PV_ENOTFOUND);
    pv_buf_fini(&out);
    /* one that fits is kept */
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    assert_serves_payload();
}
END_TEST

/* A temporary's name is new each time; links planted at the next two
 * names (this cache's next sequence numbers) are skipped, not written
 * through, and the entry is still stored. */
START_TEST(test_disk_cache_put_skips_link_at_temporary)
{
    char victim[300];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    write_file(victim, "precious", 8);
    pv_disk_tmp t;
    ck_assert_int_eq(pv_disk_cache_create(&cache, &key, "pvc", &t), 0);
    char name[PV_DISK_NAME_MAX];
    snprintf(name, sizeof name, "%s", t.name);
    pv_disk_cache_discard(&cache, &t);
    char *dash = strrchr(name, '-');
    ck_assert_ptr_nonnull(dash);
    unsigned long long seq = strtoull(dash + 1, NULL, 10);
    *dash = '\0';
    char links[2][400];
    for (unsigned i = 0; i < 2; i++) {
        snprintf(links[i], sizeof links[i], "%s/%s-%llu.tmp", folder, name, seq + 1 + i);
        ck_assert_int_eq(symlink(victim, links[i]), 0);
    }
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    ck_assert(file_is(victim, "precious", 8));
    for (unsigned i = 0; i < 2; i++) {
        struct stat st;
        ck_assert_int_eq(lstat(links[i], &st), 0);
        ck_assert(S_ISLNK(st.st_mode));
    }
    assert_serves_payload();
}
END_TEST

/* A link at an entry's name, even to a valid entry, is not read; a put
 * replaces the link itself and leaves its target alone. */
START_TEST(test_disk_cache_get_ignores_link_at_entry)
{
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    char path[400], victim[300];
    only_entry(path, sizeof path);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    size_t len;
    uint8_t *valid = pv_test_read_file(path, &len);
    write_file(victim, valid, len);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(symlink(victim, path), 0);
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &key, &out), PV_ENOTFOUND);
    pv_buf_fini(&out);
    pv_disk_entry e;
    ck_assert_int_eq(pv_disk_cache_open(&cache, &key, &e), PV_ENOTFOUND);
    ck_assert_ptr_null(pv_disk_cache_find(&cache, &key, "pvc"));
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    ck_assert(file_is(victim, valid, len));
    assert_serves_payload();
    free(valid);
}
END_TEST

/* Stores key i's 1000-byte payload as an entry ending in kind: through
 * put for "pvc", through create, write and commit otherwise. */
static void store_entry(int i, const char *kind)
{
    uint8_t buf[1000];
    payload_of(i, buf, sizeof buf);
    char what[32];
    pv_cache_key k = key_of(i, what);
    if (strcmp(kind, "pvc") == 0) {
        ck_assert_int_eq(pv_disk_cache_put(&cache, &k, buf, sizeof buf), 0);
        return;
    }
    pv_disk_tmp t;
    ck_assert_int_eq(pv_disk_cache_create(&cache, &k, kind, &t), 0);
    ck_assert_int_eq(write(t.fd, buf, sizeof buf), (ssize_t)sizeof buf);
    ck_assert_int_eq(pv_disk_cache_commit(&cache, &t), 0);
}

/* Reads key i's entry: 0 through get, 1 through open, 2 through find.
 * Returns whether it was there. */
static bool read_entry(int i, int how)
{
    char what[32];
    pv_cache_key k = key_of(i, what);
    if (how == 0) {
        pv_buf out;
        pv_buf_init(&out, 1 << 20);
        int rc = pv_disk_cache_get(&cache, &k, &out);
        pv_buf_fini(&out);
        return rc == 0;
    }
    if (how == 1) {
        pv_disk_entry e;
        if (pv_disk_cache_open(&cache, &k, &e) != 0)
            return false;
        close(e.fd);
        return true;
    }
    char *path = pv_disk_cache_find(&cache, &k, "pvm");
    free(path);
    return path != NULL;
}

/* Four entries of E bytes under a limit of 3.5 E: the fourth evicts one,
 * the least recently used. Entry 0 is the oldest written but was read
 * (loop: by get, open, or find) just before, so entry 1 goes. */
START_TEST(test_disk_cache_get_marks_use)
{
    const char *kind = _i == 2 ? "pvm" : "pvc";
    char what[32], paths[4][400];
    for (int i = 0; i < 4; i++) {
        pv_cache_key k = key_of(i, what);
        entry_path(&k, kind, paths[i], sizeof paths[i]);
    }
    store_entry(0, kind);
    struct stat st;
    ck_assert_int_eq(stat(paths[0], &st), 0);
    uint64_t e_bytes = (uint64_t)st.st_size;
    reopen(3 * e_bytes + e_bytes / 2);
    store_entry(1, kind);
    store_entry(2, kind);
    for (int i = 0; i < 3; i++)
        set_age(paths[i], 300 - 100 * i);
    ck_assert(read_entry(0, _i));
    store_entry(3, kind);
    ck_assert_int_eq(access(paths[0], F_OK), 0);
    ck_assert_int_ne(access(paths[1], F_OK), 0);
    ck_assert_int_eq(access(paths[2], F_OK), 0);
    ck_assert_int_eq(access(paths[3], F_OK), 0);
    size_t n_files;
    ck_assert_uint_eq(folder_bytes(folder, &n_files), 3 * e_bytes);
    ck_assert_uint_eq(pv_disk_cache_bytes(&cache), 3 * e_bytes);
}
END_TEST

/* ---- pv_disk_cache_open / check ------------------------------------------------ */

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

/* ---- pv_disk_cache_init --------------------------------------------------------- */

START_TEST(test_disk_cache_init_off)
{
    pv_disk_cache off;
    pv_disk_cache_init(&off, "/proc/pv_cannot_exist/cache", PV_DISK_CACHE_MAX_AUTO);
    ck_assert_ptr_null(off.dir);
    ck_assert_int_eq(pv_disk_cache_put(&off, &key, payload, strlen(payload)), 0);
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    ck_assert_int_eq(pv_disk_cache_get(&off, &key, &out), PV_ENOTFOUND);
    pv_buf_fini(&out);
    pv_disk_cache_fini(&off);
}
END_TEST

/* --cache-max 0: no cache, and not even its folder is made. */
START_TEST(test_disk_cache_init_limit_zero)
{
    char d[300];
    snprintf(d, sizeof d, "%s/zero", dir);
    pv_disk_cache off;
    pv_disk_cache_init(&off, d, 0);
    ck_assert_ptr_null(off.dir);
    ck_assert_int_ne(access(d, F_OK), 0);
    pv_disk_cache_fini(&off);
}
END_TEST

START_TEST(test_disk_cache_init_makes_private_folder)
{
    char parent[200];
    snprintf(parent, sizeof parent, "%s/a", dir);
    struct stat st;
    ck_assert_int_eq(stat(folder, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0700);
    ck_assert_int_eq(stat(parent, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0700);
    ck_assert_int_eq(pv_disk_cache_put(&cache, &key, payload, strlen(payload)), 0);
    char path[400];
    only_entry(path, sizeof path);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0600);
}
END_TEST

/* An existing folder its group or others may write to is refused with a
 * line naming it and the reason (loop: four modes), and nothing is
 * written there. */
START_TEST(test_disk_cache_init_refuses_writable_folder)
{
    static const mode_t modes[] = {0770, 0730, 0703, 01777};
    static const char *const reasons[] = {"writable by its group", "writable by its group",
                                          "writable by others", "writable by others"};
    char d[300];
    snprintf(d, sizeof d, "%s/shared", dir);
    ck_assert_int_eq(mkdir(d, 0700), 0);
    ck_assert_int_eq(chmod(d, modes[_i]), 0);
    pv_disk_cache c;
    capture();
    pv_disk_cache_init(&c, d, PV_DISK_CACHE_MAX_AUTO);
    char *log = captured();
    ck_assert_ptr_null(c.dir);
    ck_assert_msg(strstr(log, d) != NULL && strstr(log, reasons[_i]) != NULL &&
                  strstr(log, "running without the on-disk cache") != NULL, "logged: %s", log);
    ck_assert_int_eq(pv_disk_cache_put(&c, &key, payload, strlen(payload)), 0);
    size_t n_files;
    ck_assert_uint_eq(folder_bytes(d, &n_files), 0);
    ck_assert_uint_eq(n_files, 0);
    pv_disk_cache_fini(&c);
    free(log);
}
END_TEST

START_TEST(test_disk_cache_init_refuses_other_owner)
{
    if (geteuid() != 0) {
        pv_test_skip("test_disk_cache_init_refuses_other_owner",
                     "only root can give a folder to another user");
        return;
    }
    char d[300];
    snprintf(d, sizeof d, "%s/theirs", dir);
    ck_assert_int_eq(mkdir(d, 0700), 0);
    ck_assert_int_eq(chown(d, 65534, 65534), 0);
    pv_disk_cache c;
    capture();
    pv_disk_cache_init(&c, d, PV_DISK_CACHE_MAX_AUTO);
    char *log = captured();
    ck_assert_ptr_null(c.dir);
    ck_assert_msg(strstr(log, d) != NULL && strstr(log, "owned by uid 65534") != NULL,
                  "logged: %s", log);
    pv_disk_cache_fini(&c);
    free(log);
}
END_TEST

/* Temporaries untouched for an hour, in this build's and in older
 * builds' names, are removed at start; one written a minute ago (a live
 * writer's) is kept, as are entries and files that are not the cache's.
 * The count is what is left of the cache's: the fresh temporary and the
 * entry. */
START_TEST(test_disk_cache_init_removes_stale_temporaries)
{
    static const char *const stale[] = {"0123456789abcdef.pvm.tmp",
                                        "0123456789abcdef.pvc.Ab3xYz",
                                        "0123456789abcdef.pvm.77-0badcafe-3.tmp"};
    static const char *const kept[] = {"0123456789abcdef.pvm.78-0badcafe-4.tmp",
                                       "fedcba9876543210.pvc", "notes.txt"};
    static const size_t kept_bytes[] = {300, 200, 50};
    static const int kept_age_s[] = {60, 3600, 3600};
    static uint8_t bytes[1000];
    pv_disk_cache_fini(&cache);
    char path[400];
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", folder, stale[i]);
        write_file(path, bytes, sizeof bytes);
        set_age(path, 3600);
        snprintf(path, sizeof path, "%s/%s", folder, kept[i]);
        write_file(path, bytes, kept_bytes[i]);
        set_age(path, kept_age_s[i]);
    }
    pv_disk_cache_init(&cache, folder, PV_DISK_CACHE_MAX_AUTO);
    ck_assert_ptr_nonnull(cache.dir);
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", folder, stale[i]);
        ck_assert_msg(access(path, F_OK) != 0, "%s is still there", stale[i]);
        snprintf(path, sizeof path, "%s/%s", folder, kept[i]);
        ck_assert_msg(access(path, F_OK) == 0, "%s was removed", kept[i]);
    }
    ck_assert_uint_eq(pv_disk_cache_bytes(&cache), 300 + 200);
}
END_TEST

/* A folder holding more than the limit at start (the limit was lowered)
 * is brought under it before the first put. */
START_TEST(test_disk_cache_init_evicts_to_limit)
{
    for (int i = 0; i < 10; i++)
        store_entry(i, "pvc");
    size_t n_files;
    uint64_t full = folder_bytes(folder, &n_files);
    ck_assert_uint_eq(n_files, 10);
    ck_assert_uint_eq(pv_disk_cache_bytes(&cache), full);
    reopen(full / 2);
    uint64_t left = folder_bytes(folder, &n_files);
    ck_assert_uint_le(left, full / 2);
    ck_assert_uint_gt(n_files, 0);
    ck_assert_uint_eq(pv_disk_cache_bytes(&cache), left);
}
END_TEST

/* ---- two processes, one folder ------------------------------------------------- */

#define SHARED_KEYS 24
#define SHARED_MAX ((uint64_t)32 << 10)

/* rounds random puts, gets and streamed reads of SHARED_KEYS keys (whose
 * payloads, 1.5 to 10.6 KB, overflow SHARED_MAX three times over) on a
 * cache of its own in folder. Returns how many reads got a wrong payload;
 * *hits counts the right ones. */
static int hammer(unsigned seed, int rounds, int *hits)
{
    pv_disk_cache c;
    pv_disk_cache_init(&c, folder, SHARED_MAX);
    if (c.dir == NULL)
        return 1;
    static uint8_t want[16384], streamed[16384];
    pv_buf got;
    pv_buf_init(&got, 1 << 20);
    int wrong = 0;
    for (int r = 0; r < rounds; r++) {
        seed = seed * 1103515245u + 12345u;
        int i = (int)((seed >> 8) % SHARED_KEYS);
        size_t n = 1500 + (size_t)i * 397;
        payload_of(i, want, n);
        char what[32];
        pv_cache_key k = key_of(i, what);
        unsigned op = (seed >> 20) % 3;
        const uint8_t *data = (const uint8_t *)got.data;
        size_t len = 0;
        got.len = 0;
        if (op == 0) {
            pv_disk_cache_put(&c, &k, want, n);
            continue;
        } else if (op == 1) {
            if (pv_disk_cache_get(&c, &k, &got) != 0)
                continue;
            data = (const uint8_t *)got.data;
            len = got.len;
        } else {
            pv_disk_entry e;
            if (pv_disk_cache_open(&c, &k, &e) != 0 || pv_disk_cache_check(&c, &k, &e) != 0)
                continue;
            ssize_t r_len = pread(e.fd, streamed, sizeof streamed, (off_t)e.offset);
            close(e.fd);
            data = streamed;
            len = r_len > 0 && (uint64_t)r_len >= e.len ? (size_t)e.len : 0;
        }
        if (len == n && memcmp(data, want, n) == 0)
            (*hits)++;
        else
            wrong++;
    }
    pv_buf_fini(&got);
    pv_disk_cache_fini(&c);
    return wrong;
}

/* Two processes put, read and evict in one folder under a small limit:
 * every read they are served is the payload that was put, no entry is
 * ever found corrupt, and a later start finds the folder under its limit. */
START_TEST(test_disk_cache_two_processes)
{
    pv_disk_cache_fini(&cache);
    capture();
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        int child_hits = 0;
        _exit(hammer(7, 3000, &child_hits) == 0 && child_hits > 0 ? 0 : 1);
    }
    int hits = 0;
    int wrong = hammer(11, 3000, &hits);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    char *log = captured();
    ck_assert_int_eq(wrong, 0);
    ck_assert_int_gt(hits, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ck_assert_msg(strstr(log, "corrupt") == NULL, "logged: %s", log);
    ck_assert_msg(strstr(log, "recently used entries") != NULL, "no eviction; logged: %s", log);
    free(log);
    pv_disk_cache_init(&cache, folder, SHARED_MAX);
    size_t n_files;
    ck_assert_uint_le(folder_bytes(folder, &n_files), SHARED_MAX);
}
END_TEST

/* ---- the model store's saved models -------------------------------------------- */

#define PROFILE PV_SRCDIR "/tests/data/reference/keras_input_fixed/plugins/profile/" \
                          "2026_11_29_17_36_24/vm.xplane.pb"

/* Loads PROFILE through a model store on the fixture's cache and returns
 * its number of events. */
static uint64_t load_through_store(const pv_source *src)
{
    pv_model_store *s = pv_model_store_new(0, &cache, NULL);
    const pv_model *m;
    pv_model_entry *e;
    ck_assert_int_eq(pv_model_store_get(s, src, &m, &e, NULL), 0);
    uint64_t n_events = m->n_events;
    pv_model_store_put(s, e);
    pv_model_store_free(s);   /* waits for the loader, and so for the save */
    return n_events;
}

/* The decoded model is saved 0600 through the cache's own temporary:
 * links planted at the saved model's name and at the temporary name
 * older builds used are not written through. The next store reads the
 * same file (same inode) and marks it used. */
START_TEST(test_model_store_saves_through_cache)
{
    struct stat st;
    ck_assert_int_eq(stat(PROFILE, &st), 0);
    pv_source src = pv_source_file(PROFILE, NULL, pv_file_id_of(&st));
    /* The store's key for a model: the source's identity, with no logdir
     * its whole path, size, mtime and ctime (source/file_source.c). */
    char ident[600];
    snprintf(ident, sizeof ident, "file %s:%llu:%lld:%lld", PROFILE,
             (unsigned long long)src.id.size_bytes, (long long)src.id.mtime_ns,
             (long long)src.id.ctime_ns);
    pv_cache_key k = {ident, "model"};
    char saved[400], old_tmp[420], victim[300];
    entry_path(&k, "pvm", saved, sizeof saved);
    snprintf(old_tmp, sizeof old_tmp, "%s.tmp", saved);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    write_file(victim, "precious", 8);
    ck_assert_int_eq(symlink(victim, saved), 0);
    ck_assert_int_eq(symlink(victim, old_tmp), 0);

    uint64_t n_events = load_through_store(&src);
    ck_assert_uint_gt(n_events, 0);
    ck_assert(file_is(victim, "precious", 8));
    ck_assert_int_eq(lstat(old_tmp, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(lstat(saved, &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    ck_assert_uint_eq(st.st_mode & 07777, 0600);
    size_t n_files;
    ck_assert_uint_eq(pv_disk_cache_bytes(&cache), folder_bytes(folder, &n_files));
    ck_assert_uint_eq(n_files, 1);

    ino_t ino = st.st_ino;
    set_age(saved, 3600);
    ck_assert_int_eq(lstat(saved, &st), 0);
    time_t aged = st.st_mtim.tv_sec;
    ck_assert_uint_eq(load_through_store(&src), n_events);
    ck_assert_int_eq(lstat(saved, &st), 0);
    ck_assert_uint_eq(st.st_ino, ino);
    ck_assert_int_gt(st.st_mtim.tv_sec, aged);
}
END_TEST

/* ---- pv_disk_cache_init_read_only ------------------------------------------------ */

/* Names, sizes and mtimes (ns) of the folder's files, one line each, in
 * directory order: equal before and after means nothing was written,
 * removed or marked used. */
static void folder_state(char *out, size_t cap)
{
    DIR *d = opendir(folder);
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    out[0] = '\0';
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char path[400];
        snprintf(path, sizeof path, "%s/%.150s", folder, de->d_name);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        int w = snprintf(out + n, cap - n, "%s %lld %lld.%09ld\n", de->d_name,
                         (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                         st.st_mtim.tv_nsec);
        ck_assert_int_lt(w, (int)(cap - n));
        n += (size_t)w;
    }
    closedir(d);
}

/* A read-only cache serves what another process wrote, and writes,
 * removes and touches nothing: a put, a create and a hit leave the folder
 * as it was, and so does a corrupt entry, which is a miss. */
START_TEST(test_disk_cache_read_only_writes_nothing)
{
    store_entry(0, "pvc");
    store_entry(1, "pvc");
    store_entry(2, "pvm");
    char what[32], corrupt[400], saved[400];
    pv_cache_key k1 = key_of(1, what);
    entry_path(&k1, "pvc", corrupt, sizeof corrupt);
    int fd = open(corrupt, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, "XX", 2, 100), 2);
    close(fd);
    pv_cache_key k2 = key_of(2, what);
    entry_path(&k2, "pvm", saved, sizeof saved);
    set_age(corrupt, 600);
    set_age(saved, 600);
    char entry0[400];
    pv_cache_key k0 = key_of(0, what);
    entry_path(&k0, "pvc", entry0, sizeof entry0);
    set_age(entry0, 600);
    pv_disk_cache_fini(&cache);
    static char before[4096], after[4096];
    folder_state(before, sizeof before);

    pv_disk_cache_init_read_only(&cache, folder);
    ck_assert_ptr_nonnull(cache.dir);
    ck_assert(cache.read_only);
    uint8_t want[1000];
    payload_of(0, want, sizeof want);
    pv_buf out;
    pv_buf_init(&out, 1 << 20);
    k0 = key_of(0, what);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &k0, &out), 0);
    ck_assert_uint_eq(out.len, sizeof want);
    ck_assert_int_eq(memcmp(out.data, want, sizeof want), 0);
    pv_buf_fini(&out);
    pv_buf_init(&out, 1 << 20);
    k1 = key_of(1, what);
    ck_assert_int_eq(pv_disk_cache_get(&cache, &k1, &out), PV_ENOTFOUND);
    pv_buf_fini(&out);
    k2 = key_of(2, what);
    char *path = pv_disk_cache_find(&cache, &k2, "pvm");
    ck_assert_str_eq(path, saved);
    free(path);
    pv_cache_key k3 = key_of(3, what);
    ck_assert_int_eq(pv_disk_cache_put(&cache, &k3, want, sizeof want), 0);
    pv_disk_tmp t;
    ck_assert_int_eq(pv_disk_cache_create(&cache, &k3, "pvm", &t), PV_ENOTFOUND);
    pv_disk_cache_remove(&cache, &k0, "pvc");
    folder_state(after, sizeof after);
    ck_assert_str_eq(after, before);
    ck_assert_uint_eq(pv_disk_cache_bytes(&cache), 0);
}
END_TEST

/* A missing folder is not made: the cache is off. A folder others may
 * write to is refused as for a writer; one this user may only read is
 * used. */
START_TEST(test_disk_cache_read_only_folder_rules)
{
    pv_disk_cache_fini(&cache);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/missing", dir);
    pv_disk_cache_init_read_only(&cache, missing);
    ck_assert_ptr_null(cache.dir);
    ck_assert_int_ne(access(missing, F_OK), 0);
    pv_disk_cache_fini(&cache);
    ck_assert_int_eq(chmod(folder, 0777), 0);
    pv_disk_cache_init_read_only(&cache, folder);
    ck_assert_ptr_null(cache.dir);
    pv_disk_cache_fini(&cache);
    ck_assert_int_eq(chmod(folder, 0500), 0);
    pv_disk_cache_init_read_only(&cache, folder);
    ck_assert_ptr_nonnull(cache.dir);
    ck_assert_int_eq(chmod(folder, 0700), 0);
}
END_TEST

/* ---- pv_source_rel_path / pv_source_ident ------------------------------------------- */

/* A file is named by its path below the logdir, size, mtime and ctime:
 * the same file seen through two mounts (another device, another inode
 * numbering) has one name; a path not below root keeps its whole path. */
START_TEST(test_source_ident_portable)
{
    pv_file_id a = {1, 2, 300, 4000000001, 5000000002};
    pv_file_id b = {77, 88, 300, 4000000001, 5000000002};
    pv_source on_a =
        pv_source_file("/mnt/a/logs/r/plugins/profile/s/h.xplane.pb", "/mnt/a/logs", a);
    pv_source on_b =
        pv_source_file("/data/logs/r/plugins/profile/s/h.xplane.pb", "/data/logs", b);
    char ia[200], ib[200];
    ck_assert_str_eq(pv_source_ident(&on_a, ia, sizeof ia),
                     "file r/plugins/profile/s/h.xplane.pb:300:4000000001:5000000002");
    ck_assert_str_eq(pv_source_ident(&on_b, ib, sizeof ib), ia);
    pv_source outside = pv_source_file("/mnt/a/logsx/h.xplane.pb", "/mnt/a/logs", a);
    ck_assert_str_eq(pv_source_rel_path(&outside), "/mnt/a/logsx/h.xplane.pb");
    pv_source no_root = pv_source_file("/x/h.xplane.pb", NULL, a);
    ck_assert_str_eq(pv_source_rel_path(&no_root), "/x/h.xplane.pb");
    b.ctime_ns++;
    on_b.id = b;
    ck_assert_str_ne(pv_source_ident(&on_b, ib, sizeof ib), ia);
}
END_TEST

/* ---- pv_kept_stream ------------------------------------------------------------ */

#define STREAM_BODY ((size_t)3 << 20)
#define STREAM_AT ((size_t)64 << 10)

START_TEST(test_answer_stream_keeps_as_whole)
{
    uint8_t *whole = malloc(STREAM_BODY);
    payload_of(7, whole, STREAM_BODY);
    pv_kept_stream *st = pv_kept_stream_new((size_t)16 << 20);
    ck_assert_ptr_nonnull(st);
    pv_buf b;
    pv_buf_init(&b, (size_t)16 << 20);
    pv_buf_drain_to(&b, STREAM_AT, pv_kept_stream_add, st);
    uint64_t rnd = 99;
    size_t at = 0, most_held = 0;
    while (at < STREAM_BODY) {
        size_t n = 1 + pv_test_random(&rnd) % 5000;
        if (n > STREAM_BODY - at)
            n = STREAM_BODY - at;
        ck_assert_int_eq(pv_buf_add(&b, whole + at, n), 0);
        at += n;
        if (b.len > most_held)
            most_held = b.len;
    }
    ck_assert_uint_le(most_held, STREAM_AT);
    ck_assert_uint_eq(b.drained + b.len, STREAM_BODY);
    pv_kept_gz_body a;
    ck_assert_int_eq(pv_kept_stream_keep(&cache, &key, st, b.data, b.len, &a), 0);
    pv_buf_fini(&b);
    pv_kept_stream_free(st);

    char want_tag[PV_KEPT_TAG_CHARS + 1];
    pv_kept_tag(whole, STREAM_BODY, want_tag);
    ck_assert_str_eq(a.tag, want_tag);
    ck_assert_uint_eq(a.plain_bytes, STREAM_BODY);
    pv_buf plain;
    pv_buf_init(&plain, (size_t)16 << 20);
    ck_assert_int_eq(pv_gzip_decompress(a.gz, a.gz_len, &plain, "handed back", NULL), 0);
    ck_assert_uint_eq(plain.len, STREAM_BODY);
    ck_assert(memcmp(plain.data, whole, STREAM_BODY) == 0);

    /* kept as pv_kept_keep keeps a large answer: tag line, then the body */
    pv_kept_gz g;
    ck_assert_int_eq(pv_kept_open_gz(&cache, &key, &g), 0);
    ck_assert_str_eq(g.tag, want_tag);
    ck_assert_uint_eq(g.plain_bytes, STREAM_BODY);
    ck_assert_int_eq(pv_kept_check_gz(&cache, &key, &g), 0);
    ck_assert_uint_eq(g.entry.len, a.gz_len);
    char *kept = malloc(a.gz_len);
    ck_assert_int_eq(pread(g.entry.fd, kept, a.gz_len, (off_t)g.entry.offset), (ssize_t)a.gz_len);
    close(g.entry.fd);
    ck_assert(memcmp(kept, a.gz, a.gz_len) == 0);
    free(kept);
    pv_buf_fini(&plain);
    free(a.gz);
    free(whole);
}
END_TEST

static int drain_nowhere(void *ctx, const char *p, size_t n)
{
    (void)p;
    *(size_t *)ctx += n;
    return 0;
}

START_TEST(test_buf_drain_counts_against_cap)
{
    size_t got = 0;
    pv_buf b;
    pv_buf_init(&b, 1000);
    pv_buf_drain_to(&b, 100, drain_nowhere, &got);
    char chunk[60];
    memset(chunk, 'x', sizeof chunk);
    int rc = 0;
    size_t added = 0;
    while (rc == 0 && added < 2000) {
        rc = pv_buf_add(&b, chunk, sizeof chunk);
        if (rc == 0)
            added += sizeof chunk;
    }
    ck_assert_int_eq(rc, PV_ETOOBIG);
    /* 16 chunks are 960 bytes; a 17th would pass 1000 */
    ck_assert_uint_eq(added, 960);
    ck_assert_uint_eq(got % 60, 0);
    ck_assert_uint_ge(got, 960 - 100);
    ck_assert_ptr_null(b.data);
}
END_TEST

static Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("pv_disk_cache_get_put");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_disk_cache_get_roundtrip);
    tcase_add_test(tc, test_disk_cache_get_misses_changed_source);
    tcase_add_test(tc, test_disk_cache_get_rejects_corrupt);
    tcase_add_test(tc, test_disk_cache_get_rejects_truncated);
    tcase_add_test(tc, test_disk_cache_put_limit_holds);
    tcase_add_test(tc, test_disk_cache_put_too_big_not_kept);
    tcase_add_test(tc, test_disk_cache_put_skips_link_at_temporary);
    tcase_add_test(tc, test_disk_cache_get_ignores_link_at_entry);
    tcase_add_loop_test(tc, test_disk_cache_get_marks_use, 0, 3);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("pv_disk_cache_open_check");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_disk_cache_open_streams_put2);
    tcase_add_test(tc, test_disk_cache_check_rejects_corrupt);
    suite_add_tcase(s, tc);

    tc = tcase_create("pv_kept_stream");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_answer_stream_keeps_as_whole);
    tcase_add_test(tc, test_buf_drain_counts_against_cap);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("pv_disk_cache_init");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_disk_cache_init_off);
    tcase_add_test(tc, test_disk_cache_init_limit_zero);
    tcase_add_test(tc, test_disk_cache_init_makes_private_folder);
    tcase_add_loop_test(tc, test_disk_cache_init_refuses_writable_folder, 0, 4);
    tcase_add_test(tc, test_disk_cache_init_refuses_other_owner);
    tcase_add_test(tc, test_disk_cache_init_removes_stale_temporaries);
    tcase_add_test(tc, test_disk_cache_init_evicts_to_limit);
    tcase_add_test(tc, test_disk_cache_two_processes);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("pv_disk_cache_init_read_only");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_disk_cache_read_only_writes_nothing);
    tcase_add_test(tc, test_disk_cache_read_only_folder_rules);
    suite_add_tcase(s, tc);

    tc = tcase_create("pv_source_ident");
    tcase_add_test(tc, test_source_ident_portable);
    suite_add_tcase(s, tc);

    tc = tcase_create("pv_model_store");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_model_store_saves_through_cache);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(cache_suite());
}
