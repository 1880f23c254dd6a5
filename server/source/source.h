/* source: where a profile's bytes come from, behind one interface, so that
 * what is cached, tagged and decoded is named by the source's identity and
 * never by how it is stored. A file below the logdir is the first kind
 * (file_source.c); a profile captured from a running job, held in memory,
 * is the next; a test may bring its own.
 *
 * A source's identity is one line of text: two sources with the same
 * line have the same bytes, and any change to the bytes gives a new line.
 * Every process that shares a cache folder must make the same line for the
 * same bytes (a replica, a precompute shard), so nothing local to one
 * process or one mount goes into it.
 *
 * Threads: a kind's functions are pure of process state and may run on any
 * thread; a source is borrowed by whoever is given it. */
#ifndef PV_SOURCE_SOURCE_H
#define PV_SOURCE_SOURCE_H

#include "ingest/ingest.h"
#include "model/model.h"
#include "util/error.h"
#include "util/safe_open.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pv_source pv_source;

typedef struct pv_source_kind {
    const char *name;   /* "file", "capture", ... */
    /* Writes src's identity line into buf (cut to cap). Cannot fail. */
    void (*ident)(const pv_source *src, char *buf, size_t cap);
    /* A descriptor open for reading on src's bytes, which the caller
     * closes; -1 with err saying why. NULL for a kind whose bytes are not
     * in a file (held in memory): it is read only through model, and a
     * model saved under its identity needs no check that it is still
     * there. */
    int (*open)(const pv_source *src, pv_error *err);
    /* Decodes src into a new model (ingest/ingest.h), counting its bytes on
     * progress (may be NULL). */
    int (*model)(const pv_source *src, pv_progress *progress, pv_model **out, pv_error *err);
} pv_source_kind;

struct pv_source {
    const pv_source_kind *kind;
    /* A file's absolute path; for other kinds a name for messages. Errors
     * name it. */
    const char *path;
    /* The folder a file is opened beneath without following links
     * (util/safe_open.h); NULL: opened as it is named (files given on the
     * command line). Unused by other kinds. */
    const char *root;
    /* A file's identity when it was scanned; size_bytes is the size of
     * the bytes for every kind (what a decode reads). */
    pv_file_id id;
    const void *ctx;    /* the kind's own: a capture's bytes; NULL for files */
};

/* The longest identity line kept; longer ones are cut. */
#define PV_SOURCE_IDENT_MAX 4200

/* src's identity line (src->kind->ident) into buf; returns buf. */
const char *pv_source_ident(const pv_source *src, char *buf, size_t cap);
/* True when a and b have the same identity line. */
bool pv_source_same(const pv_source *a, const pv_source *b);

/* ---- files ----------------------------------------------------------------- */

extern const pv_source_kind pv_source_file_kind;

/* The file at path, below root (may be NULL), as the scan saw it. */
pv_source pv_source_file(const char *path, const char *root, pv_file_id id);
/* A file's path below its root (the whole path when root is NULL or not a
 * prefix of it): what its identity line starts with. Borrowed from src. */
const char *pv_source_rel_path(const pv_source *src);

#endif
