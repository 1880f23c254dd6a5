/* tool_legacy_stats: kernel_stats and framework_op_stats for a host that
 * has only TensorFlow's legacy per-tool files (kernel_stats.pb,
 * tensorflow_stats.pb): the file is read and converted (tools/legacy_stats)
 * into the same JSON as for an XSpace. Called from api_data.c's legacy
 * file path. */
#include "http/legacy_file.h"
#include "http/tool_table.h"
#include "ingest/tf_legacy/legacy_stats.h"

#define MAX_LEGACY_STATS_BYTES ((size_t)512 << 20)

static int kernel_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                        json_t **out, pv_error *err)
{
    pv_kernel_stats_result r;
    int rc = pv_legacy_kernel_stats(data, len, path, a, &r, err);
    if (rc == 0)
        *out = pv_kernel_stats_to_json(&r);
    return rc;
}

static int op_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                    json_t **out, pv_error *err)
{
    pv_op_stats_result r;
    int rc = pv_legacy_op_stats(data, len, path, a, &r, err);
    if (rc == 0)
        *out = pv_op_stats_to_json(&r);
    return rc;
}

void pv_http_legacy_kernel_op_stats(pv_response *rs, const char *path, bool kernel_stats_pb)
{
    pv__http_legacy_respond(rs, path, MAX_LEGACY_STATS_BYTES,
                            kernel_stats_pb ? kernel_stats : op_stats);
}
