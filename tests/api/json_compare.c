/* json_compare: the walk over two JSON values (see json_compare.h for the
 * rules). Paths are built in one fixed buffer as the walk descends. */
#include "json_compare.h"

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_CAP 2048
#define SHOW_CHARS 120   /* a value longer than this is cut in messages */
#define KEY_CAP 1024

typedef struct label_pair {
    char *ours;
    char *ref;
} label_pair;

typedef struct walk {
    const pv_jc_rule *rules;
    const char *tool;
    const char *where;
    pv_jc_result *out;
    char path[PATH_CAP];
    size_t path_len;
    label_pair *pairs;   /* PV_JC_PARTITION: the pairs seen so far */
    size_t n_pairs, cap_pairs;
} walk;

/* ---- rules and reporting ----------------------------------------------------- */

uint64_t pv_jc_alternatives_match(const char *list, const char *s)
{
    if (list == NULL)
        return 1;
    uint64_t bits = 0;
    unsigned i = 0;
    for (const char *p = list; i < PV_JC_MAX_ALTS; i++) {
        const char *end = strstr(p, PV_JC_SEP);
        size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
        char pat[PATH_CAP];
        snprintf(pat, sizeof pat, "%.*s", (int)n, p);
        if (fnmatch(pat, s, 0) == 0)
            bits |= (uint64_t)1 << i;
        if (end == NULL)
            break;
        p = end + strlen(PV_JC_SEP);
    }
    return bits;
}

unsigned pv_jc_alternatives_count(const char *list)
{
    unsigned n = 1;
    for (const char *p = list; p != NULL && (p = strstr(p, PV_JC_SEP)) != NULL;
         p += strlen(PV_JC_SEP))
        n++;
    return n;
}

/* Wildcards in a path pattern outside escaped brackets ("\\[...\\]"). */
static bool path_has_free_wildcard(const char *pat)
{
    int depth = 0;
    for (const char *p = pat; *p != '\0'; p++) {
        if (p[0] == '\\' && p[1] == '[') {
            depth++;
            p++;
        } else if (p[0] == '\\' && p[1] == ']') {
            depth -= depth > 0;
            p++;
        } else if (depth == 0 && (*p == '*' || *p == '?' || *p == '[')) {
            return true;
        }
    }
    return false;
}

/* Whether one of the alternatives of a value pattern is a bare "*". */
static bool pattern_is_any(const char *list)
{
    return (pv_jc_alternatives_match(list, "any value") &
            pv_jc_alternatives_match(list, "(missing)") & pv_jc_alternatives_match(list, "")) != 0;
}

/* Why the path patterns of a rule reach fields it does not name, or NULL. */
static const char *paths_too_broad(const char *list)
{
    for (const char *p = list;;) {
        const char *end = strstr(p, PV_JC_SEP);
        size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
        char pat[PATH_CAP];
        snprintf(pat, sizeof pat, "%.*s", (int)n, p);
        if (path_has_free_wildcard(pat))
            return "a path has a wildcard outside an index or row key";
        if (end == NULL)
            return NULL;
        p = end + strlen(PV_JC_SEP);
    }
}

const char *pv_jc_rule_too_broad(const pv_jc_rule *r)
{
    if (r->kind != PV_JC_ACCEPT && r->kind != PV_JC_AS_REFERENCE && r->kind != PV_JC_UNSEEN &&
        r->kind != PV_JC_TOLERANCE)
        return NULL;
    if (r->tool == NULL || strpbrk(r->tool, "*?[") != NULL)
        return "it does not name its tools";
    if (r->reason == NULL || r->reason[0] == '\0')
        return "it gives no reason";
    if (r->kind == PV_JC_TOLERANCE) {
        if (!(r->rel < PV_JC_REL_MAX) || !(r->abs >= 0.0 && r->abs <= PV_JC_ABS_MAX))
            return "its tolerance is PV_JC_REL_MAX or more, or above PV_JC_ABS_MAX";
        if (r->rel <= PV_JC_REL && r->abs <= PV_JC_ABS)
            return "its tolerance is no wider than the default";
        return paths_too_broad(r->path);
    }
    if (r->where == NULL)
        return "it does not name the profiles it covers";
    if (r->kind == PV_JC_UNSEEN)
        return paths_too_broad(r->path);
    if (r->rows == 0)
        return "it does not declare the rows it may touch";
    if ((r->kind == PV_JC_ACCEPT && (r->ref_is == NULL || pattern_is_any(r->ref_is))) ||
        r->ours_is == NULL || pattern_is_any(r->ours_is))
        return "it does not name the values it accepts";
    return paths_too_broad(r->path);
}

const char *pv_jc_rule_overused(const pv_jc_rule *r, const pv_jc_use *u)
{
    if (r->kind != PV_JC_ACCEPT && r->kind != PV_JC_AS_REFERENCE)
        return NULL;
    return u->n_rows > r->rows ? "it touched more rows than it declares" : NULL;
}

/* A value as ref_is and ours_is see it: a string, a number as %.9g,
 * true/false/null, "(missing)", "(object)" or "(array)". */
static const char *value_text(const json_t *v, char *buf, size_t cap)
{
    if (v == NULL)
        return "(missing)";
    if (json_is_object(v))
        return "(object)";
    if (json_is_array(v))
        return "(array)";
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_number(v)) {
        snprintf(buf, cap, "%.9g", json_number_value(v));
        return buf;
    }
    if (json_is_boolean(v))
        return json_is_true(v) ? "true" : "false";
    return "null";
}

bool pv_jc_value_is(const char *patterns, const json_t *v)
{
    char buf[64];
    return patterns == NULL || pv_jc_alternatives_match(patterns, value_text(v, buf, sizeof buf));
}

void pv_jc_use_row(pv_jc_use *u, const char *where, const char *path)
{
    const char *end = strrchr(path, ']');
    size_t n = end != NULL ? (size_t)(end - path) + 1 : strlen(path);
    size_t len = strlen(where) + n + 2;
    char *row = malloc(len);
    if (row == NULL)
        abort();
    snprintf(row, len, "%s|%.*s", where, (int)n, path);
    for (size_t i = 0; i < u->n_rows; i++) {
        if (strcmp(u->rows[i], row) == 0) {
            free(row);
            return;
        }
    }
    u->rows = realloc(u->rows, (u->n_rows + 1) * sizeof *u->rows);
    if (u->rows == NULL)
        abort();
    u->rows[u->n_rows++] = row;
}

void pv_jc_use_fini(pv_jc_use *u)
{
    if (u == NULL)
        return;
    for (size_t i = 0; i < u->n_rows; i++)
        free(u->rows[i]);
    free(u->rows);
    u->rows = NULL;
    u->n_rows = 0;
}

/* The first rule of this kind for the path (and for ACCEPT, whose ref_is
 * and ours_is fit the values), counted in use. */
static const pv_jc_rule *rule_find_value(const pv_jc_rule *rules, pv_jc_use *use,
                                         const char *tool, const char *where, const char *path,
                                         pv_jc_kind kind, const json_t *ours, const json_t *ref)
{
    for (const pv_jc_rule *r = rules; r != NULL && r->path != NULL; r++) {
        if (r->kind != kind ||
            (kind == PV_JC_ACCEPT &&
             (!pv_jc_value_is(r->ref_is, ref) || !pv_jc_value_is(r->ours_is, ours))))
            continue;
        uint64_t t = pv_jc_alternatives_match(r->tool, tool);
        uint64_t w = t != 0 ? pv_jc_alternatives_match(r->where, where) : 0;
        uint64_t p = w != 0 ? pv_jc_alternatives_match(r->path, path) : 0;
        if (p == 0)
            continue;
        if (use != NULL) {
            pv_jc_use *u = &use[r - rules];
            u->tools |= t;
            u->wheres |= w;
            u->paths |= p;
            u->n++;
            if (kind == PV_JC_ACCEPT)
                pv_jc_use_row(u, where, path);
        }
        return r;
    }
    return NULL;
}

static const pv_jc_rule *rule_find(const walk *w, pv_jc_kind kind)
{
    return rule_find_value(w->rules, w->out->use, w->tool, w->where, w->path, kind, NULL, NULL);
}

const pv_jc_rule *pv_jc_rule_find(const pv_jc_rule *rules, pv_jc_use *use, pv_jc_kind kind,
                                  const char *tool, const char *where, const char *path)
{
    return rule_find_value(rules, use, tool, where, path, kind, NULL, NULL);
}

/* Keeps a copy of msg in slot i of *list (keep slots, made on first use). */
static void keep_msg(char ***list, size_t keep, size_t i, const char *msg)
{
    if (*list == NULL)
        *list = calloc(keep, sizeof **list);
    if (*list == NULL || i >= keep)
        return;
    size_t n = strlen(msg) + 1;
    (*list)[i] = malloc(n);
    if ((*list)[i] != NULL)
        memcpy((*list)[i], msg, n);
}

static void record(pv_jc_result *out, const pv_jc_rule *accept, const char *msg)
{
    size_t keep = out->keep ? out->keep : PV_JC_MAX_DIFFS;
    if (accept != NULL) {
        if (out->keep_accepted) {
            char line[PATH_CAP + 2 * SHOW_CHARS + 512];
            snprintf(line, sizeof line, "%s (%.400s)", msg, accept->reason);
            keep_msg(&out->accepted, keep, out->n_accepted, line);
        }
        out->n_accepted++;
        for (size_t i = 0; i < out->n_reasons; i++)
            if (out->reasons[i] == accept->reason)
                return;
        if (out->n_reasons < PV_JC_MAX_REASONS)
            out->reasons[out->n_reasons++] = accept->reason;
        return;
    }
    keep_msg(&out->diffs, keep, out->n_diffs, msg);
    out->n_diffs++;
}

static void vnote(pv_jc_result *r, const pv_jc_rule *rules, const char *tool, const char *where,
                  const char *path, const json_t *ours, const json_t *ref, const char *fmt,
                  va_list ap)
{
    char msg[PATH_CAP + 2 * SHOW_CHARS + 64];
    int n = snprintf(msg, sizeof msg, "%s: ", path);
    if (n > 0 && (size_t)n < sizeof msg)
        vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    record(r, rule_find_value(rules, r->use, tool, where, path, PV_JC_ACCEPT, ours, ref), msg);
}

void pv_jc_accept(pv_jc_result *r, const pv_jc_rule *rule, const char *msg)
{
    record(r, rule, msg);
}

void pv_jc_note(pv_jc_result *r, const pv_jc_rule *rules, const char *tool, const char *where,
                const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vnote(r, rules, tool, where, path, NULL, NULL, fmt, ap);
    va_end(ap);
}

/* A difference at the walk's path; ours and ref are the values there (for
 * ours_is and ref_is), or NULL. */
static void diff(walk *w, const json_t *ours, const json_t *ref, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void diff(walk *w, const json_t *ours, const json_t *ref, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vnote(w->out, w->rules, w->tool, w->where, w->path, ours, ref, fmt, ap);
    va_end(ap);
}

/* Writes a short form of v into buf. */
static const char *show(const json_t *v, char *buf, size_t cap)
{
    if (v == NULL) {
        snprintf(buf, cap, "(missing)");
        return buf;
    }
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(12));
    if (s == NULL) {
        snprintf(buf, cap, "(unprintable)");
        return buf;
    }
    if (strlen(s) > SHOW_CHARS)
        snprintf(buf, cap, "%.*s...", SHOW_CHARS, s);
    else
        snprintf(buf, cap, "%s", s);
    free(s);
    return buf;
}

/* ---- paths ------------------------------------------------------------------- */

/* Appends "/seg" (or "[seg]" when bracket) and returns the old length. */
static size_t path_push(walk *w, const char *seg, bool bracket)
{
    size_t old = w->path_len;
    int n = snprintf(w->path + old, PATH_CAP - old, bracket ? "[%s]" : "/%s", seg);
    if (n < 0 || (size_t)n >= PATH_CAP - old)
        w->path_len = PATH_CAP - 1;
    else
        w->path_len = old + (size_t)n;
    return old;
}

static void path_pop(walk *w, size_t old)
{
    w->path_len = old;
    w->path[old] = '\0';
}

/* ---- leaves ------------------------------------------------------------------ */

/* Whether two numbers at the walk's path agree: exactly under an EXACT
 * rule; else within PV_JC_REL (of the larger) or PV_JC_ABS of each other,
 * or half the last digit either printed; else within the path's TOLERANCE
 * rule, which is counted as used only then, so that a tolerance never
 * needed fails the harness as unused. */
static bool numbers_close(walk *w, double ours, double ref, double printed_half_unit, bool exact)
{
    if (isnan(ours) || isnan(ref))
        return isnan(ours) && isnan(ref);
    if (exact)
        return ours == ref;
    double d = fabs(ours - ref), big = fmax(fabs(ours), fabs(ref));
    if (d <= fmax(fmax(PV_JC_REL * big, PV_JC_ABS), printed_half_unit))
        return true;
    const pv_jc_rule *tol = rule_find_value(w->rules, NULL, w->tool, w->where, w->path,
                                            PV_JC_TOLERANCE, NULL, NULL);
    if (tol == NULL || d > fmax(tol->rel * big, tol->abs))
        return false;
    rule_find(w, PV_JC_TOLERANCE);
    return true;
}

/* Parses a number printed as a string ("133.1", "95.0%", "-nan"). Returns
 * false when s is not one. half_unit is half of the last printed digit. */
static bool parse_number_string(const char *s, double *value, double *half_unit,
                                bool *percent)
{
    char *end = NULL;
    if (*s == '\0')
        return false;
    *value = strtod(s, &end);
    if (end == s)
        return false;
    *percent = *end == '%';
    if (*percent)
        end++;
    if (*end != '\0')
        return false;
    const char *dot = strchr(s, '.');
    size_t digits = 0;
    if (dot != NULL && strpbrk(s, "eE") == NULL)
        digits = strspn(dot + 1, "0123456789");
    size_t significant = strspn(s + (*s == '-'), "0123456789");
    /* Ids printed as long integers are labels, not quantities. */
    if (dot == NULL && significant > 15)
        return false;
    *half_unit = 0.5 * pow(10.0, -(double)digits);
    return true;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d == NULL)
        abort();
    memcpy(d, s, n);
    return d;
}

/* PV_JC_PARTITION: ours and ref (labels) must pair up one to one. */
static void compare_label(walk *w, const pv_jc_rule *rule, const char *ours, const char *ref)
{
    if (rule->arg != NULL && strcmp(ours, rule->arg) == 0 && strcmp(ref, rule->arg) == 0)
        return;
    for (size_t i = 0; i < w->n_pairs; i++) {
        bool a = strcmp(w->pairs[i].ours, ours) == 0, b = strcmp(w->pairs[i].ref, ref) == 0;
        if (a && b)
            return;
        if (a || b) {
            diff(w, NULL, NULL,
                 "ours %s goes with the reference's %s here, but %s went with %s before", ours,
                 ref, w->pairs[i].ours, w->pairs[i].ref);
            return;
        }
    }
    if (w->n_pairs == w->cap_pairs) {
        w->cap_pairs = w->cap_pairs ? 2 * w->cap_pairs : 64;
        w->pairs = realloc(w->pairs, w->cap_pairs * sizeof *w->pairs);
        if (w->pairs == NULL)
            abort();
    }
    w->pairs[w->n_pairs++] = (label_pair){dup_str(ours), dup_str(ref)};
}

static void compare_string(walk *w, const json_t *ours, const json_t *ref)
{
    const pv_jc_rule *labels = rule_find(w, PV_JC_PARTITION);
    if (labels != NULL && json_is_string(ours)) {
        compare_label(w, labels, json_string_value(ours), json_string_value(ref));
        return;
    }
    const char *b = json_string_value(ref);
    const char *a = json_string_value(ours);
    double x, y, hx, hy;
    bool px, py;
    bool numbers = a != NULL && parse_number_string(b, &y, &hy, &py) &&
                   parse_number_string(a, &x, &hx, &px) && px == py;
    /* Looked up for equal values too: an exact rule governs them all, and
     * its use is counted. */
    bool exact = numbers && rule_find(w, PV_JC_EXACT) != NULL;
    if (a != NULL && strcmp(a, b) == 0)
        return;
    if (numbers && numbers_close(w, x, y, fmax(hx, hy), exact))
        return;
    char sa[SHOW_CHARS + 8], sb[SHOW_CHARS + 8];
    diff(w, ours, ref, "ours %s, reference %s", show(ours, sa, sizeof sa),
             show(ref, sb, sizeof sb));
}

static void compare_number(walk *w, const json_t *ours, const json_t *ref)
{
    if (!json_is_number(ours)) {
        char sa[SHOW_CHARS + 8], sb[SHOW_CHARS + 8];
        diff(w, ours, ref, "ours %s, reference %s", show(ours, sa, sizeof sa),
             show(ref, sb, sizeof sb));
        return;
    }
    bool exact = rule_find(w, PV_JC_EXACT) != NULL;
    double x = json_number_value(ours), y = json_number_value(ref);
    if (!numbers_close(w, x, y, 0.0, exact))
        diff(w, ours, ref, "ours %.9g, reference %.9g", x, y);
}

/* ---- keys for matching array elements -------------------------------------- */

static void key_append(char *key, size_t cap, const json_t *v)
{
    size_t n = strlen(key);
    if (n > 0 && n + 1 < cap)
        key[n++] = '|';
    if (json_is_string(v))
        snprintf(key + n, cap - n, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(key + n, cap - n, "%lld", (long long)json_integer_value(v));
    else if (json_is_number(v))
        snprintf(key + n, cap - n, "%.17g", json_number_value(v));
    else
        snprintf(key + n, cap - n, "%s", v == NULL ? "-" : "?");
}

/* Column index of a DataTable column id, or -1. */
static int table_col(const json_t *table, const char *id, size_t id_len)
{
    const json_t *cols = json_object_get(table, "cols");
    for (size_t i = 0; i < json_array_size(cols); i++) {
        const char *c = json_string_value(json_object_get(json_array_get(cols, i), "id"));
        if (c != NULL && strlen(c) == id_len && strncmp(c, id, id_len) == 0)
            return (int)i;
    }
    return -1;
}

/* Key of element el: for a DataTable row (table != NULL) the cells of the
 * named columns, otherwise the named (dotted) members. */
static void element_key(const json_t *table, const json_t *el, const char *spec, char *key,
                        size_t cap)
{
    key[0] = '\0';
    for (const char *p = spec; *p != '\0';) {
        size_t n = strcspn(p, ",");
        const json_t *v = NULL;
        if (table != NULL) {
            int c = table_col(table, p, n);
            if (c >= 0)
                v = json_object_get(json_array_get(json_object_get(el, "c"), (size_t)c), "v");
        } else {
            char member[256];
            snprintf(member, sizeof member, "%.*s", (int)n, p);
            v = el;
            for (char *tok = strtok(member, "."); tok != NULL && v != NULL;
                 tok = strtok(NULL, "."))
                v = json_object_get(v, tok);
        }
        key_append(key, cap, v);
        p += n;
        if (*p == ',')
            p++;
    }
}

/* ---- the walk ---------------------------------------------------------------- */

static void compare_value(walk *w, const json_t *ours, const json_t *ref);

static void compare_row(walk *w, const json_t *ours_table, const json_t *ours_row,
                        const json_t *ref_table, const json_t *ref_row)
{
    const json_t *rc = json_object_get(ref_row, "c");
    const json_t *oc = json_object_get(ours_row, "c");
    const json_t *ref_cols = json_object_get(ref_table, "cols");
    for (size_t k = 0; k < json_array_size(rc); k++) {
        const char *id = json_string_value(json_object_get(json_array_get(ref_cols, k), "id"));
        char seg[64];
        if (id == NULL || *id == '\0')
            snprintf(seg, sizeof seg, "%zu", k);
        else
            snprintf(seg, sizeof seg, "%s", id);
        /* The same column in ours, by id, so a column order change shows
         * once on /cols instead of on every cell. */
        int ok = id != NULL && *id != '\0' ? table_col(ours_table, id, strlen(id)) : (int)k;
        size_t old = path_push(w, seg, false);
        compare_value(w, ok < 0 ? NULL : json_object_get(json_array_get(oc, (size_t)ok), "v"),
                      json_object_get(json_array_get(rc, k), "v"));
        path_pop(w, old);
    }
}

/* Matches elements by key; writes for each ref element the index of its
 * ours element (or SIZE_MAX). */
static void match_by_key(const json_t *ours_table, const json_t *ours, const json_t *ref_table,
                         const json_t *ref, const char *spec, size_t *ref_to_ours,
                         char (*ref_keys)[KEY_CAP], bool *ours_used)
{
    size_t no = json_array_size(ours), nr = json_array_size(ref);
    char(*ours_keys)[KEY_CAP] = calloc(no ? no : 1, KEY_CAP);
    for (size_t i = 0; i < no; i++)
        element_key(ours_table, json_array_get(ours, i), spec, ours_keys[i], KEY_CAP);
    for (size_t j = 0; j < nr; j++) {
        element_key(ref_table, json_array_get(ref, j), spec, ref_keys[j], KEY_CAP);
        ref_to_ours[j] = SIZE_MAX;
        for (size_t i = 0; i < no; i++) {
            if (!ours_used[i] && strcmp(ours_keys[i], ref_keys[j]) == 0) {
                ours_used[i] = true;
                ref_to_ours[j] = i;
                break;
            }
        }
    }
    free(ours_keys);
}

/* Arrays, and a DataTable's rows when the tables are given. */
static void compare_elements(walk *w, const json_t *ours_table, const json_t *ours,
                             const json_t *ref_table, const json_t *ref)
{
    size_t no = json_array_size(ours), nr = json_array_size(ref);
    const pv_jc_rule *keyed = rule_find(w, PV_JC_KEYED);
    if (no != nr) {
        json_t *a = json_integer((json_int_t)no), *b = json_integer((json_int_t)nr);
        diff(w, a, b, "%zu elements in ours, %zu in the reference", no, nr);
        json_decref(a);
        json_decref(b);
    }
    size_t *map = calloc(nr ? nr : 1, sizeof *map);
    char(*keys)[KEY_CAP] = calloc(nr ? nr : 1, KEY_CAP);
    bool *used = calloc(no ? no : 1, sizeof *used);
    if (keyed != NULL) {
        match_by_key(ours_table, ours, ref_table, ref, keyed->arg, map, keys, used);
    } else {
        for (size_t j = 0; j < nr; j++) {
            map[j] = j < no ? j : SIZE_MAX;
            snprintf(keys[j], KEY_CAP, "%zu", j);
            if (j < no)
                used[j] = true;
        }
    }
    for (size_t j = 0; j < nr; j++) {
        size_t old = path_push(w, keys[j], true);
        const json_t *r = json_array_get(ref, j);
        const json_t *o = map[j] == SIZE_MAX ? NULL : json_array_get(ours, map[j]);
        if (o == NULL && keyed != NULL)
            diff(w, NULL, r, "missing in ours");
        else if (o != NULL && ref_table != NULL)
            compare_row(w, ours_table, o, ref_table, r);
        else if (o != NULL)
            compare_value(w, o, r);
        path_pop(w, old);
    }
    for (size_t i = 0; keyed != NULL && i < no; i++) {
        if (used[i])
            continue;
        char key[KEY_CAP];
        element_key(ours_table, json_array_get(ours, i), keyed->arg, key, sizeof key);
        size_t old = path_push(w, key, true);
        diff(w, json_array_get(ours, i), NULL, "only in ours");
        path_pop(w, old);
    }
    free(used);
    free(keys);
    free(map);
}

static bool is_table(const json_t *v)
{
    return json_is_array(json_object_get(v, "cols")) && json_is_array(json_object_get(v, "rows"));
}

static void compare_object(walk *w, const json_t *ours, const json_t *ref)
{
    bool table = is_table(ref) && is_table(ours);
    const char *k;
    const json_t *rv;
    json_object_foreach((json_t *)ref, k, rv) {
        size_t old = path_push(w, k, false);
        if (table && strcmp(k, "rows") == 0)
            compare_elements(w, ours, json_object_get(ours, "rows"), ref, rv);
        else
            compare_value(w, json_object_get(ours, k), rv);
        path_pop(w, old);
    }
}

static void compare_value(walk *w, const json_t *ours, const json_t *ref)
{
    char sa[SHOW_CHARS + 8], sb[SHOW_CHARS + 8];
    w->out->n_values++;
    if (ours == NULL) {
        diff(w, NULL, ref, "missing in ours, reference %s", show(ref, sb, sizeof sb));
        return;
    }
    switch (json_typeof(ref)) {
    case JSON_OBJECT:
        if (!json_is_object(ours))
            diff(w, ours, ref, "ours %s, reference an object", show(ours, sa, sizeof sa));
        else
            compare_object(w, ours, ref);
        return;
    case JSON_ARRAY:
        if (!json_is_array(ours))
            diff(w, ours, ref, "ours %s, reference an array", show(ours, sa, sizeof sa));
        else
            compare_elements(w, NULL, ours, NULL, ref);
        return;
    case JSON_STRING:
        compare_string(w, ours, ref);
        return;
    case JSON_INTEGER:
    case JSON_REAL:
        compare_number(w, ours, ref);
        return;
    default:
        if (!json_equal((json_t *)ours, (json_t *)ref))
            diff(w, ours, ref, "ours %s, reference %s", show(ours, sa, sizeof sa),
                 show(ref, sb, sizeof sb));
        return;
    }
}

void pv_jc_compare(const json_t *ours, const json_t *ref, const pv_jc_rule *rules,
                   const char *tool, const char *where, pv_jc_result *out)
{
    walk *w = calloc(1, sizeof *w);
    if (w == NULL)
        abort();
    w->rules = rules;
    w->tool = tool;
    w->where = where;
    w->out = out;
    compare_value(w, ours, ref);
    for (size_t i = 0; i < w->n_pairs; i++) {
        free(w->pairs[i].ours);
        free(w->pairs[i].ref);
    }
    free(w->pairs);
    free(w);
}

void pv_jc_result_fini(pv_jc_result *r)
{
    size_t keep = r->keep ? r->keep : PV_JC_MAX_DIFFS;
    for (size_t i = 0; r->diffs != NULL && i < keep && i < r->n_diffs; i++)
        free(r->diffs[i]);
    for (size_t i = 0; r->accepted != NULL && i < keep && i < r->n_accepted; i++)
        free(r->accepted[i]);
    free(r->diffs);
    free(r->accepted);
    memset(r, 0, sizeof *r);
}
