/* fuzz_params: libFuzzer entry for the query parameters of every route: the
 * input is a query string ("k=v&k=v", %-escapes decoded as libmicrohttpd
 * decodes them, NULs and invalid UTF-8 included) read through the request
 * layer's checks (http/request.c), then as every registered tool's and
 * part's declared table (param_read.h) with the query made from it, and by
 * the single-parameter rules. Each value must either be read within its
 * rule or refused with PV_EINVAL and a reason; ASan/UBSan catch the rest.
 * Built and run by `tests/fuzz/run.sh params`, not by make. */
#include "answer/param_read.h"
#include "http/http.h"
#include "tools/registry.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PAIRS 64

typedef struct pairs {
    char *name[MAX_PAIRS];
    char *value[MAX_PAIRS];
    size_t value_len[MAX_PAIRS];
    size_t n;
} pairs;

static int hex(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decodes %XX and '+' in place; returns the decoded length. */
static size_t unescape(char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            s[o++] = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else {
            s[o++] = s[i] == '+' ? ' ' : s[i];
        }
    }
    s[o] = '\0';
    return o;
}

static const char *get_param(void *ctx, const char *name, size_t *len)
{
    pairs *p = ctx;
    for (size_t i = 0; i < p->n; i++) {
        if (strcmp(p->name[i], name) == 0) {
            *len = p->value_len[i];
            return p->value[i];
        }
    }
    return NULL;
}

static const char *no_header(void *ctx, const char *name)
{
    (void)ctx;
    (void)name;
    return NULL;
}

/* Reads a declared table and makes its query; every value read must follow
 * its rule, and every refusal must say why. */
static void read_table(const pv_params *p, const pv_param_decl *decls, size_t n, size_t bytes,
                       int (*make)(const pv_param_values *, void *, pv_error *))
{
    pv_arena a;
    pv_arena_init(&a, 4096);
    pv_param_value *v = pv_arena_zalloc(&a, (n + 1) * sizeof *v);
    bool missing;
    pv_error err = {0};
    int rc = pv_params_read(decls, n, p, &a, v, &missing, &err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const pv_param_decl *d = &decls[i];
        if ((d->kind == PV_PARAM_UINT && (v[i].u < d->min || v[i].u > d->max)) ||
            (d->kind == PV_PARAM_NUMBER && v[i].present && !(v[i].x >= d->lo && v[i].x <= d->hi)) ||
            (d->kind == PV_PARAM_UINT_LIST && v[i].n_items > d->max_items) ||
            (d->required && !v[i].present))
            abort();
    }
    void *q = pv_arena_zalloc(&a, bytes + 1);
    pv_param_values vals = {decls, v, n};
    if (rc == 0 && make != NULL)
        rc = make(&vals, q, &err);
    if (rc != 0 && (rc != PV_EINVAL || err.reason[0] == '\0'))
        abort();
    pv_arena_fini(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    pairs p = {0};
    char *save = NULL;
    for (char *kv = strtok_r(text, "&", &save); kv != NULL && p.n < MAX_PAIRS;
         kv = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(kv, '=');
        char *v = eq != NULL ? eq + 1 : kv + strlen(kv);
        if (eq != NULL)
            *eq = '\0';
        unescape(kv, strlen(kv));
        p.name[p.n] = kv;
        p.value_len[p.n] = unescape(v, strlen(v));
        p.value[p.n++] = v;
    }
    pv_request rq = {.src = {get_param, no_header, &p}};
    pv_params params = pv_http_params(&rq);
    size_t n_tools;
    const pv_tool *const *tools = pv_tools(&n_tools);
    for (size_t i = 0; i < n_tools; i++) {
        read_table(&params, tools[i]->params, tools[i]->n_params, tools[i]->query_bytes,
                   tools[i]->make_query);
        for (size_t k = 0; k < tools[i]->n_parts; k++) {
            const pv_tool_part *part = &tools[i]->parts[k];
            read_table(&params, part->params, part->n_params, part->query_bytes,
                       part->make_query);
        }
    }
    static const char *const choices[] = {"bin", "json", NULL};
    for (size_t i = 0; i < p.n; i++) {
        pv_error err = {0};
        uint64_t u;
        bool b;
        unsigned c;
        double d;
        bool present;
        const char *t;
        if ((pv_param_uint(&params, p.name[i], 7, 1000, &u, &err) == 0 && u > 1000) ||
            pv_param_switch(&params, p.name[i], false, &b, &err) > 0 ||
            (pv_param_choice(&params, p.name[i], choices, 0, &c, &err) == 0 && c > 1) ||
            (pv_param_number(&params, p.name[i], -5, 5, &d, &present, &err) == 0 && present &&
             !(d >= -5 && d <= 5)) ||
            pv_param_text(&params, p.name[i], &t, &err) > 0)
            abort();
    }
    free(text);
    return 0;
}
