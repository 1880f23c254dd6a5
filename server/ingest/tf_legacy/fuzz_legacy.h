/* fuzz_legacy: the entry the two fuzz targets of the legacy converters
 * share (fuzz_legacy_stats.c, fuzz_input_pipeline_legacy.c; built by
 * tests/fuzz/run.sh, not by make): the first byte picks one of two
 * converters, and what every conversion must give is checked. */
#ifndef PV_INGEST_TF_LEGACY_FUZZ_LEGACY_H
#define PV_INGEST_TF_LEGACY_FUZZ_LEGACY_H

#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stdlib.h>

/* One converter and the JSON of its result: sets *rc and returns the JSON
 * (NULL when the conversion failed). */
typedef json_t *(*pv__fuzz_convert_fn)(const uint8_t *data, size_t size, pv_arena *a, int *rc,
                                       pv_error *err);

/* Runs odd (first byte odd) or even on the bytes after the first, and
 * aborts unless the conversion either failed with its code and a reason
 * in err, or succeeded with JSON whose DataTables have one cell per
 * column in every row. */
static inline int pv__fuzz_legacy_run(const uint8_t *data, size_t size, pv__fuzz_convert_fn odd,
                                      pv__fuzz_convert_fn even)
{
    if (size == 0)
        return 0;
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_error err = {0};
    int rc;
    json_t *j = (data[0] & 1 ? odd : even)(data + 1, size - 1, &a, &rc, &err);
    if ((rc != 0 && (err.code != rc || err.reason[0] == '\0')) || (rc == 0 && j == NULL))
        abort();
    json_t *tables = json_is_array(j) ? j : NULL;
    for (size_t t = 0; j != NULL && t < (tables != NULL ? json_array_size(tables) : 1); t++) {
        json_t *tab = tables != NULL ? json_array_get(tables, t) : j;
        size_t n_cols = json_array_size(json_object_get(tab, "cols"));
        json_t *rows = json_object_get(tab, "rows");
        for (size_t i = 0; i < json_array_size(rows); i++)
            if (json_array_size(json_object_get(json_array_get(rows, i), "c")) != n_cols)
                abort();
    }
    if (j != NULL) {
        free(json_dumps(j, JSON_COMPACT));
        json_decref(j);
    }
    pv_arena_fini(&a);
    return 0;
}

#endif
