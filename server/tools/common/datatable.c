/* datatable: DataTable JSON builders (FORMATS.md §4.0). */
#include "tools/common/datatable.h"

#include <math.h>
#include <stdbool.h>
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

/* ---- CSV ------------------------------------------------------------------- */

static int csv_text(pv_buf *out, const char *s)
{
    bool quote = strpbrk(s, "\",\r\n") != NULL;
    int rc = 0;
    if (quote)
        rc |= pv_buf_add(out, "\"", 1);
    if (s[0] == '=' || s[0] == '+' || s[0] == '@')
        rc |= pv_buf_add(out, "'", 1);
    for (const char *q = s; *q != '\0' && rc == 0; q++)
        rc |= *q == '"' ? pv_buf_add(out, "\"\"", 2) : pv_buf_add(out, q, 1);
    if (quote)
        rc |= pv_buf_add(out, "\"", 1);
    return rc;
}

/* The shortest of %.15g..%.17g that reads back as d, as JavaScript's
 * String(d) picks the shortest form. */
static int csv_real(pv_buf *out, double d)
{
    char s[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(s, sizeof s, "%.*g", digits, d);
        if (strtod(s, NULL) == d)
            break;
    }
    return pv_buf_adds(out, s);
}

/* A cell's value as the page's export writes it: numbers and booleans as
 * they are, null as nothing, text quoted when it must be. */
static int csv_value(pv_buf *out, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING: return csv_text(out, json_string_value(v));
    case JSON_INTEGER: return pv_buf_addf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    case JSON_REAL: return csv_real(out, json_real_value(v));
    case JSON_TRUE: return pv_buf_adds(out, "true");
    case JSON_FALSE: return pv_buf_adds(out, "false");
    default: return 0;
    }
}

int pv_dt_write_csv(const json_t *t, pv_buf *out, pv_error *err)
{
    const json_t *cols = json_object_get(t, "cols");
    const json_t *rows = json_object_get(t, "rows");
    if (!json_is_array(cols) || !json_is_array(rows))
        return pv_error_set(err, PV_EFORMAT, NULL, PV_NO_OFFSET, "not a DataTable");
    int rc = 0;
    size_t i;
    const json_t *c;
    json_array_foreach(cols, i, c) {
        const json_t *label = json_object_get(c, "label");
        rc |= i > 0 ? pv_buf_add(out, ",", 1) : 0;
        rc |= csv_text(out, json_is_string(label) ? json_string_value(label) : "");
    }
    rc |= pv_buf_add(out, "\r\n", 2);
    const json_t *r;
    json_array_foreach(rows, i, r) {
        const json_t *cells = json_object_get(r, "c");
        size_t k;
        const json_t *cell;
        json_array_foreach(cells, k, cell) {
            rc |= k > 0 ? pv_buf_add(out, ",", 1) : 0;
            rc |= csv_value(out, json_object_get(cell, "v"));
        }
        rc |= pv_buf_add(out, "\r\n", 2);
        if (rc != 0)
            break;
    }
    if (rc != 0)
        return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                            "the CSV is larger than %zu bytes", out->max);
    return 0;
}
