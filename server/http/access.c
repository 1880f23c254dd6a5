/* access: what a request must pass before it is routed.
 *
 * The target, as the client sent it. libmicrohttpd decodes the path in
 * place, so a %00 would silently end it ("/index.html%00.js" would serve
 * index.html); a path holding a NUL or invalid UTF-8 is refused with 400,
 * an overlong target with 414, too many parameters with 400.
 *
 * The Host check. A page on any web site can point a name it controls at
 * 127.0.0.1 once its first answer is cached (DNS rebinding); the browser
 * then treats our answers as that site's own and lets its scripts read
 * them, but it still sends the attacker's name in Host. So while bound to
 * loopback only loopback names and addresses are served; --allow-host adds
 * the names a reverse proxy forwards. An address literal cannot be
 * rebound, so a server bound to a network address that checks names (it
 * was given --allow-host) accepts any address literal.
 *
 * The token. With --token-file every request but /healthz needs the token:
 * in Authorization: Bearer, in this server's cookie, or once in a ?token=
 * link, which sets the cookie and moves the browser to the same address
 * without the token. That move is a small page that refreshes itself, not
 * a 303: browsers do not send a SameSite=Strict cookie on a redirect whose
 * chain began on another site (the chat or mail the link was clicked in),
 * so a redirect would land on 401; a refresh started by our own page is a
 * same-site navigation. Tokens are compared in time that depends only on
 * the token's length. */
#include "http/conn.h"
#include "pv_config.h"
#include "util/utf8.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* ---- the target ----------------------------------------------------------- */

/* A target past this is answered 414; ours are under 1 KiB. */
#define MAX_TARGET_BYTES 8192
/* More query parameters than this are answered 400; ours use under 10. */
#define MAX_QUERY_PARAMS 128
#define STR_(x) #x
#define STR(x) STR_(x)

/* Why the path part (the n bytes at path, still %-encoded) cannot be
 * served, or NULL. n is at most MAX_TARGET_BYTES. */
static const char *path_problem(const char *path, size_t n)
{
    unsigned char decoded[MAX_TARGET_BYTES];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)path[i];
        if (ch == '%' && i + 2 < n && hex_value(path[i + 1]) >= 0 &&
            hex_value(path[i + 2]) >= 0) {
            ch = (unsigned char)(hex_value(path[i + 1]) * 16 + hex_value(path[i + 2]));
            i += 2;
        }
        if (ch == 0)
            return "the path holds a NUL byte (%00), which no file name has";
        decoded[len++] = ch;
    }
    return pv_utf8_valid(decoded, len) ? NULL : "the path is not valid UTF-8 text";
}

void pv__access_judge_target(pv_conn *c, char *target)
{
    c->target_status = 0;
    c->target_why = NULL;
    if (target == NULL) {
        c->target_status = 400;
        c->target_why = "the request line names no path";
        return;
    }
    size_t len = strlen(target);
    char *query = strchr(target, '?');
    size_t params = 0;
    if (query != NULL && query[1] != '\0') {
        params = 1;
        for (const char *p = query + 1; *p != '\0'; p++)
            params += *p == '&';
    }
    if (len > MAX_TARGET_BYTES) {
        c->target_status = 414;
        c->target_why = "the URL is longer than " STR(MAX_TARGET_BYTES) " bytes";
    } else if (params > MAX_QUERY_PARAMS) {
        c->target_status = 400;
        c->target_why = "the URL has more than " STR(MAX_QUERY_PARAMS) " query parameters";
    } else {
        c->target_why = path_problem(target, query != NULL ? (size_t)(query - target) : len);
        c->target_status = c->target_why != NULL ? 400 : 0;
    }
    if (c->target_status != 0 && query != NULL)
        query[1] = '\0';
}

/* ---- Host ----------------------------------------------------------------- */

bool pv_http_is_loopback(const char *addr)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, addr, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, addr, &a6) != 1)
        return false;
    if (IN6_IS_ADDR_LOOPBACK(&a6))
        return true;
    return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
}

static bool is_address(const char *name)
{
    struct in_addr a4;
    struct in6_addr a6;
    return inet_pton(AF_INET, name, &a4) == 1 || inet_pton(AF_INET6, name, &a6) == 1;
}

static bool all_digits(const char *s)
{
    for (; *s != '\0'; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* Copies the name part of a Host value ("name", "name:port", "[v6]" or
 * "[v6]:port") without brackets or port into out. False when malformed. */
static bool host_name(const char *host, char *out, size_t cap)
{
    const char *begin = host, *end;
    if (host[0] == '[') {
        begin = host + 1;
        end = strchr(begin, ']');
        if (end == NULL || (end[1] != '\0' && (end[1] != ':' || !all_digits(end + 2))))
            return false;
    } else {
        end = strrchr(host, ':');
        if (end == NULL)
            end = host + strlen(host);
        else if (!all_digits(end + 1))
            return false;
    }
    size_t n = (size_t)(end - begin);
    if (n == 0 || n >= cap)
        return false;
    memcpy(out, begin, n);
    out[n] = '\0';
    return true;
}

bool pv__access_host_ok(const char *host)
{
    bool loopback_bind = pv_http_is_loopback(pv_cfg.bind);
    if (host == NULL || (!loopback_bind && pv_cfg.n_allow_hosts == 0))
        return true;
    char name[256];
    if (!host_name(host, name, sizeof name))
        return false;
    if (strcasecmp(name, "localhost") == 0 || strcasecmp(name, "localhost.") == 0)
        return true;
    if (is_address(name))
        return !loopback_bind || pv_http_is_loopback(name);
    for (size_t i = 0; i < pv_cfg.n_allow_hosts; i++)
        if (strcasecmp(name, pv_cfg.allow_hosts[i]) == 0)
            return true;
    return false;
}

/* ---- token ---------------------------------------------------------------- */

static bool token_matches(const char *given, size_t n)
{
    const unsigned char *want = (const unsigned char *)pv_cfg.token;
    size_t m = strlen(pv_cfg.token);
    unsigned diff = n != m;
    for (size_t i = 0; i < m; i++)
        diff |= want[i] ^ (i < n ? (unsigned char)given[i] : 0u);
    return diff == 0;
}

/* Whether a raw "key=value" query item has the key "token" once decoded
 * the way libmicrohttpd decodes it ("tok%65n" and "token+" included or
 * excluded exactly as it would find them). */
static bool is_token_item(const char *item, size_t n)
{
    static const char want[] = "token";
    size_t k = 0;
    for (size_t i = 0; i < n && item[i] != '='; i++) {
        char ch = item[i];
        if (ch == '+') {
            ch = ' ';
        } else if (ch == '%' && i + 2 < n && hex_value(item[i + 1]) >= 0 &&
                   hex_value(item[i + 2]) >= 0) {
            ch = (char)(hex_value(item[i + 1]) * 16 + hex_value(item[i + 2]));
            i += 2;
        }
        if (k >= sizeof want - 1 || ch != want[k])
            return false;
        k++;
    }
    return k == sizeof want - 1;
}

/* The address to move to: the last path segment and every query item but
 * the token, relative ("./x?a=1") so it can never leave this server, not
 * even for "//other.example/" in the path. */
static char *clean_target(pv_request *rq, const char *raw)
{
    const char *q = strchr(raw, '?');
    size_t path_len = q != NULL ? (size_t)(q - raw) : strlen(raw);
    const char *seg = raw;
    for (size_t i = 0; i < path_len; i++)
        if (raw[i] == '/')
            seg = raw + i + 1;
    pv_buf b;
    pv_buf_init(&b, strlen(raw) + 8);
    pv_buf_add(&b, "./", 2);
    pv_buf_add(&b, seg, path_len - (size_t)(seg - raw));
    char sep = '?';
    for (const char *item = q != NULL ? q + 1 : NULL; item != NULL && *item != '\0';) {
        size_t n = strcspn(item, "&");
        if (n > 0 && !is_token_item(item, n)) {
            pv_buf_add(&b, &sep, 1);
            pv_buf_add(&b, item, n);
            sep = '&';
        }
        item += n + (item[n] == '&');
    }
    char *s = pv_arena_strdup(&rq->arena, b.data);
    pv_buf_fini(&b);
    return s;
}

static void deny(pv_response *rs, pv_reply_extra *x, const char *why)
{
    pv_respond_error(rs, 401, "unauthorized", why);
    x->www_authenticate = "Bearer realm=\"profview\"";
}

static void cookie_page(pv_request *rq, const pv_conn *c, const char *cookie_name,
                        pv_response *rs, pv_reply_extra *x)
{
    const char *to = clean_target(rq, c->raw_target != NULL ? c->raw_target : "/");
    pv_buf b;
    pv_buf_init(&b, 16 * strlen(to) + 512);
    pv_buf_adds(&b, "<!doctype html><meta charset=\"utf-8\"><title>profview</title>"
                    "<meta http-equiv=\"refresh\" content=\"0; url=");
    pv__html_escape(&b, to);
    pv_buf_adds(&b, "\"><p><a href=\"");
    pv__html_escape(&b, to);
    pv_buf_adds(&b, "\">Continue to profview</a></p>\n");
    rs->status = 200;
    rs->content_type = "text/html; charset=utf-8";
    rs->body = pv_buf_take(&b, &rs->len);
    rs->cache_control = "no-store";
    x->set_cookie = pv_arena_printf(&rq->arena, "%s=%s; Path=%s/; HttpOnly; SameSite=Strict",
                                    cookie_name, pv_cfg.token, pv_cfg.path_prefix);
}

bool pv__access_token_ok(pv_request *rq, const pv_conn *c, const char *cookie_name,
                         pv_response *rs, pv_reply_extra *x)
{
    if (pv_cfg.token == NULL)
        return true;
    const char *v = NULL;
    size_t n = 0;
    if (MHD_lookup_connection_value_n(rq->conn, MHD_GET_ARGUMENT_KIND, "token", 5, &v, &n) ==
        MHD_YES) {
        if (v != NULL && token_matches(v, n))
            cookie_page(rq, c, cookie_name, rs, x);
        else
            deny(rs, x, "the token in this link is not this server's token");
        return false;
    }
    const char *auth = pv_http_header(rq, MHD_HTTP_HEADER_AUTHORIZATION);
    if (auth != NULL && strncasecmp(auth, "Bearer ", 7) == 0) {
        const char *t = auth + 7;
        t += strspn(t, " ");
        if (token_matches(t, strlen(t)))
            return true;
        deny(rs, x, "the bearer token is not this server's token");
        return false;
    }
    if (MHD_lookup_connection_value_n(rq->conn, MHD_COOKIE_KIND, cookie_name, strlen(cookie_name),
                                      &v, &n) == MHD_YES && v != NULL && token_matches(v, n))
        return true;
    deny(rs, x, "this server needs its token: open a link ending in ?token=TOKEN once, "
                "or send Authorization: Bearer TOKEN");
    return false;
}
