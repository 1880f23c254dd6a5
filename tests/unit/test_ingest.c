/* Tests of the ingest driver (ingest/ingest.h) around the decoders: a file
 * that shrinks while it is decoded fails with a clear error, and the
 * decoder's state and the builder are freed though the decode was cut short
 * (the sanitizer build's leak check fails this test otherwise). The file is
 * forty copies of a committed reference profile (tests/data/reference): an
 * XSpace is a list of planes, so copies one after another are one XSpace. */
#include "ingest/ingest.h"
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
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

static Suite *ingest_suite(void)
{
    Suite *s = suite_create("ingest");
    TCase *tc = tcase_create("pv_ingest_fd");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_ingest_file_shrinks_while_read);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(ingest_suite());
}
