/* fuzz_chrome_json: libFuzzer entry for the trace JSON decoder and the
 * builder behind it. Every input (plain, or gzip'd when it starts so)
 * must either decode into a sane model or fail with a pv_error naming
 * the reason; ASan and UBSan catch the rest. The input also goes through
 * the reader in chunks of 1 to 64 bytes (its first byte picks the size),
 * which must give a model of the same events as the whole input. Built
 * and run by tests/fuzz/run.sh chrome_json, not by make check. */
#include "ingest/chrome_json/cj_chunks.h"
#include "ingest/chrome_json/chrome_json.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t events_of(int rc, pv_model *m)
{
    return rc == 0 ? m->n_events : UINT64_MAX;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pv_error err = {0};
    pv_model *whole = NULL;
    int rc = pv_ingest_buffer(data, size, "fuzz", NULL, &whole, &err);
    if (rc == 0 && !pv_model_is_sane(whole))
        abort();
    if (rc != 0 && (whole != NULL || err.code != rc || err.reason[0] == '\0'))
        abort();
    if (size > 0 && !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b) &&
        pv_chrome_json_sniff(data, size)) {
        int rc2;
        pv_error err2;
        pv_model *split =
            pv__cj_decode_chunks(data, size, (size_t)(data[0] % 64) + 1, "fuzz", &rc2, &err2);
        if ((rc == 0) != (rc2 == 0) || events_of(rc, whole) != events_of(rc2, split))
            abort();
        pv_model_free(split);
    }
    pv_model_free(whole);
    return 0;
}
