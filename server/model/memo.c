/* memo: a model's memos (memo.h) in a fixed table of slots under one
 * mutex, which is held only to look and to record, never while a memo is
 * made: a slot being made is marked, and askers of its name wait on the
 * condition variable until it is filled or given up. Slots never move (a
 * maker holds its slot's address without the lock); the filled ones are
 * listed in the order they were filled, so the count of them can be read
 * without the lock. The table is made on first use and put in place with
 * a compare-and-swap, since a shared model is const and has no other
 * moment to make it. */
#include "model/memo.h"
#include "model/model_priv.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct memo_slot {
    char *name;               /* NULL: a free slot */
    uint8_t *data;            /* NULL while being made */
    size_t len;
    bool making;              /* a thread makes it now */
} memo_slot;

struct pv__memos {
    pthread_mutex_t lock;
    pthread_cond_t changed;   /* a slot was filled or given up */
    memo_slot slot[PV_MODEL_MEMOS_MAX];
    uint8_t ready[PV_MODEL_MEMOS_MAX]; /* the filled slots, in the order they were filled */
    _Atomic size_t n_ready;   /* entries of ready: read without the lock */
    _Atomic size_t bytes;     /* their data */
};

static struct pv__memos *memos_of(const pv_model *m)
{
    pv__model_store *s = m->priv;
    struct pv__memos *t = atomic_load_explicit(&s->memos, memory_order_acquire);
    if (t != NULL)
        return t;
    struct pv__memos *fresh = pv_xcalloc(1, sizeof *fresh);
    pthread_mutex_init(&fresh->lock, NULL);
    pthread_cond_init(&fresh->changed, NULL);
    if (atomic_compare_exchange_strong_explicit(&s->memos, &t, fresh, memory_order_acq_rel,
                                                memory_order_acquire))
        return fresh;
    /* another thread put its table in first: t is that one */
    pthread_cond_destroy(&fresh->changed);
    pthread_mutex_destroy(&fresh->lock);
    free(fresh);
    return t;
}

/* Lists slot i, just filled, as ready. Caller holds the lock. */
static void publish(struct pv__memos *t, size_t i)
{
    size_t n = atomic_load_explicit(&t->n_ready, memory_order_relaxed);
    t->ready[n] = (uint8_t)i;
    atomic_fetch_add_explicit(&t->bytes, t->slot[i].len, memory_order_relaxed);
    atomic_store_explicit(&t->n_ready, n + 1, memory_order_release);
}

/* The slot named name, or a free slot claimed for it, or NULL when the
 * table is full. Caller holds the lock. */
static memo_slot *slot_for(struct pv__memos *t, const char *name)
{
    memo_slot *free_slot = NULL;
    for (size_t i = 0; i < PV_MODEL_MEMOS_MAX; i++) {
        memo_slot *sl = &t->slot[i];
        if (sl->name != NULL && strcmp(sl->name, name) == 0)
            return sl;
        if (sl->name == NULL && free_slot == NULL)
            free_slot = sl;
    }
    if (free_slot != NULL)
        free_slot->name = pv_xstrdup(name);
    return free_slot;
}

int pv_model_memo(const pv_model *m, const char *name, pv_model_memo_fn make, void *arg,
                  const uint8_t **data, size_t *len, bool *owned, pv_error *err)
{
    struct pv__memos *t = memos_of(m);
    *owned = false;
    pthread_mutex_lock(&t->lock);
    memo_slot *sl = slot_for(t, name);
    while (sl != NULL && sl->making)
        pthread_cond_wait(&t->changed, &t->lock);
    /* a slot given up while waited for is free again: claim it anew */
    if (sl != NULL && sl->name == NULL)
        sl = slot_for(t, name);
    if (sl != NULL && sl->data != NULL) {
        *data = sl->data;
        *len = sl->len;
        pthread_mutex_unlock(&t->lock);
        return 0;
    }
    if (sl != NULL)
        sl->making = true;
    pthread_mutex_unlock(&t->lock);

    uint8_t *made = NULL;
    size_t made_len = 0;
    int rc = make(m, arg, &made, &made_len, err);
    if (sl == NULL) {
        *owned = rc == 0;
        *data = made;
        *len = made_len;
        return rc;
    }
    pthread_mutex_lock(&t->lock);
    sl->making = false;
    if (rc == 0) {
        sl->data = made;
        sl->len = made_len;
        publish(t, (size_t)(sl - t->slot));
        *data = made;
        *len = made_len;
    } else {
        free(sl->name);
        sl->name = NULL;
    }
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void pv_model_memo_give(pv_model *m, const char *name, uint8_t *data, size_t len)
{
    struct pv__memos *t = memos_of(m);
    pthread_mutex_lock(&t->lock);
    memo_slot *sl = slot_for(t, name);
    if (sl == NULL) {
        free(data);
    } else if (sl->data != NULL) {
        atomic_fetch_sub_explicit(&t->bytes, sl->len, memory_order_relaxed);
        atomic_fetch_add_explicit(&t->bytes, len, memory_order_relaxed);
        free(sl->data);
        sl->data = data;
        sl->len = len;
    } else {
        sl->data = data;
        sl->len = len;
        publish(t, (size_t)(sl - t->slot));
    }
    pthread_mutex_unlock(&t->lock);
}

size_t pv_model_memo_count(const pv_model *m)
{
    const pv__model_store *s = m->priv;
    struct pv__memos *t = atomic_load_explicit(&s->memos, memory_order_acquire);
    return t != NULL ? atomic_load_explicit(&t->n_ready, memory_order_acquire) : 0;
}

void pv_model_memo_at(const pv_model *m, size_t i, const char **name, const uint8_t **data,
                      size_t *len)
{
    const pv__model_store *s = m->priv;
    struct pv__memos *t = atomic_load_explicit(&s->memos, memory_order_acquire);
    /* a filled slot is changed again only by a give, which happens before
     * the model is shared */
    const memo_slot *sl = &t->slot[t->ready[i]];
    *name = sl->name;
    *data = sl->data;
    *len = sl->len;
}

size_t pv_model_added_bytes(const pv_model *m)
{
    const pv__model_store *s = m->priv;
    if (s == NULL)
        return 0;
    struct pv__memos *t = atomic_load_explicit(&s->memos, memory_order_acquire);
    size_t bytes = t != NULL ? atomic_load_explicit(&t->bytes, memory_order_relaxed) : 0;
    return bytes + pv__hlo_bytes(s->hlo);
}

void pv__memos_free(struct pv__memos *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < PV_MODEL_MEMOS_MAX; i++) {
        free(t->slot[i].name);
        free(t->slot[i].data);
    }
    pthread_cond_destroy(&t->changed);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* ---- packing ---------------------------------------------------------------- */

size_t pv_memo_put(pv_memo_packer *k, const void *v, size_t len)
{
    if (k->n + len > k->cap) {
        k->cap = k->n + len > 2 * k->cap ? k->n + len : 2 * k->cap;
        k->p = pv_xrealloc(k->p, k->cap);
    }
    size_t at = k->n;
    if (len > 0)
        memcpy(k->p + at, v, len);
    k->n += len;
    return at;
}

uint64_t pv_memo_put_str(pv_memo_packer *pool, const char *s)
{
    return pv_memo_put(pool, s, strlen(s) + 1);
}

void pv_memo_pack_finish(pv_memo_packer *recs, pv_memo_packer *pool, uint8_t **data,
                         size_t *len)
{
    pv_memo_put(recs, pool->p, pool->n);
    free(pool->p);
    *pool = (pv_memo_packer){0};
    *data = recs->p;
    *len = recs->n;
    *recs = (pv_memo_packer){0};
}

bool pv_memo_read_head(const uint8_t *d, size_t len, void *head, size_t head_size)
{
    if (len < head_size)
        return false;
    memcpy(head, d, head_size);
    return true;
}

bool pv_memo_read_recs(const uint8_t *d, size_t len, size_t head_size, uint64_t n,
                       size_t rec_size, pv_memo_reader *r)
{
    if (len < head_size || rec_size == 0 || n > (len - head_size) / rec_size)
        return false;
    size_t recs_len = (size_t)n * rec_size;
    *r = (pv_memo_reader){.recs = d + head_size, .rec_size = rec_size, .n = n,
                          .pool = d + head_size + recs_len,
                          .pool_len = len - head_size - recs_len};
    return true;
}

void pv_memo_read_rec(const pv_memo_reader *r, uint64_t i, void *rec)
{
    memcpy(rec, r->recs + i * r->rec_size, r->rec_size);
}

const char *pv_memo_read_str(const pv_memo_reader *r, uint64_t off, pv_arena *a)
{
    if (off >= r->pool_len || memchr(r->pool + off, '\0', r->pool_len - off) == NULL)
        return NULL;
    return pv_arena_strdup(a, (const char *)r->pool + off);
}
