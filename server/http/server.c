/* server: libmicrohttpd set-up and the per-request pipeline.
 *
 * Pipeline for every request: check method, strip the path prefix, route,
 * run the handler, then the shared finishing steps every response gets:
 * a strong ETag (a hash of the identity body), 304 on If-None-Match,
 * gzip when the client accepts it, and the security headers. Handlers
 * never deal with any of that. */
#include "http/http.h"
#include "pv_config.h"
#include "util/buf.h"
#include "util/gzip.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/mem.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_BODY_BYTES ((size_t)4 << 30)
#define MIN_GZIP_BYTES 256

struct pv_http {
    struct MHD_Daemon *daemon;
    pv_app *app;
    uint16_t port;
};

static const char *const csp =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

static bool accepts_gzip(pv_request *rq)
{
    const char *ae = pv_http_header(rq, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    return ae != NULL && strstr(ae, "gzip") != NULL;
}

static bool compressible(const char *content_type)
{
    return content_type != NULL &&
           (strncmp(content_type, "text/", 5) == 0 ||
            strstr(content_type, "json") != NULL || strstr(content_type, "javascript") != NULL ||
            strstr(content_type, "svg") != NULL);
}

/* If-None-Match may list several tags, quoted, possibly weak. */
static bool etag_matches(const char *inm, const char *tag)
{
    if (inm == NULL)
        return false;
    if (strcmp(inm, "*") == 0)
        return true;
    size_t n = strlen(tag);
    for (const char *p = strstr(inm, tag); p != NULL; p = strstr(p + 1, tag))
        if (p > inm && p[-1] == '"' && p[n] == '"')
            return true;
    return false;
}

bool pv_http_not_modified_gz(pv_request *rq, const char *tag)
{
    char bare[48];
    snprintf(bare, sizeof bare, "%s%s", tag, accepts_gzip(rq) ? "-gz" : "");
    return etag_matches(pv_http_header(rq, MHD_HTTP_HEADER_IF_NONE_MATCH), bare);
}

/* Reads a body kept in a file into memory, for the clients that need it
 * decompressed. Returns false (and answers 500) when the file fails. */
static bool body_into_memory(pv_response *rs)
{
    char *mem = rs->len <= MAX_BODY_BYTES ? malloc(rs->len + 1) : NULL;
    size_t done = 0;
    while (mem != NULL && done < rs->len) {
        ssize_t r = pread(rs->body_fd, mem + done, rs->len - done,
                          (off_t)(rs->body_offset + done));
        if (r <= 0)
            break;
        done += (size_t)r;
    }
    close(rs->body_fd);
    rs->body_from_fd = false;
    if (mem == NULL || done < rs->len) {
        free(mem);
        pv_respond_error(rs, 500, "internal error", "a cached answer could not be read");
        return false;
    }
    rs->body = mem;
    rs->body_static = false;
    return true;
}

static void finish_body(pv_request *rq, pv_response *rs, bool gzip_ok, char **body,
                        size_t *len, bool *owned, bool *gz)
{
    *body = rs->body;
    *len = rs->len;
    *owned = !rs->body_static;
    *gz = rs->body_is_gzip;
    if (*gz && !gzip_ok) {
        pv_buf out;
        pv_buf_init(&out, MAX_BODY_BYTES);
        pv_error err = {0};
        if (pv_gzip_decompress(*body, *len, &out, NULL, &err) == 0) {
            if (*owned)
                free(*body);
            *body = pv_buf_take(&out, len);
            *owned = true;
            *gz = false;
        } else {
            pv_buf_fini(&out);
        }
        return;
    }
    if (!*gz && gzip_ok && *len >= MIN_GZIP_BYTES && compressible(rs->content_type)) {
        pv_buf out;
        pv_buf_init(&out, MAX_BODY_BYTES);
        if (pv_gzip_compress(*body, *len, &out, NULL) == 0) {
            if (*owned)
                free(*body);
            *body = pv_buf_take(&out, len);
            *owned = true;
            *gz = true;
        } else {
            pv_buf_fini(&out);
        }
    }
    (void)rq;
}

static enum MHD_Result queue(struct MHD_Connection *conn, pv_request *rq, pv_response *rs,
                             bool head)
{
    bool gzip_ok = accepts_gzip(rq);
    char tag[40];
    if (rs->etag != NULL) {
        snprintf(tag, sizeof tag, "%s", rs->etag);
    } else {
        uint64_t h = pv_hash_bytes(PV_HASH_SEED, rs->body ? rs->body : "", rs->len);
        snprintf(tag, sizeof tag, "%016llx", (unsigned long long)h);
    }
    /* The gzip variant is a different representation, so it gets its own
     * strong tag. */
    char etag[48];
    bool will_gzip = rs->body_is_gzip ? gzip_ok
                                      : gzip_ok && rs->len >= MIN_GZIP_BYTES &&
                                            compressible(rs->content_type);
    snprintf(etag, sizeof etag, "\"%s%s\"", tag, will_gzip ? "-gz" : "");
    char bare[48];
    snprintf(bare, sizeof bare, "%s%s", tag, will_gzip ? "-gz" : "");

    struct MHD_Response *r;
    unsigned status = rs->status;
    bool ok_status = status == 200;
    bool not_modified =
        ok_status && etag_matches(pv_http_header(rq, MHD_HTTP_HEADER_IF_NONE_MATCH), bare);
    if (rs->body_from_fd && (not_modified || head)) {
        close(rs->body_fd);
        rs->body_from_fd = false;
        rs->body = NULL;
        rs->len = 0;
    } else if (rs->body_from_fd && !(rs->body_is_gzip && gzip_ok) && !body_into_memory(rs)) {
        ok_status = not_modified = false;
        status = rs->status;
    }
    if (not_modified) {
        if (!rs->body_static)
            free(rs->body);
        r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
        status = MHD_HTTP_NOT_MODIFIED;
    } else {
        char *body = NULL;
        size_t len = 0;
        bool owned = false, gz = rs->body_is_gzip;
        if (!rs->body_from_fd)
            finish_body(rq, rs, gzip_ok, &body, &len, &owned, &gz);
        if (rs->body_from_fd) {
            /* Sent with sendfile where the kernel can; MHD closes the file. */
            r = MHD_create_response_from_fd_at_offset64(rs->len, rs->body_fd,
                                                        rs->body_offset);
            if (r == NULL) {
                close(rs->body_fd);
                r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
            }
        } else if (head) {
            if (owned)
                free(body);
            r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
        } else {
            r = MHD_create_response_from_buffer(len, body,
                                                owned ? MHD_RESPMEM_MUST_FREE
                                                      : MHD_RESPMEM_PERSISTENT);
        }
        if (gz)
            MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
        if (rs->content_type != NULL)
            MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rs->content_type);
        if (rs->disposition != NULL)
            MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, rs->disposition);
        if (rs->location != NULL)
            MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, rs->location);
        if (rs->retry_after_s != 0) {
            char secs[16];
            snprintf(secs, sizeof secs, "%u", rs->retry_after_s);
            MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, secs);
        }
    }
    if (ok_status) {
        MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                                rs->cache_control ? rs->cache_control : "no-cache");
    } else {
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
    MHD_add_response_header(r, "Content-Security-Policy", csp);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    enum MHD_Result res = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return res;
}

/* Returns the path below the prefix, or NULL when the request is outside
 * it (the bare prefix "/p" included: it is redirected to "/p/"). */
static const char *strip_prefix(const char *url)
{
    const char *prefix = pv_cfg.path_prefix ? pv_cfg.path_prefix : "";
    size_t n = strlen(prefix);
    if (n == 0)
        return url;
    if (strncmp(url, prefix, n) != 0)
        return NULL;
    return url[n] == '/' ? url + n : NULL;
}

/* "/p" must become "/p/": the page builds relative URLs, which resolve
 * against the last slash of its own address. */
static bool is_bare_prefix(const char *url)
{
    const char *prefix = pv_cfg.path_prefix ? pv_cfg.path_prefix : "";
    return prefix[0] != '\0' && strcmp(url, prefix) == 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **state)
{
    (void)version;
    (void)upload_data;
    pv_http *h = cls;
    /* libmicrohttpd calls twice for every request; the first call only
     * announces the headers. */
    if (*state == NULL) {
        *state = h;
        return MHD_YES;
    }
    *upload_size = 0;
    pv_request rq = {.src = pv_http_mhd_source(conn), .app = h->app};
    pv_arena_init(&rq.arena, 16384);
    pv_response rs = {0};
    bool head = strcmp(method, "HEAD") == 0;
    const char *path = strip_prefix(url);
    char location[600];
    if (!head && strcmp(method, "GET") != 0) {
        pv_respond_error(&rs, 405, "method not allowed",
                         "profview only answers GET and HEAD requests");
    } else if (is_bare_prefix(url)) {
        snprintf(location, sizeof location, "%s/", url);
        pv_respond_text(&rs, 308, "text/plain; charset=utf-8", "moved to the prefix with a slash\n");
        rs.location = location;
    } else if (path == NULL) {
        pv_respond_error(&rs, 404, "not found", "this server lives under its --path-prefix");
    } else {
        rq.path = path;
        pv_handler handler = pv_http_route(path);
        if (handler == NULL)
            handler = pv_serve_static;
        handler(&rq, &rs);
    }
    enum MHD_Result res = queue(conn, &rq, &rs, head);
    pv_log(PV_LOG_DEBUG, "%s %s -> %u", method, url, rs.status);
    pv_arena_fini(&rq.arena);
    return res;
}

int pv_http_start(pv_app *app, const char *bind, uint16_t port, pv_http **out, pv_error *err)
{
    *out = NULL;
    struct sockaddr_in sa4 = {0};
    struct sockaddr_in6 sa6 = {0};
    const struct sockaddr *sa;
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_ITC | MHD_USE_ERROR_LOG;
    if (inet_pton(AF_INET, bind, &sa4.sin_addr) == 1) {
        sa4.sin_family = AF_INET;
        sa4.sin_port = htons(port);
        sa = (const struct sockaddr *)&sa4;
    } else if (inet_pton(AF_INET6, bind, &sa6.sin6_addr) == 1) {
        sa6.sin6_family = AF_INET6;
        sa6.sin6_port = htons(port);
        sa = (const struct sockaddr *)&sa6;
        flags |= MHD_USE_IPv6;
    } else {
        return pv_error_set(err, PV_EINVAL, NULL, PV_NO_OFFSET,
                            "--bind %s is not an IPv4 or IPv6 address", bind);
    }
    pv_http *h = pv_xcalloc(1, sizeof *h);
    h->app = app;
    h->daemon = MHD_start_daemon(flags, port, NULL, NULL, on_request, h,
                                 MHD_OPTION_SOCK_ADDR, sa,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)256,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
                                 MHD_OPTION_END);
    if (h->daemon == NULL) {
        free(h);
        return pv_error_set(err, PV_EIO, NULL, PV_NO_OFFSET,
                            "cannot listen on %s port %u (in use, or not permitted)", bind,
                            (unsigned)port);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : port;
    *out = h;
    return 0;
}

uint16_t pv_http_port(const pv_http *h)
{
    return h->port;
}

void pv_http_stop(pv_http *h)
{
    if (h == NULL)
        return;
    /* Stop accepting first; MHD_stop_daemon then joins every connection
     * thread, so requests already running finish their response. */
    MHD_quiesce_daemon(h->daemon);
    MHD_stop_daemon(h->daemon);
    free(h);
}
