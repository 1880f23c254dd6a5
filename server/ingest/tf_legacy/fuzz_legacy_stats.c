/* fuzz_legacy_stats: libFuzzer entry for the legacy kernel_stats.pb and
 * tensorflow_stats.pb converters (legacy_stats.c) and the JSON their
 * results become. The first byte picks the converter (odd: op stats,
 * even: kernel stats); fuzz_legacy.h checks the outcome and ASan/UBSan
 * the rest. Built and run by `tests/fuzz/run.sh legacy_stats`, not by
 * make. */
#include "ingest/tf_legacy/fuzz_legacy.h"
#include "ingest/tf_legacy/legacy_stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *op_stats(const uint8_t *data, size_t size, pv_arena *a, int *rc, pv_error *err)
{
    pv_op_stats_result r;
    *rc = pv_legacy_op_stats(data, size, "fuzz", a, &r, err);
    return *rc == 0 ? pv_op_stats_to_json(&r) : NULL;
}

static json_t *kernel_stats(const uint8_t *data, size_t size, pv_arena *a, int *rc,
                            pv_error *err)
{
    pv_kernel_stats_result r;
    *rc = pv_legacy_kernel_stats(data, size, "fuzz", a, &r, err);
    return *rc == 0 ? pv_kernel_stats_to_json(&r) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return pv__fuzz_legacy_run(data, size, op_stats, kernel_stats);
}
