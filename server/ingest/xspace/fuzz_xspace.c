/* fuzz_xspace: libFuzzer entry for the XSpace decoder and the model
 * builder behind it. Every input must either decode into a sane model
 * or fail with a pv_error, and every event's stats (read from the input
 * on demand), memory details and HLO protos must read back; ASan/UBSan
 * catch the rest. The decode on two threads (xs_walk.h) must end as the
 * one on one thread does: the same error at the same byte, or a builder
 * of the same counts. Built and run by `tests/fuzz/run.sh xspace`, not by
 * make. */
#include "ingest/ingest.h"
#include "ingest/xspace/xspace.h"

#include <stdlib.h>
#include <string.h>

/* What a decode of data on threads threads ends with. */
typedef struct outcome {
    int rc;
    pv_error err;
    uint64_t n_events, mem_bound;
} outcome;

static outcome decode_on(const uint8_t *data, size_t size, unsigned threads)
{
    outcome o;
    memset(&o, 0, sizeof o);
    pv_ingest_src src = {data, size, "fuzz", NULL, false};
    pv_model_builder *b = pv_builder_new();
    pv_builder_source(b, data, size, PV_SRC_NONE);
    o.rc = pv_decode_xspace_threads(&src, b, &o.err, threads);
    o.n_events = pv_builder_n_events(b);
    o.mem_bound = pv_builder_mem_bound(b);
    pv_builder_free(b);
    return o;
}

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
    outcome one = decode_on(data, size, 1), two = decode_on(data, size, 2);
    if (one.rc != two.rc || one.err.offset != two.err.offset ||
        strcmp(one.err.reason, two.err.reason) != 0 || one.n_events != two.n_events ||
        one.mem_bound != two.mem_bound)
        abort();
    return 0;
}
