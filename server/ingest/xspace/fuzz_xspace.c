/* fuzz_xspace: libFuzzer entry for the XSpace decoder and the model
 * builder behind it. Every input must either decode into a sane model
 * or fail with a pv_error, and every event's stats (read from the input
 * on demand), memory details and HLO protos must read back; ASan/UBSan
 * catch the rest. Built and run by `tests/fuzz/run.sh xspace`, not by
 * make. */
#include "ingest/ingest.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pv_error err = {0};
    pv_model *m = NULL;
    int rc = pv_ingest_buffer(data, size, "fuzz", NULL, &m, &err);
    if (rc == 0 && !pv_model_is_sane(m))
        abort();
    for (uint64_t e = 0; rc == 0 && e < m->n_events; e++) {
        pv_stat own[8];
        size_t n = pv_model_event_own_stats(m, e, own, 8);
        for (size_t k = 0; k < n && k < 8; k++) {
            size_t len;
            const char *text = pv_model_stat_text(m, &own[k], &len);
            if (text != NULL && len > 0 && text[len - 1] == '\x7f' && text[0] == '\x7f')
                err.offset++;   /* touch the bytes so ASan sees a bad pointer */
            (void)pv_model_stat_str_id(m, &own[k]);
        }
        pv_stat found;
        if (n > 0 && !pv_model_event_stat(m, e, own[0].name, &found))
            abort();   /* a stat just read must be found by its name */
        pv_memory_details md;
        (void)pv_model_event_memory(m, e, &md);
    }
    if (rc == 0 && pv_model_hlo(m)->n_modules > m->n_metas)
        abort();   /* one module per metadata with an HLO proto at most */
    if (rc != 0 && (m != NULL || err.code != rc || err.reason[0] == '\0'))
        abort();
    pv_model_free(m);
    return 0;
}
