/* fuzz_legacy_stats: libFuzzer entry for the wire readers of tools/: the
 * legacy kernel_stats.pb / tensorflow_stats.pb readers (tools/legacy_stats)
 * with their JSON, and the HLO proto reader (tools/hlo_names). The first
 * byte picks the reader (bit 1 set: HLO proto; else bit 0: op stats or
 * kernel stats); every input must either convert or fail with a pv_error;
 * ASan/UBSan catch the rest. Built and run by tests/fuzz/run_legacy_stats.sh,
 * not by make check. */
#include "model/builder.h"
#include "tools/common/hlo_names.h"
#include "ingest/tf_legacy/legacy_stats.h"

#include <stdlib.h>
#include <string.h>

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
    if (data[0] & 2) {
        /* The bytes as program 1's HLO proto in a /host:metadata plane. */
        pv_model_builder *b = pv_builder_new();
        uint32_t plane = pv_builder_plane(b, 0, "/host:metadata");
        uint32_t meta = pv_builder_meta(b, plane, 1, "m(1)", NULL);
        pv_builder_meta_stat(b, meta, (pv_stat){pv_builder_intern_cstr(b, "Hlo Proto"),
                                                PV_STAT_BYTES,
                                                {.blob = pv_builder_blob(b, data + 1, size - 1)}});
        pv_model *m = NULL;
        if (pv_builder_finish(b, &m, &err) == 0) {
            pv_hlo_names h;
            pv_hlo_names_build(m, &a, &h);
            if (h.n_bad + h.n_programs != 1)
                abort();
            for (size_t i = 0; i < h.n_instrs; i++)
                if (pv_hlo_names_find(&h, 1, h.instrs[i].name, strlen(h.instrs[i].name)) == NULL)
                    abort();
        }
        pv_model_free(m);
        pv_arena_fini(&a);
        return 0;
    }
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
    if (rc != 0 && (err.code != rc || err.reason[0] == '\0'))
        abort();
    if (rc == 0 && j == NULL)
        abort();
    if (j != NULL) {
        /* Every row has one cell per column, whatever the file held. */
        json_t *tables = json_is_array(j) ? j : NULL;
        for (size_t t = 0; t < (tables != NULL ? json_array_size(tables) : 1); t++) {
            json_t *tab = tables != NULL ? json_array_get(tables, t) : j;
            size_t n_cols = json_array_size(json_object_get(tab, "cols"));
            json_t *rows = json_object_get(tab, "rows");
            for (size_t i = 0; i < json_array_size(rows); i++)
                if (json_array_size(json_object_get(json_array_get(rows, i), "c")) != n_cols)
                    abort();
        }
        char *s = json_dumps(j, JSON_COMPACT);
        free(s);
        json_decref(j);
    }
    pv_arena_fini(&a);
    return 0;
}
