/* index: lookups over a snapshot, and the shared store. */
#include "index/index.h"
#include "util/bsearch.h"

#include <stdlib.h>
#include <string.h>

const pv_run *pv_index_run_find(const pv_index *ix, const char *name)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, ix->n_runs, i, strcmp(ix->runs[i].name, name) < 0);
    return lo < ix->n_runs && strcmp(ix->runs[lo].name, name) == 0 ? &ix->runs[lo] : NULL;
}

const pv_host *pv_run_host_find(const pv_run *run, const char *host)
{
    for (size_t i = 0; i < run->n_hosts; i++)
        if (strcmp(run->hosts[i].name, host) == 0)
            return &run->hosts[i];
    return NULL;
}

void pv__run_free(pv_run *run)
{
    for (size_t i = 0; i < run->n_hosts; i++) {
        for (size_t j = 0; j < run->hosts[i].n_files; j++)
            free(run->hosts[i].files[j].path);
        free(run->hosts[i].files);
        free(run->hosts[i].name);
    }
    free(run->hosts);
    free(run->name);
    free(run->dir);
}

void pv_index_unref(pv_index *ix)
{
    if (ix == NULL || --ix->refs > 0)
        return;
    for (size_t i = 0; i < ix->n_runs; i++)
        pv__run_free(&ix->runs[i]);
    free(ix->runs);
    for (size_t i = 0; i < ix->n_seen; i++)
        free(ix->seen[i].path);
    free(ix->seen);
    free(ix->logdir);
    free(ix);
}

int pv_index_same(const pv_index *a, const pv_index *b)
{
    if (a->n_runs != b->n_runs || a->n_seen != b->n_seen)
        return 0;
    for (size_t i = 0; i < a->n_seen; i++)
        if (!pv_file_id_same(&a->seen[i].id, &b->seen[i].id) ||
            strcmp(a->seen[i].path, b->seen[i].path) != 0)
            return 0;
    for (size_t i = 0; i < a->n_runs; i++) {
        const pv_run *ra = &a->runs[i], *rb = &b->runs[i];
        if (strcmp(ra->name, rb->name) != 0 || ra->n_hosts != rb->n_hosts)
            return 0;
        for (size_t j = 0; j < ra->n_hosts; j++) {
            const pv_host *ha = &ra->hosts[j], *hb = &rb->hosts[j];
            if (strcmp(ha->name, hb->name) != 0 || ha->n_files != hb->n_files)
                return 0;
            for (size_t k = 0; k < ha->n_files; k++) {
                const pv_host_file *fa = &ha->files[k], *fb = &hb->files[k];
                if (fa->format != fb->format || !pv_file_id_same(&fa->id, &fb->id) ||
                    strcmp(fa->path, fb->path) != 0)
                    return 0;
            }
        }
    }
    return 1;
}

void pv_index_store_init(pv_index_store *s, pv_index *first)
{
    pthread_mutex_init(&s->lock, NULL);
    s->current = first;
}

void pv_index_store_fini(pv_index_store *s)
{
    pv_index_unref(s->current);
    s->current = NULL;
    pthread_mutex_destroy(&s->lock);
}

pv_index *pv_index_store_acquire(pv_index_store *s)
{
    pthread_mutex_lock(&s->lock);
    pv_index *ix = s->current;
    ix->refs++;
    pthread_mutex_unlock(&s->lock);
    return ix;
}

void pv_index_store_release(pv_index_store *s, pv_index *ix)
{
    pthread_mutex_lock(&s->lock);
    pv_index_unref(ix);
    pthread_mutex_unlock(&s->lock);
}

void pv_index_store_swap(pv_index_store *s, pv_index *next)
{
    pthread_mutex_lock(&s->lock);
    pv_index *old = s->current;
    s->current = next;
    pv_index_unref(old);
    pthread_mutex_unlock(&s->lock);
}

pv_source pv_host_file_source(const pv_host_file *f, const char *root)
{
    if (f->source_kind == NULL)
        return pv_source_file(f->path, root, f->id);
    return (pv_source){f->source_kind, f->path, root, f->id, f->source_ctx};
}
