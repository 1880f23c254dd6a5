/* gpu_time: one sweep over the start and end of every GPU activity, in
 * time order; between two edges, the set of types running (and whether
 * anything runs) says where that time goes. */
#include "tools/steps/gpu_time.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#define OTHER 8   /* busy, of no type */

typedef struct edge {
    int64_t t_ps;
    int type;     /* one of the three type bits, or OTHER */
    int step;     /* +1 at a start, -1 at an end */
} edge;

#define EDGE_BEFORE(a, b) ((a)->t_ps < (b)->t_ps)
PV_MERGE_SORT(sort_edges, edge, EDGE_BEFORE)

static bool starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int type_of(pv_event_role role, const char *name)
{
    const char *nccl = starts_with(name, "nccl") ? strstr(name + 4, "Kernel") : NULL;
    if (nccl != NULL)
        return PV_GPU_COMMUNICATION;
    if (role != PV_ROLE_KERNEL || starts_with(name, "Memcpy") ||
        starts_with(name, "Memset") || starts_with(name, "dma"))
        return PV_GPU_MEMORY;
    if (strstr(name, "Memcpy") != NULL || strstr(name, "Sync") != NULL)
        return OTHER;
    return PV_GPU_COMPUTATION;
}

void pv_gpu_time_of(const pv_model *m, pv_gpu_time *out)
{
    memset(out, 0, sizeof *out);
    if (!pv_model_has_roles(m))
        return;
    size_t n = 0;
    for (uint64_t e = 0; e < m->n_events; e++)
        n += pv_role_on_device(pv_model_event_role(m, e));
    edge *ed = pv_xmalloc((2 * n + 1) * sizeof *ed);
    size_t ne = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (uint64_t e = 0; e < m->n_events; e++) {
        pv_event_role role = pv_model_event_role(m, e);
        if (!pv_role_on_device(role))
            continue;
        int64_t b = m->ev_start_ps[e], f = b + m->ev_dur_ps[e];
        int type = type_of(role, pv_model_event_name(m, e));
        ed[ne++] = (edge){b, type, 1};
        ed[ne++] = (edge){f, type, -1};
        first = b < first ? b : first;
        last = f > last ? f : last;
    }
    sort_edges(ed, ne);
    int running[OTHER + 1] = {0};
    int64_t busy = 0;
    for (size_t i = 0; i < ne; i++) {
        if (i > 0 && ed[i].t_ps > ed[i - 1].t_ps) {
            int64_t dt = ed[i].t_ps - ed[i - 1].t_ps;
            unsigned set = (running[PV_GPU_COMPUTATION] > 0 ? PV_GPU_COMPUTATION : 0u) |
                           (running[PV_GPU_COMMUNICATION] > 0 ? PV_GPU_COMMUNICATION : 0u) |
                           (running[PV_GPU_MEMORY] > 0 ? PV_GPU_MEMORY : 0u);
            out->by_types_ps[set] += set != 0 ? dt : 0;
            busy += set != 0 || running[OTHER] > 0 ? dt : 0;
        }
        running[ed[i].type] += ed[i].step;
    }
    free(ed);
    out->by_types_ps[0] = 0;
    if (ne == 0)
        return;
    out->any = true;
    out->span_ps = last - first;
    out->idle_ps = out->span_ps - busy;
    for (unsigned set = 1; set < PV_GPU_TYPE_SETS; set++) {
        if (set & PV_GPU_COMPUTATION)
            out->computation_ps += out->by_types_ps[set];
        if (set & PV_GPU_COMMUNICATION)
            out->communication_ps += out->by_types_ps[set];
        if ((set & PV_GPU_COMMUNICATION) && (set & PV_GPU_COMPUTATION))
            out->overlap_ps += out->by_types_ps[set];
    }
    out->non_compute_ps = busy - out->computation_ps;
}

const char *pv_gpu_type_set_name(unsigned set)
{
    static const char *const names[PV_GPU_TYPE_SETS] = {
        "",
        "COMPUTATION",
        "COMMUNICATION",
        "COMPUTATION overlapping COMMUNICATION",
        "MEMORY",
        "COMPUTATION overlapping MEMORY",
        "COMMUNICATION overlapping MEMORY",
        "COMPUTATION overlapping COMMUNICATION overlapping MEMORY",
    };
    return set < PV_GPU_TYPE_SETS ? names[set] : "";
}
