/* xs_walk (shared inside ingest/xspace/ only, hence pv__): the XSpace's
 * lines read ahead on a second core. A walker thread goes through the
 * file's planes and lines in file order, the order the decoder adds
 * them, and hands it every line's events already scanned (xs_scan.h),
 * their stats read (model/builder.h, pv_builder_wire_read), so
 * the decoder's thread is left with what has to happen in order: the
 * builder's calls. It also gathers the line's own fields on its way
 * (those after the events end the line in the file), so the decoder goes
 * through a line's events once. It only reads bytes: it interns nothing,
 * decides nothing and reports no error. Where the bytes are not the common
 * layout it hands the event over unscanned, or ends the line early, and
 * the decoder reads that part itself, exactly as on one thread; the
 * decoder checks that each line it is handed is the one it is at. So the
 * model is the same, byte for byte, with or without the walker.
 *
 * Two more things keep the decoder's thread from waiting: the walker
 * faults in the pages of the builder's columns for the events it has
 * handed over (util/prefault.h; the decoder gives the columns their room
 * ahead, under the prefault's lock), and when the decoder is down to its
 * last few batches the walker leaves the next batch's stats unread, for the
 * decoder to read as it would on one thread: whichever thread is behind
 * does less. */
#ifndef PV_INGEST_XSPACE_XS_WALK_H
#define PV_INGEST_XSPACE_XS_WALK_H

#include "ingest/ingest.h"
#include "ingest/xspace/xs_scan.h"
#include "util/prefault.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct pv__xs_walk pv__xs_walk;

enum pv__xs_item_kind {
    PV_XS_LINE,     /* a line starts: f.data is its first byte */
    PV_XS_EVENT,    /* one of its events: the field f, scanned when `scanned` */
    PV_XS_END       /* its events end: the decoder reads on from f.data, with
                       the line's own fields read so far */
};

typedef struct pv__xs_item {
    uint8_t kind;           /* enum pv__xs_item_kind */
    bool scanned;           /* EVENT: s holds it (else the general decoder reads it) */
    pv_pb_field f;
    union {
        pv__xs_scan s;      /* EVENT */
        pv__xs_line line;   /* END: the line's own fields before f.data */
    };
} pv__xs_item;

/* Whether a file of len bytes is worth a walker: large enough to repay a
 * thread, and the process may run on two cores (sched_getaffinity). */
bool pv__xs_walk_worth(size_t len);

/* How many events ahead of the decoder the walker may fault in the
 * builder's columns at most (its ring, and the steps it faults in): the
 * decoder keeps the columns' room that far ahead. */
#define PV__XS_WALK_LEAD ((uint64_t)1 << 17)

/* Starts a walker over src's bytes; NULL when no thread could start (the
 * decoder then reads everything itself). With pf, it also faults in the
 * columns pf holds for the events it hands over, counted from the
 * builder's first, `from` (util/prefault.h). */
pv__xs_walk *pv__xs_walk_start(const pv_ingest_src *src, pv_prefault *pf, uint64_t from);

/* The next item in file order, waiting for the walker when it has none
 * yet; NULL once it has nothing more (at the file's end, or where it
 * stopped). The item is valid until the next call. */
const pv__xs_item *pv__xs_walk_next(pv__xs_walk *w);

/* Stops the walker, waits for its thread and frees it. NULL is fine. */
void pv__xs_walk_free(pv__xs_walk *w);

#endif
