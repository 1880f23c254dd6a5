/* conn: the open connections and the deadline for a request's headers.
 *
 * libmicrohttpd closes a connection only after it has been idle for the
 * connection timeout, so a client that trickles a header line every few
 * seconds keeps its connection, and its thread, forever. The watcher
 * sweeps the list a few times per deadline and shuts down the socket of
 * every connection that has waited longer than the deadline for its
 * headers; the connection's thread then sees end of file and closes it.
 * shutdown() rather than close(): the descriptor still belongs to
 * libmicrohttpd, which closes it only after telling us (pv__conn_close,
 * under the same mutex), so the watcher never touches a reused number.
 *
 * A request only touches atomics: with a mutex and a condition variable
 * per request, fifty busy connections spent a third of their time waking
 * each other and the watcher. */
#include "http/conn.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/quiet.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

/* How often a stop looks whether the requests in flight are done. */
#define IDLE_POLL_NS 10000000LL

struct pv_conn_watch {
    pthread_mutex_t lock;      /* guards the list and stopping */
    pthread_cond_t stop;       /* signalled when stopping is set */
    pv_conn head;              /* list sentinel: head.next is the oldest */
    atomic_size_t in_flight;   /* connections with in_request set */
    pv_quiet *quiet;           /* told of each change of in_flight, or NULL */
    int64_t timeout_ns;        /* the header deadline */
    bool stopping;
    pthread_t thread;
};

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct timespec ns_to_timespec(int64_t ns)
{
    return (struct timespec){(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
}

/* Returns how many sockets it shut down. Called with the lock held. */
static unsigned sweep(pv_conn_watch *w, int64_t now_ns)
{
    unsigned cut = 0;
    for (pv_conn *c = w->head.next; c != &w->head; c = c->next) {
        if (c->cut || atomic_load_explicit(&c->in_request, memory_order_relaxed))
            continue;
        int64_t since = atomic_load_explicit(&c->waiting_since_ns, memory_order_relaxed);
        if (now_ns - since <= w->timeout_ns)
            continue;
        shutdown(c->fd, SHUT_RDWR);
        c->cut = true;
        cut++;
    }
    return cut;
}

static void *watch_main(void *arg)
{
    pv_conn_watch *w = arg;
    /* A quarter of the deadline between sweeps: a connection is cut at
     * most 25 % late, and an idle server wakes a few times a second. */
    int64_t period_ns = w->timeout_ns / 4;
    pthread_mutex_lock(&w->lock);
    while (!w->stopping) {
        unsigned cut = sweep(w, mono_ns());
        if (cut > 0)
            pv_log(PV_LOG_DEBUG, "closed %u connections whose request headers took longer "
                   "than %lld ms", cut, (long long)(w->timeout_ns / 1000000));
        struct timespec until = ns_to_timespec(mono_ns() + period_ns);
        pthread_cond_timedwait(&w->stop, &w->lock, &until);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

pv_conn_watch *pv__conn_watch_new(unsigned header_timeout_ms, pv_quiet *quiet)
{
    pv_conn_watch *w = pv_xcalloc(1, sizeof *w);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->stop, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&w->lock, NULL);
    w->head.next = w->head.prev = &w->head;
    atomic_init(&w->in_flight, 0);
    w->quiet = quiet;
    w->timeout_ns = (int64_t)header_timeout_ms * 1000000LL;
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
        pv_log(PV_LOG_ERROR, "cannot start the connection watcher thread");
        abort();
    }
    return w;
}

void pv__conn_watch_free(pv_conn_watch *w)
{
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->lock);
    w->stopping = true;
    pthread_cond_signal(&w->stop);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->stop);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

static void request_ended(pv_conn_watch *w)
{
    atomic_fetch_sub_explicit(&w->in_flight, 1, memory_order_relaxed);
    if (w->quiet != NULL)
        pv_quiet_leave(w->quiet);
}

pv_conn *pv__conn_open(pv_conn_watch *w, int fd)
{
    pv_conn *c = pv_xcalloc(1, sizeof *c);
    c->fd = fd;
    atomic_init(&c->in_request, false);
    atomic_init(&c->waiting_since_ns, mono_ns());
    pthread_mutex_lock(&w->lock);
    c->prev = w->head.prev;
    c->next = &w->head;
    w->head.prev->next = c;
    w->head.prev = c;
    pthread_mutex_unlock(&w->lock);
    return c;
}

void pv__conn_close(pv_conn_watch *w, pv_conn *c)
{
    pthread_mutex_lock(&w->lock);
    c->prev->next = c->next;
    c->next->prev = c->prev;
    pthread_mutex_unlock(&w->lock);
    if (atomic_load_explicit(&c->in_request, memory_order_relaxed))
        request_ended(w);
    free(c->raw_target);
    free(c);
}

void pv__conn_begin(pv_conn_watch *w, pv_conn *c)
{
    atomic_store_explicit(&c->in_request, true, memory_order_relaxed);
    atomic_fetch_add_explicit(&w->in_flight, 1, memory_order_relaxed);
    if (w->quiet != NULL)
        pv_quiet_enter(w->quiet);
}

void pv__conn_end(pv_conn_watch *w, pv_conn *c)
{
    if (atomic_exchange_explicit(&c->in_request, false, memory_order_relaxed))
        request_ended(w);
    atomic_store_explicit(&c->waiting_since_ns, mono_ns(), memory_order_relaxed);
    free(c->raw_target);
    c->raw_target = NULL;
    c->target_status = 0;
    c->target_why = NULL;
}

size_t pv__conn_wait_idle(pv_conn_watch *w, unsigned timeout_ms)
{
    int64_t until = mono_ns() + (int64_t)timeout_ms * 1000000LL;
    size_t left = atomic_load(&w->in_flight);
    while (left > 0 && mono_ns() < until) {
        struct timespec nap = ns_to_timespec(IDLE_POLL_NS);
        nanosleep(&nap, NULL);
        left = atomic_load(&w->in_flight);
    }
    return left;
}
