/* quiet: tells background work when the server has a moment without
 * requests. The disk cache's writes after a load (hundreds of MB of model
 * and trace index) take a core and the page cache's time, and on a small
 * machine the first frame of the trace viewer asked for meanwhile came
 * a fifth slower. Requests mark where they start and end (http/conn.c); a
 * writer waits for a quiet moment before each piece it writes.
 *
 * A writer's waits are bounded in all (a budget it carries from piece to
 * piece): a server busy for good still gets its cache written, and a
 * model is not held for the write much longer than the write takes. */
#ifndef PV_UTIL_QUIET_H
#define PV_UTIL_QUIET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct pv_quiet {
    atomic_int busy;                /* requests in flight */
    atomic_int_fast64_t last_ns;    /* CLOCK_MONOTONIC of the last start or end */
    int64_t gap_ns;                 /* quiet: no request for this long */
    atomic_bool off;                /* pv_quiet_off: waits return at once */
} pv_quiet;

/* What a server uses: a pause between a page's requests is shorter than
 * the gap. */
#define PV_QUIET_GAP_NS 250000000LL
/* What one file's writer may wait in all. */
#define PV_QUIET_BUDGET_NS 10000000000LL

void pv_quiet_init(pv_quiet *q, int64_t gap_ns);
void pv_quiet_enter(pv_quiet *q);
void pv_quiet_leave(pv_quiet *q);
/* Returns once no request is in flight and none started or ended in the
 * last gap_ns, or once it has waited *budget_ns, which it lowers by what
 * it waited. NULL q, or a budget spent: at once. */
void pv_quiet_wait(pv_quiet *q, int64_t *budget_ns);
/* From now on every wait returns at once: a server that stops finishes
 * its writes without waiting for requests it is cutting off. */
void pv_quiet_off(pv_quiet *q);

#endif
