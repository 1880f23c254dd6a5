/* testutil: small helpers shared by the Check suites. */
#ifndef PV_TESTS_TESTUTIL_H
#define PV_TESTS_TESTUTIL_H

#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* True when ../shared/testdata is beside the checkout. Tests that need it
 * call PV_NEED_TESTDATA(name) first, which prints SKIP and returns. */
static inline bool pv_test_have_testdata(void)
{
    struct stat st;
    return stat(PV_TESTDATA, &st) == 0 && S_ISDIR(st.st_mode);
}

#define PV_NEED_TESTDATA(name)                                                              \
    do {                                                                                    \
        if (!pv_test_have_testdata()) {                                                     \
            printf("SKIP %s: ../shared/testdata not found\n", (name));                      \
            return;                                                                         \
        }                                                                                   \
    } while (0)

/* The whole file at path in a malloc'd buffer of *len bytes (plus one
 * spare byte); the test fails when it cannot be opened or read. */
static inline uint8_t *pv_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Writes the n bytes at data to dir/rel, making its folders, dated age_s
 * seconds back (a logdir scan offers a file once it has not changed for
 * two seconds). Returns the full path in a static buffer, valid until the
 * next call; the test fails when the file cannot be written. */
static inline const char *pv_test_write_file(const char *dir, const char *rel, const void *data,
                                             size_t n, int age_s)
{
    static char path[512];
    char cmd[600];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    ck_assert_int_eq(system(cmd), 0);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
    close(fd);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= age_s;
    t[1] = t[0];
    ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
    return path;
}

/* The next number of a xorshift64 sequence in *state (start it nonzero):
 * the same inputs on every run, for tests that compare many of them with
 * an oracle. */
static inline uint32_t pv_test_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t)*state;
}

/* Runs a suite, prints Check's summary line, returns the process exit code. */
static inline int pv_test_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

/* Whether the disk cache entry at path (a ".pvc") is a model's memos,
 * which the store's loader saves beside the answers whenever it gets to
 * them: its key text (docs/cache.md, at byte 32) ends in a line "memos".
 * Tests that count kept answers leave such entries out. */
static inline bool pv_test_is_memos_entry(const char *path)
{
    char head[1024];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n > 32 && memmem(head + 32, (size_t)n - 32, "\nmemos", 6) != NULL;
}

/* Removes dir and everything below it, asserting that it went. */
static inline void pv_test_remove_tree(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

#endif
