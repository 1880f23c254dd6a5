/* conn: the connection layer's shared parts, private to http/ (#15).
 *
 * conn.c keeps one pv_conn per open connection and a watcher thread that
 * closes a connection whose request headers have not all arrived within
 * the header deadline (libmicrohttpd only knows an idle timeout, which a
 * client sending one header line every few seconds never reaches). It also
 * counts the requests being answered, so a stop can wait for them.
 * access.c decides what a request must pass: its target, Host and token.
 * server.c owns the rest of the pipeline; respond.c the bodies.
 *
 * Threads: libmicrohttpd's listening thread opens and closes pv_conns
 * (under the watch's mutex, which the watcher holds while it sweeps); the
 * connection's own thread marks its requests through atomics, so a request
 * takes no lock; the watcher only reads them. The target fields belong to
 * the connection's thread alone. */
#ifndef PV_HTTP_CONN_H
#define PV_HTTP_CONN_H

#include "http/http.h"
#include "util/buf.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_conn pv_conn;
typedef struct pv_conn_watch pv_conn_watch;

struct pv_conn {
    pv_conn *prev, *next;      /* in the watch's list (guarded by its mutex) */
    int fd;                    /* the socket; open for as long as the pv_conn lives */
    atomic_bool in_request;    /* headers complete, answer not yet sent */
    _Atomic int64_t waiting_since_ns; /* monotonic; start of the wait for headers */
    bool cut;                  /* the watcher shut the socket down (its own) */
    /* The current request's target as the client sent it, judged before
     * libmicrohttpd decodes it (connection thread only). */
    unsigned target_status;    /* 0, or the 400/414 to answer instead of routing */
    const char *target_why;    /* static sentence for that answer */
    char *raw_target;          /* malloc'd copy, kept only when a token is needed */
};

/* Extra response headers some answers carry; NULL fields are left out. */
typedef struct pv_reply_extra {
    const char *allow;            /* for 405 */
    const char *www_authenticate; /* for 401 */
    const char *set_cookie;       /* after a good ?token= */
} pv_reply_extra;

/* ---- the watch (conn.c) --------------------------------------------------- */

/* Starts the watcher thread. header_timeout_ms is the longest a connection
 * may wait for a request's headers to be complete, counted from its opening
 * or from the end of its previous answer. Aborts when a thread cannot be
 * started (only at start-up). quiet (may be NULL) is told of every request's
 * start and end. */
pv_conn_watch *pv__conn_watch_new(unsigned header_timeout_ms, struct pv_quiet *quiet);
/* Stops the watcher and frees. Every pv_conn must be closed first. NULL is
 * fine. */
void pv__conn_watch_free(pv_conn_watch *w);
/* A connection opened on fd; never NULL. */
pv_conn *pv__conn_open(pv_conn_watch *w, int fd);
/* The connection is gone (its socket is still open while this runs). */
void pv__conn_close(pv_conn_watch *w, pv_conn *c);
/* The current request's headers are complete; it now counts as in flight. */
void pv__conn_begin(pv_conn_watch *w, pv_conn *c);
/* The current request was answered (or abandoned); the deadline for the
 * next one starts now. Fine to call for a request never begun. */
void pv__conn_end(pv_conn_watch *w, pv_conn *c);
/* Waits until no request is in flight or timeout_ms pass; returns how many
 * are still in flight. */
size_t pv__conn_wait_idle(pv_conn_watch *w, unsigned timeout_ms);

/* ---- what a request must pass (access.c) ---------------------------------- */

/* Judges the request target as sent (target may be NULL: none was sent),
 * setting c->target_status and c->target_why; on a refusal it cuts the
 * query off in place so it is not parsed. */
void pv__access_judge_target(pv_conn *c, char *target);
/* Whether a Host header value names this server: always true unless the
 * server is bound to loopback or --allow-host was given. NULL (an HTTP/1.0
 * client without Host, never a browser) is allowed. */
bool pv__access_host_ok(const char *host);
/* Checks the token when --token-file is set; true when the request may go
 * on. Otherwise rs (and x) hold the answer: 401, or after a good ?token= a
 * page that sets the cookie and moves to the same address without it.
 * cookie_name is the server's; its strings live in rq's arena. */
bool pv__access_token_ok(pv_request *rq, const pv_conn *c, const char *cookie_name,
                         pv_response *rs, pv_reply_extra *x);

/* ---- shared by server.c, static.c and respond.c --------------------------- */

/* Whether the request's Accept-Encoding lets us answer with gzip (q > 0,
 * "*" counted). */
bool pv__http_accepts_gzip(pv_request *rq);
/* Turns a JSON error already in rs into a small HTML page with the same
 * status, for a browser that navigated to it. Leaves rs as it is when its
 * body is not such an error. */
void pv__respond_error_page(pv_response *rs);
/* Appends s with &, <, >, " and ' escaped; 0 or PV_ETOOBIG. */
int pv__html_escape(pv_buf *b, const char *s);

#endif
