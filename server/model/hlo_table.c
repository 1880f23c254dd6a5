/* hlo_table: the model's lazily decoded HLO table (hlo_table.h): one slot per model,
 * filled once under its lock. */
#include "model/hlo_table.h"
#include "model/model_priv.h"
#include "util/bsearch.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct pv__hlo_slot {
    pthread_mutex_t lock;     /* held by the thread that decodes */
    _Atomic bool ready;       /* table filled; read without the lock */
    pv_hlo_decode_fn decode;
    pv_hlo_buffers_fn buffers;
    pv_arena arena;           /* everything the table points at */
    pv_hlo_table table;
};

void pv_model_set_hlo_decoder(pv_model *m, pv_hlo_decode_fn decode, pv_hlo_buffers_fn buffers)
{
    pv__model_store *s = m->priv;
    if (s->hlo == NULL) {
        s->hlo = pv_xcalloc(1, sizeof *s->hlo);
        pthread_mutex_init(&s->hlo->lock, NULL);
        pv_arena_init(&s->hlo->arena, (size_t)64 << 10);
    }
    s->hlo->decode = decode;
    s->hlo->buffers = buffers;
}

int pv_model_hlo_buffers(const pv_model *m, uint64_t program_id, pv_arena *a,
                         pv_hlo_buffers *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    const pv__model_store *s = m->priv;
    if (s == NULL || s->hlo == NULL || s->hlo->buffers == NULL)
        return pv_error_set(err, PV_ENOTFOUND, NULL, PV_NO_OFFSET,
                            "the profile has no HLO decoder");
    return s->hlo->buffers(m, program_id, a, out, err);
}

const pv_hlo_table *pv_model_hlo(const pv_model *m)
{
    static const pv_hlo_table empty = {NULL, 0, NULL, 0, NULL, 0, 0, NULL};
    const pv__model_store *s = m->priv;
    struct pv__hlo_slot *h = s != NULL ? s->hlo : NULL;
    if (h == NULL)
        return &empty;
    /* the acquire pairs with the release below: a thread that sees ready
     * sees the table the decoding thread wrote */
    if (atomic_load_explicit(&h->ready, memory_order_acquire))
        return &h->table;
    pthread_mutex_lock(&h->lock);
    if (!atomic_load_explicit(&h->ready, memory_order_relaxed)) {
        h->decode(m, &h->arena, &h->table);
        atomic_store_explicit(&h->ready, true, memory_order_release);
    }
    pthread_mutex_unlock(&h->lock);
    return &h->table;
}

const pv_hlo_module *pv_hlo_module_find(const pv_hlo_table *t, uint64_t program_id)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, t->n_modules, mid, t->modules[mid].program_id < program_id);
    return lo < t->n_modules && t->modules[lo].program_id == program_id ? &t->modules[lo]
                                                                         : NULL;
}

const char *pv_hlo_bad_reason(const pv_hlo_table *t, uint64_t program_id)
{
    for (size_t i = 0; i < t->n_bad; i++)
        if (t->bad[i].program_id == program_id)
            return t->bad[i].reason;
    return NULL;
}

size_t pv__hlo_bytes(const struct pv__hlo_slot *h)
{
    if (h == NULL || !atomic_load_explicit(&h->ready, memory_order_acquire))
        return 0;
    return h->arena.total_bytes;
}

void pv__hlo_slot_free(struct pv__hlo_slot *h)
{
    if (h == NULL)
        return;
    pthread_mutex_destroy(&h->lock);
    pv_arena_fini(&h->arena);
    free(h);
}
