/* fuzz_legacy_stats: libFuzzer entry for the legacy kernel_stats.pb and
 * tensorflow_stats.pb converters (legacy_stats.c) and the JSON their
 * results become. The first byte picks the converter (bit 0: op stats,
 * else kernel stats). Every input must convert or fail with a pv_error
 * (fuzz_legacy.h); ASan/UBSan catch the rest. Built and run by
 * `tests/fuzz/run.sh legacy_stats`, not by make. */
#include "ingest/tf_legacy/fuzz_legacy.h"
#include "ingest/tf_legacy/legacy_stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_error err = {0};
    json_t *j = NULL;
    int rc;
    if (data[0] & 1) {
        pv_op_stats_result r;
        rc = pv_legacy_op_stats(data + 1, size - 1, "fuzz", &a, &r, &err);
        if (rc == 0)
            j = pv_op_stats_to_json(&r);
    } else {
        pv_kernel_stats_result r;
        rc = pv_legacy_kernel_stats(data + 1, size - 1, "fuzz", &a, &r, &err);
        if (rc == 0)
            j = pv_kernel_stats_to_json(&r);
    }
    pv__fuzz_legacy_check(rc, &err, j, &a);
    return 0;
}
