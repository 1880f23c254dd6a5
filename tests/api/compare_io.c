/* compare_io: reading golden files and answers for the comparison
 * harnesses (compare.c, compare_kineto.c). */
#include "compare_io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_JSON_BYTES ((size_t)512 << 20)

/* Inflates gzip (or passes plain bytes through, gzread does both). */
json_t *pv_cmp_load_gz_json(const char *path)
{
    gzFile f = gzopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len == cap) {
            if (cap >= MAX_JSON_BYTES)
                break;
            cap *= 2;
            buf = realloc(buf, cap);
        }
        int n = gzread(f, buf + len, (unsigned)(cap - len));
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    gzclose(f);
    json_t *j = json_loadb(buf, len, 0, NULL);
    free(buf);
    return j;
}

json_t *pv_cmp_inflate_json(const char *data, size_t len)
{
    z_stream z = {0};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return NULL;
    size_t cap = len * 8 + 1024, out = 0;
    char *buf = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    int rc = Z_OK;
    while (rc == Z_OK) {
        if (out == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        z.next_out = (Bytef *)buf + out;
        z.avail_out = (uInt)(cap - out);
        rc = inflate(&z, Z_NO_FLUSH);
        out = cap - z.avail_out;
    }
    inflateEnd(&z);
    json_t *j = rc == Z_STREAM_END ? json_loadb(buf, out, 0, NULL) : NULL;
    free(buf);
    return j;
}

json_t *pv_cmp_get_json(const pv_test_server *s, const char *path, int *status, char *detail,
                         size_t cap)
{
    pv_test_reply r;
    if (pv_test_get(s, "GET", path, NULL, &r) != 0) {
        *status = -1;
        snprintf(detail, cap, "no answer from the server for %.1000s", path);
        return NULL;
    }
    *status = r.status;
    json_t *j = NULL;
    char enc[64];
    if (r.status == 200) {
        const char *ce = pv_test_header(&r, "content-encoding", enc, sizeof enc);
        j = ce != NULL && strstr(ce, "gzip") ? pv_cmp_inflate_json(r.body, r.len)
                                               : json_loadb(r.body, r.len, 0, NULL);
        if (j == NULL)
            snprintf(detail, cap, "200 but the body is not JSON (%zu bytes)", r.len);
    } else {
        json_t *e = json_loadb(r.body, r.len, 0, NULL);
        const char *d = json_string_value(json_object_get(e, "detail"));
        snprintf(detail, cap, "%d %s", r.status, d ? d : "");
        json_decref(e);
    }
    pv_test_reply_free(&r);
    return j;
}
