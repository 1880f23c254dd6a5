/* fuzz_legacy: what the two fuzz targets of the legacy converters check
 * after a conversion (fuzz_legacy_stats.c, fuzz_input_pipeline_legacy.c;
 * built by tests/fuzz/run.sh, not by make). */
#ifndef PV_INGEST_TF_LEGACY_FUZZ_LEGACY_H
#define PV_INGEST_TF_LEGACY_FUZZ_LEGACY_H

#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stdlib.h>

/* Aborts unless a conversion that returned rc either failed with its
 * code and a reason in err, or succeeded with JSON j whose DataTables
 * have one cell per column in every row; then frees j and a. */
static inline void pv__fuzz_legacy_check(int rc, const pv_error *err, json_t *j, pv_arena *a)
{
    if ((rc != 0 && (err->code != rc || err->reason[0] == '\0')) || (rc == 0 && j == NULL))
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
    pv_arena_fini(a);
}

#endif
