/* server: libmicrohttpd set-up and the per-request pipeline.
 *
 * Threads. One thread per connection, polling its own socket, with a high
 * connection limit and small stacks. Handlers block: the first request for
 * a profile waits while its model loads (seconds on a big file), a cached
 * answer is read from disk. With epoll and a small pool of libmicrohttpd
 * threads one blocked handler would stall every connection of its thread.
 * Handing handlers to a worker pool instead needs suspend/resume, and
 * libmicrohttpd 0.9.75 panics when it is stopped while a connection is
 * suspended, which a handler stuck on a FIFO would cause at every stop. A
 * thread per connection costs a thread per slow socket; the connection
 * watcher (conn.c) bounds how long a socket may keep one before its
 * request is complete, the idle timeout bounds a kept-alive one, and the
 * limits bound how many there are.
 *
 * Pipeline. When a request's line arrives, its target is judged as sent
 * (length, number of parameters, a NUL or invalid UTF-8 in the path).
 * When its headers are complete, the refusals are decided: wrong Host,
 * bad target, a method other than GET/HEAD, a body, no token. A refusal is
 * queued at once (libmicrohttpd then closes the connection instead of
 * reading a body it would have to discard). Otherwise, once the request is
 * complete: strip the path prefix, route, run the handler, then the
 * finishing steps every response gets: a strong ETag (a hash of the
 * identity body), 304 on If-None-Match, gzip when the client accepts it,
 * the security headers, and an HTML page instead of a JSON error for a
 * browser. Handlers never deal with any of that. */
#include "http/conn.h"
#include "http/http.h"
#include "http/metrics.h"
#include "pv_config.h"
#include "util/buf.h"
#include "util/gzip.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/mem.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BODY_BYTES ((size_t)4 << 30)
#define MIN_GZIP_BYTES 256
/* Each connection's memory for its request line, headers and their
 * records (libmicrohttpd's default, said here because it is counted on):
 * room for a target of access.c's 8 KiB limit, its 128 parameters and the
 * headers, so a target well past the limit still gets our JSON 414.
 * libmicrohttpd zeroes all of it after every request, so more would cost
 * every request. */
#define CONN_MEMORY_BYTES ((size_t)32 << 10)
/* Stack of each connection's thread. Every API test and the comparison
 * on the real profiles pass with 128 KiB and fail with 64 KiB; 1 MiB leaves
 * room for AddressSanitizer's larger frames. The default 8 MiB would
 * reserve 16 GiB of address space at the default connection limit. */
#define THREAD_STACK_BYTES ((size_t)1 << 20)

struct pv_http {
    struct MHD_Daemon *daemon;
    pv_app *app;
    pv_conn_watch *watch;
    uint16_t port;
    char cookie_name[32];      /* per port: cookies are shared by every port of a host */
    pthread_mutex_t log_lock;  /* guards the two fields below */
    time_t log_said_s;         /* when libmicrohttpd's last message was written */
    unsigned log_dropped;      /* its messages not written since */
};

static const char *const csp =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

/* ---- content negotiation -------------------------------------------------- */

/* A qvalue is 0 to 1 with up to three decimals (RFC 9110 12.4.2); a
 * malformed one counts as 0, so we never compress for a client we do not
 * understand. */
static bool weight_positive(const char *v, size_t n)
{
    if (n > 0 && v[0] == '1')
        return true;
    if (n == 0 || v[0] != '0')
        return false;
    for (size_t i = 1; i < n; i++)
        if (v[i] >= '1' && v[i] <= '9')
            return true;
    return false;
}

/* One member of Accept-Encoding ("gzip;q=0.5"): its coding in name, and
 * whether its weight is above zero (no weight means 1). */
static bool member_accepted(const char *m, size_t n, const char **name, size_t *name_len)
{
    size_t i = strspn(m, " \t");
    size_t start = i;
    while (i < n && m[i] != ';' && m[i] != ' ' && m[i] != '\t')
        i++;
    *name = m + start;
    *name_len = i - start;
    while (i < n) {
        if (m[i++] != ';')
            continue;
        while (i < n && (m[i] == ' ' || m[i] == '\t'))
            i++;
        if (i + 1 < n && (m[i] == 'q' || m[i] == 'Q') && m[i + 1] == '=') {
            size_t v = i + 2;
            size_t end = v;
            while (end < n && m[end] != ';' && m[end] != ' ' && m[end] != '\t')
                end++;
            return weight_positive(m + v, end - v);
        }
    }
    return true;
}

bool pv__http_accepts_gzip(pv_request *rq)
{
    const char *ae = pv_http_header(rq, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    int gzip = -1, any = -1;   /* -1 not named, 0 refused, 1 accepted */
    for (const char *p = ae; p != NULL && *p != '\0';) {
        size_t n = strcspn(p, ",");
        const char *name;
        size_t len;
        int ok = member_accepted(p, n, &name, &len);
        if ((len == 4 && strncasecmp(name, "gzip", 4) == 0) ||
            (len == 6 && strncasecmp(name, "x-gzip", 6) == 0))
            gzip = ok;
        else if (len == 1 && name[0] == '*')
            any = ok;
        p += n + (p[n] == ',');
    }
    return gzip >= 0 ? gzip == 1 : any == 1;
}

static bool wants_html(pv_request *rq)
{
    const char *accept = pv_http_header(rq, MHD_HTTP_HEADER_ACCEPT);
    return accept != NULL && strstr(accept, "text/html") != NULL;
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
    return pv_answer_tag_listed(inm, tag);
}

/* A gzip'd body kept in a file, sent inflated to a client that does not
 * take gzip: a chunk at a time, so memory does not grow with what it
 * inflates to. */
static ssize_t read_inflated(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    ssize_t n = pv_gunzip_fd_read(cls, buf, max);
    if (n > 0)
        return n;
    return n == 0 ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void free_inflated(void *cls)
{
    pv_gunzip_fd_free(cls);
}

static void finish_body(pv_response *rs, bool gzip_ok, char **body, size_t *len, bool *owned,
                        bool *gz)
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
}

static void add_header(struct MHD_Response *r, const char *name, const char *value)
{
    if (value != NULL)
        MHD_add_response_header(r, name, value);
}

/* ---- libmicrohttpd's connection as a request's source --------------------------- */

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

/* Queues rs (whose body it takes) with the shared finishing steps. A HEAD
 * request gets the very response a GET would, Content-Length included;
 * libmicrohttpd leaves the body out. */
static enum MHD_Result queue(pv_request *rq, pv_response *rs, const pv_reply_extra *x)
{
    bool gzip_ok = pv__http_accepts_gzip(rq);
    if (rs->status >= 400 && wants_html(rq))
        pv__respond_error_page(rs);
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
    /* A plain body kept in a file is sent from it as it is: compressing it
     * here would read it all into memory. */
    bool will_gzip = rs->body_is_gzip ? gzip_ok
                                      : gzip_ok && !rs->body_from_fd &&
                                            rs->len >= MIN_GZIP_BYTES &&
                                            compressible(rs->content_type);
    snprintf(etag, sizeof etag, "\"%s%s\"", tag, will_gzip ? "-gz" : "");
    char bare[48];
    snprintf(bare, sizeof bare, "%s%s", tag, will_gzip ? "-gz" : "");

    struct MHD_Response *r;
    unsigned status = rs->status;
    /* A handler that knows the client holds the answer says so with its
     * tag as it was sent (the answer layer, answer/answer.h). */
    bool answered_304 = status == MHD_HTTP_NOT_MODIFIED && rs->etag != NULL;
    if (answered_304) {
        snprintf(etag, sizeof etag, "\"%s\"", rs->etag);
        status = 200;
    }
    bool ok_status = status == 200;
    bool not_modified =
        answered_304 ||
        (ok_status && etag_matches(pv_http_header(rq, MHD_HTTP_HEADER_IF_NONE_MATCH), bare));
    if (rs->body_from_fd && not_modified) {
        close(rs->body_fd);
        rs->body_from_fd = false;
        rs->body = NULL;
        rs->len = 0;
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
            finish_body(rs, gzip_ok, &body, &len, &owned, &gz);
        if (rs->body_from_fd && rs->body_is_gzip && !gzip_ok) {
            pv_gunzip_fd *g = pv_gunzip_fd_new(rs->body_fd, rs->body_offset, rs->len);
            uint64_t size = rs->plain_bytes != 0 ? rs->plain_bytes : MHD_SIZE_UNKNOWN;
            r = g != NULL ? MHD_create_response_from_callback(size, 65536, read_inflated, g,
                                                              free_inflated)
                          : NULL;
            if (r == NULL) {
                pv_gunzip_fd_free(g);
                r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
            }
            gz = false;
        } else if (rs->body_from_fd) {
            /* Sent with sendfile where the kernel can; MHD closes the file. */
            r = MHD_create_response_from_fd_at_offset64(rs->len, rs->body_fd,
                                                        rs->body_offset);
            if (r == NULL) {
                close(rs->body_fd);
                r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
            }
        } else {
            r = MHD_create_response_from_buffer(len, body,
                                                owned ? MHD_RESPMEM_MUST_FREE
                                                      : MHD_RESPMEM_PERSISTENT);
        }
        add_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, gz ? "gzip" : NULL);
        add_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rs->content_type);
        add_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, rs->disposition);
        add_header(r, MHD_HTTP_HEADER_LOCATION, rs->location);
        if (rs->retry_after_s != 0) {
            char secs[16];
            snprintf(secs, sizeof secs, "%u", rs->retry_after_s);
            add_header(r, MHD_HTTP_HEADER_RETRY_AFTER, secs);
        }
    }
    if (ok_status) {
        MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                                rs->cache_control ? rs->cache_control : "no-cache");
    } else {
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    }
    add_header(r, MHD_HTTP_HEADER_ALLOW, x->allow);
    add_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, x->www_authenticate);
    add_header(r, MHD_HTTP_HEADER_SET_COOKIE, x->set_cookie);
    MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
    MHD_add_response_header(r, "Content-Security-Policy", csp);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    enum MHD_Result res = MHD_queue_response(rq->conn, status, r);
    MHD_destroy_response(r);
    return res;
}

/* ---- prefix --------------------------------------------------------------- */

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

/* The path to route. /healthz also answers at the root under a prefix: a
 * container's health check asks the process, not the proxy's public path. */
static const char *route_path(const char *url)
{
    const char *path = strip_prefix(url);
    if (path == NULL && strcmp(url, "/healthz") == 0)
        return url;
    return path;
}

/* "/p" must become "/p/": the page builds relative URLs, which resolve
 * against the last slash of its own address. */
static bool is_bare_prefix(const char *url)
{
    const char *prefix = pv_cfg.path_prefix ? pv_cfg.path_prefix : "";
    return prefix[0] != '\0' && strcmp(url, prefix) == 0;
}

/* ---- the request ---------------------------------------------------------- */

static bool has_body(pv_request *rq)
{
    if (pv_http_header(rq, MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL)
        return true;
    const char *len = pv_http_header(rq, MHD_HTTP_HEADER_CONTENT_LENGTH);
    return len != NULL && len[strspn(len, "0")] != '\0';
}

/* Decided when the headers are complete. True when the request is refused;
 * rs and x then hold the answer. */
static bool refused(const pv_http *h, pv_request *rq, const pv_conn *c, const char *url,
                    const char *method, pv_response *rs, pv_reply_extra *x)
{
    if (!pv__access_host_ok(pv_http_header(rq, MHD_HTTP_HEADER_HOST))) {
        pv_respond_error(rs, 421, "misdirected request",
                         "this server answers only to localhost, loopback addresses and the "
                         "names given with --allow-host");
        return true;
    }
    if (c->target_status != 0) {
        pv_respond_error(rs, c->target_status,
                         c->target_status == 414 ? "URI too long" : "bad request", c->target_why);
        return true;
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        pv_respond_error(rs, 405, "method not allowed",
                         "profview only answers GET and HEAD requests");
        x->allow = "GET, HEAD";
        return true;
    }
    if (has_body(rq)) {
        pv_respond_error(rs, 413, "content too large", "a GET or HEAD request carries no body");
        return true;
    }
    const char *path = route_path(url);
    bool health = path != NULL && strcmp(path, "/healthz") == 0;
    return !health && !pv__access_token_ok(rq, c, h->cookie_name, rs, x);
}

static void answer(pv_request *rq, const char *url, pv_response *rs)
{
    const char *path = route_path(url);
    if (is_bare_prefix(url)) {
        pv_respond_text(rs, 308, "text/plain; charset=utf-8", "moved to the prefix with a slash\n");
        rs->location = pv_arena_printf(&rq->arena, "%s/", url);
    } else if (path == NULL) {
        pv_respond_error(rs, 404, "not found", "this server lives under its --path-prefix");
    } else {
        rq->path = path;
        pv_handler handler = pv_http_route(path);
        if (handler == NULL)
            handler = pv_serve_static;
        handler(rq, rs);
    }
}

/* Counts an answer for /metrics: its route (url NULL for a refusal), its
 * status and the time since t0. */
static void count(const pv_http *h, const char *url, unsigned status, const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const char *path = url != NULL ? route_path(url) : NULL;
    int route = path == NULL ? -2 : pv_http_route_index(path);
    double s = (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
    pv__metrics_request(h->app->metrics, route, status, s);
}

/* ---- libmicrohttpd callbacks ---------------------------------------------- */

static pv_conn *conn_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci != NULL ? ci->socket_context : NULL;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    pv_http *h = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = pv__conn_open(h->watch, ci != NULL ? ci->connect_fd : -1);
    } else if (*socket_context != NULL) {
        pv__conn_close(h->watch, *socket_context);
        *socket_context = NULL;
    }
}

/* Called with the request line's target as sent, before libmicrohttpd
 * splits off the query and decodes both in place. The target lies in the
 * connection's own writable buffer, which is why judging it may cut a
 * refused query short: thousands of parameters would use up the
 * connection's memory while being parsed, and libmicrohttpd then drops the
 * connection without an answer. The pv_conn becomes the request's state. */
static void *on_target(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    pv_conn *c = conn_of(conn);
    if (c == NULL)
        return NULL;
    pv__access_judge_target(c, (char *)uri);
    free(c->raw_target);
    c->raw_target = pv_cfg.token != NULL && uri != NULL ? pv_xstrdup(uri) : NULL;
    return c;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
                         enum MHD_RequestTerminationCode toe)
{
    (void)state;
    (void)toe;
    pv_http *h = cls;
    pv_conn *c = conn_of(conn);
    if (c != NULL)
        pv__conn_end(h->watch, c);
}

/* libmicrohttpd calls once when the headers are complete, then again when
 * the request is (a body is refused at the first call, so the second
 * carries none). */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **state)
{
    (void)version;
    (void)upload_data;
    pv_http *h = cls;
    pv_conn *c = *state;
    if (c == NULL)
        return MHD_NO;
    bool first = !c->in_request;
    if (first)
        pv__conn_begin(h->watch, c);
    *upload_size = 0;
    pv_request rq = {.conn = conn, .src = pv_http_mhd_source(conn), .app = h->app};
    pv_arena_init(&rq.arena, 16384);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pv_response rs = {0};
    pv_reply_extra x = {0};
    bool answered = !first;
    if (answered)
        answer(&rq, url, &rs);
    else
        answered = refused(h, &rq, c, url, method, &rs, &x);
    enum MHD_Result res = MHD_YES;
    if (answered) {
        res = queue(&rq, &rs, &x);
        pv_log(PV_LOG_DEBUG, "%s %s -> %u", method, url, rs.status);
        count(h, first ? NULL : url, rs.status, &t0);
    }
    pv_arena_fini(&rq.arena);
    return res;
}

/* libmicrohttpd's messages go through pv_log. An attack makes one per
 * connection ("closed by remote side with incomplete request"), so at most
 * one a second is written and the others are counted. */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    pv_http *h = cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    line[strcspn(line, "\n")] = '\0';
    time_t now = time(NULL);
    pthread_mutex_lock(&h->log_lock);
    bool say = now != h->log_said_s;
    unsigned dropped = h->log_dropped;
    if (say) {
        h->log_said_s = now;
        h->log_dropped = 0;
    } else {
        h->log_dropped++;
    }
    pthread_mutex_unlock(&h->log_lock);
    if (say && dropped > 0)
        pv_log(PV_LOG_WARN, "libmicrohttpd: %s (%u more messages not shown)", line, dropped);
    else if (say)
        pv_log(PV_LOG_WARN, "libmicrohttpd: %s", line);
}

/* ---- lifetime ------------------------------------------------------------- */

int pv_http_start(pv_app *app, const char *bind, uint16_t port, pv_http **out, pv_error *err)
{
    *out = NULL;
    struct sockaddr_in sa4 = {0};
    struct sockaddr_in6 sa6 = {0};
    const struct sockaddr *sa;
    /* poll, not select: descriptors past FD_SETSIZE (1024) are served. */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD |
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
    pthread_mutex_init(&h->log_lock, NULL);
    h->watch = pv__conn_watch_new(pv_cfg.header_timeout_ms, app->quiet);
    h->daemon = MHD_start_daemon(flags, port, NULL, NULL, on_request, h,
                                 MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h,
                                 MHD_OPTION_SOCK_ADDR, sa,
                                 MHD_OPTION_CONNECTION_LIMIT, pv_cfg.max_conns,
                                 MHD_OPTION_PER_IP_CONNECTION_LIMIT, pv_cfg.max_conns_per_addr,
                                 MHD_OPTION_CONNECTION_TIMEOUT, pv_cfg.idle_timeout_s,
                                 MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONN_MEMORY_BYTES,
                                 MHD_OPTION_THREAD_STACK_SIZE, THREAD_STACK_BYTES,
                                 MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
                                 MHD_OPTION_URI_LOG_CALLBACK, on_target, h,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                                 MHD_OPTION_END);
    if (h->daemon == NULL) {
        pv__conn_watch_free(h->watch);
        pthread_mutex_destroy(&h->log_lock);
        free(h);
        return pv_error_set(err, PV_EIO, NULL, PV_NO_OFFSET,
                            "cannot listen on %s port %u (in use, or not permitted)", bind,
                            (unsigned)port);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : port;
    snprintf(h->cookie_name, sizeof h->cookie_name, "profview_token_%u", (unsigned)h->port);
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
    /* Closing the listening socket makes a new client's connect fail at
     * once rather than wait in the backlog of a server that is leaving. */
    MHD_socket listen_fd = MHD_quiesce_daemon(h->daemon);
    if (listen_fd != MHD_INVALID_SOCKET)
        close(listen_fd);
    size_t left = pv__conn_wait_idle(h->watch, PV_STOP_GRACE_MS);
    if (left > 0)
        pv_log(PV_LOG_WARN, "%zu requests still running %u ms after the stop signal; closing "
               "their connections", left, PV_STOP_GRACE_MS);
    /* Joins every connection thread, so a handler blocked for good keeps
     * this from returning: main's stop deadline then ends the process. */
    MHD_stop_daemon(h->daemon);
    pv__conn_watch_free(h->watch);
    pthread_mutex_destroy(&h->log_lock);
    free(h);
}
