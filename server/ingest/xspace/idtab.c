/* idtab: dense array plus sorted overflow (idtab.h). */
#include "ingest/xspace/idtab.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

void pv__idtab_init(pv__idtab *t)
{
    memset(t, 0, sizeof *t);
}

void pv__idtab_fini(pv__idtab *t)
{
    free(t->entries);
    free(t->dense);
    free(t->sparse);
    memset(t, 0, sizeof *t);
}

void pv__idtab_reset(pv__idtab *t)
{
    t->n = 0;
    t->n_dense = 0;
    t->n_sparse = 0;
}

void pv__idtab_put(pv__idtab *t, int64_t id, uint32_t val)
{
    if (t->n == t->cap) {
        t->cap = t->cap < 64 ? 64 : t->cap * 2;
        t->entries = pv_xrealloc(t->entries, t->cap * sizeof *t->entries);
    }
    pv__idtab_entry e = {id, val, (uint32_t)t->n};
    t->entries[t->n++] = e;
}

static int entry_cmp(const void *a, const void *b)
{
    const pv__idtab_entry *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

void pv__idtab_seal(pv__idtab *t)
{
    /* The dense range is bounded by the number of puts, so a hostile id
     * like 2^60 cannot make it large. */
    size_t limit = 4 * t->n + 1024;
    size_t n_dense = 0;
    for (size_t i = 0; i < t->n; i++) {
        int64_t id = t->entries[i].id;
        if (id >= 0 && (uint64_t)id < limit && (size_t)id + 1 > n_dense)
            n_dense = (size_t)id + 1;
    }
    if (n_dense > t->cap_dense) {
        free(t->dense);
        t->dense = pv_xmalloc(n_dense * sizeof *t->dense);
        t->cap_dense = n_dense;
    }
    t->n_dense = n_dense;
    if (n_dense > 0)
        memset(t->dense, 0xff, n_dense * sizeof *t->dense);
    size_t n_sparse = 0;
    for (size_t i = 0; i < t->n; i++) {
        int64_t id = t->entries[i].id;
        if (id >= 0 && (uint64_t)id < n_dense)
            t->dense[id] = t->entries[i].val;
        else
            t->entries[n_sparse++] = t->entries[i];
    }
    pv_sort(t->entries, n_sparse, sizeof *t->entries, entry_cmp);
    /* keep the last put of each id */
    free(t->sparse);
    t->sparse = pv_xmalloc((n_sparse ? n_sparse : 1) * sizeof *t->sparse);
    size_t k = 0;
    for (size_t i = 0; i < n_sparse; i++) {
        if (i + 1 < n_sparse && t->entries[i + 1].id == t->entries[i].id)
            continue;
        t->sparse[k++] = t->entries[i];
    }
    t->n_sparse = k;
}
