/* fuzz_input_pipeline_legacy: libFuzzer entry for the legacy
 * overview_page.pb and input_pipeline.pb converters
 * (input_pipeline_legacy.c) and the JSON their results become. The first
 * byte picks the converter (odd: overview page, even: input pipeline);
 * fuzz_legacy.h checks the outcome and ASan/UBSan the rest. Built and run
 * by `tests/fuzz/run.sh input_pipeline_legacy`, not by make. */
#include "ingest/tf_legacy/fuzz_legacy.h"
#include "ingest/tf_legacy/input_pipeline_legacy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *overview(const uint8_t *data, size_t size, pv_arena *a, int *rc, pv_error *err)
{
    pv_overview_result r;
    *rc = pv_overview_legacy_read(data, size, "fuzz", a, &r, err);
    return *rc == 0 ? pv_overview_to_json(&r) : NULL;
}

static json_t *input_pipeline(const uint8_t *data, size_t size, pv_arena *a, int *rc,
                              pv_error *err)
{
    pv_input_pipeline_result r;
    *rc = pv_input_pipeline_legacy_read(data, size, "fuzz", a, &r, err);
    return *rc == 0 ? pv_input_pipeline_to_json(&r) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return pv__fuzz_legacy_run(data, size, overview, input_pipeline);
}
