/* memory_active: the table of allocations alive at an allocator's peak
 * (step 4 of memory_profile.h), made from what the second walk of
 * memory_profile.c leaves alive: the allocations, the reference's special
 * rows ("unused preallocated device memory", "stack"), sorted by the
 * reference's MetadataComparator and equal rows merged. */
#include "tools/memory_profile/memory_profile_priv.h"
#include "util/sort.h"

#include <string.h>

typedef struct candidate {
    pv_memory_active row;
    pv_memory_meta meta;
} candidate;

/* The reference's MetadataComparator (sizes descending, then names
 * ascending), with the position last so equal rows sort the same way on
 * every run. */
static int by_meta(const void *pa, const void *pb)
{
    const candidate *a = pa, *b = pb;
    const pv_memory_meta *x = &a->meta, *y = &b->meta;
    if (x->allocation_bytes != y->allocation_bytes)
        return x->allocation_bytes > y->allocation_bytes ? -1 : 1;
    if (x->requested_bytes != y->requested_bytes)
        return x->requested_bytes > y->requested_bytes ? -1 : 1;
    int c = strcmp(x->tf_op_name, y->tf_op_name);
    if (c == 0)
        c = strcmp(x->region_type, y->region_type);
    if (c == 0)
        c = strcmp(x->data_type, y->data_type);
    if (c == 0)
        c = strcmp(x->tensor_shape, y->tensor_shape);
    if (c != 0)
        return c;
    return a->row.snapshot < b->row.snapshot ? -1 : a->row.snapshot > b->row.snapshot;
}

static bool same_meta(const pv_memory_meta *x, const pv_memory_meta *y)
{
    return x->allocation_bytes == y->allocation_bytes &&
           x->requested_bytes == y->requested_bytes &&
           strcmp(x->tf_op_name, y->tf_op_name) == 0 &&
           strcmp(x->region_type, y->region_type) == 0 &&
           strcmp(x->data_type, y->data_type) == 0 &&
           strcmp(x->tensor_shape, y->tensor_shape) == 0;
}

static pv_memory_meta special_meta(const char *op, const char *region, int64_t bytes,
                                   int64_t step)
{
    pv_memory_meta mt = {0};
    mt.activity = PV_MEMORY_ALLOCATION;
    mt.requested_bytes = bytes;
    mt.allocation_bytes = bytes;
    mt.tf_op_name = op;
    mt.step_id = step;
    mt.region_type = region;
    mt.data_type = "INVALID";
    mt.tensor_shape = "unknown";
    return mt;
}

static int by_position(const void *pa, const void *pb)
{
    const pv__memory_live *a = pa, *b = pb;
    return a->snapshot.position < b->snapshot.position
               ? -1
               : a->snapshot.position > b->snapshot.position;
}

/* Adds the live allocations' snapshots (in position order) to the kept
 * ones, each once. */
static void keep_live(pv_memory_allocator *al, const pv__memory_live *live, size_t n, pv_arena *a)
{
    pv_memory_snapshot *kept = pv_arena_alloc(a, (al->n_kept + n + 1) * sizeof *kept);
    size_t i = 0, j = 0, k = 0;
    while (i < al->n_kept || j < n) {
        if (j == n || (i < al->n_kept && al->kept[i].position <= live[j].snapshot.position)) {
            if (j < n && al->kept[i].position == live[j].snapshot.position)
                j++;
            kept[k++] = al->kept[i++];
        } else {
            kept[k++] = live[j++].snapshot;
        }
    }
    al->kept = kept;
    al->n_kept = k;
}

void pv__memory_active_table(const pv_model *m, pv_memory_allocator *al, pv__memory_live *live,
                             size_t n_live, int64_t unmapped, pv_arena *a)
{
    const pv_memory_summary *sum = &al->summary;
    pv_sort(live, n_live, sizeof *live, by_position);
    candidate *c = pv_arena_alloc(a, (n_live + 2) * sizeof *c);
    size_t n = 0;
    for (; n < n_live; n++) {
        c[n].row.snapshot = (int64_t)live[n].snapshot.position;
        c[n].row.num_occurrences = 1;
        c[n].row.free_start_ps = live[n].free_start_ps;
        c[n].meta = pv_memory_snapshot_meta(m, &live[n].snapshot, a);
    }
    keep_live(al, live, n_live, a);

    if (unmapped > 0) {
        al->special[al->n_special] = special_meta("unused preallocated device memory",
                                                  "persist/dynamic", unmapped, al->peak_step_id);
        al->n_special++;
    }
    if (sum->peak_stats.stack_reserved_bytes > 0) {
        al->special[al->n_special] = special_meta("stack", "stack",
                                                  sum->peak_stats.stack_reserved_bytes,
                                                  al->peak_step_id);
        al->n_special++;
    }
    for (size_t k = 0; k < al->n_special; k++) {
        c[n].row.snapshot = -(int64_t)k - 1;
        c[n].row.num_occurrences = 1;
        c[n].row.free_start_ps = INT64_MIN;
        c[n].meta = al->special[k];
        n++;
    }

    pv_sort(c, n, sizeof *c, by_meta);
    al->active = pv_arena_alloc(a, (n ? n : 1) * sizeof *al->active);
    al->n_active = 0;
    for (size_t i = 0; i < n; i++) {
        pv_memory_active *row = &al->active[al->n_active++];
        *row = c[i].row;
        while (i + 1 < n && same_meta(&c[i].meta, &c[i + 1].meta)) {
            row->num_occurrences++;
            i++;
        }
    }
}

