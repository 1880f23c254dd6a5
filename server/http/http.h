/* http: the thin layer between libmicrohttpd and the rest of profview.
 *
 * Handlers parse parameters, call index/cache/tools, and fill a
 * pv_response; none contains analysis code. Each request owns a pv_arena
 * freed when the response is queued. Only this module includes
 * <microhttpd.h>. Threads: one libmicrohttpd thread per connection; every
 * handler must be reentrant (shared state lives in pv_app, whose parts
 * carry their own locks). */
#ifndef PV_HTTP_HTTP_H
#define PV_HTTP_HTTP_H

#include "answer/answer.h"
#include "index/index.h"
#include "tools/tool.h"
#include "util/arena.h"
#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct MHD_Connection;
struct pv_model_store;
struct pv_disk_cache;
struct pv_limit;
struct pv_briefs;
struct pv_http_metrics;
struct pv_quiet;

/* Everything a handler may reach. Owned by main(). */
typedef struct pv_app {
    pv_index_store *index;
    struct pv_model_store *models; /* models and their trace indexes */
    struct pv_disk_cache *disk;    /* computed results kept across restarts */
    struct pv_limit *heavy;        /* slots for expensive answers (limit.h); NULL: none */
    struct pv_briefs *briefs;      /* runs' briefs read so far (report/briefs.h) */
    struct pv_http_metrics *metrics; /* counters of /metrics (metrics.h); NULL: none */
    struct pv_quiet *quiet;        /* told of every request (util/quiet.h); NULL: none */
} pv_app;

/* Where a request's parameters and headers come from: libmicrohttpd's
 * connection (pv_http_mhd_source), or a list in memory in the in-process
 * handler tests. */
typedef struct pv_request_source {
    /* The value of query parameter name with %-escapes decoded, and its
     * decoded length in *len (it may hold a NUL), or NULL when absent. */
    const char *(*param)(void *ctx, const char *name, size_t *len);
    /* A request header's value, or NULL. */
    const char *(*header)(void *ctx, const char *name);
    void *ctx;
} pv_request_source;

typedef struct pv_request {
    struct MHD_Connection *conn; /* the connection; NULL for a request built in memory */
    pv_request_source src;
    const char *path;          /* request path with the --path-prefix removed */
    pv_app *app;
    pv_arena arena;            /* per-request allocations */
} pv_request;

typedef struct pv_response {
    unsigned status;           /* HTTP status */
    const char *content_type;
    char *body;                /* malloc'd (freed by the server) unless body_static */
    size_t len;
    bool body_static;          /* body points at data that outlives the request */
    bool body_is_gzip;         /* body is already gzip-encoded */
    uint64_t plain_bytes;      /* a gzip body's uncompressed length; 0: unknown */
    /* The body is len bytes of body_fd from body_offset (body unused); the
     * server sends them from the file and closes body_fd. */
    bool body_from_fd;
    int body_fd;
    uint64_t body_offset;
    const char *etag;          /* strong ETag without quotes; computed when NULL. With
                                  status 304, the tag the client named, as sent. */
    const char *cache_control; /* NULL means "no-cache" (revalidate with the ETag) */
    const char *disposition;   /* Content-Disposition, or NULL */
    const char *location;      /* Location for redirects, or NULL */
    unsigned retry_after_s;    /* Retry-After for a 503, or 0 */
} pv_response;

typedef void (*pv_handler)(pv_request *rq, pv_response *rs);

/* ---- server lifetime ----------------------------------------------------- */

typedef struct pv_http pv_http;

/* Starts listening on bind:port; returns 0 or PV_EIO (address in use, bad
 * address) with err set. */
int pv_http_start(pv_app *app, const char *bind, uint16_t port, pv_http **out, pv_error *err);
/* Stops accepting, lets in-flight requests finish, frees. NULL is fine. */
void pv_http_stop(pv_http *h);
/* The port actually bound (useful with port 0). */
uint16_t pv_http_port(const pv_http *h);

/* ---- routing (routes.c) --------------------------------------------------- */

/* The handler for a path, or NULL when only static assets may answer. */
pv_handler pv_http_route(const char *path);
/* The position of path in the route table, or -1; the table's size; the
 * path at a position ("" past the end). For /metrics' labels. */
int pv_http_route_index(const char *path);
size_t pv_http_route_count(void);
const char *pv_http_route_path(size_t i);

/* ---- parameters (request.c) ----------------------------------------------- */

/* Query parameter value, or NULL when absent. A value containing a NUL
 * byte or invalid UTF-8 is treated as malformed: *bad is set and NULL
 * returned, so handlers can answer 400. */
const char *pv_http_param(pv_request *rq, const char *name, bool *bad);
/* Request header value or NULL. */
const char *pv_http_header(pv_request *rq, const char *name);
/* The request's parameters as the answer layer reads them
 * (answer/param_read.h): through pv_http_param, so the same values are
 * refused. Valid while rq is. */
pv_params pv_http_params(pv_request *rq);
/* The source that reads libmicrohttpd's connection. */
pv_request_source pv_http_mhd_source(struct MHD_Connection *conn);
/* What answers are made with (answer/answer.h), from the app's parts. */
pv_answer_ctx pv_http_answer_ctx(const pv_request *rq);
/* The ask of a request for tool (and part, or NULL) on hosts, with the
 * request's parameters, its If-None-Match and its Accept-Encoding. */
pv_ask pv_http_ask(pv_request *rq, const pv_tool *tool, const pv_tool_part *part,
                   pv_answer_form form, const char *run, const char *root,
                   const pv_host *const *hosts, size_t n_hosts, bool all_hosts);
/* Answers ask into rs through pv_answer_get: the answer, a 304 when the
 * client holds it, or the refusal in words. Counts /metrics' cache hits. */
void pv_http_answer(pv_request *rq, pv_response *rs, const pv_ask *ask);

/* ---- responses (respond.c) ------------------------------------------------ */

/* Serialises j (consumed) compactly with sorted keys as application/json. */
void pv_respond_json(pv_response *rs, unsigned status, json_t *j);
/* {"error": error, "detail": detail} with this status. */
void pv_respond_error(pv_response *rs, unsigned status, const char *error, const char *detail);
/* The same from a pv_error: the code picks the status, the message names
 * the file and offset when known. */
void pv_respond_pv_error(pv_response *rs, const pv_error *err);
/* The same with title (NULL: the code's words) as the error. PV_EBUSY
 * gets Retry-After. */
void pv_respond_titled_error(pv_response *rs, const pv_error *err, const char *title);
/* 503 with Retry-After: no slot for an expensive answer came free. */
void pv_respond_busy(pv_response *rs);
/* Plain text. */
void pv_respond_text(pv_response *rs, unsigned status, const char *content_type,
                     const char *text);

/* ---- handlers, one file per area ----------------------------------------- */

void pv_serve_runs(pv_request *rq, pv_response *rs);
void pv_serve_run_tools(pv_request *rq, pv_response *rs);
void pv_serve_hosts(pv_request *rq, pv_response *rs);
void pv_serve_config(pv_request *rq, pv_response *rs);
void pv_serve_version(pv_request *rq, pv_response *rs);
void pv_serve_capture(pv_request *rq, pv_response *rs);
void pv_serve_data(pv_request *rq, pv_response *rs);
void pv_serve_data_csv(pv_request *rq, pv_response *rs);
void pv_serve_healthz(pv_request *rq, pv_response *rs);
void pv_serve_api_index(pv_request *rq, pv_response *rs);
void pv_serve_api_load(pv_request *rq, pv_response *rs);
void pv_serve_module_list(pv_request *rq, pv_response *rs);
void pv_serve_api_tools(pv_request *rq, pv_response *rs);
/* Trace viewer (api_trace.c, docs/trace_api.md). */
/* api/trace/<part>: a part of the trace viewer's descriptor. */
void pv_serve_trace_part(pv_request *rq, pv_response *rs);
/* Reports, the compare view and run history (api_report.c), /metrics (metrics.c). */
void pv_serve_api_summary(pv_request *rq, pv_response *rs);
void pv_serve_api_compare(pv_request *rq, pv_response *rs);
void pv_serve_api_history(pv_request *rq, pv_response *rs);
void pv_serve_metrics(pv_request *rq, pv_response *rs);
/* Embedded frontend files; 404 JSON when path names none. */
void pv_serve_static(pv_request *rq, pv_response *rs);

/* ---- connection layer (#15: access.c) ------------------------------------- */

/* True when addr, an IPv4 or IPv6 literal without brackets, is a loopback
 * address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104). False for names. */
bool pv_http_is_loopback(const char *addr);

#endif
