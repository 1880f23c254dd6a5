/* compare_json: a comparison as JSON (compare.h). Ratios are new over
 * base and null when base is 0 or either side is unknown. */
#include "report/compare.h"

static const char *const change_names[] = {"changed", "added", "removed"};
static const char *const gate_states[] = {"holds", "fails", "unknown"};

static json_t *ratio(double base, double next)
{
    return base > 0 && next >= 0 ? json_real(next / base) : json_null();
}

static json_t *pair(double base, double next)
{
    return json_pack("{s:o, s:o, s:o}", "base", pv__report_num(base), "new",
                     pv__report_num(next), "ratio", ratio(base, next));
}

static json_t *breakdown_json(const pv_comparison *c)
{
    json_t *rows = json_array();
    const pv_figures *sides[2] = {c->new_, c->base};
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < sides[s]->n_parts; i++) {
            const pv_fig_part *p = &sides[s]->parts[i];
            if (s == 1 && pv_figures_part_ms(c->new_, p->id) >= 0)
                continue;
            double base = pv_figures_part_ms(c->base, p->id);
            double next = pv_figures_part_ms(c->new_, p->id);
            json_array_append_new(rows, json_pack("{s:s, s:s, s:o, s:o}", "id", p->id, "label",
                                                  p->label, "base_ms", pv__report_num(base),
                                                  "new_ms", pv__report_num(next)));
        }
    }
    return rows;
}

static json_t *items_json(const pv_item_delta *v, size_t n, size_t added, size_t removed,
                          size_t changed, size_t top_k)
{
    json_t *top = json_array();
    for (size_t i = 0; i < n && (top_k == 0 || i < top_k); i++)
        json_array_append_new(top, json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:s}", "side",
                                             v[i].side, "name", v[i].name, "category",
                                             v[i].category, "base_us", v[i].base, "new_us",
                                             v[i].new_, "delta_us", v[i].new_ - v[i].base,
                                             "change", change_names[v[i].change]));
    return json_pack("{s:I, s:I, s:I, s:o}", "added", (json_int_t)added, "removed",
                     (json_int_t)removed, "changed", (json_int_t)changed, "top", top);
}

static json_t *named_json(const pv_named_delta *v, size_t n)
{
    json_t *all = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(all, json_pack("{s:s, s:s, s:o}", "host", v[i].host, "name",
                                             v[i].name, "value", pair(v[i].base, v[i].new_)));
    return all;
}

static json_t *gates_json(const pv_comparison *c)
{
    json_t *all = json_array();
    for (size_t i = 0; i < c->n_gates; i++) {
        const pv_gate *g = &c->gates[i];
        json_array_append_new(all, json_pack("{s:s, s:f, s:o, s:s, s:s}", "flag", g->flag,
                                             "limit", g->limit, "value",
                                             pv__report_num(g->value), "state",
                                             gate_states[g->state], "message", g->message));
    }
    return all;
}

json_t *pv_comparison_to_json(const pv_comparison *c, size_t top_k)
{
    const pv_figures *b = c->base, *n = c->new_;
    return json_pack(
        "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}", "base",
        pv_figures_to_json(b, top_k), "new", pv_figures_to_json(n, top_k), "step_time_ms",
        pair(b->step_mean_ms, n->step_mean_ms), "breakdown", breakdown_json(c), "input_percent",
        pair(b->input_percent, n->input_percent), "device_idle_percent",
        pair(b->device_idle_percent, n->device_idle_percent), "ops",
        items_json(c->ops, c->n_ops, c->n_ops_added, c->n_ops_removed, c->n_ops_changed, top_k),
        "kernels",
        items_json(c->kernels, c->n_kernels, c->n_kernels_added, c->n_kernels_removed,
                   c->n_kernels_changed, top_k),
        "memory", named_json(c->allocs, c->n_allocs), "utilization",
        named_json(c->devices, c->n_devices), "tensor_core_percent",
        pair(b->tensor_core_percent, n->tensor_core_percent), "gates", gates_json(c), "verdict",
        gate_states[c->verdict]);
}
