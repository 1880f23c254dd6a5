/* compare_kernels: kernel_stats sums per launch configuration (see
 * compare_kernels.h). */
#include "compare_kernels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KEY_CAP 8192

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

static const json_t *cell(const json_t *row, int c)
{
    if (c < 0)
        return NULL;
    return json_object_get(json_array_get(json_object_get(row, "c"), (size_t)c), "v");
}

static void key_part(char *key, size_t cap, const json_t *v)
{
    size_t n = strlen(key);
    if (n > 0 && n + 1 < cap)
        key[n++] = '|';
    if (json_is_string(v))
        snprintf(key + n, cap - n, "%s", json_string_value(v));
    else if (json_is_number(v))
        snprintf(key + n, cap - n, "%.0f", json_number_value(v));
    else
        snprintf(key + n, cap - n, "-");
}

static void add(json_t *sums, const char *field, double v, int how)
{
    json_t *old = json_object_get(sums, field);
    double x = v;
    if (old != NULL && how == 0)
        x = json_number_value(old) + v;
    else if (old != NULL && how < 0)
        x = fmin(json_number_value(old), v);
    else if (old != NULL)
        x = fmax(json_number_value(old), v);
    json_object_set_new(sums, field, json_real(x));
}

json_t *pv_kernel_summary(const json_t *table)
{
    const json_t *rows = json_object_get(table, "rows");
    if (!json_is_array(rows))
        return NULL;
    static const char *const key_cols[] = {"kernel_name", "registers_per_thread", "block_dim",
                                           "grid_dim"};
    int kc[4];
    for (size_t i = 0; i < 4; i++)
        kc[i] = col(table, key_cols[i]);
    int c_occ = col(table, "occurrences"), c_total = col(table, "total_duration_us");
    int c_min = col(table, "min_duration_us"), c_max = col(table, "max_duration_us");
    json_t *ids = json_array(), *configs = json_object();
    const json_t *cols = json_object_get(table, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++)
        json_array_append(ids, json_object_get(json_array_get(cols, i), "id"));
    size_t i;
    const json_t *row;
    json_array_foreach(rows, i, row) {
        char key[KEY_CAP] = "";
        for (size_t k = 0; k < 4; k++)
            key_part(key, sizeof key, cell(row, kc[k]));
        json_t *sums = json_object_get(configs, key);
        if (sums == NULL) {
            sums = json_object();
            json_object_set_new(configs, key, sums);
        }
        add(sums, "occurrences", json_number_value(cell(row, c_occ)), 0);
        add(sums, "total_duration_us", json_number_value(cell(row, c_total)), 0);
        add(sums, "min_duration_us", json_number_value(cell(row, c_min)), -1);
        add(sums, "max_duration_us", json_number_value(cell(row, c_max)), 1);
    }
    json_t *s = json_object();
    json_object_set_new(s, "cols", ids);
    json_object_set_new(s, "n_configs", json_integer((json_int_t)json_object_size(configs)));
    json_object_set_new(s, "configs", configs);
    return s;
}
