/* param_read: the rules of param_read.h, one function a kind, and a
 * table read whole. */
#include "answer/param_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad_value(const char *name, const char *must, pv_error *err)
{
    return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET, "%s must be %s", name, must);
}

int pv_param_text(const pv_params *p, const char *name, const char **out, pv_error *err)
{
    bool bad = false;
    const char *v = p->get(p->ctx, name, &bad);
    if (bad)
        return bad_value(name, "UTF-8 text without NUL bytes", err);
    *out = v;
    return 0;
}

/* A whole number from min to max, as pv_param_uint reads it. */
static int uint_in(const pv_params *p, const char *name, uint64_t def, uint64_t min, uint64_t max,
                   uint64_t *out, pv_error *err)
{
    const char *v;
    if (pv_param_text(p, name, &v, err) != 0)
        return PV_EINVAL;
    if (v == NULL) {
        *out = def;
        return 0;
    }
    uint64_t x = 0;
    bool ok = v[0] != '\0';
    for (const char *s = v; ok && *s != '\0'; s++) {
        unsigned d = (unsigned)(*s - '0');
        ok = d <= 9 && x <= (UINT64_MAX - d) / 10;
        x = x * 10 + d;
    }
    if (!ok || x < min || x > max) {
        char must[64];
        snprintf(must, sizeof must, "a whole number from %llu to %llu", (unsigned long long)min,
                 (unsigned long long)max);
        return bad_value(name, must, err);
    }
    *out = x;
    return 0;
}

int pv_param_uint(const pv_params *p, const char *name, uint64_t def, uint64_t max, uint64_t *out,
                  pv_error *err)
{
    return uint_in(p, name, def, 0, max, out, err);
}

int pv_param_switch(const pv_params *p, const char *name, bool def, bool *out, pv_error *err)
{
    static const char *const words[] = {"0", "1", "false", "true", NULL};
    unsigned i;
    if (pv_param_choice(p, name, words, def ? 1u : 0u, &i, err) != 0)
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET, "%s must be 0 or 1", name);
    *out = (i & 1u) != 0;
    return 0;
}

int pv_param_choice(const pv_params *p, const char *name, const char *const *choices,
                    unsigned def, unsigned *out, pv_error *err)
{
    const char *v;
    if (pv_param_text(p, name, &v, err) != 0)
        return PV_EINVAL;
    if (v == NULL) {
        *out = def;
        return 0;
    }
    for (unsigned i = 0; choices[i] != NULL; i++) {
        if (strcmp(choices[i], v) == 0) {
            *out = i;
            return 0;
        }
    }
    char must[200] = "one of";
    for (unsigned i = 0; choices[i] != NULL; i++) {
        size_t n = strlen(must);
        snprintf(must + n, sizeof must - n, "%s %s", i == 0 ? "" : ",", choices[i]);
    }
    return bad_value(name, must, err);
}

int pv_param_number(const pv_params *p, const char *name, double lo, double hi, double *out,
                    bool *present, pv_error *err)
{
    const char *v;
    *present = false;
    if (pv_param_text(p, name, &v, err) != 0)
        return PV_EINVAL;
    if (v == NULL)
        return 0;
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    /* strtod skips leading space and reads hex, inf and nan: none of them is a
     * decimal number as a URL carries it. */
    bool ok = end != v && *end == '\0' && errno == 0 && isfinite(x) && x >= lo && x <= hi &&
              strchr("0123456789+-.", v[0]) != NULL && strpbrk(v, "xXnN") == NULL;
    if (!ok) {
        char must[96];
        snprintf(must, sizeof must, "a number from %g to %g", lo, hi);
        return bad_value(name, must, err);
    }
    *out = x;
    *present = true;
    return 0;
}

/* A list of whole numbers ("3,4,7") into a. */
static int uint_list(const pv_params *p, const pv_param_decl *d, pv_arena *a, pv_param_value *out,
                     pv_error *err)
{
    const char *v;
    if (pv_param_text(p, d->name, &v, err) != 0)
        return PV_EINVAL;
    if (v == NULL)
        return 0;
    char must[128];
    snprintf(must, sizeof must, "at most %zu whole numbers from 0 to %llu separated by commas",
             d->max_items, (unsigned long long)d->max);
    size_t cap = 1;
    for (const char *s = v; *s != '\0'; s++)
        cap += *s == ',';
    if (cap > d->max_items || v[0] == '\0')
        return bad_value(d->name, must, err);
    uint64_t *items = pv_arena_alloc(a, cap * sizeof *items);
    size_t n = 0;
    for (const char *s = v;;) {
        uint64_t x = 0;
        const char *start = s;
        for (; *s >= '0' && *s <= '9'; s++) {
            unsigned digit = (unsigned)(*s - '0');
            if (x > (UINT64_MAX - digit) / 10)
                return bad_value(d->name, must, err);
            x = x * 10 + digit;
        }
        if (s == start || x > d->max || (*s != ',' && *s != '\0'))
            return bad_value(d->name, must, err);
        items[n++] = x;
        if (*s == '\0')
            break;
        s++;
    }
    out->present = true;
    out->items = items;
    out->n_items = n;
    return 0;
}

/* One declared parameter into out. */
static int read_one(const pv_params *p, const pv_param_decl *d, pv_arena *a, pv_param_value *out,
                    pv_error *err)
{
    bool bad = false;
    out->present = p != NULL && p->get(p->ctx, d->name, &bad) != NULL;
    if (p == NULL) {
        out->u = d->def;
        return 0;
    }
    bool on;
    unsigned i;
    int rc;
    switch (d->kind) {
    case PV_PARAM_UINT:
        return uint_in(p, d->name, d->def, d->min, d->max, &out->u, err);
    case PV_PARAM_SWITCH:
        rc = pv_param_switch(p, d->name, d->def != 0, &on, err);
        out->u = on;
        return rc;
    case PV_PARAM_CHOICE:
        rc = pv_param_choice(p, d->name, d->choices, (unsigned)d->def, &i, err);
        out->u = i;
        return rc;
    case PV_PARAM_NUMBER:
        return pv_param_number(p, d->name, d->lo, d->hi, &out->x, &out->present, err);
    case PV_PARAM_TEXT:
        return pv_param_text(p, d->name, &out->text, err);
    case PV_PARAM_UINT_LIST:
        return uint_list(p, d, a, out, err);
    }
    return bad_value(d->name, "a declared kind", err);
}

int pv_params_read(const pv_param_decl *decls, size_t n, const pv_params *p, pv_arena *a,
                   pv_param_value *out, bool *missing, pv_error *err)
{
    *missing = false;
    for (size_t i = 0; i < n; i++) {
        out[i] = (pv_param_value){.u = decls[i].def};
        int rc = read_one(p, &decls[i], a, &out[i], err);
        if (rc != 0)
            return rc;
        if (decls[i].required && !out[i].present) {
            *missing = true;
            return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET, "%s is required",
                                decls[i].name);
        }
    }
    return 0;
}

const char *pv_params_key(const pv_param_values *v, const char *key, pv_arena *a)
{
    for (size_t i = 0; i < v->n; i++) {
        const pv_param_decl *d = &v->decls[i];
        const pv_param_value *x = &v->v[i];
        key = pv_arena_printf(a, "%s&%s=", key, d->name);
        switch (d->kind) {
        case PV_PARAM_UINT:
        case PV_PARAM_SWITCH:
        case PV_PARAM_CHOICE:
            key = pv_arena_printf(a, "%s%llu", key, (unsigned long long)x->u);
            break;
        case PV_PARAM_NUMBER:
            key = x->present ? pv_arena_printf(a, "%s%.17g", key, x->x)
                             : pv_arena_printf(a, "%s-", key);
            break;
        case PV_PARAM_TEXT:
            key = x->text != NULL ? pv_arena_printf(a, "%s%zu:%s", key, strlen(x->text), x->text)
                                  : pv_arena_printf(a, "%s-", key);
            break;
        case PV_PARAM_UINT_LIST:
            if (!x->present)
                key = pv_arena_printf(a, "%s-", key);
            for (size_t k = 0; x->present && k < x->n_items; k++)
                key = pv_arena_printf(a, "%s%s%llu", key, k > 0 ? "," : "",
                                      (unsigned long long)x->items[k]);
            break;
        }
    }
    return key;
}
