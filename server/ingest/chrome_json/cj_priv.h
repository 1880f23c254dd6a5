/* cj_priv: what the files of ingest/chrome_json/ share (STYLE rule 1: pv__
 * names). Nothing outside the folder includes this header.
 *
 * The decoder is a tokenizer and a parser, as Perfetto splits its JSON
 * importer:
 *
 *   cj_text.c    JSON pieces: white space, strings (unescaped), numbers,
 *                exact decimal times, skipping and minifying a value
 *   cj_read.c    the reader: the bytes (a mapped file, inflated gzip, or
 *                chunks a test hands in) as one sliding window, the
 *                container (object or bare array) walked as a small state
 *                machine, and each event object read whole into a
 *                pv__cj_event; an event cut by the window's end is read
 *                again from its first byte once more bytes are in
 *   cj_model.c   the parser: a pv__cj_event into the builder (processes
 *                as planes, threads as tracks, phases X B E i C M s t f)
 *   cj_args.c    an event's args as stats, and the well-known stats that
 *                Kineto's kernel and [memory] args give
 *   cj_roles.c   what PyTorch's profiler says an event is: the model's
 *                roles of its metadata, the args that link events
 *   cj_finish.c  what needs the whole file: B without E, flow binding,
 *                plane and track names, top-level metadata, warnings
 *   cj_pipe.c    the reader on a second thread, handing the parser its
 *                events in batches (a big mapped file, two cores)
 *   cj_map.c     a hash map of two 64-bit words to an index
 *   chrome_json.c the sniffer, gzip'd text, the format table's entries
 *
 * Strings read from the window point into it until the window moves (the
 * next refill), or into the reader's scratch blocks (unescaped strings,
 * minified values), which stay put until the next event starts: a
 * pv__cj_event is valid until the reader reads the next one. */
#ifndef PV_INGEST_CHROME_JSON_CJ_PRIV_H
#define PV_INGEST_CHROME_JSON_CJ_PRIV_H

#include "ingest/ingest.h"
#include "model/builder.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- limits ---------------------------------------------------------------- */

#define PV__CJ_MAX_EVENT_BYTES ((size_t)64 << 20) /* one event object, args included */
#define PV__CJ_MAX_TOP_VALUE ((size_t)1 << 20)    /* a top-level value kept as metadata */
#define PV__CJ_MAX_ARGS 65536u                    /* args of one event */
#define PV__CJ_MAX_DEPTH 512u                     /* nesting of arrays and objects */
#define PV__CJ_MAX_EVENTS ((uint64_t)UINT32_MAX - 1)

/* Results of the reader's steps besides 0 and the negative PV_E* codes. */
#define PV__CJ_MORE 1   /* the window ends inside the piece: read it again with more bytes */
#define PV__CJ_STOP 2   /* the parser on the other thread gave up (cj_pipe.c) */

/* Events between two looks at the progress and the memory cap. */
#define PV__CJ_PROGRESS_EVENTS 65536u

/* ---- pieces of JSON (cj_text.c) ----------------------------------------- */

typedef struct pv__cj_str {
    const char *s;          /* not NUL-terminated */
    size_t len;             /* bytes */
} pv__cj_str;

/* A time or duration as written: whole microseconds and the picoseconds
 * past them (0 .. 999999, also for negative times: -1.5 us is -2 us and
 * 500000 ps), exact to the picosecond. */
typedef struct pv__cj_time {
    int64_t us;
    int32_t ps;
    bool set;
} pv__cj_time;

typedef enum pv__cj_kind {
    PV__CJ_NONE,
    PV__CJ_STRING,          /* text: the unescaped bytes */
    PV__CJ_INT,             /* n.i */
    PV__CJ_UINT,            /* n.u: above INT64_MAX */
    PV__CJ_DOUBLE,          /* n.d: a fraction, an exponent, or too big for 64 bits */
    PV__CJ_TRUE,
    PV__CJ_FALSE,
    PV__CJ_NULL,
    PV__CJ_RAW              /* an object or array: text is its minified JSON */
} pv__cj_kind;

typedef struct pv__cj_value {
    uint8_t kind;           /* pv__cj_kind */
    pv__cj_str text;        /* STRING, RAW; and a number's own text */
    union {
        int64_t i;
        uint64_t u;
        double d;
    } n;
} pv__cj_value;

/* Scratch blocks that never move while an event is read: unescaped
 * strings and minified values point into them. Reset per event. */
typedef struct pv__cj_scratch {
    char **blocks;
    size_t *caps;
    size_t n_blocks;
    size_t cur;             /* block being filled */
    size_t used;            /* bytes used of blocks[cur] */
} pv__cj_scratch;

void pv__cj_scratch_reset(pv__cj_scratch *s);
void pv__cj_scratch_fini(pv__cj_scratch *s);
/* Room for n bytes that stays put until the next reset. Aborts when
 * memory runs out; n is bounded by the event's size. */
char *pv__cj_scratch_alloc(pv__cj_scratch *s, size_t n);

/* The reader's cursor over a window [p, end); at says what a failing step
 * points at. Every step below returns 0 and moves *p past the piece,
 * PV__CJ_MORE when the window ends inside it (*p unchanged), or
 * PV_EFORMAT with *why set to a short reason and *p at the bad byte. */
typedef struct pv__cj_cur {
    const uint8_t *p;
    const uint8_t *end;
    bool eof;               /* no bytes follow end */
    const char *why;        /* reason of the last PV_EFORMAT */
    pv__cj_scratch *scratch;
} pv__cj_cur;

/* Skips white space. Returns 0, or PV__CJ_MORE when only white space is
 * left before the window's end. Most pieces are followed by none or one
 * byte of it, so that case stays inline. */
int pv__cj_ws_run(pv__cj_cur *c);
static inline int pv__cj_ws(pv__cj_cur *c)
{
    const uint8_t *p = c->p;
    if (p < c->end && *p > ' ')
        return 0;
    if (c->end - p >= 2 && *p == ' ' && p[1] > ' ') {
        c->p = p + 1;
        return 0;
    }
    return pv__cj_ws_run(c);
}
/* A string starting at *p (a '"'). */
int pv__cj_string(pv__cj_cur *c, pv__cj_str *out);
/* Any value starting at *p, into out (objects and arrays minified). */
int pv__cj_parse_value(pv__cj_cur *c, pv__cj_value *out);
/* Skips any value starting at *p. */
int pv__cj_skip(pv__cj_cur *c);
/* A number or a string holding one, as an exact time in microseconds. A
 * value past +-2^63 microseconds is PV_EFORMAT. */
int pv__cj_time_value(pv__cj_cur *c, pv__cj_time *out);
/* The exact time of a number's text (digits, '.', exponent). False when
 * the text is no number or out of range. */
bool pv__cj_time_parse(const char *s, size_t len, pv__cj_time *out);

/* A string's text as a whole number when it is one in canonical decimal
 * ("42", "-7"; not "042", "+1", "4.0"): Kineto writes one thread id both
 * as 25738 and "25738". */
bool pv__cj_decimal_id(pv__cj_str s, int64_t *out);

/* ---- events (cj_read.c) ------------------------------------------------- */

typedef struct pv__cj_arg {
    pv__cj_str key;
    pv__cj_value v;
} pv__cj_arg;

/* pid, tid, id: a number or a string (a canonical decimal string is the
 * number). */
typedef struct pv__cj_id {
    bool set;
    bool is_str;
    int64_t num;
    pv__cj_str str;
} pv__cj_id;

typedef struct pv__cj_event {
    uint64_t at;            /* byte offset of its '{' in the JSON text */
    char ph;                /* phase letter; 0 when absent */
    pv__cj_str name, cat;
    pv__cj_time ts;
    pv__cj_time dur;
    pv__cj_id pid, tid, id, bind_id;
    char scope;             /* "s" of an instant: 'g', 'p', 't' or 0 */
    bool bp_enclosing;      /* "bp": "e" */
    bool flow_in, flow_out; /* flow v2 on a complete event */
    const pv__cj_arg *args; /* the top-level members of "args" */
    size_t n_args;
} pv__cj_event;

/* ---- a map of (a, b) to an index (cj_map.c) ------------------------------ */

typedef struct pv__cj_map {
    uint64_t *keys;         /* two words per slot */
    uint32_t *vals;         /* UINT32_MAX: empty */
    size_t n, n_slots;
} pv__cj_map;

void pv__cj_map_fini(pv__cj_map *m);
/* The value of (a, b), or UINT32_MAX. */
uint32_t pv__cj_map_get(const pv__cj_map *m, uint64_t a, uint64_t b);
/* Sets (a, b) to v (v != UINT32_MAX). Aborts when memory runs out. */
void pv__cj_map_put(pv__cj_map *m, uint64_t a, uint64_t b, uint32_t v);

/* ---- the parser (cj_model.c, cj_finish.c) --------------------------------- */

#define PV__CJ_NONE UINT32_MAX

#define PV__CJ_RECENT 4

/* A process: a pid, which becomes a plane at its first event. */
typedef struct pv__cj_proc {
    uint32_t plane;         /* PV__CJ_NONE until an event needs it */
    bool pid_is_str;
    int64_t pid;            /* the number, or the string's id when pid_is_str */
    uint32_t name;          /* process_name (string id); 0 none */
    uint32_t labels;        /* process_labels */
    bool has_sort;
    int64_t sort_index;     /* process_sort_index */
    uint64_t n_events;
    uint32_t counters;      /* its counters' thread, PV__CJ_NONE none */
} pv__cj_proc;

/* A slice a flow event may bind to. */
typedef struct pv__cj_slice {
    int64_t start_ps;
    int64_t dur_ps;
    uint64_t ev;            /* builder handle */
} pv__cj_slice;

/* A flow event (s, t, f), bound at the end to a slice of its thread. */
typedef struct pv__cj_flowpt {
    uint8_t dir;            /* FORMATS.md §3.4: 1 in, 2 out, 3 in-out */
    bool next;              /* binds to the next slice (an f without bp "e") */
    int64_t ts_ps;
    uint64_t flow;          /* the flow's number, one per (cat, id) */
} pv__cj_flowpt;

/* A thread of a process: a tid, which becomes a track at its first event. */
typedef struct pv__cj_thread {
    uint32_t proc;
    uint32_t track;         /* PV__CJ_NONE until an event needs it */
    bool tid_is_str;
    int64_t tid;            /* the number, or the string's id when tid_is_str */
    uint32_t name;          /* thread_name; 0 none */
    bool has_sort;
    int64_t sort_index;
    uint32_t open_top;      /* innermost B without its E, PV__CJ_NONE none */
    pv__cj_slice *slices;   /* its slices, kept apart per thread for the flows */
    size_t n_slices, cap_slices;
    pv__cj_flowpt *flows;   /* its flow events */
    size_t n_flows, cap_flows;
} pv__cj_thread;

/* A B event waiting for its E. */
typedef struct pv__cj_open {
    uint32_t thread;
    uint32_t meta;
    uint32_t below;         /* the open B it nests in, PV__CJ_NONE none */
    int64_t start_ps;
    pv_stat *stats;         /* its args, malloc'd */
    size_t n_stats;
} pv__cj_open;

/* A remembered flow lookup. */
typedef struct pv__cj_flow_slot {
    uint64_t a, b;          /* the flow map's key */
    uint32_t flow;
    bool set;
} pv__cj_flow_slot;
#define PV__CJ_FLOW_RECENT 8u

/* A remembered metadata lookup. */
typedef struct pv__cj_meta_slot {
    uint64_t a, b;          /* the metadata map's key */
    uint32_t meta;
    bool set;
} pv__cj_meta_slot;
#define PV__CJ_META_CACHE 256u

/* A device's highest "Total Allocated" of Kineto's [memory] events. */
typedef struct pv__cj_mem_peak {
    uint32_t device;        /* string id of its allocator name */
    int64_t peak;           /* bytes */
} pv__cj_mem_peak;

/* A member of the top-level object, kept until the end. */
typedef struct pv__cj_top {
    uint32_t key;           /* string id */
    pv_stat stat;           /* named key; objects and arrays as their JSON text */
    uint32_t raw;           /* string id of an object's or array's text, else 0 */
} pv__cj_top;

typedef struct pv__cj_model {
    pv_model_builder *b;
    const char *path;
    bool have_base;
    int64_t base_us;        /* whole microseconds of the first timed event */
    bool any_time;
    int64_t min_ps, max_ps; /* earliest start, latest end, relative to base_us */
    pv__cj_map proc_map, thread_map, meta_map, flow_map;
    pv__cj_proc *procs;
    size_t n_procs, cap_procs;
    pv__cj_thread *threads;
    size_t n_threads, cap_threads;
    uint32_t last_thread;   /* the thread of the previous event */
    uint32_t last_proc;     /* the process proc_of found last, PV__CJ_NONE none */
    uint32_t recent[PV__CJ_RECENT]; /* the threads of the last events, newest first */
    uint32_t n_metas;
    pv__cj_open *opens;
    size_t n_opens, cap_opens;
    uint32_t free_open;     /* a free list through below */
    uint64_t n_slices, n_flows; /* of all threads */
    uint64_t n_flow_ids;
    pv__cj_flow_slot flow_recent[PV__CJ_FLOW_RECENT]; /* the last flows looked up */
    size_t flow_recent_at;  /* the slot the next one takes */
    pv__cj_top *tops;
    size_t n_tops, cap_tops;
    pv_stat *tmp;           /* stats of an E or C event being made */
    size_t cap_tmp;
    uint32_t s_cat, s_flow, s_value, s_kernel_details, s_true, s_false, s_null;
    uint32_t s_mem_alloc, s_mem_free;
    uint32_t s_mem[6];      /* a [memory] event's stat names, interned at first use */
    double mem_dev_type, mem_dev_id; /* the device of the last [memory] event */
    uint32_t mem_dev;       /* its allocator's name; 0 none yet */
    pv__cj_meta_slot meta_cache[PV__CJ_META_CACHE];
    pv__cj_mem_peak *mem_peaks; /* the highest Total Allocated so far, per device */
    size_t n_mem_peaks, cap_mem_peaks;
    int64_t base_ns;        /* baseTimeNanoseconds; 0 none */
    bool cut;
    bool cut_trailing;      /* what was left is text after the trace's end */
    uint64_t cut_at;
    const char *cut_what;
    uint64_t n_events, n_no_time, n_far, n_neg_dur, n_unmatched_end, n_unended;
    uint64_t n_unbound_flows;
    uint64_t n_phase[128];  /* events of phases not shown, by letter */
} pv__cj_model;

/* The string id of s in the builder (0 for ""). */
uint32_t pv__cj_intern(pv__cj_model *m, pv__cj_str s);
/* A parser writing into b; path names the file in errors. */
pv__cj_model *pv__cj_model_new(pv_model_builder *b, const char *path);
void pv__cj_model_free(pv__cj_model *m);
/* Adds one event. Returns 0, or PV_ETOOBIG (past an event cap) with err. */
int pv__cj_model_event(pv__cj_model *m, const pv__cj_event *ev, pv_error *err);
/* A top-level member of the trace object other than traceEvents. */
void pv__cj_model_top(pv__cj_model *m, pv__cj_str key, const pv__cj_value *v);
/* Notes that the text was cut off (truncated, or a gzip stream that ends
 * early) after `at` bytes, or that text follows the trace's end there
 * (trailing), so a warning says so. */
void pv__cj_model_cut(pv__cj_model *m, uint64_t at, const char *what, bool trailing);
/* Closes the innermost open B of thread at end_ps, adding E's n stats
 * after B's (cj_model.c). */
void pv__cj_close(pv__cj_model *m, uint32_t thread, int64_t end_ps, const pv_stat *e_stats,
                  size_t n);
/* Finishes what needs the whole file (cj_finish.c). Cannot fail. */
void pv__cj_model_finish(pv__cj_model *m);
/* Whether the model can take more events: the builder's memory bound
 * against cap bytes. */
bool pv__cj_model_fits(const pv__cj_model *m, uint64_t cap_bytes);

/* ---- args (cj_args.c) ------------------------------------------------------ */

/* The arg of ev called key, or NULL. */
const pv__cj_arg *pv__cj_arg_find(const pv__cj_event *ev, const char *key);
/* a's number in *out; false when a is NULL or no number. */
bool pv__cj_arg_number(const pv__cj_arg *a, double *out);
/* The stats of ev's args into out (room for n_args + 1): one per arg,
 * and a kernel's kernel_details. */
size_t pv__cj_args_stats(pv__cj_model *m, const pv__cj_event *ev, pv_stat *out);
/* Whether ev is named [memory] (Kineto's memory events). */
bool pv__cj_is_memory(const pv__cj_event *ev);
/* The well-known memory stats of [memory] event ev into out (room for
 * 6); *free says it releases memory. Returns how many. */
size_t pv__cj_memory_stats(pv__cj_model *m, const pv__cj_event *ev, pv_stat *out, bool *free);

/* ---- roles (cj_roles.c) ------------------------------------------------------ */

/* The roles byte (model.h's PV_ROLE_*) of the metadata (name, display,
 * cat), string ids; 0 when PyTorch's profiler says nothing of it. */
unsigned pv__cj_roles(const pv__cj_model *m, uint32_t name, uint32_t display, uint32_t cat);
/* Names to the builder the args that link PyTorch's events (the model's
 * launch links). */
void pv__cj_link_stats(pv__cj_model *m);

/* ---- the reader (cj_read.c) ------------------------------------------------ */

/* Where the JSON text comes from when it is not one mapped window: fills
 * dst with up to cap bytes and returns how many (0 at the end), or a
 * negative PV_E* code with err set. *cut is set when the text ends
 * early (a gzip stream without its end). */
typedef int64_t (*pv__cj_read_fn)(void *ctx, uint8_t *dst, size_t cap, bool *cut,
                                  pv_error *err);

/* After the events up to text offset at are parsed: reports the progress
 * (and lets the mapped pages below go) and checks the model against its
 * cap. Returns 0, or PV_ETOOBIG with err. */
int pv__cj_progress(const pv_ingest_src *src, const pv__cj_model *m, uint64_t model_cap,
                    uint64_t at, bool whole_text, pv_error *err);

/* Decodes the JSON text of one trace into b: either data[0..len) whole
 * (read is NULL) or what read yields. src gives the path for errors and
 * the progress (may have no data when read is set). */
int pv__cj_decode_text(const pv_ingest_src *src, const uint8_t *data, size_t len,
                       pv__cj_read_fn read, void *ctx, uint64_t model_cap,
                       pv_model_builder *b, pv_error *err);

/* ---- the reader on a second thread (cj_pipe.c) ------------------------------- */

typedef struct pv__cj_pipe pv__cj_pipe;

/* Whether a text of len bytes is read on a second thread: big enough, and
 * the process may run on two cores or more. */
bool pv__cj_pipe_worth(size_t len);
/* Reads the whole text through p, on the reader thread (ctx its state):
 * returns 0 or a PV_E* code with *err set. */
typedef int (*pv__cj_produce_fn)(void *ctx, pv__cj_pipe *p, pv_error *err);
/* Runs produce on a new thread and parses what it hands over into m on
 * this one. Returns 0, the first failure in text order (err set), or
 * PV__CJ_MORE when no thread could start (nothing read: decode on this
 * thread instead). */
int pv__cj_pipe_run(const pv_ingest_src *src, pv__cj_model *m, uint64_t model_cap,
                    pv__cj_produce_fn produce, void *ctx, pv_error *err);
/* For the reader: the scratch its next piece allocates into (changes
 * after each pv__cj_pipe_event). */
pv__cj_scratch *pv__cj_pipe_scratch(pv__cj_pipe *p);
/* Hands over ev (args copied; its strings must stay put: in the mapped
 * text or the scratch above), which ends at text offset end. Returns 0,
 * or 1 when the parser stopped: reading should stop too. */
int pv__cj_pipe_event(pv__cj_pipe *p, const pv__cj_event *ev, uint64_t end);
/* A top-level member (key copied), and the text's cut, in their order. */
void pv__cj_pipe_top(pv__cj_pipe *p, pv__cj_str key, const pv__cj_value *v);
void pv__cj_pipe_cut(pv__cj_pipe *p, uint64_t at, const char *what, bool trailing);

#endif
