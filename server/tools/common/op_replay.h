/* op_replay: the reference's replay of a host thread's op spans, which
 * the host op tables of framework_op_stats (tools/op_stats) and of the
 * overview and input pipeline analyzer (tools/steps) both take their
 * times from. XProf sorts every span's begin and end by time, stably
 * (ties in the order the spans were added, a span's begin before its
 * end), and replays them on a stack: an end pops the stack down to its
 * own begin, so spans above it, which overlapped it without nesting,
 * are dropped, and an end whose begin is gone empties the stack. Where
 * two spans end at the same picosecond in the "wrong" order this loses
 * spans; kept on purpose, so both tools report the reference's ops.
 *
 * The spans of a thread come by begin (its events are by start), so that
 * order is the begins as they come with the ends of the spans still open
 * merged in: a heap of those ends is all the scratch, not the thread's
 * millions of begins and ends sorted (two copies of them were the largest
 * scratch of both tools on a big profile, docs/big_profiles.md). Pure:
 * what it allocates is its own. */
#ifndef PV_TOOLS_COMMON_OP_REPLAY_H
#define PV_TOOLS_COMMON_OP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Called for every span whose end finds its begin: its key and eager flag
 * as added, its duration (end - begin, >= 0) and the durations of the
 * spans that ended inside it while it was open (its children's). A
 * nonzero return stops the replay and is returned by the call that made
 * it. */
typedef int (*pv_op_replay_fn)(void *ctx, uint32_t key, bool eager, int64_t dur_ps,
                               int64_t children_ps);

typedef struct pv_op_replay_end pv_op_replay_end;
typedef struct pv_op_replay_open pv_op_replay_open;

typedef struct pv_op_replay {
    pv_op_replay_fn done;
    void *ctx;
    pv_op_replay_end *ends;    /* heap of the open spans' ends */
    size_t n_ends, cap_ends;
    pv_op_replay_open *stack;
    size_t depth, cap_stack;
    uint32_t n_spans;          /* of the thread so far */
    int64_t first_ps, last_ps; /* its first begin, its latest end */
} pv_op_replay;

void pv_op_replay_init(pv_op_replay *r, pv_op_replay_fn done, void *ctx);
void pv_op_replay_fini(pv_op_replay *r);

/* Adds a span of the thread: begins no earlier than the span added
 * before it. An end before its begin is taken as the begin (a hostile
 * duration). Returns 0, or what done returned to stop. */
int pv_op_replay_add(pv_op_replay *r, uint32_t key, bool eager, int64_t begin_ps,
                     int64_t end_ps);

/* Ends the thread: the spans still open end, and *span_ps (may be NULL)
 * is its first begin to its latest end, 0 without a span. The replay is
 * then ready for the next thread. Returns 0, or what done returned. */
int pv_op_replay_thread_end(pv_op_replay *r, int64_t *span_ps);

#endif
