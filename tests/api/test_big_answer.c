/* API tests of large tool answers kept gzip-compressed in the on-disk
 * cache (#3): a repeat is the stored gzip, which decompresses to exactly
 * the JSON a server without a cache computes afresh, with the same ETag;
 * If-None-Match gets 304; a client without gzip gets the plain JSON, the
 * second time from a plain copy kept beside the gzip; a corrupt stored copy is rebuilt, never served. The profile is the
 * reference corpus's keras_input_bound (its trace_viewer JSON is 2.7 MB,
 * above the 4 KiB from which answers are kept compressed). */
#include "httpc.h"
#include "served.h"
#include "testutil.h"
#include "util/gzip.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOGDIR PV_SRCDIR "/tests/data/reference/keras_input_bound"
#define TRACE "/data/plugin/profile/data?run=2026_11_29_17_36_18&host=vm&tag=trace_viewer"
#define GZ "Accept-Encoding: gzip\r\n"

static pv_test_reply get(const pv_test_server *s, const char *headers, int want)
{
    pv_test_reply r;
    ck_assert_int_eq(pv_test_get(s, "GET", TRACE, headers, &r), 0);
    ck_assert_msg(r.status == want, "status %d, want %d: %.200s", r.status, want, r.body);
    return r;
}

static char *etag_of(const pv_test_reply *r)
{
    char buf[128];
    ck_assert_ptr_nonnull(pv_test_header(r, "etag", buf, sizeof buf));
    return strdup(buf);
}

static void expect_gzip_of(const pv_test_reply *r, const pv_test_reply *plain)
{
    char enc[64];
    ck_assert_ptr_nonnull(pv_test_header(r, "content-encoding", enc, sizeof enc));
    ck_assert_str_eq(enc, "gzip");
    pv_buf out;
    pv_buf_init(&out, (size_t)1 << 30);
    ck_assert_int_eq(pv_gzip_decompress(r->body, r->len, &out, NULL, NULL), 0);
    ck_assert_uint_eq(out.len, plain->len);
    ck_assert(memcmp(out.data, plain->body, plain->len) == 0);
    pv_buf_fini(&out);
}

/* The number of tool-result entries (.pvc, the memos left out) in dir;
 * path gets the last one's and size its size. */
static int results_in(const char *dir, char *path, size_t cap, off_t *size)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *de;
    char one[400];
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len > 4 && strcmp(de->d_name + len - 4, ".pvc") == 0) {
            snprintf(one, sizeof one, "%s/%s", dir, de->d_name);
            if (pv_test_is_memos_entry(one))
                continue;
            snprintf(path, cap, "%s", one);
            n++;
        }
    }
    closedir(d);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    *size = st.st_size;
    return n;
}

START_TEST(test_big_answer_served_from_stored_gzip)
{
    /* Afresh: a server whose cache cannot be made computes every answer. */
    setenv("XDG_CACHE_HOME", "/proc/pv_no_cache_here", 1);
    pv_test_server s;
    ck_assert_int_eq(pv_test_server_start_indexed(&s, LOGDIR, NULL), 0);
    pv_test_reply plain = get(&s, NULL, 200);
    ck_assert_uint_gt(plain.len, (size_t)1 << 20);
    pv_test_reply fresh_gz = get(&s, GZ, 200);
    char *tag_plain = etag_of(&plain), *tag_gz = etag_of(&fresh_gz);
    pv_test_reply_free(&fresh_gz);
    ck_assert_int_eq(pv_test_server_stop(&s), 0);

    char cache[] = "/tmp/pv_big_answer_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(cache));
    setenv("XDG_CACHE_HOME", cache, 1);
    char dir[200];
    snprintf(dir, sizeof dir, "%s/profview", cache);
    ck_assert_int_eq(pv_test_server_start_indexed(&s, LOGDIR, NULL), 0);
    pv_test_reply first = get(&s, GZ, 200), again = get(&s, GZ, 200);
    expect_gzip_of(&first, &plain);
    expect_gzip_of(&again, &plain);
    ck_assert_uint_eq(first.len, again.len);
    ck_assert(memcmp(first.body, again.body, first.len) == 0);
    char *t1 = etag_of(&first), *t2 = etag_of(&again);
    ck_assert_str_eq(t1, tag_gz);
    ck_assert_str_eq(t2, tag_gz);
    /* what is stored is the gzip (header, key, 17-byte tag, body), not the JSON */
    char path[400];
    off_t size;
    ck_assert_int_eq(results_in(dir, path, sizeof path, &size), 1);
    ck_assert_int_ge(size, (off_t)again.len + 17 + 32);
    ck_assert_int_lt(size, (off_t)again.len + 17 + 32 + 4096);

    char inm[200];
    snprintf(inm, sizeof inm, GZ "If-None-Match: %s\r\n", tag_gz);
    pv_test_reply nm = get(&s, inm, 304);
    ck_assert_uint_eq(nm.len, 0);
    pv_test_reply_free(&nm);
    /* a client without gzip: the plain JSON and its own tag */
    pv_test_reply p2 = get(&s, NULL, 200);
    ck_assert_uint_eq(p2.len, plain.len);
    ck_assert(memcmp(p2.body, plain.body, plain.len) == 0);
    char *tp = etag_of(&p2);
    ck_assert_str_eq(tp, tag_plain);
    snprintf(inm, sizeof inm, "If-None-Match: %s\r\n", tag_plain);
    nm = get(&s, inm, 304);
    pv_test_reply_free(&nm);
    /* that first plain answer left a plain copy beside the gzip: the next
     * one is sent from it, the same bytes with the same tag */
    char plain_path[400];
    off_t plain_size;
    ck_assert_int_eq(results_in(dir, plain_path, sizeof plain_path, &plain_size), 2);
    pv_test_reply p3 = get(&s, NULL, 200);
    ck_assert_uint_eq(p3.len, plain.len);
    ck_assert(memcmp(p3.body, plain.body, plain.len) == 0);
    char *tp3 = etag_of(&p3);
    ck_assert_str_eq(tp3, tag_plain);
    free(tp3);
    pv_test_reply_free(&p3);

    /* one flipped byte in the stored gzip: rebuilt and right again */
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, "\xff", 1, size - 100), 1);
    close(fd);
    pv_test_reply rebuilt = get(&s, GZ, 200);
    expect_gzip_of(&rebuilt, &plain);
    struct stat st2;
    ck_assert_int_eq(stat(path, &st2), 0);
    ck_assert_int_eq(st2.st_size, size);
    pv_test_reply_free(&rebuilt);

    ck_assert_int_eq(pv_test_server_stop(&s), 0);
    free(tp);
    free(t1);
    free(t2);
    free(tag_plain);
    free(tag_gz);
    pv_test_reply_free(&p2);
    pv_test_reply_free(&first);
    pv_test_reply_free(&again);
    pv_test_reply_free(&plain);
    pv_test_remove_tree(cache);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("big_answer");
    TCase *tc = tcase_create("stored gzip");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_big_answer_served_from_stored_gzip);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(suite());
}
