/* json_out: jansson's dump callback appending to a pv_buf. */
#include "tools/common/json_out.h"

static int append(const char *p, size_t n, void *ctx)
{
    return pv_buf_add(ctx, p, n) == 0 ? 0 : -1;
}

int pv_json_write(json_t *j, pv_buf *out, pv_error *err)
{
    if (j == NULL)
        return pv_error_set(err, PV_ENOMEM, NULL, PV_NO_OFFSET,
                            "the answer could not be built (out of memory)");
    int rc = json_dump_callback(j, append, out, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(j);
    if (rc != 0)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                            "the answer is larger than %zu bytes", out->max);
    return 0;
}
