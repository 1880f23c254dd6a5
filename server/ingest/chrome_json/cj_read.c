/* cj_read: the reader. It walks the trace's container (an object with a
 * "traceEvents" array beside other members, or a bare array of events) as
 * a small state machine, one piece at a time: a piece is a member's key,
 * a top-level value, or one whole event object. When the window ends
 * inside a piece, the window is refilled keeping the piece's first byte
 * at its start, and the piece is read again: nothing of a half-read event
 * reaches the model, so an event (or a number, or a string) split across
 * chunks reads the same as one that is not.
 *
 * Fields of an event read (FORMATS.md §6): ph, name, cat, ts, dur, pid,
 * tid, id, bind_id, s, bp, flow_in, flow_out, args (each member); others
 * (tts, tdur, cname, sf, stack, id2, ...) are skipped. A top-level value
 * other than traceEvents of up to PV__CJ_MAX_TOP_VALUE bytes goes to the
 * model as metadata; a bigger one (systemTraceEvents) is skipped as it
 * streams by, without being held. */
#include "ingest/chrome_json/cj_priv.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

/* The window a read function fills starts at this many bytes and grows
 * (doubling) only for an event that does not fit. */
#define WINDOW_BYTES ((size_t)1 << 20)

enum state {
    S_START,          /* before the container */
    S_KEY_FIRST,      /* after '{': a key or '}' */
    S_KEY,            /* after ',' in the object: a key */
    S_TOP_VALUE,      /* after a key other than traceEvents */
    S_TOP_SKIP,       /* streaming past a value too big to keep */
    S_MEMBER_NEXT,    /* after a member: ',' or '}' */
    S_EVENT_FIRST,    /* after '[': an element or ']' */
    S_EVENT,          /* after ',' in the array: an element (or ']' after a trailing ',') */
    S_EVENT_NEXT,     /* after an element: ',' or ']' */
    S_DONE            /* after the container */
};

typedef struct skipper {
    uint8_t stack[PV__CJ_MAX_DEPTH];
    size_t depth;
    bool in_string, escape, scalar;
} skipper;

typedef struct rd {
    const pv_ingest_src *src;
    pv_error *err;
    pv__cj_model *model;
    pv__cj_read_fn read;    /* NULL: the whole text is the window */
    void *ctx;
    uint8_t *buf;           /* read's window storage */
    size_t cap;
    const uint8_t *win0;    /* start of the window storage (buf, or the text) */
    const uint8_t *p;       /* where the next piece starts */
    const uint8_t *end;
    uint64_t base;          /* text offset of win0[0] */
    bool eof;               /* read said the text ended */
    bool cut;               /* ... before its end (a gzip stream cut off) */
    enum state state;
    bool bare;              /* the container is a bare array */
    bool saw_events;        /* traceEvents was found */
    char key[256];          /* the top-level key whose value comes next */
    size_t key_len;
    skipper skip;
    pv__cj_scratch own_scratch;
    pv__cj_scratch *scratch; /* own_scratch, or the pipe's batch being filled */
    pv__cj_pipe *pipe;      /* the parser is on another thread (cj_pipe.c); else NULL */
    pv__cj_arg *args;
    size_t cap_args;
    uint64_t n_events;
    uint64_t model_cap;
} rd;

static uint64_t offset_of(const rd *r, const uint8_t *at)
{
    return r->base + (uint64_t)(at - r->win0);
}

static int fail_at(rd *r, const uint8_t *at, const char *why)
{
    return pv_error_set(r->err, PV_EFORMAT, r->src->path, offset_of(r, at),
                        "not a Chrome trace: %s", why);
}

/* ---- events ----------------------------------------------------------------- */

static bool key_is(const pv__cj_str *k, const char *lit, size_t n)
{
    return k->len == n && memcmp(k->s, lit, n) == 0;
}

/* The id at *p (pid, tid, id, bind_id): a number or a string. */
static int read_id(pv__cj_cur *c, pv__cj_id *out)
{
    pv__cj_value v;
    int rc = pv__cj_parse_value(c, &v);
    if (rc != 0)
        return rc;
    out->set = true;
    out->is_str = false;
    if (v.kind == PV__CJ_INT) {
        out->num = v.n.i;
    } else if (v.kind == PV__CJ_STRING && pv__cj_decimal_id(v.text, &out->num)) {
        out->is_str = false;
    } else if (v.kind == PV__CJ_STRING || v.kind == PV__CJ_RAW || v.kind == PV__CJ_DOUBLE ||
               v.kind == PV__CJ_UINT) {
        /* a fraction or a huge number names an id by its text */
        out->is_str = true;
        out->str = v.text;
    } else {
        out->set = false;
    }
    return 0;
}

/* What an object's malformations are called in errors. */
typedef struct object_words {
    const char *no_key, *no_colon, *no_separator;
} object_words;

/* Reads one member's value at the cursor; key is its name. */
typedef int (*member_fn)(rd *r, pv__cj_cur *c, const pv__cj_str *key, void *ctx);

/* The members of the object at *p (a '{'), each value read by fn. */
static int read_object(rd *r, pv__cj_cur *c, const object_words *w, member_fn fn, void *ctx)
{
    c->p++;
    int rc = pv__cj_ws(c);
    if (rc != 0)
        return rc;
    if (*c->p == '}') {
        c->p++;
        return 0;
    }
    for (;;) {
        if (*c->p != '"') {
            c->why = w->no_key;
            return PV_EFORMAT;
        }
        pv__cj_str k;
        if ((rc = pv__cj_string(c, &k)) != 0 || (rc = pv__cj_ws(c)) != 0)
            return rc;
        if (*c->p != ':') {
            c->why = w->no_colon;
            return PV_EFORMAT;
        }
        c->p++;
        if ((rc = pv__cj_ws(c)) != 0 || (rc = fn(r, c, &k, ctx)) != 0 ||
            (rc = pv__cj_ws(c)) != 0)
            return rc;
        if (*c->p == ',') {
            c->p++;
            if ((rc = pv__cj_ws(c)) != 0)
                return rc;
            continue;
        }
        if (*c->p == '}') {
            c->p++;
            return 0;
        }
        c->why = w->no_separator;
        return PV_EFORMAT;
    }
}

/* One member of args, into r->args (ctx counts them). */
static int arg_member(rd *r, pv__cj_cur *c, const pv__cj_str *key, void *ctx)
{
    size_t *n_args = ctx;
    if (*n_args == PV__CJ_MAX_ARGS) {
        c->why = "an event has more than 65536 args";
        return PV_EFORMAT;
    }
    if (*n_args == r->cap_args) {
        r->cap_args = r->cap_args ? 2 * r->cap_args : 32;
        r->args = pv_xrealloc(r->args, r->cap_args * sizeof *r->args);
    }
    pv__cj_arg *a = &r->args[*n_args];
    a->key = *key;
    int rc = pv__cj_parse_value(c, &a->v);
    if (rc == 0)
        (*n_args)++;
    return rc;
}

static const object_words args_words = {"an args member has no string key",
                                        "a ':' is missing after an args key",
                                        "a ',' or '}' is missing in args"};
static const object_words event_words = {"an event member has no string key",
                                         "a ':' is missing after an event's key",
                                         "a ',' or '}' is missing in an event"};

/* The string value at *p; any other value gives its text (a number as a
 * name) or nothing. */
static int read_text(pv__cj_cur *c, pv__cj_str *out)
{
    pv__cj_value v;
    int rc = pv__cj_parse_value(c, &v);
    if (rc == 0)
        *out = v.text;
    return rc;
}

static int read_flag(pv__cj_cur *c, bool *out)
{
    pv__cj_value v;
    int rc = pv__cj_parse_value(c, &v);
    if (rc == 0)
        *out = v.kind == PV__CJ_TRUE || (v.kind == PV__CJ_INT && v.n.i != 0);
    return rc;
}

/* One member of an event (ctx): its key is k, the cursor is at its value. */
static int event_member(rd *r, pv__cj_cur *c, const pv__cj_str *k, void *ctx)
{
    pv__cj_event *ev = ctx;
    pv__cj_str s;
    int rc;
    switch (k->len) {
    case 1:
        if (k->s[0] == 's') {
            if ((rc = read_text(c, &s)) == 0)
                ev->scope = s.len > 0 ? s.s[0] : 0;
            return rc;
        }
        break;
    case 2:
        if (key_is(k, "ph", 2)) {
            if ((rc = read_text(c, &s)) == 0)
                ev->ph = s.len > 0 ? s.s[0] : 0;
            return rc;
        }
        if (key_is(k, "ts", 2))
            return pv__cj_time_value(c, &ev->ts);
        if (key_is(k, "id", 2))
            return read_id(c, &ev->id);
        if (key_is(k, "bp", 2)) {
            if ((rc = read_text(c, &s)) == 0)
                ev->bp_enclosing = s.len == 1 && s.s[0] == 'e';
            return rc;
        }
        break;
    case 3:
        if (key_is(k, "pid", 3))
            return read_id(c, &ev->pid);
        if (key_is(k, "tid", 3))
            return read_id(c, &ev->tid);
        if (key_is(k, "dur", 3))
            return pv__cj_time_value(c, &ev->dur);
        if (key_is(k, "cat", 3))
            return read_text(c, &ev->cat);
        break;
    case 4:
        if (key_is(k, "name", 4))
            return read_text(c, &ev->name);
        if (key_is(k, "args", 4) && *c->p == '{') {
            size_t n = 0;
            rc = read_object(r, c, &args_words, arg_member, &n);
            ev->args = r->args;
            ev->n_args = n;
            return rc;
        }
        break;
    case 7:
        if (key_is(k, "bind_id", 7))
            return read_id(c, &ev->bind_id);
        if (key_is(k, "flow_in", 7))
            return read_flag(c, &ev->flow_in);
        break;
    case 8:
        if (key_is(k, "flow_out", 8))
            return read_flag(c, &ev->flow_out);
        break;
    default:
        break;
    }
    return pv__cj_skip(c);
}

/* The event object at *p (a '{'), whole, into ev. */
static int read_event(rd *r, pv__cj_cur *c, pv__cj_event *ev)
{
    memset(ev, 0, sizeof *ev);
    if (r->pipe == NULL)   /* a batch's scratch lives as long as the batch */
        pv__cj_scratch_reset(r->scratch);
    ev->at = offset_of(r, c->p);
    return read_object(r, c, &event_words, event_member, ev);
}

/* ---- streaming past a big top-level value ------------------------------------- */

/* Consumes the window's bytes of the value being skipped; true once the
 * value ended (r->p just past it). */
static int skip_stream(rd *r, bool *done)
{
    skipper *k = &r->skip;
    const uint8_t *p = r->p;
    *done = false;
    for (; p < r->end; p++) {
        uint8_t ch = *p;
        if (k->in_string) {
            if (k->escape)
                k->escape = false;
            else if (ch == '\\')
                k->escape = true;
            else if (ch == '"')
                k->in_string = false;
            if (!k->in_string && k->depth == 0) {
                r->p = p + 1;
                *done = true;
                return 0;
            }
            continue;
        }
        if (k->scalar) {
            if (ch == ',' || ch == '}' || ch == ']' || ch == ' ' || ch == '\n' || ch == '\t' ||
                ch == '\r') {
                r->p = p;
                *done = true;
                return 0;
            }
            continue;
        }
        if (ch == '"') {
            k->in_string = true;
        } else if (ch == '{' || ch == '[') {
            if (k->depth == PV__CJ_MAX_DEPTH)
                return fail_at(r, p, "objects and arrays are nested too deeply");
            k->stack[k->depth++] = ch == '{' ? '}' : ']';
        } else if (ch == '}' || ch == ']') {
            if (k->depth == 0 || k->stack[k->depth - 1] != ch)
                return fail_at(r, p, "a closing bracket does not match its opening one");
            if (--k->depth == 0) {
                r->p = p + 1;
                *done = true;
                return 0;
            }
        } else if (k->depth == 0 && ch != ' ' && ch != '\n' && ch != '\t' && ch != '\r') {
            k->scalar = true;
        }
    }
    r->p = p;
    return 0;
}

/* ---- the container ------------------------------------------------------------- */

static void cut(rd *r, uint64_t at, const char *what, bool trailing)
{
    if (r->pipe != NULL)
        pv__cj_pipe_cut(r->pipe, at, what, trailing);
    else
        pv__cj_model_cut(r->model, at, what, trailing);
}

/* One piece at r->p for the current state. Returns 0 (r->p moved past
 * it), PV__CJ_MORE (r->p at the piece's start, or at the window's end
 * for a value streaming by), or a PV_E* code. */
static int step(rd *r)
{
    pv__cj_cur c = {r->p, r->end, r->eof, NULL, r->scratch};
    int rc = pv__cj_ws(&c);
    if (rc != 0) {
        r->p = c.p;   /* white space is consumed for good */
        return rc;
    }
    r->p = c.p;
    const uint8_t *at = c.p;
    switch (r->state) {
    case S_START:
        if (*at == '{') {
            r->state = S_KEY_FIRST;
        } else if (*at == '[') {
            r->bare = true;
            r->saw_events = true;
            r->state = S_EVENT_FIRST;
        } else {
            return fail_at(r, at, "it does not start with '{' or '['");
        }
        r->p = at + 1;
        return 0;
    case S_KEY_FIRST:
    case S_KEY: {
        if (*at == '}' && r->state == S_KEY_FIRST) {
            r->p = at + 1;
            r->state = S_DONE;
            return 0;
        }
        if (*at != '"')
            return fail_at(r, at, "a member of the trace object has no string key");
        pv__cj_str k;
        if ((rc = pv__cj_string(&c, &k)) != 0 || (rc = pv__cj_ws(&c)) != 0)
            break;
        if (*c.p != ':')
            return fail_at(r, c.p, "a ':' is missing after a key of the trace object");
        c.p++;
        if ((rc = pv__cj_ws(&c)) != 0)
            break;
        if (key_is(&k, "traceEvents", 11) && *c.p == '[') {
            r->saw_events = true;
            r->state = S_EVENT_FIRST;
            c.p++;
        } else {
            r->key_len = k.len < sizeof r->key ? k.len : sizeof r->key - 1;
            memcpy(r->key, k.s, r->key_len);
            r->state = S_TOP_VALUE;
        }
        r->p = c.p;
        return 0;
    }
    case S_TOP_VALUE: {
        pv__cj_value v;
        rc = pv__cj_parse_value(&c, &v);
        if (rc == PV__CJ_MORE && (size_t)(r->end - at) >= PV__CJ_MAX_TOP_VALUE) {
            memset(&r->skip, 0, sizeof r->skip);
            r->state = S_TOP_SKIP;
            return 0;
        }
        if (rc != 0)
            break;
        if (r->pipe != NULL)
            pv__cj_pipe_top(r->pipe, (pv__cj_str){r->key, r->key_len}, &v);
        else
            pv__cj_model_top(r->model, (pv__cj_str){r->key, r->key_len}, &v);
        r->state = S_MEMBER_NEXT;
        r->p = c.p;
        return 0;
    }
    case S_TOP_SKIP: {
        bool done;
        if ((rc = skip_stream(r, &done)) != 0)
            return rc;
        if (done)
            r->state = S_MEMBER_NEXT;
        return done ? 0 : PV__CJ_MORE;
    }
    case S_MEMBER_NEXT:
        if (*at == ',') {
            r->state = S_KEY;
        } else if (*at == '}') {
            r->state = S_DONE;
        } else {
            return fail_at(r, at, "a ',' or '}' is missing in the trace object");
        }
        r->p = at + 1;
        return 0;
    case S_EVENT_FIRST:
    case S_EVENT:
        if (*at == ']') {
            r->p = at + 1;
            r->state = r->bare ? S_DONE : S_MEMBER_NEXT;
            return 0;
        }
        if (*at != '{') {
            /* not an event: skipped, as Chrome's viewer does */
            if ((rc = pv__cj_skip(&c)) != 0)
                break;
        } else {
            pv__cj_event ev;
            if ((rc = read_event(r, &c, &ev)) != 0)
                break;
            if ((size_t)(c.p - at) > PV__CJ_MAX_EVENT_BYTES)
                return pv_error_set(r->err, PV_ETOOBIG, r->src->path, offset_of(r, at),
                                    "an event is larger than %zu MiB",
                                    PV__CJ_MAX_EVENT_BYTES >> 20);
            if (r->pipe != NULL) {
                if (pv__cj_pipe_event(r->pipe, &ev, offset_of(r, c.p)) != 0)
                    return PV__CJ_STOP;
                r->scratch = pv__cj_pipe_scratch(r->pipe);
            } else if ((rc = pv__cj_model_event(r->model, &ev, r->err)) != 0) {
                return rc;
            }
            r->n_events++;
        }
        r->p = c.p;
        r->state = S_EVENT_NEXT;
        return 0;
    case S_EVENT_NEXT:
        if (*at == ',') {
            r->state = S_EVENT;
        } else if (*at == ']') {
            r->state = r->bare ? S_DONE : S_MEMBER_NEXT;
        } else {
            return fail_at(r, at, "a ',' or ']' is missing between events");
        }
        r->p = at + 1;
        return 0;
    case S_DONE:
        cut(r, offset_of(r, at), "text after the end of the trace", true);
        r->p = r->end;
        r->eof = true;
        return PV__CJ_MORE;
    }
    if (rc == PV_EFORMAT)
        return fail_at(r, c.p, c.why);
    return rc;
}

/* ---- the window -------------------------------------------------------------- */

/* Moves the bytes from r->p on to the window's start and reads more after
 * them. Returns 0 when bytes came, 1 at the end of the text, or a PV_E*
 * code. */
static int refill(rd *r)
{
    if (r->read == NULL || r->eof)
        return 1;
    size_t kept = (size_t)(r->end - r->p);
    if (kept == r->cap) {
        if (r->cap > PV__CJ_MAX_EVENT_BYTES)
            return pv_error_set(r->err, PV_ETOOBIG, r->src->path, offset_of(r, r->p),
                                "an event is larger than %zu MiB",
                                PV__CJ_MAX_EVENT_BYTES >> 20);
        size_t at = (size_t)(r->p - r->buf);
        r->cap *= 2;
        r->buf = pv_xrealloc(r->buf, r->cap);
        r->p = r->buf + at;
        r->win0 = r->buf;
    }
    if (kept > 0 && r->p != r->buf)
        memmove(r->buf, r->p, kept);
    r->base += (uint64_t)(r->p - r->buf);
    bool cut = false;
    int64_t n = r->read(r->ctx, r->buf + kept, r->cap - kept, &cut, r->err);
    r->p = r->buf;
    r->end = r->buf + kept + (n > 0 ? (size_t)n : 0);
    if (n < 0)
        return (int)n;
    if (n == 0) {
        r->eof = true;
        r->cut = cut;
        return 1;
    }
    return 0;
}

/* What the end of the text means in the state it left the reader. */
static int at_end(rd *r)
{
    uint64_t at = offset_of(r, r->end);
    if (!r->saw_events) {
        if (r->state == S_DONE)
            return pv_error_set(r->err, PV_EFORMAT, r->src->path, PV_NO_OFFSET,
                                "not a Chrome trace: the JSON object has no traceEvents array");
        return pv_error_set(r->err, PV_EFORMAT, r->src->path, at,
                            "not a Chrome trace: the text ends before any traceEvents array");
    }
    bool between = r->state == S_EVENT_FIRST || r->state == S_EVENT_NEXT ||
                   r->state == S_EVENT;
    if (r->cut)
        cut(r, at, "the gzip stream ends early", false);
    else if (r->state != S_DONE && !(r->bare && between))
        cut(r, at, "the trace is cut off", false);
    return 0;
}

int pv__cj_progress(const pv_ingest_src *src, const pv__cj_model *m, uint64_t model_cap,
                    uint64_t at, bool whole_text, pv_error *err)
{
    if (whole_text)
        pv_ingest_done_upto(src, (size_t)at);
    if (pv__cj_model_fits(m, model_cap))
        return 0;
    return pv_error_set(err, PV_ETOOBIG, src->path, at,
                        "the trace needs more than %llu MiB of memory, more than a file of "
                        "its size may",
                        (unsigned long long)(model_cap >> 20));
}

/* Reads the whole text, from its start, into the model or the pipe. */
static int read_all(rd *r)
{
    /* a UTF-8 byte order mark is allowed before the text */
    int rc = refill(r);
    if (rc < 0)
        return rc;
    if (r->end - r->p >= 3 && memcmp(r->p, "\xef\xbb\xbf", 3) == 0)
        r->p += 3;
    uint64_t next_check = PV__CJ_PROGRESS_EVENTS;
    for (;;) {
        rc = step(r);
        if (rc == 0) {
            if (r->pipe == NULL && r->n_events >= next_check) {
                next_check = r->n_events + PV__CJ_PROGRESS_EVENTS;
                rc = pv__cj_progress(r->src, r->model, r->model_cap, offset_of(r, r->p),
                                     r->read == NULL, r->err);
                if (rc != 0)
                    return rc;
            }
            continue;
        }
        if (rc != PV__CJ_MORE)
            return rc;
        rc = refill(r);
        if (rc < 0)
            return rc;
        if (rc == 1)
            return at_end(r);
    }
}

/* pv__cj_produce_fn: read_all on the pipe's reader thread. */
static int produce(void *ctx, pv__cj_pipe *p, pv_error *err)
{
    rd *r = ctx;
    r->pipe = p;
    r->err = err;
    r->scratch = pv__cj_pipe_scratch(p);
    return read_all(r);
}

int pv__cj_decode_text(const pv_ingest_src *src, const uint8_t *data, size_t len,
                       pv__cj_read_fn read, void *ctx, uint64_t model_cap,
                       pv_model_builder *b, pv_error *err)
{
    rd *r = pv_xcalloc(1, sizeof *r);
    r->src = src;
    r->err = err;
    r->read = read;
    r->ctx = ctx;
    r->model_cap = model_cap;
    r->model = pv__cj_model_new(b, src->path);
    r->scratch = &r->own_scratch;
    if (read == NULL) {
        r->win0 = r->p = data;
        r->end = data + len;
        r->eof = true;
    } else {
        r->cap = WINDOW_BYTES;
        r->buf = pv_xmalloc(r->cap);
        r->win0 = r->p = r->end = r->buf;
    }
    int rc = PV__CJ_MORE;
    if (read == NULL && pv__cj_pipe_worth(len))
        rc = pv__cj_pipe_run(src, r->model, model_cap, produce, r, err);
    if (rc == PV__CJ_MORE)
        rc = read_all(r);
    if (rc == 0)
        pv__cj_model_finish(r->model);
    pv__cj_model_free(r->model);
    pv__cj_scratch_fini(&r->own_scratch);
    free(r->args);
    free(r->buf);
    free(r);
    return rc;
}
