/* tool: what every tool the /data route answers is — one descriptor.
 *
 * A descriptor says everything the rest of the program needs to know about
 * a tool: its name and the names it is also asked by, which of
 * TensorFlow's per-tool files answer it, which query parameters it reads
 * (and so which enter the cache key of its answer), how it reads them,
 * how it computes from one host's model or from several, and how its
 * result is written as JSON and as CSV. server/tools/registry.c lists the
 * descriptors; run_tools, hosts, data, data_csv, the aliases, the disk
 * cache key and the page's tool list all read that one list
 * (docs/ARCHITECTURE.md, "Add a tool").
 *
 * Call order for one answer: read_query (from the request's parameters
 * through a getter, so no tool sees HTTP), then compute (models in, a
 * result in the request's arena out; NULL compute means the writer works
 * from the models directly), then write_json or write_csv. A result read
 * from one of TensorFlow's per-tool .pb files (ingest/formats.h) goes to
 * the same writers with no models.
 *
 * Every function here is pure: no I/O, no clock, no globals, so an answer
 * is a function of the models and the query and may be cached. */
#ifndef PV_TOOLS_TOOL_H
#define PV_TOOLS_TOOL_H

#include "model/model.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- query parameters ------------------------------------------------------ */

/* Where a tool reads its parameters from. get returns the value of the
 * parameter called name, or NULL when it is absent; it sets *bad (and
 * returns NULL) when the value is present but unusable (a NUL byte,
 * invalid UTF-8). */
typedef struct pv_params {
    const char *(*get)(void *ctx, const char *name, bool *bad);
    void *ctx;
} pv_params;

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
    /* NULL-terminated parameters the answer depends on, and nothing else:
     * only these enter the cache key of an answer. */
    const char *const *params;
    size_t query_bytes;           /* size of the tool's query struct */
    /* Fills q (query_bytes, zeroed) from p. Returns 0, or PV_EINVAL with
     * err saying which parameter is wrong and what it must be. */
    int (*read_query)(const pv_params *p, void *q, pv_error *err);
    /* Computes from in->n >= 1 models (more than one only when
     * combines_hosts) into *result, allocated from a. NULL when write_json
     * reads the models itself. */
    int (*compute)(const pv_tool_input *in, const void *q, pv_arena *a, void **result,
                   pv_error *err);
    bool combines_hosts;          /* answers ALL_HOSTS */
    unsigned needs;               /* PV_PROFILE_* a profile must hold to answer (the
                                     index probes for them), as XProf lists the tool */
    unsigned listed_when;         /* PV_PROFILE_* a profile must hold for run_tools to
                                     list the tool, as XProf does; it answers anyway
                                     (XProf answers kernel_stats on a CPU profile) */
    bool lists_all_hosts;         /* hosts?tag= lists the ALL_HOSTS pseudo host */
    bool opens_on_all_hosts;      /* the view compares hosts, so the page opens it on
                                     ALL_HOSTS, not on the first host (torch-tb-profiler's
                                     distributed view shows every worker) */
    bool reads_hosts_list;        /* hosts=h1,h2 names the hosts (XProf's trace viewer) */
    bool pytorch_only;            /* offered only by trace JSON profiles (PyTorch's views) */
    bool xspace_only;             /* not offered by trace JSON profiles: XProf's XLA tables,
                                     which have nothing to show for a PyTorch trace */
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
} pv_tool;

/* True when models can answer t (otherwise only per-tool files do). */
static inline bool pv_tool_from_models(const pv_tool *t)
{
    return t->write_json != NULL;
}

#endif
