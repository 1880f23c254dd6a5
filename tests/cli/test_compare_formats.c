/* profview compare's CSV and Markdown against its JSON, value by value
 * (#39), run as the real binary on two pairs of runs whose values differ
 * (so that base and new swapped, or a row's value from another row, shows):
 * the input-bound Keras run against the fixed one (committed), and two JAX
 * GPU runs of ../shared/testdata (kernels, device busy, allocators, a null
 * step time), each with the three gates set.
 *
 * The JSON (report/compare_json.c) is the oracle here; cli/print.h says how
 * the other two write it:
 *   CSV       "section,name,field,value" records (RFC 4180, csv_table.h's
 *             reader), numbers in full precision (each must read back as
 *             exactly the JSON's value), unknown (null) as an empty value,
 *             a text value starting with = + - @ that is not a number behind
 *             an apostrophe;
 *   Markdown  the headline table with base and new to 3 decimals (bytes as
 *             KiB, MiB, ... to 2), "-" for unknown, the change in percent
 *             to 1 decimal; the gates; the ops and kernels tables in the
 *             JSON's order, times in ms to 3 decimals.
 * Each printed number must be the JSON's within half its last digit. Every
 * CSV record and Markdown row must name a JSON value, each at most once,
 * and every value the JSON holds that must be shown (every op, kernel,
 * allocator, device and gate, both runs' step time, the shares one run
 * knows, the breakdown parts one run spends time in) must be shown. */
#include "cli_run.h"
#include "csv_table.h"
#include "testutil.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#define REF PV_SRCDIR "/tests/data/reference"
#define BOUND REF "/keras_input_bound"
#define FIXED REF "/keras_input_fixed"
#define ROCM "/logdirs/jax_rocm_mi300/plugins/profile"

#define MAX_KEYS 4096

/* ---- the JSON's values, each under a key ------------------------------------------- */

/* A value the CSV or Markdown shows, under a key that says where it is in
 * the JSON ("ops/3/base_us"): pairs are keyed "<pair>/base" and "/new". */
typedef struct shown {
    char key[160];
    char label[1200];      /* the row's label in Markdown and name in CSV */
    const json_t *v;       /* the JSON value (a number, null or a string) */
    bool must;             /* must be shown */
    unsigned seen;         /* times a CSV record named it */
    unsigned seen_md;      /* times a Markdown row named it */
} shown;

typedef struct expect {
    shown *s;
    size_t n;
} expect;

static void add(expect *e, const char *key, const char *label, const json_t *v, bool must)
{
    ck_assert_uint_lt(e->n, MAX_KEYS);
    shown *x = &e->s[e->n++];
    snprintf(x->key, sizeof x->key, "%s", key);
    snprintf(x->label, sizeof x->label, "%s", label);
    x->v = v;
    x->must = must;
}

static bool known(const json_t *v)
{
    return json_is_number(v);
}

/* A base/new pair of section under label (both shown when must). */
static void add_pair(expect *e, const char *section, const char *label, const json_t *base,
                     const json_t *next, bool must)
{
    char key[160];
    snprintf(key, sizeof key, "%s/%s/base", section, label);
    add(e, key, label, base, must);
    snprintf(key, sizeof key, "%s/%s/new", section, label);
    add(e, key, label, next, must);
}

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    ck_assert_msg(s != NULL, "the JSON has no string %s", k);
    return s;
}

/* "host/name", or the name when the host is empty. */
static void host_name(const json_t *o, char *buf, size_t cap)
{
    const char *h = str(o, "host");
    snprintf(buf, cap, "%s%s%s", h, h[0] ? "/" : "", str(o, "name"));
}

static void add_items(expect *e, const char *section, const json_t *items)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(items, "top"), i, it) {
        const char *side = str(it, "side");
        char name[1200], key[160];
        snprintf(name, sizeof name, "%s%s%s", side, side[0] ? ":" : "", str(it, "name"));
        static const char *const fields[] = {"change", "base_us", "new_us"};
        for (size_t f = 0; f < 3; f++) {
            snprintf(key, sizeof key, "%s/%zu/%s", section, i, fields[f]);
            add(e, key, name, json_object_get(it, fields[f]), true);
        }
    }
}

/* Every value of comparison c the CSV and Markdown show. */
static void expect_of(const json_t *c, expect *e)
{
    const json_t *b = json_object_get(c, "base"), *n = json_object_get(c, "new");
    add(e, "run/base", str(b, "run"), json_object_get(b, "host"), true);
    add(e, "run/new", str(n, "run"), json_object_get(n, "host"), true);
    const json_t *st = json_object_get(c, "step_time_ms");
    add_pair(e, "step_time_ms", "Step time (ms)", json_object_get(st, "base"),
             json_object_get(st, "new"), true);
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(c, "breakdown"), i, p) {
        const json_t *bv = json_object_get(p, "base_ms"), *nv = json_object_get(p, "new_ms");
        bool spent = json_number_value(bv) > 0 || json_number_value(nv) > 0;
        add_pair(e, "breakdown_ms", str(p, "label"), bv, nv, spent);
    }
    static const char *const shares[][2] = {{"input_percent", "Input-bound (%)"},
                                            {"device_idle_percent", "Device idle (%)"},
                                            {"tensor_core_percent", "Tensor cores (%)"}};
    for (size_t k = 0; k < 3; k++) {
        const json_t *pair = json_object_get(c, shares[k][0]);
        const json_t *bv = json_object_get(pair, "base"), *nv = json_object_get(pair, "new");
        add_pair(e, shares[k][0], shares[k][1], bv, nv, known(bv) || known(nv));
    }
    const json_t *bu = json_object_get(json_object_get(b, "utilization"), "mean_percent");
    const json_t *nu = json_object_get(json_object_get(n, "utilization"), "mean_percent");
    add_pair(e, "device_busy_percent", "Device busy (%)", bu, nu, known(bu) || known(nu));
    json_array_foreach(json_object_get(c, "memory"), i, p) {
        char hn[1100], label[1200];
        host_name(p, hn, sizeof hn);
        snprintf(label, sizeof label, "Memory peak %s", hn);
        const json_t *v = json_object_get(p, "value");
        add_pair(e, "peak_memory_bytes", label, json_object_get(v, "base"),
                 json_object_get(v, "new"), true);
    }
    json_array_foreach(json_object_get(c, "utilization"), i, p) {
        char hn[1100], label[1200];
        host_name(p, hn, sizeof hn);
        snprintf(label, sizeof label, "busy %s (%%)", hn);
        const json_t *v = json_object_get(p, "value");
        add_pair(e, "device_busy_percent", label, json_object_get(v, "base"),
                 json_object_get(v, "new"), true);
    }
    add_items(e, "op", json_object_get(c, "ops"));
    add_items(e, "kernel", json_object_get(c, "kernels"));
    json_array_foreach(json_object_get(c, "gates"), i, p) {
        static const char *const fields[] = {"state", "limit", "value"};
        for (size_t f = 0; f < 3; f++) {
            char key[160];
            snprintf(key, sizeof key, "gate/%zu/%s", i, fields[f]);
            add(e, key, str(p, "flag"), json_object_get(p, fields[f]), true);
        }
    }
}

/* ---- CSV ----------------------------------------------------------------------------- */

/* The JSON key a CSV record names: section and field say which value,
 * name says which row. NULL when none. */
static shown *csv_target(expect *e, const char *section, const char *name, const char *field)
{
    char key[160];
    bool items = strcmp(section, "op") == 0 || strcmp(section, "kernel") == 0 ||
                 strcmp(section, "gate") == 0;
    if (strcmp(section, "run") == 0)
        snprintf(key, sizeof key, "run/%s", field);
    for (size_t i = 0; i < e->n; i++) {
        shown *x = &e->s[i];
        if (strcmp(x->label, name) != 0)
            continue;
        if (strcmp(section, "run") == 0 && strcmp(x->key, key) == 0)
            return x;
        size_t ls = strlen(section);
        if (strncmp(x->key, section, ls) != 0 || x->key[ls] != '/')
            continue;
        /* "<section>/<label>/<field>" or "<section>/<index>/<field>" */
        const char *last = strrchr(x->key, '/');
        if (strcmp(last + 1, field) == 0 && (items || strncmp(x->key + ls + 1, name,
                                                              strlen(name)) == 0))
            return x;
    }
    return NULL;
}

static const char *gate_word_csv(const char *state)
{
    return strcmp(state, "holds") == 0   ? "holds"
           : strcmp(state, "fails") == 0 ? "FAILS"
                                         : "cannot be checked";
}

/* Whether CSV value field is the JSON value v. */
static bool csv_value_is(const char *field, const json_t *v, bool gate_state)
{
    if (json_is_null(v))
        return field[0] == '\0';
    if (json_is_number(v)) {
        char *end = NULL;
        return field[0] != '\0' && strtod(field, &end) == json_number_value(v) && *end == '\0';
    }
    const char *s = json_string_value(v);
    if (s == NULL)
        return false;
    if (gate_state)
        s = gate_word_csv(s);
    char *end = NULL;
    strtod(s, &end);
    bool number = end != s && *end == '\0';
    if (s[0] != '\0' && strchr("=+-@", s[0]) != NULL && !number)
        return field[0] == '\'' && strcmp(field + 1, s) == 0;
    return strcmp(field, s) == 0;
}

/* Checks the CSV of comparison c; returns how many of its values differ
 * between base and new (a test that cannot see a swap proves nothing). */
static size_t check_csv(const char *csv_text, expect *e)
{
    pv_csv csv;
    char why[1024];
    ck_assert_msg(pv_csv_parse(csv_text, strlen(csv_text), &csv, why, sizeof why), "CSV: %s",
                  why);
    ck_assert_uint_gt(csv.n, 1);
    const pv_csv_record *head = &csv.records[0];
    ck_assert_uint_eq(head->n, 4);
    ck_assert_str_eq(head->fields[0], "section");
    ck_assert_str_eq(head->fields[1], "name");
    ck_assert_str_eq(head->fields[2], "field");
    ck_assert_str_eq(head->fields[3], "value");
    for (size_t r = 1; r < csv.n; r++) {
        const pv_csv_record *rec = &csv.records[r];
        ck_assert_msg(rec->n == 4, "CSV record %zu: %zu fields", r + 1, rec->n);
        /* the name of a row is written as text, so a name that starts with
         * a formula sign has its apostrophe: strip it to find the row */
        const char *name = rec->fields[1][0] == '\'' ? rec->fields[1] + 1 : rec->fields[1];
        shown *x = csv_target(e, rec->fields[0], name, rec->fields[2]);
        ck_assert_msg(x != NULL, "CSV record %zu (%s,%s,%s) names no value of the JSON", r + 1,
                      rec->fields[0], rec->fields[1], rec->fields[2]);
        bool gate_state = strncmp(x->key, "gate/", 5) == 0 && strstr(x->key, "/state") != NULL;
        char *jv = json_dumps(x->v, JSON_ENCODE_ANY);
        ck_assert_msg(csv_value_is(rec->fields[3], x->v, gate_state),
                      "CSV record %zu (%s %s %s): \"%s\", the JSON's %s is %s", r + 1,
                      rec->fields[0], rec->fields[1], rec->fields[2], rec->fields[3], x->key, jv);
        free(jv);
        x->seen++;
    }
    size_t differ = 0;
    for (size_t i = 0; i < e->n; i++) {
        shown *x = &e->s[i];
        ck_assert_msg(x->seen <= 1, "CSV: %s shown %u times", x->key, x->seen);
        ck_assert_msg(!x->must || x->seen == 1, "CSV: %s (%s) not shown", x->key, x->label);
        size_t k = strlen(x->key);
        if (k > 5 && strcmp(x->key + k - 5, "/base") == 0 && i + 1 < e->n &&
            !json_equal((json_t *)x->v, (json_t *)e->s[i + 1].v) && x->seen)
            differ++;
    }
    pv_csv_fini(&csv);
    return differ;
}

/* ---- Markdown ------------------------------------------------------------------------- */

/* The cells of a table line "| a | b |" (escaped '|' and '`' undone),
 * trimmed, into cells; returns how many. */
static size_t md_cells(const char *line, char cells[][1300], size_t cap)
{
    size_t n = 0, k = 0;
    ck_assert_msg(line[0] == '|', "not a table line: %s", line);
    for (const char *p = line + 1; *p != '\0' && *p != '\n' && n < cap; p++) {
        if (p[0] == '\\' && (p[1] == '|' || p[1] == '`')) {
            if (k + 1 < sizeof cells[0])
                cells[n][k++] = p[1];
            p++;
        } else if (*p == '|') {
            while (k > 0 && cells[n][k - 1] == ' ')
                k--;
            cells[n][k] = '\0';
            char *s = cells[n];
            size_t lead = strspn(s, " ");
            memmove(s, s + lead, strlen(s + lead) + 1);
            n++;
            k = 0;
        } else if (k + 1 < sizeof cells[0]) {
            cells[n][k++] = *p;
        }
    }
    return n;
}

/* Whether text is x to 3 decimals (a sign allowed), within half a unit
 * of the last digit. */
static bool fixed3_is(const char *text, double x)
{
    char *end = NULL;
    double shown_x = strtod(text, &end);
    const char *dot = strchr(text, '.');
    return end != text && *end == '\0' && dot != NULL && strlen(dot + 1) == 3 &&
           fabs(shown_x - x) <= 0.0005 + 1e-9 * fabs(x);
}

/* Whether text is v as the headline table shows it: "-" when unknown, a
 * byte count for people (B, or KiB ... to 2 decimals), else 3 decimals. */
static bool md_number_is(const char *text, const json_t *v, bool bytes)
{
    if (!known(v) || json_number_value(v) < 0)
        return strcmp(text, "-") == 0;
    double want = json_number_value(v), x;
    if (!bytes)
        return fixed3_is(text, want);
    char unit[8] = "";
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (sscanf(text, "%lf %7s", &x, unit) != 2)
        return false;
    for (int u = 0; u < 5; u++)
        if (strcmp(unit, units[u]) == 0)
            return fabs(x * pow(1024, u) - want) <= (u == 0 ? 0.5 : 0.005 * pow(1024, u));
    return false;
}

/* The change column: +x.y % of base, empty when base is not above 0 or
 * new is unknown. */
static bool md_change_is(const char *text, const json_t *base, const json_t *next)
{
    if (!known(base) || json_number_value(base) <= 0 || !known(next) ||
        json_number_value(next) < 0)
        return text[0] == '\0';
    double b = json_number_value(base), n = json_number_value(next), x;
    char sign, pct[4] = "";
    return sscanf(text, "%c%lf %3s", &sign, &x, pct) == 3 && (sign == '+' || sign == '-') &&
           strcmp(pct, "%") == 0 &&
           fabs((sign == '-' ? -x : x) - 100.0 * (n - b) / b) <= 0.05 + 1e-9 * fabs(x);
}

static shown *md_target(expect *e, const char *label)
{
    for (size_t i = 0; i < e->n; i++) {
        shown *x = &e->s[i];
        size_t k = strlen(x->key);
        if (k > 5 && strcmp(x->key + k - 5, "/base") == 0 && strcmp(x->label, label) == 0 &&
            strncmp(x->key, "run/", 4) != 0)
            return x;
    }
    return NULL;
}

/* Next line of *p into line (without its newline); false at the end. */
static bool next_line(const char **p, char *line, size_t cap)
{
    if (**p == '\0')
        return false;
    size_t n = strcspn(*p, "\n");
    snprintf(line, cap, "%.*s", (int)n, *p);
    *p += n;
    if (**p == '\n')
        (*p)++;
    return true;
}

static void expect_blank(const char **p)
{
    char line[4096];
    ck_assert(next_line(p, line, sizeof line));
    ck_assert_msg(line[0] == '\0', "want a blank line: %s", line);
}

/* The ops or kernels section: its counts, then every row of the JSON's
 * top list in its order. */
static void md_items(const char **p, const json_t *items, const char *what)
{
    char line[4096], cells[8][1300], want[256];
    const json_t *top = json_object_get(items, "top");
    ck_assert(next_line(p, line, sizeof line));
    if (json_array_size(top) == 0) {
        snprintf(want, sizeof want, "%s: none added, removed or changed", what);
        ck_assert_str_eq(line, want);
        return;
    }
    snprintf(want, sizeof want, "<details><summary>%s: %lld added, %lld removed, %lld changed"
             "</summary>", what, (long long)json_integer_value(json_object_get(items, "added")),
             (long long)json_integer_value(json_object_get(items, "removed")),
             (long long)json_integer_value(json_object_get(items, "changed")));
    ck_assert_str_eq(line, want);
    expect_blank(p);
    ck_assert(next_line(p, line, sizeof line));
    ck_assert_uint_eq(md_cells(line, cells, 8), 6);
    ck_assert_str_eq(cells[0], "name");
    ck_assert_str_eq(cells[2], "base ms");
    ck_assert_str_eq(cells[3], "new ms");
    ck_assert_str_eq(cells[4], "change ms");
    ck_assert(next_line(p, line, sizeof line));
    size_t i;
    json_t *it;
    json_array_foreach(top, i, it) {
        ck_assert(next_line(p, line, sizeof line));
        ck_assert_msg(md_cells(line, cells, 8) == 6, "%s row %zu: %s", what, i, line);
        char name[1300];
        snprintf(name, sizeof name, "`%s`", str(it, "name"));
        ck_assert_msg(strcmp(cells[0], name) == 0, "%s row %zu: %s, the JSON's %s", what, i,
                      cells[0], name);
        ck_assert_str_eq(cells[1], str(it, "side"));
        static const char *const us[] = {"base_us", "new_us", "delta_us"};
        for (size_t k = 0; k < 3; k++) {
            double v = json_number_value(json_object_get(it, us[k]));
            ck_assert_msg(fixed3_is(cells[2 + k], v / 1e3) &&
                              (k < 2 || cells[4][0] == '+' || cells[4][0] == '-'),
                          "%s row %zu (%s) %s: \"%s\", the JSON's %.17g us", what, i,
                          str(it, "name"), us[k], cells[2 + k], v);
        }
        ck_assert_str_eq(cells[5], str(it, "change"));
    }
    expect_blank(p);
    ck_assert(next_line(p, line, sizeof line));
    ck_assert_str_eq(line, "</details>");
}

static void check_markdown(const char *md, const json_t *c, expect *e)
{
    const char *p = md;
    char line[4096], cells[8][1300];
    ck_assert(next_line(&p, line, sizeof line));
    ck_assert_str_eq(line, "### profview compare");
    ck_assert(next_line(&p, line, sizeof line) && line[0] == '\0');
    ck_assert(next_line(&p, line, sizeof line));
    char want[2048];
    snprintf(want, sizeof want, "**Base** `%s` &rarr; **new** `%s`",
             str(json_object_get(c, "base"), "run"), str(json_object_get(c, "new"), "run"));
    ck_assert_str_eq(line, want);
    ck_assert(next_line(&p, line, sizeof line) && line[0] == '\0');
    ck_assert(next_line(&p, line, sizeof line));
    ck_assert_str_eq(line, "| | base | new | change |");
    ck_assert(next_line(&p, line, sizeof line));
    while (next_line(&p, line, sizeof line) && line[0] == '|') {
        ck_assert_msg(md_cells(line, cells, 8) == 4, "headline: %s", line);
        shown *x = md_target(e, cells[0]);
        ck_assert_msg(x != NULL, "headline \"%s\" names no value of the JSON", cells[0]);
        shown *y = x + 1;   /* the new side, added right after */
        bool bytes = strncmp(x->key, "peak_memory_bytes/", 18) == 0;
        char *jb = json_dumps(x->v, JSON_ENCODE_ANY), *jn = json_dumps(y->v, JSON_ENCODE_ANY);
        ck_assert_msg(md_number_is(cells[1], x->v, bytes) && md_number_is(cells[2], y->v, bytes),
                      "headline %s: base \"%s\" new \"%s\", the JSON's %s and %s", cells[0],
                      cells[1], cells[2], jb, jn);
        ck_assert_msg(md_change_is(cells[3], x->v, y->v), "headline %s: change \"%s\" for %s -> %s",
                      cells[0], cells[3], jb, jn);
        free(jb);
        free(jn);
        x->seen_md++;
        y->seen_md++;
    }
    for (size_t i = 0; i < e->n; i++) {
        shown *x = &e->s[i];
        if (strncmp(x->key, "run/", 4) == 0 || strncmp(x->key, "op/", 3) == 0 ||
            strncmp(x->key, "kernel/", 7) == 0 || strncmp(x->key, "gate/", 5) == 0)
            continue;
        ck_assert_msg(x->seen_md <= 1, "Markdown: %s shown %u times", x->key, x->seen_md);
        ck_assert_msg(!x->must || x->seen_md == 1, "Markdown: %s (%s) not shown", x->key,
                      x->label);
    }
    /* the table ended at a blank line; the gates, in order, then a blank */
    ck_assert_msg(line[0] == '\0', "after the headline table: %s", line);
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(c, "gates"), i, g) {
        ck_assert(next_line(&p, line, sizeof line));
        const char *word = gate_word_csv(str(g, "state"));
        snprintf(want, sizeof want, " **%s** %s", word, str(g, "message"));
        const char *at = strstr(line, " **");
        ck_assert_msg(at != NULL && strcmp(at, want) == 0, "gate %zu: \"%s\", want \"...%s\"", i,
                      line, want);
    }
    if (json_array_size(json_object_get(c, "gates")) > 0)
        expect_blank(&p);
    md_items(&p, json_object_get(c, "ops"), "Ops");
    expect_blank(&p);
    md_items(&p, json_object_get(c, "kernels"), "Kernels");
    ck_assert_msg(*p == '\0', "Markdown goes on: %.200s", p);
}

/* ---- the pairs ----------------------------------------------------------------------- */

/* Runs compare base new with extra flags in the three forms and checks
 * CSV and Markdown against the JSON; min_differ: values at least that
 * many differ between the runs. */
static void check_pair(const char *base, const char *next, const char *const *flags,
                       int want_status, size_t min_differ)
{
    static const char *const forms[] = {"--json", "--csv", "--markdown"};
    run_out out[3];
    for (size_t f = 0; f < 3; f++) {
        const char *args[32] = {"compare", base, next};
        size_t n = 3;
        for (size_t k = 0; flags[k] != NULL && n < 30; k++)
            args[n++] = flags[k];
        args[n++] = forms[f];
        args[n] = NULL;
        out[f] = cli(args);
        ck_assert_msg(out[f].status == want_status, "%s: exit %d, want %d: %s", forms[f],
                      out[f].status, want_status, out[f].err);
    }
    json_error_t je;
    json_t *c = json_loads(out[0].out, 0, &je);
    ck_assert_msg(c != NULL, "--json: %s", je.text);
    expect e = {calloc(MAX_KEYS, sizeof(shown)), 0};
    expect_of(c, &e);
    size_t differ = check_csv(out[1].out, &e);
    printf("%s -> %s: %zu values, %zu of the shown pairs differ\n", base, next, e.n, differ);
    ck_assert_uint_ge(differ, min_differ);
    check_markdown(out[2].out, c, &e);
    free(e.s);
    json_decref(c);
    for (size_t f = 0; f < 3; f++)
        run_free(&out[f]);
}

START_TEST(test_compare_keras_forms_agree)
{
    /* the step-time gate fails (133 ms against 2 ms): exit 1 */
    const char *flags[] = {"--max-step-time-ratio", "1.10", "--max-peak-memory-ratio", "2",
                           "--max-input-bound-percent", "99", NULL};
    check_pair(FIXED, BOUND, flags, 1, 4);
}
END_TEST

START_TEST(test_compare_gpu_forms_agree)
{
    PV_NEED_TESTDATA("test_compare_gpu_forms_agree");
    /* every op and kernel (--top 0); the peak memory gate fails, the other
     * two cannot be checked (no steps): exit 1 */
    const char *flags[] = {"--top", "0", "--max-step-time-ratio", "1.5",
                           "--max-peak-memory-ratio", "1.01", "--max-input-bound-percent", "1",
                           NULL};
    check_pair(pv_test_data_path(ROCM "/jax08_gemm"), pv_test_data_path(ROCM "/jax08_elementwise"),
               flags, 1, 5);
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    Suite *s = suite_create("compare_formats");
    TCase *tc = tcase_create("compare");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_compare_keras_forms_agree);
    tcase_add_test(tc, test_compare_gpu_forms_agree);
    suite_add_tcase(s, tc);
    return pv_test_run(s);
}
