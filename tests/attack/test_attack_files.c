/* Attack tests (#15) on the files of the logdir, with the real profview
 * binary on loopback: what the scan saw is what a request reads. A file
 * replaced after the scan by a symbolic link to a secret outside the logdir,
 * or by a FIFO; a profile rewritten in place with its old size and mtime; a
 * small .json.gz that inflates to hundreds of megabytes, asked for by a
 * client without gzip; a failure that is fixed. Each test builds its logdir
 * in a scratch folder; the expected answers follow from the files written. */
#include "httpc.h"
#include "served.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define RUN "r"
#define SMALL_XPLANE PV_SRCDIR "/demo/plugins/profile/2026_11_29_17_33_29/vm.xplane.pb"
#define SECRET "this is the secret outside the logdir"

static char tmpdir[128];
static char logdir[160];

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pv_attack_files_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    snprintf(logdir, sizeof logdir, "%s/logdir", tmpdir);
    setenv("XDG_CACHE_HOME", tmpdir, 1);
}

static void teardown(void)
{
    pv_test_remove_tree(tmpdir);
}

/* Writes data to logdir/plugins/profile/r/name, an hour old. */
static const char *put(const char *name, const void *data, size_t n)
{
    char rel[256];
    snprintf(rel, sizeof rel, "logdir/plugins/profile/" RUN "/%s", name);
    return pv_test_write_file(tmpdir, rel, data, n, 3600);
}

static void start(pv_test_server *s, const char *rescan_ms)
{
    const char *extra[] = {"--rescan-ms", rescan_ms, NULL};
    ck_assert_msg(pv_test_server_start_indexed(s, logdir, extra) == 0, "the server did not start");
}

static pv_test_reply get(const pv_test_server *s, const char *path, const char *headers)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", path, headers, &r), 0);
    return r;
}

#define OVERVIEW "/data/plugin/profile/data?run=" RUN "&host=h&tag=overview_page"

/* A per-tool file replaced by a link to a file outside the logdir, after
 * the scan: the link is not followed; the rest is still served. */
START_TEST(test_link_swapped_in_after_scan)
{
    static const char json[] = "[{\"cols\":[],\"rows\":[],\"p\":{\"k\":\"first\"}}]";
    const char *path = put("h.overview_page.json", json, sizeof json - 1);
    char secret[200];
    snprintf(secret, sizeof secret, "%s/secret.json", tmpdir);
    FILE *f = fopen(secret, "w");
    fputs(SECRET, f);
    fclose(f);
    pv_test_server s;
    start(&s, "3600000");
    pv_test_reply r = get(&s, OVERVIEW, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, json);
    pv_test_reply_free(&r);
    char *saved = strdup(path);
    ck_assert_int_eq(unlink(saved), 0);
    ck_assert_int_eq(symlink(secret, saved), 0);
    r = get(&s, OVERVIEW, NULL);
    ck_assert_int_ge(r.status, 400);
    ck_assert_ptr_null(strstr(r.body, "secret outside"));
    pv_test_reply_free(&r);
    r = get(&s, "/healthz", NULL);
    ck_assert_int_eq(r.status, 200);
    pv_test_reply_free(&r);
    free(saved);
    ck_assert_int_eq(pv_test_server_stop(&s), 0);
}
END_TEST

/* A profile replaced by a FIFO after the scan: the request answers with an
 * error instead of blocking a thread forever (which would outlast the
 * case's timeout), and again, and the server stops when asked. */
START_TEST(test_fifo_swapped_in_after_scan)
{
    size_t len;
    uint8_t *xplane = pv_test_read_file(SMALL_XPLANE, &len);
    char *path = strdup(put("h.xplane.pb", xplane, len));
    pv_test_server s;
    start(&s, "3600000");
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(mkfifo(path, 0644), 0);
    for (int i = 0; i < 3; i++) {
        pv_test_reply r = get(&s, OVERVIEW, NULL);
        ck_assert_int_ge(r.status, 400);
        pv_test_reply_free(&r);
    }
    ck_assert_int_eq(pv_test_server_stop(&s), 0);
    free(path);
    free(xplane);
}
END_TEST

#define TRACE "/data/plugin/profile/data?run=" RUN "&host=h&tag=trace_viewer"

/* A profile rewritten in place with other bytes, its size and mtime put
 * back: after the next scan the answers are the new file's, not the ones
 * kept for the old one (the demo profile's event "matmul_loop" becomes
 * "matmul_lopp"). */
START_TEST(test_rewrite_in_place_is_a_new_file)
{
    size_t len;
    uint8_t *xplane = pv_test_read_file(SMALL_XPLANE, &len);
    char *path = strdup(put("h.xplane.pb", xplane, len));
    struct stat before;
    ck_assert_int_eq(stat(path, &before), 0);
    pv_test_server s;
    start(&s, "200");
    pv_test_reply r = get(&s, TRACE, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"matmul_loop\""));
    pv_test_reply_free(&r);
    uint8_t *loop = memmem(xplane, len, "matmul_loop", 11);
    ck_assert_ptr_nonnull(loop);
    loop[9] = 'p';
    int fd = open(path, O_WRONLY);
    ck_assert_int_eq(pwrite(fd, xplane, len, 0), (ssize_t)len);
    close(fd);
    struct timespec t[2] = {before.st_atim, before.st_mtim};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
    struct timespec pause = {1, 0};
    nanosleep(&pause, NULL);
    r = get(&s, TRACE, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"matmul_lopp\""));
    ck_assert_ptr_null(strstr(r.body, "\"matmul_loop\""));
    pv_test_reply_free(&r);
    ck_assert_int_eq(pv_test_server_stop(&s), 0);
    free(path);
    free(xplane);
}
END_TEST

/* Peak resident memory of the server, in MiB. */
static long peak_rss_mib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kb / 1024;
}

#define MEMORY "/data/plugin/profile/data?run=" RUN "&host=h&tag=memory_profile"
#define BOMB_MIB 200

/* TensorFlow's memory_profile.json.gz of a few hundred KB that inflates to
 * 200 MiB: a client that takes gzip gets the file as it is, one that does
 * not gets it inflated, and the server's memory never holds it. */
START_TEST(test_gzip_bomb_is_streamed)
{
    size_t plain = (size_t)BOMB_MIB << 20;
    char *spaces = malloc(plain);
    memset(spaces, ' ', plain);
    uLongf packed_len = compressBound((uLong)plain) + 64;
    uint8_t *packed = malloc(packed_len);
    z_stream z = {0};
    ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (Bytef *)spaces;
    z.avail_in = (uInt)plain;
    z.next_out = packed;
    z.avail_out = (uInt)packed_len;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t gz_len = z.total_out;
    deflateEnd(&z);
    free(spaces);
    put("h.memory_profile.json.gz", packed, gz_len);
    pv_test_server s;
    start(&s, "3600000");
    long rss0 = peak_rss_mib(s.pid);
    pv_test_reply r = get(&s, MEMORY, "Accept-Encoding: gzip\r\n");
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(r.len, gz_len);
    ck_assert_int_eq(memcmp(r.body, packed, gz_len), 0);
    pv_test_reply_free(&r);
    r = get(&s, MEMORY, NULL);
    ck_assert_int_eq(r.status, 200);
    ck_assert_uint_eq(r.len, plain);
    ck_assert(r.body[0] == ' ' && r.body[plain - 1] == ' ');
    pv_test_reply_free(&r);
    long grew = peak_rss_mib(s.pid) - rss0;
    ck_assert_msg(grew < BOMB_MIB / 8, "the server grew by %ld MiB", grew);
    ck_assert_int_eq(pv_test_server_stop(&s), 0);
    free(packed);
}
END_TEST

static Suite *attack_files_suite(void)
{
    Suite *s = suite_create("attack: files");
    TCase *tc = tcase_create("files swapped, rewritten, inflating");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_link_swapped_in_after_scan);
    tcase_add_test(tc, test_fifo_swapped_in_after_scan);
    tcase_add_test(tc, test_rewrite_in_place_is_a_new_file);
    tcase_add_test(tc, test_gzip_bomb_is_streamed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(attack_files_suite());
}
