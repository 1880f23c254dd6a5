/* legacy_file: one reader for the legacy per-tool files, and the
 * read-convert-answer sequence every legacy .pb tool follows. */
#include "http/legacy_file.h"
#include "util/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pv__http_read_file(const char *path, size_t max_bytes, char **out, size_t *len,
                       pv_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 0 || (size_t)st.st_size > max_bytes) {
        close(fd);
        return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                            "not a regular file of at most %zu bytes", max_bytes);
    }
    size_t n = (size_t)st.st_size;
    char *buf = pv_xmalloc(n + 1);
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0) {
            free(buf);
            close(fd);
            return pv_error_set(err, PV_EIO, path, got, "read failed: %s",
                                r < 0 ? strerror(errno) : "file shrank while reading");
        }
        got += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

void pv__http_legacy_respond(pv_response *rs, const char *path, size_t max_bytes,
                             pv__legacy_convert_fn convert)
{
    pv_error err = {0};
    char *data = NULL;
    size_t len = 0;
    if (pv__http_read_file(path, max_bytes, &data, &len, &err) != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    json_t *j = NULL;
    /* The converted result may point into data and a: both live until the
     * JSON is built. */
    int rc = convert((const uint8_t *)data, len, path, &a, &j, &err);
    pv_arena_fini(&a);
    free(data);
    if (rc != 0) {
        pv_respond_pv_error(rs, &err);
        return;
    }
    if (j == NULL) {
        pv_respond_error(rs, 500, "internal error", "the legacy file could not be serialised");
        return;
    }
    pv_respond_json(rs, 200, j);
}
