/* params: the rules of params.h, one function a kind. */
#include "tools/common/params.h"

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

int pv_param_uint(const pv_params *p, const char *name, uint64_t def, uint64_t max, uint64_t *out,
                  pv_error *err)
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
    if (!ok || x > max) {
        char must[64];
        snprintf(must, sizeof must, "a whole number from 0 to %llu", (unsigned long long)max);
        return bad_value(name, must, err);
    }
    *out = x;
    return 0;
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
