/* op_metrics_combine: one op metrics db from several hosts' (see
 * op_metrics.h, "combining hosts"). */
#include "tools/op_stats/op_metrics.h"

#include "util/hash.h"
#include "util/hashtab.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

#define MAX_COMBINED_OPS ((size_t)1 << 30)

static bool type_unknown(const char *type)
{
    return type[0] == '\0' || strcmp(type, "Unknown") == 0;
}

/* Rows grouped by a stat (PyTorch's input shapes, call stacks) add up
 * only with rows of the same value. */
static bool same_group(const pv_op_metrics *a, const pv_op_metrics *b)
{
    if (a->group_value == NULL || b->group_value == NULL)
        return a->group_value == b->group_value;
    return strcmp(a->group_value, b->group_value) == 0;
}

static void add_into(pv_op_metrics *d, const pv_op_metrics *s)
{
    if (type_unknown(d->type) && !type_unknown(s->type))
        d->type = s->type;
    d->occurrences += s->occurrences;
    d->time_ps += s->time_ps;
    d->self_time_ps += s->self_time_ps;
    d->flops += s->flops;
    d->model_flops += s->model_flops;
    d->bytes += s->bytes;
    d->is_eager = d->is_eager || s->is_eager;
}

int pv_op_metrics_combine(const pv_op_metrics_db *parts, size_t n_parts, pv_arena *a,
                          pv_op_metrics_db *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n_in = 0;
    for (size_t i = 0; i < n_parts; i++)
        n_in += parts[i].n_ops;
    if (n_in > MAX_COMBINED_OPS)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                            "more than %zu ops over all hosts", MAX_COMBINED_OPS);
    pv_hashtab by_name = {0};   /* hash of an op name -> index into ops */
    pv_hashtab_reserve(&by_name, n_in);
    pv_op_metrics *ops = pv_arena_zalloc(a, (n_in + 1) * sizeof *ops);
    size_t n = 0;
    pv_op_metrics idle = {.name = "IDLE", .type = "IDLE", .is_idle = true};
    bool any_idle = false;
    /* the first host with a device speaks for the device's peaks */
    for (size_t p = n_parts; p-- > 0;)
        if (parts[p].env.kind != PV_DEVICE_NONE)
            out->env = parts[p].env;
    for (size_t p = 0; p < n_parts; p++) {
        out->total_time_ps += parts[p].total_time_ps;
        out->total_op_time_ps += parts[p].total_op_time_ps;
        for (size_t i = 0; i < parts[p].n_ops; i++) {
            const pv_op_metrics *s = &parts[p].ops[i];
            if (s->is_idle) {
                any_idle = true;
                add_into(&idle, s);
                continue;
            }
            uint64_t h = pv_hash_bytes(PV_HASH_SEED, s->name, strlen(s->name));
            pv_hashtab_cursor c = pv_hashtab_probe(&by_name, h);
            uint32_t k;
            bool known = false;
            while (!known && pv_hashtab_next(&c, &k))
                known = strcmp(ops[k].name, s->name) == 0 && same_group(&ops[k], s);
            if (!known) {
                k = (uint32_t)n++;
                ops[k] = (pv_op_metrics){.name = s->name, .type = s->type,
                                         .group_value = s->group_value};
                pv_hashtab_insert(&by_name, &c, k);
            }
            add_into(&ops[k], s);
        }
    }
    pv_hashtab_fini(&by_name);
    if (any_idle)
        ops[n++] = idle;
    out->ops = ops;
    out->n_ops = n;
    return 0;
}
