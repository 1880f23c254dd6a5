/* gz_file: reading the gzip'd JSON files TensorFlow and XProf write
 * (trace.json.gz, memory_profile.json.gz, XProf's tool outputs), for the
 * tests that compare against them. */
#ifndef PV_TESTS_GZ_FILE_H
#define PV_TESTS_GZ_FILE_H

#include "testutil.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

/* The gzip'd file at path, unpacked whole into a malloc'd buffer of *len
 * bytes; NULL when it cannot be opened. The test fails on a read error
 * and when the unpacked size reaches max_bytes (SIZE_MAX: no limit). */
static inline char *pv_test_read_gz(const char *path, size_t max_bytes, size_t *len)
{
    gzFile f = gzopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    for (;;) {
        if (n == cap) {
            ck_assert_uint_lt(cap, max_bytes);
            cap *= 2;
            buf = realloc(buf, cap);
            ck_assert_ptr_nonnull(buf);
        }
        int got = gzread(f, buf + n, (unsigned)(cap - n));
        ck_assert_int_ge(got, 0);
        if (got == 0)
            break;
        n += (size_t)got;
    }
    gzclose(f);
    *len = n;
    return buf;
}

/* The JSON in the gzip'd file at path; NULL when it cannot be opened. The
 * test fails when it does not parse (or, as above, cannot be read). */
static inline json_t *pv_test_load_gz_json(const char *path, size_t max_bytes)
{
    size_t len = 0;
    char *buf = pv_test_read_gz(path, max_bytes, &len);
    if (buf == NULL)
        return NULL;
    json_error_t jerr;
    json_t *j = json_loadb(buf, len, 0, &jerr);
    free(buf);
    ck_assert_msg(j != NULL, "%s: %s", path, jerr.text);
    return j;
}

#endif
