/* storage: how the files of model/ keep their arrays, below every build
 * step (model_priv.h gives the order of the files): growable arrays, the
 * storage a finished model owns beside its columns, the source it owns,
 * and the list of the model's columns (columns.h) as data, which the
 * model's release, its byte count and its file format walk. */
#include "model/model_priv.h"
#include "util/mem.h"

#include <assert.h>
#include <stdlib.h>
#include <sys/mman.h>

/* ---- growable arrays ---------------------------------------------------- */

void pv__grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return;
    size_t c = *cap < 16 ? 16 : *cap + *cap / 2;
    if (c < need)
        c = need;
    *p = pv_xrealloc(*p, c * elem);
    *cap = c;
}

/* ---- owned storage ------------------------------------------------------ */

void pv__store_keep(pv__model_store *s, void *p)
{
    assert(s->n_arrays < sizeof s->arrays / sizeof s->arrays[0]);
    s->arrays[s->n_arrays++] = p;
}

void pv__source_release(const uint8_t *data, size_t len, pv_source_owner owner)
{
    if (data == NULL)
        return;
    if (owner == PV_SRC_MAPPED)
        munmap((void *)(uintptr_t)data, len);
    else if (owner == PV_SRC_MALLOC)
        free((void *)(uintptr_t)data);
}

void pv__release_source(const pv__model_store *s)
{
    bool mapped = s->src_owner == PV_SRC_MAPPED || s->src_owner == PV_SRC_MAPPED_BORROWED;
    if (mapped && s->src_len > 0)
        madvise((void *)(uintptr_t)s->src, s->src_len, MADV_DONTNEED);
}

/* ---- columns ------------------------------------------------------------ */

/* The list says each column's type and count once; these hold pv_model's
 * members, and the builder's for columns it collects, to what it says. */
#define MODEL_MEMBER(m) (((pv_model *)0)->m)
#define BUILDER_MEMBER(m) (((pv_model_builder *)0)->m)
#define CHECK_MODEL(field, type, count, from, flags)                                         \
    _Static_assert(__builtin_types_compatible_p(__typeof__(MODEL_MEMBER(field)), const type *), \
                   "pv_model." #field " is not the const " #type " * of columns.h");          \
    _Static_assert(sizeof MODEL_MEMBER(count) == 4 || sizeof MODEL_MEMBER(count) == 8,         \
                   "pv_model." #count " is no 32- or 64-bit count");
#define CHECK_BUILDER(field, type, count, from, flags)                                       \
    PV__IF_##from(                                                                           \
        _Static_assert(__builtin_types_compatible_p(__typeof__(BUILDER_MEMBER(field)), type *), \
                       "the builder's " #field " is not the " #type " * of columns.h");       \
        _Static_assert(__builtin_types_compatible_p(__typeof__(BUILDER_MEMBER(count)), size_t), \
                       "the builder's " #count " is no size_t");)
PV__MODEL_COLUMNS(CHECK_MODEL)
PV__MODEL_COLUMNS(CHECK_BUILDER)

#define ROW(field, type, count, from, flags)                                                 \
    {#field, offsetof(pv_model, field), offsetof(pv_model, count), sizeof(type),              \
     sizeof MODEL_MEMBER(count), (flags)},
const pv__column pv__columns[PV__N_COLUMNS] = {PV__MODEL_COLUMNS(ROW)};

void pv__column_bind(pv_model *m, const pv__column *c, const void *data)
{
    memcpy((char *)m + c->field, &data, sizeof data);
}

bool pv__column_set_count(pv_model *m, const pv__column *c, uint64_t n)
{
    char *at = (char *)m + c->count;
    if (c->count_bytes == sizeof(uint32_t)) {
        if (n >= UINT32_MAX)
            return false;
        uint32_t v = (uint32_t)n;
        memcpy(at, &v, sizeof v);
    } else {
        memcpy(at, &n, sizeof n);
    }
    return true;
}

size_t pv__columns_bytes(const pv_model *m)
{
    size_t bytes = 0;
    for (size_t i = 0; i < PV__N_COLUMNS; i++)
        bytes += (size_t)pv__column_entries(m, &pv__columns[i]) * pv__columns[i].elem;
    return bytes;
}

void pv__columns_nonnull(pv_model *m)
{
    for (size_t i = 0; i < PV__N_COLUMNS; i++) {
        const pv__column *c = &pv__columns[i];
        if (!(c->flags & PV__COL_OPTIONAL) && pv__column_data(m, c) == NULL)
            pv__column_bind(m, c, pv_xcalloc(1, c->elem));
    }
}

void pv__columns_free(pv_model *m, bool mapped)
{
    for (size_t i = 0; i < PV__N_COLUMNS; i++) {
        const pv__column *c = &pv__columns[i];
        if (!mapped || (c->flags & PV__COL_APART))
            free((void *)(uintptr_t)pv__column_data(m, c));
    }
}
