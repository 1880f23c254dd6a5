/* cli_figures: a path to a run (a logdir's through the index, a folder's or a
 * file's made here) and its hosts, then their figures (report/answers.h)
 * asked of the answer layer with a model store of this command's own,
 * which decodes each host's profile once, when the first tool needs it,
 * and no disk cache: files named on the command line are read as they are,
 * links and all. */
#include "cli/cli_figures.h"
#include "index/index.h"
#include "ingest/formats.h"
#include "report/answers.h"
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

/* The run the command line names and the hosts chosen from it. */
typedef struct target {
    pv_index *ix;              /* the logdir's index, or NULL for a run made here */
    pv_run own;                /* a folder's or a file's run, in the arena */
    const pv_run *run;
    size_t n_hosts;
    const pv_host **hosts;     /* the hosts read */
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
    pv_file_id id = pv_file_id_of(&st);
    files[h->n_files++] =
        (pv_host_file){path, f, id, pv_format_file_probe(f, path, id.size_bytes), NULL, NULL};
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

int pv__cli_figures(const char *path, const char *run, const char *host, pv_arena *a,
                    pv_figures *out, pv_error *err)
{
    target t = {.arena = a};
    int rc = resolve(&t, path, run, host, err);
    if (rc == 0) {
        pv_disk_cache off;
        pv_disk_cache_init(&off, NULL, 0);
        pv_answer_ctx ctx = {pv_model_store_new(0, &off, NULL), &off, NULL};
        rc = pv_report_figures(&ctx, NULL, t.run, t.hosts, t.n_hosts, false, a, out, err);
        pv_model_store_free(ctx.models);
        pv_disk_cache_fini(&off);
    }
    pv_index_unref(t.ix);
    return rc;
}
