/* index: lookups over a snapshot, tool lists, and the shared store. */
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

const pv_host_file *pv_host_file_find(const pv_host *h, pv_file_kind kind)
{
    for (size_t i = 0; i < h->n_files; i++)
        if (h->files[i].kind == kind)
            return &h->files[i];
    return NULL;
}

/* The tools an XSpace answers, and the order TensorBoard lists tools in
 * (FORMATS.md §4.8), restricted to tools profview knows. */
static const char *const xspace_tools[] = {
    "overview_page", "trace_viewer@", "input_pipeline_analyzer", "kernel_stats",
    "memory_profile", "framework_op_stats",
};
static const char *const tool_order[] = {
    "overview_page", "trace_viewer", "trace_viewer@", "op_profile", "input_pipeline_analyzer",
    "kernel_stats", "memory_profile", "memory_viewer", "pod_viewer", "framework_op_stats",
};

static int host_offers(const pv_host *h, const char *tool)
{
    if (pv_host_file_find(h, PV_FILE_XPLANE) != NULL) {
        for (size_t i = 0; i < sizeof xspace_tools / sizeof xspace_tools[0]; i++)
            if (strcmp(xspace_tools[i], tool) == 0)
                return 1;
    }
    for (size_t i = 0; i < h->n_files; i++) {
        const char *t = pv_filename_tool(h->files[i].kind);
        if (t != NULL && strcmp(t, tool) == 0)
            return 1;
    }
    return 0;
}

/* Aliases TensorBoard accepts for the same data. */
static const char *canonical_tool(const char *tool)
{
    if (strcmp(tool, "tensorflow_stats") == 0)
        return "framework_op_stats";
    if (strcmp(tool, "input_pipeline") == 0)
        return "input_pipeline_analyzer";
    return tool;
}

int pv_host_has_tool(const pv_host *h, const char *tool)
{
    tool = canonical_tool(tool);
    if (strcmp(tool, "trace_viewer") == 0 || strcmp(tool, "trace_viewer@") == 0)
        return host_offers(h, "trace_viewer@") || host_offers(h, "trace_viewer");
    return host_offers(h, tool);
}

static size_t tools_of(const pv_host *hosts, size_t n_hosts, const char **names, size_t cap)
{
    size_t n = 0;
    for (size_t t = 0; t < sizeof tool_order / sizeof tool_order[0] && n < cap; t++) {
        for (size_t i = 0; i < n_hosts; i++) {
            if (host_offers(&hosts[i], tool_order[t])) {
                names[n++] = tool_order[t];
                break;
            }
        }
    }
    /* TensorBoard drops trace_viewer when the streaming one is offered. */
    for (size_t i = 0; i + 1 < n; i++) {
        if (strcmp(names[i], "trace_viewer") == 0 && strcmp(names[i + 1], "trace_viewer@") == 0) {
            memmove(&names[i], &names[i + 1], (n - i - 1) * sizeof names[0]);
            n--;
            break;
        }
    }
    return n;
}

size_t pv_host_tools(const pv_host *h, const char **names, size_t cap)
{
    return tools_of(h, 1, names, cap);
}

size_t pv_run_tools(const pv_run *run, const char **names, size_t cap)
{
    return tools_of(run->hosts, run->n_hosts, names, cap);
}

int pv_index_same(const pv_index *a, const pv_index *b)
{
    if (a->n_runs != b->n_runs || a->n_seen != b->n_seen)
        return 0;
    for (size_t i = 0; i < a->n_seen; i++)
        if (a->seen[i].size_bytes != b->seen[i].size_bytes ||
            a->seen[i].mtime_ns != b->seen[i].mtime_ns || strcmp(a->seen[i].path, b->seen[i].path))
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
                if (fa->kind != fb->kind || fa->size_bytes != fb->size_bytes ||
                    fa->mtime_ns != fb->mtime_ns || strcmp(fa->path, fb->path) != 0)
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
