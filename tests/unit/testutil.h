/* testutil: small helpers shared by the Check suites: where the test data
 * is, skipped cases reported as skips, files written and read. */
#ifndef PV_TESTS_TESTUTIL_H
#define PV_TESTS_TESTUTIL_H

/* PV_SRCDIR and PV_TESTDATA_BUILT_IN, written by make in the build folder. */
#include "tests/unit/paths.h"

#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Where ../shared/testdata is: $PV_TESTDATA when set (make check sets it;
 * point it at a missing folder to see what skips without it), else the
 * path the build compiled in. */
static inline const char *pv_test_testdata(void)
{
    const char *env = getenv("PV_TESTDATA");
    return env != NULL && env[0] != '\0' ? env : PV_TESTDATA_BUILT_IN;
}
#define PV_TESTDATA pv_test_testdata()

/* PV_TESTDATA followed by rel, in static storage kept for the whole run
 * (the same for the same rel), so that it may stand where a string
 * literal stood. */
static inline const char *pv_test_data_path(const char *rel)
{
    static struct {
        const char *rel;
        char path[4096];
    } kept[32];
    static unsigned n;
    unsigned i = 0;
    while (i < n && strcmp(kept[i].rel, rel) != 0)
        i++;
    if (i == n) {
        /* Not ck_assert: programs without Check call this too. */
        if (n == sizeof kept / sizeof kept[0]) {
            fprintf(stderr, "pv_test_data_path: more than %u paths\n", n);
            abort();
        }
        kept[n++].rel = rel;
    }
    snprintf(kept[i].path, sizeof kept[i].path, "%s%s", pv_test_testdata(), rel);
    return kept[i].path;
}

/* True when ../shared/testdata is there. */
static inline bool pv_test_have_testdata(void)
{
    struct stat st;
    return stat(pv_test_testdata(), &st) == 0 && S_ISDIR(st.st_mode);
}

/* CI sets PV_REQUIRE_TESTDATA=1: there, missing test data is a failure. */
static inline bool pv_test_testdata_required(void)
{
    const char *env = getenv("PV_REQUIRE_TESTDATA");
    return env != NULL && env[0] != '\0' && strcmp(env, "0") != 0;
}

/* The cases that could not run, kept in memory shared with the processes
 * Check forks for its tests, so that pv_test_run can report them and exit
 * 77 (automake's SKIP) instead of counting them as passes. */
#define PV_TEST_SKIPS_MAX 256
typedef struct pv_test_skips {
    unsigned n;
    char line[PV_TEST_SKIPS_MAX][400];
} pv_test_skips;
static pv_test_skips *pv_test_skipped;

/* Records that case name could not run, and why; prints its SKIP line. */
static inline void pv_test_skip(const char *name, const char *why)
{
    ck_assert_msg(pv_test_skipped != NULL, "%s: skipped outside pv_test_run", name);
    printf("SKIP %s: %s\n", name, why);
    if (pv_test_skipped->n < PV_TEST_SKIPS_MAX)
        snprintf(pv_test_skipped->line[pv_test_skipped->n], sizeof pv_test_skipped->line[0],
                 "%s: %s", name, why);
    pv_test_skipped->n++;
}

/* Case name needs the test data, which is missing: a failure under
 * PV_REQUIRE_TESTDATA, else a skip. */
static inline void pv_test_missing_testdata(const char *name)
{
    char why[300];
    snprintf(why, sizeof why, "../shared/testdata not found at %s", pv_test_testdata());
    ck_assert_msg(!pv_test_testdata_required(), "%s: %s, and PV_REQUIRE_TESTDATA is set", name,
                  why);
    pv_test_skip(name, why);
}

/* Tests that need the test data call PV_NEED_TESTDATA(name) first: when it
 * is missing the case is skipped (or fails in CI) and returns. */
#define PV_NEED_TESTDATA(name)                                                              \
    do {                                                                                    \
        if (!pv_test_have_testdata()) {                                                     \
            pv_test_missing_testdata(name);                                                 \
            return;                                                                         \
        }                                                                                   \
    } while (0)

/* For a program without Check whose cases need the missing test data:
 * prints why and returns its exit status, 1 (FAIL) under
 * PV_REQUIRE_TESTDATA, else 77 (SKIP). */
static inline int pv_test_testdata_exit(const char *name)
{
    bool required = pv_test_testdata_required();
    printf("%s %s: ../shared/testdata not found at %s%s\n", required ? "FAIL" : "SKIP", name,
           pv_test_testdata(), required ? ", and PV_REQUIRE_TESTDATA is set" : "");
    return required ? 1 : 77;
}

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

/* Runs a suite and prints Check's summary line, then the cases that were
 * skipped. Returns the process exit code: 1 when a case failed, else 77
 * (automake's SKIP) when one was skipped, else 0. */
static inline int pv_test_run(Suite *s)
{
    pv_test_skipped = mmap(NULL, sizeof *pv_test_skipped, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (pv_test_skipped == MAP_FAILED) {
        perror("pv_test_run: mmap");
        return 99;
    }
    fflush(stdout);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    unsigned skipped = pv_test_skipped->n;
    for (unsigned i = 0; i < skipped && i < PV_TEST_SKIPS_MAX; i++)
        printf("SKIP %s\n", pv_test_skipped->line[i]);
    if (skipped > 0)
        printf("%u case%s skipped%s\n", skipped, skipped == 1 ? "" : "s",
               failed == 0 ? ": the test as a whole is a SKIP (exit 77)" : "");
    munmap(pv_test_skipped, sizeof *pv_test_skipped);
    pv_test_skipped = NULL;
    return failed != 0 ? 1 : skipped != 0 ? 77 : 0;
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
