/* trace_parts: the trace viewer's own queries as parts of its descriptor
 * (tools/tool.h, docs/trace_api.md): the track list (meta), a tile, one
 * event's details, a search over the whole trace, and the aggregate of a
 * box. Each answers from one host's model and its trace index; the answer
 * layer keeps, tags and sends them by the rules each part declares. */
#ifndef PV_TOOLS_TRACE_TILES_TRACE_PARTS_H
#define PV_TOOLS_TRACE_TILES_TRACE_PARTS_H

#include "tools/tool.h"

/* Tiles of levels below this are kept in memory beside the trace index as
 * they are served: the ones every viewer opens first. */
#define PV_TRACE_KEPT_TILE_LEVELS 11u

#define PV_TRACE_N_PARTS 5
extern const pv_tool_part pv_trace_parts[PV_TRACE_N_PARTS];

#endif
