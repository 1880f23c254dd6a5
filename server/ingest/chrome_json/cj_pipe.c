/* cj_pipe: the reader on a second core. Reading JSON is about a third of
 * a decode and the parser (interning, the builder) the rest; on a mapped
 * file with a second core free, the reader runs on a thread of its own
 * and hands what it reads to the parser on the caller's thread in
 * batches, through a ring of RING of them: 64 K events, a twentieth of a
 * second of parsing, so that either thread losing its core for a while on
 * a busy machine does not stall the other at once (a ring of 4 made the
 * pipe slower than one thread there). The parser sees the same
 * calls in the same order as when one thread does both (events, top-level
 * members, the cut), so the model is the same to the byte.
 *
 * An event's strings point into the mapped text, which stays put, or into
 * its batch's scratch, which is reset only when the reader takes the
 * batch again, after the parser is done with it. A failure of either side
 * stops the other: the reader's failure arrives after the events it read
 * before it (the first failure in text order wins, as when one thread
 * reads), and the parser's stops the reader at its next event. The reader
 * thread has its own guard against the file shrinking (mapguard.h); the
 * caller's guard covers the parser, and a jump out of it stops and joins
 * the reader through pv_ingest_on_abort. */
#include "ingest/chrome_json/cj_priv.h"
#include "util/handoff.h"
#include "util/mapguard.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Below this the thread's start costs more than it saves. */
#define PIPE_MIN_BYTES ((size_t)16 << 20)
#define RING 16
#define BATCH_ITEMS 4096u

enum { ITEM_EVENT, ITEM_TOP, ITEM_CUT };

typedef struct item {
    uint8_t kind;
    bool trailing;          /* CUT: text after the trace's end */
    uint64_t at;            /* EVENT: text offset just past it; CUT: where */
    size_t args_first;      /* EVENT: its args in the batch's */
    const char *what;       /* CUT */
    pv__cj_event ev;        /* EVENT (args NULL until consumed) */
    pv__cj_str key;         /* TOP, in the batch's scratch */
    pv__cj_value v;         /* TOP */
} item;

typedef struct batch {
    item *items;
    size_t n, cap;
    pv__cj_arg *args;
    size_t n_args, cap_args;
    pv__cj_scratch scratch;
    bool last;              /* the reader's last batch */
} batch;

struct pv__cj_pipe {
    pv_handoff ho;          /* the ring's counts: the reader fills, the parser reads */
    batch ring[RING];
    size_t w;               /* the batch the reader fills */
    int rc;                 /* the reader's result, with err */
    pv_error err;
    const pv_ingest_src *src;
    pv__cj_produce_fn produce;
    void *ctx;
    pthread_t thread;
    bool joined;
};

bool pv__cj_pipe_worth(size_t len)
{
    return len >= PIPE_MIN_BYTES && pv_handoff_worth();
}

/* ---- the reader's side ------------------------------------------------------ */

pv__cj_scratch *pv__cj_pipe_scratch(pv__cj_pipe *p)
{
    return &p->ring[p->w].scratch;
}

/* Hands the batch being filled to the parser and takes the next one once
 * the parser is done with it. Returns 1 when the parser stopped. */
static int hand_over(pv__cj_pipe *p, bool last)
{
    p->ring[p->w].last = last;
    if (!pv_handoff_put(&p->ho, last))
        return 1;
    p->w = pv_handoff_filling(&p->ho);
    batch *b = &p->ring[p->w];
    b->n = 0;
    b->n_args = 0;
    pv__cj_scratch_reset(&b->scratch);
    return 0;
}

static item *next_item(batch *b)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : BATCH_ITEMS;
        b->items = pv_xrealloc(b->items, b->cap * sizeof *b->items);
    }
    return &b->items[b->n++];
}

int pv__cj_pipe_event(pv__cj_pipe *p, const pv__cj_event *ev, uint64_t end)
{
    batch *b = &p->ring[p->w];
    item *it = next_item(b);
    it->kind = ITEM_EVENT;
    it->at = end;
    it->ev = *ev;
    it->ev.args = NULL;
    it->args_first = b->n_args;
    if (b->n_args + ev->n_args > b->cap_args) {
        size_t cap = b->cap_args ? 2 * b->cap_args : 4 * BATCH_ITEMS;
        b->cap_args = cap > b->n_args + ev->n_args ? cap : b->n_args + ev->n_args;
        b->args = pv_xrealloc(b->args, b->cap_args * sizeof *b->args);
    }
    if (ev->n_args > 0)
        memcpy(b->args + b->n_args, ev->args, ev->n_args * sizeof *ev->args);
    b->n_args += ev->n_args;
    return b->n >= BATCH_ITEMS ? hand_over(p, false) : 0;
}

void pv__cj_pipe_top(pv__cj_pipe *p, pv__cj_str key, const pv__cj_value *v)
{
    batch *b = &p->ring[p->w];
    item *it = next_item(b);
    it->kind = ITEM_TOP;
    char *k = pv__cj_scratch_alloc(&b->scratch, key.len ? key.len : 1);
    if (key.len > 0)
        memcpy(k, key.s, key.len);
    it->key = (pv__cj_str){k, key.len};
    it->v = *v;
}

void pv__cj_pipe_cut(pv__cj_pipe *p, uint64_t at, const char *what, bool trailing)
{
    item *it = next_item(&p->ring[p->w]);
    it->kind = ITEM_CUT;
    it->at = at;
    it->what = what;
    it->trailing = trailing;
}

static void *reader_main(void *arg)
{
    pv__cj_pipe *p = arg;
    pv_map_guard guard;
    if (PV_MAP_GUARD_ARM(&guard, p->src->data, p->src->len) == 0)
        p->rc = p->produce(p->ctx, p, &p->err);
    else
        p->rc = pv_ingest_shrank(&p->err, p->src->path);
    pv_map_guard_disarm(&guard);
    hand_over(p, true);
    return NULL;
}

/* ---- the parser's side ------------------------------------------------------- */

/* Stops the reader and waits for it. */
static void stop_reader(pv__cj_pipe *p)
{
    if (p->joined)
        return;
    pv_handoff_stop(&p->ho);
    pthread_join(p->thread, NULL);
    p->joined = true;
}

static void pipe_free(pv__cj_pipe *p)
{
    for (int i = 0; i < RING; i++) {
        free(p->ring[i].items);
        free(p->ring[i].args);
        pv__cj_scratch_fini(&p->ring[i].scratch);
    }
    pv_handoff_fini(&p->ho);
    free(p);
}

/* pv_ingest_on_abort's release: the parser's stack is gone. */
static void pipe_abort(void *state)
{
    pv__cj_pipe *p = state;
    stop_reader(p);
    pipe_free(p);
}

/* Feeds batch b to m; returns 0, or the parser's failure. */
static int parse_batch(pv__cj_pipe *p, batch *b, pv__cj_model *m, uint64_t model_cap,
                       uint64_t *n_events, uint64_t *next_check, pv_error *err)
{
    for (size_t i = 0; i < b->n; i++) {
        item *it = &b->items[i];
        if (it->kind == ITEM_TOP) {
            pv__cj_model_top(m, it->key, &it->v);
            continue;
        }
        if (it->kind == ITEM_CUT) {
            pv__cj_model_cut(m, it->at, it->what, it->trailing);
            continue;
        }
        it->ev.args = b->args + it->args_first;
        int rc = pv__cj_model_event(m, &it->ev, err);
        if (rc != 0)
            return rc;
        if (++*n_events >= *next_check) {
            *next_check = *n_events + PV__CJ_PROGRESS_EVENTS;
            if ((rc = pv__cj_progress(p->src, m, model_cap, it->at, true, err)) != 0)
                return rc;
        }
    }
    return 0;
}

int pv__cj_pipe_run(const pv_ingest_src *src, pv__cj_model *m, uint64_t model_cap,
                    pv__cj_produce_fn produce, void *ctx, pv_error *err)
{
    pv__cj_pipe *p = pv_xcalloc(1, sizeof *p);
    pv_handoff_init(&p->ho, RING);
    p->src = src;
    p->produce = produce;
    p->ctx = ctx;
    if (pthread_create(&p->thread, NULL, reader_main, p) != 0) {
        pipe_free(p);
        return PV__CJ_MORE;
    }
    pv_ingest_on_abort(pipe_abort, p);
    uint64_t n_events = 0, next_check = PV__CJ_PROGRESS_EVENTS;
    int rc = 0;
    for (;;) {
        batch *b = &p->ring[pv_handoff_take(&p->ho)];
        rc = parse_batch(p, b, m, model_cap, &n_events, &next_check, err);
        if (rc != 0 || b->last)
            break;
        pv_handoff_give_back(&p->ho);
    }
    stop_reader(p);
    if (rc == 0 && p->rc != 0) {
        rc = p->rc;
        *err = p->err;
    }
    pv_ingest_on_abort(NULL, NULL);
    pipe_free(p);
    return rc;
}
