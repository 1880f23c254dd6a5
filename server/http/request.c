/* request: reading query parameters and headers safely. libmicrohttpd
 * decodes %-escapes, so a value may hold bytes a plain C string hides
 * (an encoded NUL); we ask for the decoded length and refuse such values
 * instead of silently truncating them. */
#include "http/http.h"

#include "util/buf.h"
#include "util/sort.h"

#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

static bool valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t extra;
        if (c < 0x80)
            extra = 0;
        else if ((c & 0xe0) == 0xc0 && c >= 0xc2)
            extra = 1;
        else if ((c & 0xf0) == 0xe0)
            extra = 2;
        else if ((c & 0xf8) == 0xf0 && c <= 0xf4)
            extra = 3;
        else
            return false;
        if (n - i <= extra)
            return false;
        for (size_t k = 1; k <= extra; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
        i += extra + 1;
    }
    return true;
}

const char *pv_http_param(pv_request *rq, const char *name, bool *bad)
{
    const char *v = NULL;
    size_t n = 0;
    if (MHD_lookup_connection_value_n(rq->conn, MHD_GET_ARGUMENT_KIND, name, strlen(name), &v,
                                      &n) != MHD_YES || v == NULL)
        return NULL;
    if (strlen(v) != n || !valid_utf8((const unsigned char *)v, n)) {
        *bad = true;
        return NULL;
    }
    return v;
}

const char *pv_http_header(pv_request *rq, const char *name)
{
    return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, name);
}

typedef struct query_acc {
    const char *const *skip;
    char *items[64];        /* "k=v" strings from the request arena */
    size_t n;
    pv_arena *arena;
} query_acc;

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *value)
{
    (void)kind;
    query_acc *q = cls;
    for (size_t i = 0; q->skip[i] != NULL; i++)
        if (strcmp(q->skip[i], key) == 0)
            return MHD_YES;
    if (q->n < sizeof q->items / sizeof q->items[0])
        q->items[q->n++] = pv_arena_printf(q->arena, "%s=%s", key, value ? value : "");
    return MHD_YES;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *pv_http_query_canonical(pv_request *rq, const char *const *skip)
{
    query_acc q = {.skip = skip, .arena = &rq->arena};
    MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, collect, &q);
    pv_sort(q.items, q.n, sizeof q.items[0], cmp_str);
    size_t total = 1;
    for (size_t i = 0; i < q.n; i++)
        total += strlen(q.items[i]) + 1;
    char *s = pv_arena_alloc(&rq->arena, total);
    s[0] = '\0';
    for (size_t i = 0; i < q.n; i++) {
        if (i > 0)
            strcat(s, "&");
        strcat(s, q.items[i]);
    }
    return s;
}
