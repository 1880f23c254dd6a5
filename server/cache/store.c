/* store: a small table of model entries under one mutex, with a condition
 * variable that waiters sleep on until a loader thread finishes. */
#include "cache/store.h"
#include "cache/disk.h"
#include "ingest/ingest.h"
#include "model/serialize.h"
#include "util/log.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pv_model_entry {
    pv_model_entry *next;
    char *path;
    uint64_t size_bytes;
    int64_t mtime_ns;
    pv_load_state state;
    pv_progress progress;
    pv_model *model;
    pv_error err;
    pv_load_state companion_state;
    void *companion;        /* built from model; NULL until then */
    size_t companion_bytes;
    pv_error companion_err;
    int holders;            /* requests (or the loader) using model right now */
    uint64_t last_used;     /* store clock tick of the last get */
    pthread_t thread;
    int joinable;
    pv_model_store *store;
};

struct pv_model_store {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pv_model_entry *entries;
    const pv_disk_cache *disk;   /* saved models; NULL when off */
    const pv_model_companion *companion;   /* NULL when none */
    size_t budget_bytes;
    size_t held_bytes;           /* models and companions together */
    uint64_t clock;
};

pv_model_store *pv_model_store_new(size_t budget_bytes, const pv_disk_cache *disk,
                                   const pv_model_companion *companion)
{
    pv_model_store *s = pv_xcalloc(1, sizeof *s);
    s->disk = disk;
    s->companion = companion;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    s->budget_bytes = budget_bytes;
    return s;
}

static void entry_free(pv_model_entry *e)
{
    if (e->companion != NULL)
        e->store->companion->free(e->companion);
    pv_model_free(e->model);
    free(e->path);
    free(e);
}

void pv_model_store_free(pv_model_store *s)
{
    if (s == NULL)
        return;
    for (pv_model_entry *e = s->entries; e != NULL; e = e->next)
        if (e->joinable)
            pthread_join(e->thread, NULL);
    pv_model_entry *e = s->entries;
    while (e != NULL) {
        pv_model_entry *next = e->next;
        entry_free(e);
        e = next;
    }
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static size_t entry_bytes(const pv_model_entry *e)
{
    return e->model->mem_bytes + e->companion_bytes;
}

/* Drops least recently used, unheld models (with their companions) until
 * held_bytes + incoming fits the budget. Caller holds the lock. */
static void evict_for(pv_model_store *s, size_t incoming)
{
    if (s->budget_bytes == 0)
        return;
    while (s->held_bytes + incoming > s->budget_bytes) {
        pv_model_entry **victim = NULL;
        for (pv_model_entry **p = &s->entries; *p != NULL; p = &(*p)->next) {
            pv_model_entry *e = *p;
            if (e->state == PV_LOAD_READY && e->holders == 0 &&
                (victim == NULL || e->last_used < (*victim)->last_used))
                victim = p;
        }
        if (victim == NULL)
            return;
        pv_model_entry *e = *victim;
        *victim = e->next;
        pv_log(PV_LOG_INFO, "memory budget: dropping %s (%zu bytes of model, %zu of its "
               "trace index)", e->path, e->model->mem_bytes, e->companion_bytes);
        s->held_bytes -= entry_bytes(e);
        if (e->joinable)
            pthread_join(e->thread, NULL);
        entry_free(e);
    }
}

/* Reads the saved model of e's source when there is a valid one; else
 * decodes the source. *saved_path (free it) names where to save a freshly
 * decoded model, or is NULL when it came from the cache or the cache is off. */
static int load_or_decode(pv_model_entry *e, pv_model **m, char **saved_path, pv_error *err)
{
    pv_cache_key key = {e->path, e->size_bytes, e->mtime_ns, "model"};
    char *cached = pv_disk_cache_file(e->store->disk, &key, "pvm");
    *saved_path = NULL;
    if (cached != NULL && access(cached, R_OK) == 0) {
        pv_error lerr = {0};
        if (pv_model_load(cached, e->path, m, &lerr) == 0) {
            pv_ingest_attach(*m);
            atomic_store(&e->progress.done_bytes, e->size_bytes);
            free(cached);
            return 0;
        }
        char msg[1200];
        pv_error_format(&lerr, msg, sizeof msg);
        pv_log(PV_LOG_WARN, "saved model unusable (%s); decoding %s again", msg, e->path);
        unlink(cached);
    }
    int rc = pv_ingest_file(e->path, &e->progress, m, err);
    if (rc == 0)
        *saved_path = cached;
    else
        free(cached);
    return rc;
}

static void warn_if_over(const pv_model_store *s, const pv_model_entry *e)
{
    if (s->budget_bytes != 0 && s->held_bytes > s->budget_bytes)
        pv_log(PV_LOG_WARN, "memory budget of %zu bytes exceeded by %s alone or by models "
               "in use", s->budget_bytes, e->path);
}

/* Builds e's companion on the loader thread, e held. */
static void build_companion(pv_model_store *s, pv_model_entry *e)
{
    void *c = NULL;
    size_t bytes = 0;
    pv_error err = {0};
    int rc = s->companion->build(e->model, &c, &bytes, &err);
    pthread_mutex_lock(&s->lock);
    if (rc == 0) {
        evict_for(s, bytes);
        e->companion = c;
        e->companion_bytes = bytes;
        e->companion_state = PV_LOAD_READY;
        s->held_bytes += bytes;
        warn_if_over(s, e);
    } else {
        e->companion_err = err;
        if (e->companion_err.code == 0)
            e->companion_err.code = rc;
        e->companion_state = PV_LOAD_FAILED;
        char msg[1200];
        pv_error_format(&err, msg, sizeof msg);
        pv_log(PV_LOG_WARN, "cannot build the trace index: %s", msg);
    }
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void *load_main(void *arg)
{
    pv_model_entry *e = arg;
    pv_model *m = NULL;
    pv_error err = {0};
    char *save_to = NULL;
    int rc = load_or_decode(e, &m, &save_to, &err);
    pv_model_store *s = e->store;
    pthread_mutex_lock(&s->lock);
    if (rc == 0) {
        evict_for(s, m->mem_bytes);
        e->model = m;
        e->state = PV_LOAD_READY;
        s->held_bytes += m->mem_bytes;
        warn_if_over(s, e);
    } else {
        e->err = err;
        e->state = PV_LOAD_FAILED;
        e->companion_err = err;
        e->companion_state = PV_LOAD_FAILED;
        char msg[1200];
        pv_error_format(&err, msg, sizeof msg);
        pv_log(PV_LOG_WARN, "cannot load profile: %s", msg);
    }
    /* Requests may use the model while its companion is built and while
     * it is saved; holding it keeps the budget from dropping it under
     * the builder or the writer. */
    bool keep = rc == 0 && (s->companion != NULL || save_to != NULL);
    if (keep)
        e->holders++;
    /* The model is published before its companion is built, so the tools
     * that need only the model do not wait for it. */
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    if (rc == 0 && s->companion != NULL)
        build_companion(s, e);
    if (rc == 0 && save_to != NULL) {
        pv_error serr = {0};
        if (pv_model_save(m, save_to, &serr) != 0) {
            char msg[1200];
            pv_error_format(&serr, msg, sizeof msg);
            pv_log(PV_LOG_WARN, "cannot save the model for the next start: %s", msg);
        }
    }
    if (keep) {
        pthread_mutex_lock(&s->lock);
        e->holders--;
        pthread_mutex_unlock(&s->lock);
    }
    free(save_to);
    return NULL;
}

/* Finds or creates the entry for src. Caller holds the lock. */
static pv_model_entry *entry_for(pv_model_store *s, const pv_source *src)
{
    for (pv_model_entry **p = &s->entries; *p != NULL; p = &(*p)->next) {
        pv_model_entry *e = *p;
        if (strcmp(e->path, src->path) != 0)
            continue;
        if (e->size_bytes == src->size_bytes && e->mtime_ns == src->mtime_ns)
            return e;
        /* The file changed: forget the old result once nobody uses it. */
        if (e->state != PV_LOAD_LOADING && e->holders == 0) {
            *p = e->next;
            if (e->state == PV_LOAD_READY)
                s->held_bytes -= entry_bytes(e);
            if (e->joinable)
                pthread_join(e->thread, NULL);
            entry_free(e);
            break;
        }
        return e;
    }
    pv_model_entry *e = pv_xcalloc(1, sizeof *e);
    e->path = pv_xstrdup(src->path);
    e->size_bytes = src->size_bytes;
    e->mtime_ns = src->mtime_ns;
    e->state = PV_LOAD_LOADING;
    e->companion_state = s->companion != NULL ? PV_LOAD_LOADING : PV_LOAD_READY;
    atomic_store(&e->progress.done_bytes, 0);
    e->progress.total_bytes = src->size_bytes;
    e->store = s;
    e->next = s->entries;
    s->entries = e;
    if (pthread_create(&e->thread, NULL, load_main, e) == 0) {
        e->joinable = 1;
    } else {
        e->state = PV_LOAD_FAILED;
        pv_error_set(&e->err, PV_ENOMEM, src->path, PV_NO_OFFSET, "cannot start a loader thread");
        e->companion_state = PV_LOAD_FAILED;
        e->companion_err = e->err;
    }
    return e;
}

static void status_of(const pv_model_entry *e, pv_load_status *out)
{
    out->state = e->state;
    out->total_bytes = e->size_bytes;
    out->done_bytes = e->state == PV_LOAD_LOADING ? atomic_load(&e->progress.done_bytes)
                                                  : e->size_bytes;
    if (e->state == PV_LOAD_FAILED)
        out->err = e->err;
    else
        memset(&out->err, 0, sizeof out->err);
    out->companion_state = e->companion_state;
    if (e->companion_state == PV_LOAD_FAILED)
        out->companion_err = e->companion_err;
    else
        memset(&out->companion_err, 0, sizeof out->companion_err);
    out->model_bytes = e->state == PV_LOAD_READY ? e->model->mem_bytes : 0;
    out->companion_bytes = e->companion_bytes;
}

void pv_model_store_poll(pv_model_store *s, const pv_source *src, pv_load_status *out)
{
    pthread_mutex_lock(&s->lock);
    status_of(entry_for(s, src), out);
    pthread_mutex_unlock(&s->lock);
}

int pv_model_store_get(pv_model_store *s, const pv_source *src, const pv_model **model,
                       pv_model_entry **entry, pv_error *err)
{
    *model = NULL;
    *entry = NULL;
    pthread_mutex_lock(&s->lock);
    pv_model_entry *e = entry_for(s, src);
    while (e->state == PV_LOAD_LOADING)
        pthread_cond_wait(&s->changed, &s->lock);
    int rc = 0;
    if (e->state == PV_LOAD_READY) {
        e->holders++;
        e->last_used = ++s->clock;
        *model = e->model;
        *entry = e;
    } else {
        if (err != NULL)
            *err = e->err;
        rc = e->err.code != 0 ? e->err.code : PV_EIO;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void pv_model_store_put(pv_model_store *s, pv_model_entry *entry)
{
    if (entry == NULL)
        return;
    pthread_mutex_lock(&s->lock);
    entry->holders--;
    pthread_mutex_unlock(&s->lock);
}

int pv_model_store_companion(pv_model_store *s, pv_model_entry *entry, void **out,
                             pv_error *err)
{
    *out = NULL;
    if (s->companion == NULL)
        return pv_error_set(err, PV_ENOTFOUND, entry->path, PV_NO_OFFSET,
                            "this server builds no trace index");
    pthread_mutex_lock(&s->lock);
    while (entry->companion_state == PV_LOAD_LOADING)
        pthread_cond_wait(&s->changed, &s->lock);
    int rc = 0;
    if (entry->companion_state == PV_LOAD_READY) {
        *out = entry->companion;
    } else {
        if (err != NULL)
            *err = entry->companion_err;
        rc = entry->companion_err.code != 0 ? entry->companion_err.code : PV_EIO;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

bool pv_model_store_charge(pv_model_store *s, pv_model_entry *entry, size_t bytes)
{
    pthread_mutex_lock(&s->lock);
    bool fits = s->budget_bytes == 0 || s->held_bytes + bytes <= s->budget_bytes;
    if (fits) {
        s->held_bytes += bytes;
        entry->companion_bytes += bytes;
    }
    pthread_mutex_unlock(&s->lock);
    return fits;
}

size_t pv_model_store_budget(const pv_model_store *s)
{
    return s->budget_bytes;
}

size_t pv_model_store_bytes(pv_model_store *s)
{
    pthread_mutex_lock(&s->lock);
    size_t n = s->held_bytes;
    pthread_mutex_unlock(&s->lock);
    return n;
}
