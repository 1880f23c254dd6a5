/* kernel_stats: aggregation of GPU kernel events into per-configuration
 * rows (FORMATS.md §4.5).
 *
 * Two passes keep the per-event work small enough for profiles with tens
 * of millions of kernels: the hot loop keys rows only by integers (string
 * ids and launch parameters) in a hash table; afterwards the
 * few distinct rows get their op name parsed and TensorCore flags derived,
 * and rows that turn out equal under the reference's key (two `tf_op`
 * strings with the same op name) are merged. */
#include "tools/kernel_stats/kernel_stats.h"

#include "tools/common/hlo_names.h"
#include "tools/common/tf_op_name.h"
#include "util/hashtab.h"
#include "util/mem.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES ((size_t)1 << 31)

/* ---- predicates ----------------------------------------------------------- */

/* A Tensile (rocBLAS / hipBLASLt) kernel that runs on the matrix cores
 * names its MFMA instruction tile: "Cijk_..._MI16x16x16x1_...". */
static bool names_mfma_tile(const char *kernel_name)
{
    if (strncmp(kernel_name, "Cijk_", 5) != 0)
        return false;
    for (const char *p = strstr(kernel_name, "_MI"); p != NULL; p = strstr(p + 1, "_MI")) {
        const char *d = p + 3;
        while (*d >= '0' && *d <= '9')
            d++;
        if (d > p + 3 && *d == 'x')
            return true;
    }
    return false;
}

/* Whether name contains one of the n patterns. */
static bool names_any(const char *name, const char *const *patterns, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(name, patterns[i]) != NULL)
            return true;
    return false;
}

bool pv_kernel_name_uses_nvidia_tensor_core(const char *kernel_name)
{
    static const char *const patterns[] = {
        "16816", "c1688", "conv1x1", "conv2d_c1_k1", "dgrad_1x1_stride_2x2", "direct_group",
        "first_layer_wgrad_kernel", "h1688", "h884", "hmma", "i16832", "i8816", "s884", "s1688",
        "xmma_gemm", "xmma_implicit_gemm", "xmma_sparse_conv", "xmma_sparse_gemm",
        "xmma_warp_specialized_implicit_gemm",
    };
    return names_any(kernel_name, patterns, sizeof patterns / sizeof patterns[0]);
}

bool pv_kernel_name_uses_tensor_core(const char *kernel_name)
{
    /* Besides NVIDIA's, AMD's matrix-core kernels (mfma, wmma) and XLA's
     * GEMM fusions, which XLA emits with matrix instructions on both
     * vendors (XProf 2.24.2 marks them all). */
    static const char *const patterns[] = {"mfma", "wmma", "gemm_fusion"};
    return pv_kernel_name_uses_nvidia_tensor_core(kernel_name) ||
           names_any(kernel_name, patterns, sizeof patterns / sizeof patterns[0]) ||
           names_mfma_tile(kernel_name);
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static bool contains(const char *s, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, needle, n) == 0)
            return true;
    return false;
}

bool pv_kernel_op_tensor_core_eligible(const char *op, size_t len)
{
    static const char *const suffixes[] = {
        "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv3D",
        "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropFilter",
        "DepthwiseConv2dNativeBackpropInput", "/MatMul", "FusedMatMul", "/CudnnRNN", "XlaDot",
        "XlaDotV2", "dot_general", "conv_general_dilated",   /* JAX's (lax) */
    };
    static const char *const infixes[] = {
        "BatchMatMul", "CudnnRNNV", "CudnnRNNForward", "CudnnRNNBackprop",
    };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (ends_with(op, len, suffixes[i]))
            return true;
    for (size_t i = 0; i < sizeof infixes / sizeof infixes[0]; i++)
        if (contains(op, len, infixes[i]))
            return true;
    return false;
}

bool pv_kernel_einsum_tensor_core_eligible(const char *eq)
{
    const char *arrow = strstr(eq, "->");
    if (arrow == NULL || strstr(arrow + 2, "->") != NULL)
        return false;
    size_t commas = 0;
    for (const char *p = eq; p < arrow; p++)
        commas += *p == ',';
    return commas == 1;
}

/* ---- pass 1: integer-keyed aggregation ------------------------------------ */

typedef struct agg_key {
    uint32_t name;      /* kernel name string id (metadata name) */
    uint32_t op;        /* tf_op (or "level 0") string id; 0 none */
    uint32_t regs;
    uint32_t sshm;      /* bytes */
    uint32_t dshm;      /* bytes */
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t einsum;    /* 1: the event's equation is a two-input einsum */
    uint32_t hlo;       /* hlo_op string id when its program has an HLO proto; 0 none */
    uint32_t prog_lo;   /* program_id of an XLA kernel, low and high halves */
    uint32_t prog_hi;
    uint32_t launched;  /* LAUNCHED*: op is the name of the host op that launched it */
} agg_key;

/* A launched kernel's op, and whether its name is one that Tensor Cores
 * can run (which its name decides, so rows do not split by it). */
enum { LAUNCHED = 1, LAUNCHED_BY_TENSOR_CORE_OP = 2 };

typedef struct agg_entry {
    agg_key k;
    double occupancy_pct; /* first occurrence's; <0 when absent */
    uint64_t occurrences;
    uint64_t total_ns;
    uint64_t min_ns;
    uint64_t max_ns;
} agg_entry;

typedef struct agg_table {
    agg_entry *entries;  /* n used, cap allocated */
    size_t n;
    size_t cap;
    pv_hashtab index;    /* key_hash -> index into entries */
} agg_table;

/* Runs once per kernel event, so it is kept short: the words that tell
 * rows apart in practice (kernel, op, registers, shared memory, grid and
 * block x) each get a multiply; the rarely differing rest is folded in
 * with xors. table_get compares the full key either way. */
static uint64_t key_hash(const agg_key *k)
{
    uint64_t h = ((uint64_t)k->name << 32 | k->op) * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)k->regs << 32 | k->sshm) + (h >> 29);
    h *= 0xff51afd7ed558ccdull;
    h ^= ((uint64_t)k->grid[0] << 32 | k->block[0]) + (h >> 31);
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= ((uint64_t)k->grid[1] << 32 | k->grid[2]) ^ ((uint64_t)k->block[1] << 40) ^
         ((uint64_t)k->block[2] << 20) ^ ((uint64_t)k->dshm << 8) ^ k->einsum ^
         ((uint64_t)k->hlo << 24) ^ ((uint64_t)k->prog_lo << 16) ^ k->prog_hi;
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32);
}

/* The entry for k, created empty when new; NULL past MAX_ENTRIES. */
static agg_entry *table_get(agg_table *t, const agg_key *k)
{
    pv_hashtab_cursor c = pv_hashtab_probe(&t->index, key_hash(k));
    uint32_t i;
    while (pv_hashtab_next(&c, &i))
        if (memcmp(&t->entries[i].k, k, sizeof *k) == 0)
            return &t->entries[i];
    if (t->n >= MAX_ENTRIES - 1)
        return NULL;
    if (t->n == t->cap) {
        t->cap = t->cap == 0 ? 256 : t->cap * 2;
        t->entries = pv_xrealloc(t->entries, t->cap * sizeof *t->entries);
    }
    agg_entry *e = &t->entries[t->n];
    memset(e, 0, sizeof *e);
    e->k = *k;
    e->occupancy_pct = -1.0;
    pv_hashtab_insert(&t->index, &c, (uint32_t)t->n);
    t->n++;
    return e;
}

static void table_fini(agg_table *t)
{
    free(t->entries);
    pv_hashtab_fini(&t->index);
}

typedef struct stat_ids {
    uint32_t equation;   /* string id of "equation", 0 when never interned */
    uint32_t level0;     /* string id of "level 0" */
    uint32_t program_id; /* string id of "program_id" */
    const pv_hlo_names *hlo;
    bool launches;       /* the model links kernels to the ops that launched them */
} stat_ids;

/* The program id of an XLA event whose program has an HLO proto, or
 * false. */
static bool hlo_program(const pv_model *m, uint64_t ev, const stat_ids *ids, uint64_t *prog)
{
    if (ids->hlo->n_programs == 0 || ids->program_id == 0)
        return false;
    pv_stat s;
    if (!pv_model_event_stat(m, ev, ids->program_id, &s) ||
        (s.type != PV_STAT_I64 && s.type != PV_STAT_U64))
        return false;
    *prog = s.type == PV_STAT_I64 ? (uint64_t)s.v.i64 : s.v.u64;
    return pv_hlo_names_has_program(ids->hlo, *prog);
}

static uint32_t stat_str_id(const pv_model *m, uint64_t ev, uint32_t name_id)
{
    if (name_id == 0)
        return 0;
    pv_stat s;
    return pv_model_event_stat(m, ev, name_id, &s) ? pv_model_stat_str_id(m, &s) : 0;
}

static int aggregate_track(const pv_model *m, const pv_track *t, const stat_ids *ids,
                           agg_table *tab, uint64_t *n_events, pv_error *err)
{
    agg_entry *last = NULL;
    for (uint64_t ev = t->first_event; ev < t->first_event + t->n_events; ev++) {
        /* The reference drops events shorter than 1 ns (DurationNs() == 0). */
        int64_t dur_ps = m->ev_dur_ps[ev];
        if (dur_ps < 1000)
            continue;
        uint32_t xi = m->ev_extra[ev];
        if (xi == PV_NO_EXTRA)
            continue;
        const pv_event_extra *x = &m->extras[xi];
        const pv_kernel_details *kd = pv_model_kernel(m, x);
        if (kd == NULL)
            continue;
        agg_key k;
        memset(&k, 0, sizeof k);
        k.name = m->metas[m->ev_meta[ev]].name;
        k.op = x->tf_op != 0 || x->hlo_op != 0 ? x->tf_op : stat_str_id(m, ev, ids->level0);
        if (k.op == 0 && ids->launches) {
            /* torch-tb-profiler's op of a kernel: the op that launched it */
            uint64_t op = pv_model_launcher(m, ev);
            if (op != PV_NO_EVENT) {
                k.op = m->metas[m->ev_meta[op]].name;
                k.launched = pv_model_meta_roles(m, m->ev_meta[op]) & PV_ROLE_TENSOR_CORE_OP
                                 ? LAUNCHED_BY_TENSOR_CORE_OP
                                 : LAUNCHED;
            }
        }
        uint64_t prog = 0;
        if (x->hlo_op != 0 && hlo_program(m, ev, ids, &prog)) {
            k.hlo = x->hlo_op;
            k.prog_lo = (uint32_t)prog;
            k.prog_hi = (uint32_t)(prog >> 32);
        }
        k.regs = kd->registers_per_thread;
        k.sshm = kd->static_shmem_bytes;
        k.dshm = kd->dynamic_shmem_bytes;
        memcpy(k.grid, kd->grid, sizeof k.grid);
        memcpy(k.block, kd->block, sizeof k.block);
        uint32_t eq = stat_str_id(m, ev, ids->equation);
        k.einsum = eq != 0 && pv_kernel_einsum_tensor_core_eligible(pv_model_str(m, eq));
        /* Streams often repeat one kernel back to back: try the last row
         * before hashing. */
        agg_entry *e = last != NULL && memcmp(&last->k, &k, sizeof k) == 0 ? last
                                                                            : table_get(tab, &k);
        if (e == NULL)
            return pv_error_set(err, PV_ETOOBIG, NULL, PV_NO_OFFSET,
                                "more than %zu distinct kernel rows", MAX_ENTRIES - 1);
        uint64_t ns = (uint64_t)dur_ps / 1000;
        if (e->occurrences == 0) {
            e->min_ns = ns;
            e->max_ns = ns;
            e->occupancy_pct = kd->occupancy_pct;
        } else {
            e->min_ns = ns < e->min_ns ? ns : e->min_ns;
            e->max_ns = ns > e->max_ns ? ns : e->max_ns;
        }
        e->occurrences++;
        e->total_ns += ns;
        (*n_events)++;
        last = e;
    }
    return 0;
}

/* ---- pass 2: rows under the reference's key -------------------------------- */

static int cmp_u32(uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}

/* The reference's key order: name, grid, block, registers, static and
 * dynamic shmem, uses-TC, eligible, op name. */
static int cmp_key(const pv_kernel_row *a, const pv_kernel_row *b)
{
    int c = strcmp(a->kernel_name, b->kernel_name);
    for (int i = 0; c == 0 && i < 3; i++)
        c = cmp_u32(a->grid[i], b->grid[i]);
    for (int i = 0; c == 0 && i < 3; i++)
        c = cmp_u32(a->block[i], b->block[i]);
    if (c == 0)
        c = cmp_u32(a->registers_per_thread, b->registers_per_thread);
    if (c == 0)
        c = cmp_u32(a->static_shmem_bytes, b->static_shmem_bytes);
    if (c == 0)
        c = cmp_u32(a->dynamic_shmem_bytes, b->dynamic_shmem_bytes);
    if (c == 0)
        c = cmp_u32(a->is_kernel_using_tensor_core, b->is_kernel_using_tensor_core);
    if (c == 0)
        c = cmp_u32(a->is_op_tensor_core_eligible, b->is_op_tensor_core_eligible);
    if (c == 0)
        c = strcmp(a->op_name, b->op_name);
    return c;
}

static int cmp_key_sort(const void *a, const void *b)
{
    return cmp_key(a, b);
}

static int cmp_total_desc(const void *pa, const void *pb)
{
    const pv_kernel_row *a = pa;
    const pv_kernel_row *b = pb;
    if (a->total_ns != b->total_ns)
        return a->total_ns > b->total_ns ? -1 : 1;
    return cmp_key(a, b);
}

/* The innermost of the "::"-joined HLO op names. */
static const char *innermost_hlo(const char *s, size_t *len)
{
    const char *p = s;
    const char *q;
    while ((q = strstr(p, "::")) != NULL)
        p = q + 2;
    *len = strlen(p);
    return p;
}

static void row_from_entry(const pv_model *m, const pv_hlo_names *hlo, const agg_entry *e,
                           pv_arena *a, pv_kernel_row *r)
{
    memset(r, 0, sizeof *r);
    r->kernel_name = pv_model_str(m, e->k.name);
    r->registers_per_thread = e->k.regs;
    r->static_shmem_bytes = e->k.sshm;
    r->dynamic_shmem_bytes = e->k.dshm;
    memcpy(r->grid, e->k.grid, sizeof r->grid);
    memcpy(r->block, e->k.block, sizeof r->block);
    r->occupancy_pct = e->occupancy_pct < 0 ? 0.0 : e->occupancy_pct;
    r->is_kernel_using_tensor_core = pv_kernel_name_uses_tensor_core(r->kernel_name);
    r->op_name = "";
    if (e->k.launched != 0) {
        /* a host op's name (PyTorch's) is no framework op to parse */
        r->op_name = pv_model_str(m, e->k.op);
        r->is_op_tensor_core_eligible = e->k.launched == LAUNCHED_BY_TENSOR_CORE_OP ||
                                        r->is_kernel_using_tensor_core;
    } else if (e->k.op != 0) {
        const char *full = pv_model_str(m, e->k.op);
        pv_tf_op op;
        pv_tf_op_parse(full, strlen(full), &op);
        r->op_name = pv_arena_strndup(a, op.name, op.name_len);
        /* A kernel that uses TensorCores proves its op eligible even when
         * the op-name list does not know the op yet. */
        r->is_op_tensor_core_eligible = e->k.einsum != 0 ||
                                        pv_kernel_op_tensor_core_eligible(op.name, op.name_len) ||
                                        r->is_kernel_using_tensor_core;
    }
    if (e->k.hlo != 0) {
        /* An XLA kernel's op is its HLO instruction's framework op (from
         * the HLO proto's metadata), as the reference names it. */
        size_t len;
        const char *name = innermost_hlo(pv_model_str(m, e->k.hlo), &len);
        uint64_t prog = (uint64_t)e->k.prog_hi << 32 | e->k.prog_lo;
        const pv_hlo_instr *in = pv_hlo_names_find(hlo, prog, name, len);
        if (in != NULL) {
            const char *full = pv_hlo_instr_tf_op(in, a);
            pv_tf_op op;
            pv_tf_op_parse(full, strlen(full), &op);
            r->op_name = pv_arena_strndup(a, op.name, op.name_len);
            r->is_op_tensor_core_eligible = r->is_op_tensor_core_eligible ||
                                            pv_kernel_op_tensor_core_eligible(op.name,
                                                                              op.name_len);
        }
    }
    r->occurrences = e->occurrences;
    r->total_ns = e->total_ns;
    r->min_ns = e->min_ns;
    r->max_ns = e->max_ns;
}

/* The plane's device_vendor stat (vendor_sid names it), or NULL. The page
 * calls the matrix units by their vendor's name (AMD: Matrix Cores). */
static const char *plane_vendor(const pv_model *m, const pv_plane *pl, uint32_t vendor_sid)
{
    for (uint64_t i = pl->first_stat; vendor_sid != 0 && i < pl->first_stat + pl->n_stats; i++)
        if (m->stats[i].name == vendor_sid && m->stats[i].type == PV_STAT_STR)
            return pv_model_str(m, m->stats[i].v.str);
    return NULL;
}

int pv_tool_kernel_stats(const pv_model *m, const pv_kernel_stats_query *q, pv_arena *a,
                         pv_kernel_stats_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_hlo_names hlo;
    pv_hlo_names_build(m, a, &hlo);
    stat_ids ids = {pv_model_str_find(m, "equation"), pv_model_str_find(m, "level 0"),
                    pv_model_str_find(m, "program_id"), &hlo, pv_model_has_roles(m)};
    agg_table tab = {0};
    int rc = 0;
    for (uint32_t p = 0; p < m->n_planes && rc == 0; p++) {
        const pv_plane *pl = &m->planes[p];
        if (pl->kind != PV_PLANE_GPU)
            continue;
        out->n_gpu_planes++;
        if (out->gpu_vendor == NULL)
            out->gpu_vendor = plane_vendor(m, pl, pv_model_str_find(m, "device_vendor"));
        for (uint32_t t = pl->first_track; t < pl->first_track + pl->n_tracks && rc == 0; t++)
            if (m->tracks[t].kind == PV_TRACK_PLAIN)
                rc = aggregate_track(m, &m->tracks[t], &ids, &tab, &out->n_kernel_events, err);
    }
    if (rc != 0) {
        table_fini(&tab);
        memset(out, 0, sizeof *out);
        return rc;
    }
    pv_kernel_row *rows = pv_arena_alloc(a, (tab.n > 0 ? tab.n : 1) * sizeof *rows);
    for (size_t i = 0; i < tab.n; i++)
        row_from_entry(m, &hlo, &tab.entries[i], a, &rows[i]);
    size_t n = tab.n;
    table_fini(&tab);

    pv_sort(rows, n, sizeof *rows, cmp_key_sort);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w > 0 && cmp_key(&rows[w - 1], &rows[i]) == 0) {
            pv_kernel_row *d = &rows[w - 1];
            d->occurrences += rows[i].occurrences;
            d->total_ns += rows[i].total_ns;
            d->min_ns = rows[i].min_ns < d->min_ns ? rows[i].min_ns : d->min_ns;
            d->max_ns = rows[i].max_ns > d->max_ns ? rows[i].max_ns : d->max_ns;
            /* qsort is not stable: take the larger occupancy so the
             * output does not depend on which duplicate came first. */
            if (rows[i].occupancy_pct > d->occupancy_pct)
                d->occupancy_pct = rows[i].occupancy_pct;
        } else {
            rows[w++] = rows[i];
        }
    }
    pv_sort(rows, w, sizeof *rows, cmp_total_desc);
    out->rows = rows;
    out->n_rows_total = w;
    out->n_rows = q != NULL && q->max_rows != 0 && q->max_rows < w ? q->max_rows : w;
    return 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* The one-host order; two hosts' rows with the same key and total are
 * then ordered by their other numbers, so qsort (not stable) cannot make
 * the output depend on the host order. */
static int cmp_combined(const void *pa, const void *pb)
{
    const pv_kernel_row *a = pa;
    const pv_kernel_row *b = pb;
    int c = cmp_total_desc(a, b);
    if (c == 0)
        c = cmp_u64(b->occurrences, a->occurrences);
    if (c == 0)
        c = cmp_u64(a->min_ns, b->min_ns);
    if (c == 0)
        c = cmp_u64(a->max_ns, b->max_ns);
    if (c == 0)
        c = a->occupancy_pct < b->occupancy_pct ? -1 : a->occupancy_pct > b->occupancy_pct;
    return c;
}

void pv_kernel_stats_combine(const pv_kernel_stats_result *parts, size_t n_parts,
                             const pv_kernel_stats_query *q, pv_arena *a,
                             pv_kernel_stats_result *out)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    for (size_t i = 0; i < n_parts; i++)
        n += parts[i].n_rows;
    pv_kernel_row *rows = pv_arena_alloc(a, (n > 0 ? n : 1) * sizeof *rows);
    size_t w = 0;
    for (size_t i = 0; i < n_parts; i++) {
        if (parts[i].n_rows > 0)
            memcpy(rows + w, parts[i].rows, parts[i].n_rows * sizeof *rows);
        w += parts[i].n_rows;
        out->n_rows_total += parts[i].n_rows_total;
        out->n_kernel_events += parts[i].n_kernel_events;
        out->n_gpu_planes += parts[i].n_gpu_planes;
        if (out->gpu_vendor == NULL)
            out->gpu_vendor = parts[i].gpu_vendor;
    }
    pv_sort(rows, n, sizeof *rows, cmp_combined);
    out->rows = rows;
    out->n_rows = q != NULL && q->max_rows != 0 && q->max_rows < n ? q->max_rows : n;
}

int pv_tool_kernel_stats_multi(const pv_model *const *models, size_t n_models,
                               const pv_kernel_stats_query *q, pv_arena *a,
                               pv_kernel_stats_result *out, pv_error *err)
{
    memset(out, 0, sizeof *out);
    pv_kernel_stats_result *parts =
        pv_arena_zalloc(a, (n_models > 0 ? n_models : 1) * sizeof *parts);
    for (size_t i = 0; i < n_models; i++) {
        int rc = pv_tool_kernel_stats(models[i], q, a, &parts[i], err);
        if (rc != 0)
            return rc;
    }
    pv_kernel_stats_combine(parts, n_models, q, a, out);
    return 0;
}
