/* fuzz_hlo: libFuzzer entry for the HLO decoder (hlo_decode.c) and the tools'
 * index over its table. The input is program 1's HloProto in a
 * /host:metadata plane. It must either be read whole or be counted bad,
 * and the table's indices must stay in range; ASan/UBSan catch the rest.
 * Built and run by `tests/fuzz/run.sh hlo`, not by make. */
#include "ingest/ingest.h"
#include "tools/common/hlo_names.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts unless every range and index of t points inside t. */
static void check_table(const pv_hlo_table *t)
{
    if (t->n_bad + t->n_modules != 1)
        abort();
    for (size_t i = 0; i < t->n_modules; i++) {
        const pv_hlo_module *mod = &t->modules[i];
        if ((uint64_t)mod->first_computation + mod->n_computations > t->n_computations)
            abort();
    }
    for (size_t i = 0; i < t->n_computations; i++) {
        const pv_hlo_computation *c = &t->computations[i];
        if (c->module >= t->n_modules ||
            c->first_instruction + c->n_instructions > t->n_instructions)
            abort();
    }
    for (size_t i = 0; i < t->n_instructions; i++) {
        const pv_hlo_instruction *in = &t->instructions[i];
        if (in->computation >= t->n_computations || strlen(in->shape) > (1u << 20))
            abort();
        for (uint32_t k = 0; k < in->n_operands; k++)
            (void)in->operand_ids[k];
        for (uint32_t k = 0; k < in->n_called; k++)
            (void)in->called_ids[k];
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pv_model_builder *b = pv_builder_new();
    uint32_t plane = pv_builder_plane(b, 0, "/host:metadata");
    uint32_t meta = pv_builder_meta(b, plane, 1, "m(1)", NULL);
    pv_builder_meta_stat(b, meta, (pv_stat){pv_builder_intern_cstr(b, "Hlo Proto"),
                                            PV_STAT_BYTES,
                                            {.blob = pv_builder_blob(b, data, size)}});
    pv_model *m = NULL;
    pv_error err = {0};
    if (pv_builder_finish(b, &m, &err) != 0)
        abort();
    pv_ingest_attach(m);
    check_table(pv_model_hlo(m));
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_hlo_names h;
    pv_hlo_names_build(m, &a, &h);
    for (size_t i = 0; i < h.n_instrs; i++)
        if (pv_hlo_names_find(&h, 1, h.instrs[i].name, strlen(h.instrs[i].name)) == NULL)
            abort();
    pv_arena_fini(&a);
    pv_model_free(m);
    return 0;
}
