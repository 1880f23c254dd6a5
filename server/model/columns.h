/* columns: the model's arrays, listed once (STYLE rule 21). Everything
 * that handles every column is derived from this list: finish takes the
 * builder's columns over and reorders the per-event ones, the builder
 * grows and frees them, the model counts their bytes and frees them, and
 * serialize.c saves, loads and checks them. A new column is one line here
 * (and its member in pv_model, which the checks in storage.c hold to the
 * line's type), plus the code that fills it.
 *
 * PV__MODEL_COLUMNS(X) calls X(field, type, count, from, flags) once per
 * column, in the order a model file holds them:
 *   field  the pv_model member, a `const type *`
 *   type   its element type
 *   count  the pv_model member that counts it (n_events: one per event)
 *   from   B: the builder collects it as b->field, counted by b->count
 *          (a size_t), and finish takes it over as it is;
 *          F: finish, or a step it runs, makes it
 *   flags  PV__COL_* below, or 0
 * Private to server/model/ (model_priv.h includes it). */
#ifndef PV_MODEL_COLUMNS_H
#define PV_MODEL_COLUMNS_H

#include "model/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* NULL when the model has none. A column without it is never NULL, even
 * when empty: readers may compute `column + 0`. */
#define PV__COL_OPTIONAL 1u
/* count + 1 entries (offsets into another column). */
#define PV__COL_PLUS1 2u
/* B only: the builder makes it when first needed; NULL until then. */
#define PV__COL_LAZY 4u
/* Its rows hold pointers: serialize.c writes them with the pointers
 * cleared and sets them again at load, where the rows are a malloc'd
 * copy rather than the file's bytes. */
#define PV__COL_APART 8u

#define PV__MODEL_COLUMNS(X)                                                          \
    X(planes, pv_plane, n_planes, B, 0)                                               \
    X(tracks, pv_track, n_tracks, B, PV__COL_APART)                                   \
    X(metas, pv_event_meta, n_metas, B, 0)                                            \
    X(meta_children, uint32_t, n_meta_children, F, 0)                                 \
    X(meta_roles, uint8_t, n_metas, F, PV__COL_OPTIONAL)                              \
    X(ev_start_ps, int64_t, n_events, B, 0)                                           \
    X(ev_dur_ps, int64_t, n_events, B, 0)                                             \
    X(ev_meta, uint32_t, n_events, B, 0)                                              \
    X(ev_depth, uint16_t, n_events, F, 0)                                             \
    X(ev_stat_off, uint64_t, n_events, F, PV__COL_OPTIONAL | PV__COL_PLUS1)           \
    X(ev_wire, uint64_t, n_events, B, PV__COL_OPTIONAL | PV__COL_LAZY)                \
    X(ev_group, int32_t, n_events, B, PV__COL_LAZY)                                   \
    X(ev_extra, uint32_t, n_events, B, PV__COL_LAZY)                                  \
    X(stats, pv_stat, n_stats, B, 0)                                                  \
    X(blobs, pv_blob, n_blobs, B, PV__COL_APART)                                      \
    X(stat_names, pv_stat_name, n_stat_names, F, 0)                                   \
    X(extras, pv_event_extra, n_extras, F, 0)                                         \
    X(kernels, pv_kernel_details, n_kernels, F, 0)                                    \
    X(step_infos, pv_step_info, n_step_infos, F, 0)                                   \
    X(groups, pv_step_group, n_groups, F, 0)                                          \
    X(launches, pv_launch, n_launches, F, 0)                                          \
    X(hostnames, uint32_t, n_hostnames, B, 0)                                         \
    X(errors, uint32_t, n_errors, B, 0)                                               \
    X(warnings, uint32_t, n_warnings, B, 0)

/* PV__IF_##from(code): code for the builder's columns only, so an
 * expansion may name b->field. */
#define PV__IF_B(...) __VA_ARGS__
#define PV__IF_F(...)

/* Whether a column's count is n_events (a constant expression). */
#define PV__COL_PER_EVENT(count) (offsetof(pv_model, count) == offsetof(pv_model, n_events))

/* Bytes the columns hold per event; the per-depth index (pv_track) adds
 * four more. A constant expression. */
#define PV__COL_EVENT_BYTES_(field, type, count, from, flags) \
    +(PV__COL_PER_EVENT(count) ? sizeof(type) : 0)
#define PV__MODEL_EVENT_BYTES ((size_t)0 PV__MODEL_COLUMNS(PV__COL_EVENT_BYTES_))

/* ---- the list as data (storage.c) ---------------------------------------- */

#define PV__COL_ID_(field, type, count, from, flags) PV__COLUMN_##field,
enum { PV__MODEL_COLUMNS(PV__COL_ID_) PV__N_COLUMNS };

typedef struct pv__column {
    const char *name;       /* the pv_model member */
    uint32_t field;         /* offsetof(pv_model, field) */
    uint32_t count;         /* offsetof(pv_model, count) */
    uint32_t elem;          /* bytes per entry */
    uint8_t count_bytes;    /* sizeof the count member: 4 or 8 */
    uint8_t flags;          /* PV__COL_* */
} pv__column;

/* Every column, in list order (index PV__COLUMN_<field>). */
extern const pv__column pv__columns[PV__N_COLUMNS];

/* Column c of m: its data (NULL when absent), the value of its count
 * member, and the entries it holds (count, + 1 with PV__COL_PLUS1; 0
 * when absent). */
static inline const void *pv__column_data(const pv_model *m, const pv__column *c)
{
    const void *p;
    memcpy(&p, (const char *)m + c->field, sizeof p);
    return p;
}

static inline uint64_t pv__column_count(const pv_model *m, const pv__column *c)
{
    const char *at = (const char *)m + c->count;
    if (c->count_bytes == sizeof(uint32_t)) {
        uint32_t v;
        memcpy(&v, at, sizeof v);
        return v;
    }
    uint64_t v;
    memcpy(&v, at, sizeof v);
    return v;
}

static inline uint64_t pv__column_entries(const pv_model *m, const pv__column *c)
{
    if (pv__column_data(m, c) == NULL)
        return 0;
    return pv__column_count(m, c) + ((c->flags & PV__COL_PLUS1) ? 1 : 0);
}

/* Sets column c of m (the model is being made: finish or load). */
void pv__column_bind(pv_model *m, const pv__column *c, const void *data);
/* Sets c's count member to n (load); false, m unchanged, when n does not
 * fit it with room for a + 1 (a 32-bit count of UINT32_MAX does not). */
bool pv__column_set_count(pv_model *m, const pv__column *c, uint64_t n);

/* Bytes m's columns hold. */
size_t pv__columns_bytes(const pv_model *m);
/* Gives every column of m without PV__COL_OPTIONAL that is still NULL one
 * zeroed entry of storage (finish). */
void pv__columns_nonnull(pv_model *m);
/* Frees m's columns (model.c): all of them, or when they lie in a
 * mapped model file (`mapped`), the malloc'd copies of the
 * PV__COL_APART ones only. */
void pv__columns_free(pv_model *m, bool mapped);

#endif
