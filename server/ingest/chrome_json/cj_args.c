/* cj_args: an event's args as its stats, and the well-known stats
 * (FORMATS.md §3.3) that Kineto's args give, so tools read a PyTorch
 * trace like an XSpace:
 *
 *   args        one stat each: numbers as I64/U64/F64, strings,
 *               true/false/null as text, objects and arrays as their
 *               minified JSON text
 *   a kernel    its launch args (grid, block, registers per thread,
 *               shared memory, est. achieved occupancy %) also give the
 *               kernel_details stat, so kernel_stats reads Kineto kernels
 *               like XSpace ones
 *   [memory]    an instant named so gets the well-known memory stats of an
 *               allocator named after its device ("GPU 0", "CPU"), so the
 *               memory profile and the trace viewer's memory counters
 *               read it like TensorFlow's (cj_model.c names it
 *               MemoryAllocation / MemoryDeallocation by the sign of its
 *               "Bytes", shown as [memory]) */
#include "ingest/chrome_json/cj_priv.h"
#include "util/decimal.h"
#include "util/mem.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- args ------------------------------------------------------------------------- */

static pv_stat arg_stat(pv__cj_model *m, const pv__cj_arg *a)
{
    pv_stat s = {pv__cj_intern(m, a->key), PV_STAT_STR, {.str = 0}};
    switch (a->v.kind) {
    case PV__CJ_INT:
        s.type = PV_STAT_I64;
        s.v.i64 = a->v.n.i;
        break;
    case PV__CJ_UINT:
        s.type = PV_STAT_U64;
        s.v.u64 = a->v.n.u;
        break;
    case PV__CJ_DOUBLE:
        s.type = PV_STAT_F64;
        s.v.f64 = a->v.n.d;
        break;
    case PV__CJ_TRUE: s.v.str = m->s_true; break;
    case PV__CJ_FALSE: s.v.str = m->s_false; break;
    case PV__CJ_NULL: s.v.str = m->s_null; break;
    default: s.v.str = pv__cj_intern(m, a->v.text); break;
    }
    return s;
}

const pv__cj_arg *pv__cj_arg_find(const pv__cj_event *ev, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < ev->n_args; i++)
        if (ev->args[i].key.len == n && memcmp(ev->args[i].key.s, key, n) == 0)
            return &ev->args[i];
    return NULL;
}

bool pv__cj_arg_number(const pv__cj_arg *a, double *out)
{
    if (a == NULL)
        return false;
    switch (a->v.kind) {
    case PV__CJ_INT: *out = (double)a->v.n.i; return true;
    case PV__CJ_UINT: *out = (double)a->v.n.u; return true;
    case PV__CJ_DOUBLE: *out = a->v.n.d; return true;
    default: return false;
    }
}

static uint32_t clamp_u32(double v)
{
    return v <= 0 ? 0 : v >= 4294967295.0 ? UINT32_MAX : (uint32_t)v;
}

/* Three whole numbers of a minified array "[x,y,z]". */
static bool dim3(const pv__cj_arg *a, uint32_t out[3])
{
    if (a == NULL || a->v.kind != PV__CJ_RAW || a->v.text.len < 2 || a->v.text.s[0] != '[')
        return false;
    const char *p = a->v.text.s + 1, *end = a->v.text.s + a->v.text.len;
    for (int i = 0; i < 3; i++) {
        uint64_t v = 0;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9' && v < UINT32_MAX)
            v = v * 10 + (uint64_t)(*p++ - '0');
        if (p == d || p >= end)
            return false;
        out[i] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
        p++;
    }
    return true;
}

static bool cat_is_kernel(const pv__cj_event *ev)
{
    return ev->cat.len == 6 && strncasecmp(ev->cat.s, "kernel", 6) == 0;
}

/* kernel_details from a Kineto kernel's launch args, or false when the
 * event is no kernel. Kineto's "shared memory" is static and dynamic
 * together; it goes to static_shared. A kernel of cat "kernel" without
 * them (ROCm traces) gets zeros, so it still counts as a kernel. */
static bool kernel_details(pv__cj_model *m, const pv__cj_event *ev, pv_stat *out)
{
    uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
    if ((!dim3(pv__cj_arg_find(ev, "grid"), grid) || !dim3(pv__cj_arg_find(ev, "block"), block)) &&
        !cat_is_kernel(ev))
        return false;
    double regs = 0, shm = 0, occ = -1;
    pv__cj_arg_number(pv__cj_arg_find(ev, "registers per thread"), &regs);
    pv__cj_arg_number(pv__cj_arg_find(ev, "shared memory"), &shm);
    if (!pv__cj_arg_number(pv__cj_arg_find(ev, "est. achieved occupancy %"), &occ) &&
        pv__cj_arg_number(pv__cj_arg_find(ev, "est. achieved occupancy"), &occ))
        occ *= 100;
    /* a stream launches the same kernel many times: the text is written
     * digit by digit, not through printf, once per kernel event */
    char buf[256];
    size_t n = 0;
    const uint32_t nums[8] = {clamp_u32(regs), clamp_u32(shm), grid[0], grid[1], grid[2],
                              block[0], block[1], block[2]};
    static const char *const keys[8] = {"regs:", " static_shared:", "", ",", ",", " block:",
                                        ",", ","};
    for (int i = 0; i < 8; i++) {
        size_t k = strlen(keys[i]);
        memcpy(buf + n, keys[i], k);
        n += k;
        if (i == 2) {
            memcpy(buf + n, " dynamic_shared:0 grid:", 23);
            n += 23;
        }
        char digits[PV_I64_TEXT_MAX];
        char *d = pv_fmt_i64(digits + sizeof digits, nums[i]);
        memcpy(buf + n, d, (size_t)(digits + sizeof digits - d));
        n += (size_t)(digits + sizeof digits - d);
    }
    if (occ >= 0)
        n += (size_t)snprintf(buf + n, sizeof buf - n, " occ_pct:%.17g", occ);
    *out = (pv_stat){m->s_kernel_details, PV_STAT_STR, {.str = pv_builder_intern(m->b, buf, n)}};
    return true;
}

/* The stats of ev's args into out (room for n_args + 1). */
size_t pv__cj_args_stats(pv__cj_model *m, const pv__cj_event *ev, pv_stat *out)
{
    size_t k = 0;
    for (size_t i = 0; i < ev->n_args; i++)
        out[k++] = arg_stat(m, &ev->args[i]);
    if (kernel_details(m, ev, &out[k]))
        k++;
    return k;
}

/* ---- Kineto's [memory] events --------------------------------------------------- */

/* The allocator of a [memory] event ("Device Type" 0 the CPU, 1 a CUDA
 * device; Kineto's own numbering), as the host and device planes are
 * named. */
static uint32_t memory_device_name(pv__cj_model *m, double type, double id)
{
    char buf[64];
    int n;
    if (type == 0)
        n = snprintf(buf, sizeof buf, "CPU");
    else if (type == 1)
        n = snprintf(buf, sizeof buf, "GPU %.0f", id);
    else
        n = snprintf(buf, sizeof buf, "Device %.0f:%.0f", type, id);
    return pv_builder_intern(m->b, buf, (size_t)n);
}

static uint32_t memory_device(pv__cj_model *m, const pv__cj_event *ev)
{
    double type = 0, id = -1;
    pv__cj_arg_number(pv__cj_arg_find(ev, "Device Type"), &type);
    pv__cj_arg_number(pv__cj_arg_find(ev, "Device Id"), &id);
    /* one device's events follow each other: its name is made once (the
     * bits compared, so -0 keeps its own name) */
    if (m->mem_dev != 0 && memcmp(&m->mem_dev_type, &type, sizeof type) == 0 &&
        memcmp(&m->mem_dev_id, &id, sizeof id) == 0)
        return m->mem_dev;
    m->mem_dev_type = type;
    m->mem_dev_id = id;
    m->mem_dev = memory_device_name(m, type, id);
    return m->mem_dev;
}

/* The string id of the well-known stat name, interned at its first use
 * and remembered in *slot (0 until then: id 0 is ""). */
static uint32_t known(pv__cj_model *m, uint32_t *slot, const char *name)
{
    if (*slot == 0)
        *slot = pv_builder_intern_cstr(m->b, name);
    return *slot;
}

static pv_stat int_stat(pv__cj_model *m, uint32_t *slot, const char *name, int64_t v)
{
    return (pv_stat){known(m, slot, name), PV_STAT_I64, {.i64 = v}};
}

/* The well-known stats (FORMATS.md §3.3) of a Kineto [memory] event, so
 * the model reads it as the memory event of an allocator named after its
 * device: bytes_allocated its "Total Allocated", requested and
 * allocation bytes its "Bytes", addr its "Addr", peak_bytes_in_use the
 * device's highest "Total Allocated" so far. *free says a negative
 * "Bytes" (a release). Writes up to 6 stats. */
size_t pv__cj_memory_stats(pv__cj_model *m, const pv__cj_event *ev, pv_stat *out, bool *free)
{
    double bytes = 0, total = 0, addr = 0;
    pv__cj_arg_number(pv__cj_arg_find(ev, "Bytes"), &bytes);
    bool has_total = pv__cj_arg_number(pv__cj_arg_find(ev, "Total Allocated"), &total);
    pv__cj_arg_number(pv__cj_arg_find(ev, "Addr"), &addr);
    *free = bytes < 0;
    uint32_t dev = memory_device(m, ev);
    size_t k = 0;
    out[k++] = (pv_stat){known(m, &m->s_mem[0], "allocator_name"), PV_STAT_STR, {.str = dev}};
    int64_t size = (int64_t)(bytes < 0 ? -bytes : bytes);
    out[k++] = int_stat(m, &m->s_mem[1], "requested_bytes", size);
    out[k++] = int_stat(m, &m->s_mem[2], "allocation_bytes", size);
    out[k++] = (pv_stat){known(m, &m->s_mem[3], "addr"), PV_STAT_U64,
                         {.u64 = addr > 0 && addr < 1.8e19 ? (uint64_t)addr : 0}};
    if (has_total) {
        size_t d = 0;
        while (d < m->n_mem_peaks && m->mem_peaks[d].device != dev)
            d++;
        if (d == m->n_mem_peaks) {
            if (m->n_mem_peaks == m->cap_mem_peaks) {
                m->cap_mem_peaks = m->cap_mem_peaks ? 2 * m->cap_mem_peaks : 4;
                m->mem_peaks = pv_xrealloc(m->mem_peaks, m->cap_mem_peaks * sizeof *m->mem_peaks);
            }
            m->mem_peaks[m->n_mem_peaks++] = (pv__cj_mem_peak){dev, 0};
        }
        int64_t t = (int64_t)total;
        if (t > m->mem_peaks[d].peak)
            m->mem_peaks[d].peak = t;
        out[k++] = int_stat(m, &m->s_mem[4], "bytes_allocated", t);
        out[k++] = int_stat(m, &m->s_mem[5], "peak_bytes_in_use", m->mem_peaks[d].peak);
    }
    return k;
}

bool pv__cj_is_memory(const pv__cj_event *ev)
{
    return ev->name.len == 8 && memcmp(ev->name.s, "[memory]", 8) == 0;
}
