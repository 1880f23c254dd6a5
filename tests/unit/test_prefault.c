/* Unit test of util/prefault.h: which pages are resident after a
 * pv_prefault_upto, read back with mincore(2) over anonymous mappings of
 * our own (huge pages off, so residency is per 4 KiB page), and that
 * faulting in changes no byte. Where the kernel lacks MADV_POPULATE_WRITE
 * the residency checks say so and are skipped. */
#include "util/prefault.h"
#include "testutil.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 64u

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static uint8_t *fresh(void)
{
    void *p = mmap(NULL, PAGES * page_size(), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(p, MAP_FAILED);
#ifdef MADV_NOHUGEPAGE
    (void)madvise(p, PAGES * page_size(), MADV_NOHUGEPAGE);
#endif
    return p;
}

/* How many of the PAGES pages from p are resident, and whether page k is. */
static unsigned resident(const uint8_t *p, unsigned k, bool *is)
{
    unsigned char v[PAGES];
    ck_assert_int_eq(mincore((void *)p, PAGES * page_size(), v), 0);
    unsigned n = 0;
    for (unsigned i = 0; i < PAGES; i++)
        n += v[i] & 1u;
    *is = (v[k] & 1u) != 0;
    return n;
}

static bool populate_works(void)
{
#ifdef MADV_POPULATE_WRITE
    uint8_t *p = fresh();
    int rc = madvise(p, page_size(), MADV_POPULATE_WRITE);
    int e = errno;
    munmap(p, PAGES * page_size());
    if (rc == 0)
        return true;
    ck_assert_int_eq(e, EINVAL);
#endif
    printf("test_prefault: this kernel has no MADV_POPULATE_WRITE: residency not checked\n");
    return false;
}

/* Two columns of 8-byte and 2-byte elements (PAGES pages each), the first
 * with its first 100 elements written before. Up to 1000 elements: the
 * 8-byte column reaches byte 8000, whose only whole page below is page 0,
 * in already; the 2-byte one reaches byte 2000, no whole page, so nothing
 * is faulted. */
START_TEST(test_upto_whole_pages)
{
    if (!populate_works())
        return;
    size_t pg = page_size();
    ck_assert_uint_eq(pg, 4096);   /* the counts below are for 4 KiB pages */
    uint8_t *a = fresh(), *b = fresh();
    memset(a, 0x5a, 800);
    pv_prefault pf;
    pv_prefault_init(&pf, 100);
    pv_prefault_lock(&pf);
    pv_prefault_col cols[2] = {{a, 8}, {b, 2}};
    pv_prefault_set(&pf, cols, 2, PAGES * pg / 8);
    bool is;
    ck_assert_uint_eq(resident(a, 0, &is), 1);
    pv_prefault_upto(&pf, 1000);
    /* a: from page 0 (element 100) to the last whole page below 8000 */
    ck_assert_uint_eq(resident(a, 0, &is), 1);
    ck_assert_uint_eq(resident(b, 0, &is), 0);
    /* up to 5000: a reaches 40000 bytes (pages 1 .. 8 more), b 10000
     * (its pages 0 and 1, from element 100's page) */
    pv_prefault_upto(&pf, 5000);
    ck_assert_uint_eq(resident(a, 9, &is), 9);
    ck_assert(!is);
    ck_assert_uint_eq(resident(b, 1, &is), 2);
    ck_assert(is);
    for (unsigned i = 0; i < 800; i++)
        ck_assert_uint_eq(a[i], 0x5a);
    for (unsigned i = 800; i < 40000; i++)
        ck_assert_uint_eq(a[i], 0);
    pv_prefault_fini(&pf);
    munmap(a, PAGES * pg);
    munmap(b, PAGES * pg);
}
END_TEST

/* Never past the room the writer gave, and a column that appears later
 * starts from the elements written when faulting began; one that moved
 * keeps its count (its pages moved with it). */
START_TEST(test_upto_room_and_new_columns)
{
    if (!populate_works())
        return;
    size_t pg = page_size();
    uint8_t *a = fresh(), *b = fresh(), *c = fresh();
    pv_prefault pf;
    pv_prefault_init(&pf, 0);
    pv_prefault_lock(&pf);
    pv_prefault_col one[2] = {{a, 8}, {NULL, 8}};
    pv_prefault_set(&pf, one, 2, 4 * pg / 8);   /* room: 4 pages of a */
    pv_prefault_upto(&pf, 40 * pg / 8);
    bool is;
    ck_assert_uint_eq(resident(a, 3, &is), 4);
    ck_assert(is);
    /* b is made, a moves to c (as realloc may): b faults from element 0,
     * c from where a had got to */
    pv_prefault_lock(&pf);
    pv_prefault_col two[2] = {{c, 8}, {b, 8}};
    pv_prefault_set(&pf, two, 2, 8 * pg / 8);
    pv_prefault_upto(&pf, 40 * pg / 8);
    ck_assert_uint_eq(resident(b, 7, &is), 8);
    ck_assert(is);
    /* c: from page 4 (a's count) to page 7 */
    ck_assert_uint_eq(resident(c, 0, &is), 4);
    ck_assert(!is);
    ck_assert_uint_eq(resident(c, 4, &is), 4);
    ck_assert(is);
    pv_prefault_fini(&pf);
    munmap(a, PAGES * pg);
    munmap(b, PAGES * pg);
    munmap(c, PAGES * pg);
}
END_TEST

static Suite *prefault_suite(void)
{
    Suite *s = suite_create("prefault");
    TCase *tc = tcase_create("upto");
    tcase_add_test(tc, test_upto_whole_pages);
    tcase_add_test(tc, test_upto_room_and_new_columns);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return pv_test_run(prefault_suite());
}
