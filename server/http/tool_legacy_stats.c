/* tool_legacy_stats: kernel_stats and framework_op_stats for a host that
 * has only TensorFlow's legacy per-tool files (kernel_stats.pb,
 * tensorflow_stats.pb): the file is read and converted (tools/legacy_stats)
 * into the same JSON as for an XSpace. Called from api_data.c's legacy
 * file path. */
#include "http/tool_table.h"
#include "tools/legacy_stats.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LEGACY_STATS_BYTES ((size_t)512 << 20)

/* The whole file into the arena; 0 or PV_EIO / PV_ETOOBIG with err set. */
static int read_file(const char *path, pv_arena *a, uint8_t **out, size_t *len, pv_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 0 || (size_t)st.st_size > MAX_LEGACY_STATS_BYTES) {
        close(fd);
        return pv_error_set(err, PV_ETOOBIG, path, PV_NO_OFFSET,
                            "not a regular file of at most %zu bytes", MAX_LEGACY_STATS_BYTES);
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = pv_arena_alloc(a, n + 1);
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0) {
            close(fd);
            return pv_error_set(err, PV_EIO, path, got, "read failed: %s",
                                r < 0 ? strerror(errno) : "file shrank while reading");
        }
        got += (size_t)r;
    }
    close(fd);
    *out = buf;
    *len = n;
    return 0;
}

void pv_http_legacy_kernel_op_stats(pv_response *rs, const char *path, bool kernel_stats)
{
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_error err = {0};
    uint8_t *data = NULL;
    size_t len = 0;
    json_t *j = NULL;
    if (read_file(path, &a, &data, &len, &err) != 0)
        goto fail;
    if (kernel_stats) {
        pv_kernel_stats_result r;
        if (pv_legacy_kernel_stats(data, len, path, &a, &r, &err) != 0)
            goto fail;
        j = pv_kernel_stats_to_json(&r);
    } else {
        pv_op_stats_result r;
        if (pv_legacy_op_stats(data, len, path, &a, &r, &err) != 0)
            goto fail;
        j = pv_op_stats_to_json(&r);
    }
    pv_arena_fini(&a);
    if (j == NULL) {
        pv_respond_error(rs, 500, "internal error", "the legacy stats could not be serialised");
        return;
    }
    pv_respond_json(rs, 200, j);
    return;
fail:
    pv_arena_fini(&a);
    pv_respond_pv_error(rs, &err);
}
