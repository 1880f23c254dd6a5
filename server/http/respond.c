/* respond: building response bodies. Every error leaves as
 * {"error": ..., "detail": ...}; the status comes from the error code
 * here and nowhere else. A browser that navigates to an error gets the
 * same words as a small page (pv__respond_error_page). */
#include "http/conn.h"
#include "http/http.h"
#include "pv_config.h"
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERROR_PAGE_MAX_BYTES ((size_t)64 << 10)
/* Seconds a client waits before asking again; about what one expensive
 * answer takes on a large profile. */
#define BUSY_RETRY_S 2

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
    case PV_EBUSY: return 503;
    default: return 500;
    }
}

/* The detail goes to whoever asked, so a file is named relative to the
 * logdir (the absolute folder tells who runs the server, and where), and a
 * file outside it, such as a cache entry, by its name alone. */
static void shown_path(const char *path, char *out, size_t cap)
{
    const char *root = pv_cfg.logdir_real != NULL ? pv_cfg.logdir_real : "";
    size_t n = strlen(root);
    if (n > 0 && strncmp(path, root, n) == 0 && path[n] == '/') {
        snprintf(out, cap, "%s", path + n + 1);
        return;
    }
    const char *base = strrchr(path, '/');
    snprintf(out, cap, "%s", base != NULL ? base + 1 : path);
}

void pv_respond_titled_error(pv_response *rs, const pv_error *err, const char *title)
{
    pv_error shown = *err;
    shown_path(err->path, shown.path, sizeof shown.path);
    char detail[1200];
    pv_error_format(&shown, detail, sizeof detail);
    const char *what = title;
    switch (title != NULL ? 0 : err->code) {
    case 0: break;
    case PV_EFORMAT: what = "bad profile file"; break;
    case PV_EIO: what = "cannot read file"; break;
    case PV_ETOOBIG: what = "too big"; break;
    default: what = pv_error_name(err->code); break;
    }
    pv_respond_error(rs, status_of(err->code), what, detail);
    if (err->code == PV_EBUSY)
        rs->retry_after_s = BUSY_RETRY_S;
}

void pv_respond_pv_error(pv_response *rs, const pv_error *err)
{
    pv_respond_titled_error(rs, err, NULL);
}

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

int pv__html_escape(pv_buf *b, const char *s)
{
    for (; *s != '\0'; s++) {
        const char *named = NULL;
        switch (*s) {
        case '&': named = "&amp;"; break;
        case '<': named = "&lt;"; break;
        case '>': named = "&gt;"; break;
        case '"': named = "&quot;"; break;
        case '\'': named = "&#39;"; break;
        default: break;
        }
        int rc = named != NULL ? pv_buf_adds(b, named) : pv_buf_add(b, s, 1);
        if (rc != 0)
            return rc;
    }
    return 0;
}

void pv__respond_error_page(pv_response *rs)
{
    if (rs->content_type == NULL || strcmp(rs->content_type, "application/json") != 0 ||
        rs->body_is_gzip || rs->body_from_fd || rs->body == NULL)
        return;
    json_t *j = json_loadb(rs->body, rs->len, 0, NULL);
    const char *error = json_string_value(json_object_get(j, "error"));
    const char *detail = json_string_value(json_object_get(j, "detail"));
    if (error == NULL) {
        json_decref(j);
        return;
    }
    pv_buf b;
    pv_buf_init(&b, ERROR_PAGE_MAX_BYTES);
    int rc = pv_buf_addf(&b, "<!doctype html><meta charset=\"utf-8\"><title>%u ", rs->status);
    rc = rc != 0 ? rc : pv__html_escape(&b, error);
    rc = rc != 0 ? rc : pv_buf_adds(&b, " - profview</title><style>body{font:16px system-ui,"
                                        "sans-serif;max-width:40em;margin:3em auto;padding:0 1em}"
                                        "</style><h1>");
    rc = rc != 0 ? rc : pv__html_escape(&b, error);
    rc = rc != 0 ? rc : pv_buf_adds(&b, "</h1><p>");
    rc = rc != 0 ? rc : pv__html_escape(&b, detail != NULL ? detail : "");
    rc = rc != 0 ? rc : pv_buf_adds(&b, "</p><p><a href=\"");
    rc = rc != 0 ? rc : pv__html_escape(&b, pv_cfg.path_prefix);
    rc = rc != 0 ? rc : pv_buf_adds(&b, "/\">profview</a></p>\n");
    json_decref(j);
    if (rc != 0)
        return;
    if (!rs->body_static)
        free(rs->body);
    rs->body = pv_buf_take(&b, &rs->len);
    rs->body_static = false;
    rs->content_type = "text/html; charset=utf-8";
}
