/* plane_stat: a plane's own stats (the device capabilities a GPU or TPU
 * plane states: clock, cores, bandwidth, vendor, peak rates), looked up by
 * name, and the device's name built from them. Pure; cannot fail. */
#ifndef PV_TOOLS_COMMON_PLANE_STAT_H
#define PV_TOOLS_COMMON_PLANE_STAT_H

#include "model/model.h"

#include <stdbool.h>

/* The numeric stat of plane p named name (a string id, 0 matches
 * nothing) as a double in *v; false when p has none. */
bool pv_plane_stat_num(const pv_model *m, const pv_plane *p, uint32_t name, double *v);

/* The string stat of plane p named name, or NULL. Borrowed from m. */
const char *pv_plane_stat_str(const pv_model *m, const pv_plane *p, uint32_t name);

/* The device's name as the reference's run environment gives it: a TPU's
 * device_type_string ("TPU v6 Lite"), a GPU's model from its vendor and
 * compute capability ("AMD GPU - gfx942", "Nvidia GPU (Volta)"), "GPU"
 * for an unknown vendor; the first device plane speaks for all. NULL
 * without a GPU or TPU plane. A literal or borrowed from m. */
const char *pv_device_type_name(const pv_model *m);

#endif
