/* compare_kernels: kernel_stats rows as XProf would have merged them (see
 * compare_kernels.h). */
#include "compare_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_CAP 8192

/* XProf's row key (kernel_stats_utils.cc's KernelReportHash). */
static const char *const XPROF_KEY[] = {
    "kernel_name",  "registers_per_thread", "shmem_bytes", "block_dim", "grid_dim",
    "is_kernel_using_tensor_core", "is_op_tensor_core_eligible", "op_name"};
#define N_KEY (sizeof XPROF_KEY / sizeof XPROF_KEY[0])

static int col(const json_t *table, const char *id)
{
    const json_t *cols = json_object_get(table, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *c = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        if (c != NULL && strcmp(c, id) == 0)
            return (int)i;
    }
    return -1;
}

static json_t *cell(const json_t *row, int c)
{
    if (c < 0)
        return NULL;
    return json_object_get(json_array_get(json_object_get(row, "c"), (size_t)c), "v");
}

static void set_cell(json_t *row, int c, json_t *v)
{
    json_t *slot = json_array_get(json_object_get(row, "c"), (size_t)c);
    if (slot != NULL)
        json_object_set_new(slot, "v", v);
    else
        json_decref(v);
}

static double num(const json_t *row, int c)
{
    return json_number_value(cell(row, c));
}

/* XProf's key of row, without the columns it cannot see (unseen[k]). */
static void row_key(const json_t *table, const json_t *row, const bool *unseen, char *key,
                    size_t cap)
{
    size_t n = 0;
    key[0] = '\0';
    for (size_t k = 0; k < N_KEY && n < cap; k++) {
        if (unseen[k])
            continue;
        char *s = json_dumps(cell(row, col(table, XPROF_KEY[k])), JSON_ENCODE_ANY | JSON_COMPACT);
        n += (size_t)snprintf(key + n, cap - n, "%s%s", k ? "|" : "", s ? s : "-");
        free(s);
    }
}

/* Numbers each row with how many rows before it have the same cells: in
 * an ALL_HOSTS table (the hosts' rows side by side, as XProf builds it)
 * the k-th of equal rows is the k-th host's, and only one host's rows
 * may merge. Within one host no two rows are equal. */
static json_t *host_copies(const json_t *table)
{
    json_t *seen = json_object(), *copies = json_array();
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(table, "rows"), i, row) {
        json_t *c = json_deep_copy(json_object_get(row, "c"));
        json_t *first = json_array_get(c, 0);
        if (first != NULL)
            json_object_del(first, "v");   /* the rank, which never repeats */
        char *key = json_dumps(c, JSON_COMPACT);
        json_decref(c);
        json_int_t k = json_integer_value(json_object_get(seen, key)) + 1;
        json_object_set_new(seen, key, json_integer(k));
        json_array_append_new(copies, json_integer(k));
        free(key);
    }
    json_decref(seen);
    return copies;
}

/* Which of XProf's key columns an UNSEEN rule names (unseen[k]); returns
 * how many. */
static size_t unseen_columns(const pv_jc_rule *rules, const char *tool, const char *where,
                             pv_jc_result *r, bool *unseen)
{
    size_t n = 0;
    for (size_t k = 0; k < N_KEY; k++) {
        unseen[k] = pv_jc_rule_find(rules, r->use, PV_JC_UNSEEN, tool, where, XPROF_KEY[k]) !=
                    NULL;
        n += unseen[k];
    }
    return n;
}

/* Sets the cells the AS_REFERENCE rules name where our value fits the
 * rule's ours_is; returns how many changed. */
static size_t as_reference(json_t *table, const pv_jc_rule *rules, const char *tool,
                           const char *where, pv_jc_result *r)
{
    size_t changed = 0;
    const json_t *cols = json_object_get(table, "cols");
    for (size_t c = 0; c < json_array_size(cols); c++) {
        const char *id = json_string_value(json_object_get(json_array_get(cols, c), "id"));
        const pv_jc_rule *rule =
            id != NULL ? pv_jc_rule_find(rules, NULL, PV_JC_AS_REFERENCE, tool, where, id) : NULL;
        if (rule == NULL)
            continue;
        json_t *want = json_loads(rule->arg, JSON_DECODE_ANY, NULL);
        size_t i;
        json_t *row;
        json_array_foreach(json_object_get(table, "rows"), i, row) {
            json_t *v = cell(row, (int)c);
            if (want == NULL || json_equal(v, want) || !pv_jc_value_is(rule->ours_is, v))
                continue;
            /* counted only when it changes something, so a rule left
             * over after profview stops knowing more fails the harness */
            pv_jc_rule_find(rules, r->use, PV_JC_AS_REFERENCE, tool, where, id);
            if (r->use != NULL) {
                char row_path[64];
                snprintf(row_path, sizeof row_path, "/rows[%zu]", i);
                pv_jc_use_row(&r->use[rule - rules], where, row_path);
            }
            char *was = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            char msg[512];
            snprintf(msg, sizeof msg, "[%zu]/%s: ours %.200s, shown as the reference's %s", i, id,
                     was ? was : "?", rule->arg);
            free(was);
            pv_jc_accept(r, rule, msg);
            set_cell(row, (int)c, json_deep_copy(want));
            changed++;
        }
        json_decref(want);
    }
    return changed;
}

typedef struct sort_cols {
    int total, name, grid, block, regs, shm, tc, eligible, op;
} sort_cols;

/* "x,y,z" against "x,y,z", numerically from x on. */
static int cmp_dim(const json_t *a, const json_t *b)
{
    unsigned long x[3] = {0, 0, 0}, y[3] = {0, 0, 0};
    sscanf(json_string_value(a) ? json_string_value(a) : "", "%lu,%lu,%lu", &x[0], &x[1], &x[2]);
    sscanf(json_string_value(b) ? json_string_value(b) : "", "%lu,%lu,%lu", &y[0], &y[1], &y[2]);
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static int cmp_num(const json_t *a, const json_t *b)
{
    double x = json_is_boolean(a) ? json_is_true(a) : json_number_value(a);
    double y = json_is_boolean(b) ? json_is_true(b) : json_number_value(b);
    return x < y ? -1 : x > y;
}

/* Total time descending, ties in XProf's key order (name, grid, block,
 * registers, shared memory, TensorCore use, eligibility, op), so that a
 * merged table's ranks do not follow the order the rows came in. */
static int cmp_total_desc(const void *pa, const void *pb, void *ctx)
{
    const sort_cols *k = ctx;
    const json_t *x = *(json_t *const *)pa, *y = *(json_t *const *)pb;
    int c = -cmp_num(cell(x, k->total), cell(y, k->total));
    if (c == 0)
        c = strcmp(json_string_value(cell(x, k->name)), json_string_value(cell(y, k->name)));
    if (c == 0)
        c = cmp_dim(cell(x, k->grid), cell(y, k->grid));
    if (c == 0)
        c = cmp_dim(cell(x, k->block), cell(y, k->block));
    const int nums[] = {k->regs, k->shm, k->tc, k->eligible};
    for (size_t i = 0; c == 0 && i < sizeof nums / sizeof nums[0]; i++)
        c = cmp_num(cell(x, nums[i]), cell(y, nums[i]));
    if (c == 0)
        c = strcmp(json_string_value(cell(x, k->op)), json_string_value(cell(y, k->op)));
    return c;
}

/* Whether add is one of the " + "-separated parts of have. */
static bool has_part(const char *have, const char *add)
{
    size_t n = strlen(add);
    for (const char *p = have;;) {
        const char *end = strstr(p, " + ");
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, add, n) == 0)
            return true;
        if (end == NULL)
            return false;
        p = end + 3;
    }
}

/* Adds our value of an unseen column to the merged cell: " + " between
 * distinct values, in the order the rows come. */
static void join_cell(json_t *into, int c, const json_t *row)
{
    const char *have = json_string_value(cell(into, c));
    const char *add = json_string_value(cell(row, c));
    if (have == NULL || add == NULL || has_part(have, add))
        return;
    size_t len = strlen(have) + strlen(add) + 4;
    char *joined = malloc(len);
    if (joined == NULL)
        abort();
    snprintf(joined, len, "%s + %s", have, add);
    set_cell(into, c, json_string(joined));
    free(joined);
}

/* Merges rows with XProf's key (and host copy), our values of the columns
 * it cannot see joined, and ranks them again. */
static void merge_rows(json_t *table, const json_t *copies, const bool *unseen)
{
    json_t *rows = json_object_get(table, "rows");
    int c_occ = col(table, "occurrences"), c_total = col(table, "total_duration_us");
    int c_avg = col(table, "avg_duration_us"), c_min = col(table, "min_duration_us");
    int c_max = col(table, "max_duration_us"), c_rank = col(table, "rank");
    json_t *by_key = json_object(), *merged = json_array();
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        char key[KEY_CAP];
        row_key(table, row, unseen, key, sizeof key);
        size_t len = strlen(key);
        snprintf(key + len, sizeof key - len, "#%lld",
                 (long long)json_integer_value(json_array_get(copies, i)));
        json_t *into = json_object_get(by_key, key);
        if (into == NULL) {
            json_object_set(by_key, key, row);
            json_array_append(merged, row);
            continue;
        }
        set_cell(into, c_occ, json_real(num(into, c_occ) + num(row, c_occ)));
        set_cell(into, c_total, json_real(num(into, c_total) + num(row, c_total)));
        set_cell(into, c_min, json_real(fmin(num(into, c_min), num(row, c_min))));
        set_cell(into, c_max, json_real(fmax(num(into, c_max), num(row, c_max))));
        for (size_t k = 0; k < N_KEY; k++)
            if (unseen[k])
                join_cell(into, col(table, XPROF_KEY[k]), row);
    }
    size_t n = json_array_size(merged);
    json_t **v = calloc(n + 1, sizeof *v);
    json_array_foreach(merged, i, row) {
        double occ = num(row, c_occ), total_ns = round(num(row, c_total) * 1000.0);
        set_cell(row, c_avg, json_real(occ > 0 ? floor(total_ns / occ) / 1000.0 : 0.0));
        v[i] = row;
    }
    sort_cols k = {c_total,
                   col(table, "kernel_name"),
                   col(table, "grid_dim"),
                   col(table, "block_dim"),
                   col(table, "registers_per_thread"),
                   col(table, "shmem_bytes"),
                   col(table, "is_kernel_using_tensor_core"),
                   col(table, "is_op_tensor_core_eligible"),
                   col(table, "op_name")};
    qsort_r(v, n, sizeof *v, cmp_total_desc, &k);
    json_t *sorted = json_array();
    for (i = 0; i < n; i++) {
        set_cell(v[i], c_rank, json_real((double)(i + 1)));
        json_array_append(sorted, v[i]);
    }
    json_object_set_new(table, "rows", sorted);
    free(v);
    json_decref(merged);
    json_decref(by_key);
}

json_t *pv_kernel_table(const json_t *table, const pv_jc_rule *rules, const char *tool,
                        const char *where, pv_jc_result *r)
{
    if (!json_is_array(json_object_get(table, "rows")) ||
        !json_is_array(json_object_get(table, "cols")))
        return NULL;
    json_t *t = json_deep_copy(table);
    json_t *copies = host_copies(t);
    bool unseen[N_KEY] = {false};
    if (rules != NULL) {
        size_t n_unseen = unseen_columns(rules, tool, where, r, unseen);
        if (as_reference(t, rules, tool, where, r) + n_unseen > 0)
            merge_rows(t, copies, unseen);
    }
    json_decref(copies);
    return t;
}
