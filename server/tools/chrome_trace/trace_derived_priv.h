/* trace_derived_priv: what trace_derived.c shares with
 * trace_derived_offload.c. Nothing else includes it. */
#ifndef PV_TOOLS_CHROME_TRACE_TRACE_DERIVED_PRIV_H
#define PV_TOOLS_CHROME_TRACE_TRACE_DERIVED_PRIV_H

#include "tools/chrome_trace/trace_derived.h"
#include "util/arena.h"
#include "util/mem.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* XProf's derived line ids (xla/tsl/profiler/utils/trace_utils.h). */
#define LINE_DERIVED_MIN 0xdeadbeefll
#define LINE_NAME_SCOPE (LINE_DERIVED_MIN + 2)
#define LINE_TF_OP (LINE_DERIVED_MIN + 3)
#define LINE_HLO_MODULE (LINE_DERIVED_MIN + 4)
#define LINE_HLO_OP (LINE_DERIVED_MIN + 5)
#define LINE_SOURCE (LINE_DERIVED_MIN + 7)
#define LINE_OFFLOAD_FIRST (LINE_DERIVED_MIN + 8)
#define LINE_OFFLOAD_LAST (LINE_DERIVED_MIN + 48)
#define LINE_DEVICE_MIN (LINE_DERIVED_MIN + 290)
#define LINE_DEVICE_MAX (LINE_DEVICE_MIN + 99)
/* Line ids one GPU stream's derived lines take (name scope .. source). */
#define LINES_PER_STREAM (LINE_SOURCE - LINE_NAME_SCOPE + 1)

/* ---- growable text ---------------------------------------------------------- */

typedef struct text {
    char *p;     /* NUL-terminated once anything was added */
    size_t len;  /* bytes, without the NUL */
    size_t cap;
} text;

static inline void text_cat(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1) + 32;
        t->p = pv_xrealloc(t->p, t->cap);
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static inline void text_set(text *t, const char *s, size_t n)
{
    t->len = 0;
    text_cat(t, s, n);
}

static inline void text_cats(text *t, const char *s)
{
    text_cat(t, s, strlen(s));
}

static inline void text_i64(text *t, int64_t v, bool is_unsigned)
{
    char tmp[24];
    int n = is_unsigned ? snprintf(tmp, sizeof tmp, "%" PRIu64, (uint64_t)v)
                        : snprintf(tmp, sizeof tmp, "%" PRId64, v);
    text_cat(t, tmp, n > 0 ? (size_t)n : 0);
}

/* ---- output ------------------------------------------------------------------- */

typedef struct out_tracks {
    pv_derived_track *v;
    size_t n, cap;
} out_tracks;

/* Sorts the events of a finished line, gives them depths and moves them
 * into the arena as a track; an empty line is dropped. */
void pv__derived_emit(out_tracks *o, pv_arena *a, uint32_t plane, uint32_t after,
                      int64_t line_id, uint32_t kind, const char *name, pv_derived_event *ev,
                      size_t n);

/* ---- host offload rows (trace_derived_offload.c) ------------------------------ */

/* The "-start" ops of one offload instruction still waiting for their
 * "-done", first in first out. */
typedef struct pv__offload_queue {
    char *name;          /* "offload-copy.2" */
    uint64_t *ev;
    size_t head, n, cap;
} pv__offload_queue;

typedef struct pv__offload_row {
    int64_t frontier_ps; /* the latest end of its events */
    pv_derived_event *ev;
    size_t n, cap;
} pv__offload_row;

/* Host offload rows being laid out for one TPU plane; zero it to start. */
typedef struct pv__offload {
    pv__offload_queue *q;
    size_t n_q;
    pv__offload_row rows[LINE_OFFLOAD_LAST - LINE_OFFLOAD_FIRST + 1];
    size_t n_rows;
    text name;
} pv__offload;

/* XProf's IsHostOffloadOpName for event e. */
bool pv__offload_op(const pv_model *m, uint64_t e);
/* A start waits for its done; a done lays the pair out on a row. */
void pv__offload_add(pv__offload *h, const pv_model *m, pv_arena *a, uint64_t e);
/* The rows as tracks of plane; releases h. */
void pv__offload_emit(pv__offload *h, out_tracks *o, pv_arena *a, uint32_t plane);

#endif
