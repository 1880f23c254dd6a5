/* details_parse: the text values of well-known stats (FORMATS.md §3.3):
 * kernel_details, memcpy_details, and a memcpy's kind from its event name.
 * Pure string parsing for extras.c; a value that does not parse leaves the
 * fields as they were. */
#include "model/model_priv.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static uint32_t sat_u32(unsigned long long v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Parses "X,Y,Z" (missing parts stay as they were). */
static void parse_dim3(const char *v, uint32_t out[3])
{
    for (int i = 0; i < 3 && *v != '\0' && *v != ' '; i++) {
        char *end;
        out[i] = sat_u32(strtoull(v, &end, 10));
        if (*end != ',')
            break;
        v = end + 1;
    }
}

/* kernel_details: space-separated key:value pairs (FORMATS.md §3.3);
 * older TF writes a combined "shm". */
void pv__parse_kernel_details(const char *s, pv_kernel_details *k)
{
    while (*s != '\0') {
        while (*s == ' ')
            s++;
        const char *colon = strchr(s, ':');
        const char *space = strchr(s, ' ');
        if (colon == NULL || (space != NULL && space < colon))
            break;
        size_t klen = (size_t)(colon - s);
        const char *v = colon + 1;
        if (klen == 4 && strncmp(s, "regs", 4) == 0)
            k->registers_per_thread = sat_u32(strtoull(v, NULL, 10));
        else if ((klen == 13 && strncmp(s, "static_shared", 13) == 0) ||
                 (klen == 3 && strncmp(s, "shm", 3) == 0))
            k->static_shmem_bytes = sat_u32(strtoull(v, NULL, 10));
        else if (klen == 14 && strncmp(s, "dynamic_shared", 14) == 0)
            k->dynamic_shmem_bytes = sat_u32(strtoull(v, NULL, 10));
        else if (klen == 4 && strncmp(s, "grid", 4) == 0)
            parse_dim3(v, k->grid);
        else if (klen == 5 && strncmp(s, "block", 5) == 0)
            parse_dim3(v, k->block);
        else if (klen == 7 && strncmp(s, "occ_pct", 7) == 0)
            k->occupancy_pct = strtod(v, NULL);
        if (space == NULL)
            break;
        s = space + 1;
    }
}

static bool is_host_kind(const char *v, size_t n)
{
    return (n == 4 && strncasecmp(v, "host", 4) == 0) ||
           (n == 6 && strncasecmp(v, "pinned", 6) == 0) ||
           (n == 8 && strncasecmp(v, "pageable", 8) == 0);
}

/* memcpy_details: "kind_src:K kind_dst:K size:N ..." or "kind:K size:N". */
void pv__parse_memcpy_details(const char *s, pv_event_extra *x)
{
    int src = -1, dst = -1;   /* 1 host, 0 device */
    while (*s != '\0') {
        while (*s == ' ')
            s++;
        const char *colon = strchr(s, ':');
        if (colon == NULL)
            break;
        const char *v = colon + 1;
        size_t vlen = strcspn(v, " ");
        size_t klen = (size_t)(colon - s);
        if (klen == 4 && strncmp(s, "size", 4) == 0)
            x->memcpy_bytes = strtoull(v, NULL, 10);
        else if (klen == 8 && strncmp(s, "kind_src", 8) == 0)
            src = is_host_kind(v, vlen) ? 1 : (vlen == 6 && strncasecmp(v, "device", 6) == 0 ? 0 : -1);
        else if (klen == 8 && strncmp(s, "kind_dst", 8) == 0)
            dst = is_host_kind(v, vlen) ? 1 : (vlen == 6 && strncasecmp(v, "device", 6) == 0 ? 0 : -1);
        s = v + vlen;
    }
    if (x->memcpy_kind == PV_MEMCPY_NONE || x->memcpy_kind == PV_MEMCPY_OTHER) {
        if (src == 1 && dst == 0)
            x->memcpy_kind = PV_MEMCPY_H2D;
        else if (src == 0 && dst == 1)
            x->memcpy_kind = PV_MEMCPY_D2H;
        else if (src == 0 && dst == 0)
            x->memcpy_kind = PV_MEMCPY_D2D;
        else if (src == 1 && dst == 1)
            x->memcpy_kind = PV_MEMCPY_H2H;
        else
            x->memcpy_kind = PV_MEMCPY_OTHER;
    }
}

/* Memcpy kind from an event name (MemcpyH2D, MEMCPYHToD, ...), or NONE. */
uint32_t pv__memcpy_kind_of_name(const char *name)
{
    static const struct {
        const char *prefix;
        uint32_t kind;
    } names[] = {
        {"memcpyh2d", PV_MEMCPY_H2D}, {"memcpyhtod", PV_MEMCPY_H2D},
        {"memcpyd2h", PV_MEMCPY_D2H}, {"memcpydtoh", PV_MEMCPY_D2H},
        {"memcpyd2d", PV_MEMCPY_D2D}, {"memcpydtod", PV_MEMCPY_D2D},
        {"memcpyh2h", PV_MEMCPY_H2H}, {"memcpyhtoh", PV_MEMCPY_H2H},
        {"memcpyp2p", PV_MEMCPY_D2D},
    };
    /* every metadata's name comes here once: most are no memcpy at all */
    if ((name[0] | 0x20) != 'm' || strncasecmp(name, "memcpy", 6) != 0)
        return PV_MEMCPY_NONE;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strncasecmp(name, names[i].prefix, strlen(names[i].prefix)) == 0)
            return names[i].kind;
    }
    return PV_MEMCPY_NONE;
}
