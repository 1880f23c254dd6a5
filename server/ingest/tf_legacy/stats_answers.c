/* stats_answers: kernel_stats.pb and tensorflow_stats.pb as the results of
 * the kernel_stats and framework_op_stats tools (legacy_stats.h), in the
 * shape ingest/formats.h gives a per-tool file's decoder. */
#include "ingest/tf_legacy/tf_legacy.h"
#include "ingest/tf_legacy/legacy_stats.h"

int pv__tf_legacy_kernel_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                        void **result, pv_error *err)
{
    pv_kernel_stats_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    return pv_legacy_kernel_stats(data, len, path, a, r, err);
}

int pv__tf_legacy_op_stats(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                    void **result, pv_error *err)
{
    pv_op_stats_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    return pv_legacy_op_stats(data, len, path, a, r, err);
}

