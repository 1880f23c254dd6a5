/* csv_table: reading CSV and checking it against a DataTable (see
 * csv_table.h). */
#include "csv_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ----------------------------------------------------------------- */

typedef struct grow {
    char *s;
    size_t n, cap;
} grow;

static void grow_add(grow *g, char c)
{
    if (g->n + 1 >= g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->s = realloc(g->s, g->cap);
        if (g->s == NULL)
            abort();
    }
    g->s[g->n++] = c;
    g->s[g->n] = '\0';
}

static void record_add(pv_csv_record *r, grow *field)
{
    r->fields = realloc(r->fields, (r->n + 1) * sizeof *r->fields);
    if (r->fields == NULL)
        abort();
    r->fields[r->n++] = field->s != NULL ? field->s : calloc(1, 1);
    *field = (grow){0};
}

static void csv_add(pv_csv *c, pv_csv_record *r)
{
    c->records = realloc(c->records, (c->n + 1) * sizeof *c->records);
    if (c->records == NULL)
        abort();
    c->records[c->n++] = *r;
    *r = (pv_csv_record){0};
}

static bool fail(pv_csv *c, pv_csv_record *r, grow *g, char *why, size_t cap, size_t at,
                 const char *what)
{
    snprintf(why, cap, "record %zu, byte %zu: %s", c->n + 1, at, what);
    for (size_t i = 0; i < r->n; i++)
        free(r->fields[i]);
    free(r->fields);
    free(g->s);
    pv_csv_fini(c);
    return false;
}

bool pv_csv_parse(const char *s, size_t len, pv_csv *out, char *why, size_t cap)
{
    *out = (pv_csv){0};
    pv_csv_record rec = {0};
    grow field = {0};
    size_t i = 0;
    while (i < len) {
        /* one field, at i */
        if (s[i] == '"') {
            for (i++;; i++) {
                if (i >= len)
                    return fail(out, &rec, &field, why, cap, i, "a quote is never closed");
                if (s[i] == '"' && i + 1 < len && s[i + 1] == '"') {
                    grow_add(&field, '"');
                    i++;
                } else if (s[i] == '"') {
                    i++;
                    break;
                } else {
                    grow_add(&field, s[i]);
                }
            }
        } else {
            for (; i < len && s[i] != ',' && s[i] != '\r' && s[i] != '\n'; i++) {
                if (s[i] == '"')
                    return fail(out, &rec, &field, why, cap, i,
                                "a quote inside a field that is not quoted");
                grow_add(&field, s[i]);
            }
        }
        record_add(&rec, &field);
        /* what ends it: a comma, or CRLF, which ends the record */
        if (i < len && s[i] == ',') {
            i++;
            if (i == len)
                return fail(out, &rec, &field, why, cap, i, "the data ends after a comma");
            continue;
        }
        if (i + 1 < len && s[i] == '\r' && s[i + 1] == '\n') {
            i += 2;
            csv_add(out, &rec);
            continue;
        }
        return fail(out, &rec, &field, why, cap, i,
                    i == len ? "the last record has no CRLF"
                             : "a field is followed by neither a comma nor CRLF");
    }
    return true;
}

void pv_csv_fini(pv_csv *c)
{
    for (size_t i = 0; i < c->n; i++) {
        for (size_t k = 0; k < c->records[i].n; k++)
            free(c->records[i].fields[k]);
        free(c->records[i].fields);
    }
    free(c->records);
    *c = (pv_csv){0};
}

/* ---- checking against the table ---------------------------------------------- */

/* The text of a field written for text s. */
static bool text_is(const char *field, const char *s)
{
    if (s[0] == '=' || s[0] == '+' || s[0] == '@')
        return field[0] == '\'' && strcmp(field + 1, s) == 0;
    return strcmp(field, s) == 0;
}

/* Whether field is real d in the documented form: the shortest %.Ng, N
 * from 15 to 17, that reads back as d. */
static bool real_is(const char *field, double d)
{
    char *end = NULL;
    if (field[0] == '\0' || strtod(field, &end) != d || *end != '\0')
        return false;
    char s[64];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(s, sizeof s, "%.*g", digits, d);
        if (strtod(s, NULL) == d)
            return strcmp(s, field) == 0;
    }
    return false;
}

static bool value_is(const char *field, const json_t *v)
{
    char s[64];
    switch (v == NULL ? JSON_NULL : json_typeof(v)) {
    case JSON_STRING: return text_is(field, json_string_value(v));
    case JSON_INTEGER:
        snprintf(s, sizeof s, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return strcmp(field, s) == 0;
    case JSON_REAL: return real_is(field, json_real_value(v));
    case JSON_TRUE: return strcmp(field, "true") == 0;
    case JSON_FALSE: return strcmp(field, "false") == 0;
    case JSON_NULL: return field[0] == '\0';
    default: return false;   /* an object or array is no cell value */
    }
}

static void show(const json_t *v, char *buf, size_t cap)
{
    char *s = v != NULL ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    snprintf(buf, cap, "%.200s", s != NULL ? s : "(none)");
    free(s);
}

bool pv_csv_matches_table(const pv_csv *csv, const json_t *table, size_t *n_cells, char *why,
                          size_t cap)
{
    const json_t *cols = json_object_get(table, "cols");
    const json_t *rows = json_object_get(table, "rows");
    size_t n_cols = json_array_size(cols);
    *n_cells = 0;
    if (!json_is_array(cols) || !json_is_array(rows)) {
        snprintf(why, cap, "the JSON is not a DataTable");
        return false;
    }
    if (csv->n != json_array_size(rows) + 1) {
        snprintf(why, cap, "%zu records, want a header and %zu rows", csv->n,
                 json_array_size(rows));
        return false;
    }
    for (size_t r = 0; r < csv->n; r++) {
        const pv_csv_record *rec = &csv->records[r];
        const json_t *cells = r > 0 ? json_object_get(json_array_get(rows, r - 1), "c") : NULL;
        if (rec->n != n_cols || (r > 0 && json_array_size(cells) != n_cols)) {
            snprintf(why, cap, "record %zu: %zu fields, the table %zu columns (%zu cells)", r + 1,
                     rec->n, n_cols, json_array_size(cells));
            return false;
        }
        for (size_t k = 0; k < n_cols; k++) {
            const json_t *col = json_array_get(cols, k);
            const json_t *want = r == 0 ? json_object_get(col, "label")
                                        : json_object_get(json_array_get(cells, k), "v");
            /* a column without a label is written as an empty field */
            bool same = r == 0 && want == NULL ? rec->fields[k][0] == '\0'
                                               : value_is(rec->fields[k], want);
            (*n_cells)++;
            if (!same) {
                char w[256];
                show(want, w, sizeof w);
                const char *id = json_string_value(json_object_get(col, "id"));
                snprintf(why, cap, "record %zu, column %zu (%s): CSV \"%.200s\", JSON %s", r + 1,
                         k + 1, id != NULL ? id : "?", rec->fields[k], w);
                return false;
            }
        }
    }
    return true;
}
