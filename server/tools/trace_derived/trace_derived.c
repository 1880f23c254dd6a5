/* trace_derived: XProf's derived device lines (trace_derived.h), built
 * with one small line builder that reproduces how XProf's
 * DerivedXLineBuilder merges events:
 *
 *   - a line keeps, per nesting level, the last event it added;
 *   - a new event at a level is merged into that last event (its end
 *     stretched) when both have the same full name and group, and, on a
 *     TPU without a group, when it starts no later than the last event's
 *     end plus twice its duration; otherwise the levels from there down
 *     are closed and a new event starts;
 *   - closing a level first shortens a stack of events with equal spans
 *     by 1 ns per level below the first (so they nest visibly), at most
 *     down to 1 ns for the top one;
 *   - closing level 0 of a line closes level 0 of the lines that depend on
 *     it (a new XLA module closes the name scopes and XLA ops; a new name
 *     scope closes the framework ops). */
#include "tools/trace_derived/trace_derived.h"
#include "tools/trace_derived/trace_derived_offload.h"
#include "tools/trace_derived/trace_derived_priv.h"

#include "tools/common/hlo_names.h"
#include "tools/common/tf_op_name.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/mem.h"
#include "util/sort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVELS_MAX 64

/* XProf's derived line ids (xla/tsl/profiler/utils/trace_utils.h). */
#define LINE_DERIVED_MIN 0xdeadbeefll
#define LINE_NAME_SCOPE (LINE_DERIVED_MIN + 2)
#define LINE_TF_OP (LINE_DERIVED_MIN + 3)
#define LINE_HLO_MODULE (LINE_DERIVED_MIN + 4)
#define LINE_HLO_OP (LINE_DERIVED_MIN + 5)
#define LINE_SOURCE (LINE_DERIVED_MIN + 7)
#define LINE_OFFLOAD_FIRST (LINE_DERIVED_MIN + 8)
#define LINE_OFFLOAD_LAST (LINE_DERIVED_MIN + 48)
_Static_assert(LINE_OFFLOAD_LAST - LINE_OFFLOAD_FIRST + 1 == PV__OFFLOAD_ROWS_MAX,
               "one line id per host offload row");
#define LINE_DEVICE_MIN (LINE_DERIVED_MIN + 290)
#define LINE_DEVICE_MAX (LINE_DEVICE_MIN + 99)
/* Line ids one GPU stream's derived lines take (name scope .. source). */
#define LINES_PER_STREAM (LINE_SOURCE - LINE_NAME_SCOPE + 1)
/* The display ids XProf 2.24.2 gives a derived GPU stream and its lines,
 * 1 + 7 x its place: the stream, then its derived lines by line id, then
 * one id no line of the test profiles ever takes (measured on the four
 * ROCm runs: streams 1, 8, 15, 22; their lines 2-6, 9-13, ..). */
#define DISPLAY_IDS_PER_STREAM 7

/* ---- the line builder ------------------------------------------------------- */

typedef struct slot {
    bool open;
    size_t ev;           /* index of the level's last event in the line */
    int64_t group;       /* its group */
} slot;

/* The names of one derivation, each kept once: a derived line repeats a
 * handful of names (an XLA op per kernel), so an event's name is the
 * pool's copy, and the lines model is made with one lookup per name. */
typedef struct name_pool {
    pv_arena *a;
    pv_hashtab index;      /* hash of the bytes -> index into strs */
    const char **strs;
    size_t n, cap;
} name_pool;

static const char *pool_str(name_pool *p, const char *s, size_t len)
{
    pv_hashtab_cursor c = pv_hashtab_probe(&p->index, pv_hash_bytes(PV_HASH_SEED, s, len));
    uint32_t i;
    while (pv_hashtab_next(&c, &i))
        if (strncmp(p->strs[i], s, len) == 0 && p->strs[i][len] == '\0')
            return p->strs[i];
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->strs = pv_xrealloc(p->strs, p->cap * sizeof *p->strs);
    }
    p->strs[p->n] = pv_arena_strndup(p->a, s, len);
    pv_hashtab_insert(&p->index, &c, (uint32_t)p->n);
    return p->strs[p->n++];
}

typedef struct dline {
    name_pool *pool;          /* names, and the arena everything lives in */
    bool gpu;                 /* GPU planes merge regardless of gaps */
    int64_t line_id;
    uint32_t kind;
    const char *name;
    pv_derived_event *ev;     /* pv_xmalloc'd while building */
    const char **key;         /* per event: its full name (what merging compares) */
    size_t n, cap;
    slot slots[LEVELS_MAX];
    size_t n_slots;           /* levels used so far */
    struct dline *deps[2];    /* lines closed with this one's level 0 */
    size_t n_deps;
} dline;

/* One name to add: the full name merging compares and the name shown. */
typedef struct dname {
    const char *key;
    size_t key_len;
    const char *shown;
    size_t shown_len;
} dname;

static void dline_init(dline *l, name_pool *pool, bool gpu, int64_t line_id, uint32_t kind,
                       const char *name)
{
    memset(l, 0, sizeof *l);
    l->pool = pool;
    l->gpu = gpu;
    l->line_id = line_id;
    l->kind = kind;
    l->name = name;
}

/* XProf's AdjustDurationForTraceViewer: events stacked from level up with
 * the same span as the one below get 1 ns shorter per level. */
static void dline_shrink_stack(dline *l, size_t level)
{
    if (level >= l->n_slots || !l->slots[level].open)
        return;
    size_t top = level;
    while (top + 1 < l->n_slots && l->slots[top + 1].open)
        top++;
    if (top <= level)
        return;
    int64_t max_shrink_ns = l->ev[l->slots[top].ev].dur_ps / 1000 - 1;
    int64_t shrink_ns = 0;
    bool have_last = false;
    int64_t last_start = 0, last_dur = 0;
    for (size_t i = level; i <= top; i++) {
        pv_derived_event *e = &l->ev[l->slots[i].ev];
        if (shrink_ns < max_shrink_ns && have_last && last_start == e->start_ps &&
            last_dur == e->dur_ps)
            shrink_ns++;
        have_last = true;
        last_start = e->start_ps;
        last_dur = e->dur_ps;
        if (shrink_ns > 0)
            e->dur_ps -= 1000 * shrink_ns;
    }
}

static void dline_close(dline *l, size_t level)
{
    dline_shrink_stack(l, level);
    for (size_t i = level; i < l->n_slots; i++)
        l->slots[i].open = false;
    if (level == 0)
        for (size_t d = 0; d < l->n_deps; d++)
            dline_close(l->deps[d], 0);
}

static void dline_add_level(dline *l, const dname *nm, int64_t start_ps, int64_t dur_ps,
                            int64_t group, size_t level)
{
    if (level >= LEVELS_MAX)
        return;
    if (level >= l->n_slots)
        l->n_slots = level + 1;
    slot *s = &l->slots[level];
    if (s->open) {
        pv_derived_event *last = &l->ev[s->ev];
        const char *k = l->key[s->ev];
        bool same = s->group == group && strlen(k) == nm->key_len &&
                    memcmp(k, nm->key, nm->key_len) == 0;
        bool near = l->gpu || group != PV_NO_GROUP ||
                    last->start_ps + 3 * last->dur_ps >= start_ps;
        if (same && near) {
            int64_t end = start_ps + dur_ps;
            if (end > last->start_ps + last->dur_ps)
                last->dur_ps = end - last->start_ps;
            return;
        }
    }
    dline_close(l, level);
    if (l->n == l->cap) {
        l->cap = l->cap == 0 ? 64 : l->cap * 2;
        l->ev = pv_xrealloc(l->ev, l->cap * sizeof *l->ev);
        l->key = pv_xrealloc(l->key, l->cap * sizeof *l->key);
    }
    const char *key = pool_str(l->pool, nm->key, nm->key_len);
    const char *shown = key;
    if (nm->shown_len != nm->key_len || memcmp(nm->shown, nm->key, nm->key_len) != 0)
        shown = pool_str(l->pool, nm->shown, nm->shown_len);
    l->key[l->n] = key;
    l->ev[l->n] = (pv_derived_event){start_ps,      dur_ps, shown, shown == key ? NULL : key,
                                     group,         0,      PV_DERIVED_NO_EVENT,
                                     PV_DERIVED_NO_EVENT};
    *s = (slot){true, l->n, group};
    l->n++;
}

/* One event per level (XProf's ExpandOrAddEvents); deeper levels left
 * from an earlier, deeper stack are closed. */
static void dline_add(dline *l, const dname *names, size_t n, int64_t start_ps, int64_t dur_ps,
                      int64_t group)
{
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++)
        dline_add_level(l, &names[i], start_ps, dur_ps, group, i);
    dline_close(l, n);
}

static dname dname_same(const char *s, size_t n)
{
    return (dname){s, n, s, n};
}

/* ---- output ------------------------------------------------------------------- */

typedef struct out_tracks {
    pv_derived_track *v;
    size_t n, cap;
    int64_t *track_tid;       /* per model track, its display id when renumbered
                                 (0: its own); NULL until a stream is */
} out_tracks;

static int cmp_event(const void *pa, const void *pb)
{
    const pv_derived_event *a = pa, *b = pb;
    if (a->start_ps != b->start_ps)
        return a->start_ps < b->start_ps ? -1 : 1;
    if (a->dur_ps != b->dur_ps)
        return a->dur_ps > b->dur_ps ? -1 : 1;
    /* equal spans: the order they were made in (outer scope first) */
    return a->depth < b->depth ? -1 : a->depth > b->depth;
}

/* Sorts the events of a finished line, gives them depths and moves them
 * into the arena as a track; an empty line is dropped. */
static void emit_track(out_tracks *o, pv_arena *a, uint32_t plane, uint32_t after,
                       int64_t line_id, int64_t tid, uint32_t kind, const char *name,
                       pv_derived_event *ev, size_t n)
{
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++)
        ev[i].depth = (uint32_t)i;  /* creation order, the sort's last key */
    /* lines are mostly made in order already: a sort only when not */
    size_t in_order = 1;
    while (in_order < n && cmp_event(&ev[in_order - 1], &ev[in_order]) <= 0)
        in_order++;
    if (in_order < n)
        pv_sort(ev, n, sizeof *ev, cmp_event);
    int64_t *open_end = pv_xmalloc(n * sizeof *open_end);
    size_t depth = 0, n_depths = 0;
    for (size_t i = 0; i < n; i++) {
        while (depth > 0 && open_end[depth - 1] <= ev[i].start_ps)
            depth--;
        ev[i].depth = (uint32_t)depth;
        open_end[depth++] = ev[i].start_ps + ev[i].dur_ps;
        if (depth > n_depths)
            n_depths = depth;
    }
    free(open_end);
    pv_derived_event *copy = pv_arena_alloc(a, n * sizeof *copy);
    memcpy(copy, ev, n * sizeof *copy);
    if (o->n == o->cap) {
        o->cap = o->cap == 0 ? 16 : o->cap * 2;
        o->v = pv_xrealloc(o->v, o->cap * sizeof *o->v);
    }
    o->v[o->n++] = (pv_derived_track){plane, after, line_id, tid, kind, name, n, copy,
                                      (uint32_t)n_depths};
}

/* tid: the display id XProf gives the line (its line id unless renumbered). */
static void emit_line(out_tracks *o, dline *l, uint32_t plane, uint32_t after, int64_t tid)
{
    emit_track(o, l->pool->a, plane, after, l->line_id, tid, l->kind, l->name, l->ev, l->n);
    free(l->ev);
    free(l->key);
    l->ev = NULL;
    l->key = NULL;
    l->n = l->cap = 0;
}

/* ---- stats ---------------------------------------------------------------------- */

/* Stat name ids looked up once per model. */
typedef struct stat_ids {
    uint32_t kernel_details, graph_exec, program_id, source_info;
} stat_ids;

static bool stat_uint(const pv_model *m, uint64_t e, uint32_t name, uint64_t *v)
{
    int64_t i;
    if (!pv_model_event_stat_int(m, e, name, &i))
        return false;
    *v = (uint64_t)i;
    return true;
}

static const char *stat_text(const pv_model *m, uint64_t e, uint32_t name)
{
    /* kernel_details and source_info values have string ids (model.h) */
    pv_stat s;
    if (name == 0 || !pv_model_event_stat(m, e, name, &s))
        return "";
    return pv_model_str(m, pv_model_stat_str_id(m, &s));
}

/* ---- framework ops (shared by GPU and TPU) ----------------------------------------- */

typedef struct fw_lines {
    dline scope, op, source;
    dname scopes[LEVELS_MAX];
    text shown;
} fw_lines;

/* The reference's StripTrailingAsciiWhitespace: bytes of s[0..n) left. */
static size_t strip_trailing_space(const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' ||
                     s[n - 1] == '\v' || s[n - 1] == '\f' || s[n - 1] == '\r'))
        n--;
    return n;
}

/* XProf's ProcessTfOpEvent: the name scopes of a TensorFlow or JAX op on
 * the scope line, the op on the op line, shown as TfOpEventName: a
 * TraceMe by its name, "Iterator::A::B" as "Iterator::B", any other op by
 * its type. */
static void add_tf_op(fw_lines *f, const char *full, int64_t start_ps, int64_t dur_ps,
                      int64_t group)
{
    size_t len = strlen(full);
    pv_tf_op op;
    pv_tf_op_parse(full, len, &op);
    if (op.category == PV_TF_OP_TENSORFLOW || op.category == PV_TF_OP_JAX) {
        size_t n = 0, from = 0;
        for (size_t i = 0; i < op.name_len && n < LEVELS_MAX; i++) {
            if (op.name[i] != '/')
                continue;
            f->scopes[n++] = dname_same(op.name + from, i - from);
            from = i + 1;
        }
        dline_add(&f->scope, f->scopes, n, start_ps, dur_ps, group);
    }
    if (op.category == PV_TF_OP_UNKNOWN) {
        text_set(&f->shown, op.name, strip_trailing_space(op.name, op.name_len));
    } else if (op.category == PV_TF_OP_DATASET) {
        /* absl::StrSplit on "::" finds separators left to right without
         * overlap, so ":::" leaves ":" in the last part. */
        size_t last = 0;
        for (size_t i = 0; i + 1 < op.name_len; i++) {
            if (op.name[i] == ':' && op.name[i + 1] == ':') {
                last = i + 2;
                i++;
            }
        }
        text_set(&f->shown, "Iterator::", 10);
        text_cat(&f->shown, op.name + last, op.name_len - last);
    } else {
        text_set(&f->shown, op.type, op.type_len);
    }
    /* An empty display name leaves the trace showing the full name: ":"
     * (an instruction without op_name and op_type) parses as a TensorFlow
     * op whose name and type are empty. */
    if (f->shown.len == 0)
        text_set(&f->shown, full, len);
    dname nm = {full, len, f->shown.p, f->shown.len};
    dline_add(&f->op, &nm, 1, start_ps, dur_ps, group);
}

static void fw_lines_init(fw_lines *f, name_pool *pool, bool gpu, int64_t scope_id,
                          int64_t op_id, int64_t source_id, const char *suffix)
{
    memset(f, 0, sizeof *f);
    pv_arena *a = pool->a;
    dline_init(&f->op, pool, gpu, op_id, PV_TRACK_FW_OPS,
               pv_arena_printf(a, "Framework Ops%s", suffix));
    dline_init(&f->scope, pool, gpu, scope_id, PV_TRACK_FW_NAME_SCOPE,
               pv_arena_printf(a, "Framework Name Scope%s", suffix));
    f->scope.deps[f->scope.n_deps++] = &f->op;
    dline_init(&f->source, pool, gpu, source_id, PV_TRACK_DERIVED_OTHER,
               pv_arena_printf(a, "Source code%s", suffix));
}

/* ---- XProf's event order ------------------------------------------------------------ */

typedef struct sorted_event {
    int64_t start_ps, dur_ps;
    uint64_t ev;
} sorted_event;

static int cmp_sorted(const void *pa, const void *pb)
{
    const sorted_event *a = pa, *b = pb;
    if (a->start_ps != b->start_ps)
        return a->start_ps < b->start_ps ? -1 : 1;
    if (a->dur_ps != b->dur_ps)
        return a->dur_ps < b->dur_ps ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* The events of tracks [first, first + n) in the order XProf's
 * GetSortedEvents gives them: by start, shorter first among equal starts
 * (a zero-length copy-start comes before the copy-done that starts with
 * it), file order among equals. pv_xmalloc'd; *n_out events. */
static sorted_event *sorted_events(const pv_model *m, uint32_t first, uint32_t n,
                                   size_t *n_out)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < n; k++)
        total += m->tracks[first + k].n_events;
    sorted_event *v = pv_xmalloc((total + 1) * sizeof *v);
    size_t c = 0;
    for (uint32_t k = 0; k < n; k++) {
        const pv_track *t = &m->tracks[first + k];
        for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++)
            v[c++] = (sorted_event){m->ev_start_ps[e], m->ev_dur_ps[e], e};
    }
    /* one line's events are in this order unless equal starts differ in
     * length (the model puts the longer first): a sort only then */
    size_t in_order = 1;
    while (in_order < c && cmp_sorted(&v[in_order - 1], &v[in_order]) <= 0)
        in_order++;
    if (in_order < c)
        pv_sort(v, c, sizeof *v, cmp_sorted);
    *n_out = c;
    return v;
}

/* ---- GPU: per stream ------------------------------------------------------------------ */

typedef struct gpu_ctx {
    const pv_model *m;
    pv_arena *a;
    name_pool *pool;
    pv_hlo_names *hlo;
    bool *have_hlo;            /* hlo is built: on the first op looked up in it */
    stat_ids ids;
    text key;                  /* module or source name */
    text keys;                 /* the XLA op keys of one event, NUL-separated */
    text tf_op;                /* "op_name:op_type" of the event's instruction */
    dname levels[LEVELS_MAX];
} gpu_ctx;

/* The model's HLO table indexed, decoded when a kernel first names an
 * instruction of a program (a trace without XLA ops never pays for it). */
static const pv_hlo_names *hlo_of(gpu_ctx *g)
{
    if (!*g->have_hlo) {
        pv_hlo_names_build(g->m, g->a, g->hlo);
        *g->have_hlo = true;
    }
    return g->hlo;
}

/* The XLA op line of one kernel: hlo_op "a::b" is a stack of ops, each
 * keyed "<program id or module>/<op>" so that equal op names of different
 * modules differ. Returns the stack's depth; *last is its innermost op. */
static size_t hlo_levels(gpu_ctx *g, const char *module, bool has_prog, uint64_t prog,
                         const char *hlo_op, dname *last)
{
    text_set(&g->key, "", 0);
    if (has_prog)
        text_i64(&g->key, (int64_t)prog, true);
    else
        text_cats(&g->key, module);
    text_cats(&g->key, "/");
    size_t n = 0;
    const char *p = hlo_op;
    for (;;) {
        const char *sep = strstr(p, "::");
        size_t len = sep != NULL ? (size_t)(sep - p) : strlen(p);
        *last = dname_same(p, len);
        if (n < LEVELS_MAX)
            g->levels[n++] = dname_same(p, len);
        if (sep == NULL)
            break;
        p = sep + 2;
    }
    text_set(&g->keys, "", 0);
    size_t *off = pv_xmalloc(n * sizeof *off);
    for (size_t i = 0; i < n; i++) {
        off[i] = g->keys.len;
        text_cat(&g->keys, g->key.p, g->key.len);
        text_cat(&g->keys, g->levels[i].shown, g->levels[i].shown_len);
        text_cat(&g->keys, "", 1);
    }
    for (size_t i = 0; i < n; i++) {
        g->levels[i].key = g->keys.p + off[i];
        g->levels[i].key_len = g->key.len + g->levels[i].shown_len;
    }
    free(off);
    return n;
}

/* XProf's DeriveEventsFromAnnotationsForLines for one stream; its lines
 * are numbered after the stream's display id stream_tid. */
static void derive_stream(gpu_ctx *g, out_tracks *o, uint32_t plane, uint32_t track,
                          int64_t base, int64_t stream_tid)
{
    const pv_model *m = g->m;
    const pv_track *t = &m->tracks[track];
    char suffix[48];
    snprintf(suffix, sizeof suffix, " - from #%" PRId64, t->line_id);
    fw_lines f;
    fw_lines_init(&f, g->pool, true, base, base + 1, base + 5, suffix);
    dline mod, hlo;
    dline_init(&hlo, g->pool, true, base + 3, PV_TRACK_XLA_OPS,
               pv_arena_printf(g->a, "XLA Ops%s", suffix));
    dline_init(&mod, g->pool, true, base + 2, PV_TRACK_XLA_MODULES,
               pv_arena_printf(g->a, "XLA Modules%s", suffix));
    mod.deps[mod.n_deps++] = &f.scope;
    mod.deps[mod.n_deps++] = &hlo;
    size_t n_sorted;
    sorted_event *v = sorted_events(m, track, 1, &n_sorted);
    for (size_t i = 0; i < n_sorted; i++) {
        uint64_t e = v[i].ev;
        /* Only kernels (and CUDA graph runs) carry ops; memcpys do not. */
        uint64_t graph = 0;
        if (stat_text(m, e, g->ids.kernel_details)[0] == '\0' &&
            !stat_uint(m, e, g->ids.graph_exec, &graph))
            continue;
        const pv_event_extra *x = pv_model_event_extra(m, e);
        if (x == NULL)
            continue;
        int64_t s = m->ev_start_ps[e], d = m->ev_dur_ps[e], grp = m->ev_group[e];
        const char *module = pv_model_str(m, x->hlo_module);
        const char *hlo_op = pv_model_str(m, x->hlo_op);
        uint64_t prog = 0;
        bool has_prog = stat_uint(m, e, g->ids.program_id, &prog);
        if (module[0] != '\0') {
            text_set(&g->key, module, strlen(module));
            if (has_prog) {
                text_cats(&g->key, "(");
                text_i64(&g->key, (int64_t)prog, true);
                text_cats(&g->key, ")");
            }
            dname nm = dname_same(g->key.p, g->key.len);
            dline_add(&mod, &nm, 1, s, d, grp);
        }
        if (hlo_op[0] == '\0') {
            if (x->tf_op != 0)
                add_tf_op(&f, pv_model_str(m, x->tf_op), s, d, grp);
            continue;
        }
        dname last;
        size_t n = hlo_levels(g, module, has_prog, prog, hlo_op, &last);
        dline_add(&hlo, g->levels, n, s, d, grp);
        const pv_hlo_instr *in =
            has_prog ? pv_hlo_names_find(hlo_of(g), prog, last.key, last.key_len) : NULL;
        if (in == NULL)
            continue;
        /* The instruction's framework op and source line, as XProf's
         * HloInstructionWrapper gives them ("op_name:op_type" even when
         * both are empty; the source file's base name). */
        text_set(&g->tf_op, in->op_name, strlen(in->op_name));
        text_cats(&g->tf_op, ":");
        text_cats(&g->tf_op, in->op_type);
        add_tf_op(&f, g->tf_op.p, s, d, grp);
        if (in->source_file[0] != '\0') {
            const char *base_name = strrchr(in->source_file, '/');
            text_set(&g->key, "", 0);
            text_cats(&g->key, base_name != NULL ? base_name + 1 : in->source_file);
            text_cats(&g->key, ":");
            text_i64(&g->key, in->source_line, false);
            dname nm = dname_same(g->key.p, g->key.len);
            dline_add(&f.source, &nm, 1, s, d, grp);
        }
    }
    free(v);
    /* XProf's display order: the stream, then its lines by line id. */
    emit_line(o, &f.scope, plane, track, stream_tid + 1);
    emit_line(o, &f.op, plane, track, stream_tid + 2);
    emit_line(o, &mod, plane, track, stream_tid + 3);
    emit_line(o, &hlo, plane, track, stream_tid + 4);
    emit_line(o, &f.source, plane, track, stream_tid + 5);
    free(f.shown.p);
}

/* The stream order XProf derives in: "Compute" streams first, then by
 * event count, most first (file order among equals). */
typedef struct stream_item {
    bool compute;
    uint64_t n_events;
    uint32_t track;
} stream_item;

static int cmp_stream(const void *pa, const void *pb)
{
    const stream_item *a = pa, *b = pb;
    if (a->compute != b->compute)
        return a->compute ? -1 : 1;
    if (a->n_events != b->n_events)
        return a->n_events > b->n_events ? -1 : 1;
    return a->track < b->track ? -1 : a->track > b->track;
}

static bool derived_line_id(int64_t id)
{
    return id >= LINE_DERIVED_MIN && id <= LINE_DEVICE_MAX;
}

static void derive_gpu_plane(gpu_ctx *g, out_tracks *o, uint32_t plane)
{
    const pv_model *m = g->m;
    const pv_plane *p = &m->planes[plane];
    stream_item *v = pv_xmalloc((p->n_tracks + 1) * sizeof *v);
    size_t n = 0;
    for (uint32_t k = 0; k < p->n_tracks; k++) {
        const pv_track *t = &m->tracks[p->first_track + k];
        if (derived_line_id(t->line_id))
            continue;
        v[n++] = (stream_item){strstr(pv_model_str(m, t->name), "Compute") != NULL, t->n_events,
                               p->first_track + k};
    }
    pv_sort(v, n, sizeof *v, cmp_stream);
    if (n > 0 && o->track_tid == NULL)
        o->track_tid = pv_arena_zalloc(g->a, m->n_tracks * sizeof *o->track_tid);
    int64_t base = LINE_DEVICE_MIN;
    for (size_t i = 0; i < n && base + LINES_PER_STREAM <= LINE_DEVICE_MAX; i++) {
        int64_t tid = 1 + DISPLAY_IDS_PER_STREAM * (int64_t)i;
        o->track_tid[v[i].track] = tid;
        derive_stream(g, o, plane, v[i].track, base, tid);
        base += LINES_PER_STREAM;
    }
    free(v);
}

/* ---- TPU: lines from stats -------------------------------------------------------------- */

/* The groups of a TPU plane's ops while the model has none for them
 * (issue #2 groups host events only): XProf makes one group per event of
 * the plane's "XLA Modules" line (a program run), numbered from 0 in time
 * order, and an op belongs to the run it starts in. Events come in time
 * order, so one cursor walks the runs. */
typedef struct run_groups {
    const pv_track *modules;  /* NULL: the plane's own groups are used */
    uint64_t next;            /* first run that has not ended yet */
} run_groups;

static run_groups run_groups_of(const pv_model *m, const pv_plane *p)
{
    run_groups r = {NULL, 0};
    for (uint32_t k = 0; k < p->n_tracks; k++) {
        const pv_track *t = &m->tracks[p->first_track + k];
        for (uint64_t e = t->first_event; e < t->first_event + t->n_events; e++)
            if (m->ev_group[e] != PV_NO_GROUP)
                return r;
    }
    for (uint32_t k = 0; k < p->n_tracks && r.modules == NULL; k++)
        if (m->tracks[p->first_track + k].kind == PV_TRACK_XLA_MODULES)
            r.modules = &m->tracks[p->first_track + k];
    return r;
}

static int64_t run_group(const pv_model *m, run_groups *r, uint64_t e)
{
    if (r->modules == NULL)
        return m->ev_group[e];
    const pv_track *t = r->modules;
    int64_t s = m->ev_start_ps[e];
    while (r->next < t->n_events && m->ev_start_ps[t->first_event + r->next] +
                                            m->ev_dur_ps[t->first_event + r->next] <= s)
        r->next++;
    if (r->next < t->n_events && m->ev_start_ps[t->first_event + r->next] <= s)
        return (int64_t)r->next;
    return PV_NO_GROUP;
}

/* XProf's DeriveLinesFromStats: every event of the plane in XProf's
 * order, async ones left out. */
static void derive_tpu_plane(const pv_model *m, name_pool *pool, const stat_ids *ids,
                             out_tracks *o, uint32_t plane)
{
    pv_arena *a = pool->a;
    const pv_plane *p = &m->planes[plane];
    size_t n;
    sorted_event *v = sorted_events(m, p->first_track, p->n_tracks, &n);
    fw_lines f;
    fw_lines_init(&f, pool, false, LINE_NAME_SCOPE, LINE_TF_OP, LINE_SOURCE, "");
    pv__offload h;
    memset(&h, 0, sizeof h);
    run_groups runs = run_groups_of(m, p);
    for (size_t i = 0; i < n; i++) {
        uint64_t e = v[i].ev;
        const pv_event_extra *x = pv_model_event_extra(m, e);
        if (x != NULL && (x->flags & PV_EXTRA_ASYNC))
            continue;
        int64_t grp = run_group(m, &runs, e);
        if (x != NULL && x->tf_op != 0)
            add_tf_op(&f, pv_model_str(m, x->tf_op), v[i].start_ps, v[i].dur_ps, grp);
        const char *src = stat_text(m, e, ids->source_info);
        if (src[0] != '\0') {
            dname nm = dname_same(src, strlen(src));
            dline_add(&f.source, &nm, 1, v[i].start_ps, v[i].dur_ps, grp);
        }
        if (pv__offload_op(m, e))
            pv__offload_add(&h, m, a, e);
    }
    dline_close(&f.scope, 0);
    free(v);
    /* XProf's line order: by line id. */
    emit_line(o, &f.scope, plane, UINT32_MAX, f.scope.line_id);
    emit_line(o, &f.op, plane, UINT32_MAX, f.op.line_id);
    emit_line(o, &f.source, plane, UINT32_MAX, f.source.line_id);
    for (size_t r = 0; r < h.n_rows; r++)
        emit_track(o, a, plane, UINT32_MAX, LINE_OFFLOAD_FIRST + (int64_t)r,
                   LINE_OFFLOAD_FIRST + (int64_t)r, PV_TRACK_DERIVED_OTHER, pv_arena_printf(a, "Host Offload Ops row %zu", r),
                   h.rows[r].ev, h.rows[r].n);
    pv__offload_fini(&h);
    free(f.shown.p);
}

/* ---- entry points ------------------------------------------------------------------------ */

bool pv_trace_derived_applies(const pv_model *m)
{
    /* The same test as trace_chrome's: a group_id stat anywhere means the
     * profiler grouped the file, and XProf then derives nothing. */
    uint32_t s_group = pv_model_str_find(m, "group_id");
    for (uint64_t i = 0; s_group != 0 && i < m->n_stats; i++)
        if (m->stats[i].name == s_group)
            return false;
    return true;
}

/* True when the plane already has a line of a kind derived here (the
 * file's own lines are kept, not derived twice). */
static bool plane_has_derived(const pv_model *m, const pv_plane *p)
{
    for (uint32_t k = 0; k < p->n_tracks; k++) {
        uint32_t kind = m->tracks[p->first_track + k].kind;
        if (kind == PV_TRACK_FW_OPS || kind == PV_TRACK_FW_NAME_SCOPE)
            return true;
    }
    return false;
}

bool pv_trace_derived_planes(const pv_model *m)
{
    for (uint32_t i = 0; i < m->n_planes; i++) {
        const pv_plane *p = &m->planes[i];
        if ((p->kind == PV_PLANE_GPU || p->kind == PV_PLANE_TPU) && !plane_has_derived(m, p))
            return true;
    }
    return false;
}

void pv_trace_derive(const pv_model *m, pv_arena *a, pv_trace_derived *out)
{
    *out = (pv_trace_derived){0, NULL, NULL};
    stat_ids ids = {pv_model_str_find(m, "kernel_details"),
                    pv_model_str_find(m, "cuda_graph_exec_id"),
                    pv_model_str_find(m, "program_id"), pv_model_str_find(m, "source")};
    out_tracks o = {NULL, 0, 0, NULL};
    name_pool pool = {a, {0}, NULL, 0, 0};
    pv_hlo_names hlo;
    bool have_hlo = false;
    for (uint32_t i = 0; i < m->n_planes; i++) {
        const pv_plane *p = &m->planes[i];
        if (plane_has_derived(m, p))
            continue;
        if (p->kind == PV_PLANE_GPU) {
            gpu_ctx g;
            memset(&g, 0, sizeof g);
            g.m = m;
            g.a = a;
            g.pool = &pool;
            g.hlo = &hlo;
            g.have_hlo = &have_hlo;
            g.ids = ids;
            derive_gpu_plane(&g, &o, i);
            free(g.key.p);
            free(g.keys.p);
            free(g.tf_op.p);
        } else if (p->kind == PV_PLANE_TPU) {
            derive_tpu_plane(m, &pool, &ids, &o, i);
        }
    }
    if (o.n > 0) {
        pv_derived_track *t = pv_arena_alloc(a, o.n * sizeof *t);
        memcpy(t, o.v, o.n * sizeof *t);
        *out = (pv_trace_derived){o.n, t, NULL};
    }
    out->track_tid = o.track_tid;
    free(o.v);
    pv_hashtab_fini(&pool.index);
    free(pool.strs);
}
