/* op_metrics: host and device op metrics databases (see op_metrics.h).
 *
 * Both builders work in two passes like kernel_stats: the per-event loop
 * keys ops by string ids only, and the few distinct ops are named and
 * merged by their parsed framework op name afterwards. */
#include "tools/op_stats/op_metrics.h"

#include "model/hlo_table.h"
#include "model/memo.h"
#include "tools/common/op_replay.h"
#include "tools/common/tf_op_name.h"
#include "tools/hlo/xla_ops.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#define MAX_OPS ((size_t)1 << 30)

/* ---- an insertion-ordered map from a key to an op slot ---------------------- */

/* An op being aggregated. Keys are either two string ids (pass 1) or a
 * string (pass 2); both live in the same struct to share one map. */
typedef struct op_acc {
    uint32_t sid;          /* pass 1: string id of the op's full name */
    uint32_t kernel;       /* pass 1: kernel name id (device); 0 on the host */
    const char *name;      /* pass 2: op name */
    size_t name_len;
    const char *type;      /* op type of the first occurrence */
    size_t type_len;
    bool no_provenance;    /* device: an HLO op without a framework op */
    uint64_t occurrences;
    uint64_t time_ps;
    uint64_t self_time_ps;
    double flops;          /* XLA ops' costs, summed (0 without) */
    double model_flops;
    double bytes;
    bool is_eager;
} op_acc;

typedef struct op_map {
    op_acc *ops;           /* n in first-seen order */
    size_t n;
    size_t cap;
    pv_hashtab index;      /* acc_hash -> index into ops */
    bool by_name;          /* key: (name, name_len) instead of (sid, kernel) */
} op_map;

static uint64_t acc_hash(const op_map *mp, const op_acc *k)
{
    if (mp->by_name)
        return pv_hash_bytes(PV_HASH_SEED, k->name, k->name_len);
    return pv_hash_u64((uint64_t)k->sid << 32 | k->kernel);
}

static bool acc_equal(const op_map *mp, const op_acc *a, const op_acc *b)
{
    if (mp->by_name)
        return a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0;
    return a->sid == b->sid && a->kernel == b->kernel;
}

/* The slot whose key equals k's, created as a zeroed copy of k's key when
 * new; NULL past MAX_OPS. */
static op_acc *map_get(op_map *mp, const op_acc *k)
{
    pv_hashtab_cursor c = pv_hashtab_probe(&mp->index, acc_hash(mp, k));
    uint32_t i;
    while (pv_hashtab_next(&c, &i))
        if (acc_equal(mp, &mp->ops[i], k))
            return &mp->ops[i];
    if (mp->n >= MAX_OPS)
        return NULL;
    if (mp->n == mp->cap) {
        mp->cap = mp->cap == 0 ? 64 : mp->cap * 2;
        mp->ops = pv_xrealloc(mp->ops, mp->cap * sizeof *mp->ops);
    }
    op_acc *o = &mp->ops[mp->n];
    memset(o, 0, sizeof *o);
    o->sid = k->sid;
    o->kernel = k->kernel;
    o->name = k->name;
    o->name_len = k->name_len;
    pv_hashtab_insert(&mp->index, &c, (uint32_t)mp->n);
    mp->n++;
    return o;
}

static void map_fini(op_map *mp)
{
    free(mp->ops);
    pv_hashtab_fini(&mp->index);
}

static int too_many(pv_error *err)
{
    return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET, "more than %zu distinct ops",
                        MAX_OPS);
}

/* ---- output ------------------------------------------------------------------ */

/* empty_type names ops without a type: the reference says "Unknown" on
 * the device side and leaves the host side's empty. */
static void db_emit(const op_map *mp, pv_arena *a, bool add_idle, uint64_t idle_ps,
                    const char *empty_type, pv_op_metrics_db *out)
{
    size_t n = mp->n + (add_idle ? 1 : 0);
    out->ops = pv_arena_zalloc(a, (n > 0 ? n : 1) * sizeof *out->ops);
    for (size_t i = 0; i < mp->n; i++) {
        const op_acc *o = &mp->ops[i];
        pv_op_metrics *r = &out->ops[i];
        r->name = pv_arena_strndup(a, o->name, o->name_len);
        r->type = o->type_len > 0 ? pv_arena_strndup(a, o->type, o->type_len) : empty_type;
        r->occurrences = o->occurrences;
        r->time_ps = o->time_ps;
        r->self_time_ps = o->self_time_ps;
        r->flops = o->flops;
        r->model_flops = o->model_flops;
        r->bytes = o->bytes;
        r->is_eager = o->is_eager;
    }
    if (add_idle) {
        pv_op_metrics *r = &out->ops[mp->n];
        r->name = "IDLE";
        r->type = "IDLE";
        r->time_ps = idle_ps;
        r->self_time_ps = idle_ps;
        r->is_idle = true;
    }
    out->n_ops = n;
}

/* ---- device ---------------------------------------------------------------- */

/* Keys of pass 1: framework-op events use (tf_op id, kernel name id); an
 * HLO op without a proto uses (hlo_op id, HLO_ONLY). String ids never
 * reach that value. */
#define HLO_ONLY UINT32_MAX

typedef struct dev_ctx {
    const pv_model *m;
    uint32_t level0;       /* string id of the "level 0" stat name; 0 none */
    op_map events;         /* pass 1 (see the keys above) */
    uint64_t total_ps;
    uint64_t op_ps;
} dev_ctx;

/* The string id naming the framework op of a device event, 0 when none.
 * *hlo_only is set when only an HLO op name is known. */
static uint32_t device_op_sid(const dev_ctx *c, uint64_t ev, const pv_event_extra *x,
                              bool *hlo_only)
{
    *hlo_only = false;
    if (x != NULL && x->tf_op != 0)
        return x->tf_op;
    if (x != NULL && x->hlo_op != 0) {
        *hlo_only = true;
        return x->hlo_op;
    }
    if (c->level0 == 0)
        return 0;
    pv_stat s;
    return pv_model_event_stat(c->m, ev, c->level0, &s) ? pv_model_stat_str_id(c->m, &s) : 0;
}

static int device_plane(dev_ctx *c, const pv_plane *pl, pv_error *err)
{
    const pv_model *m = c->m;
    int64_t first_ps = INT64_MAX;
    int64_t last_ps = INT64_MIN;
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        if (tr->kind != PV_TRACK_PLAIN)
            continue;
        for (uint64_t ev = tr->first_event; ev < tr->first_event + tr->n_events; ev++) {
            int64_t start = m->ev_start_ps[ev];
            int64_t dur = m->ev_dur_ps[ev] > 0 ? m->ev_dur_ps[ev] : 0;
            first_ps = start < first_ps ? start : first_ps;
            last_ps = start + dur > last_ps ? start + dur : last_ps;
            const pv_event_extra *x = pv_model_event_extra(m, ev);
            op_acc k = {0};
            bool hlo_only = false;
            k.sid = device_op_sid(c, ev, x, &hlo_only);
            if (k.sid == 0)
                continue;
            /* HLO-only ops are keyed without the kernel: their device op
             * is the HLO instruction, not "<op>/<kernel>". */
            k.kernel = hlo_only ? HLO_ONLY : m->metas[m->ev_meta[ev]].name;
            op_acc *o = map_get(&c->events, &k);
            if (o == NULL)
                return too_many(err);
            o->no_provenance = hlo_only;
            o->occurrences++;
            o->time_ps += (uint64_t)dur;
            o->self_time_ps += (uint64_t)dur;
            o->is_eager = x != NULL && (x->flags & PV_EXTRA_EAGER) != 0;
            c->op_ps += (uint64_t)dur;
        }
    }
    if (last_ps > first_ps)
        c->total_ps += (uint64_t)(last_ps - first_ps);
    return 0;
}

/* The last "::"-separated HLO op name (the innermost). */
static const char *last_hlo_name(const char *s, size_t *len)
{
    const char *p = s;
    const char *q;
    while ((q = strstr(p, "::")) != NULL)
        p = q + 2;
    *len = strlen(p);
    return p;
}

/* Adds device op d (named, typed) into its framework op in fw: the
 * reference's DeviceTfOpMetricsDbBuilder. The first device op decides the
 * type; occurrences are the largest of the device ops'. */
static int add_to_framework_op(op_map *fw, const char *name, size_t name_len, const char *type,
                               size_t type_len, const op_acc *d, pv_error *err)
{
    op_acc k = {.name = name, .name_len = name_len};
    op_acc *f = map_get(fw, &k);
    if (f == NULL)
        return too_many(err);
    if (f->kernel == 0) {
        f->kernel = 1;
        f->type = type;
        f->type_len = type_len;
    }
    f->occurrences = d->occurrences > f->occurrences ? d->occurrences : f->occurrences;
    f->time_ps += d->time_ps;
    f->self_time_ps += d->self_time_ps;
    f->flops += d->flops;
    f->model_flops += d->model_flops;
    f->bytes += d->bytes;
    f->is_eager = d->is_eager;
    return 0;
}

/* A profile whose device ran XLA programs: the device op metrics of
 * tools/hlo/xla_ops.h (which know HLO instructions, TPU ops and their
 * costs), re-aggregated by framework op. */
static int device_from_xla(const pv_model *m, pv_arena *a, pv_op_metrics_db *out, pv_error *err)
{
    pv_xla_op_db x;
    int rc = pv_xla_ops_build(m, a, &x, err);
    op_map fw = {.by_name = true};
    uint64_t idle_ps = 0;
    bool has_idle = false;
    for (size_t i = 0; i < x.n_ops && rc == 0; i++) {
        const pv_xla_op *op = &x.ops[i];
        if (op->is_idle) {
            has_idle = true;
            idle_ps += op->self_time_ps;
            continue;
        }
        op_acc d = {.occurrences = op->occurrences, .time_ps = op->time_ps,
                    .self_time_ps = op->self_time_ps, .flops = op->flops,
                    .model_flops = op->model_flops, .bytes = op->bytes,
                    .is_eager = op->is_eager};
        if (op->provenance[0] == '\0') {
            /* no framework op: the XLA op's own name, type unknown */
            rc = add_to_framework_op(&fw, op->name, strlen(op->name), "", 0, &d, err);
        } else {
            pv_tf_op tf;
            pv_tf_op_parse(op->provenance, strlen(op->provenance), &tf);
            rc = add_to_framework_op(&fw, tf.name, tf.name_len, tf.type, tf.type_len, &d, err);
        }
    }
    if (rc == 0) {
        db_emit(&fw, a, has_idle, idle_ps, "Unknown", out);
        out->total_time_ps = x.total_time_ps;
        out->total_op_time_ps = x.op_time_ps;
        out->env = x.env;
    }
    map_fini(&fw);
    return rc;
}

/* The device ran XLA programs: the profile carries their HLO, or has a
 * TPU (whose ops are XLA's). */
static bool runs_xla(const pv_model *m)
{
    for (uint32_t p = 0; p < m->n_planes; p++)
        if (m->planes[p].kind == PV_PLANE_TPU)
            return true;
    return pv_model_hlo(m)->n_modules > 0;
}

int pv_op_metrics_device(const pv_model *m, pv_arena *a, pv_op_metrics_db *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    if (runs_xla(m))
        return device_from_xla(m, a, out, err);
    dev_ctx c = {.m = m, .level0 = pv_model_str_find(m, "level 0")};
    uint32_t n_gpu = 0;
    int rc = 0;
    for (uint32_t p = 0; p < m->n_planes && rc == 0; p++) {
        if (m->planes[p].kind != PV_PLANE_GPU)
            continue;
        n_gpu++;
        rc = device_plane(&c, &m->planes[p], err);
    }
    /* Pass 2a: device ops "<op name>/<kernel>" (or the HLO op name). */
    op_map dev = {.by_name = true};
    for (size_t i = 0; i < c.events.n && rc == 0; i++) {
        const op_acc *e = &c.events.ops[i];
        const char *full = pv_model_str(m, e->sid);
        op_acc k = {0};
        if (e->no_provenance) {
            k.name = last_hlo_name(full, &k.name_len);
        } else {
            pv_tf_op op;
            pv_tf_op_parse(full, strlen(full), &op);
            const char *kern = pv_model_str(m, e->kernel);
            k.name = pv_arena_printf(a, "%.*s/%s", (int)op.name_len, op.name, kern);
            k.name_len = strlen(k.name);
        }
        op_acc *d = map_get(&dev, &k);
        if (d == NULL) {
            rc = too_many(err);
            break;
        }
        if (d->kernel == 0) {
            /* First time: this device op's framework op (its provenance)
             * is the first one seen, as in the reference. */
            d->kernel = 1;
            d->no_provenance = e->no_provenance;
            d->sid = e->sid;
        }
        d->occurrences += e->occurrences;
        d->time_ps += e->time_ps;
        d->self_time_ps += e->self_time_ps;
        d->is_eager = e->is_eager;
    }
    map_fini(&c.events);
    /* Pass 2b: framework ops. */
    op_map fw = {.by_name = true};
    for (size_t i = 0; i < dev.n && rc == 0; i++) {
        const op_acc *d = &dev.ops[i];
        if (d->no_provenance) {
            rc = add_to_framework_op(&fw, d->name, d->name_len, "", 0, d, err);
        } else {
            const char *full = pv_model_str(m, d->sid);
            pv_tf_op op;
            pv_tf_op_parse(full, strlen(full), &op);
            rc = add_to_framework_op(&fw, op.name, op.name_len, op.type, op.type_len, d, err);
        }
    }
    map_fini(&dev);
    if (rc == 0) {
        db_emit(&fw, a, n_gpu > 0, c.total_ps > c.op_ps ? c.total_ps - c.op_ps : 0, "Unknown",
                out);
        out->total_time_ps = c.total_ps;
        out->total_op_time_ps = c.op_ps;
        pv_perf_env_of(m, &out->env);
    }
    map_fini(&fw);
    return rc;
}

/* ---- host ------------------------------------------------------------------ */

/* An open EagerExecute event while walking a thread (see host_line). */
typedef struct eager_frame {
    int64_t end_ps;
    bool op_by_op;         /* is_func == 0: ops under it ran eagerly */
} eager_frame;

typedef struct host_ctx {
    const pv_model *m;
    uint8_t *meta_is_op;   /* per meta: 0 not computed, 1 no, 2 TF op, 3 other op */
    uint32_t eager_execute; /* string id of "EagerExecute"; 0 none */
    uint32_t is_func;      /* string id of "is_func"; 0 none */
    pv_op_replay replay;   /* of one line at a time */
    uint64_t line_op_ps;   /* the line's ops' self time so far */
    pv_error *err;
    eager_frame *eager;    /* scratch: open EagerExecute events */
    op_map ops;            /* keyed by (full-name string id, 0) */
    uint64_t total_ps;
    uint64_t op_ps;
    uint64_t idle_ps;
} host_ctx;

static bool meta_is_op(host_ctx *c, uint32_t meta)
{
    if (c->meta_is_op[meta] == 0) {
        const char *name = pv_model_str(c->m, c->m->metas[meta].name);
        pv_tf_op op;
        pv_tf_op_parse(name, strlen(name), &op);
        c->meta_is_op[meta] = name[0] == '\0' || op.category == PV_TF_OP_UNKNOWN ? 1
                              : op.category == PV_TF_OP_TENSORFLOW           ? 2
                                                                             : 3;
    }
    return c->meta_is_op[meta] >= 2;
}

/* True when an EagerExecute event ran op by op (is_func present and 0);
 * absent is_func, or 1, means a compiled function. */
static bool op_by_op(const host_ctx *c, uint64_t ev)
{
    pv_stat s;
    if (c->is_func == 0 || !pv_model_event_stat(c->m, ev, c->is_func, &s))
        return false;
    return (s.type == PV_STAT_I64 && s.v.i64 == 0) || (s.type == PV_STAT_U64 && s.v.u64 == 0);
}

/* A span of a line ended (op_replay.h): counted under its full name. */
static int op_done(void *ctx, uint32_t sid, bool eager, int64_t dur_ps, int64_t children_ps)
{
    host_ctx *c = ctx;
    uint64_t dur = (uint64_t)dur_ps;
    uint64_t self = dur_ps > children_ps ? (uint64_t)(dur_ps - children_ps) : 0;
    op_acc k = {.sid = sid};
    op_acc *o = map_get(&c->ops, &k);
    if (o == NULL)
        return too_many(c->err);
    o->occurrences++;
    o->time_ps += dur;
    o->self_time_ps += self;
    o->is_eager = o->is_eager || eager;
    c->line_op_ps += self;
    return 0;
}

static int host_line(host_ctx *c, const pv_track *tr)
{
    const pv_model *m = c->m;
    size_t n_eager = 0;
    int rc = 0;
    c->line_op_ps = 0;
    for (uint64_t ev = tr->first_event; ev < tr->first_event + tr->n_events && rc == 0; ev++) {
        int64_t start = m->ev_start_ps[ev];
        int64_t end = start + (m->ev_dur_ps[ev] > 0 ? m->ev_dur_ps[ev] : 0);
        const pv_event_extra *x = pv_model_event_extra(m, ev);
        uint32_t meta = m->ev_meta[ev];
        /* Events come by start (parents first): the EagerExecute events
         * still open are this event's EagerExecute ancestors. A TF op is
         * eager when its nearest one ran op by op (the reference's
         * grouping marks TfOpRun events so). */
        while (n_eager > 0 && c->eager[n_eager - 1].end_ps < end)
            n_eager--;
        bool eager = x != NULL && (x->flags & PV_EXTRA_EAGER) != 0;
        if (meta_is_op(c, meta)) {
            if (c->meta_is_op[meta] == 2 && n_eager > 0 && c->eager[n_eager - 1].op_by_op)
                eager = true;
            rc = pv_op_replay_add(&c->replay, m->metas[meta].name, eager, start, end);
        }
        if (c->eager_execute != 0 && m->metas[meta].name == c->eager_execute)
            c->eager[n_eager++] = (eager_frame){end, op_by_op(c, ev)};
        if (x != NULL && x->tf_op != 0 && pv_model_str(m, x->tf_op)[0] != '\0' && rc == 0)
            rc = pv_op_replay_add(&c->replay, x->tf_op, false, start, end);
    }
    int64_t span_ps = 0;
    int end_rc = pv_op_replay_thread_end(&c->replay, &span_ps);
    if (rc != 0 || end_rc != 0)
        return rc != 0 ? rc : end_rc;
    uint64_t span = (uint64_t)span_ps;
    c->total_ps += span;
    c->op_ps += c->line_op_ps;
    c->idle_ps += span > c->line_op_ps ? span - c->line_op_ps : 0;
    return 0;
}

static int host_compute(const pv_model *m, pv_arena *a, pv_op_metrics_db *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    host_ctx c = {.m = m, .err = err};
    pv_op_replay_init(&c.replay, op_done, &c);
    c.meta_is_op = pv_xcalloc(m->n_metas > 0 ? m->n_metas : 1, 1);
    uint64_t max_events = 0;
    bool any_line = false;
    for (uint32_t p = 0; p < m->n_planes; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->kind != PV_PLANE_HOST)
            continue;
        any_line = any_line || pl->n_tracks > 0;
        for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++)
            if (m->tracks[t].n_events > max_events)
                max_events = m->tracks[t].n_events;
    }
    c.eager = pv_xmalloc((size_t)(max_events + 1) * sizeof *c.eager);
    c.eager_execute = pv_model_str_find(m, "EagerExecute");
    c.is_func = pv_model_str_find(m, "is_func");
    int rc = 0;
    for (uint32_t p = 0; p < m->n_planes && rc == 0; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->kind != PV_PLANE_HOST)
            continue;
        for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks && rc == 0; t++)
            if (m->tracks[t].kind == PV_TRACK_PLAIN)
                rc = host_line(&c, &m->tracks[t]);
    }
    pv_op_replay_fini(&c.replay);
    free(c.eager);
    free(c.meta_is_op);
    /* Pass 2: merge by parsed op name. */
    op_map byname = {.by_name = true};
    for (size_t i = 0; i < c.ops.n && rc == 0; i++) {
        const op_acc *e = &c.ops.ops[i];
        const char *full = pv_model_str(m, e->sid);
        pv_tf_op op;
        pv_tf_op_parse(full, strlen(full), &op);
        op_acc k = {.name = op.name, .name_len = op.name_len};
        op_acc *o = map_get(&byname, &k);
        if (o == NULL) {
            rc = too_many(err);
            break;
        }
        if (o->type_len == 0) {
            /* The first non-empty type: the reference only sets an op's
             * category while it is still empty. */
            o->type = op.type;
            o->type_len = op.type_len;
        }
        o->occurrences += e->occurrences;
        o->time_ps += e->time_ps;
        o->self_time_ps += e->self_time_ps;
        o->is_eager = o->is_eager || e->is_eager;
    }
    map_fini(&c.ops);
    if (rc == 0) {
        db_emit(&byname, a, any_line, c.idle_ps, "", out);
        out->total_time_ps = c.total_ps;
        out->total_op_time_ps = c.op_ps;
    }
    map_fini(&byname);
    return rc;
}

/* The host's table is the same for every request of a model and costs
 * most of framework_op_stats' second on a big profile, so it is a memo
 * (model/memo.h): a head, a record per op, then the strings they name. */
#define HOST_MEMO "op_metrics_host/1"
#define NO_STRING UINT64_MAX

typedef struct host_head {
    uint64_t n_ops, total_time_ps, total_op_time_ps;
} host_head;

typedef struct host_rec {
    uint64_t occurrences, time_ps, self_time_ps;
    double flops, model_flops, bytes;
    uint32_t is_eager, is_idle;
    uint64_t name, type, group_value;   /* offsets into the pool; NO_STRING: NULL */
} host_rec;

static uint64_t put_opt(pv_memo_packer *pool, const char *s)
{
    return s != NULL ? pv_memo_put_str(pool, s) : NO_STRING;
}

static int make_host(const pv_model *m, void *arg, uint8_t **data, size_t *len, pv_error *err)
{
    (void)arg;
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_op_metrics_db db;
    int rc = host_compute(m, &a, &db, err);
    if (rc != 0) {
        pv_arena_fini(&a);
        return rc;
    }
    host_head h = {db.n_ops, db.total_time_ps, db.total_op_time_ps};
    pv_memo_packer recs = {0}, pool = {0};
    pv_memo_put(&recs, &h, sizeof h);
    for (size_t i = 0; i < db.n_ops; i++) {
        const pv_op_metrics *o = &db.ops[i];
        host_rec x = {o->occurrences, o->time_ps, o->self_time_ps, o->flops, o->model_flops,
                      o->bytes, o->is_eager, o->is_idle, put_opt(&pool, o->name),
                      put_opt(&pool, o->type), put_opt(&pool, o->group_value)};
        pv_memo_put(&recs, &x, sizeof x);
    }
    pv_memo_pack_finish(&recs, &pool, data, len);
    pv_arena_fini(&a);
    return 0;
}

/* One string of a record into the arena; false when it is not in the pool. */
static bool get_opt(const pv_memo_reader *r, uint64_t off, pv_arena *a, const char **out)
{
    *out = off == NO_STRING ? NULL : pv_memo_read_str(r, off, a);
    return off == NO_STRING || *out != NULL;
}

static bool unpack_host(const uint8_t *d, size_t len, pv_arena *a, pv_op_metrics_db *out)
{
    host_head h;
    pv_memo_reader r;
    if (!pv_memo_read_head(d, len, &h, sizeof h) ||
        !pv_memo_read_recs(d, len, sizeof h, h.n_ops, sizeof(host_rec), &r))
        return false;
    memset(out, 0, sizeof *out);
    out->total_time_ps = h.total_time_ps;
    out->total_op_time_ps = h.total_op_time_ps;
    out->ops = pv_arena_zalloc(a, (h.n_ops ? h.n_ops : 1) * sizeof *out->ops);
    for (size_t i = 0; i < h.n_ops; i++) {
        host_rec x;
        pv_memo_read_rec(&r, i, &x);
        pv_op_metrics *o = &out->ops[i];
        *o = (pv_op_metrics){.occurrences = x.occurrences, .time_ps = x.time_ps,
                             .self_time_ps = x.self_time_ps, .flops = x.flops,
                             .model_flops = x.model_flops, .bytes = x.bytes,
                             .is_eager = x.is_eager != 0, .is_idle = x.is_idle != 0};
        if (!get_opt(&r, x.name, a, &o->name) || !get_opt(&r, x.type, a, &o->type) ||
            !get_opt(&r, x.group_value, a, &o->group_value))
            return false;
    }
    out->n_ops = h.n_ops;
    return true;
}

int pv_op_metrics_host(const pv_model *m, pv_arena *a, pv_op_metrics_db *out, pv_error *err)
{
    const uint8_t *data;
    size_t len;
    bool owned;
    int rc = pv_model_memo(m, HOST_MEMO, make_host, NULL, &data, &len, &owned, err);
    if (rc != 0)
        return rc;
    bool ok = unpack_host(data, len, a, out);
    if (owned)
        free((void *)(uintptr_t)data);
    return ok ? 0 : host_compute(m, a, out, err);
}

/* ---- ordering ----------------------------------------------------------------- */

static int cmp_self_desc(const void *pa, const void *pb)
{
    const pv_op_metrics *a = pa;
    const pv_op_metrics *b = pb;
    if (a->self_time_ps != b->self_time_ps)
        return a->self_time_ps > b->self_time_ps ? -1 : 1;
    return strcmp(a->name, b->name);
}

void pv_op_metrics_sort(pv_op_metrics_db *db)
{
    pv_sort(db->ops, db->n_ops, sizeof *db->ops, cmp_self_desc);
}
