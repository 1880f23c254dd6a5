/* Tests of util/safe_open: what a request opens is what the scan saw. Each
 * case builds the tree it needs in a fresh temporary folder; the expected
 * outcome is the rule of safe_open.h. */
#include "testutil.h"
#include "util/safe_open.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char root[64];

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/pv-safe-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    ck_assert_int_eq(system(cmd), 0);
}

/* root/rel in one of a few rotating buffers, so two may be used at once. */
static char *path_of(const char *rel)
{
    static char p[4][256];
    static unsigned next;
    char *out = p[next++ % 4];
    snprintf(out, sizeof p[0], "%s/%s", root, rel);
    return out;
}

static void put(const char *rel, const char *text)
{
    FILE *f = fopen(path_of(rel), "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static pv_file_id id_of(const char *rel)
{
    struct stat st;
    ck_assert_int_eq(stat(path_of(rel), &st), 0);
    return pv_file_id_of(&st);
}

START_TEST(test_safe_open_regular)
{
    ck_assert_int_eq(mkdir(path_of("d"), 0755), 0);
    put("d/f", "hello");
    pv_file_id id = id_of("d/f");
    pv_error err = {0};
    int fd = pv_safe_open(root, path_of("d/f"), &id, &err);
    ck_assert_int_ge(fd, 0);
    char buf[8] = {0};
    ck_assert_int_eq(read(fd, buf, sizeof buf), 5);
    ck_assert_str_eq(buf, "hello");
    /* Reads block again: the descriptor is not left non-blocking. */
    ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
    close(fd);
    fd = pv_safe_open(root, path_of("d/f"), NULL, &err);
    ck_assert_int_ge(fd, 0);
    close(fd);
}
END_TEST

/* A link put in a file's place, or in a folder's on its path, is refused,
 * even when it leads to a file inside the logdir. */
START_TEST(test_safe_open_links)
{
    ck_assert_int_eq(mkdir(path_of("real"), 0755), 0);
    put("real/f", "x");
    ck_assert_int_eq(symlink(path_of("real/f"), path_of("link")), 0);
    ck_assert_int_eq(symlink(path_of("real"), path_of("dirlink")), 0);
    ck_assert_int_eq(symlink("/etc/passwd", path_of("out")), 0);
    pv_error err = {0};
    ck_assert_int_eq(pv_safe_open(root, path_of("link"), NULL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.reason, "symbolic link"));
    ck_assert_int_eq(pv_safe_open(root, path_of("dirlink/f"), NULL, &err), -1);
    ck_assert_int_eq(pv_safe_open(root, path_of("out"), NULL, &err), -1);
    ck_assert_int_eq(pv_safe_open(root, "/etc/passwd", NULL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.reason, "not below the logdir"));
    char up[300];
    snprintf(up, sizeof up, "%s/real/../../etc/passwd", root);
    ck_assert_int_eq(pv_safe_open(root, up, NULL, &err), -1);
}
END_TEST

/* A FIFO in a file's place neither blocks the open (no writer ever comes:
 * a blocking open would outlast the case's timeout) nor is read. */
START_TEST(test_safe_open_fifo)
{
    ck_assert_int_eq(mkfifo(path_of("p"), 0644), 0);
    pv_error err = {0};
    ck_assert_int_eq(pv_safe_open(root, path_of("p"), NULL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.reason, "not a regular file"));
}
END_TEST

/* A file rewritten in place, with its size and mtime put back, is another
 * file: its ctime moved. */
START_TEST(test_safe_open_identity)
{
    put("f", "aaaa");
    pv_file_id id = id_of("f");
    struct timespec pause = {0, 20000000};
    nanosleep(&pause, NULL);
    put("f", "bbbb");
    struct timespec times[2] = {{0, UTIME_OMIT},
                                {id.mtime_ns / 1000000000, id.mtime_ns % 1000000000}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path_of("f"), times, 0), 0);
    pv_file_id now = id_of("f");
    ck_assert_uint_eq(now.size_bytes, id.size_bytes);
    ck_assert_int_eq(now.mtime_ns, id.mtime_ns);
    pv_error err = {0};
    ck_assert_int_eq(pv_safe_open(root, path_of("f"), &id, &err), -1);
    ck_assert_int_eq(err.code, PV_ENOTFOUND);
    int fd = pv_safe_open(root, path_of("f"), &now, &err);
    ck_assert_int_ge(fd, 0);
    close(fd);
}
END_TEST

static Suite *safe_open_suite(void)
{
    Suite *s = suite_create("safe_open");
    TCase *tc = tcase_create("pv_safe_open");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_safe_open_regular);
    tcase_add_test(tc, test_safe_open_links);
    tcase_add_test(tc, test_safe_open_fifo);
    tcase_add_test(tc, test_safe_open_identity);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(safe_open_suite());
}
