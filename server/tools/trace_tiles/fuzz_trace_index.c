/* fuzz_trace_index: libFuzzer entry for pv_trace_index_read, the reader of
 * the trace index the disk cache keeps (trace_file.c). A random file would
 * be refused at its first bytes, so the input edits a real index instead:
 * the bytes pv_trace_index_write makes for the profile PV_FUZZ_PROFILE
 * names (tests/fuzz/run.sh sets it). The input's first 4 bytes cut them
 * (a length, modulo theirs + 1); each 9 bytes after change one byte (an
 * 8-byte offset, modulo the length, and a byte to XOR into it). An index
 * that reads back must then serve every tile of its precomputed levels and
 * the next, and their counters, with no read out of bounds (ASan, UBSan);
 * one that does not must be refused with PV_EFORMAT. Built and run by
 * `tests/fuzz/run.sh trace_index`, not by make. */
#include "ingest/ingest.h"
#include "tools/trace_tiles/trace_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pv_model *model;
static uint8_t *valid;
static size_t valid_len;

/* The profile's model and the bytes of its index, made once. */
static void setup(void)
{
    const char *path = getenv("PV_FUZZ_PROFILE");
    pv_error err = {0};
    pv_trace_index *ix = NULL;
    if (path == NULL || pv_ingest_file(path, NULL, &model, &err) != 0 ||
        pv_trace_index_new(model, NULL, &ix, &err) != 0) {
        fprintf(stderr, "fuzz_trace_index: PV_FUZZ_PROFILE must name a profile (%s)\n",
                err.reason);
        abort();
    }
    pv_buf b;
    pv_buf_init(&b, SIZE_MAX);
    if (pv_trace_index_write(ix, model, &b) != 0)
        abort();
    valid_len = b.len;
    valid = (uint8_t *)pv_buf_take(&b, NULL);
    pv_trace_index_free(ix);
}

/* Every tile of level (at most 64 of them), JSON with counters. */
static void serve_level(const pv_trace_index *ix, uint32_t level)
{
    uint64_t n = 1ull << level;
    for (uint64_t i = 0; i < n; i += n > 64 ? n / 64 : 1) {
        pv_arena a;
        pv_arena_init(&a, 1 << 16);
        pv_trace_tile_query q = {level, i};
        pv_trace_tile t;
        pv_buf counters, out;
        pv_buf_init(&counters, SIZE_MAX);
        pv_buf_init(&out, SIZE_MAX);
        if (pv_trace_index_tile(model, ix, &q, &a, &t, NULL) == 0 &&
            pv_trace_counters_tile_json(ix, t.start_ps, t.end_ps, &counters) == 0)
            (void)pv_trace_tile_write_json(model, &ix->geom, &t,
                                           counters.data != NULL ? counters.data : "[]", &a,
                                           &out);
        pv_buf_fini(&counters);
        pv_buf_fini(&out);
        pv_arena_fini(&a);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (model == NULL)
        setup();
    size_t len = valid_len;
    if (size >= 4) {
        uint32_t cut;
        memcpy(&cut, data, sizeof cut);
        len = cut % (valid_len + 1);
        data += 4;
        size -= 4;
    }
    uint8_t *bytes = malloc(len + 1);
    memcpy(bytes, valid, len);
    for (; size >= 9 && len > 0; data += 9, size -= 9) {
        uint64_t at;
        memcpy(&at, data, sizeof at);
        bytes[at % len] ^= data[8];
    }
    pv_trace_index *ix = NULL;
    pv_error err = {0};
    int rc = pv_trace_index_read(model, bytes, len, &ix, &err);
    if (rc != 0) {
        if (rc != PV_EFORMAT || ix != NULL)
            abort();
        return 0;
    }
    uint32_t levels = pv_trace_pyramid_levels(ix->pyramid) + 1;
    for (uint32_t l = 0; l < levels && l <= ix->geom.max_level; l++)
        serve_level(ix, l);
    pv_trace_index_free(ix);
    return 0;
}
