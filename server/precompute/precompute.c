/* precompute: the units of a logdir and the answers of each (see
 * precompute.h). A unit first makes sure its profiles' models (and their
 * trace indexes) are saved, decoding only those that are not, then makes each answer that is not
 * kept yet, from the models the store holds for the unit. The store's
 * budget lets it drop the models of earlier units, so memory holds about
 * one unit's models at a time. */
#include "precompute/precompute.h"
#include "answer/answer.h"
#include "cache/disk.h"
#include "cache/trace_cache.h"
#include "index/index.h"
#include "tools/registry.h"
#include "util/hash.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ALL_HOSTS "ALL_HOSTS"
#define MAX_TOOLS 64

typedef struct job {
    pv_disk_cache *disk;
    pv_model_store *store;
    pv_precompute_stats *stats;
} job;

unsigned pv_precompute_shard_of(const char *run, const char *host, unsigned n)
{
    uint64_t h = pv_hash_bytes(PV_HASH_SEED, run, strlen(run) + 1);
    h = pv_hash_bytes(h, host, strlen(host));
    return n > 1 ? (unsigned)(h % n) : 0;
}

/* ---- one answer ------------------------------------------------------------------ */

static void log_failure(const pv_tool *t, bool csv, const char *host, const pv_error *err)
{
    char msg[1200];
    pv_error_format(err, msg, sizeof msg);
    pv_log(PV_LOG_WARN, "precompute: %s%s for %s: %s", t->name, csv ? " (CSV)" : "", host, msg);
}

/* What asking for an answer did. */
typedef struct asked {
    bool looked_up;   /* the disk cache was asked (not a per-tool file sent as it is) */
    bool was_kept;    /* and had it */
} asked;

/* Asks the answer layer for t's default answer on the hosts (combined when
 * several) without a body: it makes and keeps it unless it is kept. */
static int ask_kept(job *jb, const pv_ask *ask, asked *out, pv_error *err)
{
    pv_arena a;
    pv_arena_init(&a, 0);
    pv_answer_ctx ctx = {jb->store, jb->disk, NULL};
    pv_answer ans;
    int rc = pv_answer_get(&ctx, ask, &a, &ans, NULL, err);
    *out = (asked){ans.looked_up, ans.was_kept};
    pv_answer_release(&ans);
    pv_arena_fini(&a);
    return rc;
}

/* Makes and keeps t's default answer on hosts unless it is kept already. */
static void one_answer(job *jb, const pv_tool *t, bool csv, const char *root, const pv_run *run,
                       const pv_host *const *hosts, size_t n, bool several)
{
    pv_ask ask = {.tool = t,
                  .form = csv ? PV_ANSWER_CSV : PV_ANSWER_JSON,
                  .run = run->name,
                  .root = root,
                  .hosts = hosts,
                  .n_hosts = n,
                  .all_hosts = several,
                  .no_body = true};
    asked ans;
    pv_error err = {0};
    int rc = ask_kept(jb, &ask, &ans, &err);
    /* A per-tool file served as it is has nothing to keep. */
    if (rc == 0 && !ans.looked_up)
        return;
    if (rc == 0 && ans.was_kept) {
        jb->stats->answers_kept++;
        return;
    }
    /* a keep fails quietly (the answer is bigger than the limit, the disk
     * is full); a precompute that kept nothing must say so */
    if (rc == 0 && (ask_kept(jb, &ask, &ans, &err) != 0 || !ans.was_kept))
        rc = pv_error_set(&err, PV_EIO, pv_host_profile(hosts[0])->path, PV_NO_OFFSET,
                          "the answer could not be kept in the cache folder");
    if (rc == 0) {
        jb->stats->answers_made++;
    } else {
        jb->stats->failed++;
        log_failure(t, csv, several ? ALL_HOSTS : hosts[0]->name, &err);
    }
}

/* Both answers of t (JSON, and CSV when it has a table). */
static void answers_of(job *jb, const pv_tool *t, const char *root, const pv_run *run,
                       const pv_host *const *hosts, size_t n, bool several)
{
    /* a module tool answers for the module a request names; there is no
     * answer without one to make ahead */
    if (t->per_module)
        return;
    one_answer(jb, t, false, root, run, hosts, n, several);
    if (t->write_csv != NULL)
        one_answer(jb, t, true, root, run, hosts, n, several);
}

/* ---- units ------------------------------------------------------------------------ */

/* Saves src's model unless the cache has it: a load decodes and saves. */
static void ensure_saved(job *jb, const pv_source *src)
{
    char *saved = pv_model_store_saved(jb->store, src);
    bool have = saved != NULL;
    free(saved);
    if (have)
        return;
    const pv_model *m;
    pv_model_entry *e;
    pv_error err = {0};
    if (pv_model_store_get(jb->store, src, &m, &e, &err) != 0) {
        char msg[1200];
        pv_error_format(&err, msg, sizeof msg);
        pv_log(PV_LOG_WARN, "precompute: cannot load %s: %s", src->path, msg);
        return;
    }
    pv_model_store_put(jb->store, e);
}

/* A host's unit: its model, and the answer of every tool it lists (those
 * TensorFlow's per-tool JSON files answer are served as they are, with
 * nothing to keep). */
static void host_unit(job *jb, const pv_index *ix, const pv_run *run, const pv_host *h)
{
    const pv_host_file *f = pv_host_profile(h);
    pv_source src = pv_host_file_source(f, ix->logdir);
    jb->stats->profile_bytes += f->id.size_bytes;
    pv_log(PV_LOG_INFO, "precompute: %s, host %s (%llu bytes)", run->name, h->name,
           (unsigned long long)f->id.size_bytes);
    ensure_saved(jb, &src);
    const pv_tool *tools[MAX_TOOLS];
    size_t n = pv_host_tools(h, tools, MAX_TOOLS);
    for (size_t i = 0; i < n; i++)
        answers_of(jb, tools[i], ix->logdir, run, &h, 1, false);
}

/* A run's ALL_HOSTS unit: every tool the run lists that combines hosts,
 * over the hosts with a profile in the run's order, as the /data route
 * takes them. */
static void all_hosts_unit(job *jb, const pv_index *ix, const pv_run *run)
{
    size_t n = pv_run_profiles(run);
    const pv_host **hosts = calloc(n, sizeof *hosts);
    if (hosts == NULL) {
        pv_log(PV_LOG_WARN, "precompute: out of memory listing the hosts of %s", run->name);
        jb->stats->failed++;
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < run->n_hosts && k < n; i++)
        if (pv_host_profile(&run->hosts[i]) != NULL)
            hosts[k++] = &run->hosts[i];
    pv_log(PV_LOG_INFO, "precompute: %s, " ALL_HOSTS " (%zu hosts)", run->name, n);
    const pv_tool *tools[MAX_TOOLS];
    size_t n_tools = pv_run_tools(run, tools, MAX_TOOLS);
    for (size_t i = 0; i < n_tools; i++)
        if (tools[i]->combines_hosts && pv_tool_from_models(tools[i]))
            answers_of(jb, tools[i], ix->logdir, run, hosts, n, true);
    free(hosts);
}

/* Whether a run has combined answers: two hosts with a profile, and no
 * real host called ALL_HOSTS (it would be asked for by name). */
static bool has_all_hosts(const pv_run *run)
{
    return pv_run_profiles(run) >= 2 && pv_run_host_find(run, ALL_HOSTS) == NULL;
}

static void run_units(job *jb, const pv_index *ix, const pv_precompute_opts *o)
{
    for (size_t r = 0; r < ix->n_runs; r++) {
        const pv_run *run = &ix->runs[r];
        for (size_t i = 0; i < run->n_hosts; i++) {
            const pv_host *h = &run->hosts[i];
            if (pv_host_profile(h) == NULL)
                continue;
            jb->stats->units++;
            if (pv_precompute_shard_of(run->name, h->name, o->shards) != o->shard)
                continue;
            jb->stats->units_mine++;
            host_unit(jb, ix, run, h);
        }
        if (!has_all_hosts(run))
            continue;
        jb->stats->units++;
        if (pv_precompute_shard_of(run->name, ALL_HOSTS, o->shards) != o->shard)
            continue;
        jb->stats->units_mine++;
        all_hosts_unit(jb, ix, run);
    }
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int pv_precompute_run(const pv_precompute_opts *o, pv_precompute_stats *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_index *ix = NULL;
    int rc = pv_index_scan(o->logdir, NULL, now_ns(), &ix, err);
    if (rc != 0)
        return rc;
    pv_disk_cache disk;
    pv_disk_cache_init(&disk, o->cache_dir, o->cache_max_bytes);
    if (disk.dir == NULL) {
        rc = pv_error_set(err, PV_EIO, o->cache_dir, PV_NO_OFFSET,
                          "the cache folder cannot be used (the line above says why)");
        goto fail_disk;
    }
    /* The trace index is built and kept too (and the tools' first memos
     * with it), so a replica reads it back rather than building it. */
    job jb = {&disk, pv_model_store_new(o->memory_budget, &disk, pv_trace_companion()), out};
    run_units(&jb, ix, o);
    pv_store_stats loads;
    pv_model_store_stats(jb.store, &loads);
    out->decoded = loads.decoded;
    out->from_disk = loads.from_disk;
    /* waits for the loader threads, and so for the models being saved */
    pv_model_store_free(jb.store);
fail_disk:
    pv_disk_cache_fini(&disk);
    pv_index_unref(ix);
    return rc;
}
