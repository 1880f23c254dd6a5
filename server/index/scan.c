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
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void say_once(scan *s, int level, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Stats path, following a symbolic link only when it stays inside the
 * logdir (*link then says it did). A link whose target is not of the kind
 * asked for (a folder when dirs, else a regular file) is skipped before its
 * path is resolved: a tree of many links to files costs one stat each per
 * scan, not a realpath. Returns false when the entry must be skipped. */
static bool stat_entry(scan *s, const char *path, struct stat *st, bool *link, bool dirs)
{
    if (lstat(path, st) != 0)
        return false;
    *link = S_ISLNK(st->st_mode);
    if (!*link)
        return true;
    if (stat(path, st) != 0 || (dirs ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode)))
        return false;
    char *resolved = realpath(path, NULL);
    if (resolved == NULL)
        return false;
    bool ok = inside_root(s, resolved);
    if (!ok)
        say_once(s, PV_LOG_INFO, path, "not following %s: it leads outside the logdir", path);
    free(resolved);
    return ok;
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

/* The path, through no link, of the file a link dir/name leads to inside
 * the logdir, or NULL. A malloc'd string (realpath's), like join's. */
static char *realpath_inside(const scan *s, const char *dir, const char *name)
{
    char *path = join(dir, name);
    char *real = realpath(path, NULL);
    free(path);
    if (real != NULL && !inside_root(s, real)) {
        free(real);
        return NULL;
    }
    return real;
}

/* The previous scan's entry for path, or NULL. */
static const pv_host_file *prev_seen(const scan *s, const char *path)
{
    if (s->prev == NULL)
        return NULL;
    const pv_host_file *seen = s->prev->seen;
    size_t lo = 0, n = s->prev->n_seen;
    PV_LOWER_BOUND(size_t, lo, n, i, strcmp(seen[i].path, path) < 0);
    return lo < n && strcmp(seen[lo].path, path) == 0 ? &seen[lo] : NULL;
}

/* A file written just now is offered only once a second scan sees it
 * unchanged; this is how "stops growing" is observed without reading it. */
static bool settled(const scan *s, const char *path, const pv_file_id *id)
{
    if (s->now_ns - id->mtime_ns >= PV_INDEX_SETTLE_NS)
        return true;
    const pv_host_file *was = prev_seen(s, path);
    return was != NULL && pv_file_id_same(&was->id, id);
}

static void remember(scan *s, const char *path, const pv_format *format, const pv_file_id *id,
                     unsigned holds)
{
    if (s->n_seen == s->cap_seen) {
        s->cap_seen = s->cap_seen ? s->cap_seen * 2 : 64;
        s->seen_files = pv_xrealloc(s->seen_files, s->cap_seen * sizeof *s->seen_files);
    }
    s->seen_files[s->n_seen++] = (pv_host_file){pv_xstrdup(path), format, *id, holds, NULL, NULL};
}

/* What the profile at path holds (PV_PROFILE_*): the previous scan's
 * answer while the file is unchanged, else the format's probe (a few
 * small reads; an unreadable file has none). */
static unsigned probe(const scan *s, const char *path, const pv_format *format,
                      const pv_file_id *id)
{
    if (format->probe == NULL)
        return 0;
    const pv_host_file *was = prev_seen(s, path);
    if (was != NULL && pv_file_id_same(&was->id, id))
        return was->holds;
    return pv_format_file_probe(format, path, id->size_bytes);
}

/* A skipped entry is reported by the first scan that meets it, not by
 * every rescan: it joins the seen list (with no format), so the next scan
 * knows the line was said, and the index changes when it comes or goes. */
static void say_once(scan *s, int level, const char *path, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pv_log(prev_seen(s, path) != NULL ? PV_LOG_DEBUG : level, "%s", line);
    remember(s, path, NULL, &(pv_file_id){0}, false);
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
    size_t ra = pv_format_rank(((const pv_host_file *)a)->format);
    size_t rb = pv_format_rank(((const pv_host_file *)b)->format);
    return (ra > rb) - (ra < rb);
}

/* Reads one session folder into a run (with any_folder_only, a PyTorch
 * run folder: only the formats found in any folder); runs with no host
 * files are dropped. */
static void scan_session(scan *s, const char *dir, char *run_name, bool any_folder_only)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        say_once(s, PV_LOG_WARN, dir, "skipping unreadable folder %s: %s", dir, strerror(errno));
        free(run_name);
        return;
    }
    /* Files are recorded by their path through no symbolic link, so that
     * opening one later can refuse every link (util/safe_open.h). */
    char *real_dir = realpath(dir, NULL);
    if (real_dir == NULL) {
        closedir(d);
        free(run_name);
        return;
    }
    pv_run run = {.name = run_name, .dir = pv_xstrdup(dir)};
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t host_len;
        const pv_format *format = pv_format_classify(de->d_name, &host_len);
        if (format == NULL || (any_folder_only && !format->any_folder))
            continue;
        char *path = join(dir, de->d_name);
        struct stat st;
        bool link = false;
        if (!stat_entry(s, path, &st, &link, false) || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        free(path);
        path = link ? realpath_inside(s, dir, de->d_name) : join(real_dir, de->d_name);
        if (path == NULL)
            continue;
        s->n_files++;
        pv_file_id id = pv_file_id_of(&st);
        unsigned holds = probe(s, path, format, &id);
        remember(s, path, format, &id, holds);
        if (!settled(s, path, &id)) {
            pv_log(PV_LOG_DEBUG, "%s is still being written; offering it later", path);
            free(path);
            continue;
        }
        pv_host *h = host_get(&run, de->d_name, host_len);
        h->files = pv_xrealloc(h->files, (h->n_files + 1) * sizeof *h->files);
        h->files[h->n_files++] = (pv_host_file){path, format, id, holds, NULL, NULL};
    }
    closedir(d);
    free(real_dir);
    if (run.n_hosts == 0) {
        pv__run_free(&run);
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
        say_once(s, PV_LOG_WARN, profile_dir, "skipping unreadable folder %s: %s", profile_dir,
                 strerror(errno));
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *path = join(profile_dir, de->d_name);
        struct stat st;
        bool link;
        if (stat_entry(s, path, &st, &link, true) && S_ISDIR(st.st_mode) &&
            seen_insert(s, (dir_key){st.st_dev, st.st_ino})) {
            char *name = tbrun[0] ? join(tbrun, de->d_name) : pv_xstrdup(de->d_name);
            scan_session(s, path, name, false);
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
        say_once(s, PV_LOG_WARN, dir, "skipping unreadable folder %s: %s", dir, strerror(errno));
        return;
    }
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    bool in_plugins = strcmp(base, "plugins") == 0;
    bool pytorch_run = false;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        size_t host_len;
        const pv_format *f =
            de->d_type != DT_DIR ? pv_format_classify(de->d_name, &host_len) : NULL;
        if (f != NULL && f->any_folder)
            pytorch_run = true;
        if (de->d_type != DT_DIR && de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
            continue;
        char *path = join(dir, de->d_name);
        struct stat st;
        bool link;
        if (!stat_entry(s, path, &st, &link, true) || !S_ISDIR(st.st_mode) ||
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
    if (pytorch_run) {
        /* torch-tb-profiler's name: the folder's path in the logdir, or
         * the logdir's own name for the logdir itself */
        const char *root_base = strrchr(s->root, '/');
        root_base = root_base != NULL && root_base[1] != '\0' ? root_base + 1 : s->root;
        scan_session(s, dir, pv_xstrdup(rel[0] ? rel : root_base), true);
    }
}

static int cmp_file_path(const void *a, const void *b)
{
    return strcmp(((const pv_host_file *)a)->path, ((const pv_host_file *)b)->path);
}

static int cmp_run(const void *a, const void *b)
{
    return strcmp(((const pv_run *)a)->name, ((const pv_run *)b)->name);
}

/* A PyTorch run folder and a TensorBoard session can have one name
 * (logdir/a/ and logdir/plugins/profile/a/): the later of two equal names
 * gets " (2)", " (3)", ... so every run can be asked for. Takes and leaves
 * the runs sorted; equal names are rare, so a name is checked against all
 * runs. */
static void distinct_names(scan *s)
{
    bool renamed = false;
    for (size_t i = 1; i < s->n_runs; i++) {
        if (strcmp(s->runs[i].name, s->runs[i - 1].name) != 0)
            continue;
        size_t len = strlen(s->runs[i].name) + 16;
        char *name = pv_xmalloc(len);
        for (unsigned k = 2;; k++) {
            snprintf(name, len, "%s (%u)", s->runs[i].name, k);
            size_t j = 0;
            while (j < s->n_runs && strcmp(s->runs[j].name, name) != 0)
                j++;
            if (j == s->n_runs)
                break;
        }
        pv_log(PV_LOG_DEBUG, "two runs are named %s; the one in %s is %s", s->runs[i].name,
               s->runs[i].dir, name);
        free(s->runs[i].name);
        s->runs[i].name = name;
        renamed = true;
    }
    if (renamed)
        pv_sort(s->runs, s->n_runs, sizeof *s->runs, cmp_run);
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
    distinct_names(&s);
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
