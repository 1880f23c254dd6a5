/* tool: what every tool the /data route answers is — one descriptor.
 *
 * A descriptor says everything the rest of the program needs to know about
 * a tool: its name and the names it is also asked by, which of
 * TensorFlow's per-tool files answer it, the parameters it takes (a typed
 * table, declared once: it drives reading, validation, the cache key and
 * /api/tools), how it computes from one host's model or from several, how
 * its result is written as JSON and as CSV, and its parts (the trace
 * viewer's tiles, events, search...). server/tools/registry.c lists the
 * descriptors; server/answer/ is their one caller (docs/ARCHITECTURE.md,
 * "Add a tool").
 *
 * Call order for one answer: the answer layer reads the declared
 * parameters and checks them against their rules, then make_query turns
 * their values into the tool's query (a tool never sees a request, so it
 * cannot read a parameter its table does not declare), then compute
 * (models in, a result in the arena out; NULL compute means the writer
 * works from the models directly), then write_json or write_csv. A result
 * read from one of TensorFlow's per-tool .pb files (ingest/formats.h) goes
 * to the same writers with no models.
 *
 * Every function here is pure: no I/O, no clock, no globals, so an answer
 * is a function of the models and the query and may be cached. */
#ifndef PV_TOOLS_TOOL_H
#define PV_TOOLS_TOOL_H

#include "model/model.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- parameters, declared once ------------------------------------------------
 * The rules of each kind (server/answer/param_read.h applies them):
 *
 *   UINT       decimal digits only, from min to max; def when absent
 *   SWITCH     "0", "1", "false" or "true"; def (0 or 1) when absent
 *   CHOICE     one of choices; the index def when absent
 *   NUMBER     a finite decimal number in [lo, hi]; absent stays absent
 *   TEXT       UTF-8 text without NUL bytes; absent stays absent
 *   UINT_LIST  whole numbers of at most max, separated by commas, at most
 *              max_items of them
 *
 * A required parameter that is absent is refused. */
typedef enum pv_param_kind {
    PV_PARAM_UINT,
    PV_PARAM_SWITCH,
    PV_PARAM_CHOICE,
    PV_PARAM_NUMBER,
    PV_PARAM_TEXT,
    PV_PARAM_UINT_LIST
} pv_param_kind;

typedef struct pv_param_decl {
    const char *name;
    pv_param_kind kind;
    const char *about;            /* what it changes, for people (/api/tools) */
    uint64_t def;                 /* UINT, SWITCH, CHOICE: the value when absent */
    uint64_t min;                 /* UINT: the smallest value */
    uint64_t max;                 /* UINT, UINT_LIST: the largest value */
    const char *const *choices;   /* CHOICE: NULL-terminated words */
    double lo, hi;                /* NUMBER: the range */
    size_t max_items;             /* UINT_LIST: the longest list */
    bool required;                /* absent is refused */
} pv_param_decl;

/* One parameter's value as read: present or not, and what it is. */
typedef struct pv_param_value {
    bool present;
    uint64_t u;                   /* UINT, SWITCH (0/1), CHOICE (the index); def when absent */
    double x;                     /* NUMBER */
    const char *text;             /* TEXT; NULL when absent */
    const uint64_t *items;        /* UINT_LIST */
    size_t n_items;
} pv_param_value;

/* The values of a table's parameters, in the table's order. */
typedef struct pv_param_values {
    const pv_param_decl *decls;
    const pv_param_value *v;
    size_t n;
} pv_param_values;

/* Parameter i of its table, checked to be of kind k: a tool asks by the
 * index of its own table, so it can only ever read what it declared. */
static inline const pv_param_value *pv_param_at(const pv_param_values *p, size_t i,
                                                pv_param_kind k)
{
    assert(i < p->n && p->decls[i].kind == k);
    (void)k;
    return &p->v[i];
}
static inline uint64_t pv_param_u(const pv_param_values *p, size_t i)
{
    assert(i < p->n && (p->decls[i].kind == PV_PARAM_UINT || p->decls[i].kind == PV_PARAM_CHOICE));
    return p->v[i].u;
}
static inline bool pv_param_on(const pv_param_values *p, size_t i)
{
    return pv_param_at(p, i, PV_PARAM_SWITCH)->u != 0;
}
static inline const char *pv_param_text_of(const pv_param_values *p, size_t i)
{
    return pv_param_at(p, i, PV_PARAM_TEXT)->text;
}

/* The table of a descriptor: params and n_params from one array. */
#define PV_PARAM_TABLE(decls) .params = (decls), .n_params = sizeof(decls) / sizeof((decls)[0])

/* ---- input ------------------------------------------------------------------ */

/* The models a tool computes from, one per host, with each host's name (a
 * host's processes are named after it in a trace). n is 1 for one host,
 * more for ALL_HOSTS and the trace viewer's hosts= list, and 0 when the
 * result came from a per-tool file. */
typedef struct pv_tool_input {
    const pv_model *const *models;
    const char *const *hosts;
    size_t n;
} pv_tool_input;

/* ---- parts ----------------------------------------------------------------------
 * A tool may answer more than its one answer: the trace viewer's track
 * list, tiles, events, search and box aggregates are parts of its
 * descriptor, each with its own parameters and its own keeping and sending
 * rules, answered by the same owner as every answer. A part answers from
 * one host's profile. */

struct pv_trace_index;

typedef struct pv_part_input {
    const pv_model *m;
    const struct pv_trace_index *trace; /* the model's trace index (needs_trace), else NULL */
    const char *source_tag;             /* 16 hex digits naming the source's bytes */
} pv_part_input;

typedef struct pv_tool_part {
    const char *name;             /* "tile": asked as api/trace/tile */
    const pv_param_decl *params;
    size_t n_params;
    size_t query_bytes;
    /* As the tool's: the query from the parameters' values. NULL: none. */
    int (*make_query)(const pv_param_values *v, void *q, pv_error *err);
    /* Appends the part's answer for q to out; scratch from a. */
    int (*write)(const pv_part_input *in, const void *q, pv_arena *a, pv_buf *out,
                 pv_error *err);
    /* The media type of the answer for q; NULL: application/json. */
    const char *(*content_type)(const void *q);
    bool needs_trace;             /* answers from the trace index (waits for it) */
    bool immutable;               /* never changes for its key: kept by clients a year */
    bool tag_from_key;            /* its tag is known before it is made (a hash of the
                                     key), so a revalidation makes nothing */
    bool heavy;                   /* takes a slot for expensive answers */
    /* The gzip level it is compressed at as it is made for q (len its
     * bytes), or -1 for none: sent as made. NULL: left to the transport. */
    int (*gzip_level)(const void *q, size_t len);
    /* Whether the answer for q is kept in memory beside the model's trace
     * index, for the next request. NULL: never. */
    bool (*kept_beside)(const void *q);
} pv_tool_part;

#define PV_PART_TABLE(list) .parts = (list), .n_parts = sizeof(list) / sizeof((list)[0])

/* ---- the descriptor ----------------------------------------------------------- */

typedef struct pv_tool {
    const char *name;             /* as run_tools lists it, e.g. "overview_page" */
    const char *title;            /* for people, e.g. "Overview" */
    const char *const *aliases;   /* NULL-terminated other names it is asked by; may be NULL */
    /* A tool whose per-tool files also answer this one when no model does
     * (trace_viewer@ is answered by TensorFlow's trace_viewer files). */
    const char *files_of;
    /* A tool that, when a host offers it too, hides this one from
     * run_tools (TensorBoard lists trace_viewer@ instead of trace_viewer). */
    const char *hidden_by;
    /* The parameters the answer depends on, and nothing else: each enters
     * the cache key of an answer, with its value as read (PV_PARAM_TABLE). */
    const pv_param_decl *params;
    size_t n_params;
    size_t query_bytes;           /* size of the tool's query struct */
    /* Fills q (query_bytes, zeroed) from the values of params, already
     * checked against their rules. Returns 0, or PV_EINVAL with err saying
     * what is wrong (a combination the rules cannot say). NULL: the query
     * is all zeros. */
    int (*make_query)(const pv_param_values *v, void *q, pv_error *err);
    /* Computes from in->n >= 1 models (more than one only when
     * combines_hosts) into *result, allocated from a. NULL when write_json
     * reads the models itself. */
    int (*compute)(const pv_tool_input *in, const void *q, pv_arena *a, void **result,
                   pv_error *err);
    bool combines_hosts;          /* answers ALL_HOSTS */
    unsigned needs;               /* PV_PROFILE_* a profile must hold to answer (the
                                     index probes for them, or the profile's format
                                     reports them), as XProf lists the tool; a
                                     framework's own views need its roles */
    unsigned listed_when;         /* PV_PROFILE_* a profile must hold for run_tools to
                                     list the tool, as XProf does; it answers anyway
                                     (XProf answers kernel_stats on a CPU profile) */
    bool lists_all_hosts;         /* hosts?tag= lists the ALL_HOSTS pseudo host */
    bool opens_on_all_hosts;      /* the view compares hosts, so the page opens it on
                                     ALL_HOSTS, not on the first host (torch-tb-profiler's
                                     distributed view shows every worker) */
    bool reads_hosts_list;        /* hosts=h1,h2 names the hosts (XProf's trace viewer) */
    bool per_module;              /* answers for the HLO module a request names (no
                                     answer without one): precompute skips it */
    /* Appends the answer to out. result is compute's (or a per-tool file's)
     * result; in has the models it came from (n 0 for a file). NULL when
     * only per-tool files answer the tool. */
    int (*write_json)(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                      pv_error *err);
    /* The media type of write_json's answer for query q when it is not
     * JSON (a module's text); NULL: always application/json. */
    const char *(*content_type)(const void *q);
    /* The same as CSV, or NULL when the tool has no table to export. */
    int (*write_csv)(const pv_tool_input *in, const void *q, const void *result, pv_buf *out,
                     pv_error *err);
    const pv_tool_part *parts;    /* PV_PART_TABLE */
    size_t n_parts;
} pv_tool;


/* True when models can answer t (otherwise only per-tool files do). */
static inline bool pv_tool_from_models(const pv_tool *t)
{
    return t->write_json != NULL;
}

#endif
