/* store: a small table of model entries under one mutex, with a condition
 * variable that waiters sleep on until a loader thread finishes.
 *
 * Loads are scheduled, not started on sight: a load reserves an estimate
 * of what its model and companion will hold before it starts, and starts
 * only when that fits the budget beside what is held and reserved. A load
 * someone waits for (pv_model_store_get) may drop any model no request
 * holds to fit; a load only asked about (pv_model_store_poll, the page's
 * progress bar) may drop only models nobody has asked for in the last
 * POLL_IDLE_NS, so pages polling several runs cannot make them drop each
 * other in turn: the later waits, queued, until the other is left alone.
 * When nothing else is loading, a load a request waits for starts even if
 * it cannot fit (a model bigger than the budget, or models held by running
 * requests — one of which may be waiting for this very load): so loads
 * never run over the budget together, and a request never waits forever. */
#include "cache/store.h"
#include "cache/saved_model.h"
#include "cache/disk.h"
#include "model/memo.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/quiet.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct pv_model_entry {
    pv_model_entry *next;
    pv_source src;          /* what was asked for; path and root are the entry's */
    char *path;             /* src.path */
    char *root;             /* src.root: the logdir it is opened beneath, or NULL */
    char *ident;            /* src's identity line */
    pv_load_state state;
    bool started;           /* the loader thread runs or ran */
    bool wanted;            /* a get waits for it: it may evict idle models */
    size_t reserved;        /* budget reserved while it loads */
    int64_t failed_ns;      /* monotonic time of a failure, for the retry */
    uint64_t seq;           /* creation order: loads start oldest first */
    pv_progress progress;
    pv_meter index_meter;   /* the companion's build */
    pv_model *model;
    size_t added_bytes;     /* the model's memos and HLO table, as last counted */
    size_t memos_saved;     /* memos of the model the disk cache holds */
    pv_error err;
    pv_load_state companion_state;
    void *companion;        /* built from model; NULL until then */
    size_t companion_bytes;
    pv_error companion_err;
    int holders;            /* requests (or the loader) using model right now */
    uint64_t last_used;     /* store clock tick of the last get */
    int64_t touched_ns;     /* monotonic time of the last get or poll */
    pthread_t thread;
    int joinable;
    pv_model_store *store;
};

struct pv_model_store {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pv_model_entry *entries;
    /* Entries of bytes that changed while someone used them: out of
     * entries, so no new request gets them, and freed once let go. */
    pv_model_entry *retired;
    pv_disk_cache *disk;         /* saved models; NULL when off */
    const pv_model_companion *companion;   /* NULL when none */
    size_t budget_bytes;
    size_t held_bytes;           /* models and companions together */
    size_t reserved_bytes;       /* estimates of the loads running */
    int64_t retry_after_ns;      /* RETRY_AFTER_NS, or what a test set */
    int64_t poll_idle_ns;        /* POLL_IDLE_NS, or what a test set */
    pv_quiet *quiet;             /* what the disk cache's writes wait for, or NULL */
    unsigned loading;            /* loader threads running */
    pv_store_stats done;         /* finished loads, for /metrics */
    uint64_t clock;
    uint64_t seq;
    atomic_uint_fast64_t decoded;   /* profiles decoded (pv_store_stats) */
    atomic_uint_fast64_t from_disk; /* saved models read instead */
};

/* Loads at once: a decode is one core's work, and this machine class has
 * two; more would only share the cores and hold more memory at once. */
#define MAX_LOADS 2
/* A failed load is tried again after this long even when the file did not
 * change (its folder's permissions may have been fixed, say). */
#define RETRY_AFTER_NS 10000000000LL
/* A model asked about within this long is in use by a page. */
#define POLL_IDLE_NS 10000000000LL

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* What a load of a file this size will hold, model and trace index
 * together: the model is about 1.2x the file on large profiles
 * (docs/model.md), the index a small fraction. */
static size_t estimate_bytes(uint64_t file_bytes)
{
    return (size_t)(file_bytes + file_bytes / 2);
}

pv_model_store *pv_model_store_new(size_t budget_bytes, pv_disk_cache *disk,
                                   const pv_model_companion *companion)
{
    pv_model_store *s = pv_xcalloc(1, sizeof *s);
    s->disk = disk != NULL && disk->dir != NULL ? disk : NULL;
    s->companion = companion;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    s->budget_bytes = budget_bytes;
    s->retry_after_ns = RETRY_AFTER_NS;
    atomic_init(&s->decoded, 0);
    atomic_init(&s->from_disk, 0);
    s->poll_idle_ns = POLL_IDLE_NS;
    return s;
}

void pv_model_store_set_timing(pv_model_store *s, int64_t retry_after_ns, int64_t poll_idle_ns)
{
    pthread_mutex_lock(&s->lock);
    s->retry_after_ns = retry_after_ns;
    s->poll_idle_ns = poll_idle_ns;
    pthread_mutex_unlock(&s->lock);
}

void pv_model_store_set_quiet(pv_model_store *s, pv_quiet *quiet)
{
    s->quiet = quiet;
}

static void entry_free(pv_model_entry *e)
{
    if (e->companion != NULL)
        e->store->companion->free(e->companion);
    pv_model_free(e->model);
    free(e->path);
    free(e->root);
    free(e->ident);
    free(e);
}

void pv_model_store_free(pv_model_store *s)
{
    if (s == NULL)
        return;
    pv_model_entry *lists[] = {s->entries, s->retired};
    for (size_t i = 0; i < 2; i++) {
        for (pv_model_entry *e = lists[i]; e != NULL; e = e->next)
            if (e->joinable)
                pthread_join(e->thread, NULL);
        pv_model_entry *e = lists[i];
        while (e != NULL) {
            pv_model_entry *next = e->next;
            entry_free(e);
            e = next;
        }
    }
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static size_t entry_bytes(const pv_model_entry *e)
{
    return e->model->mem_bytes + e->added_bytes + e->companion_bytes;
}

/* Counts what e's model took on since it was last counted (memos made by
 * requests, the HLO table) in the budget; true when that grew. Caller
 * holds the lock. */
static bool recount(pv_model_store *s, pv_model_entry *e)
{
    size_t now = pv_model_added_bytes(e->model);
    bool grew = now > e->added_bytes;
    s->held_bytes = s->held_bytes - e->added_bytes + now;
    e->added_bytes = now;
    return grew;
}

/* Drops least recently used, unheld models (with their companions) until
 * what is held and reserved + incoming fits the budget. for_whom decides
 * which may go: any unheld model for a load a request waits for, only
 * models left alone for POLL_IDLE_NS otherwise. Caller holds the lock. */
static void evict_for(pv_model_store *s, size_t incoming, const pv_model_entry *for_whom)
{
    if (s->budget_bytes == 0)
        return;
    int64_t now = monotonic_ns();
    while (s->held_bytes + s->reserved_bytes + incoming > s->budget_bytes) {
        pv_model_entry **victim = NULL;
        for (pv_model_entry **p = &s->entries; *p != NULL; p = &(*p)->next) {
            pv_model_entry *e = *p;
            bool idle = for_whom->wanted || now - e->touched_ns >= s->poll_idle_ns;
            if (e->state == PV_LOAD_READY && e->holders == 0 && idle && e != for_whom &&
                (victim == NULL || e->last_used < (*victim)->last_used))
                victim = p;
        }
        if (victim == NULL)
            return;
        pv_model_entry *e = *victim;
        *victim = e->next;
        pv_log(PV_LOG_INFO, "memory budget: dropping %s (%zu bytes of model, %zu of its "
               "trace index)", e->path, e->model->mem_bytes + e->added_bytes,
               e->companion_bytes);
        s->held_bytes -= entry_bytes(e);
        if (e->joinable)
            pthread_join(e->thread, NULL);
        entry_free(e);
    }
}

static void *load_main(void *arg);

/* Starts e's loader thread, reserving its estimate. Caller holds the lock. */
static void start_load(pv_model_store *s, pv_model_entry *e, size_t need)
{
    e->started = true;
    e->reserved = need;
    s->reserved_bytes += need;
    s->loading++;
    if (pthread_create(&e->thread, NULL, load_main, e) == 0) {
        e->joinable = 1;
        return;
    }
    s->reserved_bytes -= need;
    s->loading--;
    e->reserved = 0;
    e->state = PV_LOAD_FAILED;
    e->failed_ns = monotonic_ns();
    pv_error_set(&e->err, PV_ENOMEM, e->path, PV_NO_OFFSET, "cannot start a loader thread");
    e->companion_state = PV_LOAD_FAILED;
    e->companion_err = e->err;
}

/* Whether need more bytes fit the budget beside what is held and reserved. */
static bool fits(const pv_model_store *s, size_t need)
{
    return s->budget_bytes == 0 || s->held_bytes + s->reserved_bytes + need <= s->budget_bytes;
}

/* Starts the queued loads the budget allows, oldest first. Caller holds the
 * lock. */
static void start_loads(pv_model_store *s)
{
    for (;;) {
        pv_model_entry *next = NULL;
        /* a retired entry still queued is loaded for the gets that wait
         * on it, who asked before its bytes changed */
        pv_model_entry *lists[] = {s->entries, s->retired};
        for (size_t i = 0; i < 2; i++)
            for (pv_model_entry *e = lists[i]; e != NULL; e = e->next)
                if (e->state == PV_LOAD_LOADING && !e->started &&
                    (next == NULL || e->seq < next->seq))
                    next = e;
        if (next == NULL || s->loading >= MAX_LOADS)
            return;
        size_t need = estimate_bytes(next->src.id.size_bytes);
        if (!fits(s, need))
            evict_for(s, need, next);
        /* The oldest waits rather than letting later, smaller loads pass it:
         * so a big profile never waits forever behind small ones. */
        if (!fits(s, need) && !(next->wanted && s->loading == 0))
            return;
        start_load(s, next, need);
    }
}

char *pv_model_store_saved(pv_model_store *s, const pv_source *src)
{
    return pv__model_saved_path(s->disk, src);
}

/* Reads the saved model of e's source when there is a valid one; else
 * decodes the source, and *save says the model should be saved. */
static int load_or_decode(pv_model_entry *e, pv_model **m, bool *save, pv_error *err)
{
    pv_disk_cache *disk = e->store->disk;
    *save = false;
    /* A saved model is read only while its source is still there as it
     * was: the source is opened first, as a decode would open it. */
    if (e->src.kind->open != NULL) {
        int fd = e->src.kind->open(&e->src, err);
        if (fd < 0)
            return err->code != 0 ? err->code : PV_EIO;
        close(fd);
    }
    if (pv__model_load_saved(disk, &e->src, m) == 0) {
        atomic_store(&e->progress.done_bytes, e->src.id.size_bytes);
        atomic_fetch_add(&e->store->from_disk, 1);
        return 0;
    }
    atomic_fetch_add(&e->store->decoded, 1);
    int rc = e->src.kind->model(&e->src, &e->progress, m, err);
    *save = rc == 0 && disk != NULL && !disk->read_only;
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
    /* A companion saved by an earlier start is read back instead. */
    int rc = pv__companion_load(s->disk, s->companion, &e->src, e->model, &c, &bytes);
    bool built = rc != 0;
    if (built)
        rc = s->companion->build(e->model, &e->index_meter, &c, &bytes, &err);
    pthread_mutex_lock(&s->lock);
    /* the build may have made memos of the model (the trace index keeps
     * the derived device lines as one): counted now, not at the next put */
    recount(s, e);
    if (rc == 0) {
        evict_for(s, bytes, e);
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
    /* e is held by the loader; requests only read the companion */
    if (built && rc == 0)
        pv__companion_save(s->disk, s->companion, &e->src, e->model, c, s->quiet);
}

/* Ends a hold of e. Every holder takes the pages of the files the model
 * maps out of resident memory as it ends: a request reads stats from the
 * profile, the index build most of them, and what they read would stay
 * counted as this process's until the model is dropped. Not only the
 * last: after a restart the index build holds the model for seconds
 * while tools come and go, and the pages each of them read stayed
 * resident under the next (a memory profile beside the build peaked at
 * 1.6 times the file). Another holder reads back only the pages it
 * needs, from the page cache. */
/* Unlinks e from *p and frees it, with what the budget counted for it.
 * Caller holds the lock; e is not loading and nobody holds it. */
static void drop_entry(pv_model_store *s, pv_model_entry **p, pv_model_entry *e)
{
    *p = e->next;
    if (e->state == PV_LOAD_READY)
        s->held_bytes -= entry_bytes(e);
    if (e->joinable)
        pthread_join(e->thread, NULL);
    entry_free(e);
}

/* Frees the retired entries nobody uses any more, but never the calling
 * loader's own (it cannot join itself; a later call frees it). Caller
 * holds the lock. */
static void reap_retired(pv_model_store *s)
{
    pv_model_entry **p = &s->retired;
    while (*p != NULL) {
        pv_model_entry *e = *p;
        bool own = e->joinable && pthread_equal(e->thread, pthread_self());
        if (e->holders == 0 && e->state != PV_LOAD_LOADING && !own)
            drop_entry(s, p, e);
        else
            p = &e->next;
    }
}

static void release(pv_model_store *s, pv_model_entry *e)
{
    /* Still a holder here: once it lets go, the budget may drop the model
     * and its address range may hold other memory. */
    pv_model_release_pages(e->model);
    pthread_mutex_lock(&s->lock);
    e->holders--;
    reap_retired(s);
    start_loads(s);
    pthread_mutex_unlock(&s->lock);
}

/* Makes e's first memos on the loader thread, e held, and saves those
 * the disk cache lacks (claimed under the lock, as pv_model_store_put
 * does, so that one thread saves each). */
static void warm_memos(pv_model_store *s, pv_model_entry *e)
{
    s->companion->warm(e->model);
    pthread_mutex_lock(&s->lock);
    bool grew = recount(s, e);
    size_t n_memos = pv_model_memo_count(e->model);
    bool save = s->disk != NULL && n_memos > e->memos_saved;
    if (save)
        e->memos_saved = n_memos;
    if (grew)
        warn_if_over(s, e);
    pthread_mutex_unlock(&s->lock);
    if (save)
        pv__memos_save(s->disk, &e->src, e->model, n_memos);
}

static void *load_main(void *arg)
{
    pv_model_entry *e = arg;
    int64_t t0 = monotonic_ns();
    pv_model *m = NULL;
    pv_error err = {0};
    bool save = false;
    int rc = load_or_decode(e, &m, &save, &err);
    pv_model_store *s = e->store;
    size_t n_memos = 0;
    if (rc == 0)
        n_memos = pv__memos_load(s->disk, &e->src, m);
    /* The decode read every page; no one else sees m yet, so the budget
     * cannot drop it under the release. */
    if (rc == 0)
        pv_model_release_pages(m);
    pthread_mutex_lock(&s->lock);
    s->reserved_bytes -= e->reserved;
    e->reserved = 0;
    s->loading--;
    s->done.loads++;
    s->done.load_seconds += (double)(monotonic_ns() - t0) / 1e9;
    if (rc == 0) {
        s->done.load_bytes += e->src.id.size_bytes;
        size_t added = pv_model_added_bytes(m);
        evict_for(s, m->mem_bytes + added, e);
        e->model = m;
        e->added_bytes = added;
        e->memos_saved = n_memos;
        e->state = PV_LOAD_READY;
        s->held_bytes += m->mem_bytes + added;
        warn_if_over(s, e);
    } else {
        s->done.failed++;
        e->err = err;
        e->state = PV_LOAD_FAILED;
        e->failed_ns = monotonic_ns();
        e->companion_err = err;
        e->companion_state = PV_LOAD_FAILED;
        char msg[1200];
        pv_error_format(&err, msg, sizeof msg);
        pv_log(PV_LOG_WARN, "cannot load profile: %s", msg);
    }
    /* Requests may use the model while its companion is built and while
     * it is saved; holding it keeps the budget from dropping it under
     * the builder or the writer. */
    bool keep = rc == 0 && (s->companion != NULL || save);
    if (keep)
        e->holders++;
    start_loads(s);
    /* The model is published before its companion is built, so the tools
     * that need only the model do not wait for it. */
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    if (rc == 0 && s->companion != NULL)
        build_companion(s, e);
    /* The memos are saved before the model, so a saved model has them. */
    if (rc == 0 && s->companion != NULL && s->companion->warm != NULL)
        warm_memos(s, e);
    if (rc == 0 && save)
        pv__model_save(s->disk, &e->src, e->model, s->quiet);
    if (keep)
        release(s, e);
    return NULL;
}

/* Finds or creates the entry for src: one per source of a kind and path,
 * whose identity names the bytes it holds. Caller holds the lock. */
static pv_model_entry *entry_for(pv_model_store *s, const pv_source *src)
{
    char ident[PV_SOURCE_IDENT_MAX];
    pv_source_ident(src, ident, sizeof ident);
    reap_retired(s);
    for (pv_model_entry **p = &s->entries; *p != NULL; p = &(*p)->next) {
        pv_model_entry *e = *p;
        if (e->src.kind != src->kind || strcmp(e->path, src->path) != 0)
            continue;
        bool same = strcmp(e->ident, ident) == 0;
        bool retry = e->state == PV_LOAD_FAILED &&
                     monotonic_ns() - e->failed_ns >= s->retry_after_ns;
        if (same && !retry)
            return e;
        if (same && ((e->state == PV_LOAD_LOADING && e->started) || e->holders > 0))
            return e;   /* a retry waits until the failed load is let go */
        /* The bytes changed, or the failure is old: the old result goes
         * now when nobody uses it, else once it is let go. Its model is
         * never the answer for the new bytes. */
        if ((e->state != PV_LOAD_LOADING || !e->started) && e->holders == 0) {
            drop_entry(s, p, e);
        } else {
            *p = e->next;
            e->next = s->retired;
            s->retired = e;
        }
        break;
    }
    pv_model_entry *e = pv_xcalloc(1, sizeof *e);
    e->path = pv_xstrdup(src->path);
    e->root = src->root != NULL ? pv_xstrdup(src->root) : NULL;
    e->ident = pv_xstrdup(ident);
    e->src = *src;
    e->src.path = e->path;
    e->src.root = e->root;
    e->state = PV_LOAD_LOADING;
    e->companion_state = s->companion != NULL ? PV_LOAD_LOADING : PV_LOAD_READY;
    atomic_store(&e->progress.done_bytes, 0);
    e->progress.total_bytes = src->id.size_bytes;
    e->store = s;
    e->seq = ++s->seq;
    e->next = s->entries;
    s->entries = e;
    return e;
}

/* The phase follows the loader's order: the bytes until the finish has
 * counted its work (the ingest reads every byte first), the companion
 * once the model is published. */
static void phase_of(const pv_model_entry *e, pv_load_status *out)
{
    out->phase_done = out->phase_total = 0;
    if (e->state == PV_LOAD_LOADING) {
        pv_meter_read(&e->progress.finish, &out->phase_done, &out->phase_total);
        out->phase = out->phase_total > 0 ? PV_PHASE_FINISHING : PV_PHASE_READING;
        if (out->phase == PV_PHASE_READING) {
            out->phase_done = out->done_bytes;
            out->phase_total = out->total_bytes;
        }
    } else if (e->state == PV_LOAD_READY && e->companion_state == PV_LOAD_LOADING) {
        out->phase = PV_PHASE_INDEXING;
        pv_meter_read(&e->index_meter, &out->phase_done, &out->phase_total);
    } else {
        out->phase = PV_PHASE_DONE;
    }
}

/* Each phase's share of the bar, about how a fresh load's time splits on
 * bench/gen_xspace's profiles (tests/api/test_load_progress polls it). */
static const double phase_share[] = {0.55, 0.05, 0.40};

double pv_load_status_fraction(const pv_load_status *st)
{
    double before = 0;
    for (int p = 0; p < (int)st->phase && p < PV_PHASE_DONE; p++)
        before += phase_share[p];
    if (st->phase == PV_PHASE_DONE)
        return 1.0;
    double within = st->phase_total > 0 ? (double)st->phase_done / (double)st->phase_total : 0;
    return before + phase_share[st->phase] * within;
}

static void status_of(const pv_model_entry *e, pv_load_status *out)
{
    out->state = e->state;
    out->queued = e->state == PV_LOAD_LOADING && !e->started;
    out->total_bytes = e->src.id.size_bytes;
    out->done_bytes = e->state == PV_LOAD_LOADING ? atomic_load(&e->progress.done_bytes)
                                                  : e->src.id.size_bytes;
    if (e->state == PV_LOAD_FAILED)
        out->err = e->err;
    else
        memset(&out->err, 0, sizeof out->err);
    out->companion_state = e->companion_state;
    if (e->companion_state == PV_LOAD_FAILED)
        out->companion_err = e->companion_err;
    else
        memset(&out->companion_err, 0, sizeof out->companion_err);
    out->model_bytes = e->state == PV_LOAD_READY ? e->model->mem_bytes + e->added_bytes : 0;
    out->companion_bytes = e->companion_bytes;
    phase_of(e, out);
}

void pv_model_store_poll(pv_model_store *s, const pv_source *src, pv_load_status *out)
{
    pthread_mutex_lock(&s->lock);
    pv_model_entry *e = entry_for(s, src);
    e->touched_ns = monotonic_ns();
    start_loads(s);
    status_of(e, out);
    pthread_mutex_unlock(&s->lock);
}

int pv_model_store_get(pv_model_store *s, const pv_source *src, const pv_model **model,
                       pv_model_entry **entry, pv_error *err)
{
    *model = NULL;
    *entry = NULL;
    pthread_mutex_lock(&s->lock);
    pv_model_entry *e = entry_for(s, src);
    e->wanted = true;
    e->touched_ns = monotonic_ns();
    start_loads(s);
    /* Held while it waits: should the bytes change meanwhile, the entry
     * is retired, not freed under the wait. */
    e->holders++;
    while (e->state == PV_LOAD_LOADING)
        pthread_cond_wait(&s->changed, &s->lock);
    int rc = 0;
    if (e->state == PV_LOAD_READY) {
        e->last_used = ++s->clock;
        *model = e->model;
        *entry = e;
    } else {
        e->holders--;
        if (err != NULL)
            *err = e->err;
        rc = e->err.code != 0 ? e->err.code : PV_EIO;
        reap_retired(s);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void pv_model_store_put(pv_model_store *s, pv_model_entry *entry)
{
    if (entry == NULL)
        return;
    pthread_mutex_lock(&s->lock);
    bool grew = recount(s, entry);
    /* A request may have made a memo: save it while still holding the
     * model (claimed under the lock, so one request saves each). */
    size_t n_memos = pv_model_memo_count(entry->model);
    bool save = s->disk != NULL && n_memos > entry->memos_saved;
    if (save)
        entry->memos_saved = n_memos;
    if (grew)
        warn_if_over(s, entry);
    pthread_mutex_unlock(&s->lock);
    if (save)
        pv__memos_save(s->disk, &entry->src, entry->model, n_memos);
    release(s, entry);
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

void pv_model_store_stats(pv_model_store *s, pv_store_stats *out)
{
    pthread_mutex_lock(&s->lock);
    *out = s->done;
    out->in_flight = s->loading;
    out->decoded = atomic_load(&s->decoded);
    out->from_disk = atomic_load(&s->from_disk);
    pthread_mutex_unlock(&s->lock);
}
