/* steps_memo: the step grouping and the host op table kept with the model
 * (model/memo.h). Both cost most of a second on a profile of a gigabyte
 * and are the same for every request of the overview, the input pipeline
 * analyzer and the XLA tables, so each is made once per model (and per
 * query for the steps), saved with it in the disk cache, and copied into
 * the caller's arena from then on.
 *
 * A memo's bytes: a head, fixed-size records, then the strings they name
 * (memo.h's packing). A memo that does not parse (a saved copy cut short)
 * is not used: the result is computed again. */
#include "tools/steps/steps_ops.h"

#include "model/memo.h"
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- steps ------------------------------------------------------------------ */

typedef struct steps_head {
    uint32_t hardware, n_device_planes;
    int64_t t0_ps;
    uint8_t has_trace_times, host_merged, derived_markers, pad[5];
    uint64_t n_groups, n_no_marker, n_not_compute, n_incomplete, n_steps;
} steps_head;

typedef struct step_rec {
    int64_t group_id, begin_ps, dur_ps;
    int64_t type_ps[PV_STEP_N_TYPES];
    uint64_t name;   /* offset into the pool */
} step_rec;

static int make_steps(const pv_model *m, void *arg, uint8_t **data, size_t *len, pv_error *err)
{
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_steps_result r;
    int rc = pv__steps_compute(m, arg, &a, &r, err);
    if (rc != 0) {
        pv_arena_fini(&a);
        return rc;
    }
    steps_head h = {r.hardware, r.n_device_planes, r.t0_ps, r.has_trace_times, r.host_merged,
                    r.derived_markers, {0}, r.n_groups, r.n_no_marker, r.n_not_compute,
                    r.n_incomplete, r.n_steps};
    pv_memo_packer recs = {0}, pool = {0};
    pv_memo_put(&recs, &h, sizeof h);
    for (size_t i = 0; i < r.n_steps; i++) {
        const pv_step *s = &r.steps[i];
        step_rec x = {s->group_id, s->begin_ps, s->dur_ps, {0}, pv_memo_put_str(&pool, s->name)};
        memcpy(x.type_ps, s->type_ps, sizeof x.type_ps);
        pv_memo_put(&recs, &x, sizeof x);
    }
    pv_memo_pack_finish(&recs, &pool, data, len);
    pv_arena_fini(&a);
    return 0;
}

/* Fills out from a steps memo; false when its bytes do not parse. */
static bool unpack_steps(const uint8_t *d, size_t len, pv_arena *a, pv_steps_result *out)
{
    steps_head h;
    pv_memo_reader r;
    if (!pv_memo_read_head(d, len, &h, sizeof h) ||
        !pv_memo_read_recs(d, len, sizeof h, h.n_steps, sizeof(step_rec), &r))
        return false;
    memset(out, 0, sizeof *out);
    out->hardware = h.hardware;
    out->n_device_planes = h.n_device_planes;
    out->t0_ps = h.t0_ps;
    out->has_trace_times = h.has_trace_times != 0;
    out->host_merged = h.host_merged != 0;
    out->derived_markers = h.derived_markers != 0;
    out->n_groups = h.n_groups;
    out->n_no_marker = h.n_no_marker;
    out->n_not_compute = h.n_not_compute;
    out->n_incomplete = h.n_incomplete;
    out->steps = pv_arena_zalloc(a, (h.n_steps ? h.n_steps : 1) * sizeof *out->steps);
    for (size_t i = 0; i < h.n_steps; i++) {
        step_rec x;
        pv_memo_read_rec(&r, i, &x);
        const char *name = pv_memo_read_str(&r, x.name, a);
        if (name == NULL)
            return false;
        pv_step *s = &out->steps[i];
        *s = (pv_step){x.group_id, name, x.begin_ps, x.dur_ps, {0}};
        memcpy(s->type_ps, x.type_ps, sizeof s->type_ps);
    }
    out->n_steps = h.n_steps;
    return true;
}

int pv__steps_kept(const pv_model *m, const pv_steps_query *q, pv_arena *a,
                   pv_steps_result *out, pv_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "steps/1 host%d drop%d", q->merge_host_with_device,
             q->drop_incomplete);
    const uint8_t *data;
    size_t len;
    bool owned;
    pv_steps_query copy = *q;
    int rc = pv_model_memo(m, name, make_steps, &copy, &data, &len, &owned, err);
    if (rc != 0)
        return rc;
    bool ok = unpack_steps(data, len, a, out);
    if (owned)
        free((void *)(uintptr_t)data);
    return ok ? 0 : pv__steps_compute(m, q, a, out, err);
}

/* ---- host ops ---------------------------------------------------------------- */

typedef struct ops_head {
    uint64_t n_ops;
    int64_t total_time_ps, op_time_ps, eager_self_ps;
} ops_head;

typedef struct op_rec {
    uint32_t category, is_eager;
    uint64_t occurrences;
    int64_t time_ps, self_time_ps;
    uint64_t name, type;   /* offsets into the pool */
} op_rec;

static int make_host_ops(const pv_model *m, void *arg, uint8_t **data, size_t *len,
                         pv_error *err)
{
    (void)arg;
    (void)err;
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_steps_op_db db;
    pv__steps_host_ops_compute(m, &a, &db);
    ops_head h = {db.n_ops, db.total_time_ps, db.op_time_ps, db.eager_self_ps};
    pv_memo_packer recs = {0}, pool = {0};
    pv_memo_put(&recs, &h, sizeof h);
    for (size_t i = 0; i < db.n_ops; i++) {
        const pv_steps_op *o = &db.ops[i];
        op_rec x = {o->category,     o->is_eager,          o->occurrences,
                    o->time_ps,      o->self_time_ps,      pv_memo_put_str(&pool, o->name),
                    pv_memo_put_str(&pool, o->type)};
        pv_memo_put(&recs, &x, sizeof x);
    }
    pv_memo_pack_finish(&recs, &pool, data, len);
    pv_arena_fini(&a);
    return 0;
}

static bool unpack_host_ops(const uint8_t *d, size_t len, pv_arena *a, pv_steps_op_db *out)
{
    ops_head h;
    pv_memo_reader r;
    if (!pv_memo_read_head(d, len, &h, sizeof h) ||
        !pv_memo_read_recs(d, len, sizeof h, h.n_ops, sizeof(op_rec), &r))
        return false;
    memset(out, 0, sizeof *out);
    out->total_time_ps = h.total_time_ps;
    out->op_time_ps = h.op_time_ps;
    out->eager_self_ps = h.eager_self_ps;
    out->ops = pv_arena_zalloc(a, (h.n_ops ? h.n_ops : 1) * sizeof *out->ops);
    for (size_t i = 0; i < h.n_ops; i++) {
        op_rec x;
        pv_memo_read_rec(&r, i, &x);
        const char *name = pv_memo_read_str(&r, x.name, a);
        const char *type = pv_memo_read_str(&r, x.type, a);
        if (name == NULL || type == NULL)
            return false;
        out->ops[i] = (pv_steps_op){name, type, x.category, x.is_eager != 0, x.occurrences,
                                    x.time_ps, x.self_time_ps};
    }
    out->n_ops = h.n_ops;
    return true;
}

void pv_steps_host_ops(const pv_model *m, pv_arena *a, pv_steps_op_db *out)
{
    const uint8_t *data;
    size_t len;
    bool owned;
    pv_error err = {0};
    if (pv_model_memo(m, "steps_host_ops/1", make_host_ops, NULL, &data, &len, &owned, &err) !=
        0) {
        pv__steps_host_ops_compute(m, a, out);
        return;
    }
    bool ok = unpack_host_ops(data, len, a, out);
    if (owned)
        free((void *)(uintptr_t)data);
    if (!ok)
        pv__steps_host_ops_compute(m, a, out);
}

void pv_steps_warm(const pv_model *m)
{
    pv_arena a;
    pv_arena_init(&a, 1 << 16);
    pv_steps_result r;
    pv_steps_op_db db;
    pv_error err = {0};
    pv_tool_steps(m, NULL, &a, &r, &err);
    pv_steps_host_ops(m, &a, &db);
    pv_arena_fini(&a);
}
