/* pb_arena: unpacking a protobuf with the code protoc-c generates
 * (proto/), every allocation taken from a pv_arena under a byte cap.
 *
 * protobuf-c allocates one struct per message, one array per repeated
 * field and a copy of every string, bytes value and unknown field. Its
 * need grows with the input, but not by a fixed factor: a two-byte empty
 * message inside a repeated field costs a whole struct (up to ~200
 * bytes here). A crafted file of tiny messages could make it ask for a
 * hundred times its size, so every allocation is counted against a cap
 * fixed before unpacking, pv_pb_arena_cap(input bytes), and the unpack
 * fails cleanly past it: PV_ETOOBIG, never an abort or gigabytes. Real
 * files need at most a few times their size (docs/ingest.md).
 *
 * The unpacked messages live as long as the arena; nothing is freed one
 * by one (protobuf-c's free calls are ignored). Several unpacks may share
 * one pv_pb_arena, and then one cap (an Any's value unpacked after its
 * envelope). Only server/ingest/ includes this header (STYLE rule 10).
 * Not thread-safe: one pv_pb_arena per unpacking thread. */
#ifndef PV_INGEST_PB_ARENA_H
#define PV_INGEST_PB_ARENA_H

#include "util/arena.h"
#include "util/error.h"

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cap for an input of n bytes: PV_PB_BYTES_PER_INPUT_BYTE * n plus
 * PV_PB_SLACK_BYTES for the fixed costs of a small file. */
#define PV_PB_BYTES_PER_INPUT_BYTE 16u
#define PV_PB_SLACK_BYTES ((size_t)1 << 20)

typedef struct pv_pb_arena {
    ProtobufCAllocator alloc;  /* handed to protobuf-c; allocator_data is this */
    pv_arena *arena;           /* borrowed; holds everything unpacked */
    size_t used_bytes;         /* taken so far, rounded up as the arena rounds */
    size_t cap_bytes;          /* the most used_bytes may reach */
    bool refused;              /* an allocation went past the cap */
} pv_pb_arena;

/* ---- set-up ---------------------------------------------------------------- */

/* The cap for unpacking an input of input_bytes (saturates). Cannot fail. */
size_t pv_pb_arena_cap(size_t input_bytes);

/* Prepares pa to allocate from a (borrowed; must outlive every message
 * unpacked through pa) up to cap_bytes in all. Allocates nothing. */
void pv_pb_arena_init(pv_pb_arena *pa, pv_arena *a, size_t cap_bytes);

/* ---- unpacking --------------------------------------------------------------- */

/* Unpacks data[0 .. len) as a message of desc into pa and points *out at
 * it (cast it to desc's C type). Returns 0, or with *out NULL and err set
 * naming path: PV_ETOOBIG when the unpack would pass pa's cap, else
 * PV_EFORMAT (the bytes are not that message: truncated, a field of the
 * wrong wire type, a length past the end, a group). What a failed unpack
 * allocated stays in the arena. */
int pv_pb_unpack(pv_pb_arena *pa, const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                 size_t len, const char *path, ProtobufCMessage **out, pv_error *err);

#endif
