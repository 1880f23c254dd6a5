/* steps_answers: overview_page.pb and input_pipeline.pb as the results of
 * the steps family's tools (input_pipeline_legacy.h), in the shape
 * ingest/formats.h gives a per-tool file's decoder. Apart from
 * stats_answers.c because the two families each have their own op table
 * type (tools/steps/steps_ops.h, tools/op_stats/op_metrics.h). */
#include "ingest/tf_legacy/tf_legacy.h"
#include "ingest/tf_legacy/input_pipeline_legacy.h"

int pv__tf_legacy_overview(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                    void **result, pv_error *err)
{
    pv_overview_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    return pv_overview_legacy_read(data, len, path, a, r, err);
}

int pv__tf_legacy_input_pipeline(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                          void **result, pv_error *err)
{
    pv_input_pipeline_result *r = pv_arena_zalloc(a, sizeof *r);
    *result = r;
    return pv_input_pipeline_legacy_read(data, len, path, a, r, err);
}

