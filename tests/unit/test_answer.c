/* The answer layer (server/answer/answer.h) in process:
 *
 *   - every parameter every tool and every part declares enters the
 *     answer's key: changing any one of them, alone, changes the key, and
 *     giving a default value explicitly does not (a planted bug that left
 *     each tool's last parameter out of the key went through every other
 *     test);
 *   - the parameter rules: a required one left out, a bad value, a list;
 *   - an answer from a model source (the demo's profile): made, kept in
 *     the disk cache, found there, revalidated, sent plain or gzip'd, and
 *     the same bytes as the tool's own writer gives for that model;
 *   - an answer from a per-tool file (a JSON file written here, so the
 *     oracle is the bytes written): sent as it is, tagged by its identity;
 *   - an answer from a second kind of source (bytes held in memory): the
 *     same answer as the file with those bytes gives, keyed by the kind's
 *     own identity, decoded once;
 *   - a part whose tag comes from its key (a tile): a client that holds it
 *     is answered without the model being loaded. */
#include "answer/answer.h"
#include "cache/kept_answer.h"
#include "ingest/formats.h"
#include "ingest/ingest.h"
#include "testutil.h"
#include "tools/registry.h"
#include "util/gzip.h"
#include "util/hash.h"

#include <jansson.h>
#include <string.h>

#define DEMO PV_SRCDIR "/demo/plugins/profile/2026_11_29_17_33_29/vm.xplane.pb"

/* ---- parameters from a list --------------------------------------------------------- */

typedef struct given {
    const char *name[16];
    const char *value[16];
    size_t n;
} given;

static const char *given_get(void *ctx, const char *name, bool *bad)
{
    (void)bad;
    const given *g = ctx;
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->name[i], name) == 0)
            return g->value[i];
    return NULL;
}

static void give(given *g, const char *name, const char *value)
{
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->name[i], name) == 0) {
            g->value[i] = value;
            return;
        }
    g->name[g->n] = name;
    g->value[g->n++] = value;
}

/* ---- a host whose profile is the demo's -------------------------------------------- */

typedef struct demo_host {
    pv_host_file file;
    pv_host host;
    const pv_host *hosts[1];
} demo_host;

/* holds: what the offer believes the profile's probe read (PROBED_ALL:
 * every tool an XSpace offers, for the key walk, which loads nothing);
 * the XSpace format adds what it reports itself (its caps). */
#define PROBED_ALL (PV_PROFILE_HLO | PV_PROFILE_GPU)

static void demo_host_init(demo_host *d, unsigned holds)
{
    struct stat st;
    ck_assert_int_eq(stat(DEMO, &st), 0);
    size_t host_len;
    d->file = (pv_host_file){.path = (char *)DEMO,
                             .format = pv_format_classify("vm.xplane.pb", &host_len),
                             .id = pv_file_id_of(&st),
                             .holds = holds};
    d->host = (pv_host){.name = (char *)"vm", .files = &d->file, .n_files = 1};
    d->hosts[0] = &d->host;
}

static pv_ask ask_of(const demo_host *d, const pv_tool *t, const pv_tool_part *part,
                     const pv_params *p)
{
    return (pv_ask){.tool = t, .part = part, .form = PV_ANSWER_JSON, .run = "demo",
                    .hosts = d->hosts, .n_hosts = 1, .params = p};
}

/* ---- the key walk --------------------------------------------------------------------- */

/* A value other than the one the parameter takes when absent (or than the
 * base value a required one is given), by its rule. */
static const char *other_value(const pv_param_decl *d, char *buf, size_t cap)
{
    uint64_t u;
    switch (d->kind) {
    case PV_PARAM_UINT:
        u = d->def < d->max ? d->def + 1 : d->def - 1;
        if (u < d->min)
            u = d->min + 1;
        snprintf(buf, cap, "%llu", (unsigned long long)u);
        return buf;
    case PV_PARAM_SWITCH:
        return d->def != 0 ? "0" : "1";
    case PV_PARAM_CHOICE: {
        size_t n = 0;
        while (d->choices[n] != NULL)
            n++;
        return d->choices[(d->def + 1) % n];
    }
    case PV_PARAM_NUMBER:
        snprintf(buf, cap, "%g", d->required ? d->hi : (d->lo + d->hi) / 2);
        return buf;
    case PV_PARAM_TEXT:
        return "b";
    case PV_PARAM_UINT_LIST:
        return "2,3";
    }
    return NULL;
}

/* The value a required parameter is given in the base ask. */
static const char *base_value(const pv_param_decl *d)
{
    switch (d->kind) {
    case PV_PARAM_TEXT: return "a";
    case PV_PARAM_UINT_LIST: return "1";
    default: return "0";
    }
}

/* The key of an ask, which must be keyed. */
static const char *key_text(const pv_ask *ask, pv_arena *a)
{
    pv_cache_key k;
    const char *title = NULL;
    pv_error err = {0};
    int rc = pv_answer_key_of(ask, a, &k, &title, &err);
    ck_assert_msg(rc == 0, "%s: %s", ask->tool->name, err.reason);
    return pv_arena_printf(a, "%s\n%s", k.source, k.what);
}

/* Walks one table: each parameter changed alone changes the key; a
 * default given explicitly does not. Returns how many it walked. */
static size_t walk(const demo_host *d, const pv_tool *t, const pv_tool_part *part,
                   const pv_param_decl *decls, size_t n, pv_arena *a)
{
    given base = {0};
    for (size_t i = 0; i < n; i++)
        if (decls[i].required)
            give(&base, decls[i].name, base_value(&decls[i]));
    pv_params p = {given_get, &base};
    pv_ask ask = ask_of(d, t, part, &p);
    const char *k0 = key_text(&ask, a);
    for (size_t i = 0; i < n; i++) {
        given changed = base;
        char buf[32];
        give(&changed, decls[i].name, other_value(&decls[i], buf, sizeof buf));
        pv_params pc = {given_get, &changed};
        pv_ask ac = ask_of(d, t, part, &pc);
        const char *k1 = key_text(&ac, a);
        ck_assert_msg(strcmp(k0, k1) != 0, "%s%s%s: changing %s=%s leaves the key as it was",
                      t->name, part != NULL ? "/" : "", part != NULL ? part->name : "",
                      decls[i].name, changed.value[changed.n - 1]);
        if (decls[i].kind == PV_PARAM_UINT || decls[i].kind == PV_PARAM_SWITCH ||
            decls[i].kind == PV_PARAM_CHOICE) {
            given explicit = base;
            char def[32];
            if (decls[i].kind == PV_PARAM_CHOICE)
                snprintf(def, sizeof def, "%s", decls[i].choices[decls[i].def]);
            else
                snprintf(def, sizeof def, "%llu", (unsigned long long)decls[i].def);
            if (!decls[i].required)
                give(&explicit, decls[i].name, def);
            pv_params pe = {given_get, &explicit};
            pv_ask ae = ask_of(d, t, part, &pe);
            ck_assert_msg(strcmp(k0, key_text(&ae, a)) == 0,
                          "%s: %s=%s, its default, makes another key", t->name, decls[i].name,
                          def);
        }
    }
    /* a parameter the table does not declare never enters the key */
    given extra = base;
    give(&extra, "not_a_parameter", "1");
    pv_params px = {given_get, &extra};
    pv_ask ax = ask_of(d, t, part, &px);
    ck_assert_str_eq(key_text(&ax, a), k0);
    return n;
}

START_TEST(test_key_walks_every_declared_parameter)
{
    demo_host d;
    demo_host_init(&d, PROBED_ALL);
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    size_t n_tools, walked = 0, tables = 0;
    const pv_tool *const *tools = pv_tools(&n_tools);
    for (size_t i = 0; i < n_tools; i++) {
        const pv_tool *t = tools[i];
        bool from_model = false;
        if (pv_tool_from_models(t) && pv_host_answer(&d.host, t, &from_model) != NULL) {
            walked += walk(&d, t, NULL, t->params, t->n_params, &a);
            tables++;
        }
        for (size_t k = 0; k < t->n_parts; k++) {
            walked += walk(&d, t, &t->parts[k], t->parts[k].params, t->parts[k].n_params, &a);
            tables++;
        }
    }
    /* the walk reached the tables it is meant to: 13 tools the demo's
     * profile answers from its model (the trace viewer twice: whole and
     * streaming), the trace viewer's 5 parts and the module list; 34
     * parameters, a count by hand of the tables: 24 for the tools
     * (graph viewer 6, kernel stats, op stats, memory viewer and the
     * streaming trace 3 or 4 each, 5 tools 1 each), 10 for the parts
     * (tile 3, event 1, search 3, aggregate 3) */
    ck_assert_uint_eq(tables, 19);
    ck_assert_uint_eq(walked, 34);
    pv_arena_fini(&a);
}
END_TEST

/* ---- the rules ------------------------------------------------------------------------- */

static int ask_error(const pv_ask *ask, const char **title, pv_error *err)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_cache_key k;
    int rc = pv_answer_key_of(ask, &a, &k, title, err);
    pv_arena_fini(&a);
    return rc;
}

START_TEST(test_parameter_rules)
{
    demo_host d;
    demo_host_init(&d, PROBED_ALL);
    const pv_tool *tv = pv_tool_find("trace_viewer");
    const char *title = NULL;
    pv_error err = {0};
    given g = {0};
    pv_params p = {given_get, &g};
    /* a required parameter left out */
    pv_ask ask = ask_of(&d, tv, pv_tool_part_find(tv, "event"), &p);
    ck_assert_int_eq(ask_error(&ask, &title, &err), PV_EINVAL);
    ck_assert_str_eq(title, "missing parameter");
    ck_assert_str_eq(err.reason, "id is required");
    /* a value past its rule */
    give(&g, "limit", "1001");
    give(&g, "q", "conv");
    ask.part = pv_tool_part_find(tv, "search");
    ck_assert_int_eq(ask_error(&ask, &title, &err), PV_EINVAL);
    ck_assert_str_eq(title, "bad parameter");
    ck_assert_str_eq(err.reason, "limit must be a whole number from 0 to 1000");
    /* a minimum */
    given b = {0};
    give(&b, "buckets", "0");
    pv_params pb = {given_get, &b};
    pv_ask ab = ask_of(&d, pv_tool_find("device_utilization"), NULL, &pb);
    ck_assert_int_eq(ask_error(&ab, &title, &err), PV_EINVAL);
    ck_assert_str_eq(err.reason, "buckets must be a whole number from 1 to 100000");
    /* lists: numbers and commas only, each within the maximum */
    static const char *const bad_lists[] = {"", "1,", ",1", "1,,2", "a", "4294967296", "1 2"};
    for (size_t i = 0; i < sizeof bad_lists / sizeof bad_lists[0]; i++) {
        given l = {0};
        give(&l, "tracks", bad_lists[i]);
        pv_params pl = {given_get, &l};
        pv_ask al = ask_of(&d, tv, pv_tool_part_find(tv, "aggregate"), &pl);
        ck_assert_msg(ask_error(&al, &title, &err) == PV_EINVAL, "tracks=%s read", bad_lists[i]);
        ck_assert_str_eq(title, "bad parameter");
    }
    /* a CSV of a tool without a table */
    pv_ask csv = ask_of(&d, pv_tool_find("overview_page"), NULL, NULL);
    csv.form = PV_ANSWER_CSV;
    ck_assert_int_eq(ask_error(&csv, &title, &err), PV_ENOTFOUND);
    ck_assert_str_eq(title, "no CSV");
}
END_TEST

/* ---- answers ---------------------------------------------------------------------------- */

typedef struct fixture {
    char dir[64];
    pv_disk_cache disk;
    pv_answer_ctx ctx;
    pv_arena a;
} fixture;

static void fixture_init(fixture *f)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/pv-answer-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->dir));
    char cache[96];
    snprintf(cache, sizeof cache, "%s/cache", f->dir);
    pv_disk_cache_init(&f->disk, cache, PV_DISK_CACHE_MAX_AUTO);
    ck_assert_ptr_nonnull(f->disk.dir);
    f->ctx = (pv_answer_ctx){pv_model_store_new(0, &f->disk, NULL), &f->disk, NULL};
    pv_arena_init(&f->a, 1 << 16);
}

static void fixture_fini(fixture *f)
{
    pv_arena_fini(&f->a);
    pv_model_store_free(f->ctx.models);
    pv_disk_cache_fini(&f->disk);
    pv_test_remove_tree(f->dir);
}

/* The plain bytes of an answer, NUL-terminated, malloc'd. */
static char *plain_of(const pv_answer *ans, size_t *len)
{
    pv_buf raw;
    pv_buf_init(&raw, (size_t)1 << 30);
    if (ans->from_fd) {
        char *b = malloc(ans->len + 1);
        ck_assert_int_eq(pread(ans->fd, b, ans->len, (off_t)ans->offset), (ssize_t)ans->len);
        ck_assert_int_eq(pv_buf_add(&raw, b, ans->len), 0);
        free(b);
    } else {
        ck_assert_int_eq(pv_buf_add(&raw, ans->body, ans->len), 0);
    }
    pv_buf out;
    pv_buf_init(&out, (size_t)1 << 30);
    if (ans->gzip)
        ck_assert_int_eq(pv_gzip_decompress(raw.data, raw.len, &out, NULL, NULL), 0);
    else
        ck_assert_int_eq(pv_buf_add(&out, raw.data != NULL ? raw.data : "", raw.len), 0);
    pv_buf_fini(&raw);
    char *s = pv_buf_take(&out, len);
    return s != NULL ? s : calloc(1, 1);
}

static char *answer_text(fixture *f, const pv_ask *ask, pv_answer *ans, size_t *len)
{
    pv_error err = {0};
    int rc = pv_answer_get(&f->ctx, ask, &f->a, ans, NULL, &err);
    ck_assert_msg(rc == 0, "%s: %s", ask->tool->name, err.reason);
    return plain_of(ans, len);
}

/* What the tool's own writer gives for m (the answer layer's plumbing
 * must not change a byte of it). */
static char *written_by_tool(const pv_tool *t, const pv_model *m, size_t *len)
{
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    void *q = pv_arena_zalloc(&a, t->query_bytes + 1);
    pv_param_value *v = pv_arena_zalloc(&a, (t->n_params + 1) * sizeof *v);
    for (size_t i = 0; i < t->n_params; i++)
        v[i].u = t->params[i].def;
    pv_param_values vals = {t->params, v, t->n_params};
    if (t->make_query != NULL)
        ck_assert_int_eq(t->make_query(&vals, q, NULL), 0);
    const char *host = "vm";
    pv_tool_input in = {&m, &host, 1};
    void *result = NULL;
    if (t->compute != NULL)
        ck_assert_int_eq(t->compute(&in, q, &a, &result, NULL), 0);
    pv_buf out;
    pv_buf_init(&out, (size_t)1 << 30);
    ck_assert_int_eq(t->write_json(&in, q, result, &out, NULL), 0);
    pv_arena_fini(&a);
    return pv_buf_take(&out, len);
}

START_TEST(test_answer_from_model_source)
{
    fixture f;
    fixture_init(&f);
    demo_host d;
    demo_host_init(&d, pv_format_file_probe(pv_format_classify("vm.xplane.pb", &(size_t){0}),
                                            DEMO, 0));
    const pv_tool *t = pv_tool_find("framework_op_stats");
    pv_ask ask = ask_of(&d, t, NULL, NULL);
    ask.accepts_gzip = true;
    pv_answer first;
    size_t n1;
    char *made = answer_text(&f, &ask, &first, &n1);
    ck_assert(first.looked_up && !first.was_kept);
    ck_assert_uint_gt(first.kept_bytes, 0);
    /* the same bytes as the tool writes for the demo's model */
    pv_model *m = NULL;
    ck_assert_int_eq(pv_ingest_file(DEMO, NULL, &m, NULL), 0);
    size_t n_tool;
    char *tool = written_by_tool(t, m, &n_tool);
    pv_model_free(m);
    ck_assert_uint_eq(n1, n_tool);
    ck_assert(memcmp(made, tool, n1) == 0);
    /* a large answer goes gzip'd with the tag of its plain bytes */
    ck_assert(first.gzip);
    char tag[PV_KEPT_TAG_CHARS + 1];
    pv_kept_tag(made, n1, tag);
    ck_assert_str_eq(first.tag, tag);
    pv_answer_release(&first);
    /* asked again: found kept, sent from the cache's file */
    pv_answer again;
    size_t n2;
    char *kept = answer_text(&f, &ask, &again, &n2);
    ck_assert(again.was_kept && again.from_fd && again.gzip);
    ck_assert_str_eq(again.tag, tag);
    ck_assert_uint_eq(n2, n1);
    ck_assert(memcmp(kept, made, n1) == 0);
    pv_answer_release(&again);
    /* a client that holds it: nothing is sent */
    char inm[40];
    snprintf(inm, sizeof inm, "\"%s-gz\"", tag);
    ask.if_none_match = inm;
    pv_answer held;
    pv_error err = {0};
    ck_assert_int_eq(pv_answer_get(&f.ctx, &ask, &f.a, &held, NULL, &err), 0);
    ck_assert(held.not_modified && held.tag_gz);
    ck_assert_ptr_null(held.body);
    pv_answer_release(&held);
    /* a client without gzip: the same bytes, plain */
    ask.if_none_match = NULL;
    ask.accepts_gzip = false;
    pv_answer plain;
    size_t n3;
    char *p = answer_text(&f, &ask, &plain, &n3);
    ck_assert_uint_eq(n3, n1);
    ck_assert(memcmp(p, made, n1) == 0);
    pv_answer_release(&plain);
    free(p);
    free(kept);
    free(tool);
    free(made);
    fixture_fini(&f);
}
END_TEST

/* A per-tool JSON file, written here: the oracle is its bytes. */
START_TEST(test_answer_from_per_tool_file)
{
    fixture f;
    fixture_init(&f);
    static const char json[] = "{\"written\":\"by this test\"}";
    const char *path = pv_test_write_file(f.dir, "run/h.overview_page.json", json,
                                          strlen(json), 10);
    char *saved_path = strdup(path);
    struct stat st;
    ck_assert_int_eq(stat(saved_path, &st), 0);
    size_t host_len;
    pv_host_file file = {.path = saved_path,
                         .format = pv_format_classify("h.overview_page.json", &host_len),
                         .id = pv_file_id_of(&st)};
    ck_assert_int_eq(file.format->role, PV_FORMAT_TOOL_FILE);
    pv_host host = {.name = (char *)"h", .files = &file, .n_files = 1};
    const pv_host *hosts[] = {&host};
    pv_ask ask = {.tool = pv_tool_find("overview_page"), .form = PV_ANSWER_JSON, .run = "run",
                  .root = f.dir, .hosts = hosts, .n_hosts = 1};
    pv_answer ans;
    size_t n;
    char *body = answer_text(&f, &ask, &ans, &n);
    ck_assert(ans.from_fd && !ans.gzip && !ans.looked_up);
    ck_assert_uint_eq(n, strlen(json));
    ck_assert_str_eq(body, json);
    /* tagged by the file's identity: known without reading it */
    char ident[PV_SOURCE_IDENT_MAX];
    pv_source src = pv_host_file_source(&file, f.dir);
    pv_source_ident(&src, ident, sizeof ident);
    char starts[80];
    snprintf(starts, sizeof starts, "file run/h.overview_page.json:%zu:", strlen(json));
    ck_assert_msg(strncmp(ident, starts, strlen(starts)) == 0, "%s", ident);
    char tag[PV_KEPT_TAG_CHARS + 1];
    pv_kept_tag(ident, strlen(ident), tag);
    ck_assert_str_eq(ans.tag, tag);
    pv_answer_release(&ans);
    free(body);
    /* rewritten since the scan: refused, not read half old, half new */
    static const char other[] = "{\"written\":\"again, longer\"}";
    pv_test_write_file(f.dir, "run/h.overview_page.json", other, strlen(other), 10);
    pv_error err = {0};
    ck_assert_int_eq(pv_answer_get(&f.ctx, &ask, &f.a, &ans, NULL, &err), PV_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.reason, "changed"));
    free(saved_path);
    fixture_fini(&f);
}
END_TEST

/* ---- a second kind of source ------------------------------------------------------------ */

/* Bytes held in memory, named by a generation the holder counts up when
 * they change: what a profile captured from a running job is. */
typedef struct held_bytes {
    const uint8_t *data;
    size_t len;
    unsigned generation;
    unsigned decoded;         /* how many times the store asked for a model */
} held_bytes;

static void held_ident(const pv_source *s, char *buf, size_t cap)
{
    const held_bytes *h = s->ctx;
    snprintf(buf, cap, "%s#%u", s->path, h->generation);
}

static int held_model(const pv_source *s, pv_progress *progress, pv_model **out, pv_error *err)
{
    held_bytes *h = (held_bytes *)s->ctx;
    h->decoded++;
    return pv_ingest_buffer(h->data, h->len, s->path, progress, out, err);
}

static const pv_source_kind held_kind = {"held", held_ident, NULL, held_model};

START_TEST(test_answer_from_second_source_kind)
{
    fixture f;
    fixture_init(&f);
    size_t len;
    uint8_t *bytes = pv_test_read_file(DEMO, &len);
    held_bytes h = {bytes, len, 1, 0};
    size_t host_len;
    pv_host_file held = {.path = (char *)"capture-1",
                         .format = pv_format_classify("vm.xplane.pb", &host_len),
                         .id = {.size_bytes = len},
                         .source_kind = &held_kind,
                         .source_ctx = &h};
    pv_host host = {.name = (char *)"vm", .files = &held, .n_files = 1};
    const pv_host *hosts[] = {&host};
    const pv_tool *t = pv_tool_find("overview_page");
    pv_ask ask = {.tool = t, .form = PV_ANSWER_JSON, .run = "capture", .hosts = hosts,
                  .n_hosts = 1, .accepts_gzip = true};
    /* the oracle: the same bytes as a file */
    demo_host d;
    demo_host_init(&d, 0);
    pv_ask as_file = ask_of(&d, t, NULL, NULL);
    pv_answer a1, a2, a3;
    size_t n_file, n_held, n_again;
    char *from_file = answer_text(&f, &as_file, &a1, &n_file);
    char *from_held = answer_text(&f, &ask, &a2, &n_held);
    ck_assert(!a2.was_kept);
    ck_assert_uint_eq(n_held, n_file);
    ck_assert(memcmp(from_held, from_file, n_file) == 0);
    /* keyed by the kind's identity, and kept under it */
    pv_cache_key k;
    ck_assert_int_eq(pv_answer_key_of(&ask, &f.a, &k, NULL, NULL), 0);
    ck_assert_str_eq(k.source, "held capture-1#1");
    char *again = answer_text(&f, &ask, &a3, &n_again);
    ck_assert(a3.was_kept);
    ck_assert_uint_eq(h.decoded, 1);
    /* new bytes are a new key, and a new model, even while a request
     * still holds the model of the old ones */
    pv_source as_held = {.kind = &held_kind, .path = "capture-1", .id = held.id, .ctx = &h};
    const pv_model *old_model;
    pv_model_entry *old_entry;
    ck_assert_int_eq(pv_model_store_get(f.ctx.models, &as_held, &old_model, &old_entry, NULL), 0);
    h.generation = 2;
    ck_assert_int_eq(pv_answer_key_of(&ask, &f.a, &k, NULL, NULL), 0);
    ck_assert_str_eq(k.source, "held capture-1#2");
    pv_answer a4;
    size_t n4;
    char *fresh = answer_text(&f, &ask, &a4, &n4);
    ck_assert(!a4.was_kept);
    ck_assert_uint_eq(h.decoded, 2);
    pv_model_store_put(f.ctx.models, old_entry);
    pv_answer_release(&a1);
    pv_answer_release(&a2);
    pv_answer_release(&a3);
    pv_answer_release(&a4);
    free(fresh);
    free(again);
    free(from_held);
    free(from_file);
    pv_model_store_free(f.ctx.models);   /* before the bytes the source borrows */
    f.ctx.models = pv_model_store_new(0, &f.disk, NULL);
    free(bytes);
    fixture_fini(&f);
}
END_TEST

/* ---- a part tagged by its key ------------------------------------------------------------ */

START_TEST(test_part_tag_before_model)
{
    fixture f;
    fixture_init(&f);
    demo_host d;
    demo_host_init(&d, 0);
    const pv_tool *tv = pv_tool_find("trace_viewer");
    given g = {0};
    give(&g, "level", "2");
    give(&g, "index", "1");
    give(&g, "format", "bin");
    pv_params p = {given_get, &g};
    pv_ask ask = ask_of(&d, tv, pv_tool_part_find(tv, "tile"), &p);
    /* its tag is a hash of the program and the key */
    pv_cache_key k;
    ck_assert_int_eq(pv_answer_key_of(&ask, &f.a, &k, NULL, NULL), 0);
    char tag[24];
    uint64_t hash = pv_hash_bytes(PV_HASH_SEED, f.disk.program, strlen(f.disk.program) + 1);
    hash = pv_hash_bytes(hash, k.source, strlen(k.source) + 1);
    hash = pv_hash_bytes(hash, k.what, strlen(k.what));
    snprintf(tag, sizeof tag, "%016llx", (unsigned long long)hash);
    char inm[48];
    snprintf(inm, sizeof inm, "W/\"other\", \"%s\"", tag);
    ask.if_none_match = inm;
    pv_answer ans;
    pv_error err = {0};
    ck_assert_int_eq(pv_answer_get(&f.ctx, &ask, &f.a, &ans, NULL, &err), 0);
    ck_assert(ans.not_modified && !ans.tag_gz && ans.immutable);
    pv_store_stats st;
    pv_model_store_stats(f.ctx.models, &st);
    ck_assert_uint_eq(st.loads + st.in_flight, 0);
    pv_answer_release(&ans);
    fixture_fini(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("answer");
    TCase *tc = tcase_create("keys");
    tcase_add_test(tc, test_key_walks_every_declared_parameter);
    tcase_add_test(tc, test_parameter_rules);
    suite_add_tcase(s, tc);
    tc = tcase_create("answers");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_answer_from_model_source);
    tcase_add_test(tc, test_answer_from_per_tool_file);
    tcase_add_test(tc, test_answer_from_second_source_kind);
    tcase_add_test(tc, test_part_tag_before_model);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
