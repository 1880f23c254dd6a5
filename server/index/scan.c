/* scan: one walk over a logdir producing an index snapshot.
 *
 * The walk uses lstat so it sees symbolic links for what they are; a link
 * is followed only when its resolved target lies inside the resolved
 * logdir. Every directory is entered at most once, keyed by (device,
 * inode), which also breaks link loops. Depth and directory count are
 * capped so a hostile tree cannot keep the scan busy forever. */
#include "index/index.h"
#include "util/bsearch.h"
#include "util/hashtab.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/sort.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 48
#define MAX_DIRS 2000000u

typedef struct dir_key {
    dev_t dev;
    ino_t ino;
} dir_key;

typedef struct scan {
    const char *root;          /* resolved logdir */
    size_t root_len;
    const pv_index *prev;
    int64_t now_ns;
    dir_key *seen;             /* directories entered, in order */
    size_t seen_cap;
    size_t seen_n;
    pv_hashtab seen_ix;        /* key_hash -> index into seen */
    pv_run *runs;
    size_t n_runs;
    size_t cap_runs;
    uint64_t n_files;
    pv_host_file *seen_files;  /* every host file met, for the next scan */
    size_t n_seen;
    size_t cap_seen;
} scan;

static uint64_t key_hash(dir_key k)
{
    return pv_hash_u64((uint64_t)k.ino ^ pv_hash_u64((uint64_t)k.dev));
}

/* Returns true when the directory was not seen before (and marks it). */
static bool seen_insert(scan *s, dir_key k)
{
    pv_hashtab_cursor c = pv_hashtab_probe(&s->seen_ix, key_hash(k));
    uint32_t i;
    while (pv_hashtab_next(&c, &i))
        if (s->seen[i].ino == k.ino && s->seen[i].dev == k.dev)
            return false;
    if (s->seen_n == s->seen_cap) {
        s->seen_cap = s->seen_cap ? s->seen_cap * 2 : 1024;
        s->seen = pv_xrealloc(s->seen, s->seen_cap * sizeof *s->seen);
    }
    pv_hashtab_insert(&s->seen_ix, &c, (uint32_t)s->seen_n);
    s->seen[s->seen_n++] = k;
    return true;
}

static bool inside_root(const scan *s, const char *resolved)
{
    if (strncmp(resolved, s->root, s->root_len) != 0)
        return false;
    return resolved[s->root_len] == '\0' || resolved[s->root_len] == '/' ||
           (s->root_len == 1 && s->root[0] == '/');
}

/* Stats path, following a symbolic link only when it stays inside the
 * logdir. Returns false when the entry must be skipped. */
static bool stat_entry(const scan *s, const char *path, struct stat *st)
{
    if (lstat(path, st) != 0)
        return false;
    if (!S_ISLNK(st->st_mode))
        return true;
    char *resolved = realpath(path, NULL);
    if (resolved == NULL)
        return false;
    bool ok = inside_root(s, resolved);
    if (!ok)
        pv_log(PV_LOG_INFO, "not following %s: it leads outside the logdir", path);
    free(resolved);
    return ok && stat(path, st) == 0;
}

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = pv_xmalloc(la + lb + 2);
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

static int64_t mtime_ns_of(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000000000LL + (int64_t)st->st_mtim.tv_nsec;
}

/* A file written just now is offered only once a second scan sees it
 * unchanged; this is how "stops growing" is observed without reading it. */
static bool settled(const scan *s, const char *path, uint64_t size, int64_t mtime_ns)
{
    if (s->now_ns - mtime_ns >= PV_INDEX_SETTLE_NS)
        return true;
    if (s->prev == NULL)
        return false;
    const pv_host_file *seen = s->prev->seen;
    size_t lo = 0, n = s->prev->n_seen;
    PV_LOWER_BOUND(size_t, lo, n, i, strcmp(seen[i].path, path) < 0);
    return lo < n && strcmp(seen[lo].path, path) == 0 && seen[lo].size_bytes == size &&
           seen[lo].mtime_ns == mtime_ns;
}

static void remember(scan *s, const char *path, pv_file_kind kind, uint64_t size, int64_t mt)
{
    if (s->n_seen == s->cap_seen) {
        s->cap_seen = s->cap_seen ? s->cap_seen * 2 : 64;
        s->seen_files = pv_xrealloc(s->seen_files, s->cap_seen * sizeof *s->seen_files);
    }
    s->seen_files[s->n_seen++] = (pv_host_file){pv_xstrdup(path), kind, size, mt};
}

static pv_host *host_get(pv_run *run, const char *name, size_t len)
{
    for (size_t i = 0; i < run->n_hosts; i++)
        if (strlen(run->hosts[i].name) == len && memcmp(run->hosts[i].name, name, len) == 0)
            return &run->hosts[i];
    run->hosts = pv_xrealloc(run->hosts, (run->n_hosts + 1) * sizeof *run->hosts);
    pv_host *h = &run->hosts[run->n_hosts++];
    h->name = pv_xstrndup(name, len);
    h->files = NULL;
    h->n_files = 0;
    return h;
}

static int cmp_host(const void *a, const void *b)
{
    return strcmp(((const pv_host *)a)->name, ((const pv_host *)b)->name);
}

static int cmp_file(const void *a, const void *b)
{
    return (int)((const pv_host_file *)a)->kind - (int)((const pv_host_file *)b)->kind;
}

static void run_free_parts(pv_run *run)
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

/* Reads one session folder into a run; runs with no host files are dropped. */
static void scan_session(scan *s, const char *dir, char *run_name)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        pv_log(PV_LOG_WARN, "skipping unreadable folder %s: %s", dir, strerror(errno));
        free(run_name);
        return;
    }
    pv_run run = {.name = run_name, .dir = pv_xstrdup(dir)};
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t host_len;
        pv_file_kind kind = pv_filename_classify(de->d_name, &host_len);
        if (kind == PV_FILE_NONE)
            continue;
        char *path = join(dir, de->d_name);
        struct stat st;
        if (!stat_entry(s, path, &st) || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        s->n_files++;
        uint64_t size = (uint64_t)st.st_size;
        int64_t mt = mtime_ns_of(&st);
        remember(s, path, kind, size, mt);
        if (!settled(s, path, size, mt)) {
            pv_log(PV_LOG_DEBUG, "%s is still being written; offering it later", path);
            free(path);
            continue;
        }
        pv_host *h = host_get(&run, de->d_name, host_len);
        h->files = pv_xrealloc(h->files, (h->n_files + 1) * sizeof *h->files);
        h->files[h->n_files++] = (pv_host_file){path, kind, size, mt};
    }
    closedir(d);
    if (run.n_hosts == 0) {
        run_free_parts(&run);
        return;
    }
    pv_sort(run.hosts, run.n_hosts, sizeof *run.hosts, cmp_host);
    for (size_t i = 0; i < run.n_hosts; i++)
        pv_sort(run.hosts[i].files, run.hosts[i].n_files, sizeof *run.hosts[i].files, cmp_file);
    if (s->n_runs == s->cap_runs) {
        s->cap_runs = s->cap_runs ? s->cap_runs * 2 : 64;
        s->runs = pv_xrealloc(s->runs, s->cap_runs * sizeof *s->runs);
    }
    s->runs[s->n_runs++] = run;
}

/* rel is the folder's path relative to the logdir ("" for the logdir). */
static void scan_profile_dir(scan *s, const char *profile_dir, const char *tbrun)
{
    DIR *d = opendir(profile_dir);
    if (d == NULL) {
        pv_log(PV_LOG_WARN, "skipping unreadable folder %s: %s", profile_dir, strerror(errno));
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *path = join(profile_dir, de->d_name);
        struct stat st;
        if (stat_entry(s, path, &st) && S_ISDIR(st.st_mode) &&
            seen_insert(s, (dir_key){st.st_dev, st.st_ino})) {
            char *name = tbrun[0] ? join(tbrun, de->d_name) : pv_xstrdup(de->d_name);
            scan_session(s, path, name);
        }
        free(path);
    }
    closedir(d);
}

static void walk(scan *s, const char *dir, const char *rel, int depth)
{
    if (depth > MAX_DEPTH || s->seen_n > MAX_DIRS)
        return;
    DIR *d = opendir(dir);
    if (d == NULL) {
        pv_log(PV_LOG_WARN, "skipping unreadable folder %s: %s", dir, strerror(errno));
        return;
    }
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    bool in_plugins = strcmp(base, "plugins") == 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (de->d_type != DT_DIR && de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
            continue;
        char *path = join(dir, de->d_name);
        struct stat st;
        if (!stat_entry(s, path, &st) || !S_ISDIR(st.st_mode) ||
            !seen_insert(s, (dir_key){st.st_dev, st.st_ino})) {
            free(path);
            continue;
        }
        if (in_plugins && strcmp(de->d_name, "profile") == 0) {
            /* tbrun is rel without its trailing "plugins" component. */
            size_t keep = (size_t)(base - rel);
            char *tbrun = pv_xstrndup(rel, keep > 0 ? keep - 1 : 0);
            scan_profile_dir(s, path, tbrun);
            free(tbrun);
        } else {
            char *child_rel = rel[0] ? join(rel, de->d_name) : pv_xstrdup(de->d_name);
            walk(s, path, child_rel, depth + 1);
            free(child_rel);
        }
        free(path);
    }
    closedir(d);
}

static int cmp_file_path(const void *a, const void *b)
{
    return strcmp(((const pv_host_file *)a)->path, ((const pv_host_file *)b)->path);
}

static int cmp_run(const void *a, const void *b)
{
    return strcmp(((const pv_run *)a)->name, ((const pv_run *)b)->name);
}

int pv_index_scan(const char *logdir, const pv_index *prev, int64_t now_ns, pv_index **out,
                  pv_error *err)
{
    *out = NULL;
    char *root = realpath(logdir, NULL);
    if (root == NULL)
        return pv_error_set(err, PV_EIO, logdir, PV_NO_OFFSET, "cannot open the logdir: %s",
                            strerror(errno));
    struct stat st;
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        pv_error_set(err, PV_EIO, logdir, PV_NO_OFFSET, "the logdir is not a folder");
        free(root);
        return PV_EIO;
    }
    scan s = {.root = root, .root_len = strlen(root), .prev = prev, .now_ns = now_ns};
    seen_insert(&s, (dir_key){st.st_dev, st.st_ino});
    walk(&s, root, "", 0);
    free(s.seen);
    pv_hashtab_fini(&s.seen_ix);
    pv_sort(s.runs, s.n_runs, sizeof *s.runs, cmp_run);
    pv_sort(s.seen_files, s.n_seen, sizeof *s.seen_files, cmp_file_path);

    pv_index *ix = pv_xcalloc(1, sizeof *ix);
    ix->refs = 1;
    ix->logdir = root;
    ix->runs = s.runs;
    ix->n_runs = s.n_runs;
    ix->n_files = s.n_files;
    ix->seen = s.seen_files;
    ix->n_seen = s.n_seen;
    ix->generation = prev ? prev->generation : 0;
    if (prev == NULL || !pv_index_same(prev, ix))
        ix->generation++;
    *out = ix;
    return 0;
}

void pv_index_unref(pv_index *ix)
{
    if (ix == NULL || --ix->refs > 0)
        return;
    for (size_t i = 0; i < ix->n_runs; i++)
        run_free_parts(&ix->runs[i]);
    free(ix->runs);
    for (size_t i = 0; i < ix->n_seen; i++)
        free(ix->seen[i].path);
    free(ix->seen);
    free(ix->logdir);
    free(ix);
}
