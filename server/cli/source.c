/* source: a path to a run (a logdir's through the index, a folder's or a
 * file's made here), then each tool's answer on the chosen hosts, then the
 * figures (source.h). Models are decoded once per host, when the first
 * tool needs them, and freed with the target. */
#include "cli/source.h"
#include "index/index.h"
#include "ingest/formats.h"
#include "tools/registry.h"
#include "util/gzip.h"
#include "util/mem.h"
#include "util/sort.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ANSWER_MAX_BYTES ((size_t)4 << 30)

/* The run the command line names and the hosts chosen from it. */
typedef struct target {
    pv_index *ix;              /* the logdir's index, or NULL for a run made here */
    pv_run own;                /* a folder's or a file's run, in the arena */
    const pv_run *run;
    size_t n_hosts;
    const pv_host **hosts;     /* the hosts read */
    pv_model **models;         /* each host's model, once decoded */
    pv_arena *arena;
} target;

/* ---- a run made of files ------------------------------------------------------------ */

static int cmp_file(const void *a, const void *b)
{
    size_t ra = pv_format_rank(((const pv_host_file *)a)->format);
    size_t rb = pv_format_rank(((const pv_host_file *)b)->format);
    return (ra > rb) - (ra < rb);
}

static int cmp_host(const void *a, const void *b)
{
    return strcmp(((const pv_host *)a)->name, ((const pv_host *)b)->name);
}

/* A profile with a name profview does not know is still read when its
 * first bytes say what it is; its host is its name up to the last dot. */
static const pv_format *sniff_file(const char *path, const char *name, size_t *host_len)
{
    uint8_t head[PV_INGEST_SNIFF_BYTES];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    const pv_format *f = n > 0 ? pv_format_sniff(head, (size_t)n) : NULL;
    const char *dot = strrchr(name, '.');
    *host_len = dot != NULL && dot != name ? (size_t)(dot - name) : strlen(name);
    return f;
}

/* Adds dir/name to run when it is a regular file profview reads. */
static void add_file(target *t, const char *dir, const char *name, bool sniff)
{
    char *path = pv_arena_printf(t->arena, "%s/%s", dir, name);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    size_t host_len;
    const pv_format *f = pv_format_classify(name, &host_len);
    if (f == NULL && sniff)
        f = sniff_file(path, name, &host_len);
    if (f == NULL)
        return;
    pv_run *run = &t->own;
    pv_host *h = NULL;
    for (size_t i = 0; i < run->n_hosts && h == NULL; i++)
        if (strlen(run->hosts[i].name) == host_len &&
            strncmp(run->hosts[i].name, name, host_len) == 0)
            h = &run->hosts[i];
    if (h == NULL) {
        pv_host *grown = pv_arena_zalloc(t->arena, (run->n_hosts + 1) * sizeof *grown);
        if (run->n_hosts > 0)
            memcpy(grown, run->hosts, run->n_hosts * sizeof *grown);
        run->hosts = grown;
        h = &run->hosts[run->n_hosts++];
        h->name = pv_arena_strndup(t->arena, name, host_len);
    }
    pv_host_file *files = pv_arena_zalloc(t->arena, (h->n_files + 1) * sizeof *files);
    if (h->n_files > 0)
        memcpy(files, h->files, h->n_files * sizeof *files);
    files[h->n_files++] = (pv_host_file){path, f, pv_file_id_of(&st)};
    h->files = files;
}

/* The run of a folder holding profiles (a run's own folder, say), or of one
 * file; real is the path resolved. */
static int own_run(target *t, const char *path, const char *real, bool is_dir, pv_error *err)
{
    char *dir = pv_arena_strdup(t->arena, real);
    if (is_dir) {
        DIR *d = opendir(real);
        if (d == NULL)
            return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot read the folder: %s",
                                strerror(errno));
        struct dirent *de;
        while ((de = readdir(d)) != NULL)
            if (de->d_name[0] != '.')
                add_file(t, real, de->d_name, false);
        closedir(d);
    } else {
        char *slash = strrchr(dir, '/');
        *slash = '\0';
        add_file(t, dir[0] != '\0' ? dir : "/", slash + 1, true);
    }
    if (t->own.n_hosts == 0)
        return pv_error_set(err, PV_ENOTFOUND, path, PV_NO_OFFSET,
                            is_dir ? "holds no profile profview reads (no "
                                     "plugins/profile/<run>/ folder and no profile files)"
                                   : "is not a profile profview reads");
    pv_sort(t->own.hosts, t->own.n_hosts, sizeof *t->own.hosts, cmp_host);
    for (size_t i = 0; i < t->own.n_hosts; i++)
        pv_sort(t->own.hosts[i].files, t->own.hosts[i].n_files, sizeof *t->own.hosts[i].files,
                cmp_file);
    const char *base = strrchr(real, '/');
    t->own.name = pv_arena_strdup(t->arena, base != NULL && base[1] != '\0' ? base + 1 : real);
    t->own.dir = dir;
    t->run = &t->own;
    return 0;
}

/* ---- choosing the run and hosts ---------------------------------------------------- */

static int64_t newest_file_ns(const pv_run *run)
{
    int64_t ns = INT64_MIN;
    for (size_t i = 0; i < run->n_hosts; i++)
        for (size_t k = 0; k < run->hosts[i].n_files; k++)
            if (run->hosts[i].files[k].id.mtime_ns > ns)
                ns = run->hosts[i].files[k].id.mtime_ns;
    return ns;
}

/* The run called name, or with none the one written last. */
static int pick_run(target *t, const char *path, const char *name, pv_error *err)
{
    if (name != NULL) {
        t->run = pv_index_run_find(t->ix, name);
        if (t->run != NULL)
            return 0;
        char some[400] = "";
        for (size_t i = 0; i < t->ix->n_runs && i < 5; i++)
            snprintf(some + strlen(some), sizeof some - strlen(some), "%s\"%s\"", i ? ", " : "",
                     t->ix->runs[i].name);
        return pv_error_set(err, PV_ENOTFOUND, path, PV_NO_OFFSET,
                            "has no run \"%s\"; it has %zu: %s%s", name, t->ix->n_runs, some,
                            t->ix->n_runs > 5 ? ", ..." : "");
    }
    t->run = &t->ix->runs[0];
    for (size_t i = 1; i < t->ix->n_runs; i++)
        if (newest_file_ns(&t->ix->runs[i]) > newest_file_ns(t->run))
            t->run = &t->ix->runs[i];
    return 0;
}

static int pick_hosts(target *t, const char *host, pv_error *err)
{
    const pv_run *run = t->run;
    t->hosts = pv_arena_zalloc(t->arena, (run->n_hosts + 1) * sizeof *t->hosts);
    t->models = pv_arena_zalloc(t->arena, (run->n_hosts + 1) * sizeof *t->models);
    if (host != NULL) {
        const pv_host *h = NULL;
        for (size_t i = 0; i < run->n_hosts && h == NULL; i++)
            if (strcmp(run->hosts[i].name, host) == 0)
                h = &run->hosts[i];
        if (h == NULL)
            return pv_error_set(err, PV_ENOTFOUND, run->dir, PV_NO_OFFSET,
                                "run \"%s\" has no host \"%s\"", run->name, host);
        t->hosts[t->n_hosts++] = h;
        return 0;
    }
    for (size_t i = 0; i < run->n_hosts; i++)
        t->hosts[t->n_hosts++] = &run->hosts[i];
    /* Hosts are read together from their models; per-tool files answer one
     * host each. */
    if (t->n_hosts > 1 && pv_run_profiles(run) < t->n_hosts)
        return pv_error_set(err, PV_EINVAL, run->dir, PV_NO_OFFSET,
                            "run \"%s\" has %zu hosts, not all with a profile to read together; "
                            "pick one with --host (the first is \"%s\")", run->name,
                            t->n_hosts, run->hosts[0].name);
    return 0;
}

static int resolve(target *t, const char *path, const char *run, const char *host,
                   pv_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot read it: %s",
                            strerror(errno));
    char *real = realpath(path, NULL);
    if (real == NULL)
        return pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "cannot resolve it: %s",
                            strerror(errno));
    int rc = 0;
    if (S_ISDIR(st.st_mode)) {
        /* Files decoded now are read as they are: no settling wait. */
        rc = pv_index_scan(real, NULL, INT64_MAX / 2, &t->ix, err);
        if (rc == 0 && t->ix->n_runs > 0) {
            rc = pick_run(t, path, run, err);
        } else if (rc == 0) {
            pv_index_unref(t->ix);
            t->ix = NULL;
        }
    }
    if (rc == 0 && t->ix == NULL) {
        if (run != NULL)
            rc = pv_error_set(err, PV_EINVAL, path, PV_NO_OFFSET,
                              "--run names a run of a logdir, and this is not one");
        else if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))
            rc = own_run(t, path, real, S_ISDIR(st.st_mode), err);
        else
            rc = pv_error_set(err, PV_EIO, path, PV_NO_OFFSET, "is not a file or a folder");
    }
    free(real);
    return rc == 0 ? pick_hosts(t, host, err) : rc;
}

/* ---- answers ------------------------------------------------------------------------- */

/* The parameters of an ask (a query string) as a tool reads them. */
typedef struct query_ctx {
    const char *query;
    pv_arena *arena;
} query_ctx;

static const char *query_get(void *ctx, const char *name, bool *bad)
{
    (void)bad;
    query_ctx *q = ctx;
    char buf[256];
    const char *v = pv_figures_query_param(q->query, name, buf, sizeof buf);
    return v != NULL ? pv_arena_strdup(q->arena, v) : NULL;
}

static int model_of(target *t, size_t i, const pv_model **out, pv_error *err)
{
    if (t->models[i] == NULL) {
        const pv_host_file *f = pv_host_profile(t->hosts[i]);
        int rc = pv_ingest_file(f->path, NULL, &t->models[i], err);
        if (rc != 0)
            return rc;
    }
    *out = t->models[i];
    return 0;
}

/* The answer of t on hosts [first, first + n) from their models. */
static int from_models(target *tg, size_t first, size_t n, const pv_tool *t, const void *q,
                       pv_buf *out, pv_error *err)
{
    const pv_model **models = pv_arena_zalloc(tg->arena, (n + 1) * sizeof *models);
    const char **names = pv_arena_zalloc(tg->arena, (n + 1) * sizeof *names);
    for (size_t i = 0; i < n; i++) {
        int rc = model_of(tg, first + i, &models[i], err);
        if (rc != 0)
            return rc;
        names[i] = tg->hosts[first + i]->name;
    }
    pv_tool_input in = {models, names, n};
    void *result = NULL;
    int rc = t->compute != NULL ? t->compute(&in, q, tg->arena, &result, err) : 0;
    return rc != 0 ? rc : t->write_json(&in, q, result, out, err);
}

/* The answer of t from one of TensorFlow's per-tool files. */
static int from_file(target *tg, const pv_host_file *f, const pv_tool *t, const void *q,
                     pv_buf *out, pv_error *err)
{
    const pv_format *fmt = f->format;
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pv_error_set(err, PV_EIO, f->path, PV_NO_OFFSET, "cannot open it: %s",
                            strerror(errno));
    char *data;
    size_t len;
    int rc = pv_ingest_read_whole(fd, f->path, fmt->max_bytes, &data, &len, err);
    close(fd);
    if (rc != 0)
        return rc;
    if (fmt->role == PV_FORMAT_TOOL_FILE && fmt->gzip) {
        rc = pv_gzip_decompress(data, len, out, f->path, err);
    } else if (fmt->role == PV_FORMAT_TOOL_FILE) {
        rc = pv_buf_add(out, data, len);
    } else {
        void *result;
        pv_tool_input none = {NULL, NULL, 0};
        rc = fmt->answer((const uint8_t *)data, len, f->path, tg->arena, &result, err);
        if (rc == 0)
            rc = t->write_json(&none, q, result, out, err);
    }
    free(data);
    return rc;
}

/* Asks ask of hosts [first, first + n) and reads the answer into f; an ask
 * nothing answers there is left out. */
static int ask_hosts(target *tg, const pv_figures_ask *ask, size_t first, size_t n,
                     pv_figures *f, pv_error *err)
{
    const pv_tool *t = pv_tool_find(ask->tool);
    bool from_model = false;
    const pv_host_file *file = pv_host_answer(tg->hosts[first], t, &from_model);
    if (file == NULL || (!from_model && file->format->role == PV_FORMAT_UNREAD))
        return 0;
    query_ctx qc = {ask->query, tg->arena};
    pv_params p = {query_get, &qc};
    void *q = pv_arena_zalloc(tg->arena, t->query_bytes + 1);
    int rc = t->read_query != NULL ? t->read_query(&p, q, err) : 0;
    pv_buf body;
    pv_buf_init(&body, ANSWER_MAX_BYTES);
    if (rc == 0)
        rc = from_model ? from_models(tg, first, n, t, q, &body, err)
                        : from_file(tg, file, t, q, &body, err);
    const char *host = ask->per_host ? tg->hosts[first]->name : "";
    if (rc == 0)
        rc = pv_figures_add(f, ask, host, body.data != NULL ? body.data : "", body.len, err);
    if (rc != 0 && err != NULL && err->path[0] == '\0') {
        char why[sizeof err->reason];
        snprintf(why, sizeof why, "%s", err->reason);
        pv_error_set(err, rc, file->path, PV_NO_OFFSET, "%s: %s", ask->tool, why);
    }
    pv_buf_fini(&body);
    return rc;
}

int pv__cli_figures(const char *path, const char *run, const char *host, pv_arena *a,
                    pv_figures *out, pv_error *err)
{
    target t = {.arena = a};
    int rc = resolve(&t, path, run, host, err);
    if (rc == 0) {
        pv_figures_init(out, t.run->name, t.n_hosts == 1 ? t.hosts[0]->name : "", a);
        size_t n_asks;
        const pv_figures_ask *asks = pv_figures_asks(&n_asks);
        for (size_t i = 0; i < n_asks && rc == 0; i++) {
            const pv_tool *tool = pv_tool_find(asks[i].tool);
            /* Hosts together where the tool combines them, else each. */
            bool each = asks[i].per_host || !tool->combines_hosts;
            for (size_t h = 0; h < (each ? t.n_hosts : 1) && rc == 0; h++)
                rc = ask_hosts(&t, &asks[i], h, each ? 1 : t.n_hosts, out, err);
        }
        pv_figures_finish(out);
    }
    for (size_t i = 0; i < t.n_hosts; i++)
        pv_model_free(t.models[i]);
    pv_index_unref(t.ix);
    return rc;
}
