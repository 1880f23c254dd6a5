/* fuzz_input_pipeline_legacy: libFuzzer entry for the legacy
 * overview_page.pb and input_pipeline.pb converters
 * (input_pipeline_legacy.c) and the JSON their results become. The first
 * byte picks the converter (bit 0: overview page, else input pipeline).
 * Every input must convert or fail with a pv_error (fuzz_legacy.h);
 * ASan/UBSan catch the rest. Built and run by
 * `tests/fuzz/run.sh input_pipeline_legacy`, not by make. */
#include "ingest/tf_legacy/fuzz_legacy.h"
#include "ingest/tf_legacy/input_pipeline_legacy.h"

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
        pv_overview_result r;
        rc = pv_overview_legacy_read(data + 1, size - 1, "fuzz", &a, &r, &err);
        if (rc == 0)
            j = pv_overview_to_json(&r);
    } else {
        pv_input_pipeline_result r;
        rc = pv_input_pipeline_legacy_read(data + 1, size - 1, "fuzz", &a, &r, &err);
        if (rc == 0)
            j = pv_input_pipeline_to_json(&r);
    }
    pv__fuzz_legacy_check(rc, &err, j, &a);
    return 0;
}
