/* Unit test of the map guard: reading a mapped page that the file no
 * longer covers raises SIGBUS; inside a guard that becomes a return to
 * the caller instead of the death of the process. */
#include "util/mapguard.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

START_TEST(test_map_guard_catches_shrunk_file)
{
    char path[] = "/tmp/pv_mapguard_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    long page = sysconf(_SC_PAGESIZE);
    size_t len = (size_t)page * 4;
    ck_assert_int_eq(ftruncate(fd, (off_t)len), 0);
    const volatile char *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    ck_assert(map != MAP_FAILED);
    ck_assert_int_eq(map[len - 1], 0);              /* readable while the file is whole */
    ck_assert_int_eq(ftruncate(fd, page), 0);       /* the file shrinks to one page */
    volatile int jumped = 0;
    volatile int first_page = -1;
    pv_map_guard g;
    if (PV_MAP_GUARD_ARM(&g, (const void *)map, len) == 0) {
        first_page = map[0];
        (void)map[(size_t)page * 3];                /* past the new end: SIGBUS */
    } else {
        jumped = 1;
    }
    pv_map_guard_disarm(&g);
    ck_assert_int_eq(first_page, 0);
    ck_assert_int_eq(jumped, 1);
    munmap((void *)(uintptr_t)map, len);
    close(fd);
    unlink(path);
}
END_TEST

START_TEST(test_map_guard_no_signal)
{
    static const char data[] = "profview";
    pv_map_guard g;
    volatile int sum = 0;
    if (PV_MAP_GUARD_ARM(&g, data, sizeof data) == 0) {
        for (size_t i = 0; i < sizeof data; i++)
            sum += data[i];
    } else {
        sum = -1;
    }
    pv_map_guard_disarm(&g);
    ck_assert_int_eq(sum, 'p' + 'r' + 'o' + 'f' + 'v' + 'i' + 'e' + 'w');
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mapguard");
    TCase *tc = tcase_create("pv_map_guard");
    tcase_add_test(tc, test_map_guard_catches_shrunk_file);
    tcase_add_test(tc, test_map_guard_no_signal);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
