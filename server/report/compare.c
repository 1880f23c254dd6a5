/* compare: matching two runs' figures and judging the gates (compare.h).
 * Op and kernel lists are matched by a merge of the two lists sorted by
 * key; allocators and devices are few, and matched pair by pair. */
#include "report/compare.h"
#include "util/sort.h"

#include <math.h>
#include <string.h>

/* ---- ops and kernels ------------------------------------------------------------- */

static int cmp_key(const void *pa, const void *pb)
{
    const pv_item_delta *a = pa, *b = pb;
    int c = strcmp(a->side, b->side);
    return c != 0 ? c : strcmp(a->name, b->name);
}

static int cmp_change(const void *pa, const void *pb)
{
    const pv_item_delta *a = pa, *b = pb;
    double da = fabs(a->new_ - a->base), db = fabs(b->new_ - b->base);
    if (da != db)
        return da > db ? -1 : 1;
    return cmp_key(pa, pb);
}

typedef struct item_list {
    pv_item_delta *v;          /* one side's items, base or new_ filled */
    size_t n;
} item_list;

typedef struct item_counts {
    size_t added, removed, changed;
} item_counts;

/* Merges the two sorted lists into the items that differ, by change. */
static size_t diff_items(item_list base, item_list next, pv_arena *a, pv_item_delta **out,
                         item_counts *counts)
{
    pv_sort(base.v, base.n, sizeof *base.v, cmp_key);
    pv_sort(next.v, next.n, sizeof *next.v, cmp_key);
    pv_item_delta *d = pv_arena_zalloc(a, (base.n + next.n + 1) * sizeof *d);
    size_t n = 0, i = 0, k = 0;
    memset(counts, 0, sizeof *counts);
    while (i < base.n || k < next.n) {
        int c = i == base.n ? 1 : k == next.n ? -1 : cmp_key(&base.v[i], &next.v[k]);
        if (c < 0) {
            d[n] = base.v[i++];
            d[n++].change = PV_REMOVED;
            counts->removed++;
        } else if (c > 0) {
            d[n] = next.v[k++];
            d[n++].change = PV_ADDED;
            counts->added++;
        } else {
            pv_item_delta x = next.v[k++];
            x.base = base.v[i++].base;
            x.change = PV_CHANGED;
            if (x.base != x.new_) {
                d[n++] = x;
                counts->changed++;
            }
        }
    }
    pv_sort(d, n, sizeof *d, cmp_change);
    *out = d;
    return n;
}

static item_list op_items(const pv_figures *f, bool is_new, pv_arena *a)
{
    item_list l = {pv_arena_zalloc(a, (f->n_ops + 1) * sizeof *l.v), f->n_ops};
    for (size_t i = 0; i < f->n_ops; i++) {
        const pv_fig_op *o = &f->ops[i];
        l.v[i] = (pv_item_delta){o->side, o->name, o->category, is_new ? 0 : o->self_us,
                                 is_new ? o->self_us : 0, PV_CHANGED};
    }
    return l;
}

static item_list kernel_items(const pv_figures *f, bool is_new, pv_arena *a)
{
    item_list l = {pv_arena_zalloc(a, (f->n_kernels + 1) * sizeof *l.v), f->n_kernels};
    for (size_t i = 0; i < f->n_kernels; i++) {
        const pv_fig_kernel *k = &f->kernels[i];
        l.v[i] = (pv_item_delta){"", k->name, k->op, is_new ? 0 : k->total_us,
                                 is_new ? k->total_us : 0, PV_CHANGED};
    }
    return l;
}

/* ---- allocators and devices --------------------------------------------------------- */

/* One run's allocators or devices as deltas with one side filled. */
typedef struct named_list {
    pv_named_delta *v;
    size_t n;
} named_list;

static named_list alloc_items(const pv_figures *f, pv_arena *a)
{
    named_list l = {pv_arena_zalloc(a, (f->n_allocs + 1) * sizeof *l.v), f->n_allocs};
    for (size_t i = 0; i < f->n_allocs; i++)
        l.v[i] = (pv_named_delta){f->allocs[i].host, f->allocs[i].allocator,
                                  f->allocs[i].peak_bytes, -1};
    return l;
}

static named_list device_items(const pv_figures *f, pv_arena *a)
{
    named_list l = {pv_arena_zalloc(a, (f->n_devices + 1) * sizeof *l.v), f->n_devices};
    for (size_t i = 0; i < f->n_devices; i++)
        l.v[i] = (pv_named_delta){f->devices[i].host, f->devices[i].device,
                                  f->devices[i].mean_percent, -1};
    return l;
}

static bool one_host(named_list l)
{
    for (size_t i = 1; i < l.n; i++)
        if (strcmp(l.v[i].host, l.v[0].host) != 0)
            return false;
    return true;
}

/* Pairs base's items (their value in base) with next's (in base too) by
 * host and name, or by name alone when each run has them from one host. */
static size_t diff_named(named_list base, named_list next, pv_arena *a, pv_named_delta **out)
{
    bool by_name = one_host(base) && one_host(next);
    pv_named_delta *d = pv_arena_zalloc(a, (base.n + next.n + 1) * sizeof *d);
    bool *used = pv_arena_zalloc(a, base.n + 1);
    size_t n = 0;
    for (size_t i = 0; i < next.n; i++) {
        pv_named_delta x = {by_name ? "" : next.v[i].host, next.v[i].name, -1, next.v[i].base};
        for (size_t k = 0; k < base.n && x.base < 0; k++) {
            if (!used[k] && strcmp(x.name, base.v[k].name) == 0 &&
                (by_name || strcmp(next.v[i].host, base.v[k].host) == 0)) {
                used[k] = true;
                x.base = base.v[k].base;
            }
        }
        d[n++] = x;
    }
    for (size_t k = 0; k < base.n; k++)
        if (!used[k])
            d[n++] = (pv_named_delta){by_name ? "" : base.v[k].host, base.v[k].name,
                                      base.v[k].base, -1};
    *out = d;
    return n;
}

/* ---- gates ---------------------------------------------------------------------------- */

static void judge(pv_comparison *c, pv_arena *a, const char *flag, double limit, double value,
                  const char *what)
{
    pv_gate *g = &c->gates[c->n_gates++];
    g->flag = flag;
    g->limit = limit;
    g->value = value;
    if (value < 0) {
        g->state = PV_GATE_UNKNOWN;
        g->message = pv_arena_printf(a, "%s cannot be checked: %s", flag, what);
    } else {
        g->state = value <= limit ? PV_GATE_HOLDS : PV_GATE_FAILS;
        g->message = pv_arena_printf(a, "%s %.4g %s %.4g (%s)", what, value,
                                     g->state == PV_GATE_HOLDS ? "<=" : ">", limit, flag);
    }
    if (g->state == PV_GATE_FAILS)
        c->verdict = PV_GATE_FAILS;
    else if (g->state == PV_GATE_UNKNOWN && c->verdict == PV_GATE_HOLDS)
        c->verdict = PV_GATE_UNKNOWN;
}

/* The largest ratio of new to base peak over the allocators both runs
 * have; < 0 with none. *which gets that allocator. */
static double peak_ratio(const pv_comparison *c, const char **which)
{
    double worst = -1;
    *which = "";
    for (size_t i = 0; i < c->n_allocs; i++) {
        const pv_named_delta *d = &c->allocs[i];
        if (d->base <= 0 || d->new_ < 0)
            continue;
        double r = d->new_ / d->base;
        if (r > worst) {
            worst = r;
            *which = d->name;
        }
    }
    return worst;
}

static void judge_all(pv_comparison *c, const pv_gates *g, pv_arena *a)
{
    c->verdict = PV_GATE_HOLDS;
    if (g == NULL)
        return;
    if (g->max_step_time_ratio > 0) {
        const char *what =
            c->step_ratio < 0
                ? (c->base->n_steps == 0 ? "the base run has no steps" : "the new run has no steps")
                : pv_arena_printf(a, "step time %.3f ms -> %.3f ms: ratio", c->base->step_mean_ms,
                                  c->new_->step_mean_ms);
        judge(c, a, "--max-step-time-ratio", g->max_step_time_ratio, c->step_ratio, what);
    }
    if (g->max_peak_memory_ratio > 0) {
        const char *alloc;
        double r = peak_ratio(c, &alloc);
        const char *what = r < 0 ? "no allocator has a peak in both runs"
                                 : pv_arena_printf(a, "peak memory of %s: ratio", alloc);
        judge(c, a, "--max-peak-memory-ratio", g->max_peak_memory_ratio, r, what);
    }
    if (g->max_input_bound_percent >= 0) {
        double p = c->new_->input_percent;
        judge(c, a, "--max-input-bound-percent", g->max_input_bound_percent, p,
              p < 0 ? "the new run has no input share (no steps)"
                    : "input-bound share (%)");
    }
}

void pv_compare(const pv_figures *base, const pv_figures *new_, const pv_gates *gates,
                pv_arena *a, pv_comparison *out)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->new_ = new_;
    out->step_ratio = base->n_steps > 0 && new_->n_steps > 0 && base->step_mean_ms > 0
                          ? new_->step_mean_ms / base->step_mean_ms
                          : -1;
    item_counts k;
    out->n_ops = diff_items(op_items(base, false, a), op_items(new_, true, a), a, &out->ops, &k);
    out->n_ops_added = k.added;
    out->n_ops_removed = k.removed;
    out->n_ops_changed = k.changed;
    out->n_kernels = diff_items(kernel_items(base, false, a), kernel_items(new_, true, a), a,
                                &out->kernels, &k);
    out->n_kernels_added = k.added;
    out->n_kernels_removed = k.removed;
    out->n_kernels_changed = k.changed;
    out->n_allocs = diff_named(alloc_items(base, a), alloc_items(new_, a), a, &out->allocs);
    out->n_devices = diff_named(device_items(base, a), device_items(new_, a), a, &out->devices);
    judge_all(out, gates, a);
}
