/* gen_xspace: writes a synthetic XSpace shaped like a GPU training
 * profile, for benchmarks only (never for correctness: the real files in
 * ../shared/testdata are for that).
 *
 *   bench/gen_xspace OUT_FILE SIZE_MB [N_GPUS]
 *
 * Shape, per training step (about 10 ms of trace):
 *   /host:CPU  "python3": train (step_num, group_id, _r) > 40 framework
 *              ops (group_id) > cudaLaunchKernel (correlation_id, group_id)
 *              "tf_data_private_threadpool/N" x3: Iterator::Prefetch >
 *              Iterator::Batch > Iterator::Map (element_id, parent_id)
 *              "tf_Compute": MemoryAllocation / MemoryDeallocation with
 *              the allocator stats of FORMATS.md §4.7 (strings as refs)
 *   /device:GPU:N  "Stream #7(Kernel)": one kernel per launch on this
 *              GPU (correlation_id, group_id, kernel_details as a ref,
 *              context_id); "Stream #8(MemcpyH2D)": memcpys with
 *              memcpy_details.
 * Everything is built in memory line by line (RSS about the file size)
 * and written once; steps are added until the file reaches SIZE_MB. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- byte buffer and protobuf writer ------------------------------------- */

typedef struct wb {
    uint8_t *p;
    size_t len, cap;
} wb;

static void wb_need(wb *w, size_t n)
{
    if (w->len + n <= w->cap)
        return;
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->len + n)
        cap *= 2;
    w->p = realloc(w->p, cap);
    if (w->p == NULL) {
        fprintf(stderr, "gen_xspace: out of memory\n");
        exit(1);
    }
    w->cap = cap;
}

static void put_varint(wb *w, uint64_t v)
{
    wb_need(w, 10);
    while (v >= 0x80) {
        w->p[w->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    w->p[w->len++] = (uint8_t)v;
}

static void put_int(wb *w, uint32_t field, uint64_t v)
{
    put_varint(w, (uint64_t)field << 3);
    put_varint(w, v);
}

static void put_bytes(wb *w, uint32_t field, const void *data, size_t n)
{
    put_varint(w, ((uint64_t)field << 3) | 2);
    put_varint(w, n);
    wb_need(w, n);
    memcpy(w->p + w->len, data, n);
    w->len += n;
}

static void put_str(wb *w, uint32_t field, const char *s)
{
    put_bytes(w, field, s, strlen(s));
}

/* ---- ids ---------------------------------------------------------------------- */

enum stat_id {
    S_STEP_NUM = 1, S_GROUP_ID, S_R, S_CORRELATION_ID, S_TF_OP, S_KERNEL_DETAILS,
    S_MEMCPY_DETAILS, S_ELEMENT_ID, S_PARENT_ID, S_ALLOCATOR_NAME, S_BYTES_ALLOCATED,
    S_BYTES_RESERVED, S_BYTES_AVAILABLE, S_PEAK_BYTES, S_REQUESTED_BYTES, S_ALLOCATION_BYTES,
    S_ADDR, S_REGION_TYPE, S_DATA_TYPE, S_SHAPE, S_CONTEXT_ID, S_COUNT
};

static const char *const stat_names[S_COUNT] = {
    "", "step_num", "group_id", "_r", "correlation_id", "tf_op", "kernel_details",
    "memcpy_details", "element_id", "parent_id", "allocator_name", "bytes_allocated",
    "bytes_reserved", "bytes_available", "peak_bytes_in_use", "requested_bytes",
    "allocation_bytes", "addr", "region_type", "data_type", "shape", "context_id"};

#define N_OPS 40           /* framework ops per step */
#define N_KERNEL_NAMES 64
#define REF_BASE 1000      /* stat metadata ids of interned strings */

enum host_meta { M_TRAIN = 1, M_LAUNCH, M_PREFETCH, M_BATCH, M_MAP, M_ALLOC, M_FREE, M_OP0 };
enum dev_meta { D_H2D = 1, D_KERNEL0 };

typedef struct line {
    int64_t id;
    const char *name;
    wb events;
} line;

/* ---- events ------------------------------------------------------------------- */

static wb ev_scratch, stat_scratch;

static void ev_begin(int64_t meta, int64_t offset_ps, int64_t dur_ps)
{
    ev_scratch.len = 0;
    put_int(&ev_scratch, 1, (uint64_t)meta);
    put_int(&ev_scratch, 2, (uint64_t)offset_ps);
    put_int(&ev_scratch, 3, (uint64_t)dur_ps);
}

static void ev_stat_int(uint32_t stat, uint32_t value_field, uint64_t v)
{
    stat_scratch.len = 0;
    put_int(&stat_scratch, 1, stat);
    put_int(&stat_scratch, value_field, v);
    put_bytes(&ev_scratch, 4, stat_scratch.p, stat_scratch.len);
}

static void ev_stat_str(uint32_t stat, const char *s)
{
    stat_scratch.len = 0;
    put_int(&stat_scratch, 1, stat);
    put_str(&stat_scratch, 5, s);
    put_bytes(&ev_scratch, 4, stat_scratch.p, stat_scratch.len);
}

static void ev_end(line *l)
{
    put_bytes(&l->events, 4, ev_scratch.p, ev_scratch.len);
}

#define I64 4   /* XStat.int64_value */
#define U64 3   /* XStat.uint64_value */
#define REF 7   /* XStat.ref_value */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(uint64_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state % n;
}

/* ---- one step ------------------------------------------------------------------ */

typedef struct gen {
    int n_gpus;
    line host[5];          /* python3, 3 tf.data threads, tf_Compute */
    line (*dev)[2];        /* per GPU: kernel stream, memcpy stream */
    uint64_t correlation;
    uint64_t element;
} gen;

static void gen_step(gen *g, int64_t step, int64_t t0)
{
    const int64_t step_ps = 10000000000ll;   /* 10 ms */
    ev_begin(M_TRAIN, t0, step_ps - 200000000ll);
    ev_stat_int(S_STEP_NUM, I64, (uint64_t)step);
    ev_stat_int(S_GROUP_ID, I64, (uint64_t)step);
    ev_stat_int(S_R, I64, 1);
    ev_end(&g->host[0]);
    int64_t op_ps = (step_ps - 400000000ll) / N_OPS;
    for (int k = 0; k < N_OPS; k++) {
        int64_t os = t0 + 100000000ll + k * op_ps;
        ev_begin(M_OP0 + k, os, op_ps - 1000000);
        ev_stat_int(S_GROUP_ID, I64, (uint64_t)step);
        ev_end(&g->host[0]);
        int gpu = k % g->n_gpus;
        uint64_t corr = ++g->correlation;
        ev_begin(M_LAUNCH, os + 2000000, 5000000 + (int64_t)rnd(2000000));
        ev_stat_int(S_CORRELATION_ID, U64, corr);
        ev_stat_int(S_GROUP_ID, I64, (uint64_t)step);
        ev_end(&g->host[0]);
        int kname = (int)rnd(N_KERNEL_NAMES);
        ev_begin(D_KERNEL0 + kname, os + 9000000, op_ps / 2 + (int64_t)rnd(1000000));
        ev_stat_int(S_CORRELATION_ID, U64, corr);
        ev_stat_int(S_GROUP_ID, I64, (uint64_t)step);
        ev_stat_int(S_KERNEL_DETAILS, REF, REF_BASE + (uint64_t)kname);
        ev_stat_int(S_CONTEXT_ID, U64, 1);
        ev_end(&g->dev[gpu][0]);
        if (k % 8 == 0) {
            ev_begin(D_H2D, os + 1000000, 3000000);
            ev_stat_int(S_CORRELATION_ID, U64, ++g->correlation);
            ev_stat_int(S_GROUP_ID, I64, (uint64_t)step);
            ev_stat_str(S_MEMCPY_DETAILS, "kind_src:pinned kind_dst:device size:1048576 dest:0 async:1");
            ev_end(&g->dev[gpu][1]);
        }
        /* one allocation and its free per op */
        uint64_t addr = 0x7f0000000000ull + rnd(1u << 30) * 256;
        int64_t bytes = 256 * (int64_t)(1 + rnd(4096));
        for (int f = 0; f < 2; f++) {
            ev_begin(f ? M_FREE : M_ALLOC, os + (f ? op_ps - 3000000 : 1500000), 0);
            ev_stat_int(S_ALLOCATOR_NAME, REF, REF_BASE + 100);
            ev_stat_int(S_BYTES_ALLOCATED, I64, (uint64_t)(1000000000 + bytes * k));
            ev_stat_int(S_BYTES_RESERVED, I64, 0);
            ev_stat_int(S_BYTES_AVAILABLE, I64, (uint64_t)(15000000000 - bytes * k));
            ev_stat_int(S_PEAK_BYTES, I64, 2000000000);
            ev_stat_int(S_REQUESTED_BYTES, I64, (uint64_t)bytes);
            ev_stat_int(S_ALLOCATION_BYTES, I64, (uint64_t)bytes);
            ev_stat_int(S_ADDR, U64, addr);
            ev_stat_int(S_REGION_TYPE, REF, REF_BASE + 101);
            ev_stat_int(S_DATA_TYPE, I64, 1);
            ev_stat_int(S_SHAPE, REF, REF_BASE + 102);
            ev_stat_int(S_TF_OP, REF, REF_BASE + 200 + (uint64_t)k);
            ev_stat_int(S_GROUP_ID, I64, (uint64_t)step);
            ev_end(&g->host[4]);
        }
    }
    /* tf.data: three workers, a few nested iterator calls each */
    for (int w = 0; w < 3; w++) {
        for (int i = 0; i < 4; i++) {
            int64_t s = t0 + (int64_t)i * (step_ps / 4) + w * 1000000;
            uint64_t parent = ++g->element;
            ev_begin(M_PREFETCH, s, 900000000);
            ev_stat_int(S_ELEMENT_ID, I64, parent);
            ev_end(&g->host[1 + w]);
            ev_begin(M_BATCH, s + 1000000, 800000000);
            ev_stat_int(S_ELEMENT_ID, I64, ++g->element);
            ev_stat_int(S_PARENT_ID, I64, parent);
            ev_end(&g->host[1 + w]);
            ev_begin(M_MAP, s + 2000000, 700000000);
            ev_stat_int(S_ELEMENT_ID, I64, ++g->element);
            ev_stat_int(S_PARENT_ID, I64, parent);
            ev_end(&g->host[1 + w]);
        }
    }
}

/* ---- planes --------------------------------------------------------------------- */

static void put_map_meta(wb *plane, uint32_t field, int64_t id, const char *name)
{
    wb v = {0}, e = {0};
    put_int(&v, 1, (uint64_t)id);
    put_str(&v, 2, name);
    put_int(&e, 1, (uint64_t)id);
    put_bytes(&e, 2, v.p, v.len);
    put_bytes(plane, field, e.p, e.len);
    free(v.p);
    free(e.p);
}

static void put_stat_metadata(wb *plane)
{
    char buf[128];
    for (int s = 1; s < S_COUNT; s++)
        put_map_meta(plane, 5, s, stat_names[s]);
    for (int k = 0; k < N_KERNEL_NAMES; k++) {
        snprintf(buf, sizeof buf, "regs:%d static_shared:0 dynamic_shared:%d grid:%d,1,1 "
                 "block:256,1,1 occ_pct:%d", 32 + k, 1024 * (k % 4), 80 * (k + 1), 50 + k % 50);
        put_map_meta(plane, 5, REF_BASE + k, buf);
    }
    put_map_meta(plane, 5, REF_BASE + 100, "GPU_0_bfc");
    put_map_meta(plane, 5, REF_BASE + 101, "output");
    put_map_meta(plane, 5, REF_BASE + 102, "(float[128,1024])");
    for (int k = 0; k < N_OPS; k++) {
        snprintf(buf, sizeof buf, "model/dense_%d/MatMul:MatMul", k);
        put_map_meta(plane, 5, REF_BASE + 200 + k, buf);
    }
}

/* Writes a line as XPlane field 3: header fields then the events. */
static void put_line(wb *plane, const line *l)
{
    wb h = {0};
    put_int(&h, 1, (uint64_t)l->id);
    put_str(&h, 2, l->name);
    put_int(&h, 3, 1000);   /* timestamp_ns */
    put_varint(plane, (3u << 3) | 2);
    put_varint(plane, h.len + l->events.len);
    wb_need(plane, h.len + l->events.len);
    memcpy(plane->p + plane->len, h.p, h.len);
    plane->len += h.len;
    memcpy(plane->p + plane->len, l->events.p, l->events.len);
    plane->len += l->events.len;
    free(h.p);
}

static int write_plane(FILE *f, const wb *plane)
{
    wb hdr = {0};
    put_varint(&hdr, (1u << 3) | 2);
    put_varint(&hdr, plane->len);
    int bad = fwrite(hdr.p, 1, hdr.len, f) != hdr.len ||
              fwrite(plane->p, 1, plane->len, f) != plane->len;
    free(hdr.p);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT_FILE SIZE_MB [N_GPUS]\n", argv[0]);
        return 2;
    }
    uint64_t target = strtoull(argv[2], NULL, 10) << 20;
    gen g = {0};
    g.n_gpus = argc > 3 ? atoi(argv[3]) : 2;
    if (g.n_gpus < 1 || g.n_gpus > 64)
        g.n_gpus = 2;
    const char *host_names[5] = {"python3", "tf_data_private_threadpool/1",
                                 "tf_data_private_threadpool/2", "tf_data_private_threadpool/3",
                                 "tf_Compute"};
    for (int i = 0; i < 5; i++) {
        g.host[i].id = 1000 + i;
        g.host[i].name = host_names[i];
    }
    g.dev = calloc((size_t)g.n_gpus, sizeof *g.dev);
    for (int d = 0; d < g.n_gpus; d++) {
        g.dev[d][0].id = 7;
        g.dev[d][0].name = "Stream #7(Kernel)";
        g.dev[d][1].id = 8;
        g.dev[d][1].name = "Stream #8(MemcpyH2D)";
    }
    uint64_t total = 0;
    int64_t step = 0;
    while (total < target) {
        gen_step(&g, step, step * 10000000000ll);
        step++;
        total = 0;
        for (int i = 0; i < 5; i++)
            total += g.host[i].events.len + 16;
        for (int d = 0; d < g.n_gpus; d++)
            total += g.dev[d][0].events.len + g.dev[d][1].events.len + 32;
    }

    FILE *f = fopen(argv[1], "wb");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    int bad = 0;
    /* host plane */
    wb plane = {0};
    put_int(&plane, 1, 0);
    put_str(&plane, 2, "/host:CPU");
    for (int i = 0; i < 5; i++) {
        put_line(&plane, &g.host[i]);
        free(g.host[i].events.p);
    }
    const char *host_meta[M_OP0] = {"", "train", "cudaLaunchKernel", "Iterator::Prefetch",
                                    "Iterator::Prefetch::Batch",
                                    "Iterator::Prefetch::Batch::Map", "MemoryAllocation",
                                    "MemoryDeallocation"};
    for (int m = 1; m < M_OP0; m++)
        put_map_meta(&plane, 4, m, host_meta[m]);
    char buf[128];
    for (int k = 0; k < N_OPS; k++) {
        snprintf(buf, sizeof buf, "model/dense_%d/MatMul:MatMul", k);
        put_map_meta(&plane, 4, M_OP0 + k, buf);
    }
    put_stat_metadata(&plane);
    bad |= write_plane(f, &plane);
    /* device planes */
    for (int d = 0; d < g.n_gpus; d++) {
        plane.len = 0;
        put_int(&plane, 1, (uint64_t)d + 1);
        snprintf(buf, sizeof buf, "/device:GPU:%d", d);
        put_str(&plane, 2, buf);
        for (int s = 0; s < 2; s++) {
            put_line(&plane, &g.dev[d][s]);
            free(g.dev[d][s].events.p);
        }
        put_map_meta(&plane, 4, D_H2D, "MemcpyH2D");
        for (int k = 0; k < N_KERNEL_NAMES; k++) {
            snprintf(buf, sizeof buf, "void gemm_kernel_%d<float, 128, 64>(Params)", k);
            put_map_meta(&plane, 4, D_KERNEL0 + k, buf);
        }
        put_stat_metadata(&plane);
        bad |= write_plane(f, &plane);
    }
    wb host = {0};
    put_str(&host, 4, "gen-host");
    bad |= fwrite(host.p, 1, host.len, f) != host.len;
    bad |= fclose(f) != 0;
    /* Freed so a sanitizer build (tests/api/test_load_progress runs this
     * one under ASan's leak check) exits 0. */
    free(host.p);
    free(plane.p);
    free(g.dev);
    if (bad) {
        fprintf(stderr, "gen_xspace: cannot write %s\n", argv[1]);
        return 1;
    }
    printf("gen_xspace_steps %" PRId64 " steps\n", step);
    return 0;
}
