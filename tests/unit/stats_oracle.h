/* stats_oracle: helpers shared by the kernel_stats and op_stats tests on
 * real profiles: loading an xplane, XProf's gzip'd DataTable JSON, and the
 * TSV files extracted from TensorFlow's own per-tool files
 * (tools/reference/oracles/extract_tf_oracles.py), plus a tiny keyed
 * accumulator to compare row sets. */
#ifndef PV_TESTS_STATS_ORACLE_H
#define PV_TESTS_STATS_ORACLE_H

#include "ingest/ingest.h"
#include "gz_file.h"
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define ORACLE_MAX_JSON_BYTES ((size_t)64 << 20)
#define ORACLE_TOL 0.005 /* the 0.5 % */

static inline pv_model *oracle_load_xplane(const char *path)
{
    pv_model *m = NULL;
    pv_error err = {0};
    int rc = pv_ingest_file(path, NULL, &m, &err);
    ck_assert_msg(rc == 0, "%s: %s", path, err.reason);
    return m;
}

/* A gzip'd JSON file; NULL when it cannot be opened. */
static inline json_t *oracle_load_gz_json(const char *path)
{
    return pv_test_load_gz_json(path, ORACLE_MAX_JSON_BYTES);
}

/* Column index of id in a DataTable, or -1. */
static inline int oracle_col(json_t *table, const char *id)
{
    json_t *cols = json_object_get(table, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(cols, i), "id")), id) == 0)
            return (int)i;
    return -1;
}

static inline json_t *oracle_cell(json_t *table, size_t row, int col)
{
    json_t *r = json_array_get(json_object_get(table, "rows"), row);
    return json_object_get(json_array_get(json_object_get(r, "c"), (size_t)col), "v");
}

/* Index of the first row whose column c1 is the string v1 (and c2 is v2,
 * unless c2 is NULL), or -1. */
static inline int oracle_find_row(json_t *table, const char *c1, const char *v1, const char *c2,
                                  const char *v2)
{
    int k1 = oracle_col(table, c1), k2 = c2 != NULL ? oracle_col(table, c2) : -1;
    size_t n = json_array_size(json_object_get(table, "rows"));
    for (size_t i = 0; i < n; i++) {
        const char *a = json_string_value(oracle_cell(table, i, k1));
        const char *b = k2 >= 0 ? json_string_value(oracle_cell(table, i, k2)) : NULL;
        if (a != NULL && strcmp(a, v1) == 0 && (c2 == NULL || (b != NULL && strcmp(b, v2) == 0)))
            return (int)i;
    }
    return -1;
}

/* ---- keyed accumulator ---------------------------------------------------- */

typedef struct oracle_row {
    char *key;          /* owned */
    double count;       /* occurrences */
    double total;       /* a time (any unit, the same on both sides) */
    double self;        /* a second time, or 0 */
} oracle_row;

typedef struct oracle_set {
    oracle_row *rows;
    size_t n;
    size_t cap;
} oracle_set;

static inline oracle_row *oracle_find(oracle_set *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->rows[i].key, key) == 0)
            return &s->rows[i];
    return NULL;
}

/* Adds (count, total, self) to the row with this key, creating it. */
static inline void oracle_add(oracle_set *s, const char *key, double count, double total,
                              double self)
{
    oracle_row *r = oracle_find(s, key);
    if (r == NULL) {
        if (s->n == s->cap) {
            s->cap = s->cap == 0 ? 64 : s->cap * 2;
            s->rows = realloc(s->rows, s->cap * sizeof *s->rows);
        }
        r = &s->rows[s->n++];
        r->key = strdup(key);
        r->count = r->total = r->self = 0;
    }
    r->count += count;
    r->total += total;
    r->self += self;
}

static inline void oracle_free(oracle_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->rows[i].key);
    free(s->rows);
    memset(s, 0, sizeof *s);
}

static inline bool oracle_close(double ours, double want)
{
    double d = ours > want ? ours - want : want - ours;
    return d <= ORACLE_TOL * (want > 0 ? want : -want) + 1e-9;
}

/* Every key of want is in ours and the other way round (unless
 * subset_ok); counts equal (unless skip_counts); totals and self times
 * within 0.5 %. what names the comparison in failure messages. */
static inline void oracle_compare(oracle_set *ours, oracle_set *want, bool subset_ok,
                                  bool skip_counts, const char *what)
{
    if (!subset_ok)
        ck_assert_msg(ours->n == want->n, "%s: %zu rows here, %zu in the oracle", what,
                      ours->n, want->n);
    for (size_t i = 0; i < want->n; i++) {
        oracle_row *w = &want->rows[i];
        oracle_row *o = oracle_find(ours, w->key);
        ck_assert_msg(o != NULL, "%s: oracle row missing here: %s", what, w->key);
        if (!skip_counts)
            ck_assert_msg(o->count == w->count, "%s: %s: %.0f occurrences here, %.0f there",
                          what, w->key, o->count, w->count);
        ck_assert_msg(oracle_close(o->total, w->total), "%s: %s: total %.3f here, %.3f there",
                      what, w->key, o->total, w->total);
        ck_assert_msg(oracle_close(o->self, w->self), "%s: %s: self %.3f here, %.3f there",
                      what, w->key, o->self, w->self);
    }
}

/* Splits a TSV line in place into at most max fields; returns the count. */
static inline size_t oracle_split_tsv(char *line, char **fields, size_t max)
{
    size_t n = 0;
    line[strcspn(line, "\n")] = '\0';
    while (n < max) {
        fields[n++] = line;
        char *tab = strchr(line, '\t');
        if (tab == NULL)
            break;
        *tab = '\0';
        line = tab + 1;
    }
    return n;
}

#endif
