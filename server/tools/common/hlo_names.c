/* hlo_names: a lookup index over the model's HLO table (model/hlo_table.h). */
#include "tools/common/hlo_names.h"

#include "model/hlo_table.h"
#include "util/bsearch.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

/* ---- building and lookups ---------------------------------------------------- */

static int cmp_instr(const void *pa, const void *pb)
{
    const pv_hlo_instr *a = pa;
    const pv_hlo_instr *b = pb;
    if (a->program_id != b->program_id)
        return a->program_id < b->program_id ? -1 : 1;
    return strcmp(a->name, b->name);
}

void pv_hlo_names_build(const pv_model *m, pv_arena *a, pv_hlo_names *out)
{
    memset(out, 0, sizeof *out);
    const pv_hlo_table *t = pv_model_hlo(m);
    out->n_bad = t->n_bad;
    if (t->n_instructions > 0) {
        pv_hlo_instr *v = pv_arena_alloc(a, t->n_instructions * sizeof *v);
        for (size_t i = 0; i < t->n_instructions; i++) {
            const pv_hlo_instruction *in = &t->instructions[i];
            const pv_hlo_computation *c = &t->computations[in->computation];
            v[i] = (pv_hlo_instr){t->modules[c->module].program_id, in->name, in->op_name,
                                  in->op_type, in->source_file, in->source_line};
        }
        pv_sort(v, t->n_instructions, sizeof *v, cmp_instr);
        out->instrs = v;
        out->n_instrs = t->n_instructions;
    }
    if (t->n_modules > 0) {
        /* the table's modules are sorted by program id already */
        uint64_t *programs = pv_arena_alloc(a, t->n_modules * sizeof *programs);
        for (size_t i = 0; i < t->n_modules; i++)
            programs[i] = t->modules[i].program_id;
        out->programs = programs;
        out->n_programs = t->n_modules;
    }
}

/* An instruction's order against (program_id, the len bytes of name), as
 * the table is sorted: by program, then by name. */
static int instr_cmp(const pv_hlo_instr *in, uint64_t program_id, const char *name, size_t len)
{
    if (in->program_id != program_id)
        return in->program_id < program_id ? -1 : 1;
    int c = strncmp(in->name, name, len);
    return c == 0 && in->name[len] != '\0' ? 1 : c;
}

const pv_hlo_instr *pv_hlo_names_find(const pv_hlo_names *h, uint64_t program_id,
                                      const char *name, size_t len)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, h->n_instrs, i, instr_cmp(&h->instrs[i], program_id, name, len) < 0);
    if (lo == h->n_instrs || instr_cmp(&h->instrs[lo], program_id, name, len) != 0)
        return NULL;
    return &h->instrs[lo];
}

bool pv_hlo_names_has_program(const pv_hlo_names *h, uint64_t program_id)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, h->n_programs, i, h->programs[i] < program_id);
    return lo < h->n_programs && h->programs[lo] == program_id;
}

const char *pv_hlo_instr_tf_op(const pv_hlo_instr *in, pv_arena *a)
{
    if (in->op_name[0] == '\0' && in->op_type[0] == '\0')
        return "";
    return pv_arena_printf(a, "%s:%s", in->op_name, in->op_type);
}
