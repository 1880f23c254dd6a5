/* plane_stat: lookups among a plane's own stats, and the device's name
 * (plane_stat.h). */
#include "tools/common/plane_stat.h"

#include <string.h>

bool pv_plane_stat_num(const pv_model *m, const pv_plane *p, uint32_t name, double *v)
{
    for (uint64_t i = p->first_stat; name != 0 && i < p->first_stat + p->n_stats; i++) {
        const pv_stat *s = &m->stats[i];
        if (s->name != name)
            continue;
        if (s->type == PV_STAT_I64)
            *v = (double)s->v.i64;
        else if (s->type == PV_STAT_U64)
            *v = (double)s->v.u64;
        else if (s->type == PV_STAT_F64)
            *v = s->v.f64;
        else
            continue;
        return true;
    }
    return false;
}

const char *pv_plane_stat_str(const pv_model *m, const pv_plane *p, uint32_t name)
{
    for (uint64_t i = p->first_stat; name != 0 && i < p->first_stat + p->n_stats; i++)
        if (m->stats[i].name == name && m->stats[i].type == PV_STAT_STR)
            return pv_model_str(m, m->stats[i].v.str);
    return NULL;
}

/* GPU model name the way the reference builds it from the plane's device
 * capabilities; NULL for an unknown vendor (the caller then says "GPU"). */
static const char *gpu_name(const char *vendor, int64_t major, int64_t minor)
{
    if (vendor != NULL && strcmp(vendor, "Nvidia") == 0) {
        switch (major) {
        case 2: return "Nvidia GPU (Fermi)";
        case 3: return "Nvidia GPU (Kepler)";
        case 5: return "Nvidia GPU (Maxwell)";
        case 6: return "Nvidia GPU (Pascal)";
        case 7: return minor < 5 ? "Nvidia GPU (Volta)" : "Nvidia GPU (Turing)";
        case 8: return minor < 9 ? "Nvidia GPU (Ampere)" : "Nvidia GPU (Ada Lovelace)";
        case 9: return "Nvidia GPU (Hopper)";
        case 10: return "Nvidia GPU (Blackwell)";
        default: return "Nvidia GPU";
        }
    }
    if (vendor != NULL && strcmp(vendor, "AMD") == 0) {
        /* Only pairs that name one architecture resolve to a gfx id. */
        if (major == 9 && minor == 4)
            return "AMD GPU - gfx942";
        if (major == 9 && minor == 5)
            return "AMD GPU - gfx950";
        switch (major) {
        case 9: return "AMD GPU - gfx-9XX series";
        case 10: return "AMD GPU - gfx-10XX series";
        case 11: return "AMD GPU - gfx-11XX series";
        default: return "AMD GPU";
        }
    }
    return NULL;
}

const char *pv_device_type_name(const pv_model *m)
{
    for (uint32_t i = 0; i < m->n_planes; i++) {
        const pv_plane *p = &m->planes[i];
        if (p->kind == PV_PLANE_TPU) {
            const char *s = pv_plane_stat_str(m, p, pv_model_str_find(m, "device_type_string"));
            return s != NULL && s[0] ? s : "TPU";
        }
        if (p->kind == PV_PLANE_GPU) {
            /* The first GPU plane speaks for all, as in the reference. */
            double major = 0, minor = 0;
            pv_plane_stat_num(m, p, pv_model_str_find(m, "compute_cap_major"), &major);
            pv_plane_stat_num(m, p, pv_model_str_find(m, "compute_cap_minor"), &minor);
            const char *name =
                gpu_name(pv_plane_stat_str(m, p, pv_model_str_find(m, "device_vendor")),
                         (int64_t)major, (int64_t)minor);
            return name != NULL ? name : "GPU";
        }
    }
    return NULL;
}
