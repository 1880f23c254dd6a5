/* datatable: DataTable JSON builders (FORMATS.md §4.0). */
#include "tools/common/datatable.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *pv_dt_new(void)
{
    json_t *t = json_object();
    json_object_set_new(t, "cols", json_array());
    json_object_set_new(t, "rows", json_array());
    return t;
}

void pv_dt_col(json_t *t, const char *id, const char *type, const char *label, const char *role)
{
    json_t *c = json_pack("{s:s,s:s,s:s}", "id", id, "label", label, "type", type);
    if (role != NULL)
        json_object_set_new(c, "p", json_pack("{s:s}", "role", role));
    json_array_append_new(json_object_get(t, "cols"), c);
}

json_t *pv_dt_row(json_t *t)
{
    json_t *row = json_pack("{s:[]}", "c");
    json_array_append_new(json_object_get(t, "rows"), row);
    return row;
}

void pv_dt_num(json_t *row, double v)
{
    /* JSON has no NaN; a cell that cannot be computed is 0 like the
     * reference's SafeDivide. */
    json_array_append_new(json_object_get(row, "c"),
                          json_pack("{s:f}", "v", isfinite(v) ? v : 0.0));
}

void pv_dt_str(json_t *row, const char *v)
{
    /* through pv_dt_text: a name that is not UTF-8 (a legacy file's string
     * fields are whatever bytes it holds) still gets its cell */
    json_array_append_new(json_object_get(row, "c"), pv_dt_cell(pv_dt_text(v ? v : "")));
}

void pv_dt_bool(json_t *row, int v)
{
    json_array_append_new(json_object_get(row, "c"), json_pack("{s:b}", "v", v));
}

void pv_dt_prop(json_t *t, const char *key, const char *value)
{
    json_t *p = json_object_get(t, "p");
    if (p == NULL) {
        p = json_object();
        json_object_set_new(t, "p", p);
    }
    json_object_set_new(p, key, pv_dt_text(value ? value : ""));
}

void pv_dt_propf(json_t *t, const char *key, int digits, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", digits, v);
    pv_dt_prop(t, key, buf);
}

void pv_dt_prop_pct(json_t *t, const char *key, double v)
{
    char buf[64];
    if (v < 0)
        snprintf(buf, sizeof buf, "unknown");
    else
        snprintf(buf, sizeof buf, "%.1f%%", v);
    pv_dt_prop(t, key, buf);
}

json_t *pv_dt_cell(json_t *v)
{
    return json_pack("{s:o}", "v", v);
}

json_t *pv_dt_text(const char *s)
{
    json_t *j = json_string(s);
    if (j != NULL)
        return j;
    size_t n = strlen(s);
    char *c = malloc(n + 1);
    if (c == NULL)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        c[i] = (unsigned char)s[i] >= 0x80 ? '?' : s[i];
    j = json_string(c);
    free(c);
    return j;
}

json_t *pv_dt_real(double d)
{
    return json_real(isfinite(d) ? d : 0.0);
}
