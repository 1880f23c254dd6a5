/* trace_chrome_priv: the state the Chrome-JSON writer (trace_chrome.c)
 * shares with what writes one event's args, flows and counter values
 * (trace_chrome_args.c). Nothing outside those two files includes it. */
#ifndef PV_TOOLS_CHROME_TRACE_TRACE_CHROME_PRIV_H
#define PV_TOOLS_CHROME_TRACE_TRACE_CHROME_PRIV_H

#include "model/model.h"
#include "tools/trace_derived/trace_derived.h"
#include "tools/chrome_trace/trace_visibility.h"
#include "tools/common/json_stream.h"
#include "tools/trace_tiles/trace_meta.h"
#include "util/mem.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NO_EVENT UINT64_MAX
#define FLOW_ID_MASK ((1ull << 56) - 1)
#define FLOW_IN 1u
#define FLOW_OUT 2u
/* Category bits of a launch flow: the context type the reference gives
 * correlation_id flows (ContextType kGpuLaunch). */
#define FLOW_CATEGORY_LAUNCH 10u

/* What an event's metadata makes it, decided once per metadata. */
enum {
    META_PLAIN,
    META_HIDDEN,        /* internal: never written */
    META_TF_OP,         /* a TF op run (name "scope/op:Type"): gets is_eager */
    META_START_REGION,  /* ThreadpoolListener::StartRegion */
    META_STOP_REGION,   /* ThreadpoolListener::StopRegion */
    META_EAGER_EXECUTE, /* EagerExecute: its is_func says op-by-op or function */
    META_IMPLICIT_ROOT  /* a root the reference does not rename (FunctionRun, ...) */
};

/* Appends value to a growable array (arr, n, cap), growing it by half;
 * aborts when memory runs out. */
#define PV__CHROME_PUSH(arr, n, cap, value)                                             \
    do {                                                                                \
        if ((n) == (cap)) {                                                             \
            (cap) = (cap) ? (cap) + (cap) / 2 + 1 : 16;                                 \
            (arr) = pv_xrealloc((arr), (cap) * sizeof *(arr));                          \
        }                                                                               \
        (arr)[(n)++] = (value);                                                         \
    } while (0)

/* A line's display id as XProf's trace writes it: a 32-bit resource id,
 * so TensorFlow's derived lines (display id 0xDEADBEEF..) stay positive. */
static inline uint64_t pv__chrome_tid(int64_t display_id)
{
    return (uint32_t)display_id;
}

/* The zoom levels of a model's candidates (trace_vis_levels.c). */
#define PV__LEVEL_NONE 0xffu
typedef struct pv__chrome_levels {
    const uint8_t *event;        /* per model event: its level, or PV__LEVEL_NONE */
    size_t n_regions;
    const uint64_t *region_stop; /* the StopRegion events closing a Region, ascending */
    const uint8_t *region_level;
    size_t n_derived;
    const uint8_t *derived;      /* derived lines' events, line after line */
} pv__chrome_levels;

/* Args the reference's grouping adds to one event. */
typedef struct derived_args {
    const char *step_name; /* NULL: none */
    int is_eager;          /* -1: none, else 0 or 1 */
    uint64_t flow;         /* 0: none, else the encoded flow (FORMATS §3.4) */
} derived_args;

typedef struct chrome_ctx {
    const pv_model *m;
    pv__jw *w;
    bool native;             /* trace_viewer@: native arg types */
    uint8_t *meta_kind;      /* per metadata: META_* */
    bool derive;             /* the file had no group ids: add the grouping's args */
    const uint64_t *group_root; /* per m->groups index: its root event, or NO_EVENT
                                   (pv_trace_group_roots) */
    uint32_t s_step_name, s_is_eager, s_is_func, s_corr, s_pt, s_p, s_ct, s_c, s_flow;
    uint64_t n_written;
    uint64_t n_counter_samples; /* trace_viewer@: samples of _counters_ lines written */
    pv_stat *own;            /* own stats of event own_ev (one event cached: */
    size_t n_own, cap_own;   /*   flows and args read them several times) */
    uint64_t own_ev;
    pv_trace_vis_span span;  /* the window: events overlapping it are candidates */
    pv_trace_vis *vis;       /* decimation (trace_viewer@ with a resolution), or NULL */
    pv__chrome_levels levels; /* with vis: every candidate's zoom level */
    unsigned read_to;        /* with vis: the finest level the request reads */
    const size_t *dv_first;  /* with vis: each derived line's first derived level */
    bool collecting;         /* first pass: hand candidates to vis, write nothing */
    bool skip;               /* a walk may start at the window (no state carried) */
    uint32_t vis_row;        /* vis row of the track being walked */
    size_t n_candidates;     /* second pass: candidates seen so far */
    const pv_trace_derived *dv; /* the lines XProf derives, and its stream numbering */
} chrome_ctx;

/* ---- trace_chrome_args.c ------------------------------------------------ */

/* Event e's own stats, in c->own (one event cached); returns how many. */
size_t pv__chrome_own_stats(chrome_ctx *c, uint64_t e);
/* Stats the reference keeps out of the trace viewer's args. */
bool pv__chrome_internal_stat(const char *name);
/* ps as exact microseconds. */
void pv__chrome_write_us(pv__jw *w, int64_t ps);
/* A stat's value: native JSON types (trace_viewer@) or strings. */
void pv__chrome_write_stat_value(pv__jw *w, const pv_model *m, const pv_stat *s, bool native);
/* A ",name:value" integer arg. */
void pv__chrome_write_int_arg(chrome_ctx *c, bool *first, const char *name, uint64_t v);
/* An event's args object, the reference's derived ones included. */
void pv__chrome_write_args(chrome_ctx *c, uint64_t e, const derived_args *d);
/* An integer among the event's own stats. */
bool pv__chrome_own_int(chrome_ctx *c, uint64_t e, uint32_t name, uint64_t *v);
/* The flow the reference gives an event, 0 when none. */
uint64_t pv__chrome_event_flow(chrome_ctx *c, uint64_t e, bool host);
/* The event's own flow stat, 0 when none. */
uint64_t pv__chrome_flow_stat(const chrome_ctx *c, uint64_t e);
/* The string id of the event's step_name stat, 0 when none. */
uint32_t pv__chrome_step_name_id(const chrome_ctx *c, uint64_t e);
/* An EagerExecute whose is_func says op-by-op. */
bool pv__chrome_is_op_by_op(const chrome_ctx *c, uint64_t e);
/* A counter sample's values (written when w is set); the first's name. */
const char *pv__chrome_counter_values(chrome_ctx *c, uint64_t e, pv__jw *w);

/* ---- trace_chrome.c ------------------------------------------------------- */

/* The step name the reference writes on root event e, or NULL (with
 * c->derive). */
const char *pv__chrome_root_step_name(const chrome_ctx *c, uint64_t e);

/* ---- trace_vis_levels.c --------------------------------------------------- */

/* The levels of c's model for a writer walking meta's processes and dv's
 * derived lines: made on first use and kept with the model (model/memo.h).
 * Returns 0 with out filled; *owned is NULL, or a block to free() after
 * use when the model could not keep it. Returns an error with err filled
 * when the kept levels do not fit the model. */
int pv__chrome_levels_get(chrome_ctx *c, const pv_trace_meta *meta, const pv_trace_derived *dv,
                          pv__chrome_levels *out, uint8_t **owned, pv_error *err);
/* The level of the Region a StopRegion event closes, or PV__LEVEL_NONE. */
unsigned pv__chrome_region_level(const pv__chrome_levels *l, uint64_t stop_event);

#endif
