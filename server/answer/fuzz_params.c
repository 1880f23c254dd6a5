/* fuzz_params: libFuzzer entry for the query parameters of every route: the
 * input is a query string ("k=v&k=v", %-escapes decoded as libmicrohttpd
 * decodes them, NULs and invalid UTF-8 included) read through the request
 * layer's checks (http/request.c) and then by every registered tool's
 * query reader and the parameter rules of params.h. Each value must either
 * be read or refused with PV_EINVAL and a reason; ASan/UBSan catch the
 * rest. Built and run by `tests/fuzz/run.sh params`, not by make. */
#include "http/http.h"
#include "tools/common/params.h"
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
        if (tools[i]->read_query == NULL)
            continue;
        void *q = calloc(1, tools[i]->query_bytes);
        pv_error err = {0};
        int rc = tools[i]->read_query(&params, q, &err);
        if (rc != 0 && (rc != PV_EINVAL || err.reason[0] == '\0'))
            abort();
        free(q);
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
