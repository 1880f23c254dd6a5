/* static: serving the embedded frontend. "/" is index.html. Paths are
 * looked up in the compiled-in table only, so nothing on disk is ever
 * reachable through them. */
#include "http/assets.h"
#include "http/conn.h"
#include "http/http.h"
#include "util/bsearch.h"

#include <stdio.h>
#include <string.h>

const pv_asset *pv_asset_find(const char *url)
{
    size_t lo = 0;
    PV_LOWER_BOUND(size_t, lo, pv_assets_count, i, strcmp(pv_assets[i].url, url) < 0);
    return lo < pv_assets_count && strcmp(pv_assets[lo].url, url) == 0 ? &pv_assets[lo] : NULL;
}

void pv_serve_static(pv_request *rq, pv_response *rs)
{
    const char *url = rq->path[0] == '/' ? rq->path + 1 : rq->path;
    if (url[0] == '\0')
        url = "index.html";
    const pv_asset *a = pv_asset_find(url);
    if (a == NULL) {
        char detail[600];
        snprintf(detail, sizeof detail, "nothing is served at /%.500s", url);
        pv_respond_error(rs, 404, "not found", detail);
        return;
    }
    bool gz = pv__http_accepts_gzip(rq);
    rs->status = 200;
    rs->content_type = a->content_type;
    rs->body = (char *)(gz ? a->gz : a->raw);
    rs->len = gz ? a->gz_len : a->raw_len;
    rs->body_static = true;
    rs->body_is_gzip = gz;
    rs->etag = a->etag;
    /* The page itself is revalidated on every load so an upgrade shows at
     * once; the modules it loads are checked again after five minutes. */
    rs->cache_control = strcmp(url, "index.html") == 0 ? "no-cache" : "public, max-age=300";
}
