/* trace_pyramid (shared inside tools/trace_tiles/ only, hence pv__): what a
 * pyramid holds, for the two files that make one: trace_tiles.c builds it
 * from a model, trace_file.c reads it back from the bytes the disk cache
 * keeps. */
#ifndef PV_TOOLS_TRACE_TILES_TRACE_PYRAMID_H
#define PV_TOOLS_TRACE_TILES_TRACE_PYRAMID_H

#include "tools/trace_tiles/trace_tiles.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Each depth's events, in blocks of consecutive positions, with what the
 * box rule needs to take a whole block in one step (trace_tiles.c). */
typedef struct blocks {
    uint64_t *first;      /* per track: index of its depth 0 in depth_base */
    uint64_t *depth_base; /* per (track, depth): first block id */
    int64_t *start;       /* per block: start of its first event */
    int64_t *end;         /* end of its last event */
    int64_t *busy;        /* sum of durations */
    int64_t *max_dur;
    int64_t *max_gap;     /* largest start - previous end inside the block */
    size_t n;
} blocks;

typedef struct plevel {
    uint64_t *ev_off;       /* n_tiles * n_tracks + 1 offsets into events */
    uint64_t *events;       /* wide events starting in the tile, by depth then start */
    uint64_t *box_off;      /* n_tiles * n_tracks + 1 offsets into boxes */
    pv_trace_box *boxes;
} plevel;

struct pv_trace_pyramid {
    pv_trace_geom geom;
    uint32_t n_tracks;
    uint32_t n_levels;      /* levels 0 .. n_levels-1 */
    plevel *levels;
    blocks blocks;          /* for the levels cut on demand */
    size_t bytes;
    bool borrowed;          /* the levels' and blocks' arrays point into bytes
                               read back (trace_file.c), not owned */
};

/* The blocks' places: per track its first depth, per depth its first
 * block, and their count. A function of m's depth index alone, so a
 * pyramid read back makes them again; the per-block arrays are left. */
void pv__blocks_layout(const pv_model *m, blocks *b);
/* values false: the per-block arrays are borrowed. */
void pv__blocks_free(blocks *b, bool values);
/* What p holds: its levels' and blocks' arrays (borrowed ones too). */
size_t pv__pyramid_bytes(const pv_model *m, const pv_trace_pyramid *p);

#endif
