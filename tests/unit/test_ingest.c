/* Tests of the ingest driver (ingest/ingest.h) around the decoders: a file
 * that shrinks while it is decoded fails with a clear error, and the
 * decoder's state and the builder are freed though the decode was cut short
 * (the sanitizer build's leak check fails this test otherwise). The file is
 * forty copies of a committed reference profile (tests/data/reference): an
 * XSpace is a list of planes, so copies one after another are one XSpace.
 * The same file checks pv_model_release_pages against the kernel's count
 * of this process's resident file pages (RssFile in /proc/self/status). */
#include "ingest/ingest.h"
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ONE PV_SRCDIR "/tests/data/reference/multi_host/plugins/profile/2026_11_29_17_37_21/" \
                      "localhost_40135.xplane.pb"
#define COPIES 40

typedef struct shrinker {
    pv_progress *progress;
    int fd;
    atomic_bool done;
} shrinker;

/* Cuts the file to one page as soon as the decode is past its first 4 MiB,
 * the point from which the driver drops pages it has read. */
static void *shrink_when_started(void *arg)
{
    shrinker *s = arg;
    while (!atomic_load(&s->done) &&
           atomic_load_explicit(&s->progress->done_bytes, memory_order_relaxed) < ((uint64_t)4 << 20))
        ;
    if (!atomic_load(&s->done))
        ck_assert_int_eq(ftruncate(s->fd, 4096), 0);
    return NULL;
}

START_TEST(test_ingest_file_shrinks_while_read)
{
    size_t len;
    uint8_t *one = pv_test_read_file(ONE, &len);
    char path[] = "/tmp/pv-shrink-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    for (int i = 0; i < COPIES; i++)
        ck_assert_int_eq(write(fd, one, len), (ssize_t)len);
    free(one);
    pv_progress progress;
    atomic_store(&progress.done_bytes, 0);
    shrinker s = {&progress, fd, false};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, shrink_when_started, &s), 0);
    pv_model *m = NULL;
    pv_error err = {0};
    int rc = pv_ingest_fd(fd, path, &progress, &m, &err);
    atomic_store(&s.done, true);
    pthread_join(t, NULL);
    ck_assert_int_eq(rc, PV_EIO);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(err.reason, "shrank"));
    close(fd);
    unlink(path);
}
END_TEST

/* This process's resident file-backed pages, in bytes, as the kernel
 * counts them. */
static uint64_t rss_file_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    unsigned long long kb = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL)
        found = sscanf(line, "RssFile: %llu kB", &kb) == 1;
    fclose(f);
    ck_assert_msg(found, "no RssFile in /proc/self/status");
    return (uint64_t)kb << 10;
}

/* A byte sum of n bytes at p, reading every page. */
static uint64_t byte_sum(const uint8_t *p, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += p[i];
    return sum;
}

START_TEST(test_release_pages_drops_resident_source)
{
    size_t len;
    uint8_t *one = pv_test_read_file(ONE, &len);
    char path[] = "/tmp/pv-release-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    for (int i = 0; i < COPIES; i++)
        ck_assert_int_eq(write(fd, one, len), (ssize_t)len);
    uint64_t want = byte_sum(one, len) * COPIES;
    free(one);
    pv_model *m = NULL;
    pv_error err = {0};
    ck_assert_int_eq(pv_ingest_fd(fd, path, NULL, &m, &err), 0);
    ck_assert_uint_eq(m->src_len, len * COPIES);
    ck_assert_uint_eq(byte_sum(m->src, m->src_len), want);
    uint64_t before = rss_file_bytes();
    pv_model_release_pages(m);
    uint64_t after = rss_file_bytes();
    /* Every page of the source was resident after the sum; a few may
     * come back meanwhile (the test binary's own code is file pages). */
    ck_assert_msg(before - after >= m->src_len * 9 / 10,
                  "RssFile went from %llu to %llu for a %zu-byte source",
                  (unsigned long long)before, (unsigned long long)after, m->src_len);
    /* Readers see the same bytes, read back from the page cache. */
    ck_assert_uint_eq(byte_sum(m->src, m->src_len), want);
    pv_model_free(m);
    close(fd);
    unlink(path);
}
END_TEST

static Suite *ingest_suite(void)
{
    Suite *s = suite_create("ingest");
    TCase *tc = tcase_create("pv_ingest_fd");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_ingest_file_shrinks_while_read);
    tcase_add_test(tc, test_release_pages_drops_resident_source);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(ingest_suite());
}
