/* respond: building response bodies. Every error leaves as
 * {"error": ..., "detail": ...}; the status comes from the error code
 * here and nowhere else. */
#include "http/http.h"
#include "util/mem.h"

#include <string.h>

void pv_respond_json(pv_response *rs, unsigned status, json_t *j)
{
    /* Sorted keys match the reference's Python json.dumps(sort_keys=True),
     * so outputs can be compared byte for byte. */
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(j);
    if (s == NULL) {
        pv_respond_error(rs, 500, "internal error", "the response could not be serialised");
        return;
    }
    rs->status = status;
    rs->content_type = "application/json";
    rs->body = s;
    rs->len = strlen(s);
}

void pv_respond_error(pv_response *rs, unsigned status, const char *error, const char *detail)
{
    json_t *j = json_pack("{s:s, s:s}", "error", error, "detail", detail ? detail : "");
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    if (s == NULL)
        s = pv_xstrdup("{\"error\":\"internal error\",\"detail\":\"\"}");
    rs->status = status;
    rs->content_type = "application/json";
    rs->body = s;
    rs->len = strlen(s);
    rs->body_static = false;
    rs->body_is_gzip = false;
}

static unsigned status_of(int code)
{
    switch (code) {
    case PV_ENOTFOUND: return 404;
    case PV_EINVAL: return 400;
    case PV_ENOTIMPL: return 501;
    case PV_EFORMAT: return 422;
    case PV_ETOOBIG: return 413;
    case PV_ENOMEM: return 503;
    default: return 500;
    }
}

void pv_respond_pv_error(pv_response *rs, const pv_error *err)
{
    char detail[1200];
    pv_error_format(err, detail, sizeof detail);
    const char *what;
    switch (err->code) {
    case PV_EFORMAT: what = "bad profile file"; break;
    case PV_EIO: what = "cannot read file"; break;
    case PV_ETOOBIG: what = "too big"; break;
    default: what = pv_error_name(err->code); break;
    }
    pv_respond_error(rs, status_of(err->code), what, detail);
}

/* Seconds a client waits before asking again; about what one expensive
 * answer takes on a large profile. */
#define BUSY_RETRY_S 2

void pv_respond_busy(pv_response *rs)
{
    pv_respond_error(rs, 503, "busy",
                     "the server is making as many expensive answers as it makes at once; "
                     "ask again in a moment");
    rs->retry_after_s = BUSY_RETRY_S;
}

void pv_respond_text(pv_response *rs, unsigned status, const char *content_type,
                     const char *text)
{
    rs->status = status;
    rs->content_type = content_type;
    rs->body = pv_xstrdup(text);
    rs->len = strlen(text);
}
