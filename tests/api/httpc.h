/* httpc: just enough of an HTTP/1.1 client and server launcher for the API
 * tests: start the real profview binary on a free loopback port, send one
 * request per connection, read the whole reply. */
#ifndef PV_TESTS_HTTPC_H
#define PV_TESTS_HTTPC_H

#include <stddef.h>
#include <sys/types.h>

typedef struct pv_test_server {
    pid_t pid;
    unsigned port;
    char prefix[64];
} pv_test_server;

typedef struct pv_test_reply {
    int status;
    char *headers;     /* raw header block, lower-cased names */
    char *body;        /* NUL-terminated; may hold NULs when binary */
    size_t len;
} pv_test_reply;

/* Starts $PROFVIEW_BIN --port 0 --logdir logdir [extra args...] and waits
 * for its ready line. Returns 0 or -1. */
int pv_test_server_start(pv_test_server *s, const char *logdir, const char *const *extra);
/* Sends SIGTERM and returns the exit status (or -1). */
int pv_test_server_stop(pv_test_server *s);
/* Waits until the server lists run in /data/plugin/profile/runs and, when
 * host is not NULL, host in hosts?run=: what a test is about to ask for.
 * The ready line comes after the first scan, which leaves out files
 * written moments ago (a later scan offers them), so a test that starts a
 * server waits for what it needs, never for a fixed time. Polls for up to
 * PV_TEST_WAIT_S seconds, however slow the machine; returns 0, or -1
 * after printing to stderr what never appeared and what was listed. */
#define PV_TEST_WAIT_S 180
int pv_test_server_wait_for(const pv_test_server *s, const char *run, const char *host);
/* s with every byte but unreserved ones %-escaped, into out (cap bytes). */
void pv_test_url_escape(const char *s, char *out, size_t cap);

/* GET path (already escaped) with extra header lines ("Name: value\r\n..."
 * or NULL). Returns 0 or -1 on a connection failure. */
int pv_test_get(const pv_test_server *s, const char *method, const char *path,
                const char *headers, pv_test_reply *r);
/* Sends the n bytes of request as they are on a new connection and reads the
 * reply until the server closes it. Returns 0, or -1 when the connection
 * fails or no HTTP reply comes back. */
int pv_test_raw(const pv_test_server *s, const char *request, size_t n, pv_test_reply *r);
void pv_test_reply_free(pv_test_reply *r);
/* Header value (name lower-case) copied into buf, or NULL when absent. */
const char *pv_test_header(const pv_test_reply *r, const char *name, char *buf, size_t cap);

#endif
