/* fuzz_xspace: libFuzzer entry for the XSpace decoder and the model
 * builder behind it. Every input must either decode into a sane model
 * or fail with a pv_error; ASan/UBSan catch the rest. Built and run by
 * tests/fuzz/run.sh, not by make check. */
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
    if (rc != 0 && (m != NULL || err.code != rc || err.reason[0] == '\0'))
        abort();
    pv_model_free(m);
    return 0;
}
