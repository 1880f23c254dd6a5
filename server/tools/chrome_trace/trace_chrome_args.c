/* trace_chrome_args: what the Chrome JSON says about one event beyond its
 * place and time: its args (metadata stats its own do not repeat, its own,
 * the ones the reference's grouping derives), the flow the reference gives
 * it, step names, and the values of counter samples. Stats are read with
 * the model's accessors (events' own ones from the profile, model.h). */
#include "tools/chrome_trace/trace_chrome_priv.h"
#include "tools/trace_derived/trace_step_names.h"

#include "util/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Event e's own stats, in c->own; returns how many. */
size_t pv__chrome_own_stats(chrome_ctx *c, uint64_t e)
{
    if (c->own_ev == e)
        return c->n_own;
    size_t n = pv_model_event_own_stats_into(c->m, e, &c->own, &c->cap_own);
    c->own_ev = e;
    c->n_own = n;
    return n;
}

/* Stats the reference keeps out of the trace viewer's args (FORMATS §3.3). */
bool pv__chrome_internal_stat(const char *name)
{
    static const char *const hidden[] = {"_pt", "_p", "_ct", "_c", "_r", "flops",
                                         "program_id", "symbol_id", NULL};
    for (size_t i = 0; hidden[i] != NULL; i++)
        if (strcmp(name, hidden[i]) == 0)
            return true;
    return false;
}

/* ps as exact microseconds: "12.345678" without trailing zeros. */
void pv__chrome_write_us(pv__jw *w, int64_t ps)
{
    if (ps < 0) {
        pv__jw_raw(w, "-", 1);
        ps = -ps;
    }
    pv__jw_u64(w, (uint64_t)(ps / 1000000));
    int64_t frac = ps % 1000000;
    if (frac == 0)
        return;
    char tmp[8];
    tmp[0] = '.';
    for (int i = 6; i >= 1; i--) {
        tmp[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    size_t n = 7;
    while (tmp[n - 1] == '0')
        n--;
    pv__jw_raw(w, tmp, n);
}

void pv__chrome_write_stat_value(pv__jw *w, const pv_model *m, const pv_stat *s, bool native)
{
    char tmp[48];
    bool is_str = s->type == PV_STAT_STR || s->type == PV_STAT_WSTR;
    if (!native && !is_str)
        pv__jw_raw(w, "\"", 1);
    switch (s->type) {
    case PV_STAT_I64:
        if (native)
            pv__jw_i64_safe(w, s->v.i64);
        else
            pv__jw_i64(w, s->v.i64);
        break;
    case PV_STAT_U64:
        if (native)
            pv__jw_u64_safe(w, s->v.u64);
        else
            pv__jw_u64(w, s->v.u64);
        break;
    case PV_STAT_F64:
        if (native) {
            pv__jw_f64(w, s->v.f64);
        } else {
            int n = snprintf(tmp, sizeof tmp, "%.17g", s->v.f64);
            pv__jw_raw(w, tmp, (size_t)n);
        }
        break;
    case PV_STAT_STR:
        pv__jw_str(w, pv_model_str(m, s->v.str));
        break;
    case PV_STAT_WSTR: {
        size_t len;
        const char *text = pv_model_stat_text(m, s, &len);
        pv__jw_strn(w, text != NULL ? text : "", len);
        break;
    }
    case PV_STAT_BYTES:
    case PV_STAT_WBYTES:
        /* XProf 2.24.2 does not say how long; the event route (api/trace/
         * event) does. */
        pv__jw_lit(w, native ? "\"<opaque bytes>\"" : "<opaque bytes>");
        break;
    default:
        pv__jw_lit(w, native ? "null" : "");
        break;
    }
    if (!native && !is_str)
        pv__jw_raw(w, "\"", 1);
}

/* A ",name:value" arg, value an integer that the legacy route writes as a
 * string. */
void pv__chrome_write_int_arg(chrome_ctx *c, bool *first, const char *name, uint64_t v)
{
    if (!*first)
        pv__jw_raw(c->w, ",", 1);
    *first = false;
    pv__jw_str(c->w, name);
    pv__jw_raw(c->w, ":", 1);
    if (!c->native)
        pv__jw_raw(c->w, "\"", 1);
    if (c->native)
        pv__jw_u64_safe(c->w, v);
    else
        pv__jw_u64(c->w, v);
    if (!c->native)
        pv__jw_raw(c->w, "\"", 1);
}

/* args: group_id first, then metadata stats not repeated by the event's
 * own stats, then its own, then the derived ones the file does not
 * already carry; long_name when a display name was used. */
void pv__chrome_write_args(chrome_ctx *c, uint64_t e, const derived_args *d)
{
    const pv_model *m = c->m;
    pv__jw *w = c->w;
    const pv_event_meta *meta = &m->metas[m->ev_meta[e]];
    uint64_t n_own = pv__chrome_own_stats(c, e);
    const pv_stat *own = c->own;
    bool first = true;
    pv__jw_lit(w, ",\"args\":{");
    if (m->ev_group[e] != PV_NO_GROUP) {
        pv__jw_lit(w, c->native ? "\"group_id\":" : "\"group_id\":\"");
        pv__jw_i64(w, m->ev_group[e]);
        if (!c->native)
            pv__jw_raw(w, "\"", 1);
        first = false;
    }
    bool has_step_name = false, has_is_eager = false, has_flow = false;
    for (int pass = 0; pass < 2; pass++) {
        const pv_stat *s = pass == 0 ? m->stats + meta->first_stat : own;
        uint64_t n = pass == 0 ? meta->n_stats : n_own;
        for (uint64_t i = 0; i < n; i++) {
            const char *name = pv_model_str(m, s[i].name);
            if (pv__chrome_internal_stat(name) || strcmp(name, "group_id") == 0)
                continue;
            bool shadowed = false;
            for (uint64_t k = 0; pass == 0 && k < n_own && !shadowed; k++)
                shadowed = own[k].name == s[i].name;
            if (shadowed)
                continue;
            has_step_name = has_step_name || s[i].name == c->s_step_name;
            has_is_eager = has_is_eager || s[i].name == c->s_is_eager;
            has_flow = has_flow || s[i].name == c->s_flow;
            if (!first)
                pv__jw_raw(w, ",", 1);
            first = false;
            pv__jw_str(w, name);
            pv__jw_raw(w, ":", 1);
            pv__chrome_write_stat_value(w, m, &s[i], c->native);
        }
    }
    if (d->step_name != NULL && !has_step_name) {
        if (!first)
            pv__jw_raw(w, ",", 1);
        first = false;
        pv__jw_lit(w, "\"step_name\":");
        pv__jw_str(w, d->step_name);
    }
    if (d->is_eager >= 0 && !has_is_eager)
        pv__chrome_write_int_arg(c, &first, "is_eager", (uint64_t)d->is_eager);
    if (d->flow != 0 && !has_flow)
        pv__chrome_write_int_arg(c, &first, "flow", d->flow);
    if (meta->display_name != 0) {
        if (!first)
            pv__jw_raw(w, ",", 1);
        pv__jw_lit(w, "\"long_name\":");
        pv__jw_str(w, pv_model_str(m, meta->name));
    }
    pv__jw_raw(w, "}", 1);
}

/* An integer stat among the event's own stats (not its metadata's: the
 * reference adds flows from what each occurrence carries). */
bool pv__chrome_own_int(chrome_ctx *c, uint64_t e, uint32_t name, uint64_t *v)
{
    if (name == 0)
        return false;
    uint64_t n = pv__chrome_own_stats(c, e);
    for (uint64_t i = 0; i < n; i++) {
        const pv_stat *s = &c->own[i];
        if (s->name != name)
            continue;
        if (s->type == PV_STAT_I64 || s->type == PV_STAT_U64) {
            *v = s->type == PV_STAT_I64 ? (uint64_t)s->v.i64 : s->v.u64;
            return true;
        }
    }
    return false;
}

static uint64_t encode_flow(uint64_t category, uint64_t id, uint32_t direction)
{
    uint64_t key[2] = {category, id};
    uint64_t flow_id = pv_hash_bytes(PV_HASH_SEED, key, sizeof key) & FLOW_ID_MASK;
    return (category & 63u) << 58 | flow_id << 2 | direction;
}

/* The flow the reference gives an event: from its consumer stats, else
 * its producer stats, else its correlation_id (out on the host, in on a
 * device); 0 when none. Producer and consumer ends of one context get the
 * same id, so the pairs can be followed in the JSON. */
uint64_t pv__chrome_event_flow(chrome_ctx *c, uint64_t e, bool host)
{
    uint64_t type = 0, id = 0;
    if (pv__chrome_own_int(c, e, c->s_ct, &type) && pv__chrome_own_int(c, e, c->s_c, &id))
        return encode_flow(type, id, FLOW_IN);
    if (pv__chrome_own_int(c, e, c->s_pt, &type) && pv__chrome_own_int(c, e, c->s_p, &id))
        return encode_flow(type, id, FLOW_OUT);
    if (pv__chrome_own_int(c, e, c->s_corr, &id))
        return encode_flow(FLOW_CATEGORY_LAUNCH, id, host ? FLOW_OUT : FLOW_IN);
    return 0;
}

/* The event's own flow stat (a file TensorFlow grouped carries them), 0
 * when none. */
uint64_t pv__chrome_flow_stat(const chrome_ctx *c, uint64_t e)
{
    pv_stat s;
    /* An integer flow stat, its own or its metadata's, marks the event's
     * extra row, so an event without the mark has none to read. */
    const pv_event_extra *x = pv_model_event_extra(c->m, e);
    if (c->s_flow == 0 || x == NULL || !(x->flags & PV_EXTRA_FLOW) ||
        !pv_model_event_stat(c->m, e, c->s_flow, &s) ||
        (s.type != PV_STAT_I64 && s.type != PV_STAT_U64))
        return 0;
    return s.type == PV_STAT_I64 ? (uint64_t)s.v.i64 : s.v.u64;
}

/* The string id of the event's step_name stat, 0 when none. */
uint32_t pv__chrome_step_name_id(const chrome_ctx *c, uint64_t e)
{
    return pv_trace_step_name_stat(c->m, c->s_step_name, e);
}

bool pv__chrome_is_op_by_op(const chrome_ctx *c, uint64_t e)
{
    pv_stat s;
    if (c->s_is_func == 0 || !pv_model_event_stat(c->m, e, c->s_is_func, &s))
        return false;
    return (s.type == PV_STAT_I64 && s.v.i64 == 0) || (s.type == PV_STAT_U64 && s.v.u64 == 0);
}

/* Whether a stat of a counter sample is one of its values: XProf leaves
 * out what it leaves out of args, the grouping's ids and bytes. */
static bool counter_value_stat(const chrome_ctx *c, const pv_stat *s)
{
    const char *name = pv_model_str(c->m, s->name);
    return s->type != PV_STAT_BYTES && !pv__chrome_internal_stat(name) && strcmp(name, "group_id") != 0 &&
           s->name != c->s_flow && strcmp(name, "_a") != 0;
}

/* A counter sample's values, in XProf's arg order: long_name when a display
 * name was used, the metadata's stats its own do not repeat, its own.
 * Writes the values (with a leading comma each) when w is set; returns the
 * first value's name (NULL: no values). */
const char *pv__chrome_counter_values(chrome_ctx *c, uint64_t e, pv__jw *w)
{
    const pv_model *m = c->m;
    const pv_event_meta *meta = &m->metas[m->ev_meta[e]];
    uint64_t n_own = pv__chrome_own_stats(c, e);
    const pv_stat *own = c->own;
    const char *first = NULL;
    if (meta->display_name != 0) {
        first = "long_name";
        if (w != NULL) {
            pv__jw_raw(w, ",", 1);
            pv__jw_str(w, pv_model_str(m, meta->name));
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        const pv_stat *st = pass == 0 ? m->stats + meta->first_stat : own;
        uint64_t n = pass == 0 ? meta->n_stats : n_own;
        for (uint64_t i = 0; i < n; i++) {
            bool shadowed = false;
            for (uint64_t k = 0; pass == 0 && k < n_own && !shadowed; k++)
                shadowed = own[k].name == st[i].name;
            if (shadowed || !counter_value_stat(c, &st[i]))
                continue;
            if (first == NULL)
                first = pv_model_str(m, st[i].name);
            if (w != NULL) {
                pv__jw_raw(w, ",", 1);
                pv__chrome_write_stat_value(w, m, &st[i], true);
            }
        }
    }
    return first;
}
