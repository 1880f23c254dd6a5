/* hlo_names: reads the few HloProto fields listed in hlo_names.h with the
 * bounds-checked wire reader of pb_wire.h. */
#include "tools/common/hlo_names.h"

#include "ingest/tf_legacy/pb_wire.h"
#include "util/bsearch.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>


/* ---- collecting instructions --------------------------------------------------- */

typedef struct collect {
    pv_arena *a;
    pv_hlo_instr *v;
    size_t n;
    size_t cap;
} collect;

static const char *arena_str(pv_arena *a, pv__wire s)
{
    return pv_arena_strndup(a, (const char *)s.p, (size_t)(s.end - s.p));
}

static void read_metadata(pv__wire m, pv_arena *a, pv_hlo_instr *in, bool *bad)
{
    uint32_t f, t;
    while (pv__wire_next(&m, &f, &t)) {
        if ((f == 1 || f == 2 || f == 3) && t == 2) {
            pv__wire s = pv__wire_bytes(&m);
            if (!s.bad) {
                if (f == 1)
                    in->op_type = arena_str(a, s);
                else if (f == 2)
                    in->op_name = arena_str(a, s);
                else
                    in->source_file = arena_str(a, s);
            }
        } else if (f == 4 && t == 0) {
            /* int32 on the wire: a negative line is sign-extended to 64 bits */
            in->source_line = (int32_t)(uint32_t)pv__wire_varint(&m);
        } else {
            pv__wire_skip(&m, t);
        }
    }
    *bad = *bad || m.bad;
}

static bool read_instruction(pv__wire w, collect *c, uint64_t program_id)
{
    pv_hlo_instr in = {program_id, "", "", "", "", 0};
    bool bad = false;
    uint32_t f, t;
    while (pv__wire_next(&w, &f, &t)) {
        if (f == 1 && t == 2) {
            pv__wire s = pv__wire_bytes(&w);
            if (!s.bad)
                in.name = arena_str(c->a, s);
        } else if (f == 7 && t == 2) {
            pv__wire m = pv__wire_bytes(&w);
            if (!m.bad)
                read_metadata(m, c->a, &in, &bad);
        } else {
            pv__wire_skip(&w, t);
        }
    }
    if (w.bad || bad)
        return false;
    if (c->n == c->cap) {
        c->cap = c->cap == 0 ? 256 : c->cap * 2;
        c->v = pv_xrealloc(c->v, c->cap * sizeof *c->v);
    }
    c->v[c->n++] = in;
    return true;
}

/* Walks HloProto -> module -> computations -> instructions. Returns false
 * on malformed input (the caller drops what this proto added). */
static bool read_hlo_proto(pv__wire w, collect *c, uint64_t program_id)
{
    uint32_t f, t;
    while (pv__wire_next(&w, &f, &t)) {
        if (f != 1 || t != 2) {
            pv__wire_skip(&w, t);
            continue;
        }
        pv__wire mod = pv__wire_bytes(&w);
        while (pv__wire_next(&mod, &f, &t)) {
            if (f != 3 || t != 2) {
                pv__wire_skip(&mod, t);
                continue;
            }
            pv__wire comp = pv__wire_bytes(&mod);
            while (pv__wire_next(&comp, &f, &t)) {
                if (f != 2 || t != 2) {
                    pv__wire_skip(&comp, t);
                    continue;
                }
                pv__wire instr = pv__wire_bytes(&comp);
                if (instr.bad || !read_instruction(instr, c, program_id))
                    return false;
            }
            if (comp.bad)
                return false;
        }
        if (mod.bad)
            return false;
    }
    return !w.bad;
}

/* ---- building and lookups ---------------------------------------------------- */

static int cmp_instr(const void *pa, const void *pb)
{
    const pv_hlo_instr *a = pa;
    const pv_hlo_instr *b = pb;
    if (a->program_id != b->program_id)
        return a->program_id < b->program_id ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa;
    uint64_t b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

void pv_hlo_names_build(const pv_model *m, pv_arena *a, pv_hlo_names *out)
{
    memset(out, 0, sizeof *out);
    uint32_t hlo_proto = pv_model_str_find(m, "Hlo Proto");
    if (hlo_proto == 0)
        return;
    collect c = {a, NULL, 0, 0};
    uint64_t *programs = NULL;
    size_t n_programs = 0;
    for (uint32_t i = 0; i < m->n_metas; i++) {
        const pv_event_meta *md = &m->metas[i];
        if (m->planes[md->plane].kind != PV_PLANE_METADATA)
            continue;
        for (uint32_t s = 0; s < md->n_stats; s++) {
            const pv_stat *st = &m->stats[md->first_stat + s];
            if (st->name != hlo_proto || st->type != PV_STAT_BYTES || st->v.blob >= m->n_blobs)
                continue;
            const pv_blob *b = &m->blobs[st->v.blob];
            size_t before = c.n;
            pv__wire w = {b->data, b->data + b->len, false};
            if (!read_hlo_proto(w, &c, (uint64_t)md->id)) {
                c.n = before;
                out->n_bad++;
                continue;
            }
            programs = pv_xrealloc(programs, (n_programs + 1) * sizeof *programs);
            programs[n_programs++] = (uint64_t)md->id;
        }
    }
    if (c.n > 0) {
        out->instrs = pv_arena_alloc(a, c.n * sizeof *out->instrs);
        memcpy(out->instrs, c.v, c.n * sizeof *out->instrs);
        pv_sort(out->instrs, c.n, sizeof *out->instrs, cmp_instr);
        out->n_instrs = c.n;
    }
    if (n_programs > 0) {
        out->programs = pv_arena_alloc(a, n_programs * sizeof *out->programs);
        memcpy(out->programs, programs, n_programs * sizeof *programs);
        pv_sort(out->programs, n_programs, sizeof *programs, cmp_u64);
        out->n_programs = n_programs;
    }
    free(c.v);
    free(programs);
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
