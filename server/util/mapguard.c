/* mapguard: one SIGBUS handler for the process; a thread-local pointer says
 * which range, if any, the current thread is reading. A SIGBUS anywhere
 * else keeps its default meaning (the process dies with a core), since it
 * is then our bug, not the file's. */
#include "util/mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

static _Thread_local pv_map_guard *active;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    pv_map_guard *g = active;
    const char *at = info ? (const char *)info->si_addr : NULL;
    if (g != NULL && at >= g->lo && at < g->hi) {
        active = g->prev;
        siglongjmp(g->jump, 1);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    /* SA_NODEFER: the jump out does not restore the signal mask, so the
     * signal must not be blocked while the handler runs. */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

void pv__map_guard_enter(pv_map_guard *g, const void *p, size_t len)
{
    pthread_once(&installed, install);
    g->lo = p;
    g->hi = (const char *)p + len;
    g->prev = active;
    active = g;
}

void pv_map_guard_disarm(pv_map_guard *g)
{
    active = g->prev;
}
