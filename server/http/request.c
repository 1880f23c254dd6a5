/* request: reading query parameters and headers safely, from libmicrohttpd's
 * connection or (in tests) any other source. libmicrohttpd decodes
 * %-escapes, so a value may hold bytes a plain C string hides (an encoded
 * NUL); a source gives the decoded length and such values are refused
 * instead of silently truncated. */
#include "http/http.h"

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
    size_t n = 0;
    const char *v = rq->src.param(rq->src.ctx, name, &n);
    if (v == NULL)
        return NULL;
    if (strlen(v) != n || !valid_utf8((const unsigned char *)v, n)) {
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

/* ---- libmicrohttpd's connection as a source ----------------------------------- */

static const char *mhd_param(void *ctx, const char *name, size_t *len)
{
    const char *v = NULL;
    if (MHD_lookup_connection_value_n(ctx, MHD_GET_ARGUMENT_KIND, name, strlen(name), &v, len) !=
        MHD_YES)
        return NULL;
    return v;
}

static const char *mhd_header(void *ctx, const char *name)
{
    return MHD_lookup_connection_value(ctx, MHD_HEADER_KIND, name);
}

pv_request_source pv_http_mhd_source(struct MHD_Connection *conn)
{
    return (pv_request_source){mhd_param, mhd_header, conn};
}
