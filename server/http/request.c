/* request: reading query parameters and headers safely, from a request's
 * source: libmicrohttpd's connection (server.c) or, in tests, any other.
 * %-escapes are decoded, so a value may hold bytes a plain C string hides
 * (an encoded NUL); a source gives the decoded length and such values are
 * refused, as is invalid UTF-8, instead of silently truncated. */
#include "http/http.h"
#include "util/utf8.h"

#include <string.h>

const char *pv_http_param(pv_request *rq, const char *name, bool *bad)
{
    size_t n = 0;
    const char *v = rq->src.param(rq->src.ctx, name, &n);
    if (v == NULL)
        return NULL;
    if (strlen(v) != n || !pv_utf8_valid(v, n)) {
        *bad = true;
        return NULL;
    }
    return v;
}

const char *pv_http_header(pv_request *rq, const char *name)
{
    return rq->src.header(rq->src.ctx, name);
}

static const char *params_get(void *ctx, const char *name, bool *bad)
{
    return pv_http_param(ctx, name, bad);
}

pv_params pv_http_params(pv_request *rq)
{
    return (pv_params){params_get, rq};
}
