/* answer: the one owner of "the answer". Whoever wants a tool's answer —
 * the /data and /data_csv routes, the trace viewer's routes, a run's
 * figures for summary, compare, history and /metrics, precompute — asks
 * here, and only here is a tool computed, a per-tool file read or
 * converted, or the disk cache consulted:
 *
 *   offer     what answers the tool on each host asked (index/offer.c): the
 *             host's profile, decoded into a model, or one of TensorFlow's
 *             per-tool files;
 *   query     the tool's (or part's) declared parameters read and checked
 *             (param_read.h), then its query made from their values;
 *   key       the tool, the part, the form, the values and every source's
 *             identity (source/source.h): equal keys, equal answers;
 *   kept?     the disk cache (cache/kept_answer.h), or for a part kept
 *             beside its model, the memory the model's trace index holds;
 *   made      from the models, held from the store for the call (sources'
 *             loads shared and bounded there), or from the per-tool file;
 *   kept      and tagged: the tag is a hash of the body (or, for a part
 *             whose tag comes from its key, of the key), so an answer sent
 *             fresh and the same answer sent from the cache carry one tag.
 *
 * How it is sent (its lifetime, its tag, whether it is compressed) is
 * decided here too, from what the part declares, so the HTTP layer only
 * copies it into a response. Threads: any; state lives in the context's
 * parts, which carry their own locks. */
#ifndef PV_ANSWER_ANSWER_H
#define PV_ANSWER_ANSWER_H

#include "answer/param_read.h"
#include "cache/disk.h"
#include "cache/store.h"
#include "index/index.h"
#include "tools/tool.h"
#include "util/limit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What answers are made with. Borrowed; every part may be shared by
 * threads. */
typedef struct pv_answer_ctx {
    pv_model_store *models;        /* the models, loaded once per source */
    pv_disk_cache *disk;           /* answers kept across restarts; off: kept nowhere */
    pv_limit *heavy;               /* slots for expensive answers; NULL: no limit */
} pv_answer_ctx;

typedef enum pv_answer_form { PV_ANSWER_JSON, PV_ANSWER_CSV } pv_answer_form;

/* What is asked. */
typedef struct pv_ask {
    const pv_tool *tool;
    const pv_tool_part *part;      /* one of tool's parts, or NULL for its answer */
    pv_answer_form form;
    const char *run;               /* for messages */
    const char *root;              /* the folder the hosts' files are below (NULL: opened
                                      as named) */
    const pv_host *const *hosts;   /* n_hosts >= 1 */
    size_t n_hosts;
    /* The hosts combined as ALL_HOSTS (one key for every such request),
     * rather than a list the request named (hosts=). */
    bool all_hosts;
    const pv_params *params;       /* the request's parameters; NULL: none */
    /* How the answer is wanted: the client's If-None-Match (NULL: none),
     * whether it takes gzip, and whether a body is wanted at all (false:
     * only made and kept, as precompute asks). */
    const char *if_none_match;
    bool accepts_gzip;
    bool no_body;
} pv_ask;

/* The answer, ready to send. */
typedef struct pv_answer {
    const char *content_type;
    char *body;                    /* malloc'd, len bytes; or */
    bool from_fd;                  /* len bytes of fd from offset (a kept answer, a file) */
    int fd;
    uint64_t offset;
    size_t len;
    bool gzip;                     /* the body is gzip-encoded */
    uint64_t plain_bytes;          /* a gzip body's plain length; 0: unknown */
    char tag[24];                  /* its strong tag; "" when the sender hashes the body */
    /* The client holds it already: no body; tag_gz says which of the
     * tag's two forms (plain, gzip'd) it named. */
    bool not_modified;
    bool tag_gz;
    bool immutable;                /* kept by clients a year; else revalidated */
    const char *filename;          /* a CSV's download name; NULL otherwise */
    /* What happened, for /metrics and precompute. */
    bool looked_up;                /* the disk cache was asked for it */
    bool was_kept;                 /* found there */
    size_t kept_bytes;             /* bytes kept now, 0 when none */
} pv_answer;

/* Answers ask into *out (zeroed first; release it with pv_answer_release).
 * Returns 0, or an error code with err filled and *title (may be NULL) set
 * to a few words naming the kind of refusal ("unknown host", "bad
 * parameter", "missing parameter", "no CSV", "not implemented", "busy"...).
 * PV_EBUSY: no slot for an expensive answer came free in time. Scratch
 * memory from a. */
int pv_answer_get(const pv_answer_ctx *ctx, const pv_ask *ask, pv_arena *a, pv_answer *out,
                  const char **title, pv_error *err);

/* Frees what *ans holds (its body, its descriptor) and zeroes it. */
void pv_answer_release(pv_answer *ans);

/* The key (cache/disk.h) of the answer ask names, its parameters read and
 * checked as pv_answer_get reads them, strings from a. Returns 0, or the
 * error pv_answer_get would give. For tests and tools that list keys. */
int pv_answer_key_of(const pv_ask *ask, pv_arena *a, pv_cache_key *out, const char **title,
                     pv_error *err);

/* Whether If-None-Match (a list of quoted tags, or "*") names tag. */
bool pv_answer_tag_listed(const char *if_none_match, const char *tag);

#endif
