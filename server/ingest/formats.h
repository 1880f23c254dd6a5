/* formats: the one table of the files profview reads, and what each is.
 *
 * A format is recognised by the end of a file's name (after the host name
 * and a dot, FORMATS.md §1.2–1.3) and has one of four roles:
 *
 *   PROFILE    a profile decoded into a model (XSpace, trace JSON); every
 *              tool that computes from models can answer from it;
 *   TOOL_FILE  one tool's answer TensorFlow wrote as JSON (or gzip'd JSON),
 *              served as it is;
 *   TOOL_PB    one tool's answer TensorFlow wrote as a protobuf, converted
 *              into that tool's result (ingest/tf_legacy/) and written by
 *              the tool's own writer;
 *   UNREAD     a tool's file profview recognises but cannot read yet (501).
 *
 * Each format lives in its own folder below ingest/ with its sniffing,
 * decoding and fuzz target (docs/ARCHITECTURE.md, "Add a format"); this
 * table only lists them. The table is static and immutable: any thread may
 * read it, and pointers into it are valid for the life of the program (the
 * index keeps them). */
#ifndef PV_INGEST_FORMATS_H
#define PV_INGEST_FORMATS_H

#include "ingest/ingest.h"
#include "util/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum pv_format_role {
    PV_FORMAT_PROFILE,
    PV_FORMAT_TOOL_FILE,
    PV_FORMAT_TOOL_PB,
    PV_FORMAT_UNREAD
} pv_format_role;

/* Converts the len bytes of the per-tool file at path into the tool's
 * result (the type the tool's compute makes), allocated from a. Returns 0,
 * or PV_EFORMAT / PV_ETOOBIG with err naming the file. */
typedef int (*pv_answer_decode_fn)(const uint8_t *data, size_t len, const char *path, pv_arena *a,
                                   void **result, pv_error *err);

typedef struct pv_format {
    const char *name;             /* for people and messages, e.g. "XSpace" */
    const char *suffix;           /* the file name's end, without the dot before it */
    pv_format_role role;
    const char *tool;             /* the tool a per-tool file answers; NULL for a profile */
    bool gzip;                    /* TOOL_FILE: gzip-compressed JSON */
    uint64_t max_bytes;           /* the largest file of this format read */
    /* PROFILE: whether these first bytes (at most PV_INGEST_SNIFF_BYTES) are
     * this format; pure. */
    bool (*sniff)(const uint8_t *data, size_t len);
    pv_decode_fn decode;          /* PROFILE */
    /* PROFILE: what the open file (size bytes) holds, PV_PROFILE_* of
     * model/model.h, read without loading it (the index asks, for
     * run_tools); NULL for a format that holds none of them. */
    unsigned (*probe)(int fd, uint64_t size);
    /* PROFILE: what every file of the format can hold, PV_PROFILE_*, which
     * the format reports instead of a probe reading it (its decoder sets
     * a trace JSON's roles; an XSpace's device ops are XLA's). The offer
     * counts them with the probe's. */
    unsigned caps;
    pv_answer_decode_fn answer;   /* TOOL_PB */
    /* PROFILE: a per-tool file of the same host made for a tool answers
     * that tool before this profile does (TensorFlow's legacy trace sits
     * beside the answers TensorFlow computed itself). */
    bool yields_to_tool_files;
    /* PROFILE: a text format, sniffed before the binary ones: its first
     * characters are distinctive, while a protobuf may start with any
     * byte ("\n{" is also an XSpace's first plane of 123 bytes). */
    bool text;
    /* PROFILE: also found outside plugins/profile/<session>/: any folder
     * of the logdir holding such a file is a run (PyTorch writes
     * <logdir>/<run>/<worker>.<timestamp>.pt.trace.json.gz). */
    bool any_folder;
} pv_format;

/* ---- lookups (cannot fail) ------------------------------------------------ */

/* The format of a file called name (no folder part), or NULL for a file
 * profview does not read: hidden files, the side files XProf writes
 * (.cached_tools.json, *.SSTABLE, op_stats.pb, ...), *.hlo_proto.pb. On a
 * match *host_len is the length of the host part (name[0 .. host_len)); a
 * per-tool file with no host part gets 0, a profile always needs one. */
const pv_format *pv_format_classify(const char *name, size_t *host_len);

/* The PROFILE format whose sniffer accepts these first bytes, or NULL. */
const pv_format *pv_format_sniff(const uint8_t *data, size_t len);

/* The position of f in the table: files of a host are kept in this order,
 * a profile first. */
size_t pv_format_rank(const pv_format *f);

/* What the file at path (size_bytes long) of format f holds, PV_PROFILE_*:
 * f's probe, a few small reads; 0 for a format without one or a file that
 * cannot be opened. */
unsigned pv_format_file_probe(const pv_format *f, const char *path, uint64_t size_bytes);

#endif
