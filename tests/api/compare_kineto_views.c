/* compare_kineto_views: each view of compare_kineto, one function per
 * view: torch-tb-profiler's or HTA's answer (ref) against profview's
 * (ours), value by value through compare_kineto_rules.h. The views are
 * described in compare_kineto.c's header. */
#include "compare_kineto_views.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- DataTables ------------------------------------------------------------- */

/* The cell of column id in row of DataTable t, as a number (strings that
 * hold one too); NAN when absent. */
static double cell_num(json_t *t, json_t *row, const char *id)
{
    json_t *cols = json_object_get(t, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *c = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        if (c == NULL || strcmp(c, id) != 0)
            continue;
        json_t *v = json_object_get(json_array_get(json_object_get(row, "c"), i), "v");
        return json_is_string(v) ? strtod(json_string_value(v), NULL) : json_number_value(v);
    }
    return NAN;
}

static const char *cell_str(json_t *t, json_t *row, const char *id)
{
    json_t *cols = json_object_get(t, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *c = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        if (c != NULL && strcmp(c, id) == 0)
            return json_string_value(
                json_object_get(json_array_get(json_object_get(row, "c"), i), "v"));
    }
    return NULL;
}

/* ---- the views ---------------------------------------------------------------- */

static json_t *find_op_row(json_t *t, const char *side, const char *name)
{
    json_t *rows = json_object_get(t, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        const char *s = cell_str(t, r, "host_or_device"), *op = cell_str(t, r, "operation");
        if (s != NULL && op != NULL && strcmp(s, side) == 0 && strcmp(op, name) == 0)
            return r;
    }
    return NULL;
}

static void compare_operator(kv_tally *t, json_t *ref, json_t *ours)
{
    json_t *table = json_array_get(ours, 1);   /* without IDLE: PyTorch has none */
    json_t *data = json_object_get(ref, "data");
    size_t n_host = 0;
    json_t *rows = json_object_get(table, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        const char *s = cell_str(table, json_array_get(rows, i), "host_or_device");
        n_host += s != NULL && strcmp(s, "Host") == 0;
    }
    kv_count(t, "operators", "rows", (double)n_host, (double)json_array_size(data));
    for (size_t i = 0; i < json_array_size(data); i++) {
        json_t *op = json_array_get(data, i);
        const char *name = json_string_value(json_object_get(op, "name"));
        json_t *h = find_op_row(table, "Host", name), *d = find_op_row(table, "Device", name);
        if (h == NULL) {
            kv_count(t, name, "missing", 1, 0);
            continue;
        }
        kv_count(t, name, "calls", cell_num(table, h, "occurrences"),
                    json_number_value(json_object_get(op, "calls")));
        kv_time(t, name, "host_total", cell_num(table, h, "total_time"),
                   json_number_value(json_object_get(op, "host_total_duration")));
        kv_time(t, name, "host_self", cell_num(table, h, "total_self_time"),
                   json_number_value(json_object_get(op, "host_self_duration")));
        kv_time(t, name, "device_total", d != NULL ? cell_num(table, d, "total_time") : 0,
                   json_number_value(json_object_get(op, "device_total_duration")));
        kv_time(t, name, "device_self", d != NULL ? cell_num(table, d, "total_self_time") : 0,
                   json_number_value(json_object_get(op, "device_self_duration")));
    }
}

typedef struct kernel_sum {
    const char *name;
    double calls, total, min, max;
} kernel_sum;

static void compare_kernel(kv_tally *t, json_t *ref, json_t *ours)
{
    json_t *rows = json_object_get(ours, "rows");
    size_t n = 0;
    kernel_sum *sums = calloc(json_array_size(rows) + 1, sizeof *sums);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        const char *name = cell_str(ours, r, "kernel_name");
        size_t k = 0;
        while (k < n && strcmp(sums[k].name, name) != 0)
            k++;
        if (k == n)
            sums[n++] = (kernel_sum){name, 0, 0, INFINITY, 0};
        sums[k].calls += cell_num(ours, r, "occurrences");
        sums[k].total += cell_num(ours, r, "total_duration_us");
        sums[k].min = fmin(sums[k].min, cell_num(ours, r, "min_duration_us"));
        sums[k].max = fmax(sums[k].max, cell_num(ours, r, "max_duration_us"));
    }
    /* the reference's table: name, TensorCores, calls, total, mean, max, min, ... */
    json_t *krows = json_object_get(json_object_get(json_object_get(ref, "by_kernel"), "data"),
                                    "rows");
    kv_count(t, "kernels", "names", (double)n, (double)json_array_size(krows));
    for (size_t i = 0; i < json_array_size(krows); i++) {
        json_t *r = json_array_get(krows, i);
        const char *name = json_string_value(json_array_get(r, 0));
        size_t k = 0;
        while (k < n && strcmp(sums[k].name, name) != 0)
            k++;
        if (k == n) {
            kv_count(t, name, "missing", 1, 0);
            continue;
        }
        kv_count(t, name, "calls", sums[k].calls, json_number_value(json_array_get(r, 2)));
        kv_time(t, name, "total", sums[k].total, json_number_value(json_array_get(r, 3)));
        kv_time(t, name, "max", sums[k].max, json_number_value(json_array_get(r, 5)));
        kv_time(t, name, "min", sums[k].min, json_number_value(json_array_get(r, 6)));
    }
    free(sums);
}

/* torch-tb-profiler's "Kernel" table grouped by operator (kernel.json.gz's
 * by_op): one row per kernel, operator, grid, block, registers per thread
 * and shared memory, with calls, total, max and min, and whether the
 * kernel uses Tensor Cores and its operator could. kernel_stats' rows of
 * the same key are summed (a flag: set when set on one of them). A row of
 * theirs ours lacks, or one of ours theirs lacks, is a difference: this is
 * where a kernel credited to the wrong operator shows. The two write some
 * things differently, read here as the same: grid and block "x,y,z"
 * against "[x, y, z]" (no grid in the trace: "0,0,0" against "None"), and
 * a kernel no operator launched has an empty op name against
 * torch-tb-profiler's root of its call tree, "CallTreeRoot". */
static void dims(char *out, size_t cap, const char *d)
{
    size_t n = 0;
    if (d == NULL || strcmp(d, "None") == 0)
        d = "0,0,0";
    for (const char *p = d; *p != '\0' && n + 1 < cap; p++)
        if (strchr("[] ", *p) == NULL)
            out[n++] = *p;
    out[n] = '\0';
}

static void kernel_op_key(char *key, size_t cap, const char *name, const char *op,
                          const char *grid, const char *block, double regs, double shm)
{
    char g[64], b[64];
    dims(g, sizeof g, grid);
    dims(b, sizeof b, block);
    if (op != NULL && strcmp(op, "CallTreeRoot") == 0)
        op = "";
    snprintf(key, cap, "%s | op %s | grid %s | block %s | %g regs | %g shm", name,
             op != NULL ? op : "?", g, b, regs, shm);
}

static bool cell_bool(json_t *t, json_t *row, const char *id)
{
    json_t *cols = json_object_get(t, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *c = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        if (c != NULL && strcmp(c, id) == 0)
            return json_is_true(json_object_get(json_array_get(json_object_get(row, "c"), i),
                                                "v"));
    }
    return false;
}

/* One key's sum of our rows. */
typedef struct kernel_op_sum {
    double calls, total, min, max;
    bool tc, eligible;
    bool in_reference;
} kernel_op_sum;

static void compare_kernel_op(kv_tally *t, json_t *ref, json_t *ours)
{
    json_t *index = json_object();   /* key -> position in sums */
    json_t *rows = json_object_get(ours, "rows");
    kernel_op_sum *sums = calloc(json_array_size(rows) + 1, sizeof *sums);
    size_t n = 0;
    char key[4096];
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        kernel_op_key(key, sizeof key, cell_str(ours, r, "kernel_name"),
                      cell_str(ours, r, "op_name"), cell_str(ours, r, "grid_dim"),
                      cell_str(ours, r, "block_dim"), cell_num(ours, r, "registers_per_thread"),
                      cell_num(ours, r, "shmem_bytes"));
        json_t *at = json_object_get(index, key);
        kernel_op_sum *s = &sums[at != NULL ? (size_t)json_integer_value(at) : n];
        if (at == NULL) {
            json_object_set_new(index, key, json_integer((json_int_t)n++));
            *s = (kernel_op_sum){0, 0, INFINITY, 0, false, false, false};
        }
        s->calls += cell_num(ours, r, "occurrences");
        s->total += cell_num(ours, r, "total_duration_us");
        s->min = fmin(s->min, cell_num(ours, r, "min_duration_us"));
        s->max = fmax(s->max, cell_num(ours, r, "max_duration_us"));
        s->tc = s->tc || cell_bool(ours, r, "is_kernel_using_tensor_core");
        s->eligible = s->eligible || cell_bool(ours, r, "is_op_tensor_core_eligible");
    }
    /* theirs: name, operator, grid, block, registers, shared memory, uses
     * Tensor Cores, op eligible, calls, total, mean, max, min, ... */
    json_t *krows = json_object_get(json_object_get(json_object_get(ref, "by_op"), "data"),
                                    "rows");
    for (size_t i = 0; i < json_array_size(krows); i++) {
        json_t *r = json_array_get(krows, i);
        const char *regs = json_string_value(json_array_get(r, 4));
        const char *shm = json_string_value(json_array_get(r, 5));
        kernel_op_key(key, sizeof key, json_string_value(json_array_get(r, 0)),
                      json_string_value(json_array_get(r, 1)),
                      json_string_value(json_array_get(r, 2)),
                      json_string_value(json_array_get(r, 3)), regs ? strtod(regs, NULL) : -1,
                      shm ? strtod(shm, NULL) : -1);
        json_t *at = json_object_get(index, key);
        if (at == NULL) {
            kv_count(t, key, "missing", 1, 0);
            continue;
        }
        kernel_op_sum *s = &sums[json_integer_value(at)];
        s->in_reference = true;
        const char *tc = json_string_value(json_array_get(r, 6));
        const char *eligible = json_string_value(json_array_get(r, 7));
        kv_count(t, key, "calls", s->calls, json_number_value(json_array_get(r, 8)));
        kv_time(t, key, "total", s->total, json_number_value(json_array_get(r, 9)));
        kv_time(t, key, "max", s->max, json_number_value(json_array_get(r, 11)));
        kv_time(t, key, "min", s->min, json_number_value(json_array_get(r, 12)));
        kv_count(t, key, "uses_tensor_cores", s->tc, tc != NULL && strcmp(tc, "Yes") == 0);
        kv_count(t, key, "op_tensor_core_eligible", s->eligible,
                 eligible != NULL && strcmp(eligible, "Yes") == 0);
    }
    const char *k;
    json_t *at;
    json_object_foreach(index, k, at) {
        if (!sums[json_integer_value(at)].in_reference)
            kv_count(t, k, "not in the reference", 1, 0);
    }
    free(sums);
    json_decref(index);
}

/* The reference step's value of the named column (0 when the column is
 * not drawn, as Communication is not on traces without collectives). */
static double ref_col(json_t *cols, json_t *row, const char *name)
{
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *n = json_string_value(json_object_get(json_array_get(cols, i), "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return json_number_value(json_array_get(row, i));
    }
    return 0;
}

static void compare_steps(kv_tally *t, json_t *ref, json_t *ours)
{
    /* the analyzer's step table: the DataTable with a stepnum column */
    json_t *table = NULL;
    for (size_t i = 0; i < json_array_size(ours); i++) {
        json_t *cols = json_object_get(json_array_get(ours, i), "cols");
        for (size_t k = 0; k < json_array_size(cols); k++) {
            const char *id = json_string_value(json_object_get(json_array_get(cols, k), "id"));
            if (id != NULL && strcmp(id, "stepnum") == 0)
                table = json_array_get(ours, i);
        }
    }
    json_t *steps = json_object_get(ref, "steps");
    json_t *cols = json_object_get(steps, "columns"), *rrows = json_object_get(steps, "rows");
    json_t *rows = json_object_get(table, "rows");
    kv_count(t, "steps", "steps", (double)json_array_size(rows), (double)json_array_size(rrows));
    static const struct {
        const char *ours;
        const char *ref[2];
    } cats[] = {
        {"deviceComputeTimeMs", {"Kernel", NULL}},
        {"deviceToDeviceTimeMs", {"Memcpy", "Memset"}},
        {"deviceCollectivesTimeMs", {"Communication", NULL}},
        {"kernelLaunchTimeMs", {"Runtime", NULL}},
        {"infeedTimeMs", {"DataLoader", NULL}},
        {"hostComputeTimeMs", {"CPU Exec", NULL}},
        {"otherTimeMs", {"Other", NULL}},
    };
    for (size_t i = 0; i < json_array_size(rrows); i++) {
        json_t *rr = json_array_get(rrows, i);
        const char *step = json_string_value(json_array_get(rr, 0));
        json_t *row = NULL;
        for (size_t k = 0; k < json_array_size(rows) && row == NULL; k++) {
            const char *s = cell_str(table, json_array_get(rows, k), "stepnum");
            if (s != NULL && step != NULL && strcmp(s, step) == 0)
                row = json_array_get(rows, k);
        }
        if (row == NULL) {
            kv_count(t, step ? step : "?", "missing", 1, 0);
            continue;
        }
        for (size_t c = 0; c < sizeof cats / sizeof cats[0]; c++) {
            double want = ref_col(cols, rr, cats[c].ref[0]) +
                          (cats[c].ref[1] != NULL ? ref_col(cols, rr, cats[c].ref[1]) : 0);
            kv_time(t, step, cats[c].ref[0], cell_num(table, row, cats[c].ours) * 1000, want);
        }
    }
}

/* torch-tb-profiler names a GPU "GPU0"; profview's allocator is "GPU 0". */
static void compare_memory(kv_tally *t, json_t *ref, json_t *ours)
{
    json_t *curve = json_object_get(ref, "curve");
    json_t *peaks = json_object_get(json_object_get(curve, "metadata"), "peaks");
    json_t *per = json_object_get(ours, "memoryProfilePerAllocator");
    const char *dev;
    json_t *v;
    json_object_foreach(peaks, dev, v) {
        const char *text = strrchr(json_string_value(v), ':');
        double want = text != NULL ? strtod(text + 1, NULL) : NAN;
        char name[64];
        if (strncmp(dev, "GPU", 3) == 0)
            snprintf(name, sizeof name, "GPU %s", dev + 3);
        else
            snprintf(name, sizeof name, "%s", dev);
        json_t *a = json_object_get(per, name);
        if (a == NULL) {
            kv_count(t, dev, "missing", 1, 0);
            continue;
        }
        json_t *peak = json_object_get(json_object_get(json_object_get(a, "profileSummary"),
                                                       "peakStats"),
                                       "peakBytesInUse");
        kv_count(t, dev, "peak", strtod(json_string_value(peak), NULL), want);
    }
}

static void compare_distributed(kv_tally *t, json_t *ref, json_t *answer)
{
    static const char *const parts[4] = {"computation", "overlapping", "communication", "other"};
    static const char *const cols[4] = {"computation_us", "overlapping_us", "communication_us",
                                        "other_us"};
    json_t *ours = json_array_get(answer, 0);   /* torch-tb-profiler's table */
    json_t *names = json_object_get(ref, "steps"), *costs = json_object_get(ref, "costs");
    json_t *rows = json_object_get(ours, "rows");
    kv_count(t, "steps", "steps", (double)json_array_size(rows) - 1,
                (double)json_array_size(names));
    for (size_t i = 0; i < json_array_size(names); i++) {
        const char *step = json_string_value(json_array_get(names, i));
        json_t *row = NULL;
        for (size_t k = 0; k < json_array_size(rows) && row == NULL; k++) {
            const char *s = cell_str(ours, json_array_get(rows, k), "step");
            if (s != NULL && step != NULL && strcmp(s, step) == 0)
                row = json_array_get(rows, k);
        }
        if (row == NULL) {
            kv_count(t, step ? step : "?", "missing", 1, 0);
            continue;
        }
        for (int c = 0; c < 4; c++)
            kv_time(t, step, parts[c], cell_num(ours, row, cols[c]),
                       json_number_value(json_array_get(json_array_get(costs, i), (size_t)c)));
    }
}

/* The reference's <li> items without their markup, one at a time: the
 * next one's text into buf, or false when there are no more. */
static bool next_item(const char **p, char *buf, size_t cap)
{
    const char *li = strstr(*p, "<li>");
    if (li == NULL)
        return false;
    li += 4;
    const char *end = strstr(li, "</li>");
    if (end == NULL)
        return false;
    size_t n = 0;
    bool tag = false;
    for (const char *c = li; c < end && n + 1 < cap; c++) {
        if (*c == '<')
            tag = true;
        else if (*c == '>')
            tag = false;
        else if (!tag)
            buf[n++] = *c;
    }
    buf[n] = '\0';
    *p = end + 5;
    return true;
}

static void compare_recommendations(kv_tally *t, json_t *ref, json_t *ours)
{
    json_t *table = json_array_get(ours, 7);
    json_t *rows = json_object_get(table, "rows");
    const char *html = json_string_value(json_object_get(ref, "recommendations"));
    char item[2048];
    size_t n_ref = 0;
    for (const char *p = html != NULL ? html : ""; next_item(&p, item, sizeof item);) {
        if (strcmp(item, "N/A") == 0)
            continue;   /* its "nothing to recommend" */
        n_ref++;
        bool found = false;
        for (size_t k = 0; k < json_array_size(rows) && !found; k++) {
            const char *text = cell_str(table, json_array_get(rows, k), "text");
            found = text != NULL && strcmp(text, item) == 0;
        }
        char key[48];
        snprintf(key, sizeof key, "%.40s", item);
        kv_count(t, key, "found", found ? 1 : 0, 1);
    }
    kv_count(t, "recommendations", "count", (double)json_array_size(rows), (double)n_ref);
}

/* A cell's number; NAN when null or absent. */
static double cell_or_nan(json_t *t, json_t *row, const char *id)
{
    json_t *cols = json_object_get(t, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *c = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        json_t *v = json_object_get(json_array_get(json_object_get(row, "c"), i), "v");
        if (c != NULL && strcmp(c, id) == 0)
            return json_is_number(v) ? json_number_value(v) : NAN;
    }
    return NAN;
}

static void compare_gpu(kv_tally *t, json_t *ref, json_t *ours)
{
    json_t *table = json_array_get(ours, 8);
    json_t *rows = json_object_get(table, "rows");
    kv_count(t, "gpus", "count", (double)json_array_size(rows), (double)json_object_size(ref));
    const char *id;
    json_t *g;
    json_object_foreach(ref, id, g) {
        char name[64];
        snprintf(name, sizeof name, "GPU %s", id);
        json_t *row = NULL;
        for (size_t k = 0; k < json_array_size(rows) && row == NULL; k++) {
            const char *d = cell_str(table, json_array_get(rows, k), "device");
            if (d != NULL && strcmp(d, name) == 0)
                row = json_array_get(rows, k);
        }
        if (row == NULL) {
            kv_count(t, name, "missing", 1, 0);
            continue;
        }
        json_t *sm = json_object_get(g, "sm_efficiency"), *occ = json_object_get(g, "occupancy");
        kv_pct(t, name, "utilization", cell_or_nan(table, row, "utilization"),
                  100 * json_number_value(json_object_get(g, "utilization")));
        kv_pct(t, name, "sm_efficiency", cell_or_nan(table, row, "sm_efficiency"),
                  json_is_number(sm) ? 100 * json_number_value(sm) : NAN);
        kv_pct(t, name, "occupancy", cell_or_nan(table, row, "occupancy"),
                  json_is_number(occ) ? json_number_value(occ) : NAN);
    }
}

/* ---- HolisticTraceAnalysis ---------------------------------------------------- */

static double ref_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The one rank's row of distributed_view's table i (one worker per run). */
static json_t *hta_row(json_t *answer, size_t i, json_t **table)
{
    *table = json_array_get(answer, i);
    return json_array_get(json_object_get(*table, "rows"), 0);
}

static void compare_hta_temporal(kv_tally *t, json_t *ref, json_t *answer)
{
    static const char *const keys[4][2] = {{"span_us", "span_us"},
                                           {"idle_us", "idle_us"},
                                           {"compute_us", "computation_us"},
                                           {"non_compute_us", "non_compute_us"}};
    json_t *tr = json_object_get(ref, "temporal"), *table;
    json_t *row = hta_row(answer, 1, &table);
    if (row == NULL) {
        kv_count(t, "rank", "missing", 1, 0);
        return;
    }
    for (size_t i = 0; i < 4; i++)
        kv_time(t, "rank", keys[i][0], cell_num(table, row, keys[i][1]),
                   ref_num(tr, keys[i][0]));
}

static void compare_hta_overlap(kv_tally *t, json_t *ref, json_t *answer)
{
    json_t *table, *row = hta_row(answer, 1, &table);
    if (row == NULL) {
        kv_count(t, "rank", "missing", 1, 0);
        return;
    }
    kv_pct(t, "rank", "comp_comm_overlap", cell_or_nan(table, row, "comm_comp_overlap_pct"),
              ref_num(json_object_get(ref, "overlap"), "comp_comm_overlap_pct"));
}

static void compare_hta_types(kv_tally *t, json_t *ref, json_t *answer)
{
    json_t *table = json_array_get(answer, 2), *rows = json_object_get(table, "rows");
    json_t *types = json_object_get(ref, "kernel_types");
    const char *name;
    json_t *v;
    size_t n_ref = 0;
    json_object_foreach(types, name, v) {
        if (json_number_value(v) == 0)
            continue;   /* HTA lists a type that ran no time; profview leaves it out */
        n_ref++;
        json_t *row = NULL;
        for (size_t k = 0; k < json_array_size(rows) && row == NULL; k++) {
            const char *s = cell_str(table, json_array_get(rows, k), "kernel_types");
            if (s != NULL && strcmp(s, name) == 0)
                row = json_array_get(rows, k);
        }
        kv_time(t, name, "time", row != NULL ? cell_num(table, row, "time_us") : 0,
                   json_number_value(v));
    }
    kv_count(t, "kernel types", "count", (double)json_array_size(rows), (double)n_ref);
}

static void compare_hta_kernels(kv_tally *t, json_t *ref, json_t *ours)
{
    json_t *rows = json_object_get(ours, "rows");
    json_t *kernels = json_object_get(ref, "kernels");
    for (size_t i = 0; i < json_array_size(kernels); i++) {
        json_t *k = json_array_get(kernels, i);
        const char *name = json_string_value(json_object_get(k, "name"));
        const char *type = json_string_value(json_object_get(k, "type"));
        if (name == NULL || type == NULL || strcmp(type, "MEMORY") == 0)
            continue;
        double calls = 0, total = 0, min = INFINITY, max = 0;
        for (size_t r = 0; r < json_array_size(rows); r++) {
            json_t *row = json_array_get(rows, r);
            const char *kn = cell_str(ours, row, "kernel_name");
            if (kn == NULL || strcmp(kn, name) != 0)
                continue;
            calls += cell_num(ours, row, "occurrences");
            total += cell_num(ours, row, "total_duration_us");
            min = fmin(min, cell_num(ours, row, "min_duration_us"));
            max = fmax(max, cell_num(ours, row, "max_duration_us"));
        }
        if (calls == 0) {
            kv_count(t, name, "missing", 1, 0);
            continue;
        }
        double sum = ref_num(k, "sum_us"), mean = ref_num(k, "mean_us");
        kv_count(t, name, "calls", calls, mean > 0 ? round(sum / mean) : 0);
        kv_time(t, name, "total", total, sum);
        kv_time(t, name, "max", max, ref_num(k, "max_us"));
        kv_time(t, name, "min", min, ref_num(k, "min_us"));
    }
}

/* ---- the table ------------------------------------------------------------------- */

const kv_view kv_views[] = {
    {"operator", "operator", "framework_op_stats", compare_operator},
    {"kernel", "kernel", "kernel_stats", compare_kernel},
    {"kernel_op", "kernel", "kernel_stats", compare_kernel_op},
    {"steps", "overview", "input_pipeline_analyzer", compare_steps},
    {"memory", "memory", "memory_profile", compare_memory},
    {"distributed", "distributed", "distributed_view", compare_distributed},
    {"recommendations", "overview", "overview_page", compare_recommendations},
    {"gpu", "gpu", "overview_page", compare_gpu},
    {"hta_temporal", "hta", "distributed_view", compare_hta_temporal},
    {"hta_overlap", "hta", "distributed_view", compare_hta_overlap},
    {"hta_types", "hta", "distributed_view", compare_hta_types},
    {"hta_kernels", "hta", "kernel_stats", compare_hta_kernels},
};
const size_t kv_n_views = sizeof kv_views / sizeof kv_views[0];
