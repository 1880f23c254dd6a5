/* xla_ops: the device op metrics database (xla_ops.h). Ops are keyed by
 * (program id, name) in one table for all planes; a GPU event finds its
 * instruction through the HLO index, a TPU event its metadata's stats,
 * each metadata read once (a per-metadata memo). */
#include "tools/hlo/xla_ops.h"

#include "tools/common/hlo_names.h"
#include "tools/common/tf_op_name.h"
#include "tools/hlo/hlo_cost.h"
#include "tools/hlo/hlo_text.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/mem.h"
#include "util/pbwire.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPS ((size_t)1 << 28)

/* ---- the ops table ------------------------------------------------------------------ */

typedef struct op_table {
    pv_xla_op *ops;
    size_t n, cap;
    pv_hashtab index;   /* hash of (program, name) -> index into ops */
} op_table;

static uint64_t key_hash(uint64_t program_id, const char *name)
{
    return pv_hash_bytes(pv_hash_u64(program_id), name, strlen(name));
}

/* The op (program_id, name), added zeroed with these keys when new; NULL
 * past MAX_OPS. */
static pv_xla_op *op_get(op_table *t, uint64_t program_id, const char *name)
{
    pv_hashtab_cursor c = pv_hashtab_probe(&t->index, key_hash(program_id, name));
    uint32_t i;
    while (pv_hashtab_next(&c, &i))
        if (t->ops[i].program_id == program_id && strcmp(t->ops[i].name, name) == 0)
            return &t->ops[i];
    if (t->n >= MAX_OPS)
        return NULL;
    if (t->n == t->cap) {
        t->cap = t->cap > 0 ? 2 * t->cap : 64;
        t->ops = pv_xrealloc(t->ops, t->cap * sizeof *t->ops);
    }
    pv_xla_op *op = &t->ops[t->n];
    memset(op, 0, sizeof *op);
    op->program_id = program_id;
    op->name = name;
    op->expression = op->category = op->provenance = op->deduplicated_name = "";
    op->source_file = op->source_stack = "";
    op->source_line = -1;
    op->instr = PV_HLO_NONE;
    op->meta = UINT32_MAX;
    pv_hashtab_insert(&t->index, &c, (uint32_t)t->n);
    t->n++;
    return op;
}

static int too_many(pv_error *err)
{
    return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET, "more than %zu distinct device ops",
                        MAX_OPS);
}

/* ---- GPU ------------------------------------------------------------------------------ */

/* Fills a new GPU op's fields from its instruction. */
static void gpu_op_init(pv_xla_op *op, const pv_hlo_index *x, uint32_t i, pv_arena *a)
{
    const pv_hlo_instruction *in = &x->t->instructions[i];
    op->instr = i;
    op->category = pv_hlo_category(x, i);
    pv_hlo_instr tf = {0, in->name, in->op_name, in->op_type, in->source_file, 0};
    op->provenance = pv_hlo_instr_tf_op(&tf, a);
    op->deduplicated_name = in->deduplicated_name;
    if (in->source_file[0] != '\0') {
        op->source_file = in->source_file;
        op->source_line = in->source_line;
    }
    op->source_stack =
        pv_hlo_frame_stack(&x->t->modules[pv_hlo_index_module(x, i)], in->stack_frame_id, a);
    pv_buf b;
    pv_buf_init(&b, (size_t)1 << 20);
    pv_hlo_print p = {true, true};
    if (pv_hlo_text_instr(x, i, &p, &b) == 0 && b.len > 0)
        op->expression = pv_arena_strndup(a, b.data, b.len);
    pv_buf_fini(&b);
}

/* The instruction an XLA event names: the last "::"-separated name of its
 * hlo_op in its program. */
static uint32_t event_instr(const pv_model *m, const pv_hlo_index *x, uint32_t s_program,
                            uint64_t ev, const pv_event_extra *e, uint64_t *program)
{
    pv_stat s;
    if (e == NULL || e->hlo_op == 0 || s_program == 0 ||
        !pv_model_event_stat(m, ev, s_program, &s) ||
        (s.type != PV_STAT_I64 && s.type != PV_STAT_U64))
        return PV_HLO_NONE;
    *program = s.type == PV_STAT_I64 ? (uint64_t)s.v.i64 : s.v.u64;
    const char *name = pv_model_str(m, e->hlo_op);
    const char *q;
    while ((q = strstr(name, "::")) != NULL)
        name = q + 2;
    return pv_hlo_index_find(x, *program, name, strlen(name));
}

typedef struct build {
    const pv_model *m;
    pv_arena *a;
    pv_xla_op_db *db;
    op_table ops;
    uint32_t s_program;
} build;

static int gpu_plane(build *b, const pv_plane *pl, pv_error *err)
{
    const pv_model *m = b->m;
    const pv_hlo_index *x = &b->db->hlo;
    int64_t first = INT64_MAX, last = INT64_MIN;
    uint64_t plane_op_ps = 0;
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        if (tr->kind != PV_TRACK_PLAIN)
            continue;
        for (uint64_t ev = tr->first_event; ev < tr->first_event + tr->n_events; ev++) {
            int64_t start = m->ev_start_ps[ev];
            uint64_t dur = m->ev_dur_ps[ev] > 0 ? (uint64_t)m->ev_dur_ps[ev] : 0;
            first = start < first ? start : first;
            last = start + (int64_t)dur > last ? start + (int64_t)dur : last;
            const pv_event_extra *e = pv_model_event_extra(m, ev);
            uint64_t program = 0;
            uint32_t i = event_instr(m, x, b->s_program, ev, e, &program);
            pv_xla_op *op;
            if (i != PV_HLO_NONE) {
                op = op_get(&b->ops, program, x->t->instructions[i].name);
                if (op == NULL)
                    return too_many(err);
                if (op->occurrences == 0 && op->instr == PV_HLO_NONE)
                    gpu_op_init(op, x, i, b->a);
            } else if (e != NULL && e->hlo_op != 0) {
                /* an XLA op whose instruction no proto has: XProf drops it */
                continue;
            } else if (e != NULL && e->tf_op != 0 && pv_model_str(m, e->tf_op)[0] != '\0') {
                /* a framework op's kernel: "<op name>/<kernel>", its type */
                const char *full = pv_model_str(m, e->tf_op);
                pv_tf_op tf;
                pv_tf_op_parse(full, strlen(full), &tf);
                const char *name = pv_arena_printf(b->a, "%.*s/%s", (int)tf.name_len, tf.name,
                                                   pv_model_event_name(m, ev));
                op = op_get(&b->ops, 0, name);
                if (op == NULL)
                    return too_many(err);
                if (op->occurrences == 0) {
                    op->category = tf.type_len > 0
                                       ? pv_arena_strndup(b->a, tf.type, tf.type_len)
                                       : "unknown";
                    op->provenance = full;
                }
            } else {
                continue;
            }
            op->occurrences++;
            op->time_ps += dur;
            op->self_time_ps += dur;
            op->is_eager = op->is_eager || (e->flags & PV_EXTRA_EAGER) != 0;
            plane_op_ps += dur;
        }
    }
    if (last > first) {
        b->db->total_time_ps += (uint64_t)(last - first);
        b->db->op_time_ps += plane_op_ps;
    }
    return 0;
}

/* A GPU op's flops and bytes: its instruction's cost per run, times its
 * runs; its HBM bytes are the cost's own count (hlo_cost.h). */
static void gpu_costs(pv_xla_op_db *db, op_table *t)
{
    for (size_t k = 0; k < t->n; k++) {
        pv_xla_op *op = &t->ops[k];
        if (op->instr == PV_HLO_NONE)
            continue;
        pv_hlo_cost c;
        pv_hlo_cost_of(&db->hlo, op->instr, &c);
        double n = (double)op->occurrences;
        op->flops = op->model_flops = c.flops * n;
        op->bytes = c.bytes * n;
        op->mem_bytes[PV_MEM_HBM] = c.hbm_bytes * n;
        op->has_mem_breakdown = true;
    }
}

/* ---- TPU ------------------------------------------------------------------------------ */

/* What a TPU op's metadata says, read once per metadata. */
typedef struct tpu_meta {
    bool read;
    uint64_t program_id;
    const char *name, *expression, *category, *provenance, *source_file, *source_stack;
    const char *deduplicated_name;
    int32_t source_line;
    double flops, model_flops, bytes;
    double mem_bytes[PV_MEM_COUNT];
    bool has_breakdown;
} tpu_meta;

/* The stat ids the TPU reader compares. */
typedef struct tpu_ids {
    uint32_t category, tf_op, flops, model_flops, bytes, breakdown, source, stack, dedup;
    uint32_t dev_offset, dev_duration, program;
} tpu_ids;

static void tpu_ids_find(const pv_model *m, tpu_ids *ids)
{
    *ids = (tpu_ids){pv_model_str_find(m, "hlo_category"),
                     pv_model_str_find(m, "tf_op"),
                     pv_model_str_find(m, "flops"),
                     pv_model_str_find(m, "model_flops"),
                     pv_model_str_find(m, "bytes_accessed"),
                     pv_model_str_find(m, "memory_access_breakdown"),
                     pv_model_str_find(m, "source"),
                     pv_model_str_find(m, "source_stack"),
                     pv_model_str_find(m, "deduplicated_name"),
                     pv_model_str_find(m, "device_offset_ps"),
                     pv_model_str_find(m, "device_duration_ps"),
                     pv_model_str_find(m, "program_id")};
}

static double stat_num(const pv_stat *s)
{
    switch (s->type) {
    case PV_STAT_I64: return (double)s->v.i64;
    case PV_STAT_U64: return (double)s->v.u64;
    case PV_STAT_F64: return s->v.f64;
    default: return 0;
    }
}

/* Adds a serialized MemoryAccessBreakdown's bytes (repeated MemoryAccessed
 * memory_accessed = 1 {operation_type 1: READ 1 / WRITE 2, memory_space
 * 2: HBM 1 / CMEM 2 / VMEM 3, bytes_accessed 3}) to mem. True when it
 * reads and lists at least one entry (an empty breakdown says nothing:
 * the op's bytes then all count as HBM bytes). */
static bool read_breakdown(const uint8_t *p, size_t len, double *mem)
{
    size_t n = 0;
    const uint8_t *end = p + len;
    pv_pb_field f;
    pv_pb_status st;
    while ((st = pv_pb_field_in(&p, end, end, &f)) == PV_PB_OK) {
        if (f.num != 1 || f.wt != 2)
            continue;
        const uint8_t *q = f.data, *qend = f.data + f.v;
        uint64_t v[4] = {0, 0, 0, 0};
        pv_pb_field g;
        while ((st = pv_pb_field_in(&q, qend, qend, &g)) == PV_PB_OK)
            if (g.wt == 0 && g.num >= 1 && g.num <= 3)
                v[g.num] = g.v;
        if (st != PV_PB_END)
            return false;
        n++;
        double bytes = (double)v[3];
        if (v[2] == 1)
            mem[PV_MEM_HBM] += bytes;
        else if (v[2] == 2)
            mem[v[1] == 2 ? PV_MEM_CMEM_WR : PV_MEM_CMEM_RD] += bytes;
        else if (v[2] == 3)
            mem[v[1] == 2 ? PV_MEM_VMEM_WR : PV_MEM_VMEM_RD] += bytes;
    }
    return st == PV_PB_END && n > 0;
}

/* "path/file.py:37" into file and line; false when it has no line. */
static bool split_source(const char *s, size_t len, pv_arena *a, tpu_meta *out)
{
    const char *colon = NULL;
    for (size_t i = 0; i < len; i++)
        if (s[i] == ':')
            colon = s + i;
    if (colon == NULL || colon + 1 == s + len)
        return false;
    char *end;
    long line = strtol(colon + 1, &end, 10);
    if (end != s + len)
        return false;
    out->source_file = pv_arena_strndup(a, s, (size_t)(colon - s));
    out->source_line = (int32_t)line;
    return true;
}

static void tpu_meta_read(const pv_model *m, const tpu_ids *ids, uint32_t mi, pv_arena *a,
                          tpu_meta *t)
{
    const pv_event_meta *md = &m->metas[mi];
    memset(t, 0, sizeof *t);
    t->read = true;
    t->expression = t->category = t->provenance = t->source_file = t->source_stack = "";
    t->deduplicated_name = "";
    t->source_line = 0;   /* a TPU op without a source reads as line 0 */
    t->name = pv_model_str(m, md->name);
    if (md->display_name != 0) {
        t->expression = t->name;
        t->name = pv_model_str(m, md->display_name);
    }
    for (uint32_t k = 0; k < md->n_stats; k++) {
        const pv_stat *s = &m->stats[md->first_stat + k];
        size_t len = 0;
        const char *text = pv_model_stat_text(m, s, &len);
        if (s->name == ids->program && (s->type == PV_STAT_I64 || s->type == PV_STAT_U64))
            t->program_id = s->type == PV_STAT_I64 ? (uint64_t)s->v.i64 : s->v.u64;
        else if (s->name == ids->category && text != NULL)
            t->category = pv_arena_strndup(a, text, len);
        else if (s->name == ids->tf_op && text != NULL)
            t->provenance = pv_arena_strndup(a, text, len);
        else if (s->name == ids->flops)
            t->flops = stat_num(s);
        else if (s->name == ids->model_flops)
            t->model_flops = stat_num(s);
        else if (s->name == ids->bytes)
            t->bytes = stat_num(s);
        else if (s->name == ids->breakdown && text != NULL)
            t->has_breakdown = read_breakdown((const uint8_t *)text, len, t->mem_bytes);
        else if (s->name == ids->source && text != NULL)
            split_source(text, len, a, t);
        else if (s->name == ids->stack && text != NULL)
            t->source_stack = pv_arena_strndup(a, text, len);
        else if (s->name == ids->dedup && text != NULL)
            t->deduplicated_name = pv_arena_strndup(a, text, len);
    }
}

/* One TPU event being timed: its op and its children's time. */
typedef struct tpu_frame {
    pv_xla_op *op;
    const tpu_meta *meta;
    int64_t start, end;
    uint64_t children_ps;
} tpu_frame;

static void tpu_finish(tpu_frame *f)
{
    uint64_t dur = (uint64_t)(f->end - f->start);
    pv_xla_op *op = f->op;
    op->occurrences++;
    op->time_ps += dur;
    op->self_time_ps += dur > f->children_ps ? dur - f->children_ps : 0;
}

static int tpu_line(build *b, const pv_track *tr, const tpu_ids *ids, tpu_meta *memo,
                    tpu_frame *stack, int64_t *first, int64_t *last, pv_error *err)
{
    const pv_model *m = b->m;
    size_t depth = 0;
    for (uint64_t ev = tr->first_event; ev < tr->first_event + tr->n_events; ev++) {
        int64_t start = m->ev_start_ps[ev], dur = m->ev_dur_ps[ev] > 0 ? m->ev_dur_ps[ev] : 0;
        pv_stat s;
        /* the device's own clock, when the event states it */
        if (ids->dev_offset != 0 && ids->dev_duration != 0 &&
            pv_model_event_stat(m, ev, ids->dev_offset, &s)) {
            int64_t off = (int64_t)stat_num(&s);
            if (pv_model_event_stat(m, ev, ids->dev_duration, &s)) {
                start = off;
                dur = (int64_t)stat_num(&s);
            }
        }
        int64_t end = start + dur;
        *first = start < *first ? start : *first;
        *last = end > *last ? end : *last;
        uint32_t mi = m->ev_meta[ev];
        tpu_meta *t = &memo[mi];
        if (!t->read)
            tpu_meta_read(m, ids, mi, b->a, t);
        pv_xla_op *op = op_get(&b->ops, t->program_id, t->name);
        if (op == NULL)
            return too_many(err);
        if (op->occurrences == 0 && op->category[0] == '\0') {
            op->meta = mi;
            op->expression = t->expression;
            op->category = t->category;
            op->provenance = t->provenance;
            op->deduplicated_name = t->deduplicated_name;
            op->source_file = t->source_file;
            op->source_line = t->source_line;
            op->source_stack = t->source_stack;
        }
        /* the runs per occurrence: flops and bytes are per run */
        op->flops += t->flops;
        op->model_flops += t->model_flops > 0 ? t->model_flops : t->flops;
        op->bytes += t->bytes;
        for (int k = 0; k < PV_MEM_COUNT; k++)
            op->mem_bytes[k] += t->mem_bytes[k];
        op->has_mem_breakdown = op->has_mem_breakdown || t->has_breakdown;
        while (depth > 0 && !(stack[depth - 1].start <= start && end <= stack[depth - 1].end))
            tpu_finish(&stack[--depth]);
        if (depth > 0)
            stack[depth - 1].children_ps += (uint64_t)dur;
        stack[depth++] = (tpu_frame){op, t, start, end, 0};
    }
    while (depth > 0)
        tpu_finish(&stack[--depth]);
    return 0;
}

static int tpu_plane(build *b, const pv_plane *pl, const tpu_ids *ids, tpu_meta *memo,
                     pv_error *err)
{
    const pv_model *m = b->m;
    int64_t first = INT64_MAX, last = INT64_MIN;
    size_t before_ps = 0;
    for (size_t k = 0; k < b->ops.n; k++)
        before_ps += b->ops.ops[k].self_time_ps;
    for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks; t++) {
        const pv_track *tr = &m->tracks[t];
        const char *name = pv_model_str(m, tr->name);
        if (strcmp(name, "Steps") == 0) {
            for (uint64_t ev = tr->first_event; ev < tr->first_event + tr->n_events; ev++) {
                int64_t s = m->ev_start_ps[ev];
                first = s < first ? s : first;
                last = s + m->ev_dur_ps[ev] > last ? s + m->ev_dur_ps[ev] : last;
            }
            continue;
        }
        if (strcmp(name, "XLA Ops") != 0 || tr->n_events == 0)
            continue;
        tpu_frame *stack = pv_xmalloc((size_t)tr->n_events * sizeof *stack);
        int rc = tpu_line(b, tr, ids, memo, stack, &first, &last, err);
        free(stack);
        if (rc != 0)
            return rc;
    }
    size_t after_ps = 0;
    for (size_t k = 0; k < b->ops.n; k++)
        after_ps += b->ops.ops[k].self_time_ps;
    if (last > first) {
        b->db->total_time_ps += (uint64_t)(last - first);
        b->db->op_time_ps += after_ps - before_ps;
    }
    return 0;
}

/* ---- the database --------------------------------------------------------------------- */

static int cmp_ops(const void *pa, const void *pb)
{
    const pv_xla_op *a = pa, *b = pb;
    if (a->is_idle != b->is_idle)
        return a->is_idle ? 1 : -1;
    if (a->self_time_ps != b->self_time_ps)
        return a->self_time_ps > b->self_time_ps ? -1 : 1;
    if (a->program_id != b->program_id)
        return a->program_id < b->program_id ? -1 : 1;
    return strcmp(a->name, b->name);
}

int pv_xla_ops_build(const pv_model *m, pv_arena *a, pv_xla_op_db *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_perf_env_of(m, &out->env);
    pv_hlo_index_build(m, a, &out->hlo);
    build b = {m, a, out, {0}, pv_model_str_find(m, "program_id")};
    tpu_ids ids;
    tpu_ids_find(m, &ids);
    tpu_meta *memo = NULL;
    bool any_device = false;
    int rc = 0;
    for (uint32_t p = 0; p < m->n_planes && rc == 0; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->kind == PV_PLANE_GPU) {
            any_device = true;
            rc = gpu_plane(&b, pl, err);
        } else if (pl->kind == PV_PLANE_TPU) {
            any_device = true;
            if (memo == NULL)
                memo = pv_xcalloc(m->n_metas > 0 ? m->n_metas : 1, sizeof *memo);
            rc = tpu_plane(&b, pl, &ids, memo, err);
        }
    }
    free(memo);
    if (rc == 0 && any_device) {
        gpu_costs(out, &b.ops);
        pv_xla_op *idle = op_get(&b.ops, 0, "IDLE");
        if (idle == NULL) {
            rc = too_many(err);
        } else {
            idle->category = "IDLE";
            idle->is_idle = true;
            idle->time_ps = idle->self_time_ps =
                out->total_time_ps > out->op_time_ps ? out->total_time_ps - out->op_time_ps : 0;
        }
    }
    if (rc == 0 && b.ops.n > 0) {
        out->ops = pv_arena_alloc(a, b.ops.n * sizeof *out->ops);
        memcpy(out->ops, b.ops.ops, b.ops.n * sizeof *out->ops);
        out->n_ops = b.ops.n;
        pv_sort(out->ops, out->n_ops, sizeof *out->ops, cmp_ops);
    }
    free(b.ops.ops);
    pv_hashtab_fini(&b.ops.index);
    return rc;
}

/* ---- source cells ----------------------------------------------------------------------- */

static void add_escaped(pv_buf *b, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&': pv_buf_adds(b, "&amp;"); break;
        case '<': pv_buf_adds(b, "&lt;"); break;
        case '>': pv_buf_adds(b, "&gt;"); break;
        case '"': pv_buf_adds(b, "&quot;"); break;
        case '\'': pv_buf_adds(b, "&#39;"); break;
        default: pv_buf_add(b, s, 1); break;
        }
    }
}

const char *pv_xla_op_source_html(const pv_xla_op *op, pv_arena *a)
{
    if (op->source_file[0] == '\0' || op->source_line == -1)
        return "";
    pv_buf b;
    pv_buf_init(&b, (size_t)1 << 20);
    pv_buf_adds(&b, "<div class='source-info-cell' title='");
    add_escaped(&b, op->source_stack);
    pv_buf_adds(&b, "'>");
    add_escaped(&b, op->source_file);
    pv_buf_addf(&b, ":%d</div>", (int)op->source_line);
    const char *out = b.len > 0 ? pv_arena_strndup(a, b.data, b.len) : "";
    pv_buf_fini(&b);
    return out;
}
