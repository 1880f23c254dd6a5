/* httpc: raw sockets, Connection: close, so a reply ends when the server
 * closes the connection. */
#include "httpc.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int pv_test_server_start(pv_test_server *s, const char *logdir, const char *const *extra)
{
    const char *bin = getenv("PROFVIEW_BIN");
    if (bin == NULL)
        bin = "./profview";
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    const char *argv[32] = {bin, "--port", "0", "--logdir", logdir, "--rescan-ms", "200"};
    int argc = 7;
    for (int i = 0; extra != NULL && extra[i] != NULL && argc < 30; i++)
        argv[argc++] = extra[i];
    argv[argc] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    s->pid = pid;
    s->port = 0;
    char line[1024];
    size_t n = 0;
    struct pollfd p = {fds[0], POLLIN, 0};
    while (n < sizeof line - 1 && poll(&p, 1, 10000) > 0) {
        ssize_t r = read(fds[0], line + n, 1);
        if (r <= 0)
            break;
        if (line[n++] == '\n')
            break;
    }
    line[n] = '\0';
    close(fds[0]);
    /* "profview X: serving DIR (N runs) at http://127.0.0.1:PORT/prefix/" */
    const char *at = strstr(line, "http://");
    const char *colon = at ? strchr(at + 7, ':') : NULL;
    if (colon == NULL) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    s->port = (unsigned)strtoul(colon + 1, NULL, 10);
    const char *slash = strchr(colon, '/');
    snprintf(s->prefix, sizeof s->prefix, "%.*s", slash ? (int)strcspn(slash, "\r\n") : 1,
             slash ? slash : "/");
    return 0;
}

int pv_test_server_stop(pv_test_server *s)
{
    if (kill(s->pid, SIGTERM) != 0)
        return -1;
    int status = 0;
    if (waitpid(s->pid, &status, 0) != s->pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void pv_test_url_escape(const char *s, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    for (; *s != '\0' && n + 4 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("-._~", c) != NULL) {
            out[n++] = (char)c;
        } else {
            out[n++] = '%';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        }
    }
    out[n] = '\0';
}

/* s as a JSON string in quotes, as the server writes it (UTF-8 as is, '"'
 * and '\\' escaped), in a malloc'd buffer. Names with control characters
 * are not looked for. */
static char *json_quoted(const char *s)
{
    char *q = malloc(2 * strlen(s) + 3);
    size_t n = 0;
    q[n++] = '"';
    for (; *s != '\0'; s++) {
        if (*s == '"' || *s == '\\')
            q[n++] = '\\';
        q[n++] = *s;
    }
    q[n++] = '"';
    q[n] = '\0';
    return q;
}

/* Whether the /runs answer, a JSON array of strings, holds run. */
static bool runs_hold(const char *json, const char *run)
{
    char *q = json_quoted(run);
    size_t n = strlen(q);
    bool found = false;
    for (const char *p = strstr(json, q); p != NULL && !found; p = strstr(p + 1, q))
        found = p > json && (p[-1] == '[' || p[-1] == ',') && (p[n] == ',' || p[n] == ']');
    free(q);
    return found;
}

/* Whether the hosts?run= answer, [{"hostname": ...}, ...], holds host. */
static bool hosts_hold(const char *json, const char *host)
{
    char *q = json_quoted(host);
    char *want = malloc(strlen(q) + 16);
    sprintf(want, "\"hostname\":%s", q);
    bool found = strstr(json, want) != NULL;
    free(want);
    free(q);
    return found;
}

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* GET path; *listed tells whether holds(body, name) on a 200; the answer
 * is kept in last for the message. */
static void ask_listed(const pv_test_server *s, const char *path,
                       bool (*holds)(const char *, const char *), const char *name,
                       bool *listed, char *last, size_t cap)
{
    pv_test_reply r;
    if (pv_test_get(s, "GET", path, NULL, &r) != 0) {
        snprintf(last, cap, "GET %s: no answer", path);
        return;
    }
    *listed = r.status == 200 && holds(r.body, name);
    snprintf(last, cap, "GET %s: %d %.400s", path, r.status, r.body);
    pv_test_reply_free(&r);
}

int pv_test_server_wait_for(const pv_test_server *s, const char *run, const char *host)
{
    char runs[256], hosts[2048], escaped[1536], last[2600] = "";
    pv_test_url_escape(run, escaped, sizeof escaped);
    snprintf(runs, sizeof runs, "%sdata/plugin/profile/runs", s->prefix);
    snprintf(hosts, sizeof hosts, "%sdata/plugin/profile/hosts?run=%s", s->prefix, escaped);
    double deadline = mono_s() + PV_TEST_WAIT_S;
    bool run_listed = false, host_listed = host == NULL;
    for (;;) {
        if (!run_listed)
            ask_listed(s, runs, runs_hold, run, &run_listed, last, sizeof last);
        if (run_listed && !host_listed)
            ask_listed(s, hosts, hosts_hold, host, &host_listed, last, sizeof last);
        if (run_listed && host_listed)
            return 0;
        bool gone = waitpid(s->pid, NULL, WNOHANG) == s->pid;
        if (gone || mono_s() > deadline) {
            char what[1200];
            if (run_listed)
                snprintf(what, sizeof what, "host \"%s\" of run \"%s\"", host, run);
            else
                snprintf(what, sizeof what, "run \"%s\"", run);
            fprintf(stderr, "pv_test_server_wait_for: the server never listed %s (%s %d s); %s\n",
                    what, gone ? "it exited within" : "waited", PV_TEST_WAIT_S, last);
            return -1;
        }
        struct timespec nap = {0, 50 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

/* Decodes a chunked body in place (RFC 9112 §7.1: hex size, CRLF, data,
 * CRLF, ..., a zero size); returns its length. A malformed one is cut
 * where it goes wrong. */
static size_t unchunk(char *body, size_t len)
{
    size_t in = 0, out = 0;
    while (in < len) {
        /* The size line, searched within the body's bounds only (a string
         * search would scan the whole rest of a big body for every chunk). */
        char *lf = memchr(body + in, '\n', len - in);
        char *end;
        unsigned long n = strtoul(body + in, &end, 16);
        if (end == body + in || lf == NULL || n == 0)
            break;
        in = (size_t)(lf - body) + 1;
        if (n > len - in)
            n = len - in;
        memmove(body + out, body + in, n);
        out += n;
        in += n + 2;
    }
    return out;
}

int pv_test_raw(const pv_test_server *s, const char *request, size_t n, pv_test_reply *r)
{
    memset(r, 0, sizeof *r);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)s->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    if (write(fd, request, n) != (ssize_t)n) {
        close(fd);
        return -1;
    }
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    char *end = NULL;
    for (size_t i = 0; i + 3 < len; i++) {
        if (memcmp(buf + i, "\r\n\r\n", 4) == 0) {
            end = buf + i;
            break;
        }
    }
    if (end == NULL || sscanf(buf, "HTTP/1.%*d %d", &r->status) != 1) {
        free(buf);
        return -1;
    }
    size_t hlen = (size_t)(end - buf);
    r->headers = malloc(hlen + 1);
    for (size_t i = 0; i < hlen; i++)
        r->headers[i] = (char)tolower((unsigned char)buf[i]);
    r->headers[hlen] = '\0';
    r->len = len - hlen - 4;
    r->body = malloc(r->len + 1);
    memcpy(r->body, end + 4, r->len);
    r->body[r->len] = '\0';
    if (strstr(r->headers, "\ntransfer-encoding: chunked") != NULL) {
        r->len = unchunk(r->body, r->len);
        r->body[r->len] = '\0';
    }
    free(buf);
    return 0;
}

int pv_test_get(const pv_test_server *s, const char *method, const char *path,
                const char *headers, pv_test_reply *r)
{
    char req[8192];
    int n = snprintf(req, sizeof req,
                     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n", method,
                     path, headers ? headers : "");
    if (n < 0 || (size_t)n >= sizeof req) {
        memset(r, 0, sizeof *r);
        return -1;
    }
    return pv_test_raw(s, req, (size_t)n, r);
}

void pv_test_reply_free(pv_test_reply *r)
{
    free(r->headers);
    free(r->body);
    memset(r, 0, sizeof *r);
}

const char *pv_test_header(const pv_test_reply *r, const char *name, char *buf, size_t cap)
{
    char key[128];
    snprintf(key, sizeof key, "\r\n%s:", name);
    const char *p = strstr(r->headers, key);
    if (p == NULL)
        return NULL;
    p += strlen(key);
    while (*p == ' ')
        p++;
    size_t n = strcspn(p, "\r");
    /* Values were lower-cased with the names; ETags are hex, so that is
     * harmless for what the tests compare. */
    snprintf(buf, cap, "%.*s", (int)n, p);
    return buf;
}
