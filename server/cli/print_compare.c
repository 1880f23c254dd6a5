/* print_compare: a comparison as text, CSV and Markdown (print.h). The
 * three list the same headline rows (built once by headlines()), then the
 * ops and kernels that moved most, then the gates. */
#include "cli/print.h"

#include <stdio.h>
#include <string.h>

static const char *const change_words[] = {"changed", "added", "removed"};
static const char *const gate_words[] = {"holds", "FAILS", "cannot be checked"};
static const char *const gate_marks[] = {"\xe2\x9c\x85", "\xe2\x9d\x8c", "\xe2\x9d\x94"};

/* ---- the headline rows ---------------------------------------------------------------- */

typedef struct headline {
    const char *section;       /* for CSV */
    const char *label;         /* for people */
    double base, new_;         /* < 0 when unknown */
    bool bytes;                /* a byte count: shown for people as KiB, MiB ... */
} headline;

/* Fills rows (cap of them) and returns how many. */
static size_t headlines(const pv_comparison *c, pv_arena *a, headline *rows, size_t cap)
{
    const pv_figures *b = c->base, *n = c->new_;
    size_t k = 0;
    rows[k++] = (headline){"step_time_ms", "Step time (ms)", b->step_mean_ms, n->step_mean_ms,
                           false};
    for (size_t s = 0; s < 2; s++) {
        const pv_figures *side = s == 0 ? n : b;
        for (size_t i = 0; i < side->n_parts && k < cap; i++) {
            const pv_fig_part *p = &side->parts[i];
            double bv = pv_figures_part_ms(b, p->id), nv = pv_figures_part_ms(n, p->id);
            if ((s == 1 && nv >= 0) || (bv <= 0 && nv <= 0))
                continue;
            rows[k++] = (headline){"breakdown_ms", pv_arena_printf(a, "  %s", p->label), bv, nv,
                                   false};
        }
    }
    const headline shares[] = {
        {"input_percent", "Input-bound (%)", b->input_percent, n->input_percent, false},
        {"device_idle_percent", "Device idle (%)", b->device_idle_percent,
         n->device_idle_percent, false},
        {"device_busy_percent", "Device busy (%)", b->utilization_percent,
         n->utilization_percent, false},
        {"tensor_core_percent", "Tensor cores (%)", b->tensor_core_percent,
         n->tensor_core_percent, false},
    };
    for (size_t i = 0; i < sizeof shares / sizeof shares[0] && k < cap; i++)
        if (shares[i].base >= 0 || shares[i].new_ >= 0)
            rows[k++] = shares[i];
    for (size_t i = 0; i < c->n_allocs && k < cap; i++) {
        const pv_named_delta *d = &c->allocs[i];
        rows[k++] = (headline){"peak_memory_bytes",
                               pv_arena_printf(a, "Memory peak %s%s%s", d->host,
                                               d->host[0] ? "/" : "", d->name),
                               d->base, d->new_, true};
    }
    for (size_t i = 0; i < c->n_devices && k < cap; i++) {
        const pv_named_delta *d = &c->devices[i];
        rows[k++] = (headline){"device_busy_percent",
                               pv_arena_printf(a, "  busy %s%s%s (%%)", d->host,
                                               d->host[0] ? "/" : "", d->name),
                               d->base, d->new_, false};
    }
    return k;
}

#define MAX_ROWS 256

static const char *value_text(const headline *h, double v, char *buf, size_t cap)
{
    return h->bytes ? pv__human_bytes(v, buf, cap) : pv__fixed(v, 3, buf, cap);
}

static size_t shown(size_t n, size_t top_k)
{
    return top_k == 0 || top_k > n ? n : top_k;
}

/* ---- text ------------------------------------------------------------------------------- */

static int text_items(pv_buf *out, const char *what, const pv_item_delta *v, size_t n,
                      size_t added, size_t removed, size_t changed, size_t top_k)
{
    int rc = pv_buf_addf(out, "\n%s: %zu added, %zu removed, %zu changed (the %zu that moved "
                         "most)\n", what, added, removed, changed, shown(n, top_k));
    if (rc == 0 && n > 0)
        rc = pv_buf_addf(out, "  %12s %12s %12s  %-8s %-6s  %s\n", "base ms", "new ms",
                         "delta ms", "change", "side", "name");
    for (size_t i = 0; i < shown(n, top_k) && rc == 0; i++)
        rc = pv_buf_addf(out, "  %12.3f %12.3f %+12.3f  %-8s %-6s  %s\n", v[i].base / 1e3,
                         v[i].new_ / 1e3, (v[i].new_ - v[i].base) / 1e3,
                         change_words[v[i].change], v[i].side, v[i].name);
    return rc;
}

static int text_gates(const pv_comparison *c, pv_buf *out)
{
    int rc = pv_buf_adds(out, c->n_gates > 0 ? "\nGates\n" : "\nNo gates set\n");
    for (size_t i = 0; i < c->n_gates && rc == 0; i++)
        rc = pv_buf_addf(out, "  %-17s %s\n", gate_words[c->gates[i].state],
                         c->gates[i].message);
    return rc;
}

int pv__cli_compare_text(const pv_comparison *c, size_t top_k, pv_buf *out)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    headline rows[MAX_ROWS];
    size_t n = headlines(c, &a, rows, MAX_ROWS);
    int rc = pv_buf_addf(out, "Base  %s%s%s\nNew   %s%s%s\n\n%-34s %14s %14s %14s %8s\n",
                         c->base->run, c->base->host[0] ? " host " : "", c->base->host,
                         c->new_->run, c->new_->host[0] ? " host " : "", c->new_->host, "",
                         "base", "new", "delta", "ratio");
    for (size_t i = 0; i < n && rc == 0; i++) {
        const headline *h = &rows[i];
        char b[32], v[32], d[48], r[32] = "-";
        if (h->base > 0 && h->new_ >= 0)
            snprintf(r, sizeof r, "%.3f", h->new_ / h->base);
        snprintf(d, sizeof d, "-");
        if (h->base >= 0 && h->new_ >= 0)
            snprintf(d, sizeof d, "%+.3f", h->new_ - h->base);
        if (h->bytes && h->base >= 0 && h->new_ >= 0) {
            char mag[32];
            pv__human_bytes(h->new_ >= h->base ? h->new_ - h->base : h->base - h->new_, mag,
                            sizeof mag);
            snprintf(d, sizeof d, "%s%s", h->new_ >= h->base ? "+" : "-", mag);
        }
        rc = pv_buf_addf(out, "%-34.34s %14s %14s %14s %8s\n", h->label,
                         value_text(h, h->base, b, sizeof b), value_text(h, h->new_, v, sizeof v),
                         d, r);
    }
    if (rc == 0)
        rc = text_items(out, "Ops", c->ops, c->n_ops, c->n_ops_added, c->n_ops_removed,
                        c->n_ops_changed, top_k);
    if (rc == 0)
        rc = text_items(out, "Kernels", c->kernels, c->n_kernels, c->n_kernels_added,
                        c->n_kernels_removed, c->n_kernels_changed, top_k);
    if (rc == 0)
        rc = text_gates(c, out);
    pv_arena_fini(&a);
    return rc;
}

/* ---- CSV --------------------------------------------------------------------------------- */

static int csv_items(pv_buf *out, const char *section, const pv_item_delta *v, size_t n,
                     size_t top_k)
{
    int rc = 0;
    char name[1200];
    for (size_t i = 0; i < shown(n, top_k) && rc == 0; i++) {
        snprintf(name, sizeof name, "%s%s%s", v[i].side, v[i].side[0] ? ":" : "", v[i].name);
        rc = pv__csv_line(out, section, name, "change", change_words[v[i].change]);
        if (rc == 0)
            rc = pv__csv_num(out, section, name, "base_us", v[i].base, false);
        if (rc == 0)
            rc = pv__csv_num(out, section, name, "new_us", v[i].new_, false);
    }
    return rc;
}

int pv__cli_compare_csv(const pv_comparison *c, size_t top_k, pv_buf *out)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    headline rows[MAX_ROWS];
    size_t n = headlines(c, &a, rows, MAX_ROWS);
    int rc = pv__csv_line(out, "section", "name", "field", "value");
    if (rc == 0)
        rc = pv__csv_line(out, "run", c->base->run, "base", c->base->host);
    if (rc == 0)
        rc = pv__csv_line(out, "run", c->new_->run, "new", c->new_->host);
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *label = rows[i].label + strspn(rows[i].label, " ");
        rc = pv__csv_num(out, rows[i].section, label, "base", rows[i].base, true);
        if (rc == 0)
            rc = pv__csv_num(out, rows[i].section, label, "new", rows[i].new_, true);
    }
    if (rc == 0)
        rc = csv_items(out, "op", c->ops, c->n_ops, top_k);
    if (rc == 0)
        rc = csv_items(out, "kernel", c->kernels, c->n_kernels, top_k);
    for (size_t i = 0; i < c->n_gates && rc == 0; i++) {
        const pv_gate *g = &c->gates[i];
        rc = pv__csv_line(out, "gate", g->flag, "state", gate_words[g->state]);
        if (rc == 0)
            rc = pv__csv_num(out, "gate", g->flag, "limit", g->limit, false);
        if (rc == 0)
            rc = pv__csv_num(out, "gate", g->flag, "value", g->value, true);
    }
    pv_arena_fini(&a);
    return rc;
}

/* ---- Markdown ------------------------------------------------------------------------------ */

static int md_items(pv_buf *out, const char *what, const pv_item_delta *v, size_t n,
                    size_t added, size_t removed, size_t changed, size_t top_k)
{
    if (n == 0)
        return pv_buf_addf(out, "\n%s: none added, removed or changed\n", what);
    int rc = pv_buf_addf(out, "\n<details><summary>%s: %zu added, %zu removed, %zu changed"
                         "</summary>\n\n", what, added, removed, changed);
    if (rc == 0)
        rc = pv_buf_adds(out, "| name | side | base ms | new ms | change ms | |\n"
                              "|---|---|---:|---:|---:|---|\n");
    for (size_t i = 0; i < shown(n, top_k) && rc == 0; i++) {
        rc = pv_buf_adds(out, "| `");
        if (rc == 0)
            rc = pv__md_cell(out, v[i].name);
        if (rc == 0)
            rc = pv_buf_addf(out, "` | %s | %.3f | %.3f | %+.3f | %s |\n", v[i].side,
                             v[i].base / 1e3, v[i].new_ / 1e3, (v[i].new_ - v[i].base) / 1e3,
                             change_words[v[i].change]);
    }
    return rc == 0 ? pv_buf_adds(out, "\n</details>\n") : rc;
}

int pv__cli_compare_markdown(const pv_comparison *c, size_t top_k, pv_buf *out)
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    headline rows[MAX_ROWS];
    size_t n = headlines(c, &a, rows, MAX_ROWS);
    int rc = pv_buf_adds(out, "### profview compare\n\n**Base** `");
    if (rc == 0)
        rc = pv__md_cell(out, c->base->run);
    if (rc == 0)
        rc = pv_buf_adds(out, "` &rarr; **new** `");
    if (rc == 0)
        rc = pv__md_cell(out, c->new_->run);
    if (rc == 0)
        rc = pv_buf_adds(out, "`\n\n| | base | new | change |\n|---|---:|---:|---:|\n");
    for (size_t i = 0; i < n && rc == 0; i++) {
        const headline *h = &rows[i];
        char b[32], v[32], d[32] = "";
        if (h->base > 0 && h->new_ >= 0)
            snprintf(d, sizeof d, "%+.1f %%", 100.0 * (h->new_ - h->base) / h->base);
        rc = pv_buf_adds(out, "| ");
        if (rc == 0)
            rc = pv__md_cell(out, h->label + strspn(h->label, " "));
        if (rc == 0)
            rc = pv_buf_addf(out, " | %s | %s | %s |\n", value_text(h, h->base, b, sizeof b),
                             value_text(h, h->new_, v, sizeof v), d);
    }
    for (size_t i = 0; i < c->n_gates && rc == 0; i++)
        rc = pv_buf_addf(out, "%s%s **%s** %s\n", i == 0 ? "\n" : "",
                         gate_marks[c->gates[i].state], gate_words[c->gates[i].state],
                         c->gates[i].message);
    if (rc == 0)
        rc = md_items(out, "Ops", c->ops, c->n_ops, c->n_ops_added, c->n_ops_removed,
                      c->n_ops_changed, top_k);
    if (rc == 0)
        rc = md_items(out, "Kernels", c->kernels, c->n_kernels, c->n_kernels_added,
                      c->n_kernels_removed, c->n_kernels_changed, top_k);
    pv_arena_fini(&a);
    return rc;
}
